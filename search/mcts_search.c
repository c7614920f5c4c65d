/* mcts_search: one search under a simulation cap and a time budget, run by
 * one or more threads on one tree. The tree's lock covers selection and
 * backup; evaluations run outside it, in each thread's own evaluator, so
 * the threads overlap where the time goes (the network, the playouts). */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/mcts_internal.h"

/* Simulations a thread may finish without an evaluation (terminal, proven,
 * cached) before it looks at the clock again. */
#define FREE_SIMS 64

/* Each thread's simulations and buffers, made on a search's first
 * mcts_search and kept (grown when more threads or leaves are asked): one
 * block a thread, on cache lines of its own, since the evaluators write
 * their policies and values outside the lock. */
typedef struct {
  mcts_sim *sims;
  const game_pos **leaf;
  float *policy, *value;
} worker_mem;

struct mcts_workers {
  int threads, leaves;
  worker_mem t[MCTS_MAX_THREADS];
};

void mcts_workers_free(mcts_workers *w) {
  if (!w) return;
  for (int i = 0; i < w->threads; i++) free(w->t[i].sims);
  free(w);
}

/* Bytes rounded up to a multiple of the alignment of anything. */
static size_t round_up(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

static int workers_fit(mcts *m, int threads, int leaves) {
  if (m->workers && m->workers->threads >= threads && m->workers->leaves >= leaves) return 0;
  mcts_workers_free(m->workers);
  mcts_workers *w = m->workers = calloc(1, sizeof *w);
  if (!w) return -1;
  size_t L = (size_t)leaves, sims = round_up(L * sizeof(mcts_sim)),
         leaf = round_up(L * sizeof(const game_pos *)),
         policy = round_up(L * (size_t)m->g.n_actions * sizeof(float));
  w->leaves = leaves;
  for (; w->threads < threads; w->threads++) {
    char *mem = calloc_lines(sims + leaf + policy + L * sizeof(float));
    if (!mem) break;
    worker_mem *t = &w->t[w->threads];
    t->sims = (mcts_sim *)mem;
    t->leaf = (const game_pos **)(mem + sims);
    t->policy = (float *)(mem + sims + leaf);
    t->value = (float *)(mem + sims + leaf + policy);
  }
  if (w->threads == threads) return 0;
  mcts_workers_free(w);
  m->workers = NULL;
  return -1;
}

mcts_limits mcts_limits_sims(int sims) {
  mcts_limits l;
  memset(&l, 0, sizeof l);
  l.sims = sims;
  l.threads = 1;
  l.leaves = 1;
  return l;
}

typedef struct {
  mcts *m;
  const mcts_limits *l;
  atomic_int lock; /* 1: held (run_lock) */
  int threaded;
  int cap;    /* simulation cap */
  double t0;  /* clock at the start */
  int stop;   /* set: every thread finishes what it has in flight and ends */
  int reason; /* MCTS_STOP_* */
  int early;  /* early stopping applies */
  int best;   /* the most visited root child at the last look, -1: none yet */
  int changes;
  double changed_at; /* seconds: when it last changed */
  int failed;
  char msg[128];
} search_run;

/* The lock is held for a selection or a backup, a microsecond or two, while
 * an evaluation outside it takes ten or more: a waiter spins briefly
 * rather than sleep in the kernel, whose wake-up would cost more than the
 * wait, and yields its core after that (more threads than cores). */
static void run_lock(search_run *r) {
  if (!r->threaded) return;
  int spins = 0;
  while (atomic_exchange_explicit(&r->lock, 1, memory_order_acquire))
    while (atomic_load_explicit(&r->lock, memory_order_relaxed)) {
      if (++spins < 1000)
        cpu_relax();
      else
        sched_yield();
    }
}
static void run_unlock(search_run *r) {
  if (r->threaded) atomic_store_explicit(&r->lock, 0, memory_order_release);
}

/* The root children with the most and second most visits, and whether
 * another child with a quarter of the best's visits has a better mean. */
static void root_leaders(const mcts *m, int *best, int *second, int *value_disagrees) {
  const mcts_node *r = &m->nodes[0];
  *best = *second = -1;
  *value_disagrees = 0;
  if (!r->child) return;
  const mcts_node *c = &m->nodes[r->child];
  for (int k = 0; k < r->nchild; k++) {
    if (*best < 0 || c[k].n > c[*best].n) {
      *second = *best;
      *best = k;
    } else if (*second < 0 || c[k].n > c[*second].n) {
      *second = k;
    }
  }
  float qb = node_q(&c[*best]);
  for (int k = 0; k < r->nchild; k++)
    if (k != *best && c[k].n > 0 && 4 * c[k].n >= c[*best].n && node_q(&c[k]) > qb)
      *value_disagrees = 1;
}

/* Under the lock: whether the search should end now (sets r->stop). */
static int should_stop(search_run *r) {
  mcts *m = r->m;
  const mcts_limits *l = r->l;
  if (r->stop) return 1;
  if (m->p.solver && node_proof(&m->nodes[0])) {
    r->reason = MCTS_STOP_PROVEN;
    return r->stop = 1;
  }
  if (m->started >= r->cap) {
    r->reason = MCTS_STOP_SIMS;
    return r->stop = 1;
  }
  /* The clock stops nothing before the root has its children (one
   * evaluation): every search has moves to compare. */
  if (!(l->soft > 0) || !m->nodes[0].child) return 0;
  /* A forced move: with time banked, nothing to think about. */
  if (r->early && m->nodes[0].nchild == 1) {
    r->reason = MCTS_STOP_EARLY;
    return r->stop = 1;
  }
  timectl_view v;
  memset(&v, 0, sizeof v);
  v.elapsed = timectl_now(l->clock) - r->t0;
  v.soft = l->soft;
  v.hard = l->hard;
  int best, second;
  root_leaders(m, &best, &second, &v.disagree);
  if (best != r->best) {
    if (r->best >= 0) r->changes++;
    r->best = best;
    r->changed_at = v.elapsed;
  }
  v.changes = r->changes;
  v.changed_at = r->changed_at;
  /* The rate is trusted after a few simulations. */
  v.early = r->early && second >= 0 && m->done_sims >= 32 && v.elapsed > 0;
  if (v.early) {
    const mcts_node *c = &m->nodes[m->nodes[0].child];
    v.lead = (double)c[best].n - (double)c[second].n;
    v.rate = (double)m->done_sims / v.elapsed;
    v.cap_left = (double)r->cap - (double)m->started;
  }
  int d = timectl_decide(&v);
  if (d == TIMECTL_GO) return 0;
  r->reason = d == TIMECTL_SOFT    ? MCTS_STOP_SOFT
              : d == TIMECTL_EARLY ? MCTS_STOP_EARLY
                                   : MCTS_STOP_HARD;
  return r->stop = 1;
}

typedef struct {
  search_run *r;
  int id;
} worker_arg;

static void *worker(void *arg) {
  worker_arg *wa = arg;
  search_run *r = wa->r;
  mcts *m = r->m;
  const mcts_limits *l = r->l;
  const worker_mem *t = &m->workers->t[wa->id];
  const int A = m->g.n_actions, L = l->leaves, vloss = l->threads > 1 || L > 1;
  mcts_sim *sims = t->sims;
  const game_pos **leaf = t->leaf;
  float *policy = t->policy, *value = t->value;
  mcts_eval ev = l->evals ? l->evals[wa->id] : m->ev;
  run_lock(r);
  while (!should_stop(r)) {
    int k = 0;
    for (int free_sims = 0; k < L && free_sims < FREE_SIMS && m->started < r->cap;) {
      int res = mcts_sim_select(m, &sims[k], &leaf[k], vloss);
      if (res < 0) {
        r->failed = 1;
        snprintf(r->msg, sizeof r->msg, "search state error");
        r->stop = 1;
        break;
      }
      m->started++;
      if (res == 1) {
        k++;
      } else {
        free_sims++;
        if (m->p.solver && node_proof(&m->nodes[0])) break;
      }
    }
    if (k == 0) continue;
    run_unlock(r);
    int bad = ev.evaluate(ev.ctx, &m->g, leaf, k, policy, value);
    run_lock(r);
    for (int j = 0; j < k; j++) {
      if (bad)
        mcts_sim_drop(m, &sims[j]);
      else
        mcts_sim_backup(m, &sims[j], policy + (size_t)j * (size_t)A, value[j]);
    }
    if (bad) {
      r->failed = 1;
      snprintf(r->msg, sizeof r->msg, "the evaluator failed on a batch of %d", k);
      r->stop = 1;
    }
  }
  run_unlock(r);
  return NULL;
}

int mcts_search(mcts *m, const mcts_limits *l, mcts_search_info *info, char *err, size_t errlen) {
  if (!m->root_set) {
    errf(err, errlen, "no root position set");
    return -1;
  }
  if (l->threads < 1 || l->threads > MCTS_MAX_THREADS || l->leaves < 1 ||
      l->leaves > MCTS_MAX_LEAVES || (l->threads > 1 && !l->evals) || l->soft < 0) {
    errf(err, errlen,
         "bad search limits: threads %d (1..%d, each with an evaluator), leaves %d (1..%d), "
         "time %g",
         l->threads, MCTS_MAX_THREADS, l->leaves, MCTS_MAX_LEAVES, l->soft);
    return -1;
  }
  int timed = l->soft > 0;
  int cap = l->sims > 0 ? l->sims : timed ? INT_MAX : m->p.sims;
  if (workers_fit(m, l->threads, l->leaves)) {
    errf(err, errlen, "out of memory for %d threads of %d leaves", l->threads, l->leaves);
    return -1;
  }
  /* Gumbel's halving schedule needs a budget: the cap, else params.sims. */
  mcts_begin(m, cap == INT_MAX ? m->p.sims : cap);
  search_run r;
  memset(&r, 0, sizeof r);
  r.m = m;
  r.l = l;
  r.cap = cap;
  r.best = -1;
  r.threaded = l->threads > 1;
  float t = m->root_pos.ply < m->p.temp_plies ? m->p.temperature : m->p.temp_final;
  r.early = l->early_stop && !m->p.gumbel && !(t > 0);
  r.t0 = timectl_now(l->clock);
  worker_arg args[MCTS_MAX_THREADS];
  pthread_t tid[MCTS_MAX_THREADS];
  int started = 1;
  atomic_init(&r.lock, 0);
  for (int i = 0; i < l->threads; i++) args[i] = (worker_arg){&r, i};
  for (int i = 1; i < l->threads; i++) {
    if (pthread_create(&tid[i], NULL, worker, &args[i]) != 0) break;
    started++;
  }
  worker(&args[0]);
  for (int i = 1; i < started; i++) pthread_join(tid[i], NULL);
  if (info) {
    info->sims = m->done_sims;
    info->seconds = timectl_now(l->clock) - r.t0;
    info->stop = r.reason;
    info->best_changes = r.changes;
  }
  if (r.failed) {
    errf(err, errlen, "%s", r.msg);
    return -1;
  }
  return m->done_sims;
}

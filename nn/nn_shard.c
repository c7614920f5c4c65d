/* Training on several threads (nn_trainer_set_threads): each step's batch
 * in shards of consecutive rows, one per thread, each with its own
 * workspace and gradient; then the gradients summed, weighted by rows, in
 * shard order, every thread summing its own slice of the parameters and
 * that slice's sum of squares; then AdamW, every thread on its slice again.
 * Serial, the optimiser and the norm cost a tenth of a two-thread step.
 *
 * Between the three phases of a step the helpers spin briefly, then wait
 * on a condition variable, so a thread that fails to start needs no
 * special unwinding, and helpers cost nothing while the learner does other
 * work. */
#include "nn/nn_internal.h"

#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const float *x, *tp, *tv, *ts;
  const uint32_t *legal;
  int rows;
  nn_losses L;
  int decisive, right;
} shard_job;

struct nn_shards {
  int n;          /* threads, the caller's included */
  int helpers;    /* started helper threads (n - 1 unless a start failed) */
  int max_batch;  /* the largest batch the buffers take */
  size_t nparams; /* floats per gradient */
  pthread_t *th;
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  atomic_uint gen;     /* bumped for every phase the helpers run */
  int phase;           /* 1: shards, 2: sums, 3: AdamW */
  atomic_uint pending; /* helpers still in the phase */
  int quit;
  /* The step. */
  const nn_net *net;
  const nn_loss_weights *w;
  int used; /* shards of this step */
  float **grad;
  nn_ws **ws; /* [0] is the caller's */
  shard_job *job;
  float *wt;     /* per shard: rows / batch */
  double *sumsq; /* per thread: its slice's sum of squares after phase 2 */
  /* The update (phase 3). */
  nn_net *upd;
  const nn_trainer *tr;
  const nn_adam_step *st;
};

typedef struct {
  struct nn_shards *s;
  int i;
} helper_arg;

static void run_shard(struct nn_shards *s, int i, nn_ws *ws) {
  shard_job *j = &s->job[i];
  nn_loss_grad_rows(s->net, s->w, s->grad[i], ws, j->x, j->legal, j->tp, j->tv, j->ts, j->rows,
                    &j->L, &j->decisive, &j->right);
}

/* Thread i's slice of the parameters; bounds on multiples of 16 floats keep
 * the vector kernels off the slices' edges. */
static void slice(const struct nn_shards *s, int i, size_t *lo, size_t *hi) {
  *lo = s->nparams * (size_t)i / (size_t)s->n & ~(size_t)15;
  *hi = i + 1 == s->n ? s->nparams : s->nparams * (size_t)(i + 1) / (size_t)s->n & ~(size_t)15;
}

/* grad[0][k] = sum_r wt[r] grad[r][k] over thread i's slice of k, and the
 * slice's sum of squares. */
static void sum_slice(struct nn_shards *s, int i) {
  size_t lo, hi;
  slice(s, i, &lo, &hi);
  float *g0 = s->grad[0];
  const float w0 = s->wt[0];
  for (size_t k = lo; k < hi; k++) g0[k] *= w0;
  for (int r = 1; r < s->used; r++) {
    const float *g = s->grad[r], w = s->wt[r];
    for (size_t k = lo; k < hi; k++) g0[k] += w * g[k];
  }
  s->sumsq[i] = nn_k_sumsq(g0 + lo, hi - lo);
}

static void work(struct nn_shards *s, int i, int phase) {
  if (phase == 1 && i < s->used) run_shard(s, i, s->ws[i]);
  if (phase == 2) sum_slice(s, i);
  if (phase == 3) {
    size_t lo, hi;
    slice(s, i, &lo, &hi);
    nn_adam_slice(s->upd, s->tr, lo, hi, s->st);
  }
}

/* Steps follow each other within a fraction of a millisecond while the
 * learner trains, and a sleeping thread takes tens of microseconds to wake
 * in a virtual machine (three times a step): so a waiting thread spins
 * this long before it sleeps. */
#define SPIN_SECONDS 3e-4

/* Spins while (*word == v) == equal, up to SPIN_SECONDS; returns *word. */
static unsigned spin_while(const atomic_uint *word, unsigned v, int equal) {
  unsigned w = atomic_load_explicit(word, memory_order_acquire);
  const double t0 = clock_wall();
  for (int k = 1; (w == v) == equal; k++) {
    cpu_relax();
    if (k % 64 == 0 && clock_wall() - t0 > SPIN_SECONDS) break;
    w = atomic_load_explicit(word, memory_order_acquire);
  }
  return w;
}

static void *helper(void *p) {
  helper_arg *a = p;
  struct nn_shards *s = a->s;
  const int i = a->i;
  free(a);
  unsigned seen = 0;
  for (;;) {
    unsigned gen = spin_while(&s->gen, seen, 1);
    if (gen == seen) { /* gen only changes under the lock: no wake-up is lost */
      pthread_mutex_lock(&s->mu);
      while ((gen = atomic_load(&s->gen)) == seen) pthread_cond_wait(&s->go, &s->mu);
      pthread_mutex_unlock(&s->mu);
    }
    seen = gen;
    if (s->quit) break;
    work(s, i, s->phase);
    if (atomic_fetch_sub_explicit(&s->pending, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&s->mu);
      pthread_cond_signal(&s->done);
      pthread_mutex_unlock(&s->mu);
    }
  }
  return NULL;
}

/* One phase on every thread, the caller's as thread 0. */
static void phase(struct nn_shards *s, int ph) {
  s->phase = ph;
  atomic_store(&s->pending, (unsigned)s->helpers);
  pthread_mutex_lock(&s->mu);
  atomic_fetch_add(&s->gen, 1); /* publishes the phase and the step's fields */
  pthread_cond_broadcast(&s->go);
  pthread_mutex_unlock(&s->mu);
  work(s, 0, ph);
  if (spin_while(&s->pending, 0, 0) == 0) return;
  pthread_mutex_lock(&s->mu);
  while (atomic_load(&s->pending) > 0) pthread_cond_wait(&s->done, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

void nn_shards_free(struct nn_shards *s) {
  if (!s) return;
  if (s->th) {
    s->quit = 1;
    pthread_mutex_lock(&s->mu);
    atomic_fetch_add(&s->gen, 1);
    pthread_cond_broadcast(&s->go);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < s->helpers; i++) pthread_join(s->th[i], NULL);
  }
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->go);
  pthread_cond_destroy(&s->done);
  for (int i = 1; i < s->n; i++) {
    if (s->grad) free(s->grad[i]);
    if (s->ws) nn_ws_free(s->ws[i]);
  }
  free(s->grad);
  free(s->ws);
  free(s->job);
  free(s->wt);
  free(s->sumsq);
  free(s->th);
  free(s);
}

int nn_trainer_set_threads(nn_trainer *t, const nn_net *n, int threads, int max_batch, char *err,
                           size_t errlen) {
  if (threads < 1 || threads > NN_MAX_TRAIN_THREADS) {
    errf(err, errlen, "learner threads %d out of range 1..%d", threads, NN_MAX_TRAIN_THREADS);
    return -1;
  }
  if (!nn_config_equal(&n->cfg, &t->cfg)) {
    errf(err, errlen, "learner threads: the net's shape is not the trainer's");
    return -1;
  }
  nn_shards_free(t->shards);
  t->shards = NULL;
  if (threads == 1) return 0;
  struct nn_shards *s = calloc(1, sizeof *s);
  if (!s) goto oom;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->go, NULL);
  pthread_cond_init(&s->done, NULL);
  s->n = threads;
  s->max_batch = max_batch;
  s->nparams = t->n;
  s->grad = calloc((size_t)threads, sizeof *s->grad);
  s->ws = calloc((size_t)threads, sizeof *s->ws);
  s->job = calloc((size_t)threads, sizeof *s->job);
  s->wt = calloc((size_t)threads, sizeof *s->wt);
  s->sumsq = calloc((size_t)threads, sizeof *s->sumsq);
  s->th = calloc((size_t)threads, sizeof *s->th);
  if (!s->grad || !s->ws || !s->job || !s->wt || !s->sumsq || !s->th) goto oom;
  /* A shard holds at most ceil(max_batch / threads) rows, or 3 when the
   * batch is too small to give every thread two. */
  int rows = (max_batch + threads - 1) / threads;
  if (rows < 3) rows = 3;
  for (int i = 1; i < threads; i++) {
    s->grad[i] = malloc(sizeof(float) * t->n);
    if (!s->grad[i] || !(s->ws[i] = nn_ws_create(n, rows, err, errlen))) goto oom;
  }
  for (int i = 1; i < threads; i++) {
    helper_arg *a = malloc(sizeof *a);
    if (!a) goto oom;
    a->s = s;
    a->i = i;
    if (pthread_create(&s->th[s->helpers], NULL, helper, a) != 0) {
      free(a);
      nn_shards_free(s);
      errf(err, errlen, "learner threads: cannot start thread %d of %d", i + 1, threads);
      return -1;
    }
    s->helpers++;
  }
  t->shards = s;
  return 0;
oom:
  nn_shards_free(s);
  errf(err, errlen, "out of memory for %d learner threads", threads);
  return -1;
}

int nn_trainer_threads(const nn_trainer *t) { return t->shards ? t->shards->n : 1; }

int nn_shard_loss_grad(const nn_net *n, nn_trainer *t, nn_ws *ws, const float *x,
                       const uint32_t *legal, const float *target_policy, const float *target_value,
                       const float *target_score, int batch, nn_losses *losses, double *sumsq) {
  struct nn_shards *s = t->shards;
  if (batch > s->max_batch) return -1;
  const int NI = n->cfg.n_in, A = n->cfg.n_actions;
  int used = batch / 2 < s->n ? batch / 2 : s->n;
  if (used < 1) used = 1;
  s->net = n;
  s->w = &t->p.w;
  s->used = used;
  s->grad[0] = t->grad;
  s->ws[0] = ws;
  for (int i = 0, r0 = 0; i < used; i++) {
    shard_job *j = &s->job[i];
    int r1 = (int)((long)batch * (i + 1) / used);
    j->rows = r1 - r0;
    j->x = x + (size_t)r0 * NI;
    j->legal = legal ? legal + r0 : NULL;
    j->tp = target_policy + (size_t)r0 * A;
    j->tv = target_value + r0;
    j->ts = target_score ? target_score + r0 : NULL;
    s->wt[i] = (float)j->rows / (float)batch;
    r0 = r1;
  }
  phase(s, 1);
  phase(s, 2);
  nn_losses L;
  memset(&L, 0, sizeof L);
  int decisive = 0, right = 0;
  for (int i = 0; i < used; i++) {
    const shard_job *j = &s->job[i];
    const double w = (double)j->rows / batch;
    L.policy += w * j->L.policy;
    L.value += w * j->L.value;
    L.score += w * j->L.score;
    L.total += w * j->L.total;
    L.entropy += w * j->L.entropy;
    decisive += j->decisive;
    right += j->right;
  }
  L.value_sign_acc = decisive ? (double)right / decisive : -1.0;
  *losses = L;
  *sumsq = 0;
  for (int i = 0; i < s->n; i++) *sumsq += s->sumsq[i];
  return 0;
}

void nn_shard_adam(nn_net *n, nn_trainer *t, const nn_adam_step *st) {
  struct nn_shards *s = t->shards;
  s->upd = n;
  s->tr = t;
  s->st = st;
  phase(s, 3);
}

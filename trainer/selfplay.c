#include "trainer/selfplay.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "search/evaluator_nn.h"

/* ---- netslot ------------------------------------------------------------------- */

struct netslot {
  pthread_mutex_t lock;
  nn_net *net;
  _Atomic uint64_t gen;
};

netslot *netslot_create(const nn_net *initial, char *err, size_t errlen) {
  netslot *s = calloc(1, sizeof *s);
  nn_config c = nn_config_of(initial);
  if (!s || !(s->net = nn_create(&c, 0, err, errlen))) {
    free(s);
    return NULL;
  }
  nn_copy(s->net, initial);
  pthread_mutex_init(&s->lock, NULL);
  atomic_store(&s->gen, 1);
  return s;
}

void netslot_free(netslot *s) {
  if (!s) return;
  pthread_mutex_destroy(&s->lock);
  nn_free(s->net);
  free(s);
}

void netslot_publish(netslot *s, const nn_net *net) {
  pthread_mutex_lock(&s->lock);
  nn_copy(s->net, net);
  atomic_fetch_add(&s->gen, 1);
  pthread_mutex_unlock(&s->lock);
}

int netslot_fetch(netslot *s, nn_net *dst, uint64_t *gen) {
  if (atomic_load(&s->gen) == *gen) return 0;
  pthread_mutex_lock(&s->lock);
  nn_copy(dst, s->net);
  *gen = atomic_load(&s->gen);
  pthread_mutex_unlock(&s->lock);
  return 1;
}

uint64_t netslot_generation(netslot *s) { return atomic_load(&s->gen); }

/* ---- Workers --------------------------------------------------------------------- */

/* The timing evaluator: the network evaluator wrapped to measure the time
 * the worker spends in it. */
typedef struct {
  mcts_eval inner;
  selfplay_counters *c;
} timed_eval;

/* One game in progress: its own position and history (the search keeps its
 * own copies), and the samples recorded so far. */
typedef struct {
  game_pos pos;
  game_hist *hist;
  int n;                  /* samples recorded */
  int nmoves;             /* moves played */
  replay_sample *samples; /* GAME_MAX_PLIES_CAP */
  uint8_t *moves;         /* GAME_MAX_PLIES_CAP */
} game_slot;

typedef struct {
  struct selfplay *owner;
  int id;
  pthread_t thread;
  nn_net *net;  /* private copy of the best */
  uint64_t gen; /* generation of that copy */
  mcts_nn *eval;
  mcts_batch *batch;
  game_slot *slots;
  float *pi;        /* n_actions */
  timed_eval timed; /* the network evaluator, timed */
  rng_t rng;
  uint64_t games_done;
  char err[256];
} worker;

struct selfplay {
  selfplay_params p;
  game g;
  int first_mover; /* the first player, whose results the counters keep */
  netslot *best;
  replay *buffer;
  selfplay_counters *counters;
  selfplay_record_fn record;
  void *record_ctx;
  _Atomic int stop;
  _Atomic int failed;
  int n;
  worker *w;
};

static int timed_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                          float *policy, float *value) {
  timed_eval *t = ctx;
  double t0 = clock_thread_cpu();
  int rc = t->inner.evaluate(t->inner.ctx, g, pos, n, policy, value);
  atomic_fetch_add(&t->c->net_ns, (uint64_t)((clock_thread_cpu() - t0) * 1e9));
  atomic_fetch_add(&t->c->evals, (uint64_t)n);
  atomic_fetch_add(&t->c->eval_calls, 1);
  return rc;
}

static int new_game(selfplay *s, worker *w, int i) {
  game_slot *gs = &w->slots[i];
  game_start(&s->g, &gs->pos);
  game_hist_reset(gs->hist, &gs->pos);
  gs->n = 0;
  gs->nmoves = 0;
  mcts *m = mcts_batch_search(w->batch, i);
  mcts_reset(m);
  return mcts_set_root(m, &gs->pos, gs->hist, w->err, sizeof w->err);
}

/* A finished game: outcomes into its samples, samples into the buffer. */
static void finish_game(selfplay *s, worker *w, game_slot *gs) {
  const game_pos *end = &gs->pos;
  for (int k = 0; k < gs->n; k++) {
    replay_sample *x = &gs->samples[k];
    int side = x->pos.mover;
    x->z = (int8_t)game_outcome(end, side);
    int margin = game_margin(end, side);
    x->margin = (int8_t)(margin > 127 ? 127 : margin < -127 ? -127 : margin);
  }
  if (gs->n) replay_add(s->buffer, gs->samples, gs->n);
  selfplay_counters *c = s->counters;
  atomic_fetch_add(&c->games, 1);
  atomic_fetch_add(&c->plies, (uint64_t)end->ply);
  atomic_fetch_add(&c->samples, (uint64_t)gs->n);
  int r = game_outcome(end, s->first_mover);
  atomic_fetch_add(&c->wins[r > 0 ? 0 : r == 0 ? 1 : 2], 1);
  w->games_done++;
  if (s->record && s->p.record_every > 0 &&
      (w->games_done * (uint64_t)s->n + (uint64_t)w->id) % (uint64_t)s->p.record_every == 0)
    s->record(s->record_ctx, &s->g, gs->moves, gs->nmoves, end);
}

static int worker_loop(selfplay *s, worker *w) {
  const game *g = &s->g;
  int n = s->p.games;
  for (int i = 0; i < n; i++)
    if (new_game(s, w, i) != 0) return -1;
  while (!atomic_load(&s->stop)) {
    netslot_fetch(s->best, w->net, &w->gen);
    /* Playout-cap randomisation: one coin per round for all games. */
    int full = !s->p.cap_sims || rng_double(&w->rng) < s->p.full_frac;
    int sims = full ? s->p.search.sims : s->p.cap_sims;
    double t0 = clock_thread_cpu();
    uint64_t net0 = atomic_load(&s->counters->net_ns);
    if (mcts_batch_run(w->batch, NULL, sims, w->err, sizeof w->err) < 0) return -1;
    for (int i = 0; i < n; i++) {
      game_slot *gs = &w->slots[i];
      mcts *m = mcts_batch_search(w->batch, i);
      if (full) {
        replay_sample *x = &gs->samples[gs->n++];
        memset(x, 0, sizeof *x);
        x->pos = gs->pos;
        mcts_target_policy(m, w->pi);
        replay_set_policy(x, w->pi, g->n_actions);
      }
      int a = mcts_choose_action(m);
      if (a < 0 || !(game_legal(g, &gs->pos) >> a & 1)) {
        errf(w->err, sizeof w->err, "search chose an illegal action %d", a);
        return -1;
      }
      game_step(g, &gs->pos, gs->hist, a);
      gs->moves[gs->nmoves++] = (uint8_t)a;
      int ended = mcts_advance(m, a, w->err, sizeof w->err);
      if (ended < 0) return -1;
      if (gs->pos.status != GAME_ONGOING || gs->nmoves >= GAME_MAX_PLIES_CAP) {
        finish_game(s, w, gs);
        if (new_game(s, w, i) != 0) return -1;
      } else if (ended) {
        /* The search saw an end the record did not (it cannot: same rules,
         * same history); resynchronise rather than diverge. */
        if (mcts_set_root(m, &gs->pos, gs->hist, w->err, sizeof w->err) != 0) return -1;
      }
    }
    /* Search time = the round's CPU time minus what this worker spent in
     * the network (net_ns also counts other workers: an estimate). */
    double dt = clock_thread_cpu() - t0;
    uint64_t dnet = atomic_load(&s->counters->net_ns) - net0;
    double search = dt * 1e9 - (double)dnet / (double)s->n;
    if (search > 0) atomic_fetch_add(&s->counters->search_ns, (uint64_t)search);
  }
  return 0;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  if (worker_loop(w->owner, w) != 0) atomic_store(&w->owner->failed, 1);
  return NULL;
}

static void free_worker(selfplay *s, worker *w) {
  mcts_batch_free(w->batch);
  mcts_nn_free(w->eval);
  nn_free(w->net);
  if (w->slots)
    for (int i = 0; i < s->p.games; i++) {
      free(w->slots[i].hist);
      free(w->slots[i].samples);
      free(w->slots[i].moves);
    }
  free(w->slots);
  free(w->pi);
}

/* Everything a worker needs, made before its thread starts. */
static int init_worker(selfplay *s, worker *w, int id, char *err, size_t errlen) {
  const game *g = &s->g;
  int n = s->p.games;
  w->owner = s;
  w->id = id;
  rng_seed(&w->rng, s->p.seed, 1000 + (uint64_t)id);
  nn_config c = nn_config_of(s->best->net);
  if (!(w->net = nn_create(&c, 0, err, errlen))) return -1;
  /* Set before the first fetch: every fetch (nn_copy) then re-packs. */
  if (nn_set_precision(w->net, (nn_precision)s->p.precision, err, errlen)) return -1;
  w->gen = 0;
  netslot_fetch(s->best, w->net, &w->gen);
  /* One evaluator call takes every game's leaf. */
  if (!(w->eval = mcts_nn_create(g, w->net, n, err, errlen))) return -1;
  w->timed.inner = mcts_nn_eval(w->eval);
  w->timed.c = s->counters;
  mcts_eval ev = {timed_evaluate, &w->timed, n};
  mcts_params sp = s->p.search;
  sp.noise = 1;
  sp.batch = n;
  if (!(w->batch = mcts_batch_create(g, &sp, &ev, n, s->p.seed ^ (0x5e1f0000ULL + (uint64_t)id),
                                     err, errlen)))
    return -1;
  w->slots = calloc((size_t)n, sizeof *w->slots);
  w->pi = calloc((size_t)g->n_actions, sizeof *w->pi);
  if (!w->slots || !w->pi) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  for (int i = 0; i < n; i++) {
    game_slot *gs = &w->slots[i];
    gs->hist = malloc(sizeof *gs->hist);
    gs->samples = malloc(sizeof *gs->samples * GAME_MAX_PLIES_CAP);
    gs->moves = malloc(GAME_MAX_PLIES_CAP);
    if (!gs->hist || !gs->samples || !gs->moves) {
      errf(err, errlen, "out of memory");
      return -1;
    }
  }
  return 0;
}

selfplay *selfplay_start(const selfplay_params *p, int threads, netslot *best, replay *buffer,
                         selfplay_counters *counters, selfplay_record_fn record, void *record_ctx,
                         char *err, size_t errlen) {
  if (threads < 1 || p->games < 1) {
    errf(err, errlen, "self-play needs at least one thread and one game");
    return NULL;
  }
  selfplay *s = calloc(1, sizeof *s);
  if (!s || !(s->w = calloc((size_t)threads, sizeof *s->w))) {
    free(s);
    errf(err, errlen, "out of memory");
    return NULL;
  }
  s->p = *p;
  s->g = *p->g;
  s->first_mover = game_first_mover(&s->g);
  s->best = best;
  s->buffer = buffer;
  s->counters = counters;
  s->record = record;
  s->record_ctx = record_ctx;
  s->n = threads;
  for (int i = 0; i < threads; i++)
    if (init_worker(s, &s->w[i], i, err, errlen) != 0) {
      for (int k = 0; k <= i; k++) free_worker(s, &s->w[k]);
      free(s->w);
      free(s);
      return NULL;
    }
  for (int i = 0; i < threads; i++)
    if (pthread_create(&s->w[i].thread, NULL, worker_main, &s->w[i]) != 0) {
      atomic_store(&s->stop, 1);
      for (int k = 0; k < i; k++) pthread_join(s->w[k].thread, NULL);
      for (int k = 0; k < threads; k++) free_worker(s, &s->w[k]);
      free(s->w);
      free(s);
      errf(err, errlen, "cannot start a self-play thread");
      return NULL;
    }
  return s;
}

int selfplay_failed(selfplay *s) { return atomic_load(&s->failed); }

int selfplay_stop(selfplay *s, char *err, size_t errlen) {
  if (!s) return 0;
  atomic_store(&s->stop, 1);
  int rc = 0;
  for (int i = 0; i < s->n; i++) {
    pthread_join(s->w[i].thread, NULL);
    if (s->w[i].err[0] && rc == 0) {
      errf(err, errlen, "self-play worker %d: %s", i, s->w[i].err);
      rc = -1;
    }
  }
  for (int i = 0; i < s->n; i++) free_worker(s, &s->w[i]);
  free(s->w);
  free(s);
  return rc;
}

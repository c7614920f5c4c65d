#include "trainer/selfplay.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "egdb/egdb.h"
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
  uint64_t number;        /* the worker's k-th game is k * threads + worker */
  int variant;            /* index into the variants (0 without them) */
  int n;                  /* samples recorded */
  int nmoves;             /* moves played */
  replay_sample *samples; /* GAME_MAX_PLIES_CAP */
  uint8_t *moves;         /* GAME_MAX_PLIES_CAP */
} game_slot;

/* A game finished inside a phase, waiting for selfplay_phase to hand it
 * on: its samples and (when kept) moves sit in the worker's arrays. */
typedef struct {
  uint64_t number;
  size_t first, moves_at; /* into the worker's fin_s and fin_m */
  int n, nmoves, keep, variant;
  game_pos final;
} fin_game;

/* A growable array of the worker's phase output; it keeps its memory from
 * one phase to the next, so it grows only in the first phases. */
typedef struct {
  void *p;
  size_t n, cap;
} grow;

static void *grow_by(grow *g, size_t add, size_t size) {
  if (g->n + add > g->cap) {
    size_t cap = (g->n + add) * 2;
    void *q = realloc(g->p, cap * size);
    if (!q) return NULL;
    g->p = q;
    g->cap = cap;
  }
  void *at = (char *)g->p + g->n * size;
  g->n += add;
  return at;
}

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
  uint64_t started; /* games started */
  /* Phased mode: the samples to finish in this phase, those finished, and
   * the finished games (fin_game, replay_sample, moves). */
  uint64_t quota, got;
  grow fin, fin_s, fin_m;
  char err[256];
} worker;

struct selfplay {
  selfplay_params p;
  game g;
  netslot *best;
  replay *buffer;
  selfplay_counters *counters;
  selfplay_record_fn record;
  void *record_ctx;
  _Atomic int stop;
  _Atomic int failed;
  int n;       /* workers, the hosted one included */
  int threads; /* worker threads: all workers but the hosted one */
  worker *w;
  /* Phased mode: the learner bumps `phase` to start one; each worker
   * counts itself into `done` when its quota is met (or it failed). */
  pthread_mutex_t ph_lock;
  pthread_cond_t ph_go, ph_done;
  uint64_t phase;
  int done;
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

/* The rules of variant v, or the one game. */
static const game *variant_game(const selfplay *s, int v) {
  return s->p.n_variants > 1 ? &s->p.variants[v] : &s->g;
}

/* The game a slot plays. */
static const game *slot_game(const selfplay *s, const game_slot *gs) {
  return variant_game(s, gs->variant);
}

/* A variant drawn by weight. */
static int draw_variant(const selfplay *s, rng_t *r) {
  double total = 0, x;
  for (int k = 0; k < s->p.n_variants; k++) total += s->p.variant_weight[k];
  x = rng_double(r) * total;
  for (int k = 0; k < s->p.n_variants; k++)
    if ((x -= s->p.variant_weight[k]) < 0) return k;
  return s->p.n_variants - 1;
}

static int new_game(selfplay *s, worker *w, int i) {
  game_slot *gs = &w->slots[i];
  gs->number = w->started++ * (uint64_t)s->n + (uint64_t)w->id;
  mcts *m = mcts_batch_search(w->batch, i);
  /* The game's own stream: its moves do not depend on which slot plays it
   * or what that slot played before. */
  rng_t gr;
  rng_seed(&gr, s->p.seed, (1ULL << 40) + gs->number);
  if (s->p.n_variants > 1) {
    gs->variant = draw_variant(s, &gr);
    if (mcts_batch_set_game(w->batch, i, slot_game(s, gs), w->err, sizeof w->err) != 0) return -1;
  }
  const game *g = slot_game(s, gs);
  game_start(g, &gs->pos);
  game_hist_reset(gs->hist, &gs->pos);
  gs->n = 0;
  gs->nmoves = 0;
  mcts_reset(m);
  mcts_reseed(m, rng_u64(&gr));
  /* Random plies first: where a game is decided from the start, self-play
   * from there gives every game to one seat and says nothing about the
   * board (docs/TRAINING.md). They are moves of the game, not targets.
   * A game that ends within them is drawn again (from the same stream), so
   * that the start position keeps its share of 1 in random_plies + 1. */
  for (int tries = 0; s->p.random_plies && tries < 16; tries++) {
    int k = (int)rng_below(&gr, (uint32_t)s->p.random_plies + 1);
    for (int j = 0; j < k && gs->pos.status == GAME_ONGOING; j++) {
      int a = game_random_action(&gr, game_legal(g, &gs->pos));
      game_step(g, &gs->pos, gs->hist, a);
      gs->moves[gs->nmoves++] = (uint8_t)a;
    }
    if (gs->pos.status == GAME_ONGOING) break;
    game_start(g, &gs->pos);
    game_hist_reset(gs->hist, &gs->pos);
    gs->nmoves = 0;
  }
  return mcts_set_root(m, &gs->pos, gs->hist, w->err, sizeof w->err);
}

/* Phased mode: the finished game waits in the worker's arrays. */
static int keep_finished(worker *w, game_slot *gs, int keep) {
  fin_game *f = grow_by(&w->fin, 1, sizeof *f);
  replay_sample *x = f ? grow_by(&w->fin_s, (size_t)gs->n, sizeof *x) : NULL;
  uint8_t *mv = x && keep ? grow_by(&w->fin_m, (size_t)gs->nmoves, 1) : NULL;
  if (!f || !x || (keep && !mv)) {
    errf(w->err, sizeof w->err, "out of memory for the games of a phase");
    return -1;
  }
  f->number = gs->number;
  f->variant = gs->variant;
  f->first = w->fin_s.n - (size_t)gs->n;
  f->n = gs->n;
  memcpy(x, gs->samples, sizeof *x * (size_t)gs->n);
  f->keep = keep;
  f->nmoves = gs->nmoves;
  f->moves_at = keep ? w->fin_m.n - (size_t)gs->nmoves : 0;
  if (keep) memcpy(mv, gs->moves, (size_t)gs->nmoves);
  f->final = gs->pos;
  w->got += (uint64_t)gs->n;
  return 0;
}

void selfplay_count_game(selfplay_counters *c, const game_pos *end, int first_mover,
                         uint64_t samples) {
  atomic_fetch_add(&c->plies, (uint64_t)end->ply);
  atomic_fetch_add(&c->samples, samples);
  int r = game_outcome(end, first_mover);
  atomic_fetch_add(&c->wins[r > 0 ? 0 : r == 0 ? 1 : 2], 1);
  atomic_fetch_add(&c->ends[end->end_reason < GAME_END_COUNT ? end->end_reason : 0], 1);
  /* Last: a reader that sees the game counted sees all of it. */
  atomic_fetch_add(&c->games, 1);
}

void selfplay_json(const selfplay_counters *c, uint64_t games, selfplay_tally *seen, char *json,
                   size_t jlen) {
  uint64_t plies = atomic_load(&c->plies), w[3], e[GAME_END_COUNT], nw = 0, ne = 0;
  for (int i = 0; i < 3; i++) nw += w[i] = atomic_load(&c->wins[i]) - seen->wins[i];
  for (int i = 0; i < GAME_END_COUNT; i++) ne += e[i] = atomic_load(&c->ends[i]) - seen->ends[i];
  uint64_t n = games - seen->games;
  size_t k =
      (size_t)snprintf(json, jlen,
                       "\"selfplay\": {\"games\": %llu, \"plies_mean\": %.1f, "
                       "\"first_mover\": {\"win\": %.4f, \"draw\": %.4f, \"loss\": %.4f}, "
                       "\"ends\": {",
                       (unsigned long long)n, n ? (double)(plies - seen->plies) / (double)n : 0,
                       nw ? (double)w[0] / (double)nw : 0, nw ? (double)w[1] / (double)nw : 0,
                       nw ? (double)w[2] / (double)nw : 0);
  for (int i = 0, first = 1; i < GAME_END_COUNT && k < jlen; i++) {
    if (!e[i]) continue;
    k += (size_t)snprintf(json + k, jlen - k, "%s\"%s\": %.4f", first ? "" : ", ", game_end_name(i),
                          (double)e[i] / (double)ne);
    first = 0;
  }
  if (k < jlen) snprintf(json + k, jlen - k, "}}");
  seen->games = games;
  seen->plies = plies;
  for (int i = 0; i < 3; i++) seen->wins[i] += w[i];
  for (int i = 0; i < GAME_END_COUNT; i++) seen->ends[i] += e[i];
}

/* A finished game: outcomes into its samples, samples into the buffer (in
 * phased mode, into the worker's arrays). */
static int finish_game(selfplay *s, worker *w, game_slot *gs) {
  const game_pos *end = &gs->pos;
  for (int k = 0; k < gs->n; k++) {
    replay_sample *x = &gs->samples[k];
    int side = x->pos.mover;
    x->z = (int8_t)game_outcome(end, side);
    int margin = game_margin(end, side);
    /* Within the database the game's result is one noisy sample of what
     * perfect play gets: train on the exact one. */
    egdb_result ex;
    if (s->p.db && egdb_exact(s->p.db, &s->g, &x->pos, s->p.db_max_seeds, &ex)) {
      x->z = (int8_t)ex.outcome;
      margin = ex.margin;
    }
    x->margin = (int8_t)(margin > 127 ? 127 : margin < -127 ? -127 : margin);
  }
  w->games_done++;
  int keep = s->record && s->p.record_every > 0;
  if (s->p.phased) return keep_finished(w, gs, keep && gs->number % s->p.record_every == 0);
  if (s->p.sink) {
    selfplay_game gm = {gs->samples, gs->n, gs->moves, gs->nmoves, end, w->gen, gs->variant};
    if (s->p.sink(s->p.sink_ctx, &gm) != 0) {
      errf(w->err, sizeof w->err, "a finished game could not be handed on");
      return -1;
    }
    selfplay_count_game(s->counters, end, game_first_mover(slot_game(s, gs)), (uint64_t)gs->n);
    return 0;
  }
  if (gs->n) replay_add(s->buffer, gs->samples, gs->n);
  selfplay_count_game(s->counters, end, game_first_mover(slot_game(s, gs)), (uint64_t)gs->n);
  if (keep && (w->games_done * (uint64_t)s->n + (uint64_t)w->id) % (uint64_t)s->p.record_every == 0)
    s->record(s->record_ctx, slot_game(s, gs), gs->moves, gs->nmoves, end);
  return 0;
}

/* One search round over all the worker's games, and a move in each. */
static int play_round(selfplay *s, worker *w) {
  int n = s->p.games;
  netslot_fetch(s->best, w->net, &w->gen);
  /* Playout-cap randomisation: one coin per round for all games. */
  int full = !s->p.cap_sims || rng_double(&w->rng) < s->p.full_frac;
  int sims = full ? s->p.search.sims : s->p.cap_sims;
  double t0 = clock_thread_cpu();
  uint64_t net0 = atomic_load(&s->counters->net_ns);
  if (mcts_batch_run(w->batch, NULL, sims, w->err, sizeof w->err) < 0) return -1;
  for (int i = 0; i < n; i++) {
    game_slot *gs = &w->slots[i];
    const game *g = slot_game(s, gs);
    mcts *m = mcts_batch_search(w->batch, i);
    if (full) {
      replay_sample *x = &gs->samples[gs->n++];
      memset(x, 0, sizeof *x);
      x->pos = gs->pos;
      x->variant = (uint8_t)gs->variant;
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
      if (finish_game(s, w, gs) != 0 || new_game(s, w, i) != 0) return -1;
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
  return 0;
}

/* Phased mode: waits for the next phase; 0 when told to stop. */
static int wait_phase(selfplay *s, uint64_t *seen) {
  pthread_mutex_lock(&s->ph_lock);
  while (s->phase == *seen && !atomic_load(&s->stop)) pthread_cond_wait(&s->ph_go, &s->ph_lock);
  *seen = s->phase;
  pthread_mutex_unlock(&s->ph_lock);
  return !atomic_load(&s->stop);
}

static void phase_done(selfplay *s) {
  pthread_mutex_lock(&s->ph_lock);
  s->done++;
  pthread_cond_signal(&s->ph_done);
  pthread_mutex_unlock(&s->ph_lock);
}

static int start_games(selfplay *s, worker *w) {
  for (int i = 0; i < s->p.games; i++)
    if (new_game(s, w, i) != 0) return -1;
  return 0;
}

static int worker_loop(selfplay *s, worker *w) {
  if (start_games(s, w) != 0) return -1;
  if (!s->p.phased) {
    while (!atomic_load(&s->stop))
      if (play_round(s, w) != 0) return -1;
    return 0;
  }
  for (uint64_t seen = 0; wait_phase(s, &seen);) {
    while (w->got < w->quota && !atomic_load(&s->stop))
      if (play_round(s, w) != 0) return -1;
    phase_done(s);
  }
  return 0;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  if (worker_loop(w->owner, w) != 0) {
    atomic_store(&w->owner->failed, 1);
    phase_done(w->owner); /* a learner waiting on this phase wakes up */
  }
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
  free(w->fin.p);
  free(w->fin_s.p);
  free(w->fin_m.p);
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
  for (int i = 0; i < n; i++)
    mcts_attach_egdb(mcts_batch_search(w->batch, i), s->p.db, s->p.db_max_seeds);
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

/* Sets the stop flag and wakes workers waiting for a phase. */
static void tell_stop(selfplay *s) {
  pthread_mutex_lock(&s->ph_lock);
  atomic_store(&s->stop, 1);
  pthread_cond_broadcast(&s->ph_go);
  pthread_mutex_unlock(&s->ph_lock);
}

static void free_selfplay(selfplay *s) {
  pthread_cond_destroy(&s->ph_done);
  pthread_cond_destroy(&s->ph_go);
  pthread_mutex_destroy(&s->ph_lock);
  free(s->w);
  free(s);
}

selfplay *selfplay_start(const selfplay_params *p, int threads, netslot *best, replay *buffer,
                         selfplay_counters *counters, selfplay_record_fn record, void *record_ctx,
                         char *err, size_t errlen) {
  if (threads < 1 || p->games < 1) {
    errf(err, errlen, "self-play needs at least one thread and one game");
    return NULL;
  }
  if (p->sink && p->phased) {
    errf(err, errlen, "phased self-play keeps its games in order: it takes no game sink");
    return NULL;
  }
  selfplay *s = calloc(1, sizeof *s);
  int n = threads + (p->hosted ? 1 : 0);
  if (!s || !(s->w = calloc((size_t)n, sizeof *s->w))) {
    free(s);
    errf(err, errlen, "out of memory");
    return NULL;
  }
  s->p = *p;
  s->g = *p->g;
  s->best = best;
  s->buffer = buffer;
  s->counters = counters;
  s->record = record;
  s->record_ctx = record_ctx;
  s->n = n;
  s->threads = threads;
  pthread_mutex_init(&s->ph_lock, NULL);
  pthread_cond_init(&s->ph_go, NULL);
  pthread_cond_init(&s->ph_done, NULL);
  for (int i = 0; i < n; i++)
    if (init_worker(s, &s->w[i], i, err, errlen) != 0 ||
        (i == threads && start_games(s, &s->w[i]) != 0)) {
      if (i == threads && s->w[i].err[0]) errf(err, errlen, "%s", s->w[i].err);
      for (int k = 0; k <= i; k++) free_worker(s, &s->w[k]);
      free_selfplay(s);
      return NULL;
    }
  for (int i = 0; i < threads; i++)
    if (pthread_create(&s->w[i].thread, NULL, worker_main, &s->w[i]) != 0) {
      tell_stop(s);
      for (int k = 0; k < i; k++) pthread_join(s->w[k].thread, NULL);
      for (int k = 0; k < n; k++) free_worker(s, &s->w[k]);
      free_selfplay(s);
      errf(err, errlen, "cannot start a self-play thread");
      return NULL;
    }
  return s;
}

int selfplay_failed(selfplay *s) { return atomic_load(&s->failed); }

int selfplay_host_round(selfplay *s) {
  if (!s->p.hosted || atomic_load(&s->failed)) return -1;
  if (play_round(s, &s->w[s->n - 1]) == 0) return 0;
  atomic_store(&s->failed, 1);
  return -1;
}

int selfplay_stop(selfplay *s, char *err, size_t errlen) {
  if (!s) return 0;
  tell_stop(s);
  int rc = 0;
  for (int i = 0; i < s->threads; i++) pthread_join(s->w[i].thread, NULL);
  for (int i = 0; i < s->n; i++) {
    if (s->w[i].err[0] && rc == 0) {
      errf(err, errlen, "self-play worker %d: %s", i, s->w[i].err);
      rc = -1;
    }
  }
  for (int i = 0; i < s->n; i++) free_worker(s, &s->w[i]);
  free_selfplay(s);
  return rc;
}

/* ---- Phases ----------------------------------------------------------------------- */

typedef struct {
  const fin_game *f;
  const worker *w;
} fin_ref;

static int by_number(const void *a, const void *b) {
  uint64_t x = ((const fin_ref *)a)->f->number, y = ((const fin_ref *)b)->f->number;
  return x < y ? -1 : x > y;
}

int selfplay_phase(selfplay *s, uint64_t samples, volatile sig_atomic_t *stop) {
  size_t total = 0;
  for (int i = 0; i < s->n; i++) {
    worker *w = &s->w[i];
    w->quota = samples / (uint64_t)s->n + ((uint64_t)i < samples % (uint64_t)s->n);
    w->got = 0;
    w->fin.n = w->fin_s.n = w->fin_m.n = 0;
  }
  pthread_mutex_lock(&s->ph_lock);
  s->done = 0;
  s->phase++;
  pthread_cond_broadcast(&s->ph_go);
  pthread_mutex_unlock(&s->ph_lock);
  int stopped = 0;
  /* The hosted worker's share, on this thread, while the threads play theirs. */
  worker *h = s->p.hosted ? &s->w[s->n - 1] : NULL;
  while (h && h->got < h->quota && !atomic_load(&s->failed) && !(stopped = stop && *stop))
    if (play_round(s, h) != 0) atomic_store(&s->failed, 1);
  pthread_mutex_lock(&s->ph_lock);
  while (s->done < s->threads && !atomic_load(&s->failed) && !stopped) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000000;
    if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&s->ph_done, &s->ph_lock, &ts);
    stopped = stop && *stop;
  }
  pthread_mutex_unlock(&s->ph_lock);
  if (atomic_load(&s->failed)) return -1;
  if (stopped) return 1;
  /* Every worker waits for the next phase: their arrays are ours now. */
  for (int i = 0; i < s->n; i++) total += s->w[i].fin.n;
  fin_ref *order = malloc(sizeof *order * (total ? total : 1));
  if (!order) {
    errf(s->w[0].err, sizeof s->w[0].err, "out of memory for the games of a phase");
    atomic_store(&s->failed, 1);
    return -1;
  }
  size_t k = 0;
  for (int i = 0; i < s->n; i++)
    for (size_t j = 0; j < s->w[i].fin.n; j++)
      order[k++] = (fin_ref){(const fin_game *)s->w[i].fin.p + j, &s->w[i]};
  qsort(order, total, sizeof *order, by_number);
  for (size_t j = 0; j < total; j++) {
    const fin_game *f = order[j].f;
    const worker *w = order[j].w;
    if (f->n) replay_add(s->buffer, (const replay_sample *)w->fin_s.p + f->first, f->n);
    const game *g = variant_game(s, f->variant);
    selfplay_count_game(s->counters, &f->final, game_first_mover(g), (uint64_t)f->n);
    if (f->keep)
      s->record(s->record_ctx, g, (const uint8_t *)w->fin_m.p + f->moves_at, f->nmoves, &f->final);
  }
  free(order);
  return 0;
}

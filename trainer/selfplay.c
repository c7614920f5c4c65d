#include "trainer/selfplay.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "egdb/egdb.h"
#include "search/evaluator_nn.h"
#include "trainer/selfplay_internal.h"

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
const game *selfplay_variant_game(const selfplay *s, int v) {
  return s->p.n_variants > 1 ? &s->p.variants[v] : &s->g;
}

/* The game a slot plays. */
static const game *slot_game(const selfplay *s, const game_slot *gs) {
  return selfplay_variant_game(s, gs->variant);
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

/* A finished game: outcomes into its samples, then handed on (in phased
 * mode, kept in the worker's arrays until the phase ends). */
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
  uint64_t every = s->p.record_every > 0 ? (uint64_t)s->p.record_every : 0;
  if (s->p.phased) return selfplay_keep_finished(w, gs, every && gs->number % every == 0);
  int keep = every && (w->games_done * (uint64_t)s->n + (uint64_t)w->id) % every == 0;
  selfplay_game gm = {gs->samples, gs->n,       gs->moves,        gs->nmoves, end,
                      w->gen,      gs->variant, slot_game(s, gs), keep,       gs->number};
  if (selfplay_hand_on(s, &gm) != 0) {
    errf(w->err, sizeof w->err, "a finished game could not be handed on");
    return -1;
  }
  return 0;
}

/* One search round over all the worker's games, and a move in each. */
int selfplay_play_round(selfplay *s, worker *w) {
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

static int start_games(selfplay *s, worker *w) {
  for (int i = 0; i < s->p.games; i++)
    if (new_game(s, w, i) != 0) return -1;
  return 0;
}

static int worker_loop(selfplay *s, worker *w) {
  if (start_games(s, w) != 0) return -1;
  if (!s->p.phased) {
    while (!atomic_load(&s->stop))
      if (selfplay_play_round(s, w) != 0) return -1;
    return 0;
  }
  for (uint64_t seen = 0; selfplay_wait_phase(s, &seen);) {
    while (w->got < w->quota && !atomic_load(&s->stop))
      if (selfplay_play_round(s, w) != 0) return -1;
    selfplay_phase_done(s);
  }
  return 0;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  if (worker_loop(w->owner, w) != 0) {
    atomic_store(&w->owner->failed, 1);
    selfplay_phase_done(w->owner); /* a learner waiting on this phase wakes up */
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
  nn_config c = netslot_config(s->best);
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

selfplay *selfplay_start(const selfplay_params *p, int threads, netslot *best,
                         selfplay_counters *counters, char *err, size_t errlen) {
  if (threads < 1 || p->games < 1) {
    errf(err, errlen, "self-play needs at least one thread and one game");
    return NULL;
  }
  if (!p->sink) {
    errf(err, errlen, "self-play needs a sink for its finished games");
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
  s->counters = counters;
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
  if (selfplay_play_round(s, &s->w[s->n - 1]) == 0) return 0;
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
  /* The flag decides, the message explains: a failure is never lost. */
  if (rc == 0 && atomic_load(&s->failed)) {
    errf(err, errlen, "a self-play worker failed");
    rc = -1;
  }
  for (int i = 0; i < s->n; i++) free_worker(s, &s->w[i]);
  free_selfplay(s);
  return rc;
}

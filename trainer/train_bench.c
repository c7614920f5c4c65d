/* train_bench: the overlapped schedule of a config, in memory, for a
 * fixed time. The workers, the hosted worker and the learner are the run's
 * own (selfplay.c, learner.c, train_loop.c); only the files, gating and
 * evaluation are left out. train_bench_learner: the learner alone, its
 * steps and its intake of actors' games (dist_learner.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "search/evaluator_nn.h"
#include "trainer/dist_learner.h"
#include "trainer/learner.h"
#include "trainer/train.h"
#include "trainer/train_internal.h"
#include "trainer/train_loop.h"

/* The network the workers play: the untrained one of c's seed, or that of
 * the file weights, which must be of c's game, rules and shape. */
static nn_net *bench_network(const train_config *c, const char *weights, char *err, size_t errlen) {
  const nn_config nc = {c->g.n_features, c->hidden, c->blocks, c->g.n_actions};
  if (!weights) return nn_create(&nc, c->seed, err, errlen);
  game g = c->g;
  nn_net *n = mcts_nn_load(&g, weights, MCTS_NN_OWN_RULES, err, errlen);
  if (!n) return NULL;
  const nn_config got = nn_config_of(n);
  if (memcmp(&got, &nc, sizeof nc) != 0) {
    char want[64], has[64];
    nn_shape_string(&nc, want, sizeof want);
    nn_shape_string(&got, has, sizeof has);
    errf(err, errlen, "%s: a %s network, where the config's is %s", weights, has, want);
    nn_free(n);
    return NULL;
  }
  return n;
}

int train_bench_check(const train_config *c, const char *weights, char *err, size_t errlen) {
  nn_net *n = bench_network(c, weights, err, errlen);
  nn_free(n);
  return n ? 0 : -1;
}

int train_bench(const train_config *config, const char *weights, double seconds,
                train_bench_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  train_config *c = malloc(sizeof *c);
  if (!c) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  *c = *config;
  c->deterministic = 0;
  c->minutes = 0;
  c->iterations = 0;
  /* Train from the first batch: the benchmark measures the steady state. */
  c->min_samples = c->batch;
  int rc = -1;
  learner l;
  run_counters counters = {0};
  selfplay_counters sc;
  memset(&sc, 0, sizeof sc);
  nn_net *best = NULL;
  replay *buf = NULL;
  netslot *slot = NULL;
  train_loop L = {.c = c, .l = &l, .rc = &counters, .counters = &sc};
  if (learner_init(&l, c, err, errlen) != 0) goto out;
  if (!(best = bench_network(c, weights, err, errlen))) goto out;
  if (nn_set_precision(best, (nn_precision)c->precision, err, errlen) != 0) goto out;
  if (!(buf = replay_create(&c->g, c->window, err, errlen))) goto out;
  if (!(slot = netslot_create(best, err, errlen))) goto out;
  selfplay_params sp = train_selfplay_params(c);
  selfplay_store store = {buf, NULL};
  sp.seed = c->seed;
  sp.hosted = c->learner_plays;
  sp.sink = selfplay_store_game;
  sp.sink_ctx = &store;
  L.buf = buf;
  if (!(L.sp = selfplay_start(&sp, c->threads, slot, &sc, err, errlen))) goto out;
  L.t_start = clock_wall();
  L.cpu_start = clock_process_cpu();
  L.bench_until = L.t_start + seconds;
  /* What the threads would use on an idle machine, whatever else runs. */
  double run0 = clock_process_runnable();
  rc = train_loop_next(&L, err, errlen);
  if (rc == 0) {
    double run1 = clock_process_runnable();
    /* Read before the workers stop: their last rounds would count
     * without their wall time. */
    out->seconds = clock_wall() - L.t_start;
    train_loop_shares(&L, out->share, &out->cores_used);
    out->games = atomic_load(&sc.games);
    out->samples = atomic_load(&sc.samples);
    out->evals = atomic_load(&sc.evals);
    out->steps = counters.steps;
    out->threads_runnable = run0 >= 0 && run1 >= 0 ? (run1 - run0) / out->seconds : -1;
  }
  char e[256];
  if (L.sp && selfplay_stop(L.sp, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  L.sp = NULL;
out:
  learner_free(&l);
  nn_free(best);
  replay_free(buf);
  netslot_free(slot);
  free(c);
  return rc;
}

/* Random games of g as actors' game messages (uniform policies over the
 * legal moves), until they hold at least `samples` samples. */
static unsigned char *random_messages(const game *g, int samples, uint64_t seed, size_t *total) {
  rng_t rng;
  rng_seed(&rng, seed, 0x6d7367ULL);
  size_t cap = 0, len = 0;
  unsigned char *all = NULL;
  replay_sample *s = malloc(sizeof *s * GAME_MAX_PLIES_CAP);
  float pi[GAME_MAX_ACTIONS];
  for (int got = 0; s && got < samples;) {
    game_pos p;
    game_start(g, &p);
    int n = 0;
    while (p.status == GAME_ONGOING && n < GAME_MAX_PLIES_CAP) {
      game_moves m = game_legal(g, &p);
      memset(&s[n], 0, sizeof s[n]);
      s[n].pos = p;
      for (int a = 0; a < g->n_actions; a++) pi[a] = (float)(m >> a & 1);
      replay_set_policy(&s[n], pi, g->n_actions);
      n++;
      game_play(g, &p, game_random_action(&rng, m));
    }
    for (int k = 0; k < n; k++) {
      s[k].z = (int8_t)game_outcome(&p, s[k].pos.mover);
      int margin = game_margin(&p, s[k].pos.mover);
      s[k].margin = (int8_t)(margin > 127 ? 127 : margin < -127 ? -127 : margin);
    }
    dist_game_msg h = {.n = (uint32_t)n, .final = p};
    size_t add = sizeof h + sizeof *s * (size_t)n;
    if (len + add > cap) {
      cap = (len + add) * 2;
      unsigned char *q = realloc(all, cap);
      if (!q) break;
      all = q;
    }
    memcpy(all + len, &h, sizeof h);
    memcpy(all + len + sizeof h, s, sizeof *s * (size_t)n);
    len += add;
    got += n;
  }
  free(s);
  *total = len;
  return all;
}

int train_bench_learner(const train_config *config, double seconds, train_learner_result *out,
                        char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  train_config *c = malloc(sizeof *c);
  if (!c) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  *c = *config;
  c->record_every = 0;
  unsigned char *msgs = NULL;
  int rc = -1;
  learner l;
  run_counters counters = {0};
  selfplay_counters sc;
  memset(&sc, 0, sizeof sc);
  replay *buf = NULL;
  size_t total = 0;
  uint32_t promotions = 0;
  if (learner_init(&l, c, err, errlen) != 0) goto out;
  if (!(buf = replay_create(&c->g, c->window, err, errlen))) goto out;
  int want = c->window < 20000 ? c->window : 20000;
  if (!(msgs = random_messages(&c->g, want > c->batch ? want : c->batch, c->seed, &total))) {
    errf(err, errlen, "out of memory");
    goto out;
  }
  /* Intake: the same messages again and again into the ring. */
  dist_learner_env env = {.c = c, .buf = buf, .counters = &sc, .promotions = &promotions};
  double t0 = clock_thread_cpu(), t1 = t0;
  uint64_t n0 = atomic_load(&sc.samples);
  while (t1 - t0 < seconds / 2) {
    if (dist_learner_ingest(&env, msgs, total, NULL, err, errlen) != 0) goto out;
    t1 = clock_thread_cpu();
  }
  out->intake_per_s = (double)(atomic_load(&sc.samples) - n0) / (t1 - t0);
  /* Steps on the full buffer. */
  nn_losses avg = {0}, last;
  uint64_t steps = 0;
  const int wall = c->learner_threads > 1; /* helpers' time is not this thread's */
  double w0 = clock_wall(), w1 = w0, c0 = clock_thread_cpu(), c1 = c0;
  t0 = t1 = wall ? w0 : c0;
  while (t1 - t0 < seconds / 2) {
    float lr = learner_rate(c, &counters, 0);
    if (learner_step(&l, buf, lr, &counters, &last, &avg, err, errlen) != 0) goto out;
    steps++;
    w1 = clock_wall();
    c1 = clock_thread_cpu();
    t1 = wall ? w1 : c1;
  }
  out->steps_per_s = (double)steps / (t1 - t0);
  out->steps_per_s_thread = (double)steps / (c1 - c0 > 1e-9 ? c1 - c0 : 1e-9);
  out->steps_per_s_wall = (double)steps / (w1 - w0);
  out->capacity_per_s =
      1 / (1 / out->intake_per_s + c->train_ratio / (c->batch * out->steps_per_s));
  out->capacity_per_s_wall =
      1 / (1 / out->intake_per_s + c->train_ratio / (c->batch * out->steps_per_s_wall));
  rc = 0;
out:
  free(msgs);
  learner_free(&l);
  replay_free(buf);
  free(c);
  return rc;
}

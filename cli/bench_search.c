/* `sowzero bench search`: simulations per second of the searches.
 *   rollout MCTS from the start position, one random playout per leaf:
 *     seconds per move at --sims simulations (median of --reps fresh
 *     searches, thread CPU time and wall time) and simulations/s;
 *   the network searched through the batched driver at batch sizes 1, 16,
 *     64, 256 (one game per batch slot, --nn-sims simulations per move,
 *     --moves moves): search simulations/s, network evaluations/s and the
 *     share of the time spent inside the evaluator.
 * A signature (a checksum of the visit counts of a fixed-seed search) must
 * not change when the code is refactored without meaning to change search. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cli/cli.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"
#include "search/mcts.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Times evaluator calls (thread CPU time) around another evaluator. */
typedef struct {
  mcts_eval inner;
  double cpu;
} timed_eval;

static int timed_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                          float *policy, float *value) {
  timed_eval *t = ctx;
  double t0 = clock_thread_cpu();
  int rc = t->inner.evaluate(t->inner.ctx, g, pos, n, policy, value);
  t->cpu += clock_thread_cpu() - t0;
  return rc;
}

static int bench_rollouts(bench_out *b, const game *g, int sims, int reps) {
  char err[256];
  mcts_params p = mcts_rollout_defaults(); /* the mcts agent's settings */
  mcts_rollout *ro = mcts_rollout_create(1, 1, err, sizeof err);
  if (!ro) return -1;
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts *m = mcts_create(g, &p, &ev, 1, err, sizeof err);
  if (!m) {
    fprintf(stderr, "bench search: %s\n", err);
    mcts_rollout_free(ro);
    return -1;
  }
  game_pos start;
  game_start(g, &start);
  /* Signature: a fixed-seed search's visit counts. */
  mcts_set_root(m, &start, NULL, err, sizeof err);
  mcts_run(m, sims, err, sizeof err);
  int visits[GAME_MAX_ACTIONS];
  mcts_visits(m, visits);
  uint64_t sig = checksum64(visits, (size_t)g->n_actions * sizeof *visits, CHECKSUM64_INIT);
  double *cpu = malloc((size_t)reps * sizeof *cpu), *wall = malloc((size_t)reps * sizeof *wall);
  for (int r = 0; r < reps; r++) {
    mcts_reset(m);
    mcts_reseed(m, (uint64_t)r + 2);
    mcts_rollout_reseed(ro, (uint64_t)r + 2);
    mcts_set_root(m, &start, NULL, err, sizeof err);
    double w0 = clock_wall(), c0 = clock_thread_cpu();
    mcts_run(m, sims, err, sizeof err);
    cpu[r] = clock_thread_cpu() - c0;
    wall[r] = clock_wall() - w0;
  }
  double c = median(cpu, reps), w = median(wall, reps);
  char extra[160];
  snprintf(extra, sizeof extra, "\"sims\": %d, \"rollouts\": 1, \"reps\": %d", sims, reps);
  bench_figure(b, "search", "mcts_s_per_move_cpu", c, "s", extra);
  bench_figure(b, "search", "mcts_s_per_move_wall", w, "s", extra);
  bench_figure(b, "search", "mcts_sims_per_s", sims / c, "1/s", extra);
  /* Six digits survive any number format; the note has all 64 bits. */
  bench_figure(b, "search", "mcts_signature", (double)(sig % 1000000u), "", extra);
  bench_note(b, "search: signature %016llx (visit counts of a seed-1 search of %d sims)",
             (unsigned long long)sig, sims);
  free(cpu);
  free(wall);
  mcts_free(m);
  mcts_rollout_free(ro);
  return 0;
}

static int bench_network(bench_out *b, const game *g, int batch, int sims, int moves) {
  char err[256];
  nn_config c = nn_config_default();
  c.n_in = g->n_features;
  c.n_actions = g->n_actions;
  nn_net *net = nn_create(&c, 7, err, sizeof err);
  if (!net) {
    fprintf(stderr, "bench search: %s\n", err);
    return -1;
  }
  mcts_nn *nev = mcts_nn_create(g, net, batch, err, sizeof err);
  if (!nev) {
    fprintf(stderr, "bench search: %s\n", err);
    nn_free(net);
    return -1;
  }
  timed_eval te = {mcts_nn_eval(nev), 0};
  mcts_eval ev = {timed_evaluate, &te, batch};
  mcts_params p = mcts_defaults();
  p.batch = batch;
  p.node_cap = sims * 8 + 64;
  mcts_batch *mb = mcts_batch_create(g, &p, &ev, batch, 1, err, sizeof err);
  if (!mb) {
    fprintf(stderr, "bench search: %s\n", err);
    mcts_nn_free(nev);
    nn_free(net);
    return -1;
  }
  game_pos start;
  game_start(g, &start);
  for (int i = 0; i < batch; i++) mcts_set_root(mcts_batch_search(mb, i), &start, NULL, err, sizeof err);
  double w0 = clock_wall(), c0 = clock_thread_cpu();
  int rc = 0;
  for (int mv = 0; mv < moves && !rc; mv++) {
    if (mcts_batch_run(mb, NULL, sims, err, sizeof err)) {
      fprintf(stderr, "bench search: %s\n", err);
      rc = -1;
      break;
    }
    for (int i = 0; i < batch; i++) {
      mcts *m = mcts_batch_search(mb, i);
      int ended = mcts_advance(m, mcts_best_action(m), err, sizeof err);
      if (ended) mcts_set_root(m, &start, NULL, err, sizeof err);
    }
  }
  double cpu = clock_thread_cpu() - c0, wall = clock_wall() - w0;
  if (!rc) {
    mcts_batch_info bi;
    mcts_batch_get_info(mb, &bi);
    char extra[200];
    snprintf(extra, sizeof extra,
             "\"batch\": %d, \"sims\": %d, \"moves\": %d, \"hidden\": %d, \"blocks\": %d",
             batch, sims, moves, c.hidden, c.blocks);
    bench_figure(b, "search", "zero_sims_per_s", bi.sims / cpu, "1/s", extra);
    bench_figure(b, "search", "zero_evals_per_s", bi.evals / cpu, "1/s", extra);
    bench_figure(b, "search", "zero_mean_batch", bi.eval_calls ? (double)bi.evals / bi.eval_calls : 0,
                 "", extra);
    bench_figure(b, "search", "zero_eval_share", cpu > 0 ? te.cpu / cpu : 0, "", extra);
    bench_figure(b, "search", "zero_wall_over_cpu", cpu > 0 ? wall / cpu : 0, "", extra);
  }
  mcts_batch_free(mb);
  mcts_nn_free(nev);
  nn_free(net);
  return rc;
}

int bench_search(bench_out *b, int argc, char **argv) {
  const char *game_name = "oware";
  int sims = 1000, reps = 7, nn_sims = 100, moves = 4, skip_nn = 0;
  int batches[8] = {1, 16, 64, 256}, nb = 4;
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--no-nn")) {
      skip_nn = 1;
      continue;
    }
    if (!v) {
      fprintf(stderr, "bench search: unknown or incomplete option '%s' (--game G, --sims N, "
              "--reps R, --nn-sims N, --moves M, --batches 1,16,..., --no-nn)\n", o);
      return -1;
    }
    i++;
    if (!strcmp(o, "--game"))
      game_name = v;
    else if (!strcmp(o, "--sims"))
      sims = atoi(v);
    else if (!strcmp(o, "--reps"))
      reps = atoi(v);
    else if (!strcmp(o, "--nn-sims"))
      nn_sims = atoi(v);
    else if (!strcmp(o, "--moves"))
      moves = atoi(v);
    else if (!strcmp(o, "--batches")) {
      nb = 0;
      char buf[128], *save = NULL;
      snprintf(buf, sizeof buf, "%s", v);
      for (char *t = strtok_r(buf, ",", &save); t && nb < 8; t = strtok_r(NULL, ",", &save))
        batches[nb++] = atoi(t);
    } else {
      /* Options of the other benchmarks pass through `bench all`. */
      continue;
    }
  }
  if (sims < 1 || reps < 1 || nn_sims < 1 || moves < 1) {
    fprintf(stderr, "bench search: --sims, --reps, --nn-sims and --moves must be positive\n");
    return -1;
  }
  for (int i = 0; i < nb; i++)
    if (batches[i] < 1 || batches[i] > 4096) {
      fprintf(stderr, "bench search: batch sizes must be 1..4096\n");
      return -1;
    }
  char err[256];
  game g;
  if (game_configure(&g, game_name, 0, NULL, err, sizeof err)) {
    fprintf(stderr, "bench search: %s\n", err);
    return -1;
  }
  bench_note(b, "search: %s, rollout MCTS %d sims from the start position, median of %d", g.preset,
             sims, reps);
  if (bench_rollouts(b, &g, sims, reps)) return -1;
  if (skip_nn) return 0;
  char info[256];
  nn_blas_single_thread();
  nn_blas_info(info, sizeof info);
  bench_note(b, "search: network (default config) via the batched driver, %d sims x %d moves; %s",
             nn_sims, moves, info);
  for (int i = 0; i < nb; i++)
    if (bench_network(b, &g, batches[i], nn_sims, moves)) return -1;
  return 0;
}

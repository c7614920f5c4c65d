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
#include "base/json.h"
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
    fprintf(stderr, "sowzero bench search: %s\n", err);
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
  json_writer jw;
  json_writer_init(&jw, extra, sizeof extra);
  json_put_int(&jw, "sims", sims);
  json_put_int(&jw, "rollouts", 1);
  json_put_int(&jw, "reps", reps);
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
    fprintf(stderr, "sowzero bench search: %s\n", err);
    return -1;
  }
  mcts_nn *nev = mcts_nn_create(g, net, batch, err, sizeof err);
  if (!nev) {
    fprintf(stderr, "sowzero bench search: %s\n", err);
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
    fprintf(stderr, "sowzero bench search: %s\n", err);
    mcts_nn_free(nev);
    nn_free(net);
    return -1;
  }
  game_pos start;
  game_start(g, &start);
  for (int i = 0; i < batch; i++)
    mcts_set_root(mcts_batch_search(mb, i), &start, NULL, err, sizeof err);
  double w0 = clock_wall(), c0 = clock_thread_cpu();
  int rc = 0;
  for (int mv = 0; mv < moves && !rc; mv++) {
    if (mcts_batch_run(mb, NULL, sims, err, sizeof err)) {
      fprintf(stderr, "sowzero bench search: %s\n", err);
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
    json_writer w;
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "batch", batch);
    json_put_int(&w, "sims", sims);
    json_put_int(&w, "moves", moves);
    json_put_int(&w, "hidden", c.hidden);
    json_put_int(&w, "blocks", c.blocks);
    bench_figure(b, "search", "zero_sims_per_s", bi.sims / cpu, "1/s", extra);
    bench_figure(b, "search", "zero_evals_per_s", bi.evals / cpu, "1/s", extra);
    bench_figure(b, "search", "zero_mean_batch",
                 bi.eval_calls ? (double)bi.evals / bi.eval_calls : 0, "", extra);
    bench_figure(b, "search", "zero_eval_share", cpu > 0 ? te.cpu / cpu : 0, "", extra);
    bench_figure(b, "search", "zero_wall_over_cpu", cpu > 0 ? wall / cpu : 0, "", extra);
  }
  mcts_batch_free(mb);
  mcts_nn_free(nev);
  nn_free(net);
  return rc;
}

/* One tree searched by 1, 2, ... threads (mcts_search): wall-clock
 * simulations per second of a fresh search of `sims` simulations from the
 * start position, the thread counts interleaved rep by rep so that a
 * machine's changing load falls on all alike; the median of reps, and the
 * median of the per-rep ratios to the first count. net NULL: rollouts. */
static int bench_tree(bench_out *b, const game *g, const nn_net *net, int sims, int reps,
                      const int *threads, int nt, int leaves) {
  char err[256];
  int maxt = 1, rc = 0;
  for (int i = 0; i < nt; i++)
    if (threads[i] > maxt) maxt = threads[i];
  mcts_eval evs[MCTS_MAX_THREADS];
  mcts_nn *nevs[MCTS_MAX_THREADS] = {0};
  mcts_rollout *ros[MCTS_MAX_THREADS] = {0};
  for (int i = 0; i < maxt && !rc; i++) {
    if (net) {
      if (!(nevs[i] = mcts_nn_create(g, net, leaves, err, sizeof err))) rc = -1;
      if (!rc) evs[i] = mcts_nn_eval(nevs[i]);
    } else {
      if (!(ros[i] = mcts_rollout_create(1, (uint64_t)i + 1, err, sizeof err))) rc = -1;
      if (!rc) evs[i] = mcts_rollout_eval(ros[i]);
    }
  }
  mcts_params p = net ? mcts_defaults() : mcts_rollout_defaults();
  p.node_cap = sims * 8 + 64;
  mcts *m = rc ? NULL : mcts_create(g, &p, &evs[0], 1, err, sizeof err);
  double *rate = calloc((size_t)reps * (size_t)nt, sizeof *rate),
         *ratio = calloc((size_t)reps, sizeof *ratio), *share = calloc((size_t)reps, sizeof *share);
  if (!m || !rate || !ratio || !share) {
    fprintf(stderr, "sowzero bench search: %s\n", m ? "out of memory" : err);
    rc = -1;
  }
  game_pos start;
  game_start(g, &start);
  for (int r = 0; r < reps && !rc; r++)
    for (int i = 0; i < nt && !rc; i++) {
      mcts_reset(m);
      mcts_set_root(m, &start, NULL, err, sizeof err);
      mcts_limits l = mcts_limits_sims(sims);
      l.threads = threads[i];
      l.leaves = leaves;
      l.evals = evs;
      double w0 = clock_wall();
      if (mcts_search(m, &l, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "sowzero bench search: %s\n", err);
        rc = -1;
      }
      rate[(size_t)i * (size_t)reps + (size_t)r] = sims / (clock_wall() - w0);
      if (threads[i] != 1 || rc) continue;
      /* One thread again, for the share of its CPU time inside the
       * evaluator: a search of its own, since reading the thread's CPU
       * clock twice an evaluation (system calls) would slow the timed one. */
      timed_eval te = {evs[0], 0};
      mcts_eval one = {timed_evaluate, &te, evs[0].max_batch};
      l.evals = &one;
      mcts_reset(m);
      mcts_set_root(m, &start, NULL, err, sizeof err);
      double c0 = clock_thread_cpu();
      if (mcts_search(m, &l, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "sowzero bench search: %s\n", err);
        rc = -1;
      }
      share[r] = te.cpu / (clock_thread_cpu() - c0);
    }
  const char *kind = net ? "zero" : "mcts";
  for (int i = 0; i < nt && !rc; i++) {
    char extra[200], name[64];
    json_writer w;
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "threads", threads[i]);
    json_put_int(&w, "leaves", leaves);
    json_put_int(&w, "sims", sims);
    json_put_int(&w, "reps", reps);
    for (int r = 0; r < reps; r++) ratio[r] = rate[(size_t)i * (size_t)reps + (size_t)r] / rate[r];
    snprintf(name, sizeof name, "%s_tree_sims_per_s", kind);
    bench_figure(b, "search", name, median(rate + (size_t)i * (size_t)reps, reps), "1/s", extra);
    snprintf(name, sizeof name, "%s_tree_speedup", kind);
    bench_figure(b, "search", name, median(ratio, reps), "", extra);
  }
  /* The lock serialises the rest: Amdahl's bound for 2 threads, from CPU
   * times, which a loaded machine does not distort as it does wall time. */
  if (!rc && threads[0] == 1) {
    char extra[200], name[64];
    json_writer w;
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "threads", 1);
    json_put_int(&w, "leaves", leaves);
    json_put_int(&w, "sims", sims);
    json_put_int(&w, "reps", reps);
    double sh = median(share, reps);
    snprintf(name, sizeof name, "%s_tree_eval_share", kind);
    bench_figure(b, "search", name, sh, "", extra);
    snprintf(name, sizeof name, "%s_tree_bound_2_threads", kind);
    bench_figure(b, "search", name, 1.0 / ((1 - sh) + sh / 2), "", extra);
  }
  free(rate);
  free(ratio);
  free(share);
  mcts_free(m);
  for (int i = 0; i < maxt; i++) {
    mcts_nn_free(nevs[i]);
    mcts_rollout_free(ros[i]);
  }
  return rc;
}

typedef struct {
  char game[64], batches[128], threads[64];
  int sims, reps, nn_sims, moves, no_nn, json, tree_sims, leaves;
} search_opts;

#define O_(kind, name, F, ...) kind(name, search_opts, F, __VA_ARGS__)
static const kv_key search_keys[] = {
    O_(KV_S, "game", game, NULL, "NAME  the game or preset ('sowzero rules' lists them)"),
    O_(KV_I, "sims", sims, 1, 10000000, NULL, "simulations per move of rollout MCTS"),
    O_(KV_I, "reps", reps, 1, 1000, NULL, "fresh rollout searches timed (the median is reported)"),
    O_(KV_I, "nn-sims", nn_sims, 1, 1000000, NULL, "simulations per move of the network search"),
    O_(KV_I, "moves", moves, 1, 10000, NULL, "moves of the network search per batch size"),
    O_(KV_S, "batches", batches, NULL,
       "B,B,...  batch sizes of the network search, 1..4096 each, at most 8"),
    O_(KV_B, "no-nn", no_nn, NULL, "the rollout search only"),
    O_(KV_S, "threads", threads, NULL,
       "T,T,...  thread counts of one tree searched together (mcts_search), 1..64 each, at most 8"),
    O_(KV_I, "tree-sims", tree_sims, 1, 10000000, NULL,
       "simulations of each threaded search of one tree"),
    O_(KV_I, "leaves", leaves, 1, MCTS_MAX_LEAVES, NULL,
       "leaves a thread evaluates in one call in the threaded searches"),
    O_(KV_B, "json", json, NULL, "one JSON object per figure and line"),
};
#undef O_
static const kv_table search_table = KV_TABLE(search_keys);

int bench_search(bench_out *b, int argc, char **argv) {
  search_opts o = {"oware", "1,16,64,256", "1,2", 1000, 7, 100, 4, 0, b->json, 20000, 1};
  cli_cmd cmd = {.name = "bench search",
                 .synopsis =
                     "bench search [--game G] [--sims N] [--reps R] [--nn-sims N] "
                     "[--moves M] [--batches 1,16,...] [--threads 1,2] [--tree-sims N] "
                     "[--leaves L] [--no-nn] [--json]",
                 .about =
                     "  Simulations per second of rollout MCTS, of the network search "
                     "through the\n  batched driver at several batch sizes, and of one tree "
                     "searched by 1, 2, ... threads\n  (rollouts and the network; wall "
                     "clock, the counts interleaved).\n",
                 .opts = &search_table,
                 .base = &o};
  int status;
  if (cli_parse(&cmd, argc, argv, &status)) return status;
  b->json = o.json;
  const char *game_name = o.game;
  int sims = o.sims, reps = o.reps, nn_sims = o.nn_sims, moves = o.moves, skip_nn = o.no_nn;
  int batches[8], nb = 0;
  /* Whole numbers between commas: "1,,2", "1, 2" and "1x" are refused. */
  static const kv_key batch_key = {"batch", KV_INT, 0, 1, 4096, NULL, 0, NULL, ""};
  for (const char *t = o.batches;; t++) {
    char item[32];
    size_t n = strcspn(t, ",");
    if (nb == 8 || n >= sizeof item)
      return cli_fail(&cmd, 2,
                      "bad value '%s' for --batches (at most 8 batch sizes, each an "
                      "integer 1..4096, separated by commas)",
                      o.batches);
    memcpy(item, t, n);
    item[n] = 0;
    char err[256];
    if (kv_parse(&batch_key, &batches[nb], item, err, sizeof err) != 0)
      return cli_fail(&cmd, 2,
                      "bad value '%s' for --batches: batch size '%s' is not an integer "
                      "1..4096",
                      o.batches, item);
    nb++;
    t += n;
    if (!*t) break;
  }
  int threads[8], nt = 0;
  static const kv_key threads_key = {"threads", KV_INT, 0, 1, MCTS_MAX_THREADS, NULL, 0, NULL, ""};
  for (const char *t = o.threads;; t++) {
    char item[32], e[256];
    size_t n = strcspn(t, ",");
    if (nt == 8 || n >= sizeof item)
      return cli_fail(&cmd, 2, "bad value '%s' for --threads (at most 8 counts, each 1..%d)",
                      o.threads, MCTS_MAX_THREADS);
    memcpy(item, t, n);
    item[n] = 0;
    if (kv_parse(&threads_key, &threads[nt], item, e, sizeof e) != 0)
      return cli_fail(&cmd, 2, "bad value '%s' for --threads: '%s' is not an integer 1..%d",
                      o.threads, item, MCTS_MAX_THREADS);
    nt++;
    t += n;
    if (!*t) break;
  }
  char err[256];
  game g;
  if (game_configure(&g, game_name, 0, NULL, err, sizeof err)) return cli_fail(&cmd, 2, "%s", err);
  bench_note(b, "search: %s, rollout MCTS %d sims from the start position, median of %d", g.preset,
             sims, reps);
  if (bench_rollouts(b, &g, sims, reps)) return 1;
  bench_note(b,
             "search: one tree, %d rollout sims from the start, threads %s, leaves %d, wall clock",
             o.tree_sims, o.threads, o.leaves);
  if (bench_tree(b, &g, NULL, o.tree_sims, reps, threads, nt, o.leaves)) return 1;
  if (skip_nn) return 0;
  char info[256];
  nn_blas_single_thread();
  nn_blas_info(info, sizeof info);
  bench_note(b, "search: network (default config) via the batched driver, %d sims x %d moves; %s",
             nn_sims, moves, info);
  for (int i = 0; i < nb; i++)
    if (bench_network(b, &g, batches[i], nn_sims, moves)) return 1;
  nn_config c = nn_config_default();
  c.n_in = g.n_features;
  c.n_actions = g.n_actions;
  nn_net *net = nn_create(&c, 7, err, sizeof err);
  if (!net) return cli_fail(&cmd, 1, "%s", err);
  bench_note(b,
             "search: one tree, %d network sims (default config) from the start, threads %s, "
             "leaves %d, wall clock",
             o.tree_sims, o.threads, o.leaves);
  int rc = bench_tree(b, &g, net, o.tree_sims, reps, threads, nt, o.leaves);
  nn_free(net);
  return rc ? 1 : 0;
}

/* `sowzero bench selfplay`: the run's own self-play and learner
 * (train_bench: the workers, the learner's hosted worker and the learner
 * at the config's train_ratio, without files, gating or evaluation), from
 * the untrained network of the config's seed (or --weights FILE: a trained
 * one, whose mostly-zero activations the int8 path skips), for a fixed wall
 * time.
 *
 * Figures (bench "selfplay", one set per precision; extra fields give the
 * precision, threads, learner_plays, seconds, the CPU and the load average
 * at the start, since the machine's other jobs take cores from it):
 *   games_per_h, evals_per_s, samples_per_s, steps_per_s
 *   cores_used          process CPU time / wall time
 *   threads_runnable    mean number of the process's threads running or
 *                       ready to run (Linux): the cores it would use on an
 *                       idle machine, where other jobs lower cores_used
 *   share_network, share_search, share_learner   of the process's CPU time
 * Without --precision, fp32 then bf16 (where the CPU has AVX512_BF16); with
 * --precision all, fp32, bf16 (where the CPU has it) and int8 (its kernel
 * in the extra fields: SOWZERO_INT8_KERNEL forces one); and with either,
 *   bf16_fp32_evals_ratio, bf16_fp32_games_ratio, int8_fp32_evals_ratio,
 *   int8_fp32_games_ratio   for the precisions that ran */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/machine.h"
#include "trainer/train.h"

typedef struct {
  double seconds;
  int precision; /* index into precisions */
  int threads;
  int learner_plays;
  char config[CLI_PATH_MAX];
  char weights[CLI_PATH_MAX];
  int json;
} opts;

static const char *const precisions[] = {"fp32", "bf16", "int8", "all", NULL};

#define O_(kind, name, F, ...) kind(name, opts, F, __VA_ARGS__)
static const kv_key sp_keys[] = {
    O_(KV_D, "seconds", seconds, 0.1, 86400, NULL, "S  wall seconds per precision"),
    O_(KV_E, "precision", precision, precisions, NULL,
       "only this precision, or all (default: fp32 and bf16)"),
    O_(KV_IA, "threads", threads, 1, 64, NULL, "self-play threads (default: the config's)"),
    O_(KV_I, "learner-plays", learner_plays, 0, 1, NULL,
       "selfplay.learner_plays (default: the config's)"),
    O_(KV_S, "config", config, NULL, "FILE  the training config (default configs/oware.ini)"),
    O_(KV_S, "weights", weights, NULL,
       "FILE  play this network (the config's game and shape) instead of an untrained one"),
    O_(KV_B, "json", json, NULL, "one JSON object per figure and line"),
};
#undef O_
static const kv_table sp_table = KV_TABLE(sp_keys);

/* One precision's run and figures; 0, or -1 with a message printed. */
static int one(bench_out *b, const cli_cmd *cmd, train_config *cfg, const char *weights,
               nn_precision prec, double seconds, const char *cpu, train_bench_result *res) {
  char err[512], extra[1536];
  cfg->precision = prec;
  double load[1] = {0};
  if (getloadavg(load, 1) < 1) load[0] = -1;
  if (train_bench(cfg, weights, seconds, res, err, sizeof err) != 0) {
    cli_fail(cmd, 1, "%s", err);
    return -1;
  }
  const char *pn = nn_precision_name(prec);
  json_writer w;
  json_writer_init(&w, extra, sizeof extra);
  json_put_string(&w, "precision", pn);
  json_put_int(&w, "threads", cfg->threads);
  json_put_int(&w, "learner_plays", cfg->learner_plays);
  json_put_fixed(&w, "seconds", res->seconds, 2);
  json_put_fixed(&w, "load", load[0], 2);
  json_put_string(&w, "cpu", cpu);
  if (prec == NN_PRECISION_INT8)
    json_put_string(&w, "kernel", nn_int8_kernel_name(nn_int8_kernel_in_use()));
  if (!b->json) snprintf(extra, sizeof extra, "%s", pn); /* the table: the note says the rest */
  bench_note(b, "%s: %d self-play thread(s)%s, %.1f s, load average %.2f at the start", pn,
             cfg->threads, cfg->learner_plays ? " + the learner's" : "", res->seconds, load[0]);
  double t = res->seconds > 0 ? res->seconds : 1;
  bench_figure(b, "selfplay", "games_per_h", 3600.0 * (double)res->games / t, "1/h", extra);
  bench_figure(b, "selfplay", "evals_per_s", (double)res->evals / t, "1/s", extra);
  bench_figure(b, "selfplay", "samples_per_s", (double)res->samples / t, "1/s", extra);
  bench_figure(b, "selfplay", "steps_per_s", (double)res->steps / t, "1/s", extra);
  bench_figure(b, "selfplay", "cores_used", res->cores_used, "cores", extra);
  if (res->threads_runnable >= 0)
    bench_figure(b, "selfplay", "threads_runnable", res->threads_runnable, "threads", extra);
  bench_figure(b, "selfplay", "share_network", res->share[0], "", extra);
  bench_figure(b, "selfplay", "share_search", res->share[1], "", extra);
  bench_figure(b, "selfplay", "share_learner", res->share[2], "", extra);
  return 0;
}

int bench_selfplay(bench_out *b, int argc, char **argv) {
  opts o = {.seconds = 10, .threads = 1, .config = "configs/oware.ini"};
  cli_cmd c = {.name = "bench selfplay",
               .synopsis =
                   "bench selfplay [--json] [--seconds S] [--precision fp32|bf16|int8|all] "
                   "[--threads N|auto] [--learner-plays 0|1] [--config FILE] [--weights FILE]",
               .about =
                   "  Self-play and the learner of a config from a fixed network, for S\n"
                   "  seconds per precision; without --precision fp32 and bf16 side by side,\n"
                   "  with --precision all fp32, bf16 and int8.\n",
               .opts = &sp_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  b->json = o.json;
  char err[512];
  train_config *cfg = malloc(sizeof *cfg);
  if (!cfg) return cli_fail(&c, 1, "out of memory");
  if (config_load(cfg, o.config, 0, NULL, err, sizeof err) != 0) {
    free(cfg);
    return cli_fail(&c, 2, "%s", err);
  }
  if (cli_given(&c, "threads")) cfg->threads = o.threads;
  char why[320];
  cfg->threads = machine_threads(cfg, 1, NULL, why, sizeof why);
  if (cli_given(&c, "learner-plays")) cfg->learner_plays = o.learner_plays;
  const char *weights = o.weights[0] ? o.weights : NULL;
  if (train_bench_check(cfg, weights, err, sizeof err) != 0) {
    free(cfg);
    return cli_fail(&c, 1, "%s", err);
  }
  /* The precisions to run, fp32 first: the ratios are against it. */
  nn_precision run[3];
  int nrun = 0;
  const int given = cli_given(&c, "precision"), all = given && o.precision == 3;
  if (given && !all) {
    run[nrun++] = o.precision == 0   ? NN_PRECISION_FP32
                  : o.precision == 1 ? NN_PRECISION_BF16
                                     : NN_PRECISION_INT8;
    if (run[0] == NN_PRECISION_BF16 && !nn_bf16_supported()) {
      free(cfg);
      return cli_fail(&c, 1, "--precision bf16: this CPU has no AVX512_BF16");
    }
  } else {
    run[nrun++] = NN_PRECISION_FP32;
    if (nn_bf16_supported())
      run[nrun++] = NN_PRECISION_BF16;
    else
      bench_note(b, "no AVX512_BF16 on this CPU: no bf16");
    if (all) run[nrun++] = NN_PRECISION_INT8;
  }
  char cpu[192];
  bench_cpu_name(cpu, sizeof cpu);
  bench_note(b, "CPU %s; %s, %d games per worker, %d sims (%d fast), train_ratio %g", cpu, o.config,
             cfg->games_per_thread, cfg->search.sims, cfg->cap_sims, cfg->train_ratio);
  bench_note(b, "%d self-play thread(s): %s", cfg->threads, why);
  bench_system(b, "selfplay");
  train_bench_result res[3];
  int rc = 0;
  for (int i = 0; i < nrun && rc == 0; i++)
    rc = one(b, &c, cfg, weights, run[i], o.seconds, cpu, &res[i]);
  for (int i = 1; i < nrun && rc == 0 && run[0] == NN_PRECISION_FP32; i++) {
    char extra[1536], name[64];
    json_writer w;
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "threads", cfg->threads);
    json_put_int(&w, "learner_plays", cfg->learner_plays);
    json_put_string(&w, "cpu", cpu);
    double e32 = (double)res[0].evals / res[0].seconds, g32 = (double)res[0].games / res[0].seconds;
    const char *pn = nn_precision_name(run[i]);
    snprintf(name, sizeof name, "%s_fp32_evals_ratio", pn);
    bench_figure(b, "selfplay", name, e32 > 0 ? (double)res[i].evals / res[i].seconds / e32 : 0, "",
                 extra);
    snprintf(name, sizeof name, "%s_fp32_games_ratio", pn);
    bench_figure(b, "selfplay", name, g32 > 0 ? (double)res[i].games / res[i].seconds / g32 : 0, "",
                 extra);
  }
  free(cfg);
  return rc ? 1 : 0;
}

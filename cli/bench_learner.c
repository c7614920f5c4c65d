/* `sowzero bench learner`: what one learner can take in (train_bench_learner):
 * training steps per second on one core, the samples per second of its
 * intake of actors' games, and from them its capacity at the config's
 * train_ratio — how many actors one learner feeds (docs/DISTRIBUTED.md).
 *
 * Figures (bench "learner"; extra fields give the batch, train_ratio, the
 * network, the learner's threads, the clock of the step rate and the CPU):
 * steps_per_s, intake_per_s, capacity_per_s, and steps_per_s_wall,
 * capacity_per_s_wall by the wall clock, steps_per_s_thread by the calling
 * thread's CPU clock. With --threads N (learner.threads) each step runs on N
 * threads, and steps_per_s is by the wall clock too; on a busy machine
 * steps_per_s_thread is the better guess of what N free cores would do. */
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/train.h"

typedef struct {
  double seconds;
  char config[CLI_PATH_MAX];
  int json;
  int threads;
} opts;

#define O_(kind, name, F, ...) kind(name, opts, F, __VA_ARGS__)
static const kv_key learner_keys[] = {
    O_(KV_D, "seconds", seconds, 0.1, 86400, NULL,
       "S  CPU seconds in all (half steps, half intake)"),
    O_(KV_S, "config", config, NULL, "FILE  the training config (default configs/oware.ini)"),
    O_(KV_I, "threads", threads, 1, NN_MAX_TRAIN_THREADS, NULL,
       "N  threads of each training step (default: the config's learner.threads)"),
    O_(KV_B, "json", json, NULL, "one JSON object per figure and line"),
};
#undef O_
static const kv_table learner_table = KV_TABLE(learner_keys);

int bench_learner(bench_out *b, int argc, char **argv) {
  opts o = {.seconds = 10, .config = "configs/oware.ini"};
  cli_cmd c = {.name = "bench learner",
               .synopsis = "bench learner [--json] [--seconds S] [--config FILE] [--threads N]",
               .about =
                   "  One learner's training steps/s (on learner.threads threads) and intake\n"
                   "  of actors' games, and the samples/s it can take in at the config's\n"
                   "  train_ratio.\n",
               .opts = &learner_table,
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
  if (cli_given(&c, "threads")) cfg->learner_threads = o.threads;
  nn_blas_single_thread();
  char cpu[192], extra[1536], shape[64];
  bench_cpu_name(cpu, sizeof cpu);
  nn_shape_string(&(nn_config){cfg->g.n_features, cfg->hidden, cfg->blocks, cfg->g.n_actions},
                  shape, sizeof shape);
  bench_note(b, "CPU %s; %s: network %s, batch %d, train_ratio %g, %d learner thread(s)", cpu,
             o.config, shape, cfg->batch, cfg->train_ratio, cfg->learner_threads);
  train_learner_result r;
  if (train_bench_learner(cfg, o.seconds, &r, err, sizeof err) != 0) {
    free(cfg);
    return cli_fail(&c, 1, "%s", err);
  }
  json_writer w;
  json_writer_init(&w, extra, sizeof extra);
  json_put_string(&w, "network", shape);
  json_put_int(&w, "batch", cfg->batch);
  json_put_real(&w, "train_ratio", cfg->train_ratio, 6);
  json_put_int(&w, "threads", cfg->learner_threads);
  json_put_string(&w, "clock", cfg->learner_threads > 1 ? "wall" : "thread");
  json_put_string(&w, "cpu", cpu);
  if (!b->json) extra[0] = 0;
  bench_figure(b, "learner", "steps_per_s", r.steps_per_s, "1/s", extra);
  bench_figure(b, "learner", "intake_per_s", r.intake_per_s, "samples/s", extra);
  bench_figure(b, "learner", "capacity_per_s", r.capacity_per_s, "samples/s", extra);
  bench_figure(b, "learner", "steps_per_s_wall", r.steps_per_s_wall, "1/s", extra);
  bench_figure(b, "learner", "capacity_per_s_wall", r.capacity_per_s_wall, "samples/s", extra);
  bench_figure(b, "learner", "steps_per_s_thread", r.steps_per_s_thread, "1/s", extra);
  free(cfg);
  return 0;
}

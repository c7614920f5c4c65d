/* `sowzero bench nn`: network throughput against plain cblas_sgemm.
 *
 * Figures (bench "nn"; stable names, medians over --reps repetitions; the
 * unsuffixed rates use the thread's CPU clock, "_wall" ones the wall clock):
 *   forward_pos_per_s, forward_pos_per_s_wall, forward_gflops   per batch
 *   sgemm_gflops        the same GEMM shapes alone, per batch
 *   forward_sgemm_ratio forward_gflops / sgemm_gflops, per batch
 *   batch1_pos_per_s    batch 1 by method (sgemm, sgemv, loop, auto)
 *   train_samples_per_s, train_samples_per_s_wall, train_gflops  batch 256
 *   train_sgemm_gflops, train_sgemm_ratio   the training step's GEMMs alone
 *   bf16_available      1 if the CPU has AVX512_BF16, with the CPU's name
 * Where the CPU has AVX512_BF16, the same net in bf16 (nn_set_precision),
 * measured in the same run right after the fp32 figures of each batch:
 *   forward_bf16_pos_per_s, forward_bf16_pos_per_s_wall, forward_bf16_gflops
 *   bf16_fp32_ratio     forward_bf16_pos_per_s / forward_pos_per_s, per batch
 *   batch1_bf16_pos_per_s  batch 1 (auto: the bf16 batched kernel)
 * The same net in int8, once per int8 kernel of --int8-kernels (default:
 * every kernel this CPU runs, "kernel" in the extra fields), measured in
 * the same run right after the fp32 (and bf16) figures of each batch:
 *   forward_int8_pos_per_s, forward_int8_pos_per_s_wall, forward_int8_gflops
 *   int8_fp32_ratio     forward_int8_pos_per_s / forward_pos_per_s, per batch
 *   batch1_int8_pos_per_s  batch 1 (auto: the int8 batched kernel)
 *   auto_precision      1 per batch, with what precision=auto takes at that
 *                       batch by its own start-up measurement (nn_auto_choose:
 *                       "precision", "kernel", "measured" 0 when
 *                       SOWZERO_AUTO_PRECISION decided, and its times
 *                       "auto_fp32_us", "auto_bf16_us", "auto_int8_us" per
 *                       forward), the fastest precision this benchmark
 *                       measured ("fastest") and auto's speed as a share of
 *                       it ("auto_share")
 * One thread, as in the workers. By default a freshly initialised network on
 * random inputs; with --weights FILE that network, on positions of random
 * games of its game (a trained net's activations are mostly zeros, which
 * the int8 path skips: its figures on such a net are what play sees). */
#include "cli/cli.h"

#include "base/base.h"
#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"

#ifdef NN_PORTABLE_BLAS
#include "nn/blas_portable.h"
#else
#include <cblas.h>
#endif
#include <stdlib.h>
#include <string.h>

#define REPS_MAX 31

typedef struct {
  nn_config cfg;
  double seconds; /* per figure, split over the repetitions */
  int reps;
  int train_batch;
  int json;
  char run[512];
  int positions;
  char kernels[128];
  char weights[CLI_PATH_MAX];
} opts;

#define O_(kind, name, F, ...) kind(name, opts, F, __VA_ARGS__)
static const kv_key nn_keys[] = {
    O_(KV_I, "hidden", cfg.hidden, 1, 4096, NULL, "width of the hidden layers"),
    O_(KV_I, "blocks", cfg.blocks, 0, 64, NULL, "residual blocks"),
    O_(KV_I, "inputs", cfg.n_in, 1, 65536, NULL, "input features"),
    O_(KV_I, "actions", cfg.n_actions, 1, NN_MAX_ACTIONS, NULL, "policy outputs"),
    O_(KV_D, "seconds", seconds, 0.001, 3600, NULL, "S  thread CPU seconds per figure"),
    O_(KV_I, "reps", reps, 1, REPS_MAX, NULL, "repetitions (the median is reported)"),
    O_(KV_I, "train-batch", train_batch, 1, 4096, NULL, "batch of the training step"),
    O_(KV_B, "json", json, NULL, "one JSON object per figure and line"),
    O_(KV_S, "run", run, NULL,
       "DIR  instead: int8 and bf16 against fp32 on the positions of a run's replay buffer"),
    O_(KV_I, "positions", positions, 1, 10000000, NULL, "positions compared with --run"),
    O_(KV_S, "weights", weights, NULL,
       "FILE  this network (its shape, instead of --hidden ...), on positions of random "
       "games of its game"),
    O_(KV_S, "int8-kernels", kernels, NULL,
       "K,K  the int8 kernels to time: all (default: every one this CPU runs), or names of "
       "portable, avx2, avxvnni, avx512vnni"),
};
#undef O_
static const kv_table nn_table = KV_TABLE(nn_keys);

/* What one timed call does, and on how many positions. */
typedef struct ctx {
  void (*fn)(struct ctx *c);
  int units;
  nn_net *net;
  nn_ws *ws;
  nn_trainer *tr;
  const float *x;
  const uint32_t *legal;
  float *policy, *value, *score;
  const float *tp, *tv, *ts;
  int batch;
  int pos; /* batch 1: which position of the pool */
  int pool;
  float *buf[6]; /* plain-sgemm buffers */
} ctx;

static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs c->fn enough times for seconds / reps per repetition; returns the
 * median units per second by thread CPU time and by wall time. */
static void measure(ctx *c, const opts *o, double *cpu_rate, double *wall_rate) {
  c->fn(c); /* warm-up: caches, BLAS buffers */
  double t0 = clock_thread_cpu();
  int probe = 0;
  do {
    c->fn(c);
    probe++;
  } while (clock_thread_cpu() - t0 < 0.01);
  double once = (clock_thread_cpu() - t0) / probe;
  long iters = (long)(o->seconds / o->reps / once);
  if (iters < 1) iters = 1;
  double cpu[REPS_MAX], wall[REPS_MAX];
  for (int r = 0; r < o->reps; r++) {
    double c0 = clock_thread_cpu(), w0 = clock_wall();
    for (long i = 0; i < iters; i++) c->fn(c);
    double c1 = clock_thread_cpu(), w1 = clock_wall();
    cpu[r] = (double)c->units * iters / (c1 - c0 > 1e-9 ? c1 - c0 : 1e-9);
    wall[r] = (double)c->units * iters / (w1 - w0 > 1e-9 ? w1 - w0 : 1e-9);
  }
  *cpu_rate = median(cpu, o->reps);
  *wall_rate = median(wall, o->reps);
}

static void run_forward(ctx *c) {
  nn_forward(c->net, c->ws, c->x, c->legal, c->batch, c->policy, c->value, c->score);
}

static void run_forward1(ctx *c) {
  const int NI = nn_config_of(c->net).n_in;
  c->pos = (c->pos + 1) % c->pool;
  nn_forward(c->net, c->ws, c->x + (size_t)c->pos * NI, c->legal + c->pos, 1, c->policy, c->value,
             c->score);
}

static void run_train(ctx *c) {
  /* A tiny rate keeps the weights sane over thousands of repeats of one
   * batch; the work does not depend on it. */
  nn_train_step(c->net, c->tr, c->ws, c->x, c->legal, c->tp, c->tv, c->ts, c->batch, 1e-5f, NULL);
}

/* The forward pass's GEMMs with the same shapes, betas and weights, without
 * the bias, ReLU and softmax passes. */
static void run_sgemm_forward(ctx *c) {
  const nn_config k = nn_config_of(c->net);
  const int B = c->batch, NI = k.n_in, H = k.hidden, O = k.n_actions + 2;
  const float *P = nn_params(c->net);
  float *a = c->buf[0], *u = c->buf[1];
  int t = 0;
  const nn_tensor *T = nn_tensor_at(c->net, t);
  /* a (B x H) = x (B x NI) . W_in (NI x H) */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, NI, 1.0f, c->x, NI, P + T->offset, H,
              0.0f, a, H);
  for (int b = 0; b < k.blocks; b++) {
    const nn_tensor *W1 = nn_tensor_at(c->net, 2 + 4 * b), *W2 = nn_tensor_at(c->net, 4 + 4 * b);
    /* u (B x H) = a (B x H) . W1 (H x H) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, H, 1.0f, a, H, P + W1->offset, H,
                0.0f, u, H);
    /* a (B x H) += u (B x H) . W2 (H x H) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, H, 1.0f, u, H, P + W2->offset, H,
                1.0f, a, H);
  }
  T = nn_tensor_at(c->net, 2 + 4 * k.blocks);
  /* out (B x O) = a (B x H) . W_head (H x O) */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, O, H, 1.0f, a, H, P + T->offset, O,
              0.0f, c->buf[2], O);
}

/* The training step's GEMMs: the forward ones plus, per layer, dW = X^T G
 * and (except for the input layer) dX = G W^T. */
static void run_sgemm_train(ctx *c) {
  run_sgemm_forward(c);
  const nn_config k = nn_config_of(c->net);
  const int B = c->batch, NI = k.n_in, H = k.hidden, O = k.n_actions + 2;
  const float *P = nn_params(c->net);
  float *a = c->buf[0], *g1 = c->buf[3], *g2 = c->buf[4], *dw = c->buf[5];
  const float *dout = c->buf[2];
  const nn_tensor *T = nn_tensor_at(c->net, 2 + 4 * k.blocks);
  /* dW_head (H x O) = a^T (H x B) . dout (B x O) */
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, O, B, 1.0f, a, H, dout, O, 0.0f, dw, O);
  /* g1 (B x H) = dout (B x O) . W_head^T (O x H) */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, O, 1.0f, dout, O, P + T->offset, O,
              0.0f, g1, H);
  for (int b = k.blocks - 1; b >= 0; b--) {
    const nn_tensor *W1 = nn_tensor_at(c->net, 2 + 4 * b), *W2 = nn_tensor_at(c->net, 4 + 4 * b);
    /* dW2 (H x H) = a^T (H x B) . g1 (B x H) */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, H, B, 1.0f, a, H, g1, H, 0.0f, dw, H);
    /* g2 (B x H) = g1 (B x H) . W2^T (H x H) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, H, 1.0f, g1, H, P + W2->offset, H,
                0.0f, g2, H);
    /* dW1 (H x H) = a^T (H x B) . g2 (B x H) */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, H, B, 1.0f, a, H, g2, H, 0.0f, dw, H);
    /* g1 (B x H) += g2 (B x H) . W1^T (H x H) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, H, 1.0f, g2, H, P + W1->offset, H,
                1.0f, g1, H);
  }
  /* dW_in (NI x H) = x^T (NI x B) . g1 (B x H) */
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, NI, H, B, 1.0f, c->x, NI, g1, H, 0.0f, dw,
              H);
}

/* n positions of random games of g (each position kept with probability
 * 1/3, so that a batch mixes openings, middle games and endings), encoded,
 * with their legal moves. */
static void play_positions(const game *g, int n, int NI, float *x, uint32_t *legal, rng_t *r) {
  int k = 0;
  while (k < n) {
    game_pos p;
    game_start(g, &p);
    for (game_moves m; k < n && (m = game_legal(g, &p)) != 0;
         game_play(g, &p, game_random_action(r, m)))
      if (rng_below(r, 3) == 0) {
        game_encode(g, &p, x + (size_t)k * NI);
        legal[k++] = m;
      }
  }
}

int bench_nn(bench_out *b, int argc, char **argv) {
  opts o = {nn_config_default(), 0.5, 5, 256, b->json, "", 4096, "all", ""};
  cli_cmd cmd = {.name = "bench nn",
                 .synopsis =
                     "bench nn [--hidden N --blocks N --inputs N --actions N --seconds S "
                     "--reps N --train-batch N] [--weights FILE] [--int8-kernels all|K,K] "
                     "[--json]\n"
                     "       bench nn --run DIR [--positions N] [--json]",
                 .about =
                     "  Network forward and training throughput on one thread, against "
                     "plain sgemm.\n",
                 .opts = &nn_table,
                 .base = &o};
  int status;
  if (cli_parse(&cmd, argc, argv, &status)) return status;
  b->json = o.json;
  if (o.run[0]) {
#ifdef __EMSCRIPTEN__
    return cli_fail(&cmd, 2, "--run: not in the WebAssembly build");
#else
    char e[1024];
    return bench_nn_run(b, o.run, o.positions, e, sizeof e) ? cli_fail(&cmd, 1, "%s", e) : 0;
#endif
  }
  /* The int8 kernels to time, in the order of nn_int8_kernel. */
  nn_int8_kernel ks[4];
  int nk = 0;
  if (strcmp(o.kernels, "all") == 0) {
    for (int i = NN_INT8_PORTABLE; i <= NN_INT8_AVX512VNNI; i++)
      if (nn_int8_kernel_supported((nn_int8_kernel)i) &&
          (i != NN_INT8_PORTABLE || !nn_int8_kernel_supported(NN_INT8_AVX2)))
        ks[nk++] = (nn_int8_kernel)i;
  } else {
    char list[sizeof o.kernels];
    snprintf(list, sizeof list, "%s", o.kernels);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      nn_int8_kernel k;
      if (nn_int8_kernel_parse(t, &k) != 0 || k == NN_INT8_AUTO)
        return cli_fail(&cmd, 2,
                        "--int8-kernels: unknown kernel '%s' (portable, avx2, avxvnni, "
                        "avx512vnni or all)",
                        t);
      if (!nn_int8_kernel_supported(k))
        return cli_fail(&cmd, 2, "--int8-kernels: this CPU cannot run the %s kernel", t);
      if (nk < 4) ks[nk++] = k;
    }
  }
  static const int batches[] = {1, 8, 32, 64, 256, 1024};
  const int nbatch = (int)(sizeof batches / sizeof batches[0]);
  int maxb = o.train_batch > 1024 ? o.train_batch : 1024;
  game g;
  nn_net *loaded = NULL;
  if (o.weights[0]) {
    static const char *const shape[] = {"hidden", "blocks", "inputs", "actions"};
    for (int i = 0; i < 4; i++)
      if (cli_given(&cmd, shape[i]))
        return cli_fail(&cmd, 2, "--%s: the network of --weights has its own shape", shape[i]);
    char e[1024];
    nn_meta meta;
    nn_net *probe = nn_load(o.weights, NULL, &meta, e, sizeof e);
    if (!probe) return cli_fail(&cmd, 1, "%s", e);
    nn_free(probe);
    if (cli_meta_game(o.weights, meta.game, meta.rules, &g, e, sizeof e) != 0 ||
        !(loaded = mcts_nn_load(&g, o.weights, MCTS_NN_OWN_RULES, e, sizeof e)))
      return cli_fail(&cmd, 1, "%s", e);
    o.cfg = nn_config_of(loaded);
  }
  const nn_config *k = &o.cfg;
  const int NI = k->n_in, H = k->hidden, A = k->n_actions, O = A + 2;
  char err[256], info[512], extra[192];
  json_writer w; /* each figure's extra members, into extra */
  int rc = 1;

  ctx c;
  memset(&c, 0, sizeof c);
  float *x = NULL, *policy = NULL, *tp = NULL, *tv = NULL, *ts = NULL;
  uint32_t *legal = NULL;
  c.net = loaded ? loaded : nn_create(k, 1, err, sizeof err);
  c.ws = c.net ? nn_ws_create(c.net, maxb, err, sizeof err) : NULL;
  nn_train_params tparams = nn_train_defaults();
  c.tr = c.ws ? nn_trainer_create(c.net, &tparams, err, sizeof err) : NULL;
  if (!c.tr) {
    cli_fail(&cmd, 1, "%s", err);
    goto out;
  }
  x = malloc(sizeof(float) * (size_t)maxb * NI);
  legal = malloc(sizeof(uint32_t) * (size_t)maxb);
  policy = malloc(sizeof(float) * (size_t)maxb * A);
  tp = calloc((size_t)maxb * A, sizeof(float));
  tv = malloc(sizeof(float) * (size_t)maxb);
  ts = malloc(sizeof(float) * (size_t)maxb);
  c.value = malloc(sizeof(float) * (size_t)maxb);
  c.score = malloc(sizeof(float) * (size_t)maxb);
  size_t bufsz = (size_t)maxb * (H > O ? H : O) + (size_t)(H > NI ? H : NI) * (H > O ? H : O);
  for (int i = 0; i < 6; i++) c.buf[i] = calloc(bufsz, sizeof(float));
  if (!x || !legal || !policy || !tp || !tv || !ts || !c.value || !c.score || !c.buf[0] ||
      !c.buf[1] || !c.buf[2] || !c.buf[3] || !c.buf[4] || !c.buf[5]) {
    cli_fail(&cmd, 1, "out of memory");
    goto out;
  }
  /* Positions of the network's game, or like encoded boards: about half
   * the features zero. */
  rng_t r;
  rng_seed(&r, 12345, 0);
  if (loaded) play_positions(&g, maxb, NI, x, legal, &r);
  for (size_t i = 0; !loaded && i < (size_t)maxb * NI; i++)
    x[i] = rng_double(&r) < 0.5 ? 0.0f : (float)rng_double(&r);
  for (int i = 0; i < maxb; i++) {
    uint32_t full = A >= 32 ? 0xffffffffu : (1u << A) - 1u;
    if (!loaded) legal[i] = ((uint32_t)rng_u64(&r) & full) | 1u;
    int a = (int)rng_below(&r, (uint32_t)A);
    tp[(size_t)i * A + ((legal[i] >> a & 1) ? a : 0)] = 1.0f;
    tv[i] = (float)((int)rng_below(&r, 3) - 1);
    ts[i] = (float)(rng_double(&r) * 2.0 - 1.0);
  }
  c.x = x;
  c.legal = legal;
  c.policy = policy;
  c.tp = tp;
  c.tv = tv;
  c.ts = ts;
  c.pool = maxb;

  nn_blas_info(info, sizeof info);
  const char *ct = getenv("OPENBLAS_CORETYPE");
  bench_note(b, "%s; OPENBLAS_CORETYPE=%s", info, ct ? ct : "(unset)");
  bench_system(b, "nn");
  char cpu[192];
  bench_cpu_name(cpu, sizeof cpu);
  const int bf16 = nn_bf16_supported();
  bench_note(b, "CPU %s; bf16 forward %s", cpu,
             bf16 ? "measured (AVX512_BF16)" : "not measured (no AVX512_BF16)");
  {
    char ex[6 * sizeof cpu + 16];
    json_writer_init(&w, ex, sizeof ex);
    json_put_string(&w, "cpu", cpu);
    bench_figure(b, "nn", "bf16_available", bf16, "", ex); /* the JSON's record of the CPU */
  }
  bench_note(b, "network %d-%dx%d-%d, %zu parameters, %.0f FLOP per position", NI, H, k->blocks, A,
             nn_param_count(c.net), nn_flops_per_position(k));
  if (loaded)
    bench_note(b, "weights %s (%s), on %d positions of random %s games", o.weights, g.rules->name,
               maxb, g.rules->name);
  else
    bench_note(b, "weights: freshly initialised, on random inputs");
  const double fl = nn_flops_per_position(k);
  /* Positions/s per batch and precision (0: not measured), for auto's note. */
  double rate[6][4];
  memset(rate, 0, sizeof rate);
  const nn_int8_kernel auto_kernel = nn_int8_kernel_in_use();

  for (int i = 0; i < nbatch; i++) {
    double cpu, wall, gcpu, gwall;
    c.batch = batches[i];
    c.units = c.batch;
    c.fn = run_forward;
    measure(&c, &o, &cpu, &wall);
    c.fn = run_sgemm_forward;
    measure(&c, &o, &gcpu, &gwall);
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "batch", c.batch);
    bench_figure(b, "nn", "forward_pos_per_s", cpu, "1/s", extra);
    bench_figure(b, "nn", "forward_pos_per_s_wall", wall, "1/s", extra);
    bench_figure(b, "nn", "forward_gflops", cpu * fl / 1e9, "GFLOP/s", extra);
    bench_figure(b, "nn", "sgemm_gflops", gcpu * fl / 1e9, "GFLOP/s", extra);
    bench_figure(b, "nn", "forward_sgemm_ratio", cpu / gcpu, "", extra);
    rate[i][NN_PRECISION_FP32] = cpu;
    for (int q = 0; q < nk; q++) {
      double icpu, iwall;
      char ex[sizeof extra + 48];
      nn_int8_force_kernel(ks[q]);
      if (nn_set_precision(c.net, NN_PRECISION_INT8, err, sizeof err) != 0) {
        cli_fail(&cmd, 1, "%s", err);
        goto out;
      }
      c.fn = run_forward;
      measure(&c, &o, &icpu, &iwall);
      nn_set_precision(c.net, NN_PRECISION_FP32, err, sizeof err);
      json_writer_init(&w, ex, sizeof ex);
      json_put_raw(&w, NULL, extra);
      json_put_string(&w, "kernel", nn_int8_kernel_name(ks[q]));
      bench_figure(b, "nn", "forward_int8_pos_per_s", icpu, "1/s", ex);
      bench_figure(b, "nn", "forward_int8_pos_per_s_wall", iwall, "1/s", ex);
      bench_figure(b, "nn", "forward_int8_gflops", icpu * fl / 1e9, "GFLOP/s", ex);
      bench_figure(b, "nn", "int8_fp32_ratio", icpu / cpu, "", ex);
      if (ks[q] == auto_kernel) rate[i][NN_PRECISION_INT8] = icpu;
    }
    nn_int8_force_kernel(NN_INT8_AUTO);
    if (!bf16) continue;
    double bcpu, bwall;
    if (nn_set_precision(c.net, NN_PRECISION_BF16, err, sizeof err) != 0) {
      cli_fail(&cmd, 1, "%s", err);
      goto out;
    }
    c.fn = run_forward;
    measure(&c, &o, &bcpu, &bwall);
    nn_set_precision(c.net, NN_PRECISION_FP32, err, sizeof err);
    bench_figure(b, "nn", "forward_bf16_pos_per_s", bcpu, "1/s", extra);
    bench_figure(b, "nn", "forward_bf16_pos_per_s_wall", bwall, "1/s", extra);
    bench_figure(b, "nn", "forward_bf16_gflops", bcpu * fl / 1e9, "GFLOP/s", extra);
    bench_figure(b, "nn", "bf16_fp32_ratio", bcpu / cpu, "", extra);
    rate[i][NN_PRECISION_BF16] = bcpu;
  }

  static const struct {
    nn_small_path p;
    const char *name;
  } methods[] = {{NN_SMALL_SGEMM, "sgemm"},
                 {NN_SMALL_SGEMV, "sgemv"},
                 {NN_SMALL_LOOP, "loop"},
                 {NN_SMALL_AUTO, "auto"}};
  for (int i = 0; i < 4; i++) {
    double cpu, wall;
    nn_ws_set_small_path(c.ws, methods[i].p);
    c.batch = 1;
    c.units = 1;
    c.fn = run_forward1;
    measure(&c, &o, &cpu, &wall);
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "batch", 1);
    json_put_string(&w, "method", methods[i].name);
    bench_figure(b, "nn", "batch1_pos_per_s", cpu, "1/s", extra);
  }
  if (bf16) {
    double cpu, wall;
    nn_ws_set_small_path(c.ws, NN_SMALL_AUTO);
    nn_set_precision(c.net, NN_PRECISION_BF16, err, sizeof err);
    c.fn = run_forward1;
    measure(&c, &o, &cpu, &wall);
    nn_set_precision(c.net, NN_PRECISION_FP32, err, sizeof err);
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "batch", 1);
    bench_figure(b, "nn", "batch1_bf16_pos_per_s", cpu, "1/s", extra);
  }
  for (int q = 0; q < nk; q++) {
    double cpu, wall;
    char ex[96];
    nn_ws_set_small_path(c.ws, NN_SMALL_AUTO);
    nn_int8_force_kernel(ks[q]);
    nn_set_precision(c.net, NN_PRECISION_INT8, err, sizeof err);
    c.fn = run_forward1;
    measure(&c, &o, &cpu, &wall);
    nn_set_precision(c.net, NN_PRECISION_FP32, err, sizeof err);
    json_writer_init(&w, ex, sizeof ex);
    json_put_int(&w, "batch", 1);
    json_put_string(&w, "kernel", nn_int8_kernel_name(ks[q]));
    bench_figure(b, "nn", "batch1_int8_pos_per_s", cpu, "1/s", ex);
  }
  nn_int8_force_kernel(NN_INT8_AUTO);
  nn_ws_set_small_path(c.ws, NN_SMALL_AUTO);
  /* What auto takes at each batch (its own start-up measurement, as a run
   * makes it), and how it fares against the fastest precision this
   * benchmark measured at that batch. */
  for (int i = 0; i < nbatch; i++) {
    nn_auto_report ar;
    if (nn_auto_choose(c.net, &batches[i], 1, NULL, NULL, &ar, err, sizeof err) != 0) {
      cli_fail(&cmd, 1, "%s", err);
      goto out;
    }
    const nn_precision auto_prec = ar.choice;
    int best = NN_PRECISION_FP32;
    for (int p = NN_PRECISION_FP32; p <= NN_PRECISION_INT8; p++)
      if (rate[i][p] > rate[i][best]) best = p;
    if (rate[i][auto_prec] <= 0) continue; /* its kernel was not timed */
    double share = rate[i][auto_prec] / rate[i][best];
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "batch", batches[i]);
    json_put_string(&w, "precision", nn_precision_name(auto_prec));
    json_put_string(&w, "kernel",
                    auto_prec == NN_PRECISION_INT8 ? nn_int8_kernel_name(auto_kernel) : "-");
    json_put_string(&w, "fastest", nn_precision_name((nn_precision)best));
    json_put_fixed(&w, "auto_share", share, 3);
    json_put_int(&w, "measured", !ar.forced);
    static const char *const us_keys[NN_AUTO_PATHS] = {"auto_fp32_us", "auto_bf16_us",
                                                       "auto_int8_us"};
    for (int p = 0; p < NN_AUTO_PATHS; p++)
      if (ar.us[0][p] > 0) json_put_fixed(&w, us_keys[p], ar.us[0][p], 2);
    bench_figure(b, "nn", "auto_precision", 1, "", extra);
    char why[600];
    nn_auto_describe(&ar, why, sizeof why);
    bench_note(b, "batch %d: %s; the fastest here is %s, auto runs at %.0f%% of it", batches[i],
               why, nn_precision_name((nn_precision)best), 100 * share);
  }

  {
    double cpu, wall, gcpu, gwall;
    /* Forward, then dW for every layer and dX for all but the first. */
    double tfl = 3.0 * fl - 2.0 * NI * H;
    c.batch = o.train_batch;
    c.units = c.batch;
    c.fn = run_train;
    measure(&c, &o, &cpu, &wall);
    c.fn = run_sgemm_train;
    measure(&c, &o, &gcpu, &gwall);
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "batch", c.batch);
    bench_figure(b, "nn", "train_samples_per_s", cpu, "1/s", extra);
    bench_figure(b, "nn", "train_samples_per_s_wall", wall, "1/s", extra);
    bench_figure(b, "nn", "train_gflops", cpu * tfl / 1e9, "GFLOP/s", extra);
    bench_figure(b, "nn", "train_sgemm_gflops", gcpu * tfl / 1e9, "GFLOP/s", extra);
    bench_figure(b, "nn", "train_sgemm_ratio", cpu / gcpu, "", extra);
  }
  rc = 0;
out:
  free(x);
  free(legal);
  free(policy);
  free(tp);
  free(tv);
  free(ts);
  free(c.value);
  free(c.score);
  for (int i = 0; i < 6; i++) free(c.buf[i]);
  nn_trainer_free(c.tr);
  nn_ws_free(c.ws);
  nn_free(c.net);
  return rc;
}

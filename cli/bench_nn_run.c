/* `sowzero bench nn --run DIR`: how far the bf16 and int8 forwards stray
 * from fp32 on real positions, those of a run's replay buffer evaluated by
 * its best network (figures of bench "nn", with "positions" and the run;
 * P is bf16 where the CPU has AVX512_BF16, and int8, with its "kernel"):
 *   P_policy_kl_mean      mean KL(fp32 policy || P policy), nats
 *   P_policy_absdiff_max  largest difference of one move's probability
 *   P_top_move_agree      share of positions whose most likely move agrees
 *   P_value_absdiff_mean, _p99, _max   |value difference|: mean, the 99th
 *                         percentile and the largest (a tail statistic of
 *                         a few positions, as unsteady as they are few)
 * Not in the WebAssembly build (it has no trainer). */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"
#include "trainer/config.h"
#include "trainer/replay.h"

#define CHUNK 256 /* positions per evaluator call */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int bench_nn_run(bench_out *b, const char *dir, int positions, char *err, size_t errlen) {
  char path[1024], e[768];
  train_config c;
  snprintf(path, sizeof path, "%s/config.ini", dir);
  if (config_load(&c, path, 0, NULL, err, errlen) != 0) return -1;
  if (c.n_variants > 1) {
    errf(err, errlen, "%s: the precision comparison reads runs of one variant, not game.variants",
         dir);
    return -1;
  }
  game *g = &c.g;
  const int A = g->n_actions;
  nn_net *net[3] = {NULL, NULL, NULL};
  mcts_nn *ev[3] = {NULL, NULL, NULL};
  /* fp32, then the precisions compared with it. */
  const nn_precision prec[3] = {NN_PRECISION_FP32, NN_PRECISION_INT8, NN_PRECISION_BF16};
  const int np = nn_bf16_supported() ? 3 : 2;
  replay *rb = replay_create(g, c.window, err, errlen);
  replay_sample *s = malloc(sizeof *s * CHUNK);
  float *pol = malloc(sizeof(float) * 3 * CHUNK * (size_t)A), val[3][CHUNK];
  double *dvs = malloc(sizeof *dvs * 3 * (size_t)(positions > 0 ? positions : 1));
  int rc = -1;
  if (!rb) goto out;
  if (!s || !pol || !dvs) {
    errf(err, errlen, "out of memory");
    goto out;
  }
  snprintf(path, sizeof path, "%s/replay.bin", dir);
  if (replay_load(rb, path, err, errlen) != 0) goto out;
  replay_stats rs;
  replay_get_stats(rb, &rs);
  if (rs.count == 0) {
    errf(err, errlen, "%s holds no positions", path);
    goto out;
  }
  snprintf(path, sizeof path, "%s/best.weights", dir);
  for (int k = 0; k < np; k++) {
    if (!(net[k] = mcts_nn_load(g, path, MCTS_NN_OWN_RULES, e, sizeof e)) ||
        nn_set_precision(net[k], prec[k], e, sizeof e) != 0 ||
        !(ev[k] = mcts_nn_create(g, net[k], CHUNK, e, sizeof e))) {
      errf(err, errlen, "%s", e);
      goto out;
    }
  }
  rng_t r;
  rng_seed(&r, 1, 0);
  double kl[3] = {0}, pmax[3] = {0}, vsum[3] = {0}, vmax[3] = {0};
  int agree[3] = {0}, done = 0;
  const int P = positions;
  while (done < positions) {
    int n = positions - done < CHUNK ? positions - done : CHUNK;
    if (replay_sample_batch(rb, &r, s, n) != 0) goto out;
    const game_pos *pp[CHUNK];
    for (int i = 0; i < n; i++) pp[i] = &s[i].pos;
    for (int k = 0; k < np; k++) {
      mcts_eval x = mcts_nn_eval(ev[k]);
      if (x.evaluate(x.ctx, g, pp, n, pol + (size_t)k * CHUNK * A, val[k]) != 0) {
        errf(err, errlen, "network evaluation failed");
        goto out;
      }
    }
    for (int k = 1; k < np; k++)
      for (int i = 0; i < n; i++) {
        const float *p = pol + (size_t)i * A, *q = pol + ((size_t)k * CHUNK + i) * A;
        int bp = 0, bq = 0;
        for (int a = 0; a < A; a++) {
          if (p[a] > 0) kl[k] += p[a] * log(p[a] / fmax(q[a], 1e-30));
          pmax[k] = fmax(pmax[k], fabs(p[a] - q[a]));
          if (p[a] > p[bp]) bp = a;
          if (q[a] > q[bq]) bq = a;
        }
        agree[k] += bp == bq;
        double dv = fabs(val[0][i] - val[k][i]);
        vsum[k] += dv;
        dvs[(size_t)k * P + done + i] = dv;
        vmax[k] = fmax(vmax[k], dv);
      }
    done += n;
  }
  char extra[sizeof path * 6 + 96];
  char shape[64];
  nn_config nc = nn_config_of(net[0]);
  nn_shape_string(&nc, shape, sizeof shape);
  bench_note(b, "run %s: network %s, %d of %d buffered positions; int8 kernel %s", dir, shape, done,
             rs.count, nn_int8_kernel_name(nn_int8_kernel_in_use()));
  for (int k = 1; k < np; k++) {
    const char *pn = nn_precision_name(prec[k]);
    char name[64];
    json_writer w;
    json_writer_init(&w, extra, sizeof extra);
    json_put_int(&w, "positions", done);
    json_put_string(&w, "run", dir);
    if (prec[k] == NN_PRECISION_INT8)
      json_put_string(&w, "kernel", nn_int8_kernel_name(nn_int8_kernel_in_use()));
#define FIG(suffix, v, unit)                          \
  do {                                                \
    snprintf(name, sizeof name, "%s_%s", pn, suffix); \
    bench_figure(b, "nn", name, v, unit, extra);      \
  } while (0)
    FIG("policy_kl_mean", kl[k] / done, "nats");
    FIG("policy_absdiff_max", pmax[k], "");
    FIG("top_move_agree", (double)agree[k] / done, "");
    FIG("value_absdiff_mean", vsum[k] / done, "");
    double *d = dvs + (size_t)k * P;
    qsort(d, (size_t)done, sizeof *d, cmp_double);
    FIG("value_absdiff_p99", d[(int)(0.99 * (done - 1))], "");
    FIG("value_absdiff_max", vmax[k], "");
#undef FIG
  }
  rc = 0;
out:
  for (int k = 0; k < 3; k++) {
    mcts_nn_free(ev[k]);
    nn_free(net[k]);
  }
  replay_free(rb);
  free(s);
  free(pol);
  free(dvs);
  return rc;
}

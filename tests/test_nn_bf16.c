/* The bf16 forward path (nn/nn_bf16.c): agreement with the fp32 forward on
 * random and on trained weights for ragged batches, rows independent of the
 * batch they come in, precision selection and the fp32 fallback, and the
 * bf16 copy following the weights through copies, loads and training.
 * On a CPU without AVX512_BF16 the bf16 comparisons are skipped and the
 * fallback tests still run. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "nn/nn.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

/* Tolerances of bf16 against fp32 (8-bit mantissas for weights and layer
 * inputs, fp32 sums): the largest probability difference, value
 * difference and score difference (relative to max(|score|, 1)) over a
 * batch. Measured on these nets and batches: random weights and biases
 * policy 0.0082, value 0.021, score 0.027 (the 3-block 13-37x3-32 net;
 * the default net 0.0036, 0.0075, 0.0068); after 200 training steps 0.0043,
 * 0.014, 0.015. The bounds are about twice that. */
static const diffs random_tol = {0.02, 0.05, 0.06};
static const diffs trained_tol = {0.01, 0.03, 0.03};
/* The kernel against the reference that rounds like it: measured 3.5e-7
 * relative; an activation rounded the other way would cost ~1e-4. */
#define REF_TOL 1e-4

/* ---- The kernel against a reference that rounds like it -------------------
 * Weights and every dense layer's input rounded to bf16 (round to nearest
 * even), sums in double: what the bf16 path computes, up to its fp32 sums
 * and the rare activation whose rounding tips the other way. */
static double bf(double v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* y[j] = bias[j] (+ skip[j]) + sum_i bf(x[i]) bf(W[i][j]), relu if relu. */
static void ref_layer(const nn_net *n, int t, const double *x, const double *skip, int relu,
                      double *y) {
  const nn_tensor *W = nn_tensor_at(n, t), *b = nn_tensor_at(n, t + 1);
  const float *P = nn_params(n);
  for (int j = 0; j < W->cols; j++) {
    double s = P[b->offset + j] + (skip ? skip[j] : 0.0);
    for (int i = 0; i < W->rows; i++) s += bf(x[i]) * bf(P[W->offset + (size_t)i * W->cols + j]);
    y[j] = relu && s < 0 ? 0.0 : s;
  }
}

static void ref_logits(const nn_net *n, const float *x, double *z) {
  nn_config c = nn_config_of(n);
  double in[256], a[256], u[256], a2[256];
  ck_assert_int_le(c.n_in, 256);
  ck_assert_int_le(c.hidden, 256);
  for (int i = 0; i < c.n_in; i++) in[i] = x[i];
  ref_layer(n, 0, in, NULL, 1, a);
  for (int k = 0; k < c.blocks; k++) {
    ref_layer(n, 2 + 4 * k, a, NULL, 1, u);
    ref_layer(n, 4 + 4 * k, u, a, 1, a2);
    memcpy(a, a2, sizeof(double) * c.hidden);
  }
  ref_layer(n, 2 + 4 * c.blocks, a, NULL, 0, z);
}

START_TEST(bf16_kernel_matches_rounded_reference) {
  if (!nn_bf16_supported()) return;
  const nn_config cfgs[] = {
      nn_config_default(),
      {.n_in = 13, .hidden = 37, .blocks = 3, .n_actions = 32},
      {.n_in = 64, .hidden = 40, .blocks = 1, .n_actions = 20},
  };
  for (int c = 0; c < 3; c++) {
    nn_net *n = make_net(&cfgs[c], 31 + c);
    random_biases(n, 31 + c);
    set_prec(n, NN_PRECISION_BF16);
    nn_ws *ws = make_ws(n, 19);
    data d = make_data(19, cfgs[c].n_in, cfgs[c].n_actions, 0, 50 + c);
    const int O = cfgs[c].n_actions + 2;
    double z[NN_MAX_ACTIONS + 2];
    ck_assert_int_eq(nn_forward(n, ws, d.x, NULL, 19, NULL, NULL, NULL), 0);
    const float *got = nn_ws_logits(ws);
    for (int b = 0; b < 19; b++) {
      ref_logits(n, d.x + b * cfgs[c].n_in, z);
      for (int j = 0; j < O; j++) {
        double e = fabs(got[b * O + j] - z[j]) / fmax(fabs(z[j]), 1.0);
        CHECK(e <= REF_TOL, "net %d row %d output %d: %g vs reference %g", c, b, j, got[b * O + j],
              z[j]);
      }
    }
    free_data(&d);
    nn_ws_free(ws);
    nn_free(n);
  }
}
END_TEST

static const int batches[] = {1, 2, 3, 7, 8, 9, 17, 64, 200};
#define N_BATCHES ((int)(sizeof batches / sizeof batches[0]))

START_TEST(bf16_matches_fp32_on_random_weights) {
  if (!nn_bf16_supported()) return;
  const nn_config cfgs[] = {
      nn_config_default(),
      small_cfg,
      {.n_in = 13, .hidden = 37, .blocks = 3, .n_actions = 32}, /* odd K, N tails */
      {.n_in = 9, .hidden = 16, .blocks = 0, .n_actions = 1},
      {.n_in = 64, .hidden = 40, .blocks = 1, .n_actions = 20}, /* 16 < N % 32 */
  };
  for (int c = 0; c < 5; c++) {
    nn_net *n = make_net(&cfgs[c], 21 + c);
    random_biases(n, 21 + c);
    nn_ws *ws = make_ws(n, 200);
    data d = make_data(200, cfgs[c].n_in, cfgs[c].n_actions, 1, 40 + c);
    for (int i = 0; i < N_BATCHES; i++) {
      /* Batch 1 through the batched kernel too, not only the fp32 loop. */
      for (int sp = 0; sp < (batches[i] == 1 ? 2 : 1); sp++) {
        nn_ws_set_small_path(ws, sp ? NN_SMALL_SGEMM : NN_SMALL_AUTO);
        char what[64];
        nn_shape_string(&cfgs[c], what, sizeof what);
        check_diffs(prec_vs_fp32(n, ws, &d, batches[i], d.legal, NN_PRECISION_BF16), random_tol,
                    what, batches[i]);
        check_diffs(prec_vs_fp32(n, ws, &d, batches[i], NULL, NN_PRECISION_BF16), random_tol, what,
                    batches[i]);
      }
    }
    free_data(&d);
    nn_ws_free(ws);
    nn_free(n);
  }
}
END_TEST

START_TEST(bf16_matches_fp32_after_training) {
  if (!nn_bf16_supported()) return;
  check_trained_vs_fp32(NN_PRECISION_BF16, trained_tol, 1);
}
END_TEST

/* A row's bf16 result does not depend on the batch around it: every row
 * runs the same accumulation order whichever register tile holds it. */
START_TEST(bf16_rows_independent_of_batch) {
  if (!nn_bf16_supported()) return;
  nn_config c = nn_config_default();
  nn_net *n = make_net(&c, 4);
  random_biases(n, 4);
  set_prec(n, NN_PRECISION_BF16);
  nn_ws *ws = make_ws(n, 37);
  data d = make_data(37, c.n_in, c.n_actions, 1, 8);
  float full[37 * 6], one[6], v37[37], v1;
  ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, 37, full, v37, NULL), 0);
  for (int b = 0; b < 37; b++) { /* AUTO at batch 1 takes the bf16 kernel */
    ck_assert_int_eq(nn_forward(n, ws, d.x + b * c.n_in, d.legal + b, 1, one, &v1, NULL), 0);
    ck_assert_int_eq(memcmp(one, full + b * 6, sizeof one), 0);
    ck_assert(v1 == v37[b]);
  }
  /* The explicit batch-1 loop stays fp32 on a bf16 net. */
  nn_net *f = make_net(&c, 4);
  random_biases(f, 4);
  nn_ws_set_small_path(ws, NN_SMALL_LOOP);
  float pf[6];
  ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, 1, one, NULL, NULL), 0);
  ck_assert_int_eq(nn_forward(f, ws, d.x, d.legal, 1, pf, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(one, pf, sizeof one), 0);
  nn_free(f);
  free_data(&d);
  nn_ws_free(ws);
  nn_free(n);
}
END_TEST

/* Bit-for-bit the fp32 results when fp32 is forced, or when the CPU is
 * taken to lack AVX512_BF16: AUTO then falls back, BF16 is refused. */
START_TEST(fp32_forced_and_fallback) {
  nn_config c = small_cfg;
  nn_net *ref = make_net(&c, 6), *n = make_net(&c, 6);
  nn_ws *ws = make_ws(n, 16);
  data d = make_data(16, c.n_in, c.n_actions, 1, 2);
  float p0[16 * 7], p1[16 * 7];
  char err[256];
  ck_assert_int_eq(nn_forward(ref, ws, d.x, d.legal, 16, p0, NULL, NULL), 0);

  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_AUTO, err, sizeof err), 0);
  ck_assert_int_eq(nn_precision_of(n), nn_precision_auto());
  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_FP32, err, sizeof err), 0);
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
  ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, 16, p1, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(p0, p1, sizeof p0), 0);
  /* Back to fp32 from int8 or bf16: a promotion into the net (nn_copy)
   * leaves it in fp32, no packed copy of the other precision revived. */
  for (int k = 0; k < 2; k++) {
    nn_precision was = k ? NN_PRECISION_BF16 : NN_PRECISION_INT8;
    if (was == NN_PRECISION_BF16 && !nn_bf16_supported()) continue;
    ck_assert_int_eq(nn_set_precision(n, was, err, sizeof err), 0);
    ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_FP32, err, sizeof err), 0);
    ck_assert_int_eq(nn_copy(n, ref), 0);
    ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
    ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, 16, p1, NULL, NULL), 0);
    ck_assert_int_eq(memcmp(p0, p1, sizeof p0), 0);
  }

  /* A CPU with neither AVX512_BF16 nor an int8 vector kernel. */
  nn_bf16_allow(0);
  ck_assert_int_eq(nn_int8_force_kernel(NN_INT8_PORTABLE), 0);
  ck_assert_int_eq(nn_bf16_supported(), 0);
  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_AUTO, err, sizeof err), 0);
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
  ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, 16, p1, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(p0, p1, sizeof p0), 0);
  err[0] = 0;
  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_BF16, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bf16") && strstr(err, "AVX512_BF16"), "message: %s", err);
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
  ck_assert_int_eq(nn_set_precision(n, (nn_precision)7, err, sizeof err), -1);
  nn_bf16_allow(1);
  ck_assert_int_eq(nn_int8_force_kernel(NN_INT8_AUTO), 0);

  ck_assert_str_eq(nn_precision_name(NN_PRECISION_AUTO), "auto");
  ck_assert_str_eq(nn_precision_name(NN_PRECISION_FP32), "fp32");
  ck_assert_str_eq(nn_precision_name(NN_PRECISION_BF16), "bf16");
  free_data(&d);
  nn_ws_free(ws);
  nn_free(ref);
  nn_free(n);
}
END_TEST

/* The bf16 copy follows the weights: nn_copy and loads re-pack it, a write
 * through nn_params_mut makes the net fp32 until converted again. */
START_TEST(bf16_copy_follows_the_weights) {
  if (!nn_bf16_supported()) return;
  nn_config c = small_cfg;
  nn_net *a = make_net(&c, 1), *b = make_net(&c, 2);
  random_biases(a, 1);
  set_prec(a, NN_PRECISION_BF16);
  set_prec(b, NN_PRECISION_BF16);
  nn_ws *ws = make_ws(a, 9);
  data d = make_data(9, c.n_in, c.n_actions, 0, 3);
  float pa[9 * 7], pb[9 * 7];
  ck_assert_int_eq(nn_forward(a, ws, d.x, NULL, 9, pa, NULL, NULL), 0);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_ne(memcmp(pa, pb, sizeof pa), 0);
  ck_assert_int_eq(nn_copy(b, a), 0); /* promotion: b's bf16 copy re-packed */
  ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_BF16);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(pa, pb, sizeof pa), 0);

  char path[512], err[256];
  snprintf(path, sizeof path, "%s/sowzero-bf16-%d.weights", test_tmp(), (int)getpid());
  nn_meta m = test_meta();
  ck_assert_msg(nn_save(a, &m, path, err, sizeof err) == 0, "%s", err);
  nn_params_mut(b)[0] += 1.0f;
  ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_FP32);
  set_prec(b, NN_PRECISION_BF16);
  ck_assert_msg(nn_load_into(b, path, NULL, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_BF16);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(pa, pb, sizeof pa), 0);
  remove(path);
  free_data(&d);
  nn_ws_free(ws);
  nn_free(a);
  nn_free(b);
}
END_TEST

START_TEST(threads_share_a_bf16_net) {
  nn_net *n = make_net(&small_cfg, 5);
  set_prec(n, nn_bf16_supported() ? NN_PRECISION_BF16 : NN_PRECISION_AUTO);
  check_threads_share(n);
  nn_free(n);
}
END_TEST

static Suite *nn_bf16_suite(void) {
  Suite *s = suite_create("nn_bf16");
  add_tests(s, "bf16", 120,
            (const TTest *[]){bf16_matches_fp32_on_random_weights, bf16_matches_fp32_after_training,
                              bf16_kernel_matches_rounded_reference, bf16_rows_independent_of_batch,
                              fp32_forced_and_fallback, bf16_copy_follows_the_weights,
                              threads_share_a_bf16_net, NULL});
  return s;
}

TEST_MAIN(nn_bf16_suite)

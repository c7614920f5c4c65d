/* The int8 forward path (nn/nn_int8.c): the VNNI kernels against the
 * portable one (the same integers, so the same results), every kernel the
 * CPU runs against a reference that quantises like it and against the fp32
 * forward within stated bounds (random and trained weights), rows nearly
 * independent of the batch, the quantised copy following the weights, and
 * kernel forcing. The AVX2 kernel runs wherever the CPU has AVX2, AVX-512
 * CPUs included. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "nn/nn.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

/* Bounds of int8 against fp32 over a batch: the largest probability,
 * value and score (relative to max(|score|, 1)) differences. Measured on
 * these nets and batches, random inputs in [-1, 1], with 7-bit activations
 * (the AVX2 kernel; 8-bit ones do better): random weights and biases
 * policy 0.018, value 0.055, score 0.14 (the narrow 13-37x3-32 net; the
 * default net 0.011, 0.018, 0.030); after 200 training steps 0.014, 0.043,
 * 0.078. The bounds are about twice that. Real positions through a
 * trained net are the accuracy that counts: `bench nn --run`. */
static const diffs random_tol = {0.04, 0.1, 0.3};
static const diffs trained_tol = {0.03, 0.08, 0.15};
/* The portable kernel against the quantising reference (double sums): an
 * activation whose rounding tips the other way moves a logit by one
 * quantum of one input times a weight, well under this. */
#define REF_TOL 2e-3

static const nn_config cfgs[] = {
    {.n_in = 64, .hidden = 256, .blocks = 2, .n_actions = 6}, /* the default */
    {.n_in = 20, .hidden = 48, .blocks = 2, .n_actions = 7},
    {.n_in = 13, .hidden = 37, .blocks = 3, .n_actions = 32}, /* K % 4, N % 8 tails */
    {.n_in = 9, .hidden = 16, .blocks = 0, .n_actions = 1},   /* no int8 layer at all */
    {.n_in = 64, .hidden = 40, .blocks = 1, .n_actions = 20}, /* 16 < N % 32 */
    {.n_in = 24, .hidden = 33, .blocks = 1, .n_actions = 5},  /* one column in the last vector */
};
#define N_CFGS ((int)(sizeof cfgs / sizeof cfgs[0]))
static const int all_batches[] = {1, 2, 3, 5, 7, 8, 9, 17, 64, 65, 130};
/* Under the sanitizers (SOWZERO_TEST_SCALE < 1) fewer: a single row, a
 * ragged row tile, and the chunk boundary. */
static const int few_batches[] = {1, 7, 65};
#define batches   (test_scale() < 1 ? few_batches : all_batches)
#define N_BATCHES (test_scale() < 1 ? 3 : (int)(sizeof all_batches / sizeof all_batches[0]))

static void force(nn_int8_kernel k) { ck_assert_int_eq(nn_int8_force_kernel(k), 0); }

/* The VNNI kernels the CPU runs give the portable kernel's logits (the
 * same 8-bit activations, so the same integers), for every shape and ragged
 * batch (row tiles of 1..8, panel and vector tails). */
START_TEST(int8_kernels_match_portable) {
  static const nn_int8_kernel ks[] = {NN_INT8_AVXVNNI, NN_INT8_AVX512VNNI};
  for (int c = 0; c < N_CFGS; c++) {
    nn_net *n = make_net(&cfgs[c], 61 + c);
    random_biases(n, 61 + c);
    set_prec(n, NN_PRECISION_INT8);
    nn_ws *ws = make_ws(n, 130);
    data d = make_data(130, cfgs[c].n_in, cfgs[c].n_actions, 1, 70 + c);
    const int O = cfgs[c].n_actions + 2;
    float *ref = malloc(sizeof(float) * 130 * O);
    for (int i = 0; i < N_BATCHES; i++) {
      const int B = batches[i];
      force(NN_INT8_PORTABLE);
      ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, B, NULL, NULL, NULL), 0);
      memcpy(ref, nn_ws_logits(ws), sizeof(float) * B * O);
      for (int k = 0; k < 2; k++) {
        if (!nn_int8_kernel_supported(ks[k])) continue;
        force(ks[k]);
        ck_assert_int_eq(nn_int8_kernel_in_use(), ks[k]);
        ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, B, NULL, NULL, NULL), 0);
        const float *got = nn_ws_logits(ws);
        for (int j = 0; j < B * O; j++)
          CHECK(close_to(got[j], ref[j], 1e-6), "%s net %d batch %d logit %d: %.9g vs %.9g",
                nn_int8_kernel_name(ks[k]), c, B, j, got[j], ref[j]);
      }
    }
    force(NN_INT8_AUTO);
    free(ref);
    free_data(&d);
    nn_ws_free(ws);
    nn_free(n);
  }
}
END_TEST

/* ---- Every kernel against a reference that quantises like it -------------
 * Weights per output column to round(W / (max|W| / 127)), each block
 * layer's input per row to round(x * M / max) (M = 127 for AVX2, else
 * 255), integer products summed exactly, everything else in double. */
static int amax_ref;

static void ref_qlayer(const nn_net *n, int t, const double *x, const double *skip, double *y) {
  const nn_tensor *W = nn_tensor_at(n, t), *b = nn_tensor_at(n, t + 1);
  const float *P = nn_params(n);
  float mx = 0.0f;
  for (int i = 0; i < W->rows; i++) mx = fmaxf(mx, (float)x[i]);
  const float inv = mx > 0.0f ? (float)amax_ref / mx : 0.0f;
  for (int j = 0; j < W->cols; j++) {
    float wm = 0.0f;
    for (int i = 0; i < W->rows; i++) wm = fmaxf(wm, fabsf(P[W->offset + (size_t)i * W->cols + j]));
    const float sw = wm / 127.0f;
    long long acc = 0;
    for (int i = 0; i < W->rows; i++) {
      long q = (long)floor((float)x[i] * inv + 0.5);
      long w = sw > 0 ? lrintf(P[W->offset + (size_t)i * W->cols + j] / sw) : 0;
      acc += (long long)q * w;
    }
    double s =
        (double)acc * (mx / (float)amax_ref) * sw + P[b->offset + j] + (skip ? skip[j] : 0.0);
    y[j] = s > 0 ? s : 0.0;
  }
}

static void ref_dense(const nn_net *n, int t, const double *x, int relu, double *y) {
  const nn_tensor *W = nn_tensor_at(n, t), *b = nn_tensor_at(n, t + 1);
  const float *P = nn_params(n);
  for (int j = 0; j < W->cols; j++) {
    double s = P[b->offset + j];
    for (int i = 0; i < W->rows; i++) s += x[i] * P[W->offset + (size_t)i * W->cols + j];
    y[j] = relu && s < 0 ? 0.0 : s;
  }
}

static void ref_logits(const nn_net *n, const float *x, double *z) {
  nn_config c = nn_config_of(n);
  double in[256], a[256], u[256], a2[256];
  ck_assert_int_le(c.n_in, 256);
  ck_assert_int_le(c.hidden, 256);
  for (int i = 0; i < c.n_in; i++) in[i] = x[i];
  ref_dense(n, 0, in, 1, a);
  for (int k = 0; k < c.blocks; k++) {
    ref_qlayer(n, 2 + 4 * k, a, NULL, u);
    ref_qlayer(n, 4 + 4 * k, u, a, a2);
    memcpy(a, a2, sizeof(double) * c.hidden);
  }
  ref_dense(n, 2 + 4 * c.blocks, a, 0, z);
}

START_TEST(int8_kernel_matches_quantised_reference) {
  static const nn_int8_kernel ks[] = {NN_INT8_PORTABLE, NN_INT8_AVX2, NN_INT8_AVXVNNI,
                                      NN_INT8_AVX512VNNI};
  for (int k = 0; k < 4; k++) {
    if (!nn_int8_kernel_supported(ks[k])) continue;
    force(ks[k]);
    amax_ref = ks[k] == NN_INT8_AVX2 ? 127 : 255;
    for (int c = 0; c < N_CFGS; c++) {
      nn_net *n = make_net(&cfgs[c], 31 + c);
      random_biases(n, 31 + c);
      set_prec(n, NN_PRECISION_INT8);
      nn_ws *ws = make_ws(n, 19);
      data d = make_data(19, cfgs[c].n_in, cfgs[c].n_actions, 0, 50 + c);
      const int O = cfgs[c].n_actions + 2;
      double z[NN_MAX_ACTIONS + 2];
      ck_assert_int_eq(nn_forward(n, ws, d.x, NULL, 19, NULL, NULL, NULL), 0);
      const float *got = nn_ws_logits(ws);
      for (int b = 0; b < 19; b++) {
        ref_logits(n, d.x + b * cfgs[c].n_in, z);
        for (int j = 0; j < O; j++)
          CHECK(close_to(got[b * O + j], z[j], REF_TOL), "%s net %d row %d output %d: %g vs %g",
                nn_int8_kernel_name(ks[k]), c, b, j, got[b * O + j], z[j]);
      }
      free_data(&d);
      nn_ws_free(ws);
      nn_free(n);
    }
  }
  force(NN_INT8_AUTO);
}
END_TEST

START_TEST(int8_matches_fp32_on_random_weights) {
  for (int k = NN_INT8_PORTABLE; k <= NN_INT8_AVX512VNNI; k++) {
    if (!nn_int8_kernel_supported((nn_int8_kernel)k)) continue;
    force((nn_int8_kernel)k);
    for (int c = 0; c < N_CFGS; c++) {
      nn_net *n = make_net(&cfgs[c], 21 + c);
      random_biases(n, 21 + c);
      nn_ws *ws = make_ws(n, 130);
      data d = make_data(130, cfgs[c].n_in, cfgs[c].n_actions, 1, 40 + c);
      char what[64];
      nn_shape_string(&cfgs[c], what, sizeof what);
      for (int i = 0; i < N_BATCHES; i++) {
        check_diffs(prec_vs_fp32(n, ws, &d, batches[i], d.legal, NN_PRECISION_INT8), random_tol,
                    what, batches[i]);
        check_diffs(prec_vs_fp32(n, ws, &d, batches[i], NULL, NN_PRECISION_INT8), random_tol, what,
                    batches[i]);
      }
      free_data(&d);
      nn_ws_free(ws);
      nn_free(n);
    }
  }
  force(NN_INT8_AUTO);
}
END_TEST

START_TEST(int8_matches_fp32_after_training) {
  check_trained_vs_fp32(NN_PRECISION_INT8, trained_tol, 0);
}
END_TEST

/* A workspace made for exactly B rows runs a batch of B on every kernel,
 * whatever B leaves for the last row tile (under ASan a tile that reads or
 * writes a row past the batch fails here), with every row the fp32 one's. */
START_TEST(int8_exact_workspaces_every_tail) {
  nn_config c = nn_config_default();
  nn_net *n = make_net(&c, 9);
  random_biases(n, 9);
  data d = make_data(17, c.n_in, c.n_actions, 1, 10);
  float want[17 * 6], wv[17], got[17 * 6], v[17];
  for (int B = 1; B <= 17; B++) {
    set_prec(n, NN_PRECISION_FP32);
    nn_ws *ws = make_ws(n, B);
    ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, B, want, wv, NULL), 0);
    set_prec(n, NN_PRECISION_INT8);
    for (int k = NN_INT8_PORTABLE; k <= NN_INT8_AVX512VNNI; k++) {
      if (!nn_int8_kernel_supported((nn_int8_kernel)k)) continue;
      force((nn_int8_kernel)k);
      nn_ws *wk = make_ws(n, B);
      ck_assert_int_eq(nn_forward(n, wk, d.x, d.legal, B, got, v, NULL), 0);
      for (int r = 0; r < B; r++) {
        CHECK(fabs(v[r] - wv[r]) < 0.05, "%s batch %d row %d value %g vs %g",
              nn_int8_kernel_name((nn_int8_kernel)k), B, r, v[r], wv[r]);
        for (int a = 0; a < 6; a++)
          CHECK(fabs(got[r * 6 + a] - want[r * 6 + a]) < 0.05, "%s batch %d row %d: %g vs %g",
                nn_int8_kernel_name((nn_int8_kernel)k), B, r, got[r * 6 + a], want[r * 6 + a]);
      }
      nn_ws_free(wk);
    }
    force(NN_INT8_AUTO);
    nn_ws_free(ws);
  }
  free_data(&d);
  nn_free(n);
}
END_TEST

/* Hidden units made dead in whole groups of four: a bias of -100 on the
 * input layer and on each block layer (every layer's input is then zero in
 * the groups chosen) for every group g with g % 3 != 0 (sparse) or for no
 * group (dense), so that a layer's inputs are mostly zero groups, as a
 * trained net's are, and the row kernels take them. */
static void kill_groups(nn_net *n, int sparse) {
  nn_config c = nn_config_of(n);
  for (int t = 1; t < 2 + 4 * c.blocks; t += 2) {
    const nn_tensor *b = nn_tensor_at(n, t);
    for (int j = 0; sparse && j < b->cols; j++)
      if (j / 4 % 3 != 0) nn_params_mut(n)[b->offset + j] = -100.0f;
  }
}

/* A row's int8 result is its own, bit for bit, whatever batch it comes in:
 * its scale is its own, the fp32 input layer and head run a row at a time,
 * and the row kernels (batch 1, sparse chunks) and the tiles (dense chunks)
 * compute the same integers and the same epilogue. On every kernel, dense
 * and sparse nets, batches that split into row tiles and chunks. */
START_TEST(int8_rows_independent_of_batch) {
  nn_config c = nn_config_default();
  for (int sparse = 0; sparse < 2; sparse++) {
    nn_net *n = make_net(&c, 4);
    random_biases(n, 4);
    kill_groups(n, sparse);
    set_prec(n, NN_PRECISION_INT8);
    nn_ws *ws = make_ws(n, 130);
    data d = make_data(130, c.n_in, c.n_actions, 1, 8);
    float full[130 * 6], part[130 * 6], v130[130], v[130];
    for (int k = NN_INT8_PORTABLE; k <= NN_INT8_AVX512VNNI; k++) {
      if (!nn_int8_kernel_supported((nn_int8_kernel)k)) continue;
      force((nn_int8_kernel)k);
      const char *kn = nn_int8_kernel_name((nn_int8_kernel)k);
      ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, 130, full, v130, NULL), 0);
      const int sizes[] = {1, 2, 3, 8, 33, 65};
      for (int s = 0; s < 6; s++)
        for (int b = 0; b + sizes[s] <= 130; b += sizes[s]) {
          ck_assert_int_eq(
              nn_forward(n, ws, d.x + b * c.n_in, d.legal + b, sizes[s], part, v, NULL), 0);
          CHECK(memcmp(part, full + b * 6, sizeof(float) * 6 * sizes[s]) == 0 &&
                    memcmp(v, v130 + b, sizeof(float) * sizes[s]) == 0,
                "%s, %s net: rows %d..%d alone differ from the batch of 130", kn,
                sparse ? "sparse" : "dense", b, b + sizes[s] - 1);
        }
    }
    force(NN_INT8_AUTO);
    free_data(&d);
    nn_ws_free(ws);
    nn_free(n);
  }
}
END_TEST

/* Mostly-zero layer inputs (kill_groups), with whole rows of zero inputs
 * among them: the VNNI kernels give the portable kernel's logits bit for
 * bit, and every kernel stays within REF_TOL of the quantising reference
 * (a row kernel that skipped a non-zero group, or read a zero one wrong,
 * fails here). */
START_TEST(int8_sparse_rows_match_reference) {
  static const int sizes[] = {1, 7, 65, 130};
  for (int c = 0; c < N_CFGS; c++) {
    nn_net *n = make_net(&cfgs[c], 81 + c);
    random_biases(n, 81 + c);
    kill_groups(n, 1);
    set_prec(n, NN_PRECISION_INT8);
    nn_ws *ws = make_ws(n, 130);
    data d = make_data(130, cfgs[c].n_in, cfgs[c].n_actions, 1, 90 + c);
    for (int b = 0; b < 130; b += 9)
      memset(d.x + b * cfgs[c].n_in, 0, sizeof(float) * cfgs[c].n_in);
    const int O = cfgs[c].n_actions + 2;
    float *ref = malloc(sizeof(float) * 130 * O);
    double z[NN_MAX_ACTIONS + 2];
    for (int i = 0; i < 4; i++) {
      const int B = sizes[i];
      force(NN_INT8_PORTABLE);
      ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, B, NULL, NULL, NULL), 0);
      memcpy(ref, nn_ws_logits(ws), sizeof(float) * B * O);
      for (int k = NN_INT8_PORTABLE; k <= NN_INT8_AVX512VNNI; k++) {
        if (!nn_int8_kernel_supported((nn_int8_kernel)k)) continue;
        force((nn_int8_kernel)k);
        amax_ref = k == NN_INT8_AVX2 ? 127 : 255;
        ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, B, NULL, NULL, NULL), 0);
        const float *got = nn_ws_logits(ws);
        for (int r = 0; r < B; r++) {
          ref_logits(n, d.x + r * cfgs[c].n_in, z);
          for (int j = 0; j < O; j++) {
            CHECK(k == NN_INT8_AVX2 || got[r * O + j] == ref[r * O + j],
                  "%s net %d batch %d row %d logit %d: %.9g vs portable %.9g",
                  nn_int8_kernel_name((nn_int8_kernel)k), c, B, r, j, got[r * O + j],
                  ref[r * O + j]);
            CHECK(close_to(got[r * O + j], z[j], REF_TOL), "%s net %d batch %d row %d: %g vs %g",
                  nn_int8_kernel_name((nn_int8_kernel)k), c, B, r, got[r * O + j], z[j]);
          }
        }
      }
    }
    force(NN_INT8_AUTO);
    free(ref);
    free_data(&d);
    nn_ws_free(ws);
    nn_free(n);
  }
}
END_TEST

/* The int8 copy follows the weights: nn_copy and loads re-quantise it, a
 * write through nn_params_mut makes the net fp32 until converted again,
 * and a change of precision drops it. */
START_TEST(int8_copy_follows_the_weights) {
  nn_config c = small_cfg;
  nn_net *a = make_net(&c, 1), *b = make_net(&c, 2);
  random_biases(a, 1);
  set_prec(a, NN_PRECISION_INT8);
  set_prec(b, NN_PRECISION_INT8);
  nn_ws *ws = make_ws(a, 9);
  data d = make_data(9, c.n_in, c.n_actions, 0, 3);
  float pa[9 * 7], pb[9 * 7];
  ck_assert_int_eq(nn_forward(a, ws, d.x, NULL, 9, pa, NULL, NULL), 0);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_ne(memcmp(pa, pb, sizeof pa), 0);
  ck_assert_int_eq(nn_copy(b, a), 0); /* promotion: b re-quantised */
  ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_INT8);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(pa, pb, sizeof pa), 0);

  char path[512], err[256];
  snprintf(path, sizeof path, "%s/sowzero-int8-%d.weights", test_tmp(), (int)getpid());
  nn_meta m = test_meta();
  ck_assert_msg(nn_save(a, &m, path, err, sizeof err) == 0, "%s", err);
  nn_params_mut(b)[0] += 1.0f;
  ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_FP32);
  set_prec(b, NN_PRECISION_INT8);
  ck_assert_msg(nn_load_into(b, path, NULL, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_INT8);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(pa, pb, sizeof pa), 0);
  /* int8 then bf16 (where the CPU has it) then int8 again: one copy at a
   * time, the same results as before. */
  if (nn_bf16_supported()) {
    set_prec(b, NN_PRECISION_BF16);
    ck_assert_int_eq(nn_precision_of(b), NN_PRECISION_BF16);
  }
  set_prec(b, NN_PRECISION_INT8);
  ck_assert_int_eq(nn_forward(b, ws, d.x, NULL, 9, pb, NULL, NULL), 0);
  ck_assert_int_eq(memcmp(pa, pb, sizeof pa), 0);
  remove(path);
  free_data(&d);
  nn_ws_free(ws);
  nn_free(a);
  nn_free(b);
}
END_TEST

/* Forcing: what the CPU runs can be forced, what it cannot is refused;
 * AUTO resolves to bf16, int8 or fp32 as the CPU allows. */
START_TEST(int8_kernel_forcing_and_auto) {
  nn_int8_kernel k;
  for (int i = NN_INT8_AUTO; i <= NN_INT8_AVX512VNNI; i++) {
    ck_assert_int_eq(nn_int8_kernel_parse(nn_int8_kernel_name((nn_int8_kernel)i), &k), 0);
    ck_assert_int_eq(k, i);
    ck_assert_int_eq(nn_int8_force_kernel((nn_int8_kernel)i),
                     nn_int8_kernel_supported((nn_int8_kernel)i) ? 0 : -1);
  }
  ck_assert_int_eq(nn_int8_kernel_parse("avx3", &k), -1);
  ck_assert_int_eq(nn_int8_force_kernel((nn_int8_kernel)9), -1);
  force(NN_INT8_AUTO);
  ck_assert_int_ne(nn_int8_kernel_in_use(), NN_INT8_AUTO);
  /* The best kernel: a CPU with AVX512_VNNI gets it, one with AVX2 no worse. */
  if (nn_int8_kernel_supported(NN_INT8_AVX512VNNI))
    ck_assert_int_eq(nn_int8_kernel_in_use(), NN_INT8_AVX512VNNI);
  else if (nn_int8_kernel_supported(NN_INT8_AVX2))
    ck_assert_int_ge(nn_int8_kernel_in_use(), NN_INT8_AVX2);

  nn_net *n = make_net(&small_cfg, 7);
  char err[256];
  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_AUTO, err, sizeof err), 0);
  ck_assert_int_eq(nn_precision_of(n), nn_precision_auto());
  nn_bf16_allow(0); /* a CPU without AVX512_BF16: int8 where AVX2 runs */
  ck_assert_int_eq(nn_precision_auto(),
                   nn_int8_kernel_supported(NN_INT8_AVX2) ? NN_PRECISION_INT8 : NN_PRECISION_FP32);
  force(NN_INT8_PORTABLE); /* nor any int8 vector kernel: fp32 */
  ck_assert_int_eq(nn_precision_auto(), NN_PRECISION_FP32);
  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_AUTO, err, sizeof err), 0);
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
  /* int8 itself still runs there, on the portable kernel. */
  ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_INT8, err, sizeof err), 0);
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_INT8);
  nn_bf16_allow(1);
  force(NN_INT8_AUTO);
  ck_assert_str_eq(nn_precision_name(NN_PRECISION_INT8), "int8");
  nn_free(n);
}
END_TEST

START_TEST(threads_share_an_int8_net) {
  nn_net *n = make_net(&small_cfg, 5);
  set_prec(n, NN_PRECISION_INT8);
  check_threads_share(n);
  nn_free(n);
}
END_TEST

static Suite *nn_int8_suite(void) {
  Suite *s = suite_create("nn_int8");
  add_tests(s, "int8", 120,
            (const TTest *[]){int8_kernels_match_portable, int8_kernel_matches_quantised_reference,
                              int8_matches_fp32_on_random_weights, int8_matches_fp32_after_training,
                              int8_rows_independent_of_batch, int8_sparse_rows_match_reference,
                              int8_exact_workspaces_every_tail, int8_copy_follows_the_weights,
                              int8_kernel_forcing_and_auto, threads_share_an_int8_net, NULL});
  return s;
}

TEST_MAIN(nn_int8_suite)

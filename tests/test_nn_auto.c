/* precision = auto by measurement (nn/nn_auto.c): with injected times, the
 * path measured fastest is taken and a slower one never is, samples are
 * interleaved and the best kept, several batch sizes settle on the
 * smallest worst slowdown, paths the CPU lacks are not timed;
 * SOWZERO_AUTO_PRECISION decides without timing and a bad value is an
 * error naming it; on the real clock a choice is one the CPU runs, is
 * told to the observer once and then cached. Nothing asserts a speed. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn.h"
#include "tests/nntest.h"
#include "tests/testkit.h"

/* Injected times: seconds per forward of each path, and a log of the
 * paths in the order they were timed. The first sample of every path is
 * ten times too slow (a burst of load), which the best-of must ignore. */
typedef struct {
  double per[NN_AUTO_PATHS];    /* fp32, bf16, int8 */
  double per_b2[NN_AUTO_PATHS]; /* at the second batch size, when nonzero */
  int log[256];
  int n, seen[NN_AUTO_PATHS];
} fake;

static int col(nn_precision p) {
  return p == NN_PRECISION_FP32 ? 0 : p == NN_PRECISION_BF16 ? 1 : 2;
}

static double fake_timer(void *ctx, const nn_net *n, nn_ws *ws, const float *x, int batch, int reps,
                         float *policy, float *value) {
  fake *f = ctx;
  (void)ws, (void)x, (void)policy, (void)value;
  const int c = col(nn_precision_of(n));
  if (f->n < 256) f->log[f->n++] = c;
  double t = (batch > 1 && f->per_b2[c] > 0 ? f->per_b2[c] : f->per[c]) * reps;
  return f->seen[c]++ == 1 ? 10 * t : t; /* the first timed sample after the warm-up */
}

static void unset(void) { unsetenv(NN_AUTO_ENV); }

static nn_precision choose(nn_net *n, fake *f, const int *batch, int nb, nn_auto_report *r) {
  char err[256];
  ck_assert_msg(nn_auto_choose(n, batch, nb, fake_timer, f, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->forced, 0);
  ck_assert_int_eq(r->cached, 0);
  return r->choice;
}

START_TEST(auto_takes_the_path_measured_fastest) {
  unset();
  nn_net *n = make_net(&small_cfg, 3);
  const int b1 = 1;
  const int bf = nn_bf16_supported();
  /* Each path in turn the fastest; a path 5% slower never taken. */
  for (int win = 0; win < NN_AUTO_PATHS; win++) {
    if (win == 1 && !bf) continue;
    fake f;
    memset(&f, 0, sizeof f);
    for (int p = 0; p < NN_AUTO_PATHS; p++) f.per[p] = p == win ? 100e-6 : 105e-6;
    nn_auto_report r;
    nn_precision got = choose(n, &f, &b1, 1, &r);
    const nn_precision want[] = {NN_PRECISION_FP32, NN_PRECISION_BF16, NN_PRECISION_INT8};
    ck_assert_int_eq(got, want[win]);
    /* The best sample, not the burst: 100 us, not 1000. */
    ck_assert_double_eq_tol(r.us[0][win], 100, 1e-6);
    ck_assert_int_eq(r.n_batches, 1);
    ck_assert_int_eq(r.batch[0], 1);
    /* Interleaved: no path is timed twice before every path was timed. */
    const int paths = bf ? 3 : 2;
    ck_assert_int_ge(f.n, 3 * paths);
    for (int i = paths; i < f.n; i++) ck_assert_int_ne(f.log[i], f.log[i - 1]);
    ck_assert_int_eq(r.us[0][1] > 0, bf);
  }
  nn_free(n);
}
END_TEST

/* The measurement's cost is bounded: a path whose forward takes longer
 * than 20 ms (a big network, a slow CPU) is sampled in two rounds, not
 * five, after its warm-up; a fast one in five. */
START_TEST(auto_samples_a_slow_forward_fewer_times) {
  unset();
  nn_net *n = make_net(&small_cfg, 3);
  const int paths = nn_bf16_supported() ? 3 : 2, b = 8;
  static const double per[] = {30e-3, 200e-6};
  static const int rounds[] = {2, 5};
  for (int k = 0; k < 2; k++) {
    fake f;
    memset(&f, 0, sizeof f);
    for (int p = 0; p < NN_AUTO_PATHS; p++) f.per[p] = per[k] * (1 + 0.1 * p);
    nn_auto_report r;
    ck_assert_int_eq(choose(n, &f, &b, 1, &r), NN_PRECISION_FP32);
    ck_assert_int_eq(f.n, paths * (1 + rounds[k]));
  }
  nn_free(n);
}
END_TEST

START_TEST(auto_on_a_cpu_without_bf16_never_times_it) {
  unset();
  nn_bf16_allow(0);
  nn_net *n = make_net(&small_cfg, 3);
  fake f;
  memset(&f, 0, sizeof f);
  f.per[0] = 300e-6, f.per[1] = 1e-6, f.per[2] = 200e-6;
  const int b = 64;
  nn_auto_report r;
  ck_assert_int_eq(choose(n, &f, &b, 1, &r), NN_PRECISION_INT8);
  ck_assert_int_eq(f.seen[1], 0);
  ck_assert(r.us[0][1] == 0);
  nn_bf16_allow(1);
  nn_free(n);
}
END_TEST

/* Two batch sizes: the path with the smallest worst slowdown. int8 is
 * twice fp32's speed at batch 64 but three times slower at batch 1; bf16
 * is 10% behind the best at both: bf16. Without bf16, fp32 (worst 2x)
 * beats int8 (worst 3x). */
START_TEST(auto_over_two_batches_takes_the_smallest_worst_case) {
  unset();
  nn_net *n = make_net(&small_cfg, 3);
  const int b[2] = {1, 64};
  fake f;
  memset(&f, 0, sizeof f);
  f.per[0] = 10e-6, f.per[1] = 11e-6, f.per[2] = 30e-6;
  f.per_b2[0] = 400e-6, f.per_b2[1] = 220e-6, f.per_b2[2] = 200e-6;
  nn_auto_report r;
  if (nn_bf16_supported()) {
    ck_assert_int_eq(choose(n, &f, b, 2, &r), NN_PRECISION_BF16);
    memset(f.seen, 0, sizeof f.seen);
    f.n = 0;
  }
  nn_bf16_allow(0);
  ck_assert_int_eq(choose(n, &f, b, 2, &r), NN_PRECISION_FP32);
  ck_assert_int_eq(r.n_batches, 2);
  ck_assert_double_eq_tol(r.us[1][2], 200, 1e-6);
  /* As many batch sizes as a choice takes, each measured; one more refused. */
  const int b4[NN_AUTO_MAX_BATCHES + 1] = {1, 8, 64, 256, 512};
  memset(f.seen, 0, sizeof f.seen);
  f.n = 0;
  ck_assert_int_eq(choose(n, &f, b4, NN_AUTO_MAX_BATCHES, &r), NN_PRECISION_FP32);
  ck_assert_int_eq(r.n_batches, NN_AUTO_MAX_BATCHES);
  for (int k = 0; k < NN_AUTO_MAX_BATCHES; k++) {
    ck_assert_int_eq(r.batch[k], b4[k]);
    ck_assert_double_eq_tol(r.us[k][0], k ? 400 : 10, 1e-6);
  }
  char err[256];
  ck_assert_int_eq(
      nn_auto_choose(n, b4, NN_AUTO_MAX_BATCHES + 1, fake_timer, &f, &r, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "batch sizes"), "%s", err);
  nn_bf16_allow(1);
  /* The pure rule alone, on a report made by hand. */
  nn_auto_report h;
  memset(&h, 0, sizeof h);
  h.n_batches = 1;
  h.us[0][0] = 50, h.us[0][1] = 0, h.us[0][2] = 49;
  ck_assert_int_eq(nn_auto_pick(&h), NN_PRECISION_INT8);
  h.us[0][2] = 51;
  ck_assert_int_eq(nn_auto_pick(&h), NN_PRECISION_FP32);
  nn_free(n);
}
END_TEST

static int told;
static nn_auto_report last;
static void observe(void *ctx, const nn_auto_report *r) {
  (void)ctx;
  told++;
  last = *r;
}

START_TEST(auto_forced_by_the_environment) {
  nn_net *n = make_net(&small_cfg, 3);
  const int b = 8;
  char err[256];
  nn_auto_report r;
  fake f;
  memset(&f, 0, sizeof f);
  f.per[0] = f.per[1] = f.per[2] = 1e-6;
  nn_auto_set_observer(observe, NULL);
  told = 0;
  setenv(NN_AUTO_ENV, "fp32", 1);
  ck_assert_int_eq(nn_auto_choose(n, &b, 1, fake_timer, &f, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.choice, NN_PRECISION_FP32);
  ck_assert_int_eq(r.forced, 1);
  ck_assert_int_eq(f.n, 0); /* nothing timed */
  setenv(NN_AUTO_ENV, "int8", 1);
  ck_assert_int_eq(nn_auto_choose(n, &b, 1, NULL, NULL, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.choice, NN_PRECISION_INT8);
  ck_assert_int_eq(told, 1); /* the real clock's choices are told, forced ones too */
  ck_assert_int_eq(last.choice, NN_PRECISION_INT8);
  setenv(NN_AUTO_ENV, "fixed", 1);
  ck_assert_int_eq(nn_auto_choose(n, &b, 1, fake_timer, &f, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.choice, nn_precision_auto());
  char line[600];
  nn_auto_describe(&r, line, sizeof line);
  ck_assert_msg(strstr(line, "not measured") && strstr(line, NN_AUTO_ENV), "%s", line);
  setenv(NN_AUTO_ENV, "fp16", 1);
  ck_assert_int_eq(nn_auto_choose(n, &b, 1, fake_timer, &f, &r, err, sizeof err), -1);
  ck_assert_msg(strstr(err, NN_AUTO_ENV "=fp16"), "%s", err);
  nn_bf16_allow(0);
  setenv(NN_AUTO_ENV, "bf16", 1);
  ck_assert_int_eq(nn_auto_choose(n, &b, 1, fake_timer, &f, &r, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "AVX512_BF16"), "%s", err);
  nn_bf16_allow(1);
  unset();
  /* Bad batch lists. */
  const int bad[2] = {0, NN_MAX_ACTIONS};
  ck_assert_int_eq(nn_auto_choose(n, bad, 1, fake_timer, &f, &r, err, sizeof err), -1);
  ck_assert_int_eq(nn_auto_choose(n, bad + 1, 0, fake_timer, &f, &r, err, sizeof err), -1);
  /* A forward pass that fails fails the measurement, and says which. */
  fake broken = {{1e-5, 1e-5, -1}, {0}, {0}, 0, {0}};
  ck_assert_int_eq(nn_auto_choose(n, &b, 1, fake_timer, &broken, &r, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "int8 forward pass at batch"), "%s", err);
  nn_auto_set_observer(NULL, NULL);
  nn_free(n);
}
END_TEST

/* The real clock: a path the CPU runs, every such path timed, the choice
 * told once, then cached for the same shape and batches. The net itself
 * is only read. */
START_TEST(auto_on_the_real_clock) {
  unset();
  nn_net *n = make_net(&small_cfg, 11);
  set_prec(n, NN_PRECISION_FP32);
  const int b[2] = {17, 1}; /* the largest first: buffers sized by the largest, wherever it is */
  char err[256];
  nn_auto_report r, again;
  nn_auto_set_observer(observe, NULL);
  told = 0;
  ck_assert_msg(nn_auto_choose(n, b, 2, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(told, 1);
  ck_assert_int_eq(r.forced, 0);
  ck_assert_int_eq(r.cached, 0);
  ck_assert(r.choice == NN_PRECISION_FP32 || r.choice == NN_PRECISION_INT8 ||
            (r.choice == NN_PRECISION_BF16 && nn_bf16_supported()));
  for (int k = 0; k < 2; k++) {
    ck_assert(r.us[k][0] > 0 && r.us[k][2] > 0);
    ck_assert_int_eq(r.us[k][1] > 0, nn_bf16_supported());
  }
  ck_assert_int_eq(r.int8_kernel, nn_int8_kernel_in_use());
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
  ck_assert_msg(nn_auto_choose(n, b, 2, NULL, NULL, &again, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(again.cached, 1);
  ck_assert_int_eq(again.choice, r.choice);
  ck_assert_int_eq(told, 1);
  char line[600];
  nn_auto_describe(&r, line, sizeof line);
  ck_assert_msg(strstr(line, "measured batch 17:") && strstr(line, "batch 1:") &&
                    strstr(line, nn_precision_name(r.choice)),
                "%s", line);
  nn_auto_set_observer(NULL, NULL);
  nn_free(n);
}
END_TEST

/* The description in a buffer of every size: the full line cut to the
 * buffer (snprintf's contract), nothing written past it. */
START_TEST(auto_description_fits_any_buffer) {
  nn_auto_report r;
  memset(&r, 0, sizeof r);
  r.choice = NN_PRECISION_INT8;
  r.n_batches = 3;
  const int batch[3] = {1, 16, 256};
  const double us[3][3] = {{3.25, 0, 2.5}, {41.5, 38.25, 17.75}, {905, 702, 388}};
  memcpy(r.batch, batch, sizeof batch);
  memcpy(r.us, us, sizeof us);
  r.seconds = 0.048;
  char full[600], buf[700];
  nn_auto_describe(&r, full, sizeof full);
  ck_assert_msg(strstr(full, "batch 1: fp32 3.25 us int8 2.50 us; batch 16:") &&
                    strstr(full, "batch 256: fp32 905 us bf16 702 us int8 388 us (48 ms)"),
                "%s", full);
  size_t n = strlen(full);
  for (size_t len = 1; len <= n + 1; len++) {
    memset(buf, '#', sizeof buf);
    nn_auto_describe(&r, buf, len);
    ck_assert_uint_eq(strlen(buf), len - 1);
    ck_assert_int_eq(memcmp(buf, full, len - 1), 0);
    for (size_t i = len; i < sizeof buf; i++)
      ck_assert_msg(buf[i] == '#', "a buffer of %zu bytes written at %zu", len, i);
  }
}
END_TEST

static Suite *nn_auto_suite(void) {
  Suite *s = suite_create("nn_auto");
  add_tests(s, "auto", 60,
            (const TTest *[]){
                auto_takes_the_path_measured_fastest, auto_samples_a_slow_forward_fewer_times,
                auto_on_a_cpu_without_bf16_never_times_it,
                auto_over_two_batches_takes_the_smallest_worst_case, auto_forced_by_the_environment,
                auto_on_the_real_clock, auto_description_fits_any_buffer, NULL});
  return s;
}

TEST_MAIN(nn_auto_suite)

/* Helpers shared by the network suites (test_nn.c, test_nn_file.c): random
 * batches of inputs and targets, nets, workspaces and trainers that must be
 * made, a small configuration and its metadata. */
#ifndef SOWZERO_TESTS_NNTEST_H
#define SOWZERO_TESTS_NNTEST_H

#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "nn/nn.h"
#include "tests/testutil.h"

typedef struct {
  int batch, n_in, A;
  float *x, *tp, *tv, *ts;
  uint32_t *legal;
} data;

/* Random inputs in [-1, 1) with some exact zeros, random legal masks
 * (row 1 of a masked batch of 3 or more has no legal action, row 2 one),
 * target distributions that also put mass on illegal actions, decisive
 * and drawn values, and score targets either side of the Huber kink. */
static inline data make_data(int batch, int n_in, int A, int masked, uint64_t seed) {
  data d = {batch, n_in, A, NULL, NULL, NULL, NULL, NULL};
  rng_t r;
  rng_seed(&r, seed, 7);
  d.x = malloc(sizeof(float) * batch * n_in);
  d.tp = malloc(sizeof(float) * batch * A);
  d.tv = malloc(sizeof(float) * batch);
  d.ts = malloc(sizeof(float) * batch);
  d.legal = malloc(sizeof(uint32_t) * batch);
  for (int i = 0; i < batch * n_in; i++)
    d.x[i] = rng_below(&r, 5) == 0 ? 0.0f : (float)(2 * rng_double(&r) - 1);
  uint32_t full = A >= 32 ? 0xffffffffu : (1u << A) - 1;
  for (int b = 0; b < batch; b++) {
    d.legal[b] = masked ? (uint32_t)rng_u64(&r) & full : full;
    if (masked && d.legal[b] == 0) d.legal[b] = 1;
    if (masked && batch >= 3 && b == 1) d.legal[b] = 0;
    if (masked && batch >= 3 && b == 2) d.legal[b] = 1u << (A - 1);
    double s = 0;
    for (int a = 0; a < A; a++) s += d.tp[b * A + a] = (float)rng_double(&r);
    for (int a = 0; a < A; a++) d.tp[b * A + a] = (float)(d.tp[b * A + a] / s);
    d.tv[b] = b % 3 == 0 ? 0.0f : (float)(2 * rng_double(&r) - 1);
    d.ts[b] = (float)(3 * rng_normal(&r));
  }
  return d;
}

static inline void free_data(data *d) {
  free(d->x);
  free(d->tp);
  free(d->tv);
  free(d->ts);
  free(d->legal);
}

static inline nn_net *make_net(const nn_config *c, uint64_t seed) {
  char err[256];
  nn_net *n = nn_create(c, seed, err, sizeof err);
  ck_assert_msg(n != NULL, "%s", err);
  return n;
}

/* nn_create zeroes the biases, which would hide a bias the forward or
 * backward pass forgot; tests that compare computations set them. */
static inline void random_biases(nn_net *n, uint64_t seed) {
  rng_t r;
  rng_seed(&r, seed, 3);
  for (int i = 0; i < nn_tensor_count(n); i++) {
    const nn_tensor *t = nn_tensor_at(n, i);
    if (t->rows == 1)
      for (int j = 0; j < t->cols; j++)
        nn_params_mut(n)[t->offset + j] = (float)(0.2 * rng_normal(&r));
  }
}

static inline nn_ws *make_ws(const nn_net *n, int b) {
  char err[256];
  nn_ws *ws = nn_ws_create(n, b, err, sizeof err);
  ck_assert_msg(ws != NULL, "%s", err);
  return ws;
}

static inline nn_trainer *make_trainer(const nn_net *n, const nn_train_params *p) {
  char err[256];
  nn_trainer *t = nn_trainer_create(n, p, err, sizeof err);
  ck_assert_msg(t != NULL, "%s", err);
  return t;
}

/* |a - b| <= rel * max(|b|, 1): relative for large values, absolute near
 * zero (probabilities and values live in [-1, 1]). */
static inline int close_to(double a, double b, double rel) {
  return fabs(a - b) <= rel * fmax(fabs(b), 1.0);
}

static const nn_config small_cfg = {.n_in = 20, .hidden = 48, .blocks = 2, .n_actions = 7};

/* Several threads share one net (small_cfg's shape), each with its own
 * workspace: every thread's batch of 64 equals the calling thread's, bit
 * for bit (nn_forward only reads the net). */
typedef struct {
  const nn_net *n;
  const data *d;
  float out[64 * 7];
} share_arg;

static inline void *share_run(void *p) {
  share_arg *a = p;
  nn_ws *ws = make_ws(a->n, 64);
  for (int r = 0; r < 20; r++) nn_forward(a->n, ws, a->d->x, a->d->legal, 64, a->out, NULL, NULL);
  nn_ws_free(ws);
  return NULL;
}

static inline void check_threads_share(const nn_net *n) {
  data d = make_data(64, 20, 7, 1, 9);
  share_arg args[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++) {
    args[i].n = n;
    args[i].d = &d;
    ck_assert_int_eq(pthread_create(&th[i], NULL, share_run, &args[i]), 0);
  }
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  nn_ws *ws = make_ws(n, 64);
  float ref[64 * 7];
  nn_forward(n, ws, d.x, d.legal, 64, ref, NULL, NULL);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(memcmp(ref, args[i].out, sizeof ref), 0);
  nn_ws_free(ws);
  free_data(&d);
}

static inline nn_meta test_meta(void) {
  nn_meta m;
  memset(&m, 0, sizeof m);
  strcpy(m.game, "oware");
  strcpy(m.rules, "grand_slam=no_capture");
  m.encoding = 3;
  return m;
}

/* An untrained net for game g: hidden units in one block, weights from seed. */
static inline nn_net *game_net(const game *g, int hidden, uint64_t seed) {
  nn_config c = {g->n_features, hidden, 1, g->n_actions};
  return make_net(&c, seed);
}

/* ---- A packed precision against fp32 (test_nn_bf16.c, test_nn_int8.c) ---- */

typedef struct {
  double policy, value, score;
} diffs;

static inline void set_prec(nn_net *n, nn_precision p) {
  char err[256];
  ck_assert_msg(nn_set_precision(n, p, err, sizeof err) == 0, "%s", err);
}

/* Forward of d through n in fp32 and in prec (same ws); the largest
 * differences, with prec's rows checked as distributions. Leaves n in prec. */
static inline diffs prec_vs_fp32(nn_net *n, nn_ws *ws, const data *d, int batch,
                                 const uint32_t *legal, nn_precision prec) {
  const int A = nn_config_of(n).n_actions;
  float *p[2], *v[2], *s[2];
  for (int k = 0; k < 2; k++) {
    p[k] = malloc(sizeof(float) * batch * A);
    v[k] = malloc(sizeof(float) * batch);
    s[k] = malloc(sizeof(float) * batch);
    set_prec(n, k ? prec : NN_PRECISION_FP32);
    ck_assert_int_eq(nn_precision_of(n), k ? prec : NN_PRECISION_FP32);
    ck_assert_int_eq(nn_forward(n, ws, d->x, legal, batch, p[k], v[k], s[k]), 0);
  }
  diffs r = {0, 0, 0};
  for (int b = 0; b < batch; b++) {
    double sum = 0;
    for (int a = 0; a < A; a++) {
      double q = p[1][b * A + a];
      r.policy = fmax(r.policy, fabs(q - p[0][b * A + a]));
      if (legal && !(legal[b] >> a & 1)) CHECK(q == 0.0, "illegal action %d has %g", a, q);
      sum += q;
    }
    int none = legal && (legal[b] & ((A >= 32 ? 0xffffffffu : (1u << A) - 1u))) == 0;
    CHECK(fabs(sum - (none ? 0.0 : 1.0)) < 1e-5, "row %d sums to %g", b, sum);
    CHECK(v[1][b] > -1 && v[1][b] < 1, "value %g", v[1][b]);
    r.value = fmax(r.value, fabs(v[1][b] - v[0][b]));
    r.score = fmax(r.score, fabs(s[1][b] - s[0][b]) / fmax(fabs(s[0][b]), 1.0));
  }
  for (int k = 0; k < 2; k++) free(p[k]), free(v[k]), free(s[k]);
  return r;
}

static inline void check_diffs(diffs r, diffs tol, const char *what, int batch) {
  ck_assert_msg(r.policy <= tol.policy, "%s batch %d: policy differs by %g", what, batch, r.policy);
  ck_assert_msg(r.value <= tol.value, "%s batch %d: value differs by %g", what, batch, r.value);
  ck_assert_msg(r.score <= tol.score, "%s batch %d: score differs by %g", what, batch, r.score);
}

/* A net trained 200 steps (scaled) in precision p: its packed copy goes
 * stale (fp32 until converted again), and once converted it matches fp32
 * within tol on positions it trained on and on unseen ones, at batch sizes
 * across the kernels' tiles. sgemm_small: fp32's small batches by sgemm. */
static inline void check_trained_vs_fp32(nn_precision p, diffs tol, int sgemm_small) {
  nn_config c = nn_config_default();
  nn_net *n = make_net(&c, 3);
  nn_ws *ws = make_ws(n, 256);
  nn_train_params tp = nn_train_defaults();
  nn_trainer *t = make_trainer(n, &tp);
  data d = make_data(256, c.n_in, c.n_actions, 1, 5);
  set_prec(n, p);
  int steps = (int)(200 * test_scale());
  for (int k = 0; k < steps; k++)
    ck_assert_int_eq(
        nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 64 + k % 3 * 64, 1e-3f, NULL), 0);
  ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_FP32);
  data e = make_data(256, c.n_in, c.n_actions, 1, 6); /* positions it did not train on */
  const int more[] = {1, 5, 31, 33, 129, 256};
  for (int i = 0; i < 6; i++) {
    if (sgemm_small) nn_ws_set_small_path(ws, NN_SMALL_SGEMM);
    check_diffs(prec_vs_fp32(n, ws, &d, more[i], d.legal, p), tol, "trained", more[i]);
    check_diffs(prec_vs_fp32(n, ws, &e, more[i], e.legal, p), tol, "trained, unseen", more[i]);
  }
  free_data(&d);
  free_data(&e);
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
}

#endif

/* The network core (nn/nn.c): BLAS forward against the naive one, gradients
 * against finite differences, AdamW against a hand computation, learning,
 * determinism, and no allocation on the hot path. Weight files and
 * checkpoints are test_nn_file.c's. */
#include <cblas.h>
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/cpu.h"
#include "nn/blas_portable.h"
#include "nn/nn.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

/* ---- Counting allocations ---------------------------------------------------
 * Under a sanitizer its allocator hooks count; otherwise this program's own
 * malloc family (which the dynamic linker prefers over libc's for every
 * library, OpenBLAS included) counts and forwards to glibc. */
static volatile long n_allocs;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* Declared by hand: GCC 12 ships the runtime but not this header. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
static void count_hook(const volatile void *p, size_t sz) {
  (void)p;
  (void)sz;
  n_allocs++;
}
static void nofree_hook(const volatile void *p) { (void)p; }
static void alloc_counting_on(void) {
  __sanitizer_install_malloc_and_free_hooks(count_hook, nofree_hook);
}
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) {
  n_allocs++;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t s) {
  n_allocs++;
  return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n) {
  n_allocs++;
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  n_allocs++;
  return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n) {
  n_allocs++;
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12; /* ENOMEM */
}
void free(void *p) { __libc_free(p); }
static void alloc_counting_on(void) {}
#endif

/* ---- Forward ---------------------------------------------------------------- */
static void compare_forward(const nn_config *c, int batch, int masked, nn_small_path path) {
  nn_net *n = make_net(c, 11);
  random_biases(n, 11);
  nn_ws *ws = make_ws(n, batch);
  nn_ws_set_small_path(ws, path);
  data d = make_data(batch, c->n_in, c->n_actions, masked, 100 + batch);
  int A = c->n_actions;
  float *p1 = malloc(sizeof(float) * batch * A), *p2 = malloc(sizeof(float) * batch * A);
  float *v1 = malloc(sizeof(float) * batch), *v2 = malloc(sizeof(float) * batch);
  float *s1 = malloc(sizeof(float) * batch), *s2 = malloc(sizeof(float) * batch);
  int O = A + 2;
  float *z1 = malloc(sizeof(float) * batch * O);
  ck_assert_int_eq(nn_forward(n, ws, d.x, masked ? d.legal : NULL, batch, p1, v1, s1), 0);
  memcpy(z1, nn_ws_logits(ws), sizeof(float) * batch * O);
  ck_assert_int_eq(nn_forward_naive(n, ws, d.x, masked ? d.legal : NULL, batch, p2, v2, s2), 0);
  const float *z2 = nn_ws_logits(ws);
  for (int i = 0; i < batch * O; i++)
    CHECK(close_to(z1[i], z2[i], 1e-5), "logit %d: %g vs naive %g", i, z1[i], z2[i]);
  for (int b = 0; b < batch; b++) /* the raw outputs behind value and score */
    CHECK(close_to(v2[b], tanh(z2[b * O + A]), 1e-6) && s2[b] == z2[b * O + A + 1], "row %d", b);
  free(z1);
  for (int b = 0; b < batch; b++) {
    double sum = 0;
    for (int a = 0; a < A; a++) {
      float p = p1[b * A + a];
      CHECK(close_to(p, p2[b * A + a], 1e-5), "batch %d row %d action %d: %g vs naive %g", batch, b,
            a, p, p2[b * A + a]);
      if (masked && !(d.legal[b] >> a & 1)) CHECK(p == 0.0f, "illegal action has %g", p);
      sum += p;
    }
    int none = masked && d.legal[b] == 0;
    CHECK(fabs(sum - (none ? 0.0 : 1.0)) < 1e-5, "row %d sums to %g", b, sum);
    CHECK(close_to(v1[b], v2[b], 1e-5), "value %g vs naive %g", v1[b], v2[b]);
    CHECK(close_to(s1[b], s2[b], 1e-5), "score %g vs naive %g", s1[b], s2[b]);
    CHECK(v1[b] > -1 && v1[b] < 1, "value %g", v1[b]);
  }
  free(p1), free(p2), free(v1), free(v2), free(s1), free(s2);
  free_data(&d);
  nn_ws_free(ws);
  nn_free(n);
}

START_TEST(forward_matches_naive) {
  const int batches[] = {1, 2, 3, 8, 17, 64, 200};
  nn_config def = nn_config_default();
  for (int i = 0; i < 7; i++) {
    compare_forward(&small_cfg, batches[i], 1, NN_SMALL_AUTO);
    compare_forward(&small_cfg, batches[i], 0, NN_SMALL_AUTO);
    compare_forward(&def, batches[i], 1, NN_SMALL_AUTO);
  }
  nn_config odd = {.n_in = 13, .hidden = 37, .blocks = 3, .n_actions = 32};
  compare_forward(&odd, 5, 1, NN_SMALL_AUTO);
  compare_forward(&odd, 1, 1, NN_SMALL_AUTO);
  nn_config flat = {.n_in = 9, .hidden = 16, .blocks = 0, .n_actions = 1};
  compare_forward(&flat, 4, 0, NN_SMALL_AUTO);
  compare_forward(&flat, 1, 0, NN_SMALL_AUTO);
}
END_TEST

START_TEST(batch_one_paths_match_naive) {
  nn_config def = nn_config_default();
  const nn_small_path paths[] = {NN_SMALL_AUTO, NN_SMALL_SGEMM, NN_SMALL_SGEMV, NN_SMALL_LOOP};
  for (int i = 0; i < 4; i++) {
    compare_forward(&def, 1, 1, paths[i]);
    compare_forward(&small_cfg, 1, 0, paths[i]);
    nn_config odd = {.n_in = 13, .hidden = 37, .blocks = 3, .n_actions = 32};
    compare_forward(&odd, 1, 1, paths[i]);
  }
}
END_TEST

START_TEST(forward_rejects_misuse) {
  nn_net *n = make_net(&small_cfg, 1);
  nn_ws *ws = make_ws(n, 4);
  float x[5 * 20] = {0}, p[5 * 7], v[5];
  ck_assert_int_eq(nn_forward(n, ws, x, NULL, 5, p, v, NULL), -1);
  ck_assert_int_eq(nn_forward(n, ws, x, NULL, 0, p, v, NULL), -1);
  ck_assert_int_eq(nn_forward(n, ws, x, NULL, 4, p, v, NULL), 0);
  ck_assert_int_eq(nn_forward(n, ws, x, NULL, 4, NULL, NULL, NULL), 0);
  nn_config other = small_cfg;
  other.hidden = 40;
  nn_net *m = make_net(&other, 1);
  ck_assert_int_eq(nn_forward(m, ws, x, NULL, 1, p, v, NULL), -1);
  ck_assert_int_eq(nn_copy(n, m), -1);
  char err[256];
  nn_config bad = {.n_in = 4, .hidden = 8, .blocks = 1, .n_actions = 33};
  ck_assert_ptr_null(nn_create(&bad, 1, err, sizeof err));
  ck_assert_str_eq(err, "network actions 33 out of range 1..32");
  bad.n_actions = 4;
  bad.hidden = 0;
  ck_assert_ptr_null(nn_create(&bad, 1, err, sizeof err));
  ck_assert_str_eq(err, "network hidden width 0 out of range 1..4096");
  ck_assert_ptr_null(nn_ws_create(n, 0, err, sizeof err));
  ck_assert_str_eq(err, "workspace batch 0 out of range 1..1048576");
  nn_free(m);
  nn_ws_free(ws);
  nn_free(n);
}
END_TEST

START_TEST(layout_is_one_contiguous_table) {
  nn_config c = nn_config_default();
  nn_net *n = make_net(&c, 3);
  ck_assert_int_eq(nn_tensor_count(n), 4 * 2 + 4);
  size_t off = 0;
  for (int i = 0; i < nn_tensor_count(n); i++) {
    const nn_tensor *t = nn_tensor_at(n, i);
    ck_assert_uint_eq(t->offset, off);
    ck_assert_int_eq(t->decay, t->rows > 1);
    off += (size_t)t->rows * t->cols;
  }
  ck_assert_uint_eq(off, nn_param_count(n));
  ck_assert_uint_eq(off, 64 * 256 + 256 + 2 * 2 * (256 * 256 + 256) + 256 * 8 + 8);
  /* Every tensor named and shaped as files and exports name them. */
  for (int i = 0; i < nn_tensor_count(n); i++) {
    const nn_tensor *t = nn_tensor_at(n, i);
    char want[24];
    int rows = 256, cols = 256, k = (i - 2) / 4;
    if (i < 2)
      snprintf(want, sizeof want, "in.%c", "wb"[i]), rows = i ? 1 : 64;
    else if (k < c.blocks)
      snprintf(want, sizeof want, "block%d.fc%d.%c", k, 1 + (i - 2) % 4 / 2, "wb"[i % 2]);
    else
      snprintf(want, sizeof want, "head.%c", "wb"[i % 2]), cols = 8;
    if (i % 2) rows = 1;
    ck_assert_str_eq(t->name, want);
    ck_assert_int_eq(t->rows, rows);
    ck_assert_int_eq(t->cols, cols);
  }
  ck_assert_ptr_null(nn_tensor_at(n, 12));
  ck_assert_double_eq(nn_flops_per_position(&c), 2.0 * (64 * 256 + 4 * 256 * 256 + 256 * 8));
  nn_free(n);
}
END_TEST

/* Several threads share one net, each with its own workspace. */
START_TEST(threads_share_a_net) {
  nn_net *n = make_net(&small_cfg, 5);
  check_threads_share(n);
  nn_free(n);
}
END_TEST

/* ---- Gradients ----------------------------------------------------------------
 * The analytic gradient (float, BLAS) against central differences of the
 * double-precision naive loss, on a few entries of every tensor. */
static void grad_check(const nn_config *c, int batch, int masked, nn_loss_weights w, int with_score,
                       uint64_t seed) {
  nn_net *n = make_net(c, seed);
  random_biases(n, seed);
  nn_ws *ws = make_ws(n, batch);
  nn_train_params tp = nn_train_defaults();
  tp.w = w;
  nn_trainer *t = make_trainer(n, &tp);
  data d = make_data(batch, c->n_in, c->n_actions, masked, seed * 31 + batch);
  const uint32_t *legal = masked ? d.legal : NULL;
  const float *ts = with_score ? d.ts : NULL;
  /* Larger head weights than the initialisation, so that every loss term
   * pushes a sizeable gradient into the trunk. */
  float *P = nn_params_mut(n);
  const nn_tensor *head = nn_tensor_at(n, nn_tensor_count(n) - 2);
  for (int i = 0; i < head->rows * head->cols; i++) P[head->offset + i] *= 3.0f;

  nn_losses L, Ln;
  ck_assert_int_eq(nn_loss_grad(n, t, ws, d.x, legal, d.tp, d.tv, ts, batch, &L), 0);
  ck_assert_int_eq(nn_loss_naive(n, ws, &w, d.x, legal, d.tp, d.tv, ts, batch, &Ln), 0);
  ck_assert_msg(close_to(L.total, Ln.total, 1e-5), "loss %g vs naive %g", L.total, Ln.total);
  ck_assert_msg(close_to(L.policy, Ln.policy, 1e-5), "policy %g vs %g", L.policy, Ln.policy);
  ck_assert_msg(close_to(L.value, Ln.value, 1e-5), "value %g vs %g", L.value, Ln.value);
  ck_assert_msg(close_to(L.score, Ln.score, 1e-5), "score %g vs %g", L.score, Ln.score);
  ck_assert_msg(close_to(L.entropy, Ln.entropy, 1e-5), "entropy %g vs %g", L.entropy, Ln.entropy);
  ck_assert_double_eq(L.value_sign_acc, Ln.value_sign_acc);

  size_t np = nn_param_count(n);
  float *g = malloc(sizeof(float) * np);
  memcpy(g, nn_trainer_grad(t), sizeof(float) * np);
  double sq = 0;
  for (size_t i = 0; i < np; i++) sq += (double)g[i] * g[i];
  ck_assert_msg(fabs(sqrt(sq) - L.grad_norm) <= 1e-6 * sqrt(sq), "grad norm");

  rng_t r;
  rng_seed(&r, seed, 99);
  int checked = 0, nonzero = 0, kinks = 0;
  for (int ti = 0; ti < nn_tensor_count(n); ti++) {
    const nn_tensor *tn = nn_tensor_at(n, ti);
    int cnt = tn->rows * tn->cols;
    for (int k = 0; k < 6; k++) {
      size_t i = tn->offset + (k == 0   ? 0
                               : k == 1 ? (size_t)cnt - 1
                                        : rng_below(&r, (uint32_t)cnt));
      float orig = P[i];
      /* The loss is in double, so a tiny step costs no precision and
       * rarely straddles a ReLU kink. */
      const float h = 1e-6f;
      nn_losses lp, lm;
      P[i] = orig + h;
      float up = P[i];
      nn_loss_naive(n, ws, &w, d.x, legal, d.tp, d.tv, ts, batch, &lp);
      P[i] = orig - h;
      float down = P[i];
      nn_loss_naive(n, ws, &w, d.x, legal, d.tp, d.tv, ts, batch, &lm);
      P[i] = orig;
      double fd = (lp.total - lm.total) / ((double)up - (double)down);
      double an = g[i];
      double tol = 1e-4 * fmax(fabs(fd), fabs(an)) + 1e-6;
      if (fabs(fd - an) > tol) {
        /* A kink inside [p - h, p + h] makes the two one-sided slopes
         * differ; the analytic gradient must then be one of them. */
        double right = (lp.total - Ln.total) / ((double)up - orig);
        double left = (Ln.total - lm.total) / (orig - (double)down);
        int ok = fabs(right - left) > 10 * tol &&
                 (fabs(right - an) <= 10 * tol || fabs(left - an) <= 10 * tol);
        CHECK(ok,
              "%s[%zu] (batch %d, masked %d, weights %g/%g/%g): analytic %.9g, finite "
              "difference %.9g (one-sided %.9g, %.9g)",
              tn->name, i - tn->offset, batch, masked, w.policy, w.value, w.score, an, fd, left,
              right);
        kinks++;
      }
      checked++;
      nonzero += fabs(an) > 1e-4;
    }
  }
  ck_assert_int_le(kinks, checked / 20);
  /* A check where every gradient is zero would prove nothing. */
  ck_assert_int_ge(nonzero, checked / 4);
  free(g);
  free_data(&d);
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
}

static const nn_config grad_cfg = {.n_in = 6, .hidden = 9, .blocks = 2, .n_actions = 5},
                       flat_cfg = {.n_in = 5, .hidden = 8, .blocks = 0, .n_actions = 3},
                       wide_cfg = {.n_in = 4, .hidden = 20, .blocks = 1, .n_actions = 32};

/* grad_check's cases: the net, batch size, masked, score targets, seed. */
typedef struct {
  const nn_config *c;
  int batch, masked, with_score;
  uint64_t seed;
} grad_case;

static void grad_checks(nn_loss_weights w, const grad_case *cases, int n) {
  for (int i = 0; i < n; i++)
    grad_check(cases[i].c, cases[i].batch, cases[i].masked, w, cases[i].with_score, cases[i].seed);
}

START_TEST(grad_policy_head) {
  static const grad_case cases[] = {{&grad_cfg, 1, 1, 0, 1},
                                    {&grad_cfg, 3, 1, 0, 2},
                                    {&grad_cfg, 8, 0, 0, 3},
                                    {&grad_cfg, 8, 1, 0, 4}};
  grad_checks((nn_loss_weights){1, 0, 0}, cases, 4);
}
END_TEST

START_TEST(grad_value_head) {
  static const grad_case cases[] = {
      {&grad_cfg, 1, 0, 0, 5}, {&grad_cfg, 3, 1, 0, 6}, {&grad_cfg, 8, 0, 0, 7}};
  grad_checks((nn_loss_weights){0, 1, 0}, cases, 3);
}
END_TEST

START_TEST(grad_score_head) {
  static const grad_case cases[] = {
      {&grad_cfg, 1, 0, 1, 8}, {&grad_cfg, 3, 0, 1, 9}, {&grad_cfg, 8, 1, 1, 10}};
  grad_checks((nn_loss_weights){0, 0, 1}, cases, 3);
}
END_TEST

START_TEST(grad_all_heads_weighted) {
  static const grad_case cases[] = {{&grad_cfg, 1, 1, 1, 11}, {&grad_cfg, 3, 1, 1, 12},
                                    {&grad_cfg, 8, 1, 1, 13}, {&grad_cfg, 8, 0, 1, 14},
                                    {&grad_cfg, 3, 0, 0, 15}, /* no score targets */
                                    {&flat_cfg, 3, 1, 1, 16}, {&wide_cfg, 3, 1, 1, 17}};
  grad_checks((nn_loss_weights){1.0f, 0.7f, 0.3f}, cases, 7);
}
END_TEST

START_TEST(losses_have_their_documented_values) {
  /* A net whose head is zero: uniform policy over the legal actions, value
   * 0, score 0; the losses then follow from the targets alone. */
  nn_config c = {.n_in = 3, .hidden = 4, .blocks = 1, .n_actions = 4};
  nn_net *n = make_net(&c, 1);
  const nn_tensor *hw = nn_tensor_at(n, nn_tensor_count(n) - 2);
  memset(nn_params_mut(n) + hw->offset, 0, sizeof(float) * (hw->rows * hw->cols + 6));
  nn_ws *ws = make_ws(n, 2);
  nn_train_params p = nn_train_defaults();
  nn_trainer *t = make_trainer(n, &p);
  float x[6] = {1, 2, 3, 4, 5, 6};
  uint32_t legal[2] = {0x3, 0xf};
  float tp[8] = {0.5f, 0.25f, 0.25f, 0, /* 0.25 on an illegal action: ignored */
                 1,    0,     0,     0};
  float tv[2] = {1, 0}, ts[2] = {0.5f, -3};
  nn_losses L;
  ck_assert_int_eq(nn_loss_grad(n, t, ws, x, legal, tp, tv, ts, 2, &L), 0);
  double ce = (0.75 * log(2.0) + log(4.0)) / 2;
  ck_assert_double_eq_tol(L.policy, ce, 1e-6);
  ck_assert_double_eq_tol(L.value, 0.5, 1e-7);               /* (1 + 0) / 2 */
  ck_assert_double_eq_tol(L.score, (0.125 + 2.5) / 2, 1e-7); /* Huber */
  ck_assert_double_eq_tol(L.entropy, (log(2.0) + log(4.0)) / 2, 1e-6);
  ck_assert_double_eq_tol(L.total, ce + 0.5 + 1.3125, 1e-6);
  ck_assert_double_eq(L.value_sign_acc, 0.0); /* v = 0 never matches a sign */
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
}
END_TEST

/* ---- AdamW ---------------------------------------------------------------------- */
/* Every AdamW body the CPU runs (SSE, AVX, AVX-512: nn_kern_force) gives
 * the bits of the SSE body, and keeps its moments as the others do (a run
 * resumed on another CPU goes on alike): three training steps with weight
 * decay, the body, then SSE, then the body again, on a net of 149
 * parameters (a tail past every vector width), against three on SSE. */
START_TEST(adam_bodies_agree_bit_for_bit) {
  cpu_info ci;
  cpu_detect(&ci);
  const int top = cpu_level(ci.features);
  nn_config c = {.n_in = 4, .hidden = 6, .blocks = 1, .n_actions = 3};
  static const int levels[] = {CPU_LEVEL_SSE, CPU_LEVEL_AVX, CPU_LEVEL_AVX512};
  float *ref = NULL;
  size_t np = 0;
  for (int li = 0; li < 3; li++) {
    if (levels[li] > top) continue;
    nn_net *n = make_net(&c, 21);
    random_biases(n, 21);
    nn_ws *ws = make_ws(n, 5);
    nn_train_params p = nn_train_defaults();
    p.weight_decay = 0.05f;
    nn_trainer *t = make_trainer(n, &p);
    data d = make_data(5, 4, 3, 1, 77);
    for (int step = 0; step < 3; step++) {
      nn_kern_force(step == 1 ? CPU_LEVEL_SSE : levels[li]);
      ck_assert_int_eq(nn_kern_level(), step == 1 ? CPU_LEVEL_SSE : levels[li]);
      ck_assert_int_eq(nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 5, 0.01f, NULL), 0);
    }
    np = nn_param_count(n);
    ck_assert_uint_eq(np, 149);
    if (!ref) {
      ref = malloc(np * sizeof *ref);
      memcpy(ref, nn_params(n), np * sizeof *ref);
    } else {
      ck_assert_msg(memcmp(ref, nn_params(n), np * sizeof *ref) == 0, "level %d: other bits",
                    levels[li]);
    }
    free_data(&d);
    nn_trainer_free(t);
    nn_ws_free(ws);
    nn_free(n);
  }
  nn_kern_force(-1);
  ck_assert_int_eq(nn_kern_level(), top);
  free(ref);
}
END_TEST

/* The passes around the products (bias and ReLU, their gradients, the
 * batch-1 loop, the gradient's norm) give the same bits on every body the
 * CPU runs (nn_kern_force): a net wide enough for the vector loops and
 * their tails (85 = 64 + 16 + 5), its outputs at batch 1 and 5 and a
 * gradient, against the build's own body. */
START_TEST(pass_bodies_agree_bit_for_bit) {
  enum { B = 5, NI = 20, H = 85, A = 7 };
  cpu_info ci;
  cpu_detect(&ci);
  const int top = cpu_level(ci.features);
  nn_config c = {.n_in = NI, .hidden = H, .blocks = 1, .n_actions = A};
  nn_net *n = make_net(&c, 23);
  random_biases(n, 23);
  nn_ws *ws = make_ws(n, B);
  nn_train_params p = nn_train_defaults();
  nn_trainer *t = make_trainer(n, &p);
  data d = make_data(B, NI, A, 1, 78);
  const size_t np = nn_param_count(n), nout = (size_t)2 * B * (A + 2);
  float *ref = malloc((np + nout) * sizeof *ref), *got = malloc((np + nout) * sizeof *got);
  double ref_norm = 0;
  static const int levels[] = {CPU_LEVEL_SSE, CPU_LEVEL_AVX2, CPU_LEVEL_AVX512};
  for (int li = 0; li < 3; li++) {
    if (levels[li] > top) continue;
    nn_kern_force(levels[li]);
    float *o = got;
    for (int b = 0; b < B; b++, o += A + 2)
      ck_assert_int_eq(nn_forward(n, ws, d.x + b * NI, d.legal + b, 1, o, o + A, o + A + 1), 0);
    ck_assert_int_eq(nn_forward(n, ws, d.x, d.legal, B, o, o + B * A, o + B * (A + 1)), 0);
    nn_losses l;
    ck_assert_int_eq(nn_loss_grad(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, &l), 0);
    memcpy(got + nout, nn_trainer_grad(t), np * sizeof *got);
    if (li == 0) {
      memcpy(ref, got, (np + nout) * sizeof *ref);
      ref_norm = l.grad_norm;
      continue;
    }
    ck_assert_msg(l.grad_norm == ref_norm, "level %d: gradient norm %.17g, not %.17g", levels[li],
                  l.grad_norm, ref_norm);
    for (size_t k = 0; k < np + nout; k++)
      ck_assert_msg(memcmp(&ref[k], &got[k], sizeof *ref) == 0,
                    "level %d, value %zu: %.9g, not %.9g", levels[li], k, got[k], ref[k]);
  }
  nn_kern_force(-1);
  free(ref);
  free(got);
  free_data(&d);
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
}
END_TEST

START_TEST(adamw_matches_hand_computation) {
  nn_config c = {.n_in = 4, .hidden = 6, .blocks = 1, .n_actions = 3};
  for (int clip = 0; clip < 2; clip++) {
    nn_net *n = make_net(&c, 21);
    random_biases(n, 21);
    nn_ws *ws = make_ws(n, 5);
    nn_train_params p = nn_train_defaults();
    p.weight_decay = 0.05f;
    p.clip_norm = clip ? 0.01f : 0.0f;
    nn_trainer *t = make_trainer(n, &p);
    data d = make_data(5, 4, 3, 1, 77);
    size_t np = nn_param_count(n);
    double *m = calloc(np, sizeof(double)), *v = calloc(np, sizeof(double));
    double *ref = malloc(np * sizeof(double));
    const float lr = 0.01f;
    for (int step = 1; step <= 3; step++) {
      const float *P = nn_params(n);
      for (size_t i = 0; i < np; i++) ref[i] = P[i];
      /* The gradient the step will use, from the same state. */
      nn_losses L;
      ck_assert_int_eq(nn_loss_grad(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 5, &L), 0);
      const float *g = nn_trainer_grad(t);
      double scale = clip && L.grad_norm > p.clip_norm ? p.clip_norm / L.grad_norm : 1.0;
      if (clip) ck_assert(scale < 1.0);
      for (int ti = 0; ti < nn_tensor_count(n); ti++) {
        const nn_tensor *tn = nn_tensor_at(n, ti);
        for (size_t i = tn->offset; i < tn->offset + (size_t)tn->rows * tn->cols; i++) {
          double gi = g[i] * scale;
          m[i] = 0.9 * m[i] + 0.1 * gi;
          v[i] = 0.999 * v[i] + 0.001 * gi * gi;
          double mh = m[i] / (1 - pow(0.9, step)), vh = v[i] / (1 - pow(0.999, step));
          ref[i] = ref[i] * (1 - (tn->decay ? lr * 0.05 : 0)) - lr * mh / (sqrt(vh) + 1e-8);
        }
      }
      ck_assert_int_eq(nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 5, lr, NULL), 0);
      P = nn_params(n);
      for (size_t i = 0; i < np; i++)
        CHECK(fabs(P[i] - ref[i]) <= 1e-6 * fmax(1.0, fabs(ref[i])),
              "clip %d step %d param %zu: %.9g, expected %.9g", clip, step, i, P[i], ref[i]);
    }
    ck_assert_uint_eq(nn_trainer_steps(t), 3);
    free(m), free(v), free(ref);
    free_data(&d);
    nn_trainer_free(t);
    nn_ws_free(ws);
    nn_free(n);
  }
}
END_TEST

START_TEST(trainer_rejects_bad_settings) {
  nn_net *n = make_net(&small_cfg, 1);
  nn_train_params p = nn_train_defaults();
  p.beta2 = 1.0f;
  char err[256];
  ck_assert_ptr_null(nn_trainer_create(n, &p, err, sizeof err));
  ck_assert_str_eq(err,
                   "bad optimiser settings (need 0 <= beta < 1, eps > 0, weight decay >= "
                   "0, clip >= 0)");
  nn_free(n);
}
END_TEST

/* ---- Learning and determinism --------------------------------------------------- */
/* A fixed synthetic task: the targets come from a random teacher (a linear
 * map through softmax, tanh and a linear score), which a small net can fit.
 * Returns the final loss over the whole set minus the targets' own policy
 * entropy (the least cross-entropy possible), so 0 is a perfect fit. */
static double learn(int steps, double *initial, float *params_out, size_t cap) {
  enum { N = 512, NI = 12, A = 6, B = 64 };
  nn_config c = {.n_in = NI, .hidden = 64, .blocks = 1, .n_actions = A};
  nn_net *n = make_net(&c, 2024);
  nn_ws *ws = make_ws(n, N);
  nn_train_params p = nn_train_defaults();
  nn_trainer *t = make_trainer(n, &p);
  static float x[N * NI], tp[N * A], tv[N], ts[N];
  static uint32_t legal[N];
  rng_t r;
  rng_seed(&r, 4242, 0);
  double wp[NI][A], wv[NI], wsc[NI];
  for (int i = 0; i < NI; i++) {
    for (int a = 0; a < A; a++) wp[i][a] = rng_normal(&r);
    wv[i] = rng_normal(&r) * 0.5;
    wsc[i] = rng_normal(&r);
  }
  double target_entropy = 0;
  for (int s = 0; s < N; s++) {
    double z[A], v = 0, sc = 0, mx = -1e9, sum = 0;
    for (int i = 0; i < NI; i++) x[s * NI + i] = (float)rng_double(&r);
    legal[s] = (uint32_t)rng_below(&r, 63) + 1;
    for (int a = 0; a < A; a++) {
      z[a] = 0;
      for (int i = 0; i < NI; i++) z[a] += x[s * NI + i] * wp[i][a];
      if ((legal[s] >> a & 1) && z[a] > mx) mx = z[a];
    }
    for (int a = 0; a < A; a++) sum += (legal[s] >> a & 1) ? exp(z[a] - mx) : 0;
    for (int a = 0; a < A; a++) {
      double q = (legal[s] >> a & 1) ? exp(z[a] - mx) / sum : 0;
      tp[s * A + a] = (float)q;
      if (q > 0) target_entropy -= q * log(q) / N;
    }
    for (int i = 0; i < NI; i++) v += x[s * NI + i] * wv[i], sc += x[s * NI + i] * wsc[i];
    tv[s] = (float)tanh(v);
    ts[s] = (float)sc;
  }
  nn_losses L;
  nn_loss_naive(n, ws, &p.w, x, legal, tp, tv, ts, N, &L);
  if (initial) *initial = L.total - target_entropy;
  for (int k = 0; k < steps; k++) {
    int off = (k * B) % N;
    nn_train_step(n, t, ws, x + off * NI, legal + off, tp + off * A, tv + off, ts + off, B, 3e-3f,
                  NULL);
  }
  nn_loss_naive(n, ws, &p.w, x, legal, tp, tv, ts, N, &L);
  if (params_out) {
    ck_assert_uint_le(nn_param_count(n), cap);
    memcpy(params_out, nn_params(n), sizeof(float) * nn_param_count(n));
  }
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
  return L.total - target_entropy;
}

START_TEST(learns_a_synthetic_task) {
  double initial;
  double final = learn(600, &initial, NULL, 0);
  /* Measured: 2.21 at the start, 0.0023 after 600 steps (between 0.0015
   * and 0.011 anywhere from 200 to 1200 steps). */
  ck_assert_msg(initial > 1.0, "initial excess loss %g", initial);
  ck_assert_msg(final < 0.03, "excess loss %g after 600 steps (from %g)", final, initial);
}
END_TEST

START_TEST(training_is_deterministic) {
  static float a[20000], b[20000];
  learn(40, NULL, a, 20000);
  learn(40, NULL, b, 20000);
  ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
  nn_net *n1 = make_net(&small_cfg, 8), *n2 = make_net(&small_cfg, 8),
         *n3 = make_net(&small_cfg, 9);
  size_t bytes = sizeof(float) * nn_param_count(n1);
  ck_assert_int_eq(memcmp(nn_params(n1), nn_params(n2), bytes), 0);
  ck_assert_int_ne(memcmp(nn_params(n1), nn_params(n3), bytes), 0);
  ck_assert_int_eq(nn_copy(n3, n1), 0);
  ck_assert_int_eq(memcmp(nn_params(n1), nn_params(n3), bytes), 0);
  nn_free(n1), nn_free(n2), nn_free(n3);
}
END_TEST

/* ---- No allocation on the hot path ------------------------------------------------ */
START_TEST(hot_path_does_not_allocate) {
  alloc_counting_on();
  /* The counter itself works: a test that cannot fail proves nothing. */
  void *(*volatile alloc)(size_t) = malloc;
  long before = n_allocs;
  free(alloc(32));
  ck_assert_int_eq(n_allocs - before, 1);

  nn_config c = nn_config_default();
  nn_net *n = make_net(&c, 1);
  nn_ws *ws = make_ws(n, 64);
  nn_train_params p = nn_train_defaults();
  p.clip_norm = 1.0f;
  nn_trainer *t = make_trainer(n, &p);
  data d = make_data(64, c.n_in, c.n_actions, 1, 3);
  float pol[64 * 6], val[64], sc[64];
  nn_losses L;
  /* Warm-up: BLAS may set up its buffers on first use. */
  nn_forward(n, ws, d.x, d.legal, 64, pol, val, sc);
  nn_forward(n, ws, d.x, d.legal, 1, pol, val, sc);
  nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 64, 1e-3f, &L);
  before = n_allocs;
  for (int rep = 0; rep < 3; rep++) {
    const nn_small_path paths[] = {NN_SMALL_AUTO, NN_SMALL_SGEMM, NN_SMALL_SGEMV, NN_SMALL_LOOP};
    for (int i = 0; i < 4; i++) {
      nn_ws_set_small_path(ws, paths[i]);
      nn_forward(n, ws, d.x, d.legal, 1, pol, val, sc);
    }
    nn_forward(n, ws, d.x, d.legal, 7, pol, val, NULL);
    nn_forward(n, ws, d.x, NULL, 64, pol, val, sc);
    nn_forward_naive(n, ws, d.x, d.legal, 3, pol, val, sc);
    nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 64, 1e-3f, &L);
    nn_train_step(n, t, ws, d.x, NULL, d.tp, d.tv, NULL, 17, 1e-3f, &L);
    nn_loss_grad(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 5, &L);
    nn_loss_naive(n, ws, &p.w, d.x, d.legal, d.tp, d.tv, d.ts, 5, &L);
  }
  ck_assert_int_eq(n_allocs - before, 0);
  /* bf16: the first conversion allocates the packed weights; evaluating,
   * converting again and promoting into the net (nn_copy) do not. */
  if (nn_bf16_supported()) {
    char err[256];
    ck_assert_int_eq(nn_set_precision(n, NN_PRECISION_BF16, err, sizeof err), 0);
    int bad = 0;
    before = n_allocs;
    for (int rep = 0; rep < 3; rep++) {
      nn_ws_set_small_path(ws, rep == 1 ? NN_SMALL_SGEMM : NN_SMALL_AUTO);
      nn_forward(n, ws, d.x, d.legal, 1, pol, val, sc);
      nn_forward(n, ws, d.x, d.legal, 7, pol, val, NULL);
      nn_forward(n, ws, d.x, NULL, 64, pol, val, sc);
      bad |= nn_set_precision(n, NN_PRECISION_BF16, err, sizeof err) != 0;
      bad |= nn_copy(n, n) != 0; /* (Check's asserts allocate: none in here) */
    }
    long allocs = n_allocs - before;
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(nn_precision_of(n), NN_PRECISION_BF16);
    ck_assert_int_eq(allocs, 0);
  }
  free_data(&d);
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);

  /* Odd widths take the transposed-product path around OpenBLAS's
   * allocating small kernel (see dense() in nn.c). */
  nn_config odd = {.n_in = 40, .hidden = 37, .blocks = 1, .n_actions = 5};
  n = make_net(&odd, 2);
  ws = make_ws(n, 16);
  t = make_trainer(n, &p);
  d = make_data(16, odd.n_in, odd.n_actions, 1, 4);
  nn_ws_set_small_path(ws, NN_SMALL_SGEMM);
  nn_forward(n, ws, d.x, d.legal, 1, pol, val, sc);
  nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 16, 1e-3f, &L);
  before = n_allocs;
  for (int b = 1; b <= 16; b++) {
    nn_forward(n, ws, d.x, d.legal, b, pol, val, sc);
    nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, b, 1e-3f, &L);
  }
  ck_assert_int_eq(n_allocs - before, 0);
  free_data(&d);
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
}
END_TEST

/* The portable BLAS of the WebAssembly build agrees with OpenBLAS on every
 * transpose case and on shapes around its 4 x 16 tiles, with alpha, beta
 * and leading dimensions wider than the rows. */
START_TEST(portable_blas_matches_openblas) {
  rng_t r;
  rng_seed(&r, 17, 0);
  const int dims[] = {1, 3, 4, 5, 16, 17, 33, 64};
  enum { LD_PAD = 3, MAXD = 64 + LD_PAD };
  static float A[MAXD * MAXD], B[MAXD * MAXD], C0[MAXD * MAXD], C1[MAXD * MAXD];
  for (int t = 0; t < 200; t++) {
    int M = dims[rng_below(&r, 8)], N = dims[rng_below(&r, 8)], K = dims[rng_below(&r, 8)];
    int ta = rng_below(&r, 2), tb = rng_below(&r, 2);
    int lda = (ta ? M : K) + (int)rng_below(&r, LD_PAD + 1);
    int ldb = (tb ? K : N) + (int)rng_below(&r, LD_PAD + 1);
    int ldc = N + (int)rng_below(&r, LD_PAD + 1);
    float alpha = t % 3 ? 1.0f : 0.5f, beta = (float[]){0.0f, 1.0f, -0.25f}[t % 3];
    for (int i = 0; i < MAXD * MAXD; i++) {
      A[i] = (float)rng_double(&r) - 0.5f;
      B[i] = (float)rng_double(&r) - 0.5f;
      C0[i] = C1[i] = (float)rng_double(&r) - 0.5f;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
                K, alpha, A, lda, B, ldb, beta, C0, ldc);
    nnp_sgemm(NNP_ROW_MAJOR, ta ? NNP_TRANS : NNP_NO_TRANS, tb ? NNP_TRANS : NNP_NO_TRANS, M, N, K,
              alpha, A, lda, B, ldb, beta, C1, ldc);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < ldc; j++)
        ck_assert_msg(fabsf(C0[i * ldc + j] - C1[i * ldc + j]) <= 1e-5f * (1 + K),
                      "sgemm %dx%dx%d ta=%d tb=%d: C[%d][%d] %g vs %g", M, N, K, ta, tb, i, j,
                      C0[i * ldc + j], C1[i * ldc + j]);
    /* sgemv, both transposes, on the same A (M x K as stored, lda), with
     * unit and wider strides of x and y. */
    int tv = rng_below(&r, 2), rows = ta ? K : M, cols = ta ? M : K;
    int nx = tv ? rows : cols;
    int incx = 1 + (int)rng_below(&r, 2), incy = 1 + (int)rng_below(&r, 2);
    float y0[2 * MAXD], y1[2 * MAXD];
    for (int i = 0; i < 2 * MAXD; i++) y0[i] = y1[i] = (float)i;
    cblas_sgemv(CblasRowMajor, tv ? CblasTrans : CblasNoTrans, rows, cols, alpha, A, lda, B, incx,
                beta, y0, incy);
    nnp_sgemv(NNP_ROW_MAJOR, tv ? NNP_TRANS : NNP_NO_TRANS, rows, cols, alpha, A, lda, B, incx,
              beta, y1, incy);
    for (int i = 0; i < 2 * MAXD; i++) /* the elements between y's strides too */
      ck_assert_msg(fabsf(y0[i] - y1[i]) <= 1e-5f * (1 + nx),
                    "sgemv %dx%d t=%d incx %d incy %d: y[%d] %g vs %g", rows, cols, tv, incx, incy,
                    i, y0[i], y1[i]);
  }
}
END_TEST

static Suite *nn_suite(void) {
  Suite *s = suite_create("nn");
  add_tests(s, "forward", 120,
            (const TTest *[]){forward_matches_naive, batch_one_paths_match_naive,
                              forward_rejects_misuse, layout_is_one_contiguous_table,
                              threads_share_a_net, portable_blas_matches_openblas, NULL});
  add_tests(s, "gradients", 120,
            (const TTest *[]){grad_policy_head, grad_value_head, grad_score_head,
                              grad_all_heads_weighted, losses_have_their_documented_values,
                              adamw_matches_hand_computation, adam_bodies_agree_bit_for_bit,
                              pass_bodies_agree_bit_for_bit, trainer_rejects_bad_settings, NULL});
  add_tests(s, "learning", 120,
            (const TTest *[]){learns_a_synthetic_task, training_is_deterministic,
                              hot_path_does_not_allocate, NULL});
  return s;
}

TEST_MAIN(nn_suite)

/* Training on several threads (nn_trainer_set_threads, nn/nn_shard.c): the
 * sharded gradient and losses against one thread's, steps repeatable for a
 * thread count, small and odd batches, and the refusals. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

static void set_threads(nn_trainer *t, const nn_net *n, int threads, int max_batch) {
  char err[256];
  ck_assert_msg(nn_trainer_set_threads(t, n, threads, max_batch, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(nn_trainer_threads(t), threads);
}

/* The gradient and the losses of a batch on 2, 3 and 5 threads equal one
 * thread's up to float summation order; value_sign_acc, a ratio of counts,
 * exactly. Batches that give every thread two rows and batches that do not. */
START_TEST(sharded_gradient_matches_one_thread) {
  nn_config c = small_cfg;
  nn_net *n = make_net(&c, 11);
  random_biases(n, 11);
  nn_train_params p = nn_train_defaults();
  nn_trainer *one = make_trainer(n, &p), *many = make_trainer(n, &p);
  nn_ws *ws = make_ws(n, 97);
  data d = make_data(97, c.n_in, c.n_actions, 1, 12);
  const size_t np = nn_param_count(n);
  float *g1 = malloc(sizeof(float) * np);
  const int threads[] = {2, 3, 5}, batches[] = {1, 2, 5, 9, 64, 97};
  for (int ti = 0; ti < 3; ti++) {
    set_threads(many, n, threads[ti], 97);
    for (int bi = 0; bi < 6; bi++) {
      const int B = batches[bi];
      nn_losses l1, lm;
      ck_assert_int_eq(nn_loss_grad(n, one, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, &l1), 0);
      memcpy(g1, nn_trainer_grad(one), sizeof(float) * np);
      ck_assert_int_eq(nn_loss_grad(n, many, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, &lm), 0);
      const float *gm = nn_trainer_grad(many);
      double gmax = 0;
      for (size_t k = 0; k < np; k++) gmax = fmax(gmax, fabs(g1[k]));
      for (size_t k = 0; k < np; k++)
        CHECK(fabs(gm[k] - g1[k]) <= 1e-5 * gmax, "threads %d batch %d param %zu: %g vs %g",
              threads[ti], B, k, gm[k], g1[k]);
      CHECK(close_to(lm.total, l1.total, 1e-5), "total %g vs %g", lm.total, l1.total);
      CHECK(close_to(lm.policy, l1.policy, 1e-5), "policy %g vs %g", lm.policy, l1.policy);
      CHECK(close_to(lm.value, l1.value, 1e-5), "value %g vs %g", lm.value, l1.value);
      CHECK(close_to(lm.score, l1.score, 1e-5), "score %g vs %g", lm.score, l1.score);
      CHECK(close_to(lm.entropy, l1.entropy, 1e-5), "entropy %g vs %g", lm.entropy, l1.entropy);
      CHECK(close_to(lm.grad_norm, l1.grad_norm, 1e-5), "norm %g vs %g", lm.grad_norm,
            l1.grad_norm);
      ck_assert(lm.value_sign_acc == l1.value_sign_acc);
    }
  }
  /* Without a score target too. */
  nn_losses l1, lm;
  ck_assert_int_eq(nn_loss_grad(n, one, ws, d.x, d.legal, d.tp, d.tv, NULL, 64, &l1), 0);
  ck_assert_int_eq(nn_loss_grad(n, many, ws, d.x, d.legal, d.tp, d.tv, NULL, 64, &lm), 0);
  CHECK(close_to(lm.total, l1.total, 1e-5), "total %g vs %g", lm.total, l1.total);
  free(g1);
  free_data(&d);
  nn_ws_free(ws);
  nn_trainer_free(one);
  nn_trainer_free(many);
  nn_free(n);
}
END_TEST

/* Two nets trained alike on 3 threads end bit for bit alike, and close to
 * one trained on one thread; back to one thread the trainer still works. */
START_TEST(threaded_steps_repeat) {
  nn_config c = small_cfg;
  nn_net *a = make_net(&c, 5), *b = make_net(&c, 5), *s = make_net(&c, 5);
  nn_train_params p = nn_train_defaults();
  nn_trainer *ta = make_trainer(a, &p), *tb = make_trainer(b, &p), *ts = make_trainer(s, &p);
  set_threads(ta, a, 3, 64);
  set_threads(tb, b, 3, 64);
  nn_ws *ws = make_ws(a, 64);
  data d = make_data(64, c.n_in, c.n_actions, 1, 6);
  for (int k = 0; k < 20; k++) {
    int B = 16 + k % 3 * 24;
    ck_assert_int_eq(nn_train_step(a, ta, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, 1e-3f, NULL), 0);
    ck_assert_int_eq(nn_train_step(b, tb, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, 1e-3f, NULL), 0);
    ck_assert_int_eq(nn_train_step(s, ts, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, 1e-3f, NULL), 0);
  }
  const size_t np = nn_param_count(a);
  ck_assert_int_eq(memcmp(nn_params(a), nn_params(b), sizeof(float) * np), 0);
  for (size_t k = 0; k < np; k++)
    CHECK(fabs(nn_params(a)[k] - nn_params(s)[k]) < 1e-3, "param %zu: %g vs %g", k, nn_params(a)[k],
          nn_params(s)[k]);
  ck_assert_uint_eq(nn_trainer_steps(ta), 20);
  set_threads(ta, a, 1, 64);
  ck_assert_int_eq(nn_train_step(a, ta, ws, d.x, d.legal, d.tp, d.tv, d.ts, 64, 1e-3f, NULL), 0);
  free_data(&d);
  nn_ws_free(ws);
  nn_trainer_free(ta);
  nn_trainer_free(tb);
  nn_trainer_free(ts);
  nn_free(a);
  nn_free(b);
  nn_free(s);
}
END_TEST

/* The update runs on the threads too, each on its slice of the parameters:
 * from one gradient it must equal one thread's update bit for bit. Batches
 * of 2 and 3 leave one shard, whose gradient is one thread's exactly. */
START_TEST(threaded_update_equals_one_thread) {
  nn_config c = small_cfg;
  nn_train_params p = nn_train_defaults();
  p.weight_decay = 0.01f; /* and only where the tensor decays */
  data d = make_data(3, c.n_in, c.n_actions, 1, 9);
  const int threads[] = {2, 3, 5};
  for (int ti = 0; ti < 3; ti++) {
    nn_net *a = make_net(&c, 21), *b = make_net(&c, 21);
    random_biases(a, 4);
    random_biases(b, 4);
    nn_trainer *ta = make_trainer(a, &p), *tb = make_trainer(b, &p);
    set_threads(tb, b, threads[ti], 8);
    nn_ws *ws = make_ws(a, 8);
    for (int k = 0; k < 6; k++) {
      const int B = 2 + k % 2;
      const float lr = 1e-2f * (float)(k + 1);
      ck_assert_int_eq(nn_train_step(a, ta, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, lr, NULL), 0);
      ck_assert_int_eq(nn_train_step(b, tb, ws, d.x, d.legal, d.tp, d.tv, d.ts, B, lr, NULL), 0);
    }
    const size_t np = nn_param_count(a);
    for (size_t k = 0; k < np; k++)
      CHECK(nn_params(a)[k] == nn_params(b)[k], "threads %d param %zu: %.9g vs %.9g", threads[ti],
            k, nn_params(a)[k], nn_params(b)[k]);
    nn_ws_free(ws);
    nn_trainer_free(ta);
    nn_trainer_free(tb);
    nn_free(a);
    nn_free(b);
  }
  free_data(&d);
}
END_TEST

START_TEST(thread_refusals) {
  nn_config c = small_cfg, other = {.n_in = 20, .hidden = 40, .blocks = 1, .n_actions = 7};
  nn_net *n = make_net(&c, 1), *o = make_net(&other, 1);
  nn_train_params p = nn_train_defaults();
  nn_trainer *t = make_trainer(n, &p);
  char err[256];
  ck_assert_int_eq(nn_trainer_set_threads(t, n, 0, 64, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "threads 0"), "%s", err);
  ck_assert_int_eq(nn_trainer_set_threads(t, n, NN_MAX_TRAIN_THREADS + 1, 64, err, sizeof err), -1);
  ck_assert_int_eq(nn_trainer_set_threads(t, o, 2, 64, err, sizeof err), -1);
  ck_assert_int_eq(nn_trainer_threads(t), 1);
  /* A batch above the threads' buffers is a caller bug: -1, nothing written. */
  set_threads(t, n, 2, 16);
  nn_ws *ws = make_ws(n, 64);
  data d = make_data(64, c.n_in, c.n_actions, 0, 2);
  ck_assert_int_eq(nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 32, 1e-3f, NULL), -1);
  ck_assert_uint_eq(nn_trainer_steps(t), 0);
  ck_assert_int_eq(nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 16, 1e-3f, NULL), 0);
  free_data(&d);
  nn_ws_free(ws);
  nn_trainer_free(t);
  nn_free(n);
  nn_free(o);
}
END_TEST

static Suite *nn_threads_suite(void) {
  Suite *s = suite_create("nn_threads");
  add_tests(s, "threads", 120,
            (const TTest *[]){sharded_gradient_matches_one_thread, threaded_steps_repeat,
                              threaded_update_equals_one_thread, thread_refusals, NULL});
  return s;
}

TEST_MAIN(nn_threads_suite)

/* The batched driver: trees equal to lone searches, evaluator calls within
 * the batch size, only active games advanced, the shared position cache,
 * and several workers with drivers of their own at once. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "search/mcts.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

/* ---- Batched driver -------------------------------------------------------------------------- */

typedef struct {
  int calls, max_n, total;
} counting_ctx;

static int counting_uniform(void *ctx, const game *g, const game_pos *const *pos, int n,
                            float *policy, float *value) {
  counting_ctx *c = ctx;
  c->calls++;
  c->total += n;
  if (n > c->max_n) c->max_n = n;
  mcts_eval u = mcts_eval_uniform();
  return u.evaluate(NULL, g, pos, n, policy, value);
}

START_TEST(batch_matches_single_searches) {
  configure_game("oware", NULL);
  char err[256];
  counting_ctx cc = {0, 0, 0};
  mcts_eval ev = {counting_uniform, &cc, 0};
  mcts_params prm = mcts_defaults();
  prm.batch = 8;
  int n = 6, sims = 300;
  mcts_batch *b = mcts_batch_create(&G, &prm, &ev, n, 1, err, sizeof err);
  ck_assert_ptr_nonnull(b);
  game_pos pos[6];
  rng_t r;
  rng_seed(&r, 1, 1);
  for (int i = 0; i < n; i++) {
    game_start(&G, &pos[i]);
    for (int k = 0; k < i; k++) {
      game_moves m = game_legal(&G, &pos[i]);
      game_play(&G, &pos[i], __builtin_ctz(m));
    }
    ck_assert_int_eq(mcts_set_root(mcts_batch_search(b, i), &pos[i], NULL, err, sizeof err), 0);
  }
  ck_assert_int_eq(mcts_batch_run(b, NULL, sims, err, sizeof err), 0);
  ck_assert_int_le(cc.max_n, 8);
  ck_assert_int_ge(cc.max_n, 5); /* leaves of several games in one call */
  mcts_batch_info bi;
  mcts_batch_get_info(b, &bi);
  ck_assert_uint_eq(bi.evals, (uint64_t)cc.total);
  /* With a deterministic evaluator each tree equals a lone search's. */
  for (int i = 0; i < n; i++) {
    mcts_eval u = mcts_eval_uniform();
    mcts *s = mcts_create(&G, &prm, &u, 1, err, sizeof err);
    mcts_set_root(s, &pos[i], NULL, err, sizeof err);
    mcts_run(s, sims, err, sizeof err);
    int v1[GAME_MAX_ACTIONS], v2[GAME_MAX_ACTIONS];
    mcts_visits(s, v1);
    mcts_visits(mcts_batch_search(b, i), v2);
    ck_assert_mem_eq(v1, v2, 6 * sizeof(int));
    mcts_free(s);
  }
  /* Only the active ones move. */
  uint8_t active[6] = {1, 0, 1, 0, 0, 0};
  mcts_info before;
  mcts_get_info(mcts_batch_search(b, 1), &before);
  ck_assert_int_eq(mcts_batch_run(b, active, 50, err, sizeof err), 0);
  mcts_info after;
  mcts_get_info(mcts_batch_search(b, 1), &after);
  ck_assert_int_eq(after.root_visits, before.root_visits);
  mcts_batch_free(b);
}
END_TEST

/* An evaluator call that fails ends the round with an error; the searches
 * keep what they completed and go on in the next run. */
START_TEST(a_failed_evaluation_fails_the_run) {
  configure_game("oware", NULL);
  char err[256] = "";
  failing_ctx f = {0, 5};
  mcts_eval ev = {failing_evaluate, &f, 0};
  mcts_params prm = mcts_defaults();
  prm.batch = 4;
  enum { N = 6 };
  mcts_batch *b = mcts_batch_create(&G, &prm, &ev, N, 1, err, sizeof err);
  ck_assert_ptr_nonnull(b);
  game_pos s;
  game_start(&G, &s);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(mcts_set_root(mcts_batch_search(b, i), &s, NULL, err, sizeof err), 0);
  ck_assert_int_eq(mcts_batch_run(b, NULL, 100, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "evaluator failed"), "%s", err);
  int before[N];
  for (int i = 0; i < N; i++) {
    mcts_info mi;
    mcts_get_info(mcts_batch_search(b, i), &mi);
    before[i] = mi.root_visits;
    ck_assert_int_lt(before[i], 100);
  }
  f.fail_at = 0;
  ck_assert_msg(mcts_batch_run(b, NULL, 30, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < N; i++) {
    mcts_info mi;
    mcts_get_info(mcts_batch_search(b, i), &mi);
    ck_assert_int_eq(mi.root_visits, before[i] + 30);
  }
  mcts_batch_free(b);
}
END_TEST

START_TEST(cache_hits_transpositions) {
  configure_game("oware", NULL);
  char err[256];
  counting_ctx cc = {0, 0, 0};
  mcts_eval ev = {counting_uniform, &cc, 0};
  mcts_params prm = mcts_defaults();
  prm.cache_size = 1 << 14;
  mcts_batch *b = mcts_batch_create(&G, &prm, &ev, 2, 1, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  /* Two games at the same position: the second search's leaves are
   * largely answered by the cache the first one filled. */
  mcts_set_root(mcts_batch_search(b, 0), &p, NULL, err, sizeof err);
  ck_assert_int_eq(mcts_batch_run(b, (const uint8_t[]){1, 0}, 500, err, sizeof err), 0);
  int first = cc.total;
  mcts_set_root(mcts_batch_search(b, 1), &p, NULL, err, sizeof err);
  ck_assert_int_eq(mcts_batch_run(b, (const uint8_t[]){0, 1}, 500, err, sizeof err), 0);
  mcts_batch_info bi;
  mcts_batch_get_info(b, &bi);
  ck_assert_uint_gt(bi.cache_hits, 400);
  ck_assert_int_lt(cc.total - first, 100);
  /* The batch's count is its searches' counts together. */
  mcts_info i0, i1;
  mcts_get_info(mcts_batch_search(b, 0), &i0);
  mcts_get_info(mcts_batch_search(b, 1), &i1);
  ck_assert_uint_eq(bi.cache_hits, i0.cache_hits + i1.cache_hits);
  /* Same pits, different scores: different keys. */
  game_pos q = p;
  q.store[0] = 3;
  ck_assert(mcts_cache_key(&q) != mcts_cache_key(&p));
  mcts_batch_free(b);
}
END_TEST

/* ---- Threads --------------------------------------------------------------------------------- */

typedef struct {
  int id, ok;
  int visits[GAME_MAX_ACTIONS];
} worker_arg;

static void *worker(void *arg) {
  worker_arg *w = arg;
  char err[256];
  mcts_params prm = mcts_defaults();
  prm.cache_size = 1024;
  mcts_rollout *ro = mcts_rollout_create(1, (uint64_t)w->id, err, sizeof err);
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts_batch *b = mcts_batch_create(&G, &prm, &ev, 3, (uint64_t)w->id, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  int sims = (int)(300 * test_scale()) + 50;
  w->ok = 1;
  for (int move = 0; move < 6 && w->ok; move++) {
    for (int i = 0; i < 3; i++) mcts_set_root(mcts_batch_search(b, i), &p, NULL, err, sizeof err);
    if (mcts_batch_run(b, NULL, sims, err, sizeof err)) w->ok = 0;
    int a = mcts_best_action(mcts_batch_search(b, 0));
    game_play(&G, &p, a);
    if (p.status != GAME_ONGOING) break;
  }
  mcts_visits(mcts_batch_search(b, 0), w->visits);
  mcts_batch_free(b);
  mcts_rollout_free(ro);
  return NULL;
}

START_TEST(threads_batched_workers) {
  configure_game("oware", NULL);
  pthread_t t[3];
  worker_arg w[3];
  for (int i = 0; i < 3; i++) {
    w[i].id = i + 1;
    pthread_create(&t[i], NULL, worker, &w[i]);
  }
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    ck_assert(w[i].ok);
  }
}
END_TEST

/* A batch holds `leaves` leaves: a simulation that needs no evaluation (it
 * ends in a finished game) does not end the gathering. From a position
 * where about one simulation in eight ends a game, the evaluator's calls
 * still carry 7 leaves or more on average (8 but for the gatherings that
 * 64 such simulations in a row end, and the last). */
START_TEST(free_simulations_do_not_end_a_batch) {
  configure_game("oware", NULL);
  char err[256];
  counting_ctx c = {0, 0, 0};
  mcts_eval ev = {counting_uniform, &c, 0};
  mcts_params p = mcts_defaults();
  p.solver = 0;
  mcts *m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  game_pos q = pos("0 3 0 1 0 0 0 0 0 1 0 0 3 20 20");
  ck_assert_int_eq(mcts_set_root(m, &q, NULL, err, sizeof err), 0);
  mcts_limits l = mcts_limits_sims(4000);
  l.leaves = 8;
  ck_assert_int_eq(mcts_search(m, &l, NULL, err, sizeof err), 4000);
  mcts_info mi;
  mcts_get_info(m, &mi);
  ck_assert_msg(c.total < 4000 - 400, "only %d of 4000 simulations reached a finished game",
                4000 - c.total);
  ck_assert_msg(c.total >= 7 * c.calls, "%d leaves in %d calls", c.total, c.calls);
  mcts_free(m);
}
END_TEST

static Suite *mcts_batch_suite(void) {
  Suite *s = suite_create("mcts_batch");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, batch_matches_single_searches);
  tcase_add_test(t, a_failed_evaluation_fails_the_run);
  tcase_add_test(t, cache_hits_transpositions);
  tcase_add_test(t, threads_batched_workers);
  tcase_add_test(t, free_simulations_do_not_end_a_batch);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(mcts_batch_suite)

/* Ratings: scores, intervals, Elo and the SPRT against hand-computed
 * values. */
#include <check.h>
#include <math.h>

#include "tests/testutil.h"
#include "trainer/gating.h"

/* ---- Match statistics ---------------------------------------------------------------- */

START_TEST(elo_and_intervals) {
  match_result q = {.wins = 3, .draws = 0, .losses = 1};
  match_stats(&q);
  ck_assert_double_eq_tol(q.elo, 190.8485, 1e-3); /* 75% */
  /* A sweep: Elo clamped, the interval from Wilson (the variance is 0). */
  match_result all = {.wins = 10};
  match_stats(&all);
  ck_assert_double_eq_tol(all.score, 1.0, 1e-12);
  ck_assert_double_eq_tol(all.elo, 1600.0, 1e-9);
  ck_assert_double_eq_tol(all.score_lo, 0.722460, 1e-5);
  ck_assert_double_eq_tol(all.score_hi, 1.0, 1e-12);
  match_result r = {.wins = 6, .draws = 2, .losses = 2};
  match_stats(&r);
  ck_assert_int_eq(r.games, 10);
  ck_assert_double_eq_tol(r.score, 0.7, 1e-12);
  ck_assert_double_eq_tol(r.score_lo, 0.452077, 1e-5);
  ck_assert_double_eq_tol(r.score_hi, 0.947923, 1e-5);
  ck_assert_double_eq_tol(r.elo, 147.1911, 1e-3);
  ck_assert_double_eq_tol(r.elo_lo, -33.4025, 1e-3);
}
END_TEST

START_TEST(sprt) {
  ck_assert_double_eq_tol(sprt_llr(60, 20, 20, 0, 35), 5.435955, 1e-5);
  ck_assert_double_eq_tol(sprt_llr(0, 2, 0, 0, 35), -0.045360, 1e-5);
  ck_assert_double_eq_tol(sprt_llr(50, 0, 50, 0, 35), -0.509035, 1e-5);
  ck_assert_double_eq_tol(sprt_llr(20, 0, 0, 0, 35), 20.459552, 1e-5);
  ck_assert_double_eq_tol(sprt_llr(0, 0, 0, 0, 35), 0.0, 1e-12);
  /* Bounds for alpha = beta = 0.05: +-log(19) = 2.944. */
  ck_assert_int_eq(sprt_verdict(2.95, 0.05, 0.05), 1);
  ck_assert_int_eq(sprt_verdict(2.94, 0.05, 0.05), 0);
  ck_assert_int_eq(sprt_verdict(-2.95, 0.05, 0.05), -1);
}
END_TEST

Suite *ratings_suite(void) {
  Suite *s = suite_create("ratings");
  TCase *m = tcase_create("statistics");
  tcase_add_test(m, elo_and_intervals);
  tcase_add_test(m, sprt);
  suite_add_tcase(s, m);
  return s;
}

TEST_MAIN(ratings_suite)

/* The tests a study runs between variants: distributions against values
 * of an independent implementation (mpmath at 30 digits: gammainc,
 * betainc, erfc), each test on hand-made samples against the same
 * formula worked out apart (the Mann-Whitney U by counting pairs rather
 * than ranks), verdicts on clearly different and identical samples, and
 * Holm's order. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "arena/signif.h"
#include "tests/testutil.h"

#define TOL 1e-9

START_TEST(distributions) {
  /* The 5% critical values of chi-square with 1, 2, 3 and 5 df. */
  ck_assert_double_eq_tol(signif_chi2_sf(3.841458820694124, 1), 0.05, TOL);
  ck_assert_double_eq_tol(signif_chi2_sf(5.991464547107979, 2), 0.05, TOL);
  ck_assert_double_eq_tol(signif_chi2_sf(7.814727903251178, 3), 0.05, TOL);
  ck_assert_double_eq_tol(signif_chi2_sf(11.070497693516351, 5), 0.05, TOL);
  ck_assert_double_eq_tol(signif_chi2_sf(0.5, 4), 0.97350097883925608531, TOL);
  ck_assert_double_eq_tol(signif_chi2_sf(40, 3), 1.0655090334255860815e-8, 1e-15);
  ck_assert_double_eq_tol(signif_chi2_sf(2.2, 7), 0.94794651233625959972, TOL);
  ck_assert_double_eq(signif_chi2_sf(0, 2), 1);
  ck_assert(isnan(signif_chi2_sf(1, 0)));
  /* Student's t, whole and fractional df. */
  ck_assert_double_eq_tol(signif_t_p2(2.0, 10), 0.073388034770740375122, TOL);
  ck_assert_double_eq_tol(signif_t_p2(2.228138851986273, 10), 0.05, TOL);
  ck_assert_double_eq_tol(signif_t_p2(-1.3, 7.5), 0.23212677881560871217, TOL);
  ck_assert_double_eq_tol(signif_t_p2(5.0, 3.2), 0.013172093069677027315, TOL);
  ck_assert_double_eq_tol(signif_t_p2(0.2, 150.7), 0.84175021252696569177, TOL);
  ck_assert_double_eq(signif_t_p2(0, 5), 1);
  ck_assert_double_eq(signif_t_p2(INFINITY, 5), 0);
  ck_assert_double_eq_tol(signif_ibeta(2.5, 0.5, 0.3), 0.018927124071945651653, TOL);
  ck_assert_double_eq_tol(signif_ibeta(3, 4, 0.9), 0.99873, TOL);
  /* The normal: 1.96 is the 5% point. */
  ck_assert_double_eq_tol(signif_normal_p2(1.959963984540054), 0.05, TOL);
  ck_assert_double_eq_tol(signif_normal_p2(-1.959963984540054), 0.05, TOL);
}
END_TEST

START_TEST(tests_of_known_samples) {
  /* Wins, draws, losses 70/10/20 against 50/20/30. */
  int a[3] = {70, 10, 20}, b[3] = {50, 20, 30};
  signif_test t = signif_chi2_rows(a, b, 3);
  ck_assert_double_eq_tol(t.stat, 26.0 / 3, TOL);
  ck_assert_double_eq(t.df, 2);
  ck_assert_double_eq_tol(t.p, 0.013123728736940963157, TOL);
  t = signif_score_z(70, 10, 20, 50, 20, 30);
  ck_assert_double_eq_tol(t.stat, 2.487080016869034785, TOL);
  ck_assert_double_eq_tol(t.p, 0.012879642652410273612, TOL);
  /* Draw rates 10/100 against 20/100. */
  t = signif_two_proportions(10, 100, 20, 100);
  ck_assert_double_eq_tol(t.stat, -1.9802950859533486183, TOL);
  ck_assert_double_eq_tol(t.p, 0.047670380656161447616, TOL);
  t = signif_welch(50.5, 29.0115, 100, 60, 20, 80);
  ck_assert_double_eq_tol(t.stat, -2.5935893545898755643, TOL);
  ck_assert_double_eq_tol(t.df, 174.42294508461194652, 1e-7);
  ck_assert_double_eq_tol(t.p, 0.010304955989597284455, TOL);
  /* U with ties: 48.5 pairs of (x > y, ties halved). */
  int x[] = {12, 15, 15, 18, 20, 22, 22, 22, 30}, y[] = {10, 11, 15, 16, 16, 19, 21, 22};
  double u;
  ck_assert_int_eq(signif_mann_whitney(x, 9, y, 8, &t, &u), 0);
  ck_assert_double_eq_tol(u, 48.5, 1e-12);
  ck_assert_double_eq_tol(t.stat, 1.1654621925858711301, TOL);
  ck_assert_double_eq_tol(t.p, 0.24383195544642420797, TOL);
  /* A column empty in both rows does not count: 2x3 with no draws is 2x2. */
  int c[3] = {30, 0, 10}, d[3] = {20, 0, 20};
  int c2[2] = {30, 10}, d2[2] = {20, 20};
  signif_test t3 = signif_chi2_rows(c, d, 3), t2 = signif_chi2_rows(c2, d2, 2);
  ck_assert_double_eq(t3.df, 1);
  ck_assert_double_eq_tol(t3.stat, t2.stat, 1e-12);
  ck_assert_double_eq_tol(t3.p, t2.p, 1e-12);
  /* As many columns as the test takes: a 2x16 table whose columns repeat a
   * 2x2 table's keeps its statistic (each column scaled alike) on 15
   * degrees of freedom; one column more is refused (statistic 0, p 1). */
  int wa[SIGNIF_MAX_COLUMNS + 1], wb[SIGNIF_MAX_COLUMNS + 1];
  for (int j = 0; j <= SIGNIF_MAX_COLUMNS; j++) wa[j] = j % 2 ? 10 : 30, wb[j] = 20;
  signif_test wide = signif_chi2_rows(wa, wb, SIGNIF_MAX_COLUMNS);
  ck_assert_double_eq(wide.df, SIGNIF_MAX_COLUMNS - 1);
  ck_assert_double_eq_tol(wide.stat, SIGNIF_MAX_COLUMNS / 2 * t2.stat, 1e-9);
  signif_test over = signif_chi2_rows(wa, wb, SIGNIF_MAX_COLUMNS + 1);
  ck_assert(over.stat == 0 && over.df == 0 && over.p == 1);
  /* 2x2 chi-square is the square of the pooled two-proportion z. */
  signif_test z = signif_two_proportions(30, 40, 20, 40);
  ck_assert_double_eq_tol(t2.stat, z.stat * z.stat, 1e-9);
  ck_assert_double_eq_tol(t2.p, z.p, 1e-9);
}
END_TEST

/* Clearly different samples are told apart; identical ones never are. */
/* z statistics carry no degrees of freedom (signif.h): 0 for the score,
 * the two proportions and Mann-Whitney's normal approximation, with or
 * without ties; the chi-square and Welch's t have theirs. */
START_TEST(z_statistics_have_no_degrees_of_freedom) {
  int x[] = {10, 12, 12, 15, 20, 21, 30}, y[] = {11, 13, 14, 14, 25, 26, 27, 40};
  signif_test t;
  ck_assert_int_eq(signif_mann_whitney(x, 7, y, 8, &t, NULL), 0);
  ck_assert(t.df == 0 && t.p > 0 && t.p <= 1);
  ck_assert(signif_score_z(10, 5, 5, 6, 5, 9).df == 0);
  ck_assert(signif_two_proportions(5, 20, 9, 20).df == 0);
  int a[3] = {10, 5, 5}, b[3] = {6, 5, 9};
  ck_assert(signif_chi2_rows(a, b, 3).df == 2);
}
END_TEST

START_TEST(verdicts) {
  int a[3] = {90, 5, 5}, b[3] = {30, 10, 60};
  ck_assert(signif_chi2_rows(a, b, 3).p < 1e-6);
  ck_assert(signif_score_z(90, 5, 5, 30, 10, 60).p < 1e-6);
  ck_assert(signif_two_proportions(5, 100, 40, 100).p < 1e-6);
  int x[40], y[40];
  for (int i = 0; i < 40; i++) {
    x[i] = 100 + i;
    y[i] = 10 + i;
  }
  signif_test t;
  double u;
  ck_assert_int_eq(signif_mann_whitney(x, 40, y, 40, &t, &u), 0);
  ck_assert_double_eq(u, 1600);
  ck_assert(t.p < 1e-6 && t.stat > 0);
  ck_assert(signif_welch(119.5, 11.7, 40, 29.5, 11.7, 40).p < 1e-6);
  /* The same samples: statistics 0, p 1. */
  t = signif_chi2_rows(b, b, 3);
  ck_assert_double_eq(t.stat, 0);
  ck_assert_double_eq_tol(t.p, 1, 1e-12);
  ck_assert_double_eq_tol(signif_score_z(30, 10, 60, 30, 10, 60).p, 1, 1e-12);
  ck_assert_double_eq_tol(signif_two_proportions(10, 100, 10, 100).p, 1, 1e-12);
  ck_assert_int_eq(signif_mann_whitney(x, 40, x, 40, &t, &u), 0);
  ck_assert_double_eq(u, 800);
  ck_assert_double_eq_tol(t.p, 1, 1e-12);
  ck_assert_double_eq_tol(signif_welch(50, 10, 30, 50, 12, 30).p, 1, 1e-12);
  /* Nothing to tell apart: all games alike, empty samples, one column. */
  ck_assert_double_eq(signif_score_z(0, 10, 0, 0, 7, 0).p, 1);
  ck_assert_double_eq(signif_score_z(0, 0, 0, 3, 1, 0).p, 1);
  ck_assert_double_eq(signif_two_proportions(0, 50, 0, 60).p, 1);
  ck_assert_double_eq(signif_two_proportions(3, 0, 1, 5).p, 1);
  int w[3] = {10, 0, 0}, v[3] = {7, 0, 0};
  ck_assert_double_eq(signif_chi2_rows(w, v, 3).p, 1);
  int same[3] = {5, 5, 5};
  ck_assert_int_eq(signif_mann_whitney(same, 3, same, 3, &t, &u), 0);
  ck_assert_double_eq(t.p, 1);
  ck_assert_int_eq(signif_mann_whitney(same, 0, same, 3, &t, NULL), 0);
  ck_assert_double_eq(t.p, 1);
  ck_assert_double_eq(signif_welch(5, 0, 1, 6, 1, 10).p, 1);
  /* Every game the same length in both, but different lengths: certain. */
  t = signif_welch(40, 0, 10, 50, 0, 10);
  ck_assert_double_eq(t.p, 0);
  ck_assert(isinf(t.stat) && t.stat < 0);
}
END_TEST

START_TEST(holm) {
  /* Sorted 0.005 0.01 0.03 0.04 -> x4 x3 x2 x1 = 0.02 0.03 0.06 0.04,
   * made non-decreasing: 0.02 0.03 0.06 0.06. */
  double p[4] = {0.01, 0.04, 0.03, 0.005}, adj[4];
  signif_holm(p, 4, adj);
  ck_assert_double_eq_tol(adj[0], 0.03, 1e-15);
  ck_assert_double_eq_tol(adj[1], 0.06, 1e-15);
  ck_assert_double_eq_tol(adj[2], 0.06, 1e-15);
  ck_assert_double_eq_tol(adj[3], 0.02, 1e-15);
  /* Capped at 1, in place, and one test is left as it is. */
  double q[3] = {0.5, 0.9, 0.2};
  signif_holm(q, 3, q);
  ck_assert_double_eq_tol(q[2], 0.6, 1e-15);
  ck_assert_double_eq(q[0], 1);
  ck_assert_double_eq(q[1], 1);
  double one = 0.03;
  signif_holm(&one, 1, &one);
  ck_assert_double_eq(one, 0.03);
  /* Many: never below the raw p, never above Bonferroni, and the order
   * of the raw p-values kept. */
  enum { M = 100 };
  double r[M], h[M];
  for (int i = 0; i < M; i++) r[i] = ((i * 37) % M + 1) / 1000.0;
  signif_holm(r, M, h);
  for (int i = 0; i < M; i++) {
    ck_assert(h[i] >= r[i] && h[i] <= fmin(1, M * r[i]) + 1e-15);
    for (int j = 0; j < M; j++)
      if (r[i] < r[j]) ck_assert(h[i] <= h[j]);
  }
}
END_TEST

static Suite *signif_suite(void) {
  Suite *s = suite_create("signif");
  TCase *t = tcase_create("core");
  tcase_add_test(t, distributions);
  tcase_add_test(t, tests_of_known_samples);
  tcase_add_test(t, verdicts);
  tcase_add_test(t, holm);
  tcase_add_test(t, z_statistics_have_no_degrees_of_freedom);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(signif_suite)

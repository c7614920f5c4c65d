/* Ratings: both bounds of every interval, Elo, the rating fit and the SPRT
 * against values computed by hand from the closed forms (z = 1.96). */
#include <check.h>
#include <math.h>

#include "arena/ratings.h"
#include "tests/testutil.h"

#define TOL 1e-5

/* ---- Wilson ----------------------------------------------------------------------------- */

START_TEST(wilson_by_hand) {
  double lo, hi;
  /* 5 of 10 -> [0.236593, 0.763407] (mid 0.5, symmetric). */
  rating_wilson(0.5, 10, &lo, &hi);
  ck_assert_double_eq_tol(lo, 0.236593, 1e-5);
  ck_assert_double_eq_tol(hi, 0.763407, 1e-5);
  /* 0.3 of 100: z^2/n = 0.038416, mid = 0.319208 / 1.038416 = 0.307399,
   * half = 1.96 sqrt(0.0021 + 0.00009604) / 1.038416 = 0.088451. */
  rating_wilson(0.3, 100, &lo, &hi);
  ck_assert_double_eq_tol(lo, 0.218948, TOL);
  ck_assert_double_eq_tol(hi, 0.395850, TOL);
  /* 0 of 10: mid = half = 0.19208 / 1.38416, so [0, 2 mid = 0.277540]. */
  rating_wilson(0, 10, &lo, &hi);
  ck_assert_double_eq_tol(lo, 0, 1e-12);
  ck_assert_double_eq_tol(hi, 0.277540, TOL);
  /* 10 of 10: the mirror image, [0.722460, 1]. */
  rating_wilson(1, 10, &lo, &hi);
  ck_assert_double_eq_tol(lo, 0.722460, TOL);
  ck_assert_double_eq_tol(hi, 1, 1e-12);
  /* No trials: nothing is known. */
  rating_wilson(0.5, 0, &lo, &hi);
  ck_assert_double_eq(lo, 0);
  ck_assert_double_eq(hi, 1);
}
END_TEST

/* ---- Score intervals ------------------------------------------------------------------------ */

START_TEST(score_intervals_by_hand) {
  double s, lo, hi;
  /* 6 wins, 2 draws, 2 losses: s = 0.7; per-game variance
   * (6 * 0.09 + 2 * 0.04 + 2 * 0.49) / 10 = 0.16; half-width
   * 1.96 * sqrt(0.016) = 0.247923. */
  rating_score_ci(6, 2, 2, &s, &lo, &hi);
  ck_assert_double_eq_tol(s, 0.7, 1e-12);
  ck_assert_double_eq_tol(lo, 0.7 - 0.247923, 1e-6);
  ck_assert_double_eq_tol(hi, 0.7 + 0.247923, 1e-6);
  /* 10-0-10: s = 0.5, variance 0.25, half-width 1.96 * sqrt(0.25 / 20). */
  rating_score_ci(10, 0, 10, &s, &lo, &hi);
  ck_assert_double_eq_tol(hi - s, 1.96 * sqrt(0.0125), 1e-9);
  ck_assert_double_eq_tol(s - lo, 1.96 * sqrt(0.0125), 1e-9);
  /* 9-1-0: s = 0.95, variance (9 * 0.0025 + 0.2025) / 10 = 0.0225,
   * half-width 1.96 sqrt(0.00225) = 0.092971: the upper bound is clamped. */
  rating_score_ci(9, 1, 0, &s, &lo, &hi);
  ck_assert_double_eq_tol(s, 0.95, 1e-12);
  ck_assert_double_eq_tol(lo, 0.857029, TOL);
  ck_assert_double_eq_tol(hi, 1, 1e-12);
  /* 0-1-9, the mirror: the lower bound is clamped. */
  rating_score_ci(0, 1, 9, &s, &lo, &hi);
  ck_assert_double_eq_tol(s, 0.05, 1e-12);
  ck_assert_double_eq_tol(lo, 0, 1e-12);
  ck_assert_double_eq_tol(hi, 0.142971, TOL);
  /* All draws: 0.5 with the Wilson interval of 10 halves out of 20:
   * half = 1.96 sqrt(0.0125 + 0.002401) / 1.19208 = 0.200705. */
  rating_score_ci(0, 20, 0, &s, &lo, &hi);
  ck_assert_double_eq_tol(s, 0.5, 1e-12);
  ck_assert_double_eq_tol(hi - 0.5, 0.5 - lo, 1e-12);
  ck_assert(hi > 0.6 && hi < 0.75);
  ck_assert_double_eq_tol(lo, 0.299295, TOL);
  ck_assert_double_eq_tol(hi, 0.700705, TOL);
  /* An odd number of draws: Wilson takes the score 0.5 itself. */
  rating_score_ci(0, 7, 0, &s, &lo, &hi);
  ck_assert_double_eq_tol(lo, 0.202368, TOL);
  ck_assert_double_eq_tol(hi, 0.797632, TOL);
  /* 0-0-20: Wilson upper bound z^2/n / (1 + z^2/n) = 0.161134. */
  rating_score_ci(0, 0, 20, &s, &lo, &hi);
  ck_assert_double_eq_tol(s, 0, 1e-12);
  ck_assert_double_eq_tol(lo, 0, 1e-12);
  ck_assert_double_eq_tol(hi, 0.161134, 1e-5);
  /* 10-0-0: [0.722460, 1]. */
  rating_score_ci(10, 0, 0, &s, &lo, &hi);
  ck_assert_double_eq_tol(lo, 0.722460, TOL);
  ck_assert_double_eq_tol(hi, 1, 1e-12);
  /* No games. */
  rating_score_ci(0, 0, 0, &s, &lo, &hi);
  ck_assert_double_eq(s, 0.5);
  ck_assert_double_eq(lo, 0);
  ck_assert_double_eq(hi, 1);
}
END_TEST

/* ---- Elo ------------------------------------------------------------------------------------ */

START_TEST(elo_by_hand) {
  /* 75%: 400 log10(3) = 190.848; 90%: 400 log10(9) = 381.697. */
  ck_assert_double_eq_tol(rating_elo_from_score(0.75), 190.848, 1e-3);
  ck_assert_double_eq_tol(rating_elo_from_score(0.25), -190.848, 1e-3);
  ck_assert_double_eq_tol(rating_elo_from_score(0.9), 381.697, 1e-3);
  ck_assert_double_eq_tol(rating_elo_from_score(0.5), 0, 1e-12);
  ck_assert_double_eq(rating_elo_from_score(1.0), 1600);
  ck_assert_double_eq(rating_elo_from_score(0.0), -1600);
  /* Close to 0 and 1 the clamp applies too: 1e-7 is -2800 Elo. */
  ck_assert_double_eq(rating_elo_from_score(1e-7), -RATING_ELO_CLAMP);
  ck_assert_double_eq(rating_elo_from_score(1 - 1e-7), RATING_ELO_CLAMP);
  /* The inverse: +100 Elo scores 1 / (1 + 10^-0.25) = 0.640065. */
  ck_assert_double_eq_tol(rating_score_from_elo(100), 0.640065, 1e-6);
  ck_assert_double_eq_tol(rating_score_from_elo(-35), 0.449801, 1e-6);
  ck_assert_double_eq_tol(rating_score_from_elo(rating_elo_from_score(0.3)), 0.3, 1e-12);
  /* Two agents, a scores 75% over 40 games (draws count half). The fit
   * gives the same difference; its standard error is
   * (400 / ln 10) / sqrt(n p (1 - p)) = 173.718 / sqrt(7.5) = 63.432. */
  rating_pairing two = {0, 1, 25, 10, 5};
  double elo[4], se[4];
  ck_assert_int_eq(rating_fit(2, &two, 1, 0, 0.0, elo, se), 0);
  ck_assert_double_eq_tol(elo[0], 0, 1e-9);
  ck_assert_double_eq_tol(elo[1], -190.848, 1e-3);
  ck_assert_double_eq_tol(se[1], 63.432, 1e-2);
  ck_assert_double_eq_tol(se[0], 0, 1e-12);
  /* Anchored at agent 1 instead: the same difference the other way. */
  ck_assert_int_eq(rating_fit(2, &two, 1, 1, 0.0, elo, se), 0);
  ck_assert_double_eq_tol(elo[0], 190.848, 1e-3);
  /* Three agents with consistent results (A-B 3:1, B-C 3:1, A-C 9:1) fit
   * exactly: 0, -190.8, -381.7. */
  rating_pairing three[3] = {{0, 1, 30, 0, 10}, {1, 2, 30, 0, 10}, {0, 2, 36, 0, 4}};
  ck_assert_int_eq(rating_fit(3, three, 3, 0, 0.0, elo, se), 0);
  ck_assert_double_eq_tol(elo[1], -190.848, 1e-3);
  ck_assert_double_eq_tol(elo[2], -381.697, 1e-3);
  ck_assert(se[2] > se[1] * 0.5 && se[1] > 0);
  /* Three equal players, 40 drawn games a pairing: the information matrix
   * (anchor removed) is c [[2, -1], [-1, 2]] with c = 40 / 4 (per natural
   * log-strength), whose inverse c^-1 [[2, 1], [1, 2]] / 3 gives each
   * non-anchor player the standard error (400 / ln 10) sqrt(2 / (3 c)). */
  rating_pairing level[3] = {{0, 1, 0, 40, 0}, {1, 2, 0, 40, 0}, {0, 2, 0, 40, 0}};
  ck_assert_int_eq(rating_fit(3, level, 3, 0, 0.0, elo, se), 0);
  double want = 400 / log(10.0) * sqrt(2.0 / (3 * 10.0));
  ck_assert_double_eq_tol(elo[1], 0, 1e-9);
  ck_assert_double_eq_tol(se[1], want, 1e-6);
  ck_assert_double_eq_tol(se[2], want, 1e-6);
  /* A prior draw pulls a 100% score to a finite rating:
   * (20 + 0.5) / 21 -> 400 log10(41) = 645.1. */
  rating_pairing sweep = {0, 1, 20, 0, 0};
  ck_assert_int_eq(rating_fit(2, &sweep, 1, 1, 1.0, elo, se), 0);
  ck_assert_double_eq_tol(elo[0], 400 * log10(41.0), 1e-3);
  /* Not connected to the anchor: refused, whichever player is the anchor
   * and whichever is cut off (a pairing without games links nobody). */
  rating_pairing apart[3] = {{0, 1, 5, 0, 5}, {2, 3, 5, 0, 5}, {1, 2, 0, 0, 0}};
  for (int a = 0; a < 4; a++) {
    ck_assert_int_eq(rating_fit(4, apart, 3, a, 1.0, elo, se), -1);
    /* With player 0 alone, the other three linked. */
    rating_pairing alone[2] = {{1, 2, 5, 0, 5}, {2, 3, 5, 0, 5}};
    ck_assert_int_eq(rating_fit(4, alone, 2, a, 1.0, elo, se), -1);
    /* Linked through the middle pairing: every anchor fits. */
    apart[2].wins = 1;
    ck_assert_int_eq(rating_fit(4, apart, 3, a, 1.0, elo, se), 0);
    apart[2].wins = 0;
  }
  /* Players or anchor out of range: refused. */
  rating_pairing stray = {0, 2, 5, 0, 5};
  ck_assert_int_eq(rating_fit(2, &stray, 1, 0, 1.0, elo, se), -1);
  ck_assert_int_eq(rating_fit(2, &two, 1, 2, 1.0, elo, se), -1);
  ck_assert_int_eq(rating_fit(RATING_MAX_PLAYERS + 1, &two, 1, 0, 1.0, elo, se), -1);
}
END_TEST

/* The fit does not depend on how the players are numbered: each
 * renumbering of a five-player field (pairings missing, uneven results)
 * gives every player the same rating and standard error. */
START_TEST(ratings_ignore_the_players_numbering) {
  /* Player 4 meets player 3 alone: in its column the pivot ties, so the
   * elimination swaps rows for some numberings and not for others. */
  const rating_pairing field[6] = {{0, 1, 12, 3, 5}, {0, 2, 2, 1, 17}, {1, 2, 9, 9, 2},
                                   {1, 3, 1, 0, 19}, {2, 3, 7, 2, 11}, {3, 4, 15, 5, 0}};
  double elo0[5], se0[5];
  ck_assert_int_eq(rating_fit(5, field, 6, 0, 0.0, elo0, se0), 0);
  static const int perms[6][5] = {{4, 3, 2, 1, 0}, {1, 2, 3, 4, 0}, {2, 0, 4, 1, 3},
                                  {3, 4, 0, 2, 1}, {4, 2, 1, 0, 3}, {0, 4, 3, 2, 1}};
  for (int k = 0; k < 6; k++) {
    const int *to = perms[k];
    rating_pairing renum[6];
    for (int i = 0; i < 6; i++) {
      renum[i] = field[i];
      renum[i].a = to[field[i].a];
      renum[i].b = to[field[i].b];
    }
    double elo[5], se[5];
    ck_assert_int_eq(rating_fit(5, renum, 6, to[0], 0.0, elo, se), 0);
    for (int i = 0; i < 5; i++) {
      ck_assert_double_eq_tol(elo[to[i]], elo0[i], 1e-6);
      ck_assert_msg(fabs(se[to[i]] - se0[i]) < 1e-6, "numbering %d: player %d's error %g, not %g",
                    k, i, se[to[i]], se0[i]);
    }
  }
}
END_TEST

/* As many players as a fit takes, in a chain of 3:2 results: each is
 * 400 log10(1.5) below the one before (under AddressSanitizer, no array of
 * the fit may be one player short). */
START_TEST(a_full_field_fits) {
  enum { N = RATING_MAX_PLAYERS };
  rating_pairing chain[N - 1];
  for (int i = 0; i + 1 < N; i++) chain[i] = (rating_pairing){i, i + 1, 30, 0, 20};
  double elo[N], se[N];
  ck_assert_int_eq(rating_fit(N, chain, N - 1, 0, 0.0, elo, se), 0);
  for (int i = 0; i < N; i++) {
    ck_assert_msg(fabs(elo[i] + 70.437 * i) < 1e-3 * (i + 1), "player %d: %g", i, elo[i]);
    ck_assert(i == 0 ? se[i] == 0 : se[i] > se[i - 1] * 0.99);
  }
}
END_TEST

/* ---- Matches of two players ---------------------------------------------------------------- */

START_TEST(summaries_by_hand) {
  rating_summary q = rating_summarize(3, 0, 1);
  ck_assert_double_eq_tol(q.elo, 190.8485, 1e-3); /* 75% */
  /* A sweep: Elo clamped, the interval from Wilson (the variance is 0). */
  rating_summary all = rating_summarize(10, 0, 0);
  ck_assert_double_eq_tol(all.score, 1.0, 1e-12);
  ck_assert_double_eq_tol(all.elo, 1600.0, 1e-9);
  ck_assert_double_eq_tol(all.score_lo, 0.722460, 1e-5);
  ck_assert_double_eq_tol(all.score_hi, 1.0, 1e-12);
  /* Its bounds in Elo: 400 log10(0.722460 / 0.277540) = 166.195, and the
   * clamp. */
  ck_assert_double_eq_tol(all.elo_lo, 166.1951, 1e-3);
  ck_assert_double_eq_tol(all.elo_hi, 1600.0, 1e-9);
  rating_summary r = rating_summarize(6, 2, 2);
  ck_assert_int_eq(r.games, 10);
  ck_assert_double_eq_tol(r.score, 0.7, 1e-12);
  ck_assert_double_eq_tol(r.score_lo, 0.452077, 1e-5);
  ck_assert_double_eq_tol(r.score_hi, 0.947923, 1e-5);
  ck_assert_double_eq_tol(r.elo, 147.1911, 1e-3);
  ck_assert_double_eq_tol(r.elo_lo, -33.4025, 1e-3);
  /* 400 log10(0.947923 / 0.052077) = 504.049. */
  ck_assert_double_eq_tol(r.elo_hi, 504.0493, 1e-3);
  /* A swept loss: both Elo bounds, -1600 and -400 log10(0.838870 /
   * 0.161130) = -286.607. */
  rating_summary none = rating_summarize(0, 0, 20);
  ck_assert_double_eq_tol(none.elo_lo, -1600.0, 1e-9);
  ck_assert_double_eq_tol(none.elo_hi, -286.6071, 1e-3);
}
END_TEST

START_TEST(sprt) {
  ck_assert_double_eq_tol(rating_sprt_llr(60, 20, 20, 0, 35), 5.435955, 1e-5);
  ck_assert_double_eq_tol(rating_sprt_llr(0, 2, 0, 0, 35), -0.045360, 1e-5);
  ck_assert_double_eq_tol(rating_sprt_llr(50, 0, 50, 0, 35), -0.509035, 1e-5);
  ck_assert_double_eq_tol(rating_sprt_llr(20, 0, 0, 0, 35), 20.459552, 1e-5);
  ck_assert_double_eq_tol(rating_sprt_llr(0, 0, 0, 0, 35), 0.0, 1e-12);
  /* Bounds for alpha = beta = 0.05: +-log(19) = 2.944. */
  ck_assert_int_eq(rating_sprt_verdict(2.95, 0.05, 0.05), 1);
  ck_assert_int_eq(rating_sprt_verdict(2.94, 0.05, 0.05), 0);
  ck_assert_int_eq(rating_sprt_verdict(-2.95, 0.05, 0.05), -1);
  ck_assert_int_eq(rating_sprt_verdict(-2.94, 0.05, 0.05), 0);
  /* Unequal rates: H1 at log(0.9 / 0.05) = 2.890, H0 at log(0.1 / 0.95)
   * = -2.251. */
  ck_assert_int_eq(rating_sprt_verdict(2.89, 0.05, 0.1), 0);
  ck_assert_int_eq(rating_sprt_verdict(2.891, 0.05, 0.1), 1);
  ck_assert_int_eq(rating_sprt_verdict(-2.25, 0.05, 0.1), 0);
  ck_assert_int_eq(rating_sprt_verdict(-2.252, 0.05, 0.1), -1);
}
END_TEST

Suite *ratings_suite(void) {
  Suite *s = suite_create("ratings");
  TCase *m = tcase_create("statistics");
  tcase_add_test(m, wilson_by_hand);
  tcase_add_test(m, score_intervals_by_hand);
  tcase_add_test(m, elo_by_hand);
  tcase_add_test(m, ratings_ignore_the_players_numbering);
  tcase_add_test(m, a_full_field_fits);
  tcase_add_test(m, summaries_by_hand);
  tcase_add_test(m, sprt);
  suite_add_tcase(s, m);
  return s;
}

TEST_MAIN(ratings_suite)

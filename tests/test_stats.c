/* Variant statistics: the counts add up, the numbers depend on the seed
 * only, stronger first players win more, grand slams are counted, the
 * intervals are Wilson's, the figures of a hand-made set of games, games
 * from a book, and the stats command. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arena/ratings.h"
#include "arena/stats.h"
#include "game/game.h"
#include "tests/testutil.h"

static game G;

static void count_calls(int done, int total, void *ud) {
  int *calls = ud;
  ck_assert_int_eq(done, *calls + 1);
  ck_assert_int_eq(total, 6);
  (*calls)++;
}

static void configure(const char *name) {
  char err[256];
  int rc = game_configure(&G, name, 0, NULL, err, sizeof err);
  ck_assert_msg(rc == 0, "configure %s: %s", name, err);
}

START_TEST(variant_statistics) {
  configure("oware");
  stats_params p = stats_defaults();
  p.games = (int)(300 * test_scale()) + 20;
  p.threads = 2;
  stats_result r, r1;
  char err[256];
  ck_assert_int_eq(stats_run(&G, "random", "random", &p, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.games, p.games);
  ck_assert_int_eq(r.first_win.count + r.draw.count + r.first_loss.count, p.games);
  int ends = 0;
  for (int e = 0; e < GAME_END_COUNT; e++) ends += r.end_reason[e];
  ck_assert_int_eq(ends, p.games);
  ck_assert_int_eq(r.end_reason[GAME_END_NONE], 0);
  ck_assert(r.len_min <= r.len_p10 && r.len_p10 <= r.len_p25 && r.len_p25 <= r.len_median &&
            r.len_median <= r.len_p75 && r.len_p75 <= r.len_p90 && r.len_p90 <= r.len_max);
  ck_assert(r.len_mean >= r.len_min && r.len_mean <= r.len_max);
  ck_assert(r.first_win.lo <= r.first_win.rate && r.first_win.rate <= r.first_win.hi);
  /* The rates and their intervals are the counts' Wilson intervals, the
   * score's interval that of ratings.h. */
  const stats_rate *rates[3] = {&r.first_win, &r.draw, &r.first_loss};
  for (int i = 0; i < 3; i++) {
    double lo, hi;
    ck_assert_double_eq(rates[i]->rate, (double)rates[i]->count / p.games);
    rating_wilson(rates[i]->rate, p.games, &lo, &hi);
    ck_assert_double_eq(rates[i]->lo, lo);
    ck_assert_double_eq(rates[i]->hi, hi);
  }
  double s, lo, hi;
  rating_score_ci(r.first_win.count, r.draw.count, r.first_loss.count, &s, &lo, &hi);
  ck_assert_double_eq(r.first_score, s);
  ck_assert_double_eq(r.first_score_lo, lo);
  ck_assert_double_eq(r.first_score_hi, hi);
  /* Threads do not change the numbers. */
  p.threads = 1;
  ck_assert_int_eq(stats_run(&G, "random", "random", &p, &r1, err, sizeof err), 0);
  ck_assert_int_eq(r1.first_win.count, r.first_win.count);
  ck_assert_int_eq(r1.len_median, r.len_median);
  ck_assert_double_eq(r1.mean_margin, r.mean_margin);
  ck_assert_int_eq(r1.grand_slams, r.grand_slams);
  /* Greedy moving first against random wins most games. */
  p.games = 60;
  ck_assert_int_eq(stats_run(&G, "greedy", "random", &p, &r, err, sizeof err), 0);
  ck_assert(r.first_win.rate > 0.7);
  /* Warri's grand slams give extra turns and are counted. */
  configure("warri");
  p.games = 200;
  ck_assert_int_eq(stats_run(&G, "random", "random", &p, &r, err, sizeof err), 0);
  ck_assert_int_gt(r.grand_slams, 0);
}
END_TEST

/* The first player's numbers are the first player's, whoever that is: with
 * North moving first the same random streams play the same games mirrored,
 * so every figure is the same. */
START_TEST(first_player_is_whoever_moves_first) {
  stats_params p = stats_defaults();
  p.games = (int)(200 * test_scale()) + 20;
  stats_result south, north;
  char err[256];
  configure("oware");
  ck_assert_int_eq(stats_run(&G, "greedy", "random", &p, &south, err, sizeof err), 0);
  char *north_first[] = {"first_player=1"};
  ck_assert_int_eq(game_configure(&G, "oware", 1, north_first, err, sizeof err), 0);
  ck_assert_int_eq(stats_run(&G, "greedy", "random", &p, &north, err, sizeof err), 0);
  ck_assert_int_eq(south.first_side, 0);
  ck_assert_int_eq(north.first_side, 1);
  ck_assert_int_eq(north.first_win.count, south.first_win.count);
  ck_assert_int_eq(north.first_loss.count, south.first_loss.count);
  ck_assert_double_eq(north.mean_margin, south.mean_margin);
  ck_assert_int_eq(north.len_median, south.len_median);
  ck_assert(north.first_win.rate > 0.7); /* greedy moved first, and won */
}
END_TEST

/* A hand-made set of 100 games with known answers: the first player wins
 * 70, draws 10 and loses 20; game k lasts k + 1 plies; 60 reach the
 * target, 30 end in famine, 10 by repetition; every game has 3 captures,
 * every fifth a grand slam; games 0 and 1 are the same game. The
 * intervals are Wilson's for 70/100 etc. (published tables: [0.604,
 * 0.781]), and the score's the normal interval of its observed variance,
 * 0.75 +- 1.96 sqrt(0.1625 / 100). */
START_TEST(summary_of_a_known_set) {
  enum { N = 100 };
  stats_game g[N];
  memset(g, 0, sizeof g);
  for (int k = 0; k < N; k++) {
    g[k].outcome = k < 70 ? 1 : k < 80 ? 0 : -1;
    g[k].margin = (int16_t)(k < 70 ? 4 : k < 80 ? 0 : -2);
    g[k].plies = (uint16_t)(k + 1);
    g[k].end = k % 10 < 6 ? GAME_END_TARGET : k % 10 < 9 ? GAME_END_FAMINE : GAME_END_REPETITION;
    g[k].captures = 3;
    g[k].grand_slams = k % 5 == 0;
    g[k].hash = k == 1 ? 0 : (uint64_t)k;
  }
  stats_result r;
  char err[128];
  ck_assert_int_eq(stats_summarize(g, N, GAME_SOUTH, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.games, 100);
  ck_assert_int_eq(r.first_win.count, 70);
  ck_assert_int_eq(r.draw.count, 10);
  ck_assert_int_eq(r.first_loss.count, 20);
  ck_assert_double_eq_tol(r.first_win.rate, 0.70, 1e-12);
  ck_assert_double_eq_tol(r.first_win.lo, 0.6041496156718804, 1e-9);
  ck_assert_double_eq_tol(r.first_win.hi, 0.7810524613377188, 1e-9);
  ck_assert_double_eq_tol(r.draw.lo, 0.05522854161313613, 1e-9);
  ck_assert_double_eq_tol(r.draw.hi, 0.1743673043676654, 1e-9);
  ck_assert_double_eq_tol(r.first_loss.lo, 0.1333659225590988, 1e-9);
  ck_assert_double_eq_tol(r.first_loss.hi, 0.28883096192650237, 1e-9);
  ck_assert_double_eq_tol(r.first_score, 0.75, 1e-12);
  ck_assert_double_eq_tol(r.first_score_lo, 0.6709898740666742, 1e-9);
  ck_assert_double_eq_tol(r.first_score_hi, 0.8290101259333258, 1e-9);
  ck_assert_double_eq_tol(r.mean_margin, 2.4, 1e-12);
  /* Lengths 1..100: mean 50.5, sd sqrt(100 * 101 / 12), nearest ranks. */
  ck_assert_double_eq_tol(r.len_mean, 50.5, 1e-12);
  ck_assert_double_eq_tol(r.len_sd, 29.011491975882016, 1e-9);
  ck_assert_int_eq(r.len_min, 1);
  ck_assert_int_eq(r.len_p10, 10);
  ck_assert_int_eq(r.len_p25, 25);
  ck_assert_int_eq(r.len_median, 50);
  ck_assert_int_eq(r.len_p75, 75);
  ck_assert_int_eq(r.len_p90, 90);
  ck_assert_int_eq(r.len_max, 100);
  ck_assert_int_eq(r.end_reason[GAME_END_TARGET], 60);
  ck_assert_int_eq(r.end_reason[GAME_END_FAMINE], 30);
  ck_assert_int_eq(r.end_reason[GAME_END_REPETITION], 10);
  ck_assert_int_eq(r.captures, 300);
  ck_assert_int_eq(r.grand_slams, 20);
  ck_assert_int_eq(r.distinct_games, 99);
  /* One game: no spread; none: refused. */
  ck_assert_int_eq(stats_summarize(g, 1, GAME_NORTH, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.first_side, GAME_NORTH);
  ck_assert_double_eq(r.len_sd, 0);
  ck_assert_int_eq(r.len_p10, 1);
  ck_assert_int_eq(r.len_p90, 1);
  ck_assert_int_eq(r.distinct_games, 1);
  ck_assert_int_eq(stats_summarize(g, 0, GAME_SOUTH, &r, err, sizeof err), -1);
  ck_assert_str_eq(err, "no games to summarize");
}
END_TEST

/* Games from a book start after its plies: the first two plies are the
 * book's, every game of one opening repeats between deterministic
 * agents, and the records count captures the whole way. */
START_TEST(games_from_a_book) {
  configure("oware");
  opening_line book[2] = {{2, {0, 1}}, {2, {5, 4}}};
  stats_params p = stats_defaults();
  p.games = 6;
  p.threads = 2;
  p.book = book;
  p.n_book = 2;
  stats_game g[6];
  char err[256];
  int calls = 0;
  ck_assert_int_eq(stats_play(&G, "alphabeta depth=2", "alphabeta depth=2", &p, count_calls, &calls,
                              g, err, sizeof err),
                   0);
  ck_assert_int_eq(calls, 6);
  for (int k = 0; k < 6; k++) {
    ck_assert_int_eq(g[k].n_open, 2);
    ck_assert_int_eq(g[k].open[0], book[k % 2].moves[0]);
    ck_assert_int_eq(g[k].open[1], book[k % 2].moves[1]);
    ck_assert_int_eq(g[k].open_mover[0], GAME_SOUTH);
    ck_assert_int_eq(g[k].open_mover[1], GAME_NORTH);
    ck_assert_int_gt(g[k].captures, 0);
    ck_assert(g[k].hash == g[k % 2].hash);
  }
  stats_result r;
  ck_assert_int_eq(stats_summarize(g, 6, GAME_SOUTH, &r, err, sizeof err), 0);
  ck_assert_int_eq(r.distinct_games, 2);
  p.book = NULL;
  ck_assert_int_eq(stats_play(&G, "random", "random", &p, NULL, NULL, g, err, sizeof err), -1);
}
END_TEST

START_TEST(bad_stats_requests) {
  configure("oware");
  stats_params p = stats_defaults();
  stats_result r;
  char err[256];
  p.games = 0;
  ck_assert_int_eq(stats_run(&G, "random", "random", &p, &r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "games"));
  p.games = 10;
  p.threads = 0;
  ck_assert_int_eq(stats_run(&G, "random", "random", &p, &r, err, sizeof err), -1);
  p.threads = 2;
  ck_assert_int_eq(stats_run(&G, "random", "alphabeta depth=99", &p, &r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "depth"));
}
END_TEST

START_TEST(stats_command_writes_json) {
  char json[300], out[8192];
  snprintf(json, sizeof json, "%s/sowzero-stats-%d.json", test_tmp(), (int)getpid());
  char *stats_argv[] = {"stats", "--games", "20", "--json", json, NULL};
  ck_assert_msg(test_sowzero(out, sizeof out, stats_argv) == 0, "%s", out);
  ck_assert_int_eq(access(json, R_OK), 0);
  FILE *f = fopen(json, "r");
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "\"first\": \"random\""));
  ck_assert_ptr_nonnull(strstr(buf, "\"games\": 20"));
  unlink(json);
  char *bad[] = {"stats", "--games", "0", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, bad), 2);
}
END_TEST

static Suite *stats_suite(void) {
  Suite *s = suite_create("stats");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, variant_statistics);
  tcase_add_test(t, first_player_is_whoever_moves_first);
  tcase_add_test(t, summary_of_a_known_set);
  tcase_add_test(t, games_from_a_book);
  tcase_add_test(t, bad_stats_requests);
  tcase_add_test(t, stats_command_writes_json);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(stats_suite)

/* Alpha-beta: equal to plain minimax with the same scores (depth-limited
 * and to the end of the game, with extra turns), time limits, and the
 * parameter table. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "game/game.h"
#include "search/alphabeta.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

/* ---- Plain minimax with alphabeta's score definition ---------------------------
 * Terminal: outcome * (AB_WIN - ply) + margin; horizon: ab_evaluate. No
 * pruning, no table; the history is copied per level (one per depth). */
#define MM_DEPTH 64
static game_hist *hstack[MM_DEPTH + 2];
static long mm_budget, mm_extra_turns;

static int minimax(const ab_search *s, const game_pos *p, int depth, int ply) {
  if (depth == 0) return ab_evaluate(s, p);
  if (--mm_budget < 0) return 0;
  if (!hstack[ply + 1]) hstack[ply + 1] = malloc(sizeof(game_hist));
  game_hist *hc = hstack[ply + 1];
  int best = -AB_INF;
  for (game_moves m = game_legal(&G, p); m; m &= m - 1) {
    game_pos q = *p;
    game_hist_copy(hc, hstack[ply]);
    game_step(&G, &q, hc, __builtin_ctz(m));
    int v;
    if (q.status != GAME_ONGOING)
      v = game_outcome(&q, p->mover) * (AB_WIN - (ply + 1)) + game_margin(&q, p->mover);
    else if (q.mover == p->mover)
      v = minimax(s, &q, depth - 1, ply + 1), mm_extra_turns += ply > 0;
    else
      v = -minimax(s, &q, depth - 1, ply + 1);
    if (v > best) best = v;
  }
  return best;
}

static int minimax_root(const ab_search *s, const game_pos *p, const game_hist *h, int depth,
                        long budget) {
  if (!hstack[0]) hstack[0] = malloc(sizeof(game_hist));
  game_hist_copy(hstack[0], h);
  mm_budget = budget;
  return minimax(s, p, depth, 0);
}

/* A random position with few seeds on the board (the rest in the stores,
 * neither store at the target), so that whole game trees are small. */
static int few_seeds_position(rng_t *r, game_pos *p) {
  int pits = G.n_pits, total = G.total_seeds, target = total / 2 + 1;
  int b = 3 + (int)rng_below(r, 6), cnt[GAME_MAX_PITS] = {0};
  if (b > total) b = total;
  for (int i = 0; i < b; i++) cnt[rng_below(r, (uint32_t)pits)]++;
  int rest = total - b, s0 = (int)rng_below(r, (uint32_t)rest + 1), s1 = rest - s0;
  if (s0 >= target || s1 >= target) return -1;
  char tok[GAME_MAX_PITS + 3][12], *argv[GAME_MAX_PITS + 3], err[256];
  snprintf(tok[0], sizeof tok[0], "%u", rng_below(r, 2));
  for (int i = 0; i < pits; i++) snprintf(tok[1 + i], sizeof tok[0], "%d", cnt[i]);
  snprintf(tok[pits + 1], sizeof tok[0], "%d", s0);
  snprintf(tok[pits + 2], sizeof tok[0], "%d", s1);
  for (int i = 0; i < pits + 3; i++) argv[i] = tok[i];
  if (G.rules->setboard(&G, p, pits + 3, argv, err, sizeof err)) return -1;
  return p->status == GAME_ONGOING ? 0 : -1;
}

/* The table of the depth-limited comparisons (MiB; 0: none). */
static int limited_tt_mb;
/* 1: the exhaustive comparisons search every position over one table. */
static int shared_table;

static void ab_vs_minimax(const char *preset, const char *settings, const char *weights,
                          int exhaustive, int n_fixed, const char *const *fixed) {
  configure_game(preset, settings);
  mm_extra_turns = 0;
  char err[256];
  ab_params prm = ab_defaults();
  if (weights) sscanf(weights, "%d %d %d", &prm.w_store, &prm.w_seeds, &prm.w_mobility);
  rng_t r;
  rng_seed(&r, 21, (uint64_t)exhaustive);
  game_hist *h = malloc(sizeof *h);
  int n = (int)((exhaustive ? 25 : 40) * test_scale()) + 5, done = 0, solved_wins = 0, skipped = 0;
  ab_search *kept = NULL;
  for (int it = 0; it < 50 * n && done < n; it++) {
    game_pos p;
    if (exhaustive && it < n_fixed) {
      p = pos(fixed[it]);
      game_hist_reset(h, &p);
    } else if (exhaustive) {
      if (few_seeds_position(&r, &p)) continue;
      game_hist_reset(h, &p);
      random_moves(&p, h, &r, (int)rng_below(&r, 4)); /* some history */
    } else {
      game_start(&G, &p);
      game_hist_reset(h, &p);
      random_moves(&p, h, &r, (int)rng_below(&r, 20));
    }
    if (p.status != GAME_ONGOING) continue;
    int depth = exhaustive ? MM_DEPTH - 2 : 1 + (int)rng_below(&r, 6);
    prm.depth = depth;
    prm.tt_mb = exhaustive ? 4 : limited_tt_mb; /* depth-limited: pure alpha-beta unless asked */
    ab_search *s = kept ? kept : ab_create(&G, &prm, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    if (shared_table && exhaustive) kept = s;
    long extra_before = mm_extra_turns;
    int want = minimax_root(s, &p, h, depth, exhaustive ? 40000 : 3000000);
    if (mm_budget < 0) { /* too big to enumerate: skip */
      skipped++;
      mm_extra_turns = extra_before;
      if (!kept) ab_free(s);
      continue;
    }
    ab_result res;
    ck_assert_int_eq(ab_run(s, &p, h, &res, err, sizeof err), 0);
    if (exhaustive && !res.exact) { /* a line outlived the depth: not comparable */
      mm_extra_turns = extra_before;
      if (!kept) ab_free(s);
      continue;
    }
    ck_assert_msg(res.score == want, "%s depth %d: alphabeta %d, minimax %d", preset, depth,
                  res.score, want);
    /* The best move achieves the score. */
    game_pos q = p;
    game_hist_copy(hstack[1] ? hstack[1] : (hstack[1] = malloc(sizeof(game_hist))), h);
    game_step(&G, &q, hstack[1], res.best);
    int v;
    if (q.status != GAME_ONGOING) {
      v = game_outcome(&q, p.mover) * (AB_WIN - 1) + game_margin(&q, p.mover);
    } else {
      game_hist_copy(hstack[0], hstack[1]);
      mm_budget = 3000000;
      /* Scores below the root are one ply further from it. */
      int sub = minimax(s, &q, depth - 1, 0);
      if (sub > AB_WIN / 2) sub -= 1;
      if (sub < -AB_WIN / 2) sub += 1;
      v = q.mover == p.mover ? sub : -sub;
    }
    ck_assert_msg(v == want, "%s: best move %d scores %d, not %d", preset, res.best, v, want);
    solved_wins += want > AB_WIN / 2;
    if (!kept) ab_free(s);
    done++;
  }
  ab_free(kept);
  ck_assert_msg(done >= n / 2, "%s: only %d positions compared", preset, done);
  if (exhaustive) ck_assert_int_gt(solved_wins, 0);
  if (!strcmp(preset, "warri"))
    ck_assert_msg(mm_extra_turns > 0, "no extra turn below the root was compared");
  if (getenv("SOWZERO_TEST_VERBOSE"))
    fprintf(stderr, "%s %s: %d compared, %d wins, %d skipped, %ld extra turns\n", preset,
            settings ? settings : "", done, solved_wins, skipped, mm_extra_turns);
  free(h);
}

START_TEST(alphabeta_depth_limited_equals_minimax) {
  ab_vs_minimax("oware", NULL, NULL, 0, 0, NULL);
  ab_vs_minimax("oware", NULL, "100 7 13", 0, 0, NULL);
  ab_vs_minimax("warri", "houses=4 seeds=3", "100 3 5", 0, 0, NULL);
}
END_TEST

/* With a table: Oware meets a position again only at the same depth below
 * the root, so every bound the table gives (exact, lower, upper, each
 * within its window) leaves the score minimax's. */
START_TEST(alphabeta_with_table_equals_minimax) {
  limited_tt_mb = 4;
  ab_vs_minimax("oware", NULL, NULL, 0, 0, NULL);
  ab_vs_minimax("oware", NULL, "100 7 13", 0, 0, NULL);
  limited_tt_mb = 0;
}
END_TEST

/* The other games: extra turns and stores (Kenya), relays (Laps, Nam Nam,
 * Kujifunza), passes and rounds (Nam Nam), pit-and-direction moves
 * (Kujifunza). */
START_TEST(alphabeta_equals_minimax_every_game) {
  static const char *const games[] = {"bao-kenya", "bao-laps", "namnam", "kujifunza"};
  for (int i = 0; i < 4; i++) ab_vs_minimax(games[i], NULL, NULL, 0, 0, NULL);
}
END_TEST

START_TEST(alphabeta_exhaustive_equals_minimax) {
  ab_vs_minimax("oware", "houses=3 seeds=2", NULL, 1, 0, NULL);
}
END_TEST

/* One table for every position: a search meets entries that other
 * searches stored, from other roots and histories. Solved scores do not
 * depend on the search that found them, and the key keeps apart what the
 * history would change. */
START_TEST(alphabeta_exhaustive_over_one_table) {
  shared_table = 1;
  ab_vs_minimax("oware", "houses=3 seeds=2", NULL, 1, 0, NULL);
  ab_vs_minimax("oware", "houses=4 seeds=2", NULL, 1, 0, NULL);
  shared_table = 0;
}
END_TEST

START_TEST(alphabeta_exhaustive_extra_turns) {
  /* Warri's grand slam captures and the capturer moves again. */
  /* On two pits a side grand slams are common; in these positions one
   * happens below the root (found by enumeration, checked here again). */
  static const char *const fixed[] = {"0 1 3 2 1 2 3", "1 0 3 2 1 5 1", "1 3 1 1 0 3 4",
                                      "0 3 3 0 1 1 4", "0 1 3 2 0 5 1", "0 2 3 3 0 4 0"};
  ab_vs_minimax("warri", "houses=2 seeds=3", NULL, 1, 6, fixed);
}
END_TEST

/* Stored scores read back as they were: a second search of a position
 * over the table the first one filled finds the same score and move. The
 * store weight is large (20000: horizon scores up to about 480000) so that
 * they reach far from 0, where the table must not take them for win
 * distances (above AB_WIN / 2). */
START_TEST(table_returns_what_it_stored) {
  configure_game("oware", NULL);
  char err[256];
  rng_t r;
  rng_seed(&r, 5, 0);
  game_hist *h = malloc(sizeof *h);
  int compared = 0;
  for (int it = 0; it < 40; it++) {
    ab_params prm = ab_defaults();
    prm.depth = 5;
    prm.tt_mb = 1;
    prm.w_store = 20000;
    ab_search *s = ab_create(&G, &prm, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    random_moves(&p, h, &r, 20 + (int)rng_below(&r, 40));
    if (p.status != GAME_ONGOING) {
      ab_free(s);
      continue;
    }
    ab_result a, b;
    ck_assert_int_eq(ab_run(s, &p, h, &a, err, sizeof err), 0);
    ck_assert_int_eq(ab_run(s, &p, h, &b, err, sizeof err), 0);
    ck_assert_msg(a.score == b.score && a.best == b.best,
                  "position %d: %d (move %d), then %d (move %d) over the kept table", it, a.score,
                  a.best, b.score, b.best);
    compared++;
    ab_free(s);
  }
  ck_assert_int_gt(compared, 20);
  free(h);
}
END_TEST

/* The table's key keeps apart positions that differ only in a count the
 * rules read and the board does not show: Nam Nam's plies of the round
 * (at max_plies the round ends). Searched over a table that a search of
 * the same board with another count filled, a position scores what its
 * own fresh search scores. */
START_TEST(table_keeps_apart_what_the_rules_count) {
  configure_game("namnam", "max_plies=24");
  char err[256];
  rng_t r;
  rng_seed(&r, 11, 0);
  game_hist *h = malloc(sizeof *h);
  ab_params prm = ab_defaults();
  prm.depth = 6;
  prm.tt_mb = 4;
  int telling = 0;
  for (int it = 0; it < 80 && telling < 12; it++) {
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    random_moves(&p, h, &r, 2 + (int)rng_below(&r, 8));
    if (p.status != GAME_ONGOING) continue;
    game_pos pos[2] = {p, p};
    static const int counts[2] = {20, 2}; /* the round ends 4 plies ahead, or not */
    for (int k = 0; k < 2; k++) {
      pos[k].aux[1] = (uint8_t)(counts[k] & 255);
      pos[k].aux[2] = (uint8_t)(counts[k] >> 8);
    }
    ab_result fresh[2], again;
    for (int k = 0; k < 2; k++) {
      ab_search *s = ab_create(&G, &prm, err, sizeof err);
      ck_assert_msg(s != NULL, "%s", err);
      ck_assert_int_eq(ab_run(s, &pos[k], h, &fresh[k], err, sizeof err), 0);
      ab_free(s);
    }
    if (fresh[0].score == fresh[1].score) continue; /* the count changes nothing here */
    ab_search *s = ab_create(&G, &prm, err, sizeof err);
    ck_assert_int_eq(ab_run(s, &pos[1], h, &again, err, sizeof err), 0);
    ck_assert_int_eq(ab_run(s, &pos[0], h, &again, err, sizeof err), 0);
    ck_assert_msg(again.score == fresh[0].score,
                  "position %d: %d over the other count's table, %d fresh", it, again.score,
                  fresh[0].score);
    ab_free(s);
    telling++;
  }
  ck_assert_int_ge(telling, 12);
  free(h);
}
END_TEST

START_TEST(alphabeta_time_limit) {
  configure_game("oware", NULL);
  char err[256];
  ab_params prm = ab_defaults();
  prm.depth = AB_MAX_DEPTH;
  prm.time = 0.05;
  ab_search *s = ab_create(&G, &prm, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  ab_result r;
  ck_assert_int_eq(ab_run(s, &p, NULL, &r, err, sizeof err), 0);
  ck_assert_double_lt(r.seconds, 0.5);
  /* Not much before the limit either: the start is far from solved, and a
   * new iteration is started up to 0.4 of the time. */
  ck_assert_double_ge(r.seconds, 0.4 * 0.05);
  ck_assert_int_ge(r.depth, 4);
  ck_assert(game_legal(&G, &p) >> r.best & 1);
  /* Move after move with the same search, as an agent plays a game: the
   * search after one stopped by its deadline (it ran the whole time, an
   * iteration cut off) starts afresh, and completes at least its first
   * iteration, which no deadline cuts. A search is cut when its limit
   * falls between 2.5 times one iteration's end and the next's: the limits
   * grow by a quarter a move, 0.02 s to 0.19 s and again, so that one of
   * them does on a CPU of any speed (a fixed one can miss every such gap,
   * move after move). */
  int cut = r.seconds >= prm.time, after_cut = 0;
  double limit = 0.02;
  for (int move = 1; move < 24 && !after_cut && p.status == GAME_ONGOING; move++) {
    game_play(&G, &p, r.best);
    after_cut = cut;
    ab_set_time(s, limit);
    ck_assert_int_eq(ab_run(s, &p, NULL, &r, err, sizeof err), 0);
    ck_assert_int_ge(r.depth, 1);
    ck_assert(r.best >= 0 && (game_legal(&G, &p) >> r.best & 1));
    cut |= r.seconds >= limit;
    limit = limit > 0.15 ? 0.02 : limit * 1.25;
  }
  ck_assert(after_cut);
  ab_free(s);
}
END_TEST

/* The table: a second search of the same position reuses it (fewer
 * nodes); after ab_clear the search visits exactly the nodes of a fresh
 * one, as if the table were new. A table larger than half the machine's
 * memory is refused with a message, not paged in until the process dies. */
START_TEST(table_reuse_and_clear) {
  configure_game("oware", NULL);
  char err[256];
  ab_params prm = ab_defaults();
  prm.depth = 7;
  ab_search *s = ab_create(&G, &prm, err, sizeof err);
  ck_assert_msg(s != NULL, "%s", err);
  game_pos p;
  game_start(&G, &p);
  ab_result fresh, again, cleared;
  ck_assert_int_eq(ab_run(s, &p, NULL, &fresh, err, sizeof err), 0);
  ck_assert_int_eq(ab_run(s, &p, NULL, &again, err, sizeof err), 0);
  ck_assert_uint_lt(again.nodes, fresh.nodes);
  ab_clear(s);
  ck_assert_int_eq(ab_run(s, &p, NULL, &cleared, err, sizeof err), 0);
  ck_assert_uint_eq(cleared.nodes, fresh.nodes);
  ck_assert_int_eq(cleared.best, fresh.best);
  /* The table is as large as asked, never larger: the most entries, a
   * power of two, that fit. */
  ck_assert_uint_le(ab_table_bytes(s), (size_t)16 << 20);
  ck_assert_uint_gt(2 * ab_table_bytes(s), (size_t)16 << 20);
  ab_free(s);
  for (int mb = 0; mb <= 5; mb++) {
    prm.tt_mb = mb;
    ck_assert_ptr_nonnull(s = ab_create(&G, &prm, err, sizeof err));
    size_t bytes = ab_table_bytes(s), want = (size_t)mb << 20;
    ck_assert_msg(mb ? bytes <= want && 2 * bytes > want && !(bytes & (bytes - 1)) : bytes == 0,
                  "tt=%d: a table of %zu bytes", mb, bytes);
    ab_free(s);
  }
  prm.tt_mb = 65536;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if ((double)pages * (double)page < 65536.0 * 1048576.0) {
    ck_assert_ptr_null(ab_create(&G, &prm, err, sizeof err));
    ck_assert_msg(strstr(err, "tt=65536 MiB is more than half of this machine's memory") != NULL,
                  "%s", err);
  }
}
END_TEST

/* ---- Parameters ------------------------------------------------------------------ */

START_TEST(params_table) {
  char err[256];
  ab_params p = ab_defaults();
  ck_assert_int_eq(p.depth, 6);
  ck_assert_double_eq(p.time, 0);
  ck_assert_int_eq(p.tt_mb, 16);
  ck_assert_int_eq(p.w_store, 100);
  ck_assert_int_eq(p.w_seeds, 10);
  ck_assert_int_eq(p.w_mobility, 10);
  ck_assert_int_eq(ab_params_set(&p, "tt", "4", err, sizeof err), 0);
  ck_assert_int_eq(p.tt_mb, 4);
  ck_assert_int_eq(ab_params_set(&p, "w_seeds", "-3", err, sizeof err), 0);
  ck_assert_int_eq(p.w_seeds, -3);
  ck_assert_int_eq(ab_params_set(&p, "depth", "65", err, sizeof err), -1);
  ck_assert_str_eq(err, "bad value '65' for depth (an integer 1..64)");
  /* The weights' ranges, both ends. */
  const char *weights[] = {"w_store", "w_seeds", "w_mobility"};
  for (int i = 0; i < 3; i++) {
    char want[128];
    ck_assert_int_eq(ab_params_set(&p, weights[i], "100000", err, sizeof err), 0);
    ck_assert_int_eq(ab_params_set(&p, weights[i], "-100000", err, sizeof err), 0);
    ck_assert_int_eq(ab_params_set(&p, weights[i], "100001", err, sizeof err), -1);
    snprintf(want, sizeof want, "bad value '100001' for %s (an integer -100000..100000)",
             weights[i]);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(ab_params_set(&p, weights[i], "-100001", err, sizeof err), -1);
  }
  ck_assert_int_eq(p.w_store, -100000);
  ck_assert_int_eq(p.w_seeds, -100000);
  ck_assert_int_eq(p.w_mobility, -100000);
  ck_assert_int_eq(ab_params_set(&p, "tt_mb", "4", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "unknown setting 'tt_mb' (known: depth, time, tt,"));
  ck_assert_ptr_eq(kv_find(ab_params_table(), "tt"), &ab_params_table()->keys[2]);
  /* Values set by code meet the same ranges. */
  configure_game("oware", NULL);
  p.depth = 0;
  ck_assert_ptr_null(ab_create(&G, &p, err, sizeof err));
  ck_assert_str_eq(err, "depth 0 is out of range (an integer 1..64)");
}
END_TEST

static Suite *alphabeta_suite(void) {
  Suite *s = suite_create("alphabeta");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, alphabeta_depth_limited_equals_minimax);
  tcase_add_test(t, alphabeta_with_table_equals_minimax);
  tcase_add_test(t, alphabeta_equals_minimax_every_game);
  tcase_add_test(t, alphabeta_exhaustive_equals_minimax);
  tcase_add_test(t, alphabeta_exhaustive_over_one_table);
  tcase_add_test(t, alphabeta_exhaustive_extra_turns);
  tcase_add_test(t, alphabeta_time_limit);
  tcase_add_test(t, table_reuse_and_clear);
  tcase_add_test(t, table_returns_what_it_stored);
  tcase_add_test(t, table_keeps_apart_what_the_rules_count);
  tcase_add_test(t, params_table);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(alphabeta_suite)

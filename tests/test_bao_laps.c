/* Bao, Kenyan with laps (docs/games/bao-laps.md): the worked examples L1-L3,
 * each rule sentence and option, endless moves against a second
 * implementation, perft goldens and random stress. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "tests/gametest.h"
#include "tests/relay_ref.h"
#include "tests/testutil.h"

static void configure(const char *settings) { configure_game("bao-laps", settings); }

/* ---- Worked examples, docs/games/bao-laps.md ------------------------------- */

START_TEST(l1_relays_and_capture) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ck_assert(play_legal(&p, 0) & GAME_PLAY_CAPTURE);
  expect_board(&p, "1 0 1 4 4 1 3 3  0 3 0 0 3 3 0 3  3 0");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(l2_all_singles) {
  configure(NULL);
  const char *l2 = "0  1 0 1 0 1 1 0 0  0 1 3 0 2 0 0 0  6 16";
  game_pos p = pos(l2);
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 2) | (1u << 4) | (1u << 5));
  play_legal(&p, 2);
  expect_board(&p, "1 0 0 1 1 1 0 0  0 1 3 0 0 0 0 0  8 16");
  p = pos(l2);
  ck_assert_int_eq(play_legal(&p, 4), 0);
  expect_board(&p, "1 0 1 0 0 0 1 1  0 1 3 0 2 0 0 0  6 16");
}
END_TEST

START_TEST(l3_single_seed_restriction) {
  configure(NULL);
  game_pos p = pos("0  3 0 2 0 1 0 0 0  0 2 0 1 0 4 1 0  10 8");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 2));
  play_legal(&p, 2);
  expect_board(&p, "3 0 0 1 0 1 1 0  0 0 0 1 0 4 1 0  12 8");
}
END_TEST

/* ---- Rule sentences ------------------------------------------------------------ */

/* North's pits are his actions 0-7; singles only when every non-empty pit
 * is one. */
START_TEST(legal_moves_north) {
  configure(NULL);
  game_pos p = pos("1  2 2 2 2 0 0 0 0  1 0 1 3 0 0 2 0  8 9");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 3) | (1u << 6));
  p = pos("1  2 2 2 2 2 0 0 0  1 0 1 0 0 0 1 0  9 10");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 2) | (1u << 6));
}
END_TEST

/* No origin skip: 16 seeds end in the emptied origin, which holds 1: a
 * capture of the opposite pit (sown on the way). */
START_TEST(origin_is_sown) {
  configure(NULL);
  game_pos p = pos("0  16 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  8 8");
  play_legal(&p, 0);
  expect_board(&p, "1 1 1 1 1 1 1 1  1 1 1 1 1 1 1 0  9 8");
}
END_TEST

/* A move ending in an empty pit of the opponent captures nothing. */
START_TEST(no_capture_on_the_opponents_side) {
  configure(NULL);
  game_pos p = pos("0  0 0 0 0 0 0 0 1  0 3 3 3 3 3 3 3  5 5");
  ck_assert_int_eq(play_legal(&p, 7), 0);
  expect_board(&p, "0 0 0 0 0 0 0 0  1 3 3 3 3 3 3 3  5 5");
  ck_assert_int_eq(p.nocap, 1);
}
END_TEST

/* The player to move with an empty row: the other captures all that is
 * left. Here South's capture empties North's row. */
START_TEST(empty_row_ends_the_game) {
  configure(NULL);
  game_pos p = pos("0  0 0 0 0 0 0 1 0  2 0 0 0 0 0 0 0  14 15");
  play_legal(&p, 6);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_FAMINE);
  ck_assert_int_eq(p.final[0], 17);
  ck_assert_int_eq(p.final[1], 15);
  ck_assert_int_eq(p.winner, GAME_SOUTH);
  /* The same when the side to move starts with nothing. */
  p = pos("1  2 1 0 0 0 0 0 0  0 0 0 0 0 0 0 0  13 16");
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.final[0], 16);
  ck_assert_int_eq(p.winner, GAME_DRAW);
}
END_TEST

/* 17 captured ends the game at once (target); target=0 plays on. */
START_TEST(early_end_at_majority) {
  configure(NULL);
  game_pos p = pos("0  1 0 0 0 0 0 0 0  0 0 0 0 0 0 3 2  15 11");
  play_legal(&p, 0); /* pit 1 empty: captures pit 14's 3 */
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_TARGET);
  ck_assert_int_eq(p.final[0], 19);
  ck_assert_int_eq(p.final[1], 13);
  configure("target=0");
  p = pos("0  1 0 0 0 0 0 0 0  0 0 0 0 0 0 3 2  15 11");
  play_legal(&p, 0);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_int_eq(p.store[0], 18);
}
END_TEST

START_TEST(stalemate_rules) {
  configure("nocap_limit=2");
  game_pos p = pos("0  0 0 0 0 0 0 0 1  0 3 3 3 3 3 3 3  5 5");
  play_legal(&p, 7); /* no capture */
  ck_assert_int_eq(p.status, GAME_ONGOING);
  play_legal(&p, __builtin_ctz(game_legal(&G, &p)));
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_NOCAPTURE);
  ck_assert_int_eq(p.final[0] + p.final[1], 32);
  configure("nocap_limit=2 stalemate=draw");
  p = pos("0  0 0 0 0 0 0 0 1  0 3 3 3 3 3 3 3  5 5");
  play_legal(&p, 7);
  play_legal(&p, __builtin_ctz(game_legal(&G, &p)));
  ck_assert_int_eq(p.winner, GAME_DRAW);
  configure("seeds=3 target=25 first_player=1");
  game_start(&G, &p);
  ck_assert_int_eq(G.total_seeds, 48);
  ck_assert_int_eq(p.pits[9], 3);
  ck_assert_int_eq(p.mover, GAME_NORTH);
  configure("max_plies=1 nocap_limit=0");
  game_start(&G, &p);
  play_legal(&p, 1);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXPLIES);
}
END_TEST

/* ---- Reference implementation ---------------------------------------------------
 * docs/games/bao-laps.md word by word, with every relay pick-up state in a table. */

typedef struct {
  int b[16], end, endless, taken;
  int relays, relay_pit[8], relay_seeds[8]; /* the first relays */
} ref_result;

static ref_result ref_move(const game_pos *p, int pit) {
  ref_result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < 16; i++) r.b[i] = p->pits[i];
  int at = pit, hand = r.b[pit];
  long dropped = 0;
  r.b[pit] = 0;
  ref_set_clear();
  for (;;) {
    while (hand > 0) {
      at = (at + 1) % 16;
      r.b[at]++;
      hand--;
      dropped++;
    }
    if (r.b[at] == 1) break;
    uint8_t s[17];
    for (int i = 0; i < 16; i++) s[i] = (uint8_t)r.b[i];
    s[16] = (uint8_t)at;
    if (ref_set_add(s, sizeof s) || dropped >= 100000) {
      r.endless = 1; /* stopped before the repeated pick-up */
      r.end = at;
      return r;
    }
    if (r.relays < 8) {
      r.relay_pit[r.relays] = at;
      r.relay_seeds[r.relays] = r.b[at];
    }
    r.relays++;
    hand = r.b[at];
    r.b[at] = 0;
  }
  r.end = at;
  if (at / 8 == p->mover) {
    r.taken = r.b[15 - at];
    r.b[15 - at] = 0;
  }
  return r;
}

/* L1's relays, by the reference (the engine gives the same board): pits 2,
 * 5, 8, 11 and 14 with 3 seeds each, then pit 1 with 4; the move ends in
 * pit 5, emptied by its own relay, and takes pit 10's 3. */
START_TEST(l1_relays_by_the_reference) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ref_result rr = ref_move(&p, 0);
  static const int pits[6] = {2, 5, 8, 11, 14, 1}, seeds[6] = {3, 3, 3, 3, 3, 4};
  ck_assert_int_eq(rr.relays, 6);
  for (int i = 0; i < 6; i++) {
    ck_assert_int_eq(rr.relay_pit[i], pits[i]);
    ck_assert_int_eq(rr.relay_seeds[i], seeds[i]);
  }
  ck_assert_int_eq(rr.end, 5);
  ck_assert_int_eq(rr.taken, 3);
  game_play(&G, &p, 0);
  for (int i = 0; i < 16; i++) ck_assert_int_eq(p.pits[i], rr.b[i]);
}
END_TEST

static game_moves ref_legal(const game_pos *p, int truncate, long *endless) {
  game_moves multi = 0, single = 0, m = 0;
  for (int a = 0; a < 8; a++) {
    int c = p->pits[p->mover * 8 + a];
    multi |= (game_moves)(c >= 2) << a;
    single |= (game_moves)(c == 1) << a;
  }
  for (game_moves r = multi ? multi : single; r; r &= r - 1) {
    int a = __builtin_ctz(r);
    ref_result rr = ref_move(p, p->mover * 8 + a);
    *endless += rr.endless;
    if (!rr.endless || truncate) m |= 1u << a;
  }
  return m;
}

static long check_against_reference(const char *settings, long games, uint64_t seed) {
  configure(settings);
  int truncate = strstr(settings, "truncate") != NULL;
  rng_t r;
  rng_seed(&r, seed, 0);
  long endless = 0, nomoves = 0;
  for (long k = 0; k < games; k++) {
    game_pos p;
    game_start(&G, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = game_legal(&G, &p);
      CHECK(m == ref_legal(&p, truncate, &endless), "legal %x differs from the reference", m);
      int a = game_nth_action(m, (int)rng_below(&r, (uint32_t)game_count(m)));
      game_pos before = p;
      game_play(&G, &p, a);
      ref_result rr = ref_move(&before, before.mover * 8 + a);
      if (rr.endless) rr.taken = 0; /* a cut move captures nothing */
      for (int i = 0; i < 16; i++)
        CHECK(p.pits[i] == rr.b[i], "pit %d: %d, reference %d", i, p.pits[i], rr.b[i]);
      CHECK(p.store[before.mover] == before.store[before.mover] + rr.taken, "store");
      if (p.status == GAME_OVER && p.end_reason == GAME_END_NOMOVES) {
        /* Every move of the side to move is endless: the other takes all. */
        long e = 0;
        game_pos q = p;
        q.status = GAME_ONGOING;
        CHECK(ref_legal(&q, 0, &e) == 0, "no-move ending with a legal move");
        int rest = 0;
        for (int i = 0; i < 16; i++) rest += p.pits[i];
        CHECK(p.final[1 - p.mover] == p.store[1 - p.mover] + rest, "no-move award");
        nomoves++;
      }
    }
  }
  return endless * 1000 + nomoves;
}

START_TEST(engine_matches_reference) {
  long n = check_against_reference("", (long)(30000 * test_scale()), 5);
  /* Random games meet endless moves (about 1 in 1,200 plies), and now and
   * then a side whose every move is endless. */
  if (test_scale() >= 1.0) {
    ck_assert_int_gt(n / 1000, 0);
    ck_assert_int_gt(n % 1000, 0);
  }
}
END_TEST

START_TEST(engine_matches_reference_truncate) {
  check_against_reference("endless_move=truncate", (long)(30000 * test_scale()), 6);
}
END_TEST

/* ---- Perft ------------------------------------------------------------------ */

#include "tests/perft_goldens_bao_laps.h"

START_TEST(perft_goldens) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  expect_perft(&p, 0, perft_bao_laps, test_scale() < 1.0 ? 8 : PERFT_BAO_LAPS_DEPTH, "start");
}
END_TEST

/* Depth 1: South's 8 pits of 2. Depth 2: the start is the same from every
 * pit, so the move from pit k is L1's relay chain turned by k pits; it ends
 * in pit 5+k, which is South's (a capture of pit 10-k) only for k <= 2.
 * North then plays each of his pits holding 2 or more (none of these moves
 * is endless). Counted here from L1's board before its capture. */
START_TEST(perft_start_by_hand) {
  static const int l1[16] = {1, 0, 1, 4, 4, 1, 3, 3, 0, 3, 3, 0, 3, 3, 0, 3};
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ck_assert_uint_eq(perft(&p, 1), 8);
  uint64_t d2 = 0;
  for (int k = 0; k < 8; k++) {
    int b[16];
    for (int i = 0; i < 16; i++) b[(i + k) % 16] = l1[i];
    if (5 + k < 8) b[10 - k] = 0;
    game_pos q = p;
    game_play(&G, &q, k);
    for (int i = 0; i < 16; i++) ck_assert_int_eq(q.pits[i], b[i]);
    for (int i = 8; i < 16; i++) d2 += b[i] >= 2;
  }
  ck_assert_uint_eq(d2, 39);
  ck_assert_uint_eq(perft(&p, 2), d2);
}
END_TEST

/* ---- Random stress ------------------------------------------------------------- */

START_TEST(stress) {
  configure(NULL);
  random_run run = {.games = (long)(100000 * test_scale()), .seed = 7, .max_ply = 600,
                    .seeds = 32, .finals = 32,
                    .common_ends = {GAME_END_TARGET, GAME_END_FAMINE, GAME_END_NOMOVES}};
  random_games(&run);
}
END_TEST

/* ---- Other checks ------------------------------------------------------------- */

START_TEST(encode_is_from_movers_view) {
  configure(NULL);
  game_pos a = pos("0  1 2 3 0 0 0 4 1  2 2 0 0 2 0 0 3  6 6");
  game_pos b = pos("1  2 2 0 0 2 0 0 3  1 2 3 0 0 0 4 1  6 6");
  float fa[GAME_MAX_FEATURES], fb[GAME_MAX_FEATURES];
  ck_assert_int_eq(G.n_features, 68);
  expect_same_encoding(&a, &b, fa, fb);
  ck_assert_float_eq(fa[4], 0.5f); /* own pit 1: 2 seeds */
  ck_assert_float_eq(fa[64], 6.0f / 17);
}
END_TEST

START_TEST(setboard_and_tokens) {
  configure(NULL);
  setboard_fails("0  2 2 2 2 2 2 2 2  2 2 2 2 2 2 2 2  0 1",
                 "pits and stores hold 33 seeds, this game has 32");
  game_pos p;
  game_start(&G, &p);
  expect_tokens(&p, "2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 0 0");
  random_round_trips(3, 300);
  char buf[256];
  game_render(&G, &p, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "South  [   2   2") != NULL, "%s", buf);
}
END_TEST

Suite *bao_laps_suite(void) {
  Suite *s = suite_create("bao_laps");
  TCase *ex = tcase_create("worked examples");
  tcase_add_test(ex, l1_relays_and_capture);
  tcase_add_test(ex, l2_all_singles);
  tcase_add_test(ex, l3_single_seed_restriction);
  suite_add_tcase(s, ex);
  TCase *ru = tcase_create("rules");
  tcase_add_test(ru, legal_moves_north);
  tcase_add_test(ru, origin_is_sown);
  tcase_add_test(ru, no_capture_on_the_opponents_side);
  tcase_add_test(ru, empty_row_ends_the_game);
  tcase_add_test(ru, early_end_at_majority);
  tcase_add_test(ru, stalemate_rules);
  suite_add_tcase(s, ru);
  TCase *rf = tcase_create("reference");
  tcase_set_timeout(rf, 120);
  tcase_add_test(rf, l1_relays_by_the_reference);
  tcase_add_test(rf, engine_matches_reference);
  tcase_add_test(rf, engine_matches_reference_truncate);
  suite_add_tcase(s, rf);
  TCase *pf = tcase_create("perft");
  tcase_set_timeout(pf, 120);
  tcase_add_test(pf, perft_start_by_hand);
  tcase_add_test(pf, perft_goldens);
  suite_add_tcase(s, pf);
  TCase *st = tcase_create("stress");
  tcase_set_timeout(st, 300);
  tcase_add_test(st, stress);
  suite_add_tcase(s, st);
  TCase *ot = tcase_create("other");
  tcase_add_test(ot, encode_is_from_movers_view);
  tcase_add_test(ot, setboard_and_tokens);
  suite_add_tcase(s, ot);
  return s;
}

TEST_MAIN(bao_laps_suite)

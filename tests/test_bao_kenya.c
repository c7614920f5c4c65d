/* Bao for Kenyan children (docs/games/bao-kenya.md): the worked examples K1-K4,
 * each rule sentence and option, a second implementation of the move,
 * perft goldens and random stress. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "tests/gametest.h"
#include "tests/testutil.h"

static void configure(const char *settings) { configure_game("bao-kenya", settings); }

/* ---- Worked examples, docs/games/bao-kenya.md ------------------------------ */

START_TEST(k1_store_and_extra_turn) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  play_legal(&p, 5);
  expect_board(&p, "3 3 3 3 3 0 4 4  3 3 3 3 3 3 3 3  1 0");
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  play_legal(&p, 7);
  expect_board(&p, "3 3 3 3 3 0 4 0  4 4 4 3 3 3 3 3  2 0");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(k2_capture) {
  configure(NULL);
  game_pos p = pos("0  2 1 0 4 0 0 3 1  2 5 0 1 2 6 3 0  10 8");
  ck_assert(play_legal(&p, 0) & GAME_PLAY_CAPTURE);
  expect_board(&p, "0 2 1 4 0 0 3 1  2 5 0 1 2 0 3 0  16 8");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(k3_seventeen_seeds_skip_origin) {
  configure(NULL);
  game_pos p = pos("0  0 1 0 17 2 0 1 0  1 1 0 2 0 1 0 1  12 9");
  ck_assert_int_eq(play_legal(&p, 3), 0);
  expect_board(&p, "1 2 1 0 4 1 2 1  2 2 1 3 1 2 1 2  13 9");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(k4_self_starvation) {
  configure(NULL);
  game_pos p = pos("1  1 0 2 0 0 0 0 3  0 0 0 0 0 0 2 1  20 19");
  play_legal(&p, 7); /* pit 15 */
  ck_assert_int_eq(p.mover, GAME_NORTH);
  play_legal(&p, 6); /* pit 14: 15 and the store */
  ck_assert_int_eq(p.mover, GAME_NORTH);
  play_legal(&p, 7);
  expect_board(&p, "1 0 2 0 0 0 0 3  0 0 0 0 0 0 0 0  20 22");
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_FAMINE);
  ck_assert_int_eq(p.final[0], 26);
  ck_assert_int_eq(p.final[1], 22);
  ck_assert_int_eq(p.winner, GAME_SOUTH);
}
END_TEST

/* ---- Rule sentences ------------------------------------------------------------ */

/* Any non-empty own pit, all eight; North's actions count from his left. */
START_TEST(legal_moves_all_eight_pits) {
  configure(NULL);
  game_pos p = pos("0  1 0 2 0 5 0 0 3  0 4 0 0 6 0 0 1  13 13");
  ck_assert_uint_eq(game_legal(&G, &p), 0x95);
  p = pos("1  1 0 2 0 5 0 0 3  0 4 0 0 6 0 0 1  13 13");
  ck_assert_uint_eq(game_legal(&G, &p), 0x92);
}
END_TEST

/* North sows into his own store (after pit 15) and skips South's. */
START_TEST(north_sows_own_store_only) {
  configure(NULL);
  game_pos p = pos("1  3 3 3 3 3 3 3 3  3 3 3 3 3 3 1 5  0 0");
  play_legal(&p, 7); /* pit 15: store N, 0, 1, 2, 3 */
  expect_board(&p, "4 4 4 4 3 3 3 3  3 3 3 3 3 3 1 0  0 1");
  ck_assert_int_eq(p.mover, GAME_SOUTH);
}
END_TEST

/* The origin is skipped on every lap: 33 seeds skip it twice. */
START_TEST(origin_skipped_every_lap) {
  configure(NULL);
  /* 33 seeds from pit 0: two laps of 16 slots (pits 1-15 and the store),
   * then pit 1 again. */
  game_pos p = pos("0  33 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  7 8");
  play_legal(&p, 0);
  expect_board(&p, "0 3 2 2 2 2 2 2  2 2 2 2 2 2 2 2  9 8");
}
END_TEST

/* sow_both_stores: K3's 17 seeds now reach North's store and end in pit 2,
 * which was empty: a capture. 18 seeds skip the origin at the 18th. */
START_TEST(sow_both_stores_option) {
  configure("sow_both_stores=yes");
  game_pos p = pos("0  0 1 0 17 2 0 1 0  1 1 0 2 0 1 0 1  12 9");
  play_legal(&p, 3);
  expect_board(&p, "1 2 1 0 3 1 2 1  2 2 1 3 1 0 1 2  15 10");
  p = pos("0  18 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  15 15");
  play_legal(&p, 0);
  expect_board(&p, "0 2 1 1 1 1 1 1  1 1 1 1 1 1 1 1  16 16");
  configure(NULL);
  p = pos("0  18 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  15 15");
  play_legal(&p, 0);
  expect_board(&p, "0 2 2 1 1 1 1 1  1 1 1 1 1 1 1 1  16 15");
}
END_TEST

/* Captures: only the last seed, only in an own pit that was empty; an
 * empty opposite pit takes nothing and the seed stays. */
START_TEST(capture_conditions) {
  configure(NULL);
  /* Last seed in an own pit that held seeds: nothing. */
  game_pos p = pos("0  1 1 0 0 0 0 0 0  5 5 5 5 5 5 5 5  3 3");
  ck_assert_int_eq(play_legal(&p, 0), 0);
  expect_board(&p, "0 2 0 0 0 0 0 0  5 5 5 5 5 5 5 5  3 3");
  /* Last seed in an empty pit of the opponent: nothing. */
  p = pos("0  0 0 0 0 0 0 0 2  0 5 5 5 5 5 5 5  6 5");
  ck_assert_int_eq(play_legal(&p, 7), 0);
  expect_board(&p, "0 0 0 0 0 0 0 0  1 5 5 5 5 5 5 5  7 5");
  /* Empty opposite pit: nothing is taken, the seed stays. */
  p = pos("0  1 0 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6");
  ck_assert_int_eq(play_legal(&p, 0), 0);
  expect_board(&p, "0 1 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6");
  /* 16 seeds: pits 4-7, the store, 8-15, then 0-2: pit 2 was empty and
   * captures pit 13, which got one seed on the way. */
  p = pos("0  0 0 0 16 0 0 0 0  5 0 0 0 0 0 0 0  13 14");
  ck_assert(play_legal(&p, 3) & GAME_PLAY_CAPTURE);
  expect_board(&p, "1 1 1 0 1 1 1 1  6 1 1 1 1 0 1 1  15 14");
  /* 18 seeds end in pit 5, empty before the move but sown on the first
   * lap: it holds 2, no capture. */
  p = pos("0  0 0 0 18 0 0 0 0  4 0 0 0 0 0 0 0  13 13");
  ck_assert_int_eq(play_legal(&p, 3), 0);
  expect_board(&p, "1 1 1 0 2 2 1 1  5 1 1 1 1 1 1 1  14 13");
}
END_TEST

START_TEST(kalah_capture_option) {
  configure("kalah_capture=yes");
  game_pos p = pos("0  2 1 0 4 0 0 3 1  2 5 0 1 2 6 3 0  10 8");
  play_legal(&p, 0);
  expect_board(&p, "0 2 0 4 0 0 3 1  2 5 0 1 2 0 3 0  17 8");
  /* As in Kalah: with an empty opposite pit nothing is captured, the seed stays. */
  p = pos("0  1 0 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6");
  ck_assert_int_eq(play_legal(&p, 0), 0);
  expect_board(&p, "0 1 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6");
}
END_TEST

/* A store reaching 25 ends the game at once; each row then goes to its
 * owner. */
START_TEST(target_ends_at_once) {
  configure(NULL);
  game_pos p = pos("0  1 0 0 0 0 0 0 2  0 0 0 0 0 0 6 4  19 16");
  play_legal(&p, 0); /* captures pit 14's 6: 25 */
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_TARGET);
  ck_assert_int_eq(p.final[0], 25 + 3);
  ck_assert_int_eq(p.final[1], 16 + 4);
  configure("target=0");
  p = pos("0  1 0 0 0 0 0 0 2  0 0 0 0 0 0 6 4  19 16");
  play_legal(&p, 0);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_int_eq(p.store[0], 25);
}
END_TEST

/* The opponent's row emptied by a capture: he cannot play, the mover takes
 * his own row. 24-24 is a draw. */
START_TEST(opponent_starved_and_draw) {
  configure(NULL);
  game_pos p = pos("0  1 0 0 0 0 0 0 1  0 0 0 0 0 0 2 0  20 24");
  play_legal(&p, 0);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_FAMINE);
  ck_assert_int_eq(p.final[0], 24);
  ck_assert_int_eq(p.final[1], 24);
  ck_assert_int_eq(p.winner, GAME_DRAW);
}
END_TEST

START_TEST(ply_cap_and_stalemate_option) {
  configure("max_plies=2");
  game_pos p;
  game_start(&G, &p);
  play_legal(&p, 0);
  play_legal(&p, 0);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXPLIES);
  ck_assert_int_eq(p.final[0] + p.final[1], 48);
  configure("max_plies=2 stalemate=draw");
  game_start(&G, &p);
  play_legal(&p, 0);
  play_legal(&p, 0);
  ck_assert_int_eq(p.winner, GAME_DRAW);
  configure("first_player=1");
  game_start(&G, &p);
  ck_assert_int_eq(p.mover, GAME_NORTH);
  configure("seeds=2 target=17");
  game_start(&G, &p);
  ck_assert_int_eq(G.total_seeds, 32);
  ck_assert_int_eq(p.pits[15], 2);
  char err[256], *too_high[] = {"target=50"};
  ck_assert_int_eq(game_configure(&G, "bao-kenya", 1, too_high, err, sizeof err), -1);
  ck_assert_str_eq(err, "target 50 is more than the 48 seeds in play");
}
END_TEST

/* ---- Reference implementation ---------------------------------------------------
 * The sowing walked slot by slot as docs/games/bao-kenya.md words it, on absolute slots
 * (16 = South's store, 17 = North's). */

static int next_slot(int s, int mover, int both) {
  if (s == 7) return mover == 0 || both ? 16 : 8;
  if (s == 15) return mover == 1 || both ? 17 : 0;
  if (s == 16) return 8;
  if (s == 17) return 0;
  return s + 1;
}

static int ref_play(game_pos *p, int pit, int both, int kalah) {
  int b[18];
  for (int i = 0; i < 16; i++) b[i] = p->pits[i];
  b[16] = p->store[0];
  b[17] = p->store[1];
  int me = p->mover, seeds = b[pit], s = pit, before = 0;
  b[pit] = 0;
  while (seeds-- > 0) {
    s = next_slot(s, me, both);
    if (s == pit) s = next_slot(s, me, both);
    before = b[s]++;
  }
  int extra = s == 16 + me;
  if (!extra && s < 16 && s / 8 == me && before == 0) {
    int f = 15 - s;
    if (b[f] > 0 || !kalah) {
      b[16 + me] += b[f];
      b[f] = 0;
      if (kalah) {
        b[16 + me]++;
        b[s] = 0;
      }
    }
  }
  for (int i = 0; i < 16; i++) p->pits[i] = (uint8_t)b[i];
  p->store[0] = (uint16_t)b[16];
  p->store[1] = (uint16_t)b[17];
  return extra;
}

static void check_reference(const char *settings, int both, int kalah, uint64_t seed) {
  configure(settings);
  rng_t r;
  rng_seed(&r, seed, 0);
  for (long k = 0; k < (long)(20000 * test_scale()); k++) {
    game_pos p;
    game_start(&G, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = game_legal(&G, &p), want = 0;
      for (int a = 0; a < 8; a++) want |= (game_moves)(p.pits[p.mover * 8 + a] > 0) << a;
      CHECK(m == want, "legal %x, reference %x", m, want);
      int a = game_nth_action(m, (int)rng_below(&r, (uint32_t)game_count(m)));
      game_pos ref = p;
      int extra = ref_play(&ref, p.mover * 8 + a, both, kalah);
      game_play(&G, &p, a);
      CHECK(!memcmp(p.pits, ref.pits, 16) && p.store[0] == ref.store[0] &&
                p.store[1] == ref.store[1],
            "board differs from the reference");
      if (p.status == GAME_ONGOING)
        CHECK(p.mover == (extra ? ref.mover : 1 - ref.mover), "mover");
    }
  }
}

START_TEST(engine_matches_reference) {
  check_reference("", 0, 0, 1);
  check_reference("sow_both_stores=yes", 1, 0, 2);
  check_reference("kalah_capture=yes", 0, 1, 3);
  check_reference("sow_both_stores=yes kalah_capture=yes target=0", 1, 1, 4);
}
END_TEST

/* ---- Perft ------------------------------------------------------------------ */

#include "tests/perft_goldens_bao_kenya.h"

START_TEST(perft_goldens) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  expect_perft(&p, 0, perft_bao_kenya, test_scale() < 1.0 ? 6 : PERFT_BAO_KENYA_DEPTH, "start");
}
END_TEST

/* Depth 1: South's 8 pits. Depth 2: 3 seeds from pit k end in pit k+3;
 * only pit 5 ends in the store (an extra turn: South has 7 non-empty pits
 * left); the other seven moves make no capture and leave North all 8:
 * 7 * 8 + 7 = 63. */
START_TEST(perft_start_by_hand) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ck_assert_uint_eq(perft(&p, 1), 8);
  ck_assert_uint_eq(perft(&p, 2), 63);
}
END_TEST

/* ---- Random stress ------------------------------------------------------------- */

START_TEST(stress) {
  configure(NULL);
  random_run run = {.games = (long)(100000 * test_scale()), .seed = 7, .max_ply = 600,
                    .seeds = 48, .finals = 48,
                    .common_ends = {GAME_END_TARGET, GAME_END_FAMINE}};
  random_games(&run);
}
END_TEST

/* ---- Other checks ------------------------------------------------------------- */

START_TEST(encode_is_from_movers_view) {
  configure(NULL);
  game_pos a = pos("0  1 2 3 0 0 0 4 1  5 6 0 0 2 0 0 3  12 9");
  game_pos b = pos("1  5 6 0 0 2 0 0 3  1 2 3 0 0 0 4 1  9 12");
  float fa[GAME_MAX_FEATURES], fb[GAME_MAX_FEATURES];
  ck_assert_int_eq(G.n_features, 67);
  expect_same_encoding(&a, &b, fa, fb);
  ck_assert_float_eq(fa[0 * 4 + 3], 0.0f); /* pit 0: 1 seed ends in pit 1 (2 seeds) */
  ck_assert_float_eq(fa[2 * 4 + 3], 0.5f); /* pit 2: 3 seeds end in empty pit 5 */
  ck_assert_float_eq(fa[7 * 4 + 3], 1.0f); /* pit 7: 1 seed into the store */
}
END_TEST

START_TEST(setboard_and_tokens) {
  configure(NULL);
  setboard_fails("0 3", "setboard takes MOVER, 16 pits and 2 stores (19 numbers), got 2");
  game_pos p = pos("0  3 3 3 3 3 3 3 3  3 3 3 3 3 3 3 3  0 0");
  expect_tokens(&p, "3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 0 0");
  random_round_trips(3, 300);
  /* A mover with an empty row: over at once. */
  p = pos("1  3 3 3 3 3 3 3 3  0 0 0 0 0 0 0 0  12 12");
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.final[0], 36);
  char tok[2048];
  game_render(&G, &p, tok, sizeof tok);
  ck_assert_msg(strstr(tok, "South wins") != NULL, "%s", tok);
}
END_TEST

Suite *bao_kenya_suite(void) {
  Suite *s = suite_create("bao_kenya");
  TCase *ex = tcase_create("worked examples");
  tcase_add_test(ex, k1_store_and_extra_turn);
  tcase_add_test(ex, k2_capture);
  tcase_add_test(ex, k3_seventeen_seeds_skip_origin);
  tcase_add_test(ex, k4_self_starvation);
  suite_add_tcase(s, ex);
  TCase *ru = tcase_create("rules");
  tcase_add_test(ru, legal_moves_all_eight_pits);
  tcase_add_test(ru, north_sows_own_store_only);
  tcase_add_test(ru, origin_skipped_every_lap);
  tcase_add_test(ru, sow_both_stores_option);
  tcase_add_test(ru, capture_conditions);
  tcase_add_test(ru, kalah_capture_option);
  tcase_add_test(ru, target_ends_at_once);
  tcase_add_test(ru, opponent_starved_and_draw);
  tcase_add_test(ru, ply_cap_and_stalemate_option);
  suite_add_tcase(s, ru);
  TCase *rf = tcase_create("reference");
  tcase_set_timeout(rf, 120);
  tcase_add_test(rf, engine_matches_reference);
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

TEST_MAIN(bao_kenya_suite)

/* Bao for Kenyan children (docs/games/bao-kenya.md): the worked examples K1-K4,
 * each rule sentence and option, a second implementation of the move,
 * perft goldens and random stress. */
#include <string.h>

#include "tests/gametest.h"

/* ---- Worked examples, docs/games/bao-kenya.md ----------------------------- */

START_TEST(k1_store_and_extra_turn) {
  configure(NULL);
  game_pos p = play_expect(NULL, 5, "3 3 3 3 3 0 4 4  3 3 3 3 3 3 3 3  1 0", NULL);
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  play_legal(&p, 7);
  expect_board(&p, "3 3 3 3 3 0 4 0  4 4 4 3 3 3 3 3  2 0");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(k2_capture) {
  configure(NULL);
  int flags;
  game_pos p = play_expect("0  2 1 0 4 0 0 3 1  2 5 0 1 2 6 3 0  10 8", 0,
                           "0 2 1 4 0 0 3 1  2 5 0 1 2 0 3 0  16 8", &flags);
  ck_assert(flags & GAME_PLAY_CAPTURE);
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(k3_seventeen_seeds_skip_origin) {
  configure(NULL);
  int flags;
  game_pos p = play_expect("0  0 1 0 17 2 0 1 0  1 1 0 2 0 1 0 1  12 9", 3,
                           "1 2 1 0 4 1 2 1  2 2 1 3 1 2 1 2  13 9", &flags);
  ck_assert_int_eq(flags, 0);
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
  expect_end(&p, GAME_END_FAMINE, 26, 22, GAME_SOUTH);
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
  /* Pit 15: store N, 0, 1, 2, 3. */
  game_pos p = play_expect("1  3 3 3 3 3 3 3 3  3 3 3 3 3 3 1 5  0 0", 7,
                           "4 4 4 4 3 3 3 3  3 3 3 3 3 3 1 0  0 1", NULL);
  ck_assert_int_eq(p.mover, GAME_SOUTH);
}
END_TEST

/* The origin is skipped on every lap: 33 seeds skip it twice. */
START_TEST(origin_skipped_every_lap) {
  configure(NULL);
  /* 33 seeds from pit 0: two laps of 16 slots (pits 1-15 and the store),
   * then pit 1 again. */
  play_expect("0  33 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  7 8", 0,
              "0 3 2 2 2 2 2 2  2 2 2 2 2 2 2 2  9 8", NULL);
}
END_TEST

/* sow_both_stores: K3's 17 seeds now reach North's store and end in pit 2,
 * which was empty: a capture. 18 seeds skip the origin at the 18th. */
START_TEST(sow_both_stores_option) {
  configure("sow_both_stores=yes");
  play_expect("0  0 1 0 17 2 0 1 0  1 1 0 2 0 1 0 1  12 9", 3,
              "1 2 1 0 3 1 2 1  2 2 1 3 1 0 1 2  15 10", NULL);
  const char *eighteen = "0  18 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  15 15";
  play_expect(eighteen, 0, "0 2 1 1 1 1 1 1  1 1 1 1 1 1 1 1  16 16", NULL);
  configure(NULL);
  play_expect(eighteen, 0, "0 2 2 1 1 1 1 1  1 1 1 1 1 1 1 1  16 15", NULL);
}
END_TEST

/* Captures: only the last seed, only in an own pit that was empty; an
 * empty opposite pit takes nothing and the seed stays. */
START_TEST(capture_conditions) {
  static const struct {
    const char *before;
    int action, flags;
    const char *after;
  } cases[] = {
      /* Last seed in an own pit that held seeds: nothing. */
      {"0  1 1 0 0 0 0 0 0  5 5 5 5 5 5 5 5  3 3", 0, 0, "0 2 0 0 0 0 0 0  5 5 5 5 5 5 5 5  3 3"},
      /* Last seed in an empty pit of the opponent: nothing. */
      {"0  0 0 0 0 0 0 0 2  0 5 5 5 5 5 5 5  6 5", 7, 0, "0 0 0 0 0 0 0 0  1 5 5 5 5 5 5 5  7 5"},
      /* Empty opposite pit: nothing is taken, the seed stays. */
      {"0  1 0 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6", 0, 0, "0 1 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6"},
      /* 16 seeds: pits 4-7, the store, 8-15, then 0-2: pit 2 was empty and
       * captures pit 13, which got one seed on the way. */
      {"0  0 0 0 16 0 0 0 0  5 0 0 0 0 0 0 0  13 14", 3, GAME_PLAY_CAPTURE,
       "1 1 1 0 1 1 1 1  6 1 1 1 1 0 1 1  15 14"},
      /* 18 seeds end in pit 5, empty before the move but sown on the first
       * lap: it holds 2, no capture. */
      {"0  0 0 0 18 0 0 0 0  4 0 0 0 0 0 0 0  13 13", 3, 0,
       "1 1 1 0 2 2 1 1  5 1 1 1 1 1 1 1  14 13"},
  };
  configure(NULL);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int flags;
    play_expect(cases[i].before, cases[i].action, cases[i].after, &flags);
    ck_assert_int_eq(flags & GAME_PLAY_CAPTURE, cases[i].flags);
    if (!cases[i].flags) ck_assert_int_eq(flags, 0);
  }
}
END_TEST

START_TEST(kalah_capture_option) {
  configure("kalah_capture=yes");
  play_expect("0  2 1 0 4 0 0 3 1  2 5 0 1 2 6 3 0  10 8", 0,
              "0 2 0 4 0 0 3 1  2 5 0 1 2 0 3 0  17 8", NULL);
  /* As in Kalah: with an empty opposite pit nothing is captured and the seed stays. */
  int flags;
  play_expect("0  1 0 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6", 0,
              "0 1 0 0 0 0 0 0  5 5 5 5 5 5 0 5  6 6", &flags);
  ck_assert_int_eq(flags, 0);
}
END_TEST

/* A store reaching 25 ends the game at once; each row then goes to its
 * owner. */
START_TEST(target_ends_at_once) {
  /* Pit 0 captures pit 14's 6: 25. */
  expect_target_ends("0  1 0 0 0 0 0 0 2  0 0 0 0 0 0 6 4  19 16", 0, 25 + 3, 16 + 4, 25);
  /* The same for North: the target's winner is whoever has more. */
  expect_target_ends("1  0 0 0 0 0 0 6 4  1 0 0 0 0 0 0 2  16 19", 0, 16 + 4, 25 + 3, 25);
}
END_TEST

/* The opponent's row emptied by a capture: he cannot play, the mover takes
 * his own row. 24-24 is a draw. */
START_TEST(opponent_starved_and_draw) {
  configure(NULL);
  game_pos p = pos("0  1 0 0 0 0 0 0 1  0 0 0 0 0 0 2 0  20 24");
  play_legal(&p, 0);
  expect_end(&p, GAME_END_FAMINE, 24, 24, GAME_DRAW);
}
END_TEST

START_TEST(ply_cap_and_stalemate_option) {
  configure("max_plies=2");
  game_pos p = start_pos();
  play_legal(&p, 0);
  play_legal(&p, 0);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXPLIES);
  ck_assert_int_eq(p.final[0] + p.final[1], 48);
  /* Each row to its owner, and whoever then has more wins. */
  ck_assert_int_eq(p.winner, p.final[0] > p.final[1]   ? GAME_SOUTH
                             : p.final[0] < p.final[1] ? GAME_NORTH
                                                       : GAME_DRAW);
  p = pos("1  0 0 0 0 0 0 1 2  3 0 0 0 0 0 0 2  20 20");
  play_legal(&p, 0);
  play_legal(&p, game_nth_action(game_legal(&G, &p), 0));
  ck_assert_int_eq(p.end_reason, GAME_END_MAXPLIES);
  ck_assert_msg(p.final[1] > p.final[0] && p.winner == GAME_NORTH, "%d-%d, winner %d", p.final[0],
                p.final[1], p.winner);
  configure("max_plies=2 stalemate=draw");
  p = start_pos();
  play_legal(&p, 0);
  play_legal(&p, 0);
  ck_assert_int_eq(p.winner, GAME_DRAW);
  configure("first_player=1");
  ck_assert_int_eq(start_pos().mover, GAME_NORTH);
  configure("seeds=2 target=17");
  p = start_pos();
  ck_assert_int_eq(G.total_seeds, 32);
  ck_assert_int_eq(p.pits[15], 2);
  configure_fails("target=50", "target 50 is more than the 48 seeds in play");
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

static int ref_both, ref_kalah; /* the options of the games under check */

/* Any non-empty own pit (the game has no endless moves). */
static int ref_legal(const game_pos *p, int truncate, game_moves *want, long *endless) {
  (void)truncate, (void)endless;
  *want = 0;
  for (int a = 0; a < 8; a++) *want |= (game_moves)(p->pits[p->mover * 8 + a] > 0) << a;
  return 1;
}

static void ref_check_move(const game_pos *before, int a, const game_pos *after, int truncate) {
  (void)truncate;
  game_pos ref = *before;
  int extra = ref_play(&ref, before->mover * 8 + a, ref_both, ref_kalah);
  CHECK(!memcmp(after->pits, ref.pits, 16) && after->store[0] == ref.store[0] &&
            after->store[1] == ref.store[1],
        "board differs from the reference");
  if (after->status == GAME_ONGOING)
    CHECK(after->mover == (extra ? ref.mover : 1 - ref.mover), "mover");
}

static void check_reference(const char *settings, int both, int kalah, uint64_t seed) {
  ref_both = both;
  ref_kalah = kalah;
  reference_games(settings, 20000, seed, &(reference_impl){ref_legal, ref_check_move}, NULL);
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

/* Depth 1: South's 8 pits. Depth 2: 3 seeds from pit k end in pit k+3;
 * only pit 5 ends in the store (an extra turn: South has 7 non-empty pits
 * left); the other seven moves make no capture and leave North all 8:
 * 7 * 8 + 7 = 63. */
START_TEST(perft_start_by_hand) {
  configure(NULL);
  game_pos p = start_pos();
  ck_assert_uint_eq(perft(&p, 1), 8);
  ck_assert_uint_eq(perft(&p, 2), 63);
}
END_TEST

/* ---- Other checks ------------------------------------------------------------- */

/* A mover with an empty row: over at once, the other takes his own row. */
START_TEST(empty_row_at_setboard) {
  configure(NULL);
  game_pos p = pos("1  3 3 3 3 3 3 3 3  0 0 0 0 0 0 0 0  12 12");
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.final[0], 36);
}
END_TEST

static Suite *bao_kenya_suite(void) {
  static const perft_case perft[] = {
      {"start", NULL, NULL, perft_bao_kenya, PERFT_BAO_KENYA_DEPTH, 6, 0}};
  static const stress_case stress[] = {{NULL,
                                        {.games = 100000,
                                         .seed = 7,
                                         .max_ply = 600,
                                         .seeds = 48,
                                         .finals = 48,
                                         .common_ends = {GAME_END_TARGET, GAME_END_FAMINE}}}};
  static const setboard_refusal refusals[] = {
      {"0 3", "setboard takes MOVER, 16 pits and 2 stores (19 numbers), got 2"}, {NULL, NULL}};
  static const render_case renders[] = {
      {"1  3 3 3 3 3 3 3 3  0 0 0 0 0 0 0 0  12 12", "South wins"},
      /* A board of distinct counts drawn whole: each pit under its number. */
      {"1  0 1 2 3 4 5 6 7 0 1 2 3 4 5 4 0  1 0",
       "          15  14  13  12  11  10   9   8\n"
       "North  [   0   4   5   4   3   2   1   0 ]  <- to move\n"
       "store   0                                  store 1\n"
       "South  [   0   1   2   3   4   5   6   7 ]\n"
       "           0   1   2   3   4   5   6   7\n"},
      {NULL, NULL}};
  static const game_spec spec = {
      .suite = "bao_kenya",
      .game = "bao-kenya",
      .perft = perft,
      .n_perft = 1,
      .stress = stress,
      .n_stress = 1,
      .start_tokens = "3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 0 0",
      .refusals = refusals,
      .renders = renders,
      /* pit 0: 1 seed (count==1) ends in pit 1 (2 seeds); pit 2: 3 seeds
       * end in empty pit 5; pit 7: 1 seed into the store */
      .encode = {"0  1 2 3 0 0 0 4 1  5 6 0 0 2 0 0 3  12 9",
                 "1  5 6 0 0 2 0 0 3  1 2 3 0 0 0 4 1  9 12",
                 67,
                 {{0 * 4 + 3, 0.0f}, {2 * 4 + 3, 0.5f}, {7 * 4 + 3, 1.0f}, {0 * 4 + 2, 1.0f}}}};
  game_tests t = {
      .examples = {k1_store_and_extra_turn, k2_capture, k3_seventeen_seeds_skip_origin,
                   k4_self_starvation},
      .rules = {legal_moves_all_eight_pits, north_sows_own_store_only, origin_skipped_every_lap,
                sow_both_stores_option, capture_conditions, kalah_capture_option,
                target_ends_at_once, opponent_starved_and_draw, ply_cap_and_stalemate_option},
      .reference = {engine_matches_reference},
      .perft = {perft_start_by_hand},
      .other = {empty_row_at_setboard}};
  return game_suite(&spec, &t);
}

TEST_MAIN(bao_kenya_suite)

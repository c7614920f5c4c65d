/* Bao, Kenyan with laps (docs/games/bao-laps.md): the worked examples L1-L3,
 * each rule sentence and option, endless moves against a second
 * implementation, perft goldens and random stress. */
#include <string.h>

#include "tests/gametest.h"
#include "tests/relay_ref.h"

/* ---- Worked examples, docs/games/bao-laps.md ------------------------------- */

START_TEST(l1_relays_and_capture) {
  configure(NULL);
  int flags;
  game_pos p = play_expect(NULL, 0, "1 0 1 4 4 1 3 3  0 3 0 0 3 3 0 3  3 0", &flags);
  ck_assert(flags & GAME_PLAY_CAPTURE);
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(l2_all_singles) {
  configure(NULL);
  const char *l2 = "0  1 0 1 0 1 1 0 0  0 1 3 0 2 0 0 0  6 16";
  game_pos p = pos(l2);
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 2) | (1u << 4) | (1u << 5));
  play_expect(l2, 2, "1 0 0 1 1 1 0 0  0 1 3 0 0 0 0 0  8 16", NULL);
  int flags;
  play_expect(l2, 4, "1 0 1 0 0 0 1 1  0 1 3 0 2 0 0 0  6 16", &flags);
  ck_assert_int_eq(flags, 0);
}
END_TEST

START_TEST(l3_single_seed_restriction) {
  configure(NULL);
  const char *l3 = "0  3 0 2 0 1 0 0 0  0 2 0 1 0 4 1 0  10 8";
  game_pos p = pos(l3);
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 2));
  play_expect(l3, 2, "3 0 0 1 0 1 1 0  0 0 0 1 0 4 1 0  12 8", NULL);
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
  play_expect("0  16 0 0 0 0 0 0 0  0 0 0 0 0 0 0 0  8 8", 0,
              "1 1 1 1 1 1 1 1  1 1 1 1 1 1 1 0  9 8", NULL);
}
END_TEST

/* A move ending in an empty pit of the opponent captures nothing. */
START_TEST(no_capture_on_the_opponents_side) {
  configure(NULL);
  int flags;
  game_pos p = play_expect("0  0 0 0 0 0 0 0 1  0 3 3 3 3 3 3 3  5 5", 7,
                           "0 0 0 0 0 0 0 0  1 3 3 3 3 3 3 3  5 5", &flags);
  ck_assert_int_eq(flags, 0);
  ck_assert_int_eq(p.nocap, 1);
}
END_TEST

/* The player to move with an empty row: the other captures all that is
 * left. Here South's capture empties North's row. */
START_TEST(empty_row_ends_the_game) {
  configure(NULL);
  game_pos p = pos("0  0 0 0 0 0 0 1 0  2 0 0 0 0 0 0 0  14 15");
  play_legal(&p, 6);
  expect_end(&p, GAME_END_FAMINE, 17, 15, GAME_SOUTH);
  /* The same when the side to move starts with nothing. */
  p = pos("1  2 1 0 0 0 0 0 0  0 0 0 0 0 0 0 0  13 16");
  expect_end(&p, -1, 16, -1, GAME_DRAW);
}
END_TEST

/* 17 captured ends the game at once (target); target=0 plays on. */
START_TEST(early_end_at_majority) {
  /* Pit 1 is empty: pit 0 captures pit 14's 3. */
  expect_target_ends("0  1 0 0 0 0 0 0 0  0 0 0 0 0 0 3 2  15 11", 0, 19, 13, 18);
}
END_TEST

START_TEST(stalemate_rules) {
  configure("nocap_limit=2");
  game_pos p = pos("0  0 0 0 0 0 0 0 1  0 3 3 3 3 3 3 3  5 5");
  play_legal(&p, 7); /* no capture */
  ck_assert_int_eq(p.status, GAME_ONGOING);
  play_first(&p, 1);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_NOCAPTURE);
  ck_assert_int_eq(p.final[0] + p.final[1], 32);
  /* Drawn whatever the stores hold; the scores are the stores alone. */
  configure("nocap_limit=2 stalemate=draw");
  p = pos("0  0 0 0 0 0 0 0 1  0 3 3 3 3 3 3 3  6 4");
  play_legal(&p, 7);
  play_first(&p, 1);
  ck_assert_int_eq(p.winner, GAME_DRAW);
  ck_assert_int_eq(p.final[0], 6);
  ck_assert_int_eq(p.final[1], 4);
  configure("seeds=3 target=25 first_player=1");
  p = start_pos();
  ck_assert_int_eq(G.total_seeds, 48);
  ck_assert_int_eq(p.pits[9], 3);
  ck_assert_int_eq(p.mover, GAME_NORTH);
  configure("max_plies=1 nocap_limit=0");
  p = start_pos();
  play_legal(&p, 1);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXPLIES);
}
END_TEST

/* ---- Reference implementation ---------------------------------------------------
 * docs/games/bao-laps.md word by word, with every relay pick-up state in a table. */

typedef struct {
  int b[16], end, endless, taken;
  ref_relays relays;
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
    if (ref_pickup(&r.relays, r.b, 16, at, dropped)) {
      r.endless = 1; /* stopped before the repeated pick-up */
      r.end = at;
      return r;
    }
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
  game_pos p = start_pos();
  ref_result rr = ref_move(&p, 0);
  static const int pits[6] = {2, 5, 8, 11, 14, 1}, seeds[6] = {3, 3, 3, 3, 3, 4};
  expect_relays(&rr.relays, 6, pits, seeds);
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

static int ref_legal_at(const game_pos *p, int truncate, game_moves *want, long *endless) {
  *want = ref_legal(p, truncate, endless);
  return 1;
}

static void ref_check_move(const game_pos *before, int a, const game_pos *p, int truncate) {
  (void)truncate;
  ref_result rr = ref_move(before, before->mover * 8 + a);
  if (rr.endless) rr.taken = 0; /* a cut move captures nothing */
  for (int i = 0; i < 16; i++)
    CHECK(p->pits[i] == rr.b[i], "pit %d: %d, reference %d", i, p->pits[i], rr.b[i]);
  CHECK(p->store[before->mover] == before->store[before->mover] + rr.taken, "store");
  if (p->status == GAME_OVER && p->end_reason == GAME_END_NOMOVES) {
    /* Every move of the side to move is endless: the other takes all. */
    long e = 0;
    game_pos q = *p;
    q.status = GAME_ONGOING;
    CHECK(ref_legal(&q, 0, &e) == 0, "no-move ending with a legal move");
    int rest = 0;
    for (int i = 0; i < 16; i++) rest += p->pits[i];
    CHECK(p->final[1 - p->mover] == p->store[1 - p->mover] + rest, "no-move award");
  }
}

/* ---- Perft ------------------------------------------------------------------ */

#include "tests/perft_goldens_bao_laps.h"

/* Depth 1: South's 8 pits of 2. Depth 2: the start is the same from every
 * pit, so the move from pit k is L1's relay chain turned by k pits; it ends
 * in pit 5+k, which is South's (a capture of pit 10-k) only for k <= 2.
 * North then plays each of his pits holding 2 or more (none of these moves
 * is endless). Counted here from L1's board before its capture. */
START_TEST(perft_start_by_hand) {
  static const int l1[16] = {1, 0, 1, 4, 4, 1, 3, 3, 0, 3, 3, 0, 3, 3, 0, 3};
  configure(NULL);
  game_pos p = start_pos();
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

static Suite *bao_laps_suite(void) {
  static const perft_case perft[] = {
      {"start", NULL, NULL, perft_bao_laps, PERFT_BAO_LAPS_DEPTH, 8, 0}};
  static const stress_case stress[] = {
      {NULL,
       {.games = 100000,
        .seed = 7,
        .max_ply = 600,
        .seeds = 32,
        .finals = 32,
        .common_ends = {GAME_END_TARGET, GAME_END_FAMINE, GAME_END_NOMOVES}}}};
  static const setboard_refusal refusals[] = {{"0  2 2 2 2 2 2 2 2  2 2 2 2 2 2 2 2  0 1",
                                               "pits and stores hold 33 seeds, this game has 32"},
                                              {NULL, NULL}};
  static const render_case renders[] = {
      {NULL, "South  [   2   2"},
      /* A board of distinct counts drawn whole: each pit under its number. */
      {"1  0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3  5 3",
       "          15  14  13  12  11  10   9   8\n"
       "North  [   3   2   1   0   3   2   1   0 ]  captured 3  <- to move\n"
       "South  [   0   1   2   3   0   1   2   3 ]  captured 5\n"
       "           0   1   2   3   4   5   6   7\n"},
      {NULL, NULL}};
  static const reference_impl reference = {ref_legal_at, ref_check_move};
  static const game_spec spec = {
      .suite = "bao_laps",
      .game = "bao-laps",
      .perft = perft,
      .n_perft = 1,
      .stress = stress,
      .n_stress = 1,
      .start_tokens = "2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 0 0",
      .refusals = refusals,
      .renders = renders,
      /* Random games meet endless moves (about 1 in 1,200 plies), and now
       * and then a side whose every move is endless. */
      .reference = {&reference, 30000, GAME_END_NOMOVES},
      /* own pit 1: 2 seeds; own store 6 of 17 */
      .encode = {"0  1 2 3 0 0 0 4 1  2 2 0 0 2 0 0 3  6 6",
                 "1  2 2 0 0 2 0 0 3  1 2 3 0 0 0 4 1  6 6",
                 68,
                 {{4, 0.5f}, {64, 6.0f / 17}, {-1, 0}}}};
  game_tests t = {.examples = {l1_relays_and_capture, l2_all_singles, l3_single_seed_restriction},
                  .rules = {legal_moves_north, origin_is_sown, no_capture_on_the_opponents_side,
                            empty_row_ends_the_game, early_end_at_majority, stalemate_rules},
                  .reference = {l1_relays_by_the_reference},
                  .perft = {perft_start_by_hand}};
  return game_suite(&spec, &t);
}

TEST_MAIN(bao_laps_suite)

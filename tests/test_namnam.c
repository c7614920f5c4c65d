/* Oware Nam Nam engine (docs/games/namnam.md): the worked examples NN1-NN4,
 * each rule sentence and option, a second implementation of the move that
 * the engine must agree with on random games, perft goldens, random stress. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "tests/gametest.h"
#include "tests/relay_ref.h"
#include "tests/testutil.h"

static void configure(const char *settings) { configure_game("namnam", settings); }

static int north_pits(const game_pos *p) { return __builtin_popcount(p->owner & 0xfff); }

/* ---- Worked examples, docs/games/namnam.md --------------------------------- */

START_TEST(nn1_relays_from_the_start) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ck_assert_uint_eq(game_legal(&G, &p), 0x3f);
  play_legal(&p, 0);
  expect_board(&p, "2 7 1 6 1 6  6 6 0 1 6 6  0 0");
  ck_assert_int_eq(p.mover, GAME_NORTH);
  ck_assert_int_eq(p.round, 1);
}
END_TEST

START_TEST(nn2_owner_captures_mid_sowing) {
  configure(NULL);
  game_pos p = pos("0  0 2 0 1 0 2  3 0 5 1 0 2  12 20");
  int flags = game_play(&G, &p, 5);
  ck_assert(flags & GAME_PLAY_CAPTURE);
  expect_board(&p, "0 2 0 1 0 0  0 1 5 1 0 2  12 24");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(nn3_last_seed_makes_four) {
  configure(NULL);
  game_pos p = pos("0  0 2 0 1 0 2  1 3 4 1 0 2  12 20");
  play_legal(&p, 5);
  expect_board(&p, "0 2 0 1 0 0  2 0 4 1 0 2  16 20");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

/* NN4 up to the end of the round: max_rounds=1 makes it the last, so the
 * stores keep the round's totals. */
START_TEST(nn4_last_eight_ends_the_round) {
  configure("max_rounds=1");
  game_pos p = pos("0  0 0 0 1 2 0  3 0 0 0 2 0  24 16");
  play_legal(&p, 4);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXROUNDS);
  ck_assert_int_eq(p.store[0], 32);
  ck_assert_int_eq(p.store[1], 16);
  ck_assert_int_eq(p.final[0], 8); /* pits for the next round */
  ck_assert_int_eq(p.final[1], 4);
  ck_assert_int_eq(p.winner, GAME_SOUTH);
}
END_TEST

START_TEST(nn4_next_round_leader_chooses) {
  configure(NULL);
  game_pos p = pos("0  0 0 0 1 2 0  3 0 0 0 2 0  24 16");
  play_legal(&p, 4);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_int_eq(p.round, 2);
  expect_board(&p, "4 4 4 4 4 4  4 4 4 4 4 4  0 0");
  /* South leads 8-4 and claims two North pits: actions 6..11 are North's. */
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  ck_assert_uint_eq(game_legal(&G, &p), 0xfc0);
  play_legal(&p, 9);
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  ck_assert_uint_eq(game_legal(&G, &p), 0xfc0 & ~(1u << 9));
  play_legal(&p, 11);
  ck_assert_uint_eq(p.owner, 0xfc0 & ~(1u << 9) & ~(1u << 11));
  /* Round 1 was started by South (setboard: the mover), so North starts. */
  ck_assert_int_eq(p.mover, GAME_NORTH);
  ck_assert_int_eq(north_pits(&p), 4);
  /* North's actions are his own pits 6, 7, 8, 10 (actions 0, 1, 2, 4). */
  ck_assert_uint_eq(game_legal(&G, &p), 0x17);
}
END_TEST

START_TEST(nn4_next_round_fixed_claims) {
  configure("namnam_claim=fixed");
  game_pos p = pos("0  0 0 0 1 2 0  3 0 0 0 2 0  24 16");
  play_legal(&p, 4);
  ck_assert_int_eq(p.round, 2);
  ck_assert_uint_eq(p.owner, 0xf00); /* South took pits 6 and 7 */
  ck_assert_int_eq(p.mover, GAME_NORTH);
  /* South's actions now include pits 6 and 7. */
  p.mover = GAME_SOUTH;
  ck_assert_uint_eq(game_legal(&G, &p), 0xff);
}
END_TEST

/* ---- Rule sentences ------------------------------------------------------------ */

/* "Any non-empty pit the mover owns": in either row, never one he does not
 * own; mover-relative actions. */
START_TEST(legal_moves_follow_ownership) {
  configure(NULL);
  /* South owns 0-3 and 8-9; North owns 4-7 and 10-11. */
  game_pos p = pos("0  1 0 3 2 4 4  4 4 2 0 4 4  8 8  ssssnnnnssnn 3 0");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 2) | (1u << 3) | (1u << 8));
  p = pos("1  1 0 3 2 4 4  4 4 2 0 4 4  8 8  ssssnnnnssnn 3 0");
  /* North's pits 4,5,6,7,10,11 are actions 10,11,0,1,4,5. */
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 10) | (1u << 11) | 1u | 2u | (1u << 4) | (1u << 5));
}
END_TEST

/* No origin skip: 12 seeds put the 12th into the emptied origin, which then
 * holds 1: the move ends there. */
START_TEST(origin_is_sown) {
  configure(NULL);
  game_pos p = pos("0  12 0 0 0 0 0  0 0 0 0 0 0  18 18");
  play_legal(&p, 0);
  expect_board(&p, "1 1 1 1 1 1  1 1 1 1 1 1  18 18");
}
END_TEST

/* A four made in the mover's own pit with seeds in hand goes to him as the
 * owner; sowing goes on. */
START_TEST(owner_capture_for_the_mover) {
  configure(NULL);
  game_pos p = pos("0  2 3 0 0 0 0  1 1 1 1 1 1  16 21");
  play_legal(&p, 0); /* pit 1 -> 4 (South's, one in hand), pit 2 -> 1: ends */
  expect_board(&p, "0 0 1 0 0 0  1 1 1 1 1 1  20 21");
}
END_TEST

/* The last seed's four goes to the mover even in his own pit; a relay from a
 * pit of 2 or more goes on from the next pit. */
START_TEST(relay_then_last_seed_four) {
  configure(NULL);
  /* Pit 0 (1 seed) -> pit 1 makes 2: relay 2 seeds to pits 2, 3; pit 3 makes
   * 4 with the last seed: South captures. */
  game_pos p = pos("0  1 1 0 3 0 0  2 2 2 2 2 2  11 20");
  play_legal(&p, 0);
  expect_board(&p, "0 0 1 0 0 0  2 2 2 2 2 2  15 20");
  ck_assert_int_eq(p.nocap, 0);
}
END_TEST

/* Last eight with seeds still in hand: the owner of the four takes all that
 * is left, the hand included; U is counted before the capture. */
START_TEST(last_eight_mid_sowing) {
  configure("max_rounds=1");
  game_pos p = pos("0  2 3 0 0 0 0  0 0 3 0 0 0  20 20");
  play_legal(&p, 0);
  ck_assert_int_eq(p.store[0], 28);
  ck_assert_int_eq(p.store[1], 20);
  ck_assert_int_eq(p.final[0], 7);
  ck_assert_int_eq(p.final[1], 5);
  configure("max_rounds=1");
  p = pos("0  2 3 0 0 0 0  0 0 3 0 0 0  20 20  snssssnnnnnn 1 0");
  play_legal(&p, 0); /* pit 1 is North's now */
  ck_assert_int_eq(p.store[0], 20);
  ck_assert_int_eq(p.store[1], 28);
  /* With 12 seeds left the same capture does not end the round. */
  configure(NULL);
  p = pos("0  2 3 0 0 0 0  0 0 3 0 4 0  16 20");
  play_legal(&p, 0);
  expect_board(&p, "0 0 1 0 0 0  0 0 3 0 4 0  20 20");
  ck_assert_int_eq(p.round, 1);
}
END_TEST

/* A player who owns no seeds passes: the other moves again. */
START_TEST(empty_player_passes) {
  configure(NULL);
  game_pos p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  play_legal(&p, 0);
  expect_board(&p, "0 1 0 0 0 0  0 0 0 0 0 0  24 23");
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  ck_assert_uint_eq(game_legal(&G, &p), 2);
  /* North to move with nothing: he passes at once. */
  p = pos("1  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  ck_assert_int_eq(p.mover, GAME_SOUTH);
}
END_TEST

/* The single seed chases round the board: the position with the seed in
 * pit 0 and South to move comes back every 12 plies; its third occurrence
 * (repetition=2) ends the round at ply 24, each player taking the seeds in
 * his pits: 25-23 is 6-6 pits (Lamosh rounding), a drawn round. */
START_TEST(round_stalemate_by_repetition) {
  configure(NULL);
  game_pos p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, &p);
  int plies = 0;
  while (p.round == 1 && plies < 100) {
    game_moves m = game_legal(&G, &p);
    ck_assert_int_eq(game_count(m), 1);
    game_step(&G, &p, h, __builtin_ctz(m));
    plies++;
  }
  free(h);
  ck_assert_int_eq(plies, 24);
  ck_assert_int_eq(p.round, 2);
  ck_assert_uint_eq(p.owner, 0xfc0);
  ck_assert_int_eq(p.phase, 0);
  ck_assert_int_eq(p.mover, GAME_NORTH); /* alternate: South started round 1 */
  expect_board(&p, "4 4 4 4 4 4  4 4 4 4 4 4  0 0");
}
END_TEST

/* repetition=1: the first repeat already ends the round, at ply 12. */
START_TEST(repetition_option) {
  configure("repetition=1");
  game_pos p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, &p);
  int plies = 0;
  while (p.round == 1) {
    game_step(&G, &p, h, __builtin_ctz(game_legal(&G, &p)));
    plies++;
  }
  free(h);
  ck_assert_int_eq(plies, 12);
  configure("first_player=1");
  game_start(&G, &p);
  ck_assert_int_eq(p.mover, GAME_NORTH);
  ck_assert_int_eq(p.aux[0] & 1, GAME_NORTH); /* he started round 1 */
  ck_assert_uint_eq(game_legal(&G, &p), 0x3f); /* his pits 6-11 */
}
END_TEST

START_TEST(round_stalemate_by_nocap_limit) {
  configure("repetition=0 nocap_limit=10 max_rounds=1");
  game_pos p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  for (int i = 0; i < 10; i++) play_legal(&p, __builtin_ctz(game_legal(&G, &p)));
  /* The seed is in pit 10, North's, after 10 plies: 24-24. */
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.store[0], 24);
  ck_assert_int_eq(p.store[1], 24);
  ck_assert_int_eq(p.winner, GAME_DRAW);
  ck_assert_int_eq(p.ply, 10);
}
END_TEST

START_TEST(round_cap_max_plies) {
  configure("repetition=0 nocap_limit=0 max_plies=3 max_rounds=1");
  game_pos p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  for (int i = 0; i < 3; i++) play_legal(&p, __builtin_ctz(game_legal(&G, &p)));
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.store[0], 25); /* the seed is in pit 3 */
}
END_TEST

START_TEST(game_cap_game_plies) {
  configure("game_plies=5");
  game_pos p;
  game_start(&G, &p);
  for (int i = 0; i < 5; i++) play_legal(&p, __builtin_ctz(game_legal(&G, &p)));
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXPLIES);
  ck_assert_int_eq(p.final[0] + p.final[1], 12);
  ck_assert_int_eq(p.store[0] + p.store[1], 48);
}
END_TEST

/* Pits for the next round from the round totals (an empty board ends the
 * round at once: nobody can move). Fixed claims, so owner shows them. */
START_TEST(pits_from_round_totals) {
  static const struct {
    int t0, t1, h0, over;
  } cases[] = {
      {24, 24, 6, 0}, {25, 23, 6, 0}, {23, 25, 6, 0}, {26, 22, 7, 0}, {22, 26, 5, 0},
      {27, 21, 7, 0}, {21, 27, 5, 0}, {28, 20, 7, 0}, {30, 18, 8, 0}, {45, 3, 11, 0},
      {3, 45, 1, 0},  {46, 2, 12, 1}, {47, 1, 12, 1}, {48, 0, 12, 1}, {1, 47, 0, 1},
  };
  configure("namnam_claim=fixed");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char s[128];
    snprintf(s, sizeof s, "0  0 0 0 0 0 0  0 0 0 0 0 0  %d %d", cases[i].t0, cases[i].t1);
    game_pos p = pos(s);
    if (cases[i].over) {
      ck_assert_int_eq(p.status, GAME_OVER);
      ck_assert_int_eq(p.end_reason, GAME_END_TARGET);
      ck_assert_int_eq(p.final[0], cases[i].h0);
      ck_assert_int_eq(p.final[1], 12 - cases[i].h0);
      ck_assert_int_eq(p.winner, cases[i].h0 ? GAME_SOUTH : GAME_NORTH);
      continue;
    }
    ck_assert_int_eq(p.status, GAME_ONGOING);
    ck_assert_int_eq(p.round, 2);
    ck_assert_msg(12 - north_pits(&p) == cases[i].h0, "%d-%d: South owns %d, expected %d",
                  cases[i].t0, cases[i].t1, 12 - north_pits(&p), cases[i].h0);
    /* The leader owns his whole row. */
    if (cases[i].h0 > 6) ck_assert_uint_eq(p.owner & 0x3f, 0);
    if (cases[i].h0 < 6) ck_assert_uint_eq(p.owner & 0xfc0, 0xfc0);
  }
}
END_TEST

/* fixed claims for North start next to his row: South's pits 0, 1, ... */
START_TEST(fixed_claims_for_north) {
  configure("namnam_claim=fixed");
  game_pos p = pos("0  0 0 0 0 0 0  0 0 0 0 0 0  18 30");
  ck_assert_uint_eq(p.owner, 0xfc3); /* 8 pits: his row and South's 0, 1 */
}
END_TEST

START_TEST(round_starter_options) {
  /* South started round 1 (setboard: the mover) and wins it 8-4. */
  const char *setup = "0  0 0 0 0 0 0  0 0 0 0 0 0  30 18";
  configure("namnam_claim=fixed");
  ck_assert_int_eq(pos(setup).mover, GAME_NORTH);
  configure("namnam_claim=fixed round_starter=loser");
  ck_assert_int_eq(pos(setup).mover, GAME_NORTH);
  configure("namnam_claim=fixed round_starter=winner");
  ck_assert_int_eq(pos(setup).mover, GAME_SOUTH);
  /* Round 1 started by North (full form), South wins: loser North. */
  const char *north_started = "0  0 0 0 0 0 0  0 0 0 0 0 0  30 18  - 1 1";
  configure("namnam_claim=fixed");
  ck_assert_int_eq(pos(north_started).mover, GAME_SOUTH);
  configure("namnam_claim=fixed round_starter=loser");
  ck_assert_int_eq(pos(north_started).mover, GAME_NORTH);
  /* A drawn round falls back on alternate. */
  configure("namnam_claim=fixed round_starter=winner");
  ck_assert_int_eq(pos("0  0 0 0 0 0 0  0 0 0 0 0 0  24 24").mover, GAME_NORTH);
  /* The claim phase is the leader's, whoever starts. */
  configure("round_starter=loser");
  game_pos p = pos(setup);
  ck_assert_int_eq(p.phase, 1);
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  play_legal(&p, 6);
  play_legal(&p, 7);
  ck_assert_int_eq(p.phase, 0);
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(max_rounds_decides_by_pits) {
  configure("max_rounds=2 namnam_claim=fixed");
  game_pos p = pos("0  0 0 0 0 0 0  0 0 0 0 0 0  30 18  - 2 0");
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_MAXROUNDS);
  ck_assert_int_eq(p.final[0], 8);
  ck_assert_int_eq(p.final[1], 4);
  ck_assert_int_eq(p.winner, GAME_SOUTH);
  p = pos("0  0 0 0 0 0 0  0 0 0 0 0 0  25 23  - 2 0");
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.winner, GAME_DRAW);
  /* Round 1 of 2 goes on. */
  p = pos("0  0 0 0 0 0 0  0 0 0 0 0 0  30 18");
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_int_eq(p.round, 2);
}
END_TEST

/* namnam_empty=feed: facing a player without seeds the mover must leave him
 * some; without such a move the round ends (each takes his pits' seeds). */
START_TEST(feed_option) {
  configure("namnam_empty=feed");
  /* Pit 5's seed reaches pit 6 (North's); pit 0's stays in South's row. */
  game_pos p = pos("0  1 0 0 0 0 1  0 0 0 0 0 0  23 23");
  ck_assert_uint_eq(game_legal(&G, &p), 1u << 5);
  configure(NULL);
  p = pos("0  1 0 0 0 0 1  0 0 0 0 0 0  23 23");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << 0) | (1u << 5));
  /* No feeding move: the round ends at once, 25-23 = 6-6. */
  configure("namnam_empty=feed");
  p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  ck_assert_int_eq(p.round, 2);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  /* North without seeds to move passes; then South must feed him. */
  p = pos("1  1 0 0 0 0 1  0 0 0 0 0 0  23 23");
  ck_assert_int_eq(p.mover, GAME_SOUTH);
  ck_assert_uint_eq(game_legal(&G, &p), 1u << 5);
  /* A move that feeds through a relay counts. */
  p = pos("0  0 0 0 1 1 0  0 0 0 0 0 0  23 23");
  ck_assert_uint_eq(game_legal(&G, &p), 1u << 3); /* 3 -> 4 makes 2: relay to 5, 6 */
}
END_TEST

/* ---- Reference implementation ---------------------------------------------------
 * One move by the words of docs/games/namnam.md, with every relay pick-up state
 * kept in a table: the engine must give the same legal moves (endless ones
 * removed), boards and captures, and cut endless moves (truncate) at the
 * same pick-up. An endless move comes back stopped before its first
 * repeated pick-up, which is where truncate cuts it. */

typedef struct {
  int b[12], cap[2], captures, round_over, endless;
  int relays, relay_pit[8], relay_seeds[8], end; /* the first relays, the last pit */
} ref_result;

static ref_result ref_move(const game_pos *p, int pit) {
  ref_result r;
  memset(&r, 0, sizeof r);
  int u = 0;
  for (int i = 0; i < 12; i++) u += r.b[i] = p->pits[i];
  int hand = r.b[pit], at = pit;
  long dropped = 0;
  r.b[pit] = 0;
  ref_set_clear();
  while (hand > 0) {
    at = (at + 1) % 12;
    r.b[at]++;
    hand--;
    dropped++;
    if (r.b[at] == 4) {
      int who = hand > 0 ? (int)(p->owner >> at & 1) : p->mover;
      r.b[at] = 0;
      r.captures++;
      if (u <= 8) {
        r.cap[who] += u;
        memset(r.b, 0, sizeof r.b);
        r.round_over = 1;
        return r;
      }
      r.cap[who] += 4;
      u -= 4;
      continue;
    }
    if (hand > 0 || r.b[at] == 1) continue;
    /* A relay pick-up: the state is the board and the pit. */
    uint8_t s[13];
    for (int i = 0; i < 12; i++) s[i] = (uint8_t)r.b[i];
    s[12] = (uint8_t)at;
    if (ref_set_add(s, sizeof s) || dropped >= 100000) {
      r.endless = 1; /* stopped before the repeated pick-up: the truncate result */
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
  return r;
}

/* NN1's relays, by the reference (the engine gives the same board): pits 4
 * (5 seeds), 9 (5), 2 (6) and 8 (6); the move ends in pit 2, emptied by its
 * own relay. */
START_TEST(nn1_relays_by_the_reference) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ref_result rr = ref_move(&p, 0);
  static const int pits[4] = {4, 9, 2, 8}, seeds[4] = {5, 5, 6, 6};
  ck_assert_int_eq(rr.relays, 4);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(rr.relay_pit[i], pits[i]);
    ck_assert_int_eq(rr.relay_seeds[i], seeds[i]);
  }
  ck_assert_int_eq(rr.end, 2);
  ck_assert_int_eq(rr.captures, 0);
  game_play(&G, &p, 0);
  for (int i = 0; i < 12; i++) ck_assert_int_eq(p.pits[i], rr.b[i]);
}
END_TEST

/* Random games (pass rule, no feeding), checked move by move against the
 * reference: legal moves, and the board and stores after the move when it
 * does not end the round. Also counts the endless moves met. */
static long check_against_reference(const char *settings, long games, uint64_t seed) {
  configure(settings);
  int truncate = strstr(settings, "truncate") != NULL;
  rng_t r;
  rng_seed(&r, seed, 0);
  game_hist *h = malloc(sizeof *h);
  long endless = 0;
  for (long k = 0; k < games; k++) {
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = game_legal(&G, &p);
      if (p.phase == 0) {
        game_moves want = 0;
        for (int pit = 0; pit < 12; pit++) {
          if ((int)(p.owner >> pit & 1) != p.mover || !p.pits[pit]) continue;
          ref_result rr = ref_move(&p, pit);
          endless += rr.endless;
          if (!rr.endless || truncate) want |= 1u << ((pit + 12 - 6 * p.mover) % 12);
        }
        CHECK(m == want, "legal %x, reference %x", m, want);
      }
      int a = game_nth_action(m, (int)rng_below(&r, (uint32_t)game_count(m)));
      game_pos before = p;
      game_step(&G, &p, h, a);
      if (before.phase != 0 || p.round != before.round || p.status != GAME_ONGOING) continue;
      ref_result rr = ref_move(&before, (a + 6 * before.mover) % 12);
      for (int i = 0; i < 12; i++)
        CHECK(p.pits[i] == rr.b[i], "pit %d: %d, reference %d", i, p.pits[i], rr.b[i]);
      CHECK(p.store[0] == before.store[0] + rr.cap[0] && p.store[1] == before.store[1] + rr.cap[1],
            "stores");
    }
  }
  free(h);
  return endless;
}

START_TEST(engine_matches_reference) {
  long endless = check_against_reference("", (long)(1500 * test_scale()), 5);
  /* Random games meet endless moves now and then (about 1 in 40,000 plies). */
  if (test_scale() >= 1.0) ck_assert_int_gt(endless, 0);
}
END_TEST

START_TEST(engine_matches_reference_truncate) {
  check_against_reference("endless_move=truncate", (long)(1500 * test_scale()), 6);
}
END_TEST

/* An endless move found by the reference is illegal; with truncate it is
 * legal and stops at the first repeated pick-up. */
START_TEST(endless_moves_found_and_cut) {
  configure(NULL);
  rng_t r;
  rng_seed(&r, 9, 0);
  game_hist *h = malloc(sizeof *h);
  int found = 0;
  for (int k = 0; k < 4000 && found < 5; k++) {
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    while (p.status == GAME_ONGOING && found < 5) {
      game_moves m = game_legal(&G, &p);
      for (int pit = 0; p.phase == 0 && pit < 12; pit++) {
        if ((int)(p.owner >> pit & 1) != p.mover || !p.pits[pit]) continue;
        ref_result rr = ref_move(&p, pit);
        if (!rr.endless) continue;
        int a = (pit + 12 - 6 * p.mover) % 12;
        ck_assert(!(m >> a & 1));
        configure("endless_move=truncate");
        game_pos q = p;
        ck_assert(game_legal(&G, &q) >> a & 1);
        game_play(&G, &q, a);
        if (q.round == p.round && q.status == GAME_ONGOING)
          for (int i = 0; i < 12; i++) ck_assert_int_eq(q.pits[i], rr.b[i]);
        configure(NULL);
        found++;
      }
      game_step(&G, &p, h, game_nth_action(m, (int)rng_below(&r, (uint32_t)game_count(m))));
    }
  }
  free(h);
  if (test_scale() >= 1.0) ck_assert_int_ge(found, 5);
}
END_TEST

/* ---- Perft ------------------------------------------------------------------ */

#include "tests/perft_goldens_namnam.h"

START_TEST(perft_goldens) {
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  expect_perft(&p, 1, perft_namnam, test_scale() < 1.0 ? 7 : PERFT_NAMNAM_DEPTH, "start");
}
END_TEST

/* Depth 1: South's six pits. Depth 2: the start looks the same from every
 * pit and NN1 makes no capture, so South's move from pit k leaves NN1's
 * board turned by k pits; North then has one move per non-empty pit of his
 * (no feeding rule). NN1 leaves only pit 8 empty, so after pits 0-3 North
 * has 5 moves and after pits 4-5 six: 32. */
START_TEST(perft_start_by_hand) {
  static const int nn1[12] = {2, 7, 1, 6, 1, 6, 6, 6, 0, 1, 6, 6};
  configure(NULL);
  game_pos p;
  game_start(&G, &p);
  ck_assert_uint_eq(perft_hist(&p, 1), 6);
  for (int k = 0; k < 6; k++) {
    game_pos q = p;
    game_play(&G, &q, k);
    for (int i = 0; i < 12; i++) ck_assert_int_eq(q.pits[(i + k) % 12], nn1[i]);
    ck_assert_int_eq(game_count(game_legal(&G, &q)), k < 4 ? 5 : 6);
  }
  ck_assert_uint_eq(perft_hist(&p, 2), 4 * 5 + 2 * 6);
}
END_TEST

/* ---- Random stress ------------------------------------------------------------- */

static void stress_game(const game_pos *p) {
  CHECK(p->round <= 12, "more rounds than max_rounds");
  CHECK(p->winner != GAME_DRAW || p->final[0] == 6, "a draw is 6-6");
}

START_TEST(stress) {
  configure(NULL);
  /* Final scores are the pits each side would own next round. */
  random_run run = {.games = (long)(100000 * test_scale()), .seed = 7,
                    .max_ply = GAME_MAX_PLIES_CAP, .seeds = 48, .finals = 12,
                    .check_game = stress_game,
                    .common_ends = {GAME_END_TARGET, GAME_END_MAXROUNDS}};
  random_games(&run);
}
END_TEST

/* ---- Other checks ------------------------------------------------------------- */

START_TEST(encode_is_from_movers_view) {
  configure(NULL);
  /* The same position seen by each side: pits turned by half the board,
   * owners and stores swapped, the other side to move and started. */
  game_pos a = pos("0  1 2 3 0 5 6  0 4 1 2 3 1  12 8  ssnsssnnnnsn 2 0");
  game_pos b = pos("1  0 4 1 2 3 1  1 2 3 0 5 6  8 12  ssssnsnnsnnn 2 1");
  ck_assert_int_eq(G.n_features, 85);
  float fa[GAME_MAX_FEATURES], fb[GAME_MAX_FEATURES];
  expect_same_encoding(&a, &b, fa, fb);
  ck_assert_float_eq(fa[0], 0.125f); /* own pit 0: 1 seed */
  ck_assert_float_eq(fa[5], 1.0f);   /* ... is South's */
  ck_assert_float_eq(fa[2 * 6 + 5], 0.0f); /* pit 2 is North's */
}
END_TEST

START_TEST(setboard_and_tokens) {
  configure(NULL);
  setboard_fails("0 4 4", "setboard takes MOVER, 12 pits, 2 stores, optionally OWNER ROUND "
                          "STARTER [CLAIMS] (15, 18 or 19 tokens), got 3");
  setboard_fails("0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  sssx 1 0",
                 "bad owner 'sssx' (12 letters s/n for pits 0..11, or -)");
  setboard_fails("0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssssssss 1 0",
                 "each player must own at least one pit");
  setboard_fails("0  4 4 4 4 4 4  4 4 4 4 4 4  0 1",
                 "pits and stores hold 49 seeds, this game has 48");
  /* A claim position. */
  game_pos p = pos("0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  - 3 1 2");
  ck_assert_int_eq(p.phase, 1);
  ck_assert_uint_eq(game_legal(&G, &p), 0xfc0);
  expect_tokens(&p, "4 4 4 4 4 4 4 4 4 4 4 4 0 0 ssssssnnnnnn 3 1 2");
  random_round_trips(3, 300);
}
END_TEST

START_TEST(render_shows_owners) {
  configure(NULL);
  game_pos p = pos("0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  sssssssnnnnn 2 0");
  char buf[2048];
  game_render(&G, &p, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "Round 2 of 12") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "  4n  4n  4n  4n  4n  4s ]") != NULL, "%s", buf);
}
END_TEST

Suite *namnam_suite(void) {
  Suite *s = suite_create("namnam");
  TCase *ex = tcase_create("worked examples");
  tcase_add_test(ex, nn1_relays_from_the_start);
  tcase_add_test(ex, nn2_owner_captures_mid_sowing);
  tcase_add_test(ex, nn3_last_seed_makes_four);
  tcase_add_test(ex, nn4_last_eight_ends_the_round);
  tcase_add_test(ex, nn4_next_round_leader_chooses);
  tcase_add_test(ex, nn4_next_round_fixed_claims);
  suite_add_tcase(s, ex);
  TCase *ru = tcase_create("rules");
  tcase_add_test(ru, legal_moves_follow_ownership);
  tcase_add_test(ru, origin_is_sown);
  tcase_add_test(ru, owner_capture_for_the_mover);
  tcase_add_test(ru, relay_then_last_seed_four);
  tcase_add_test(ru, last_eight_mid_sowing);
  tcase_add_test(ru, empty_player_passes);
  tcase_add_test(ru, round_stalemate_by_repetition);
  tcase_add_test(ru, repetition_option);
  tcase_add_test(ru, round_stalemate_by_nocap_limit);
  tcase_add_test(ru, round_cap_max_plies);
  tcase_add_test(ru, game_cap_game_plies);
  tcase_add_test(ru, pits_from_round_totals);
  tcase_add_test(ru, fixed_claims_for_north);
  tcase_add_test(ru, round_starter_options);
  tcase_add_test(ru, max_rounds_decides_by_pits);
  tcase_add_test(ru, feed_option);
  suite_add_tcase(s, ru);
  TCase *rf = tcase_create("reference");
  tcase_set_timeout(rf, 120);
  tcase_add_test(rf, nn1_relays_by_the_reference);
  tcase_add_test(rf, engine_matches_reference);
  tcase_add_test(rf, engine_matches_reference_truncate);
  tcase_add_test(rf, endless_moves_found_and_cut);
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
  tcase_add_test(ot, render_shows_owners);
  suite_add_tcase(s, ot);
  return s;
}

TEST_MAIN(namnam_suite)

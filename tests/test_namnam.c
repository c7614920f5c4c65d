/* Oware Nam Nam engine (docs/games/namnam.md): the worked examples NN1-NN4,
 * each rule sentence and option, a second implementation of the move that
 * the engine must agree with on random games, perft goldens, random stress. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gametest.h"
#include "tests/relay_ref.h"

static int north_pits(const game_pos *p) { return __builtin_popcount(p->owner & 0xfff); }

/* ---- Worked examples, docs/games/namnam.md --------------------------------- */

START_TEST(nn1_relays_from_the_start) {
  configure(NULL);
  game_pos start = start_pos();
  ck_assert_uint_eq(game_legal(&G, &start), 0x3f);
  game_pos p = play_expect(NULL, 0, "2 7 1 6 1 6  6 6 0 1 6 6  0 0", NULL);
  ck_assert_int_eq(p.mover, GAME_NORTH);
  ck_assert_int_eq(p.round, 1);
}
END_TEST

START_TEST(nn2_owner_captures_mid_sowing) {
  configure(NULL);
  int flags;
  game_pos p = play_expect("0  0 2 0 1 0 2  3 0 5 1 0 2  12 20", 5,
                           "0 2 0 1 0 0  0 1 5 1 0 2  12 24", &flags);
  ck_assert(flags & GAME_PLAY_CAPTURE);
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

START_TEST(nn3_last_seed_makes_four) {
  configure(NULL);
  game_pos p =
      play_expect("0  0 2 0 1 0 2  1 3 4 1 0 2  12 20", 5, "0 2 0 1 0 0  2 0 4 1 0 2  16 20", NULL);
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
  play_expect("0  12 0 0 0 0 0  0 0 0 0 0 0  18 18", 0, "1 1 1 1 1 1  1 1 1 1 1 1  18 18", NULL);
}
END_TEST

/* A four made in the mover's own pit with seeds in hand goes to him as the
 * owner; sowing goes on. */
START_TEST(owner_capture_for_the_mover) {
  configure(NULL);
  /* Pit 1 -> 4 (South's, one in hand), pit 2 -> 1: ends. */
  play_expect("0  2 3 0 0 0 0  1 1 1 1 1 1  16 21", 0, "0 0 1 0 0 0  1 1 1 1 1 1  20 21", NULL);
}
END_TEST

/* The last seed's four goes to the mover even in his own pit; a relay from a
 * pit of 2 or more goes on from the next pit. */
START_TEST(relay_then_last_seed_four) {
  configure(NULL);
  /* Pit 0 (1 seed) -> pit 1 makes 2: relay 2 seeds to pits 2, 3; pit 3 makes
   * 4 with the last seed: South captures. */
  game_pos p =
      play_expect("0  1 1 0 3 0 0  2 2 2 2 2 2  11 20", 0, "0 0 1 0 0 0  2 2 2 2 2 2  15 20", NULL);
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
  p = play_expect("0  2 3 0 0 0 0  0 0 3 0 4 0  16 20", 0, "0 0 1 0 0 0  0 0 3 0 4 0  20 20", NULL);
  ck_assert_int_eq(p.round, 1);
}
END_TEST

/* A player who owns no seeds passes: the other moves again. */
START_TEST(empty_player_passes) {
  configure(NULL);
  game_pos p =
      play_expect("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23", 0, "0 1 0 0 0 0  0 0 0 0 0 0  24 23", NULL);
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
/* The single seed in pit 0, South to move, chases round the board (one
 * legal move at every ply) until round 1 ends or 100 plies; returns the
 * plies played, p the position then. */
static int chase_the_seed(game_pos *p) {
  *p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, p);
  int plies = 0;
  while (p->round == 1 && plies < 100) {
    game_moves m = game_legal(&G, p);
    ck_assert_int_eq(game_count(m), 1);
    game_step(&G, p, h, __builtin_ctz(m));
    plies++;
  }
  free(h);
  return plies;
}

START_TEST(round_stalemate_by_repetition) {
  configure(NULL);
  game_pos p;
  ck_assert_int_eq(chase_the_seed(&p), 24);
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
  game_pos p;
  ck_assert_int_eq(chase_the_seed(&p), 12);
  configure("first_player=1");
  p = start_pos();
  ck_assert_int_eq(p.mover, GAME_NORTH);
  ck_assert_int_eq(p.aux[0] & 1, GAME_NORTH);  /* he started round 1 */
  ck_assert_uint_eq(game_legal(&G, &p), 0x3f); /* his pits 6-11 */
}
END_TEST

START_TEST(round_stalemate_by_nocap_limit) {
  configure("repetition=0 nocap_limit=10 max_rounds=1");
  game_pos p = pos("0  1 0 0 0 0 0  0 0 0 0 0 0  24 23");
  play_first(&p, 10);
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
  play_first(&p, 3);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.store[0], 25); /* the seed is in pit 3 */
}
END_TEST

START_TEST(game_cap_game_plies) {
  configure("game_plies=5");
  game_pos p = start_pos();
  play_first(&p, 5);
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
      expect_end(&p, GAME_END_TARGET, cases[i].h0, 12 - cases[i].h0,
                 cases[i].h0 ? GAME_SOUTH : GAME_NORTH);
      /* The game ends on the last round's board: no round after it. */
      ck_assert_int_eq(p.round, 1);
      ck_assert_int_eq(p.store[0], cases[i].t0);
      ck_assert_int_eq(p.store[1], cases[i].t1);
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
  /* Fixed claims are made at once: no position waits for them. */
  setboard_fails("0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 2 0 2",
                 "no claim phase under namnam_claim=fixed (claims must be 0)");
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
  expect_end(&p, GAME_END_MAXROUNDS, 8, 4, GAME_SOUTH);
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
  int b[12], cap[2], captures, round_over, endless, end; /* end: the last pit */
  ref_relays relays;
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
    if (ref_pickup(&r.relays, r.b, 12, at, dropped)) {
      r.endless = 1; /* stopped before the repeated pick-up: the truncate result */
      return r;
    }
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
  game_pos p = start_pos();
  ref_result rr = ref_move(&p, 0);
  static const int pits[4] = {4, 9, 2, 8}, seeds[4] = {5, 5, 6, 6};
  expect_relays(&rr.relays, 4, pits, seeds);
  ck_assert_int_eq(rr.end, 2);
  ck_assert_int_eq(rr.captures, 0);
  game_play(&G, &p, 0);
  for (int i = 0; i < 12; i++) ck_assert_int_eq(p.pits[i], rr.b[i]);
}
END_TEST

/* Random games (pass rule, no feeding) are checked move by move against the
 * reference: the legal sowing moves (the claims of a new round are not
 * modelled), ... */
static int ref_legal(const game_pos *p, int truncate, game_moves *want, long *endless) {
  if (p->phase != 0) return 0;
  *want = 0;
  for (int pit = 0; pit < 12; pit++) {
    if ((int)(p->owner >> pit & 1) != p->mover || !p->pits[pit]) continue;
    ref_result rr = ref_move(p, pit);
    *endless += rr.endless;
    if (!rr.endless || truncate) *want |= 1u << ((pit + 12 - 6 * p->mover) % 12);
  }
  return 1;
}

/* ... and the board and stores after a move that does not end the round. */
static void ref_check_move(const game_pos *before, int a, const game_pos *p, int truncate) {
  (void)truncate;
  if (before->phase != 0 || p->round != before->round || p->status != GAME_ONGOING) return;
  ref_result rr = ref_move(before, (a + 6 * before->mover) % 12);
  for (int i = 0; i < 12; i++)
    CHECK(p->pits[i] == rr.b[i], "pit %d: %d, reference %d", i, p->pits[i], rr.b[i]);
  CHECK(p->store[0] == before->store[0] + rr.cap[0] && p->store[1] == before->store[1] + rr.cap[1],
        "stores");
}

/* An endless move found by the reference is illegal; with truncate it is
 * legal and stops at the first repeated pick-up. */
START_TEST(endless_moves_found_and_cut) {
  configure(NULL);
  rng_t r;
  rng_seed(&r, 9, 0);
  game_hist *h = malloc(sizeof *h);
  int found = 0;
  for (int k = 0; k < 4000 && found < 5; k++) {
    game_pos p = start_pos();
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
      game_step(&G, &p, h, game_random_action(&r, m));
    }
  }
  free(h);
  if (test_scale() >= 1.0) ck_assert_int_ge(found, 5);
}
END_TEST

/* ---- Perft ------------------------------------------------------------------ */

#include "tests/perft_goldens_namnam.h"

/* Depth 1: South's six pits. Depth 2: the start looks the same from every
 * pit and NN1 makes no capture, so South's move from pit k leaves NN1's
 * board turned by k pits; North then has one move per non-empty pit of his
 * (no feeding rule). NN1 leaves only pit 8 empty, so after pits 0-3 North
 * has 5 moves and after pits 4-5 six: 32. */
START_TEST(perft_start_by_hand) {
  static const int nn1[12] = {2, 7, 1, 6, 1, 6, 6, 6, 0, 1, 6, 6};
  configure(NULL);
  game_pos p = start_pos();
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

/* ---- Other checks ------------------------------------------------------------- */

/* A claim position: the leader's claims are North's pits. */
START_TEST(claim_position_tokens) {
  configure(NULL);
  game_pos p = pos("0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  - 3 1 2");
  ck_assert_int_eq(p.phase, 1);
  ck_assert_uint_eq(game_legal(&G, &p), 0xfc0);
  expect_tokens(&p, "4 4 4 4 4 4 4 4 4 4 4 4 0 0 ssssssnnnnnn 3 1 2");
}
END_TEST

/* Input 75 (docs/ENCODING.md): at most 8 seeds left on the board, the
 * last-eight rule's threshold, on at 8 and off at 9. */
START_TEST(last_eight_input_at_its_threshold) {
  configure(NULL);
  static const struct {
    const char *tokens;
    float want;
  } cases[] = {{"0  1 1 1 1 1 1  1 1 0 0 0 0  20 20  ssssssnnnnnn 2 0", 1.0f},
               {"0  1 1 1 1 1 1  1 1 1 0 0 0  20 19  ssssssnnnnnn 2 0", 0.0f},
               {"0  0 0 0 1 0 0  0 0 0 0 0 0  24 23  ssssssnnnnnn 2 0", 1.0f}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    game_pos p = pos(cases[i].tokens);
    float f[GAME_MAX_FEATURES];
    game_encode(&G, &p, f);
    ck_assert_msg(f[75] == cases[i].want, "%s: input 75 is %g", cases[i].tokens, f[75]);
  }
}
END_TEST

static Suite *namnam_suite(void) {
  static const perft_case perft[] = {{"start", NULL, NULL, perft_namnam, PERFT_NAMNAM_DEPTH, 7, 1}};
  /* Final scores are the pits each side would own next round. */
  static const stress_case stress[] = {{NULL,
                                        {.games = 100000,
                                         .seed = 7,
                                         .max_ply = GAME_MAX_PLIES_CAP,
                                         .seeds = 48,
                                         .finals = 12,
                                         .check_game = stress_game,
                                         .common_ends = {GAME_END_TARGET, GAME_END_MAXROUNDS}}}};
  static const setboard_refusal refusals[] = {
      {"0 4 4",
       "setboard takes MOVER, 12 pits, 2 stores, optionally OWNER ROUND "
       "STARTER [CLAIMS] (15, 18 or 19 tokens), got 3"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  sssx 1 0",
       "bad owner 'sssx' (12 letters s/n for pits 0..11, or -)"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssssssss 1 0",
       "each player must own at least one pit"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 13 0", "bad round '13' (1..12)"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 0 1", "bad round '0' (1..12)"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 2 2", "bad starter '2' (0 or 1)"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 2 0 6", "bad claims '6' (0..5)"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 1", "pits and stores hold 49 seeds, this game has 48"},
  /* Claim phases that no game reaches: in round 1, with the mover's own
       * row not his, with pits already sown. */
#define CLAIM_RULE                                                                          \
  "a claim position is the start of round 2 or later: 4 seeds in every pit, empty stores, " \
  "the mover owning his whole row and at least CLAIMS pits of the other row left to claim"
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 1 0 2", CLAIM_RULE},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  sssssnsnnnnn 2 0 2", CLAIM_RULE},
      {"0  5 3 4 4 4 4  4 4 4 4 4 4  0 0  ssssssnnnnnn 2 0 2", CLAIM_RULE},
#undef CLAIM_RULE
      {NULL, NULL}};
#define OWNERS "0  4 4 4 4 4 4  4 4 4 4 4 4  0 0  sssssssnnnnn 2 0"
  static const render_case renders[] = {
      {OWNERS, "Round 2 of 12"},
      {OWNERS, "  4n  4n  4n  4n  4n  4s ]"},
      /* Each row's pit numbers, North's above and South's below. */
      {NULL, "\n         11  10   9   8   7   6\nNorth ["},
      {NULL, "\n          0   1   2   3   4   5\n(s/n after"},
      /* A board of distinct counts drawn whole: each pit under its number. */
      {"0  0 1 2 3 4 5 6 7 0 1 2 3  8 6  sssssnnnnnns 2 0",
       "         11  10   9   8   7   6\n"
       "North [  3s  2n  1n  0n  7n  6n ]  captured 6\n"
       "South [  0s  1s  2s  3s  4s  5n ]  captured 8  <- to move\n"
       "          0   1   2   3   4   5\n"},
      {NULL, NULL}};
#undef OWNERS
  static const reference_impl reference = {ref_legal, ref_check_move};
  static const game_spec spec = {
      .suite = "namnam",
      .game = "namnam",
      .perft = perft,
      .n_perft = 1,
      .stress = stress,
      .n_stress = 1,
      .start_tokens = "4 4 4 4 4 4 4 4 4 4 4 4 0 0 ssssssnnnnnn 1 0 0",
      .refusals = refusals,
      .renders = renders,
      /* Random games meet endless moves now and then (about 1 in 40,000
       * plies). */
      .reference = {&reference, 1500, 0},
      /* The same position seen by each side: pits turned by half the board,
       * owners and stores swapped, the other side to move and started. Own
       * pit 0 holds 1 seed and is South's; pit 2 is North's. */
      .encode = {"0  1 2 3 0 5 6  0 4 1 2 3 1  12 8  ssnsssnnnnsn 2 0",
                 "1  0 4 1 2 3 1  1 2 3 0 5 6  8 12  ssssnsnnsnnn 2 1",
                 85,
                 {{0, 0.125f}, {5, 1.0f}, {2 * 6 + 5, 0.0f}, {-1, 0}}}};
  game_tests t = {
      .examples = {nn1_relays_from_the_start, nn2_owner_captures_mid_sowing,
                   nn3_last_seed_makes_four, nn4_last_eight_ends_the_round,
                   nn4_next_round_leader_chooses, nn4_next_round_fixed_claims},
      .rules = {legal_moves_follow_ownership, origin_is_sown, owner_capture_for_the_mover,
                relay_then_last_seed_four, last_eight_mid_sowing, empty_player_passes,
                round_stalemate_by_repetition, repetition_option, round_stalemate_by_nocap_limit,
                round_cap_max_plies, game_cap_game_plies, pits_from_round_totals,
                fixed_claims_for_north, round_starter_options, max_rounds_decides_by_pits,
                feed_option},
      .reference = {nn1_relays_by_the_reference, endless_moves_found_and_cut},
      .perft = {perft_start_by_hand},
      .other = {claim_position_tokens, last_eight_input_at_its_threshold}};
  return game_suite(&spec, &t);
}

TEST_MAIN(namnam_suite)

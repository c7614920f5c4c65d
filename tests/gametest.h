/* Helpers shared by the game suites (test_oware.c, test_namnam.c,
 * test_bao_kenya.c, test_bao_laps.c, test_kujifunza.c): the game under test
 * G, positions from setboard tokens, board checks, perft, random games.
 * Each suite includes it once and owns its own G. */
#ifndef SOWZERO_TESTS_GAMETEST_H
#define SOWZERO_TESTS_GAMETEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "tests/testutil.h"

static game G; /* configured per test */

/* Splits s in place at any of the characters of sep; at most max tokens. */
static inline int split_tokens(char *s, const char *sep, char **argv, int max) {
  int argc = 0;
  for (char *save, *t = strtok_r(s, sep, &save); t && argc < max; t = strtok_r(NULL, sep, &save))
    argv[argc++] = t;
  return argc;
}

/* Configures G: a game or preset name and space-separated settings (or NULL). */
static inline void configure_game(const char *name, const char *settings) {
  char err[256], buf[256], *argv[16];
  snprintf(buf, sizeof buf, "%s", settings ? settings : "");
  int argc = split_tokens(buf, " ", argv, 16);
  int rc = game_configure(&G, name, argc, argv, err, sizeof err);
  ck_assert_msg(rc == 0, "configure %s %s: %s", name, settings ? settings : "", err);
}

/* G's setboard on the tokens of one string. */
static inline int setboard_str(game_pos *p, const char *tokens, char *err, size_t errlen) {
  char buf[1024], *argv[64];
  snprintf(buf, sizeof buf, "%s", tokens);
  int argc = split_tokens(buf, " ", argv, 64);
  return G.rules->setboard(&G, p, argc, argv, err, errlen);
}

/* The position of setboard tokens in one string ("MOVER pits... stores..."). */
static inline game_pos pos(const char *tokens) {
  char err[256];
  game_pos p;
  int rc = setboard_str(&p, tokens, err, sizeof err);
  ck_assert_msg(rc == 0, "setboard %s: %s", tokens, err);
  return p;
}

/* setboard refuses the tokens with exactly the message want. */
static inline void setboard_fails(const char *tokens, const char *want) {
  char err[256] = "";
  game_pos p;
  ck_assert_msg(setboard_str(&p, tokens, err, sizeof err) == -1, "setboard accepted %s", tokens);
  ck_assert_str_eq(err, want);
}

/* Seeds in G's pits and both stores. */
static inline int board_seeds(const game_pos *p) {
  int total = p->store[0] + p->store[1];
  for (int i = 0; i < G.n_pits; i++) total += p->pits[i];
  return total;
}

/* G's pits of p, then both stores, must read want (spacing aside). */
static inline void expect_board(const game_pos *p, const char *want) {
  char got[256], norm[256], buf[256], *tok[64];
  size_t k = 0;
  for (int i = 0; i < G.n_pits + 2; i++)
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%d", i ? " " : "",
                          i < G.n_pits ? p->pits[i] : p->store[i - G.n_pits]);
  snprintf(buf, sizeof buf, "%s", want);
  int n = split_tokens(buf, " ", tok, 64);
  k = 0;
  norm[0] = 0;
  for (int i = 0; i < n; i++)
    k += (size_t)snprintf(norm + k, sizeof norm - k, "%s%s", i ? " " : "", tok[i]);
  ck_assert_msg(strcmp(got, norm) == 0, "board %s, expected %s", got, norm);
}

/* board_tokens of p must be want. */
static inline void expect_tokens(const game_pos *p, const char *want) {
  char buf[512];
  ck_assert_int_eq(G.rules->board_tokens(&G, p, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, want);
}

/* setboard of the mover and board_tokens gives p back (what the tokens
 * hold, and the hash). */
static inline void expect_tokens_round_trip(const game_pos *p) {
  char buf[512], line[600];
  ck_assert_int_eq(G.rules->board_tokens(&G, p, buf, sizeof buf), 0);
  snprintf(line, sizeof line, "%d %s", p->mover, buf);
  game_pos q = pos(line);
  ck_assert_msg(memcmp(q.pits, p->pits, sizeof q.pits) == 0, "pits of %s", line);
  ck_assert_int_eq(q.store[0], p->store[0]);
  ck_assert_int_eq(q.store[1], p->store[1]);
  ck_assert_uint_eq(q.owner, p->owner);
  ck_assert_int_eq(q.round, p->round);
  ck_assert_int_eq(q.phase, p->phase);
  ck_assert_int_eq(q.mover, p->mover);
  ck_assert_int_eq(q.aux[0], p->aux[0]);
  ck_assert_msg(q.hash == p->hash, "hash of %s", line);
}

/* expect_tokens_round_trip on each position of a random game from the
 * start, for at most plies moves. */
static inline void random_round_trips(uint64_t seed, int plies) {
  rng_t r;
  rng_seed(&r, seed, 0);
  game_pos p;
  game_start(&G, &p);
  for (int i = 0; i < plies && p.status == GAME_ONGOING; i++) {
    expect_tokens_round_trip(&p);
    game_moves m = game_legal(&G, &p);
    game_play(&G, &p, game_nth_action(m, (int)rng_below(&r, (uint32_t)game_count(m))));
  }
}

/* Plays action a, which must be legal; returns the GAME_PLAY_* flags. */
static inline int play_legal(game_pos *p, int a) {
  ck_assert_msg(game_legal(&G, p) >> a & 1, "action %d is not legal (legal %x)", a,
                game_legal(&G, p));
  return game_play(&G, p, a);
}

/* a and b, one position seen by each side, encode alike into fa and fb
 * (GAME_MAX_FEATURES floats each). */
static inline void expect_same_encoding(const game_pos *a, const game_pos *b, float *fa,
                                        float *fb) {
  game_encode(&G, a, fa);
  game_encode(&G, b, fb);
  for (int i = 0; i < G.n_features; i++) ck_assert_msg(fa[i] == fb[i], "feature %d", i);
}

/* ---- Perft ---------------------------------------------------------------------
 * Move sequences of length depth from p; games that end earlier are not
 * counted. */

/* Through game_play: for games without a repetition rule. */
static inline uint64_t perft(const game_pos *p, int depth) {
  if (p->status != GAME_ONGOING) return 0;
  if (depth == 0) return 1;
  uint64_t n = 0;
  for (game_moves r = game_legal(&G, p); r; r &= r - 1) {
    game_pos q = *p;
    game_play(&G, &q, __builtin_ctz(r));
    n += perft(&q, depth - 1);
  }
  return n;
}

static inline uint64_t perft_hist_from(const game_pos *p, const game_hist *h, int depth) {
  if (p->status != GAME_ONGOING) return 0;
  if (depth == 0) return 1;
  game_moves m = game_legal(&G, p);
  uint64_t n = 0;
  game_hist *hc = malloc(sizeof *hc);
  for (game_moves r = m; r; r &= r - 1) {
    game_pos q = *p;
    game_hist_copy(hc, h);
    game_step(&G, &q, hc, __builtin_ctz(r));
    n += perft_hist_from(&q, hc, depth - 1);
  }
  free(hc);
  return n;
}

/* Through game_step with the history from p: the full rules, repetition
 * included. */
static inline uint64_t perft_hist(const game_pos *p, int depth) {
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, p);
  uint64_t n = perft_hist_from(p, h, depth);
  free(h);
  return n;
}

/* perft (with hist: perft_hist) from p at depths 1..depth gives golden[d-1];
 * what names the position in messages. */
static inline void expect_perft(const game_pos *p, int hist, const uint64_t *golden, int depth,
                                const char *what) {
  for (int d = 1; d <= depth; d++) {
    uint64_t got = hist ? perft_hist(p, d) : perft(p, d);
    ck_assert_msg(got == golden[d - 1], "perft %s depth %d: %llu, golden %llu", what, d,
                  (unsigned long long)got, (unsigned long long)golden[d - 1]);
  }
}

/* ---- Random games ---------------------------------------------------------------- */

typedef struct {
  long games;
  uint64_t seed, stream; /* of the RNG that picks the moves */
  int max_ply;           /* no game is longer */
  int seeds;             /* pits and stores always hold this many; 0: not checked */
  int finals;            /* the final scores add up to this; 0: not checked */
  /* Called after every move with the flags of game_step and the side that
   * moved, and at the end of every game; either may be NULL. */
  void (*check_move)(const game_pos *p, int flags, int mover);
  void (*check_game)(const game_pos *p);
  /* End reasons that a long run (10,000 games or more) must meet; a 0 ends
   * the list. */
  int common_ends[4];
} random_run;

/* Random games on G from the start through game_step: an ongoing game always
 * has a legal move, a winner has the better outcome, and run's checks hold. */
static inline void random_games(const random_run *run) {
  long ends[GAME_END_COUNT] = {0};
  rng_t r;
  rng_seed(&r, run->seed, run->stream);
  game_hist *h = malloc(sizeof *h);
  for (long k = 0; k < run->games; k++) {
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = game_legal(&G, &p);
      CHECK(m != 0, "ongoing game without a legal move");
      int mover = p.mover;
      int flags =
          game_step(&G, &p, h, game_nth_action(m, (int)rng_below(&r, (uint32_t)game_count(m))));
      if (run->seeds)
        CHECK(board_seeds(&p) == run->seeds, "seeds not conserved: %d", board_seeds(&p));
      CHECK(p.ply <= run->max_ply, "game longer than %d plies", run->max_ply);
      if (run->check_move) run->check_move(&p, flags, mover);
    }
    ends[p.end_reason]++;
    if (run->finals)
      CHECK(p.final[0] + p.final[1] == run->finals, "final %d-%d", p.final[0], p.final[1]);
    CHECK(p.winner == GAME_DRAW || game_outcome(&p, p.winner) == 1, "winner");
    if (run->check_game) run->check_game(&p);
  }
  free(h);
  for (int i = 0; i < 4 && run->common_ends[i] && run->games >= 10000; i++)
    ck_assert_msg(ends[run->common_ends[i]] > 0, "no game ended by %s",
                  game_end_name(run->common_ends[i]));
}

#endif

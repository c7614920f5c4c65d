/* The skeleton of the game suites (test_oware.c, test_namnam.c,
 * test_bao_kenya.c, test_bao_laps.c, test_kujifunza.c), written once in
 * tests/gametest.c and linked into each: the game under test G, positions
 * from setboard tokens, board checks, perft, random games, the driver that
 * holds an engine to a suite's second implementation, and the suite itself.
 *
 * A game suite describes its game in a game_spec (perft goldens, stress
 * runs, setboard refusals, drawings, the encoding's symmetry) and lists its
 * own tests by test case; game_suite adds the tests every game shares. */
#ifndef SOWZERO_TESTS_GAMETEST_H
#define SOWZERO_TESTS_GAMETEST_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "game/game.h"
#include "tests/testutil.h"

extern game G; /* configured per test */

/* ---- Positions ------------------------------------------------------------------ */

/* Splits s in place at any of the characters of sep; at most max tokens. */
int split_tokens(char *s, const char *sep, char **argv, int max);
/* Configures G: a game or preset name and space-separated settings (or NULL). */
void configure_game(const char *name, const char *settings);
/* Configures G as the suite's game (game_spec.game) with settings (or NULL). */
void configure(const char *settings);
/* The suite's game refuses settings with exactly the message want. */
void configure_fails(const char *settings, const char *want);
/* G's setboard on the tokens of one string. */
int setboard_str(game_pos *p, const char *tokens, char *err, size_t errlen);
/* The position of setboard tokens in one string ("MOVER pits... stores..."). */
game_pos pos(const char *tokens);
/* G's start position. */
game_pos start_pos(void);
/* setboard refuses the tokens with exactly the message want. */
void setboard_fails(const char *tokens, const char *want);
/* Seeds in G's pits and both stores. */
int board_seeds(const game_pos *p);

/* ---- Moves and boards -------------------------------------------------------------- */

/* G's pits of p, then both stores, must read want (spacing aside). */
void expect_board(const game_pos *p, const char *want);
/* board_tokens of p must be want. */
void expect_tokens(const game_pos *p, const char *want);
/* setboard of the mover and board_tokens gives p back (what the tokens
 * hold, and the hash). */
void expect_tokens_round_trip(const game_pos *p);
/* expect_tokens_round_trip on each position of a random game from the
 * start, for at most plies moves. */
void random_round_trips(uint64_t seed, int plies);
/* Plays action a, which must be legal; returns the GAME_PLAY_* flags. */
int play_legal(game_pos *p, int a);
/* Plays the lowest legal action n times (each must be legal). */
void play_first(game_pos *p, int n);
/* From the position of tokens (NULL: the start) plays action a, which must
 * be legal, and expects the board (expect_board); returns the position
 * after the move and, when flags is not NULL, the move's GAME_PLAY_* flags. */
game_pos play_expect(const char *tokens, int a, const char *board, int *flags);

/* p is over, ended by reason (-1: any), with final scores final0 and final1
 * (-1: not checked) and winner (GAME_SOUTH, GAME_NORTH or GAME_DRAW; -1: not
 * checked). */
void expect_end(const game_pos *p, int reason, int final0, int final1, int winner);

/* The target rule: from tokens, action brings the mover's store to the
 * target and ends the game at once (GAME_END_TARGET, final scores final0
 * and final1, the winner whoever has more); with target=0 the same move plays on and the store holds
 * store. Leaves G configured with target=0. */
void expect_target_ends(const char *tokens, int action, int final0, int final1, int store);

/* ---- Encoding ----------------------------------------------------------------------- */

typedef struct {
  int index;
  float value;
} feature_value;

/* a and b, one position seen by each side, encode alike into G.n_features
 * features (n_features of them), and a's features hold want (up to 4; an
 * index < 0 ends the list early). */
void expect_mirror_encoding(const game_pos *a, const game_pos *b, int n_features,
                            const feature_value *want);

/* ---- Perft --------------------------------------------------------------------------
 * Move sequences of length depth from p; games that end earlier are not
 * counted. */

/* Through game_play: for games without a repetition rule. */
uint64_t perft(const game_pos *p, int depth);
/* Through game_step with the history from p: the full rules, repetition
 * included. */
uint64_t perft_hist(const game_pos *p, int depth);

/* ---- Random games --------------------------------------------------------------------- */

typedef struct {
  long games;            /* at full scale: random_games runs games * test_scale() */
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
void random_games(const random_run *run);

/* ---- A second implementation --------------------------------------------------------
 * A suite's reference implementation of its rules, as two callbacks; truncate
 * is 1 when endless moves are cut (endless_move=truncate), 0 when they are
 * illegal. */
typedef struct {
  /* The reference's legal actions at the ongoing position p into *want,
   * adding the endless moves it meets to *endless; returns 0 when p is
   * outside what the reference models (not compared). */
  int (*legal)(const game_pos *p, int truncate, game_moves *want, long *endless);
  /* Checks the engine's move `action` from before to after. */
  void (*check_move)(const game_pos *before, int action, const game_pos *after, int truncate);
} reference_impl;

/* What the games of reference_games met. */
typedef struct {
  long endless;              /* endless moves, by the reference */
  long ends[GAME_END_COUNT]; /* games by end reason */
} reference_tally;

/* Random games on G configured with settings (games at full scale, run
 * games * test_scale()), moves picked by an RNG of seed: at every position
 * the engine's legal actions must be the reference's, and every move passes
 * the reference's check. out (may be NULL) gets what the games met. */
void reference_games(const char *settings, long games, uint64_t seed, const reference_impl *ref,
                     reference_tally *out);

/* ---- The suite ------------------------------------------------------------------------------- */

/* Perft of one position under one set of options against pinned goldens. */
typedef struct {
  const char *what;        /* names the tree in messages */
  const char *settings;    /* options of the suite's game (NULL: defaults) */
  const char *tokens;      /* setboard tokens (NULL: the start) */
  const uint64_t *golden;  /* golden[d-1] for depth d */
  int depth, scaled_depth; /* depths checked; under sanitizers (test_scale() < 1) */
  int hist;                /* 1: perft_hist, else perft */
} perft_case;

/* A random_games run under one set of options. */
typedef struct {
  const char *settings;
  random_run run;
} stress_case;

typedef struct {
  const char *tokens, *error;
} setboard_refusal;

/* The drawing of a position (tokens NULL: the start) contains text. */
typedef struct {
  const char *tokens, *text;
} render_case;

typedef struct {
  const char *suite; /* the Check suite's name */
  const char *game;  /* the game or preset that configure() sets up */
  const perft_case *perft;
  int n_perft;
  const stress_case *stress;
  int n_stress;
  const char *start_tokens;         /* board_tokens of the start */
  const setboard_refusal *refusals; /* NULL tokens end the list */
  const render_case *renders;       /* NULL text ends the list; may be NULL */
  /* The relay games' second implementation against the engine on random
   * games (`games` at full scale each): with endless moves illegal (seed 5),
   * where the games must meet an endless move and, if end is not 0, a game
   * ended by end; and cut (endless_move=truncate, seed 6). impl NULL: the
   * suite has its own reference tests. */
  struct {
    const reference_impl *impl;
    long games;
    int end;
  } reference;
  /* One position seen by each side (setboard tokens a and b) encodes alike;
   * a NULL: the suite tests its encoding itself. */
  struct {
    const char *a, *b;
    int n_features;
    feature_value want[4];
  } encode;
} game_spec;

/* The suite's own tests by test case (NULL-terminated lists). */
typedef struct {
  const TTest *examples[24]; /* the worked examples of the game's page */
  const TTest *rules[24];    /* each rule sentence and option */
  const TTest *reference[8]; /* against a second implementation or traces */
  const TTest *perft[4];     /* perft worked out by hand */
  const TTest *other[8];
} game_tests;

/* The suite of spec's game: its own tests, then the shared ones (reference,
 * perft goldens, stress, setboard and tokens, encoding). spec must outlive
 * the run. */
Suite *game_suite(const game_spec *spec, const game_tests *tests);

#endif

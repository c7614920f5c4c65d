/* stats: what a rule variant does in practice — many games between two
 * agents (random against random by default), with the first player's
 * results, game lengths, captures and how games end.
 *
 * Two steps, usable apart: stats_play plays the games and keeps a small
 * record of each (stats_game); stats_summarize turns any array of such
 * records into the figures (a pure function, so hand-made records test
 * it). stats_run does both.
 *
 * stats_play runs params.threads workers (base/pool.h), each with its own
 * agents; every game reseeds both agents from (seed, game number, seat), so
 * the numbers depend on the seed only, not on the threads. The rates'
 * intervals are Wilson's (ratings.h). */
#ifndef SOWZERO_STATS_H
#define SOWZERO_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "arena/openings.h"
#include "game/game.h"

typedef struct {
  int games;
  int threads;
  uint64_t seed;
  /* Game k starts after the plies of book[k % n_book] (borrowed, not
   * copied); n_book 0: every game from the start position. */
  const opening_line *book;
  int n_book;
  const char *egdb_dir; /* the agents' agent_params.egdb_dir (NULL: the default) */
} stats_params;

stats_params stats_defaults(void);

/* What one game leaves for the statistics. "First player" is whoever
 * moved first in the game (the start position's mover). */
typedef struct {
  int8_t outcome;        /* for the first player: +1, 0, -1 */
  uint8_t end;           /* a game_end_reason */
  int16_t margin;        /* the first player's final seed margin */
  uint16_t plies;        /* the whole game, opening plies included */
  uint16_t captures;     /* moves that captured */
  uint16_t grand_slams;  /* grand-slam moves */
  uint8_t n_open;        /* plies in open[] (0..2; fewer when the game was shorter) */
  uint8_t open[2];       /* the game's first two actions */
  uint8_t open_mover[2]; /* who played them (GAME_SOUTH, GAME_NORTH) */
  uint64_t hash;         /* of the plies: games with equal plies, equal hashes */
} stats_game;

/* A count of games, its proportion and the 95% Wilson interval. */
typedef struct {
  int count;
  double rate, lo, hi;
} stats_rate;

typedef struct {
  int games;
  int first_side; /* who moves first at the start (0 South) */
  stats_rate first_win, draw, first_loss;
  double first_score, first_score_lo, first_score_hi; /* (wins + draws/2) / games */
  double mean_margin;                                 /* first player's final seed margin */
  /* Game length in plies; percentiles are nearest-rank. */
  double len_mean, len_sd;
  int len_min, len_p10, len_p25, len_median, len_p75, len_p90, len_max;
  int end_reason[GAME_END_COUNT]; /* games per game_end_reason */
  int grand_slams;                /* grand-slam moves over all games */
  int captures;                   /* capturing moves over all games */
  int distinct_games;             /* different games: games with equal plies count once */
  double seconds;
} stats_result;

/* Called after each game with the games finished so far, one call at a
 * time (under the match's lock), in completion order. */
typedef void (*stats_game_fn)(int done, int total, void *ud);

/* Plays params.games games, `first` moving first, into games[0..games)
 * (the caller's array); on_game may be NULL. -1 with a message for a
 * request out of range, a bad spec, an opening the game refuses or a
 * failing agent. */
int stats_play(const game *g, const char *first, const char *second, const stats_params *p,
               stats_game_fn on_game, void *ud, stats_game *games, char *err, size_t errlen);

/* The figures of n >= 1 game records (seconds left 0); -1 with a message
 * for n < 1 or no memory for the sorted copies. */
int stats_summarize(const stats_game *games, int n, int first_side, stats_result *out, char *err,
                    size_t errlen);

/* stats_play, then stats_summarize. */
int stats_run(const game *g, const char *first, const char *second, const stats_params *p,
              stats_result *out, char *err, size_t errlen);

#endif

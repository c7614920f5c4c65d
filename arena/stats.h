/* stats: what a rule variant does in practice — many games between two
 * agents (random against random by default), with the first player's
 * results, game lengths and how games end.
 *
 * stats_run runs params.threads workers (base/pool.h), each with its own
 * agents; every game reseeds both agents from (seed, game number, seat), so
 * the numbers depend on the seed only, not on the threads. The rates'
 * intervals are Wilson's (ratings.h). */
#ifndef SOWZERO_STATS_H
#define SOWZERO_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "game/game.h"

typedef struct {
  int games;
  int threads;
  uint64_t seed;
} stats_params;

stats_params stats_defaults(void);

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
  /* Game length in plies. */
  double len_mean, len_sd;
  int len_min, len_p10, len_p25, len_median, len_p75, len_p90, len_max;
  int end_reason[GAME_END_COUNT]; /* games per game_end_reason */
  int grand_slams;                /* grand-slam moves over all games */
  double seconds;
} stats_result;

/* Plays params.games games, `first` moving first. */
int stats_run(const game *g, const char *first, const char *second, const stats_params *p,
              stats_result *out, char *err, size_t errlen);

#endif

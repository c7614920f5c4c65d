/* openings: the plies played from the start before agents take over, so
 * that deterministic agents do not replay one game. Two kinds, each a pure
 * function of its seed:
 *
 *   - a level book (opening_level_book), for the arena: distinct openings
 *     of 1..plies random plies that an alphabeta search judges even;
 *   - random openings (opening_random), for gating and evaluation matches:
 *     opening number i of a seed is `plies` uniformly random plies.
 *
 * No state is kept between calls; any thread may call either. */
#ifndef SOWZERO_OPENINGS_H
#define SOWZERO_OPENINGS_H

#include <stddef.h>
#include <stdint.h>

#include "game/game.h"

#define OPENING_MAX_PLIES 32

/* One opening: plies played from the start position. */
typedef struct {
  int n;
  uint8_t moves[OPENING_MAX_PLIES];
} opening_line;

/* K distinct openings of 1..plies random plies from the start that an
 * alphabeta search of `depth` scores within `margin` for the side to move
 * (100 = one seed), into out[0..k). Deterministic for a seed. -1 with a
 * message if too few can be found or the request is out of range. */
int opening_level_book(const game *g, int k, int plies, int depth, int margin, uint64_t seed,
                       opening_line *out, char *err, size_t errlen);
/* A deep book takes long (each draw is an alphabeta search): the same,
 * calling fn (if not NULL) after each judged draw with the openings found
 * so far of k and the draws made. */
typedef void (*opening_progress_fn)(void *ctx, int found, int k, int draws);
int opening_level_book_report(const game *g, int k, int plies, int depth, int margin, uint64_t seed,
                              opening_line *out, opening_progress_fn fn, void *ctx, char *err,
                              size_t errlen);

/* Random opening number `index` of a seed: min(plies, OPENING_MAX_PLIES)
 * uniformly random legal plies from the start, redrawn while they end the
 * game (at most 101 times; then the ended draw is kept and the caller sees
 * p->status). Fills the plies, the position they reach and its history. */
void opening_random(const game *g, int plies, uint64_t seed, int index, opening_line *out,
                    game_pos *p, game_hist *h);

#endif

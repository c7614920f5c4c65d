/* alphabeta: negamax with alpha-beta pruning over the game interface, with
 * iterative deepening, a transposition table, move ordering (the table's
 * move first, then captures by size), a depth and/or a time limit.
 *
 * Scores are integers for the player to move:
 *   a finished game   outcome * (AB_WIN - plies from the search root) + margin
 *                     (wins sooner and by more are better)
 *   a horizon leaf    w_store * store difference + w_seeds * seeds on own
 *                     row minus the opponent's + w_mobility * non-empty own
 *                     pits minus the opponent's
 * A move that keeps the same side to move is followed without negation.
 *
 * Repetition follows game_step from the root's history along each line.
 * The table key mixes the position hash with the scores, the clocks and
 * (when the repetition rule is on) a hash of the positions since the last
 * capture, so a stored value is never reused under a history that would
 * change it.
 *
 * An ab_search owns its table (made once, fixed size) and belongs to one
 * thread at a time. */
#ifndef SOWZERO_ALPHABETA_H
#define SOWZERO_ALPHABETA_H

#include <stddef.h>
#include <stdint.h>

#include "base/kv.h"
#include "game/game.h"

#define AB_WIN 1000000
#define AB_INF 2000000000

typedef struct {
  int depth;   /* deepest iteration, plies (1..AB_MAX_DEPTH) */
  double time; /* seconds per search; 0: no time limit */
  int tt_mb;   /* table size in MiB (0: no table) */
  int w_store; /* evaluation weights (see above) */
  int w_seeds;
  int w_mobility;
  int margins; /* 1: database positions and finished games score w_store * their
                  final margin (as the database counts it where it holds the
                  board), on the evaluation's scale: the biggest sure win is
                  preferred to a smaller one (below) */
} ab_params;

#define AB_MAX_DEPTH 64

typedef struct {
  int best;       /* best action at the root, -1 if none */
  int score;      /* for the root mover */
  int depth;      /* deepest completed iteration */
  int exact;      /* 1: every line reached the end of the game */
  uint64_t nodes; /* positions visited, all iterations */
  double seconds; /* wall time */
  int n;          /* root actions scored in the last iteration */
  int action[GAME_MAX_ACTIONS];
  int scores[GAME_MAX_ACTIONS]; /* exact only for the best; others bounds */
} ab_result;

typedef struct ab_search ab_search;

/* The defaults of the parameter table: depth 6, no time limit, a 16 MiB
 * table, weights 100, 10, 10. */
ab_params ab_defaults(void);
/* The parameter table (base/kv.h): keys "depth", "time", "tt" (tt_mb),
 * "w_store", "w_seeds", "w_mobility", "margins", with ranges and help. */
const kv_table *ab_params_table(void);
/* Sets one named field from text; -1 with a message naming the key. */
int ab_params_set(ab_params *p, const char *key, const char *value, char *err, size_t errlen);

/* -1 naming the first parameter out of the table's range. */
ab_search *ab_create(const game *g, const ab_params *p, char *err, size_t errlen);
void ab_free(ab_search *s);
/* The table's size in bytes: the most entries, a power of two, that fit in
 * tt_mb MiB (0: no table). */
size_t ab_table_bytes(const ab_search *s);
/* Scores positions of the endgame database exactly (at most max_seeds
 * seeds; <= 0: all the database holds). By default as finished games:
 * outcome * (AB_WIN - plies) + final margin, from perfect play's result
 * given the stores, so that a sure result beats every horizon score. With
 * margins = 1 as w_store * final margin (store difference + the
 * database's value, which plays on past the target), which ranks sure
 * wins by margin against each other and against the horizon's estimates
 * (docs/SEARCH.md, "The endgame search"). NULL detaches; a database that
 * does not serve the game is ignored. db is borrowed and must outlive the
 * search. */
struct egdb;
void ab_attach_egdb(ab_search *s, const struct egdb *db, int max_seeds);
/* Forgets the table (a new game starts). */
void ab_clear(ab_search *s);
/* Sets the time limit of the next searches (params.time; 0: none). */
void ab_set_time(ab_search *s, double seconds);
/* Searches p (ongoing) with h the history that led to it (NULL: p alone). */
int ab_run(ab_search *s, const game_pos *p, const game_hist *h, ab_result *out, char *err,
           size_t errlen);
/* The static evaluation of p for its mover (horizon score). */
int ab_evaluate(const ab_search *s, const game_pos *p);

#endif

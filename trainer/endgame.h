/* endgame: how well a network knows the positions of the endgame database.
 *
 * A run draws a fixed set of positions once (random games from the start,
 * with a seed of the run): up to `per_level` ongoing positions for each of
 * the top `levels` seed counts the database holds. At each evaluation the
 * best network is measured on them against the exact values: the mean
 * absolute error of its value (against the outcome perfect play reaches
 * from the stores) and of its margin, and how often its policy's top move
 * and a small search's move keep the result and keep the best margin
 * (docs/TRAINING.md lists the metrics' keys). */
#ifndef SOWZERO_ENDGAME_H
#define SOWZERO_ENDGAME_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "nn/nn.h"
#include "trainer/config.h"

typedef struct endgame_set endgame_set;

/* A run's database as its [egdb] keys ask (one shared copy, egdb_acquire,
 * checked to serve the run's game) and its folder in dir; *db NULL when the
 * run does not use one. The caller releases it (egdb_release). */
int endgame_acquire_db(const train_config *c, egdb **db, char *dir, size_t dlen, char *err,
                       size_t errlen);

/* The positions; NULL with a message if memory runs out. db is borrowed. */
endgame_set *endgame_sample(const egdb *db, const game *g, int per_level, int levels, uint64_t seed,
                            char *err, size_t errlen);
void endgame_free(endgame_set *e);
/* Positions drawn in all. */
int endgame_count(const endgame_set *e);

/* Measures net (score output x score_scale = seeds) with a search of sims
 * simulations, and puts the member "egdb": {...} (docs/TRAINING.md). */
int endgame_measure(const endgame_set *e, const nn_net *net, float score_scale, int sims,
                    json_writer *w, char *err, size_t errlen);

#endif

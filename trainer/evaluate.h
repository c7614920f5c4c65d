/* evaluate: the periodic evaluation of the best network — against each
 * anchor of eval.anchors (paired games, arena/match.h) and, with [egdb],
 * on the endgame database's positions (endgame.h). Runs on the caller's
 * thread; keeps nothing between calls. */
#ifndef SOWZERO_EVALUATE_H
#define SOWZERO_EVALUATE_H

#include <stddef.h>

#include "base/json.h"
#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/endgame.h"

/* One line of progress (the caller's to report). */
typedef void (*eval_say_fn)(void *ctx, const char *line);

typedef struct {
  const train_config *c;
  unsigned iteration;         /* seeds the openings */
  const char *best_path;      /* the best network's weight file (the anchors' opponent) */
  const nn_net *best;         /* the same network (the endgame check) */
  const endgame_set *endgame; /* NULL: no endgame check */
  eval_say_fn say;            /* may be NULL */
  void *say_ctx;
} eval_job;

/* Plays the best (a zero agent of eval.sims simulations in the run's
 * precision) against every anchor and measures it on the endgame
 * positions; puts metrics.jsonl's members "eval": {ANCHOR: {...}} and
 * "egdb": {...} (docs/TRAINING.md). */
int eval_run(const eval_job *j, json_writer *w, char *err, size_t errlen);

#endif

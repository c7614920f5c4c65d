/* checkpoint: checkpoint/learner.ckpt, the commit point of an iteration —
 * the candidate's weights, the optimiser's moments and step, and the run's
 * counters with the learner's sampling RNG (counters.h's bytes as the
 * checkpoint's caller blob; docs/FORMATS.md). Written atomically. */
#ifndef SOWZERO_CHECKPOINT_H
#define SOWZERO_CHECKPOINT_H

#include <stddef.h>

#include "nn/nn.h"
#include "trainer/counters.h"
#include "trainer/learner.h"

/* Saves the learner and rc (its rng replaced by the learner's). */
int checkpoint_save(const char *path, const learner *l, const nn_meta *meta, const run_counters *rc,
                    char *err, size_t errlen);
/* Loads into the learner (checked against ex) and rc; the learner's RNG
 * goes on from the saved one. */
int checkpoint_load(const char *path, learner *l, const nn_expect *ex, run_counters *rc, char *err,
                    size_t errlen);

#endif

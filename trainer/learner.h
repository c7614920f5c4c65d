/* learner: the candidate network and what trains it — the optimiser, the
 * workspace, the sampling RNG and the mini-batch buffers — and the learning
 * rate's schedule. One thread (the learner's) owns it. */
#ifndef SOWZERO_LEARNER_H
#define SOWZERO_LEARNER_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/counters.h"
#include "trainer/replay.h"

typedef struct {
  const train_config *c; /* borrowed */
  nn_net *cand;
  nn_trainer *trainer;
  nn_ws *ws;
  rng_t rng; /* draws the mini-batches; saved in the checkpoint */
  /* One mini-batch: samples, inputs (batch x n_features), target policies
   * (batch x n_actions), outcomes, margins (/ score_scale), legal masks. */
  replay_sample *batch;
  float *x, *pi, *z, *score;
  uint32_t *legal;
} learner;

/* The learner fresh from the run seed; on -1 the caller still calls
 * learner_free. */
int learner_init(learner *l, const train_config *c, char *err, size_t errlen);
void learner_free(learner *l);

/* Learning rate of the next step: linear warm-up over the first
 * warmup_steps, then cosine from lr to lr_final over the budget (time,
 * else iterations; constant without either). A phased run follows
 * iterations only, so that the clock decides nothing. */
float learner_rate(const train_config *c, const run_counters *rc, double elapsed);

/* One training step on a uniform mini-batch of buf at rate lr: rc->steps
 * and rc->learner_ns go up, the step's losses go to *last and are added to
 * *avg. */
int learner_step(learner *l, replay *buf, float lr, run_counters *rc, nn_losses *last,
                 nn_losses *avg, char *err, size_t errlen);

#endif

/* train_loop: the learner's two schedules, on the learner's thread with
 * the self-play workers (or a distributed run's actors) started. The loop
 * trains until an iteration's steps are done and hands back; the caller
 * ends the iteration (train.c) and calls again.
 *
 * Overlapped (the default): self-play never stops, and the learner trains
 * whenever the buffer has grown enough (learner.train_ratio). With
 * selfplay.learner_plays the learner's thread plays a round of its own
 * self-play worker whenever it would otherwise wait for samples, so that
 * every core works; training and gating come first, since the learner
 * looks for a step to take after every round. Which samples a step draws,
 * and how many games come between two candidates, depend on timing.
 *
 * Phased (run.deterministic = 1): self-play, training and gating take
 * turns. An iteration plays until its games hold the samples that
 * steps_per_iter steps consume at train_ratio (selfplay_phase: games enter
 * the buffer in game-number order), then trains exactly steps_per_iter
 * steps with the learner's seeded RNG, then gates with seeded games. The
 * learning rate follows iterations, never the clock, and the time budget
 * is looked at only between iterations. So the same config, seed and
 * thread count give the same run, at the price of the overlap. */
#ifndef SOWZERO_TRAIN_LOOP_H
#define SOWZERO_TRAIN_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/counters.h"
#include "trainer/dist_learner.h"
#include "trainer/learner.h"
#include "trainer/machine.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"

typedef struct {
  /* What the loop drives (borrowed); the caller fills these. */
  const train_config *c;
  learner *l;
  replay *buf;
  run_counters *rc;
  selfplay_counters *counters; /* the workers' (or the actors') live counters */
  selfplay *sp;                /* the workers (NULL with ld); NULL after they failed */
  dist_learner *ld;            /* a distributed run's intake; NULL: one process */
  volatile sig_atomic_t *stop;
  double t_start;     /* this session's wall clock at its start */
  double cpu_start;   /* and the process's CPU time */
  double bench_until; /* > 0: a benchmark ending at this wall time, which never ends an iteration */
  /* A status update (phase: "self-play", "training"); may be NULL. */
  void (*status)(void *ctx, const char *phase);
  void (*say)(void *ctx, const char *line);
  void *ctx;
  run_machine machine; /* the threads resolved and the machine said (machine.h; train.c fills) */
  /* The iteration so far: its steps, their summed losses, the last step's. */
  int nsteps;
  nn_losses avg, last;
  /* The loop's own (zero to start). */
  int started;
  uint64_t added0, steps0;
} train_loop;

/* Training time over all sessions. */
double train_loop_elapsed(const train_loop *L);
/* This session's CPU time split into network, search, learner and gating
 * (shares of their sum: rc's counters and the live ones), and the
 * process's cores used (CPU / wall time). */
void train_loop_shares(const train_loop *L, double share[4], double *cores_used);
/* Trains until an iteration's steps are done: 1 (L->nsteps and L->avg
 * are the iteration's; the caller zeroes them after ending it); 0 when the
 * budget is spent or a stop was asked for; -1 on failure (after a worker
 * failed, L->sp is stopped and NULL). */
int train_loop_next(train_loop *L, char *err, size_t errlen);

#endif

/* What train.c (set-up, files, iterations) shares with train_loop.c (the
 * learner's schedules): the state of a running run. */
#ifndef SOWZERO_TRAIN_INTERNAL_H
#define SOWZERO_TRAIN_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "base/base.h"
#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/counters.h"
#include "trainer/endgame.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"
#include "trainer/train.h"

#define PATH_MAX_LEN 1024

/* Everything a run holds while it runs. */
typedef struct {
  const train_args *a;
  train_config cfg;
  char dir[PATH_MAX_LEN / 2];
  nn_meta meta;
  nn_net *best, *cand;
  nn_trainer *trainer;
  nn_ws *ws;
  replay *buf;
  netslot *slot;
  selfplay *sp;
  selfplay_counters counters;
  run_counters rc;
  rng_t rng;
  train_status st;
  /* learner batch buffers */
  replay_sample *batch;
  float *x, *pi, *z, *score;
  uint32_t *legal;
  /* kept self-play games of the current iteration */
  pthread_mutex_t rec_lock;
  char *records;
  size_t rec_len, rec_cap;
  int rec_count;
  uint64_t rec_total;        /* games kept in this session */
  int lock_fd;               /* flock on DIR/.lock while the run lives */
  double t_start, cpu_start; /* this session's wall clock and process CPU time at its start */
  double bench_until;        /* > 0: a benchmark (train_bench) ending at this wall time */
  /* [egdb] enabled: the shared database and the positions evaluations
   * measure the network on (NULL when off). */
  egdb *db;
  endgame_set *endgame;
} run;

/* Training time over all sessions, this one started at t_start. */
static inline double train_elapsed(const run *r, double t_start) {
  return r->rc.elapsed + (clock_wall() - t_start);
}

/* A progress report (train_progress_fn's kind; fmt NULL: a status update). */
void train_emit(run *r, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The learning rate of the next step. */
float train_learning_rate(const run *r, double elapsed);
/* Ends an iteration of nsteps steps (avg: their summed losses): the
 * candidate, gating, evaluation, records, buffer, metrics, checkpoint. */
int train_end_iteration(run *r, double t_start, const nn_losses *avg, int nsteps, char *err,
                        size_t errlen);

/* The learner's state, fresh from the run seed: candidate, trainer,
 * workspace, sampling RNG and batch buffers. */
int train_learner_init(run *r, char *err, size_t errlen);
/* Frees whatever of the run was made. */
void train_teardown(run *r);
/* This session's CPU time split into network, search, learner and gating
 * (shares of their sum), and the process's cores used (CPU / wall time). */
void train_time_shares(const run *r, double share[4], double *cores_used);

/* The learner's schedules, on the calling thread with the workers started.
 * 0 when the budget is spent or a stop was asked for; -1 on failure (after
 * a worker failed, r->sp is stopped and NULL). */
int train_loop_overlapped(run *r, double t_start, char *err, size_t errlen);
/* (With r->bench_until set, the overlapped loop trains without ending
 * iterations, until that time.) */
int train_loop_phased(run *r, double t_start, char *err, size_t errlen);

#endif

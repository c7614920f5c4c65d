/* train: one training run — self-play workers, the replay buffer, the
 * learner, gating and the periodic evaluation, with everything a run needs
 * to stop at any moment and resume.
 *
 * A run lives in a directory:
 *   config.ini          the resolved configuration (every key)
 *   best.weights        the current best network; candidate.weights beside it
 *   checkpoint/learner.ckpt   candidate weights, Adam moments, step counter,
 *                             and the run's counters and learner RNG
 *   replay.bin          the replay buffer
 *   metrics.jsonl       one JSON object per iteration
 *   games/              kept self-play games, one file per iteration
 * Every file is written atomically (temporary file, fsync, rename). The
 * checkpoint is written last in an iteration and is the commit point: on
 * resume, metrics lines of iterations after it are dropped, so a run killed
 * at any moment loses at most the iteration in progress. A run is made in
 * the order config.ini, checkpoint (iteration 0), metrics.jsonl,
 * best.weights.
 *
 * What the directory holds decides, and what does not fit is refused with
 * nothing written (docs/TRAINING.md): a config that differs from the run's
 * on any key but the resumable ones (config_resumable), a run's work
 * without its checkpoint, promotions without best.weights, a run's files
 * without config.ini, a run file that is not a regular file. Only this
 * library's own stale temporaries are removed (afile_remove_stale).
 *
 * train_run blocks until the budget is spent, *stop becomes non-zero (a
 * signal handler may set it), or an error. It prints nothing: progress goes
 * to the caller's callback, from the calling thread. */
#ifndef SOWZERO_TRAIN_H
#define SOWZERO_TRAIN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "trainer/config.h"

typedef struct {
  int iteration;      /* iterations completed */
  uint64_t steps;     /* training steps */
  uint64_t games;     /* self-play games, over all resumes */
  uint64_t samples;   /* samples added to the buffer, over all resumes */
  int buffer;         /* samples in the buffer */
  double loss;        /* total loss of the last step */
  double entropy;     /* entropy of the network's policy on the last step's batch */
  int reject_streak;  /* candidates rejected in a row by gating (0 after a promotion) */
  double elapsed_min; /* training time, over all resumes */
  double budget_min;  /* the budget (0: none) */
  int promotions;
  char last_gate[96]; /* "promoted 58.0% (+56 Elo)" */
  const char *phase;  /* "self-play", "training", "gating", "evaluation" */
  double cores_used;  /* this session's process CPU time / wall time */
  double share[4];    /* this session's CPU time: network, search, learner, gating */
} train_status;

/* kind: 0 a status update (frequent), 1 an event line worth logging (an
 * iteration's summary, a resume, a promotion). */
typedef void (*train_progress_fn)(void *ctx, int kind, const train_status *st, const char *line);

typedef struct {
  const char *config_path; /* the config asked for; NULL: the run's own config.ini */
  const char *run_dir;
  int n_over; /* "section.key=value" overrides */
  char *const *over;
  train_progress_fn progress;
  void *progress_ctx;
  volatile sig_atomic_t *stop; /* may be NULL */
  /* Called (may be NULL) just before each file an iteration writes, in the
   * order they are written: "candidate.weights", "best.weights", "games",
   * "replay.bin", "metrics.jsonl", "checkpoint". Iteration is the one being
   * finished. For tests that stop a run between any two writes. */
  void (*before_write)(void *ctx, unsigned iteration, const char *file);
  void *write_ctx;
  /* A distributed run (docs/DISTRIBUTED.md): this process is its rank 0,
   * the learner; the other ranks run train_actor. NULL: one process. */
  struct dist *dist;
} train_args;

/* Runs (or resumes) a run. 0 when the budget is spent or a stop was
 * requested (state saved), -1 with a message on failure. */
int train_run(const train_args *a, char *err, size_t errlen);

/* An actor rank (not 0) of a distributed run: takes the resolved config
 * and the best network from the learner, plays self-play games with
 * `[selfplay] threads` workers and streams them to the learner, picks up
 * each promoted network, until the learner says stop. A config path in a
 * (may be NULL) must resolve (with a's overrides) to the learner's config
 * but for the resumable keys. 0 when the learner stopped it; 1 when the
 * run did not start (a check refused it, which every rank knows: the
 * caller ends normally); -1 with a message on a failure during the run
 * (the caller ends the whole job: dist_abort). */
int train_actor(const train_args *a, struct dist *d, char *err, size_t errlen);

/* ---- Throughput ---------------------------------------------------------------
 * train_bench runs the overlapped schedule of config c (its self-play
 * workers, and the learner at its train_ratio) for `seconds` of wall time,
 * from the untrained network of its seed (or, weights not NULL, the
 * network of that file, of the config's game and shape), in memory: the learner starts at
 * the first batch (min_samples is not waited for) and never ends an
 * iteration, so the network the workers play stays the same. The endgame
 * database ([egdb]) is not opened. */
typedef struct {
  double seconds;                        /* wall time measured */
  uint64_t games, samples, evals, steps; /* in that time */
  double cores_used;                     /* process CPU time / wall time */
  double threads_runnable;               /* mean threads running or ready to run (-1: unknown) */
  double share[4];                       /* network, search, learner, gating */
} train_bench_result;

int train_bench(const train_config *c, const char *weights, double seconds, train_bench_result *out,
                char *err, size_t errlen);
/* 0 when train_bench can start from weights (NULL, or a file of c's game,
 * rules and shape), else -1 with a message naming the file: a check before
 * anything is printed. */
int train_bench_check(const train_config *c, const char *weights, char *err, size_t errlen);

/* train_bench_learner measures what one learner (the rank 0 of a
 * distributed run) can take: training steps per second on one core with
 * the config's batch and network, and samples per second through its
 * intake of actors' game messages (decoding, checks, the buffer; MPI's own
 * transport not included), each for half of `seconds`, on random games of
 * the config's game. Its capacity is the most samples per second it can
 * take in while training train_ratio samples per sample:
 * 1 / (1 / intake + train_ratio / (batch x steps)). With learner.threads
 * above 1 the steps are timed by the wall clock (the helpers' CPU time is
 * not the calling thread's), else by the thread's CPU clock; the _wall
 * figures are by the wall clock either way, steps_per_s_thread by the
 * calling thread's CPU clock either way (with threads that each have a
 * core, the wall rate approaches it: the caller does its shard, its slice
 * of the sums and Adam). */
typedef struct {
  double steps_per_s, intake_per_s, capacity_per_s;
  double steps_per_s_wall, capacity_per_s_wall, steps_per_s_thread;
} train_learner_result;

int train_bench_learner(const train_config *c, double seconds, train_learner_result *out, char *err,
                        size_t errlen);

#endif

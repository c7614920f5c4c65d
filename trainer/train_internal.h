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
#include "trainer/dist.h"
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
  /* A distributed run's learner (NULL: one process; docs/DISTRIBUTED.md):
   * the actors' games come in by train_dist_poll instead of from r->sp. */
  struct learner_dist *ld;
  /* Candidates rejected in a row (from metrics.jsonl on resume). */
  int reject_streak;
  /* The self-play counters as of the last metrics line of this session. */
  selfplay_tally seen;
} run;

/* A streak of this many rejections is reported as a run that has stopped
 * improving (docs/TRAINING.md, "When gating stops promoting"). */
#define TRAIN_STUCK_STREAK 20

/* Self-play's parameters from the config's keys (search, games, playout
 * cap, random plies, records, precision, database level); the caller adds
 * the seed, the schedule, the database and where games go. */
static inline selfplay_params train_selfplay_params(const train_config *c) {
  return (selfplay_params){.g = &c->g,
                           .variants = c->variant,
                           .variant_weight = c->variant_weight,
                           .n_variants = c->n_variants,
                           .search = c->search,
                           .games = c->games_per_thread,
                           .cap_sims = c->cap_sims,
                           .full_frac = c->full_frac,
                           .random_plies = c->random_plies,
                           .record_every = c->record_every,
                           .precision = c->precision,
                           .db_max_seeds = c->egdb_max_seeds};
}

/* Training time over all sessions, this one started at t_start. */
static inline double train_elapsed(const run *r, double t_start) {
  return r->rc.elapsed + (clock_wall() - t_start);
}

/* A progress report (train_progress_fn's kind; fmt NULL: a status update). */
void train_emit(run *r, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One training step on a uniform mini-batch of the buffer; its losses are
 * added to avg. */
int train_learner_step(run *r, double elapsed, nn_losses *avg, char *err, size_t errlen);
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

/* [egdb]: the run's database (one shared copy, checked against the
 * game) and its folder; *db NULL when the run does not use one. */
int train_egdb_acquire(const train_config *c, egdb **db, char *dir, size_t dlen, char *err,
                       size_t errlen);
/* Keeps a self-play game in this iteration's records (selfplay_record_fn). */
void train_record_game(void *ctx, const game *g, const uint8_t *moves, int n, const game_pos *end);

/* ---- A distributed run (docs/DISTRIBUTED.md) -----------------------------------
 * The messages between the learner (rank 0) and the actors, in this build's
 * byte order: every rank runs the same build (checked at start). */
enum {
  DIST_TAG_GAME = 1, /* actor to learner: dist_game_msg, n samples, nmoves moves */
  DIST_TAG_NET = 2,  /* learner to actor: dist_net_msg, the parameters */
  DIST_TAG_STOP = 3, /* learner to actor: stop playing; nothing follows it */
  DIST_TAG_BYE = 4,  /* actor to learner: nothing follows it from this rank */
  DIST_TAG_ACK = 5   /* learner to actor: a uint64_t, bytes of its games taken in since the last */
};
/* The learner acknowledges an actor's games every this many bytes; the
 * actor's games unacknowledged and queued are bounded by
 * selfplay.actor_outbox_mb (back-pressure). */
#define DIST_ACK_BYTES (1u << 20)

typedef struct {
  uint32_t version;   /* of the network that played the game's last move */
  uint32_t n, nmoves; /* samples and moves that follow */
  uint32_t paused_ms; /* the actor's workers waited this long for room since its last game */
  uint32_t variant;   /* of the game, an index into the run's variants */
  uint32_t unused;
  uint64_t evals, eval_calls, search_ns, net_ns; /* the actor's work since its last game */
  game_pos final;
} dist_game_msg;

typedef struct {
  uint32_t version; /* promotions of the run when it was published */
  uint32_t n_params;
} dist_net_msg;

/* What rank 0 broadcasts after its set-up, before the config's text. */
typedef struct {
  uint32_t ok;        /* 0: the learner failed; the actors end quietly */
  uint32_t iteration; /* of the run, which the actors' seeds follow */
} dist_start_msg;

/* The learner's side: start (checks, the config and network to the
 * actors; with r NULL: tells them the learner failed), poll (games in,
 * without waiting), publish (a promotion out), stop (tells the actors),
 * finish (stops them if not yet done and takes their last games, until
 * every actor has said bye), and the metrics fragment of an iteration. */
int train_dist_start(run *r, dist *d, char *err, size_t errlen);
int train_dist_poll(run *r, char *err, size_t errlen);
int train_dist_publish(run *r, char *err, size_t errlen);
int train_dist_stop(run *r, char *err, size_t errlen);
int train_dist_finish(run *r, char *err, size_t errlen);
void train_dist_json(run *r, char *json, size_t len);
/* Game messages (total bytes, back to back, as actors send them) through
 * the learner's intake without MPI: the same checks, buffer and counters
 * as train_dist_poll (the learner benchmark). */
int train_dist_ingest(run *r, const unsigned char *msgs, size_t total, char *err, size_t errlen);
/* 1 once every actor has left (the run cannot go on). */
int train_dist_orphaned(const run *r);
void train_dist_free(run *r);
/* Checks all ranks run the same build: a checksum of the executable,
 * gathered from every rank (collective). 0; 1 if a rank differs (every
 * rank knows, and err names it); -1 on an MPI failure. */
int train_dist_same_build(dist *d, char *err, size_t errlen);

/* The learner's schedules, on the calling thread with the workers started.
 * 0 when the budget is spent or a stop was asked for; -1 on failure (after
 * a worker failed, r->sp is stopped and NULL). */
int train_loop_overlapped(run *r, double t_start, char *err, size_t errlen);
/* (With r->bench_until set, the overlapped loop trains without ending
 * iterations, until that time.) */
int train_loop_phased(run *r, double t_start, char *err, size_t errlen);

#endif

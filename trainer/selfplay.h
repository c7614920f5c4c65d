/* selfplay: the self-play workers.
 *
 * Each worker is one pthread owning its games, its batched search
 * (mcts_batch), its evaluator workspace and a private copy of the best
 * network, which it takes from a netslot (trainer/netslot.h). A finished
 * game, its samples (position, target policy, outcome and margin for the
 * mover) and moves, has one way out: the sink of selfplay_params, after it
 * is counted. A run in one process stores it (selfplay_store_game: the
 * buffer and the kept records); an actor of a distributed run queues it for
 * the learner. */
#ifndef SOWZERO_SELFPLAY_H
#define SOWZERO_SELFPLAY_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"
#include "trainer/netslot.h"
#include "trainer/replay.h"

/* A finished game as a worker hands it on: its samples with their targets,
 * its moves, its end, and the generation (netslot) of the network that
 * played its last move. Valid during the call only. */
typedef struct {
  const replay_sample *samples;
  int n;
  const uint8_t *moves;
  int nmoves;
  const game_pos *final;
  uint64_t gen;
  int variant;     /* index into selfplay_params.variants (0 without them) */
  const game *g;   /* its rules */
  int keep;        /* 1: one of the games selfplay_params.record_every keeps */
  uint64_t number; /* its random stream: a worker's k-th game is k * threads + worker */
} selfplay_game;
/* Where finished games go: called from worker threads (in phased mode from
 * selfplay_phase's caller, in game-number order); it may wait
 * (back-pressure), but must stop waiting when its owner stops the workers.
 * Non-zero: the worker fails. */
typedef int (*selfplay_sink_fn)(void *ctx, const selfplay_game *gm);

/* The sink of a run in one process (ctx: a selfplay_store): the samples
 * into the buffer, the kept games' moves into the records. */
typedef struct {
  replay *buffer;
  struct records *records; /* NULL: none kept */
} selfplay_store;
int selfplay_store_game(void *ctx, const selfplay_game *gm);

typedef struct {
  const game *g; /* borrowed for the workers' lifetime */
  /* Variants of g (borrowed; n_variants <= 1: g alone): each game draws
   * one by weight, and its samples say which. */
  const game *variants;
  const float *variant_weight;
  int n_variants;
  mcts_params search; /* full-budget search (noise on) */
  int games;          /* games per worker */
  int cap_sims;       /* fast-move budget (playout-cap randomisation); 0: off */
  float full_frac;    /* share of moves with the full budget */
  int random_plies;   /* each game starts after 0..N uniformly random plies (no samples) */
  int record_every;   /* every N-th game is marked kept (selfplay_game.keep); 0: none */
  uint64_t seed;      /* run seed; worker w uses stream w, game k stream k */
  int phased;         /* 1: play only inside selfplay_phase (deterministic runs) */
  int precision;      /* nn_precision of the workers' networks */
  /* The endgame database (borrowed; NULL: none): the searches treat its
   * positions as solved, and a recorded position it holds (at most
   * db_max_seeds seeds; 0: all) gets its exact outcome and margin as
   * targets instead of the game's result. */
  const struct egdb *db;
  int db_max_seeds;
  int hosted;            /* 1: one more worker, without a thread: the caller runs it */
  selfplay_sink_fn sink; /* where finished games go */
  void *sink_ctx;
} selfplay_params;

/* Counters shared by all workers (atomics; read at any time). */
typedef struct {
  _Atomic uint64_t games, plies, samples, evals, eval_calls;
  _Atomic uint64_t wins[3];              /* first-mover results: [0] win, [1] draw, [2] loss */
  _Atomic uint64_t ends[GAME_END_COUNT]; /* games by why they ended (game_end_reason) */
  _Atomic uint64_t search_ns;            /* worker time outside the network */
  _Atomic uint64_t net_ns;               /* worker time inside the network */
} selfplay_counters;

/* What a reader of the counters has seen of them. */
typedef struct {
  uint64_t games, plies, wins[3], ends[GAME_END_COUNT];
} selfplay_tally;

/* metrics.jsonl's "selfplay" member (docs/TRAINING.md): the games since
 * `seen`, up to `games` (the games counter as the caller read it for the
 * same line), their mean length, the first mover's results and how they
 * ended; then seen moves on. The shares and the plies are of what was
 * counted, where a game being counted as the line is written can be a line
 * early (so a line of very few games can show a mean length of 0). */
void selfplay_json(const selfplay_counters *c, uint64_t games, selfplay_tally *seen,
                   json_writer *w);

/* Counts one finished game (`end` its final position) of `samples` samples;
 * first_mover: the player whose results wins[] keeps. */
void selfplay_count_game(selfplay_counters *c, const game_pos *end, int first_mover,
                         uint64_t samples);

typedef struct selfplay selfplay;

/* Starts `threads` worker threads, and with params.hosted one more worker
 * (the last, numbered `threads`) that plays only when the caller lends it
 * its thread: selfplay_host_round, and inside selfplay_phase. The threads
 * run until selfplay_stop. */
selfplay *selfplay_start(const selfplay_params *p, int threads, netslot *best,
                         selfplay_counters *counters, char *err, size_t errlen);
/* Asks the workers to stop, joins them and frees everything. Games in
 * progress are dropped. Returns -1 if a worker failed (message in err). */
int selfplay_stop(selfplay *s, char *err, size_t errlen);
/* 1 if a worker has stopped on an error (the run should stop too). */
int selfplay_failed(selfplay *s);
/* Overlapped mode with params.hosted: one search round (a move in each of
 * its games) of the hosted worker on the calling thread, which must be the
 * one that started the workers. 0; -1 if it failed (selfplay_stop gives the
 * message). */
int selfplay_host_round(selfplay *s);

/* Phased self-play (params.phased = 1), where nothing depends on timing:
 * the workers play only inside this call. Each plays until the games it
 * finished in this call hold its share of `samples` (split evenly), then
 * pauses, keeping its games in progress for the next call. The finished
 * games are then counted and go to the sink in game-number order, from the
 * calling thread. Worker w numbers its k-th
 * game k * threads + w, and each game's search draws from a stream of the
 * seed and that number. So what a call adds depends on the seed, the
 * thread count, the best network and the calls before it, and on nothing
 * else. With params.hosted the calling thread plays the hosted worker's
 * share first, then waits for the threads. Returns 0; 1 if *stop (may be NULL; looked at every 50 ms) became
 * non-zero, with nothing added; -1 if a worker failed (selfplay_stop gives
 * its message). */
int selfplay_phase(selfplay *s, uint64_t samples, volatile sig_atomic_t *stop);

#endif

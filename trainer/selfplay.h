/* selfplay: the self-play workers and the slot they read the best network
 * from.
 *
 * Each worker is one pthread owning its games, its batched search
 * (mcts_batch), its evaluator workspace and a private copy of the best
 * network. Finished games go to the replay buffer as samples (position,
 * target policy, outcome and margin for the mover).
 *
 * The best network lives in a netslot: the learner publishes a promoted
 * network by copying its weights in under the slot's mutex and bumping a
 * generation counter; a worker that sees a new generation copies the
 * weights into its private net between two search rounds. So a worker never
 * evaluates a net that is being written. */
#ifndef SOWZERO_SELFPLAY_H
#define SOWZERO_SELFPLAY_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"
#include "trainer/replay.h"

/* ---- The best-network slot (thread-safe) ---------------------------------- */
typedef struct netslot netslot;

/* A slot holding a copy of `initial` (same config from then on). */
netslot *netslot_create(const nn_net *initial, char *err, size_t errlen);
void netslot_free(netslot *s);
/* Copies net into the slot; the generation goes up by one. */
void netslot_publish(netslot *s, const nn_net *net);
/* If the slot's generation differs from *gen, copies its weights into dst
 * and updates *gen; returns 1 if it copied. */
int netslot_fetch(netslot *s, nn_net *dst, uint64_t *gen);
uint64_t netslot_generation(netslot *s);

/* ---- Workers ------------------------------------------------------------------ */
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
  int variant; /* index into selfplay_params.variants (0 without them) */
} selfplay_game;
/* Where finished games go instead of the buffer (an actor of a distributed
 * run): called from worker threads; it may wait (back-pressure), but must
 * stop waiting when its owner stops the workers. Non-zero: the worker
 * fails. */
typedef int (*selfplay_sink_fn)(void *ctx, const selfplay_game *gm);

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
  int record_every;   /* every N-th game's moves go to the record sink; 0: none */
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
  selfplay_sink_fn sink; /* NULL: games go to the buffer (not with phased) */
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
void selfplay_json(const selfplay_counters *c, uint64_t games, selfplay_tally *seen, char *json,
                   size_t len);

/* Counts one finished game (`end` its final position) of `samples` samples;
 * first_mover: the player whose results wins[] keeps. */
void selfplay_count_game(selfplay_counters *c, const game_pos *end, int first_mover,
                         uint64_t samples);

/* Where kept game records go: called from worker threads with the moves of
 * one finished game (the callee locks what it needs). */
typedef void (*selfplay_record_fn)(void *ctx, const game *g, const uint8_t *moves, int n,
                                   const game_pos *final);

typedef struct selfplay selfplay;

/* Starts `threads` worker threads, and with params.hosted one more worker
 * (the last, numbered `threads`) that plays only when the caller lends it
 * its thread: selfplay_host_round, and inside selfplay_phase. The threads
 * run until selfplay_stop. */
selfplay *selfplay_start(const selfplay_params *p, int threads, netslot *best, replay *buffer,
                         selfplay_counters *counters, selfplay_record_fn record, void *record_ctx,
                         char *err, size_t errlen);
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
 * games then go to the buffer, the counters and the record sink in
 * game-number order, from the calling thread. Worker w numbers its k-th
 * game k * threads + w, and each game's search draws from a stream of the
 * seed and that number. So what a call adds depends on the seed, the
 * thread count, the best network and the calls before it, and on nothing
 * else. With params.hosted the calling thread plays the hosted worker's
 * share first, then waits for the threads. Returns 0; 1 if *stop (may be NULL; looked at every 50 ms) became
 * non-zero, with nothing added; -1 if a worker failed (selfplay_stop gives
 * its message). */
int selfplay_phase(selfplay *s, uint64_t samples, volatile sig_atomic_t *stop);

#endif

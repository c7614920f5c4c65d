/* What the files of the self-play module share (selfplay.c: the workers;
 * selfplay_phase.c: phased mode; selfplay_games.c: a finished game's way
 * out). */
#ifndef SOWZERO_SELFPLAY_INTERNAL_H
#define SOWZERO_SELFPLAY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/base.h"
#include "search/evaluator_nn.h"
#include "trainer/selfplay.h"

/* The timing evaluator: the network evaluator wrapped to measure the time
 * the worker spends in it. */
typedef struct {
  mcts_eval inner;
  selfplay_counters *c;
} timed_eval;

/* One game in progress: its own position and history (the search keeps its
 * own copies), and the samples recorded so far. */
typedef struct {
  game_pos pos;
  game_hist *hist;
  uint64_t number;        /* the worker's k-th game is k * threads + worker */
  int variant;            /* index into the variants (0 without them) */
  int n;                  /* samples recorded */
  int nmoves;             /* moves played */
  replay_sample *samples; /* GAME_MAX_PLIES_CAP */
  uint8_t *moves;         /* GAME_MAX_PLIES_CAP */
} game_slot;

/* A game finished inside a phase, waiting for selfplay_phase to hand it
 * on: its samples and (when kept) moves sit in the worker's arrays. */
typedef struct {
  uint64_t number;
  size_t first, moves_at; /* into the worker's fin_s and fin_m */
  int n, nmoves, keep, variant;
  game_pos final;
} fin_game;

/* A growable array of the worker's phase output; it keeps its memory from
 * one phase to the next, so it grows only in the first phases. */
typedef struct {
  void *p;
  size_t n, cap;
} grow;

typedef struct {
  struct selfplay *owner;
  int id;
  pthread_t thread;
  nn_net *net;  /* private copy of the best */
  uint64_t gen; /* generation of that copy */
  mcts_nn *eval;
  mcts_batch *batch;
  game_slot *slots;
  float *pi;        /* n_actions */
  timed_eval timed; /* the network evaluator, timed */
  rng_t rng;
  uint64_t games_done;
  uint64_t started; /* games started */
  /* Phased mode: the samples to finish in this phase, those finished, and
   * the finished games (fin_game, replay_sample, moves). */
  uint64_t quota, got;
  grow fin, fin_s, fin_m;
  char err[256];
} worker;

struct selfplay {
  selfplay_params p;
  game g;
  netslot *best;
  selfplay_counters *counters;
  _Atomic int stop;
  _Atomic int failed;
  int n;       /* workers, the hosted one included */
  int threads; /* worker threads: all workers but the hosted one */
  worker *w;
  /* Phased mode: the learner bumps `phase` to start one; each worker
   * counts itself into `done` when its quota is met (or it failed). */
  pthread_mutex_t ph_lock;
  pthread_cond_t ph_go, ph_done;
  uint64_t phase;
  int done;
};

/* The rules of variant v, or the one game. */
const game *selfplay_variant_game(const selfplay *s, int v);
/* One search round over all the worker's games, and a move in each. */
int selfplay_play_round(selfplay *s, worker *w);
/* The one way out of a finished game: counted, then to the sink. */
int selfplay_hand_on(selfplay *s, const selfplay_game *gm);
/* Phased mode: the finished game waits in the worker's arrays (its moves
 * too when keep). */
int selfplay_keep_finished(worker *w, game_slot *gs, int keep);
/* Phased mode: waits for the next phase (0 when told to stop); counts the
 * worker into the phase's done. */
int selfplay_wait_phase(selfplay *s, uint64_t *seen);
void selfplay_phase_done(selfplay *s);

#endif

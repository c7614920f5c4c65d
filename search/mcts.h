/* mcts: PUCT tree search over the game interface, with an optional Gumbel
 * root (sequential halving), exact values for proven positions (solver),
 * subtree reuse, and a batched driver that advances many searches at once
 * and evaluates their leaves in one evaluator call.
 *
 * Values are expected outcomes in [-1, 1]. Every value the evaluator returns
 * and every value this module reports is for the player to move at that
 * position unless a comment says otherwise. Moves that keep the same side to
 * move (extra turns, grand-slam continuation) are handled: a value is
 * negated between two positions only when the mover changes.
 *
 * Memory: an mcts handle makes its node arena (params.node_cap nodes, 20
 * bytes each and 4 for re-rooting), its path buffers and optional position
 * cache once, in mcts_create. Nothing is allocated per simulation. When the
 * arena is full it grows if mcts_set_node_limit allows (doubling, so
 * rarely), else the search stops expanding and keeps evaluating leaves
 * (mcts_info.arena_full counts it).
 *
 * Threads: a handle (mcts, mcts_batch, mcts_cache) belongs to one thread at
 * a time; mcts_search alone runs threads of its own on one search, each
 * with its own evaluator. The game it was made for is copied. Evaluator
 * contexts are called only from the thread that runs the search that uses
 * them.
 *
 * Details in docs/SEARCH.md. */
#ifndef SOWZERO_MCTS_H
#define SOWZERO_MCTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "base/kv.h"
#include "game/game.h"
#include "search/timectl.h"

/* ---- Evaluators ---------------------------------------------------------------
 * evaluate fills, for n positions (all ongoing):
 *   policy  n x g->n_actions probabilities, 0 for illegal actions, summing
 *           to 1 over the legal ones (the search renormalises defensively)
 *   value   n values for the player to move at each position
 * and returns 0, or -1 when it cannot evaluate them (n above max_batch, a
 * network made for other sizes). Evaluators keep no error text: the search
 * reports which call failed ("the evaluator failed on a batch of 64").
 * max_batch: the largest n the evaluator accepts (0: no limit). */
typedef struct {
  int (*evaluate)(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                  float *value);
  void *ctx;
  int max_batch;
} mcts_eval;

/* Uniform priors over the legal actions, value 0. Stateless, shareable. */
mcts_eval mcts_eval_uniform(void);

/* Uniform priors; the value is the mean outcome of `rollouts` uniformly
 * random playouts (game_play until the game ends, no repetition history).
 * The context owns an RNG: one per thread. */
typedef struct mcts_rollout mcts_rollout;
mcts_rollout *mcts_rollout_create(int rollouts, uint64_t seed, char *err, size_t errlen);
void mcts_rollout_free(mcts_rollout *r);
void mcts_rollout_reseed(mcts_rollout *r, uint64_t seed);
mcts_eval mcts_rollout_eval(mcts_rollout *r);

/* ---- Parameters ----------------------------------------------------------------
 * All settable by name through mcts_params_set ("c_puct=1.5"). */
typedef struct {
  int sims;              /* simulations per move (mcts_run's default budget) */
  float c_puct;          /* exploration weight of PUCT */
  float c_puct_base;     /* 0: constant c_puct; else c grows as
                           c_puct + log((1 + N + base) / base) (AlphaZero) */
  float fpu_reduction;   /* unvisited child Q = parent Q - fpu * sqrt(visited
                           prior mass) */
  float fpu_root;        /* the same at the root (<0: use fpu_reduction) */
  int noise;             /* 1: self-play exploration (Dirichlet noise at the
                           root, or Gumbel noise with gumbel=1) */
  float dirichlet_alpha; /* Dirichlet concentration for root noise */
  float dirichlet_frac;  /* weight of the noise in the root priors */
  float temperature;     /* move sampling temperature in the opening */
  int temp_plies;        /* game plies (game_pos.ply) sampled at temperature;
                           later moves take temp_final */
  float temp_final;      /* temperature after temp_plies (0: most visits) */
  int node_cap;          /* node arena capacity */
  int cache_size;        /* position cache entries of a search (0: none) */
  int batch;             /* largest evaluator call of the batched driver */
  int reuse;             /* 1: keep the subtree of the move played */
  int solver;            /* 1: propagate proven wins/losses/draws */
  int gumbel;            /* 1: Gumbel root search with sequential halving */
  int gumbel_m;          /* root actions sampled without replacement */
  float gumbel_c_visit;  /* sigma(q) = (c_visit + max N) * c_scale * q */
  float gumbel_c_scale;
  float gumbel_q_span; /* completed Q is scaled by max(its range at the node, this) */
} mcts_params;

/* Defaults of the parameter table (docs/SEARCH.md). */
mcts_params mcts_defaults(void);
/* Defaults for searches with uniform priors and rollouts (the `mcts`
 * agent): with priors 1/k the PUCT term is c * sqrt(N) / (k (1 + n)), so c
 * is larger than with a network; sims 1000, no first-play reduction. */
mcts_params mcts_rollout_defaults(void);
/* The parameter table: names, ranges, defaults and help of every field,
 * for callers that parse settings lists or print help (base/kv.h). */
const kv_table *mcts_params_table(void);
/* Sets one named field from text; -1 with a message naming the key if the
 * key is unknown or the value bad. */
int mcts_params_set(mcts_params *p, const char *key, const char *value, char *err, size_t errlen);
/* Checks every field against the table's ranges (for values set by code). */
int mcts_params_check(const mcts_params *p, char *err, size_t errlen);
/* Writes every field as "key = value" lines (INI), in table order; -1 if
 * len is too small. mcts_params_set reads each line's pair back. */
int mcts_params_format(const mcts_params *p, char *buf, size_t len);

/* ---- Position cache -------------------------------------------------------------
 * A fixed-size, direct-mapped table from a position key (everything the
 * evaluator can see: pits, owner, mover, scores, clocks) to a policy and
 * value. Replacement: the newest result wins its slot. */
typedef struct mcts_cache mcts_cache;
mcts_cache *mcts_cache_create(int entries, int n_actions, char *err, size_t errlen);
void mcts_cache_free(mcts_cache *c);
void mcts_cache_clear(mcts_cache *c);
uint64_t mcts_cache_key(const game_pos *p);
/* 1 and the stored result on a hit, 0 on a miss. */
int mcts_cache_get(mcts_cache *c, uint64_t key, float *policy, float *value);
void mcts_cache_put(mcts_cache *c, uint64_t key, const float *policy, float value);

/* ---- One search ---------------------------------------------------------------------- */
typedef struct mcts mcts;

/* Proven results, for the side to move at the root. */
enum { MCTS_UNPROVEN = 0, MCTS_PROVEN_WIN = 1, MCTS_PROVEN_LOSS = 2, MCTS_PROVEN_DRAW = 3 };

typedef struct {
  uint64_t sims;       /* simulations of the last search (mcts_begin) */
  uint64_t evals;      /* positions sent to the evaluator, ever */
  uint64_t cache_hits; /* leaves answered by the cache, ever */
  uint64_t arena_full; /* expansions skipped for lack of nodes, ever */
  int nodes;           /* nodes in use */
  int node_cap;
  int root_visits;
  int reused;       /* visits the root had when the search began */
  int proof;        /* MCTS_PROVEN_* of the root */
  float root_value; /* for the root mover: proven value, else the mean */
} mcts_info;

/* The evaluator is copied (its context must outlive the search). */
mcts *mcts_create(const game *g, const mcts_params *p, const mcts_eval *ev, uint64_t seed,
                  char *err, size_t errlen);
void mcts_free(mcts *m);
const mcts_params *mcts_get_params(const mcts *m);
/* Changes parameters that do not size memory (sims, c_puct, noise, ...);
 * -1 if node_cap or cache_size differ from the handle's. */
int mcts_set_params(mcts *m, const mcts_params *p, char *err, size_t errlen);
void mcts_reseed(mcts *m, uint64_t seed);
/* Uses c (shared with other searches of this thread) instead of the
 * search's own cache; NULL: none. */
void mcts_attach_cache(mcts *m, mcts_cache *c);

/* Answers positions of the endgame database exactly (docs/SEARCH.md): a
 * node whose position db holds, with at most max_seeds seeds on the board
 * (<= 0: all it holds), becomes a solved end of the search, like a
 * finished game, with the outcome and final margin perfect play reaches
 * from the stores there. NULL detaches; a database that does not serve the
 * search's game is ignored. db is borrowed: it must outlive the search. */
struct egdb;
void mcts_attach_egdb(mcts *m, const struct egdb *db, int max_seeds);

/* Drops the tree (a new game starts). */
void mcts_reset(mcts *m);
/* Sets the position to search; h is the repetition history that led to p
 * (p's hash last; NULL: p alone), copied. p must be ongoing. With
 * params.reuse the tree is kept when p is the current root or a position
 * one or two moves below it and h is the stored history extended by those
 * moves (the repetition rule shaped the tree); otherwise it is dropped. */
int mcts_set_root(mcts *m, const game_pos *p, const game_hist *h, char *err, size_t errlen);
/* Plays another variant of the search's game (the same rules table, actions
 * and features: -1 otherwise) from the next mcts_set_root on; the tree is
 * dropped. Cached evaluations of one variant never serve another. */
int mcts_set_game(mcts *m, const game *g, char *err, size_t errlen);
/* Plays `action` at the root: re-roots the tree at that child (keeping its
 * subtree when params.reuse, a fresh root otherwise) and appends the new
 * position to the stored history. Returns 0 when the game goes on, 1 when
 * the action ended it (the tree is dropped and no root is set), -1 (err)
 * for an illegal action or when no root is set. */
int mcts_advance(mcts *m, int action, char *err, size_t errlen);

/* Runs `sims` simulations (<= 0: params.sims) from the root, evaluating one
 * leaf per evaluator call. Stops early when the root is proven (solver).
 * Returns the simulations run, or -1 if the evaluator failed (message in
 * err). */
int mcts_run(mcts *m, int sims, char *err, size_t errlen);

/* The split form used by the batched driver:
 *   mcts_begin(m, sims)            starts a search with that budget
 *   while (!mcts_done(m)) {
 *     r = mcts_select(m, &leaf)    1: leaf needs an evaluation; 0: the
 *                                  simulation completed without one
 *                                  (terminal, proven, cache hit)
 *     if (r == 1) evaluate leaf, then mcts_backup(m, policy, value)
 *   }
 * leaf stays valid until mcts_backup. Exactly one leaf may be pending. */
void mcts_begin(mcts *m, int sims);
int mcts_done(const mcts *m);
int mcts_select(mcts *m, const game_pos **leaf);
void mcts_backup(mcts *m, const float *policy, float value);

/* ---- Searches under a clock, on several threads ----------------------------------------
 * mcts_search runs the root's search until its limits stop it: a number of
 * simulations, a time budget (timectl.h: soft and hard limits), or a proven
 * root. `threads` threads search the one tree: each selects up to `leaves`
 * leaves under the tree's lock (a virtual loss on each leaf's path turns
 * the next selection elsewhere), evaluates them in one call of its own
 * evaluator outside the lock, and backs them up. Every thread reads the
 * clock before it gathers leaves, so a search ends at most one evaluator
 * call (per thread, all running at once) after its hard limit, once its
 * root has children (a root's first evaluation always completes).
 * With the time budget (soft > 0):
 *   - from soft on, the search stops unless it is unsure: its most visited
 *     move changed in the last quarter of the time spent, or another move
 *     with at least a quarter of its visits has a better mean value; an
 *     unsure search goes on to twice soft (never past hard);
 *   - early_stop: it stops as soon as the second most visited move could
 *     not overtake the most visited one in the simulations the time left
 *     allows at the rate so far, or at once when only one move is legal
 *     (not with gumbel=1, whose halving picks the move, nor while moves
 *     are sampled at a temperature).
 * With threads 1, leaves 1 and no time limit this is mcts_run: the same
 * simulations in the same order. */
#define MCTS_MAX_THREADS 64
#define MCTS_MAX_LEAVES  64

typedef struct {
  int sims;    /* simulation cap; <= 0: params.sims without a time limit, none with one */
  double soft; /* seconds: the time limit (0: none) */
  double hard; /* seconds: never past this (below soft: soft) */
  int early_stop;
  int threads;                /* 1..MCTS_MAX_THREADS */
  const mcts_eval *evals;     /* one per thread, used only by that thread; NULL: the search's own
                             evaluator, for one thread */
  int leaves;                 /* 1..MCTS_MAX_LEAVES leaves per evaluator call */
  const timectl_clock *clock; /* NULL: the wall clock */
} mcts_limits;

mcts_limits mcts_limits_sims(int sims); /* one thread, one leaf, no time limit */

/* Why a search stopped. */
enum {
  MCTS_STOP_SIMS = 0, /* the simulation cap */
  MCTS_STOP_PROVEN,   /* the root's result is proven */
  MCTS_STOP_SOFT,     /* the soft limit, the search sure of its move */
  MCTS_STOP_HARD,     /* the hard limit (or twice soft, unsure) */
  MCTS_STOP_EARLY     /* the best move could no longer be overtaken */
};

typedef struct {
  int sims;         /* simulations of this search */
  double seconds;   /* by the search's clock */
  int stop;         /* MCTS_STOP_* */
  int best_changes; /* times the most visited move changed (searches with a time limit) */
} mcts_search_info;

/* Returns the simulations run (info may be NULL), or -1 with a message:
 * no root, bad limits, an evaluator that failed. */
int mcts_search(mcts *m, const mcts_limits *l, mcts_search_info *info, char *err, size_t errlen);

/* Lets the node array grow past params.node_cap when it fills, doubling up
 * to max_nodes (no more than node_cap: a fixed array, the default). Growing
 * moves the nodes: only between or inside a search's own calls. */
void mcts_set_node_limit(mcts *m, int max_nodes);

/* ---- Results (of the current root) ----------------------------------------------------- */
void mcts_get_info(const mcts *m, mcts_info *out);
/* Visit counts per action (0 for illegal or unvisited); returns the total. */
int mcts_visits(const mcts *m, int *visits);
/* Visit distribution over the n_actions actions (all zero before a search). */
void mcts_visit_policy(const mcts *m, float *pi);
/* Gumbel's improved policy softmax(logits + sigma(completed Q)) over the
 * legal actions (also defined without gumbel=1). */
void mcts_improved_policy(const mcts *m, float *pi);
/* The training target: the improved policy with gumbel=1, else visits. */
void mcts_target_policy(const mcts *m, float *pi);
/* Per legal action: visits, clean prior, mean value for the root mover
 * (proven value when proven; NAN when unvisited) and proof (MCTS_PROVEN_*
 * for the root mover). Returns the number of legal actions written. */
int mcts_root_children(const mcts *m, int *action, int *visits, float *prior, float *value,
                       int *proof);
/* One node of the tree as it stands, for tests and analysis tools: node 0
 * is the root, the children of a node are `nchild` consecutive nodes from
 * `first_child`. Values are as the search keeps them: w sums the values
 * backed up through the node for its chooser (the mover at its parent), v
 * is the evaluator's value of the node's own position for its mover. */
typedef struct {
  int action; /* action from the parent (-1 at the root) */
  int visits;
  float w;         /* sum of backed-up values, for the chooser */
  float v;         /* evaluator's value, for this node's mover */
  float prior;     /* prior of the action at the parent (noise mixed in) */
  int mover;       /* side to move at the node; -1 until it was reached */
  int terminal;    /* the game is over at the node */
  int proof;       /* MCTS_PROVEN_* for the chooser */
  int first_child; /* 0: not expanded */
  int nchild;
} mcts_node_view;
/* Fills out for node i; -1 if there is no such node. */
int mcts_node_at(const mcts *m, int i, mcts_node_view *out);

/* The best action: a proven win if any, else the most visited (ties: the
 * higher mean value), avoiding proven losses; with gumbel=1 the action
 * sequential halving selected. */
int mcts_best_action(const mcts *m);
/* The move to play: temperature sampling while root ply < temp_plies (with
 * gumbel=1 the halving winner, which already carries the Gumbel noise),
 * else mcts_best_action. Uses the search's RNG. */
int mcts_choose_action(mcts *m);

/* ---- Batched driver ----------------------------------------------------------------------
 * Owns n searches (one per game) and one position cache (params.cache_size
 * entries, shared by its searches). mcts_batch_run advances every search
 * whose root was set and whose flag in `active` (NULL: all) is non-zero by
 * `sims` simulations: each round selects one leaf per search, evaluates all
 * the pending leaves in evaluator calls of at most params.batch positions
 * (one call when n <= batch), then backs them up. No virtual loss: a search
 * has at most one leaf in flight. */
typedef struct mcts_batch mcts_batch;

typedef struct {
  uint64_t rounds;     /* selection rounds */
  uint64_t eval_calls; /* evaluator calls */
  uint64_t evals;      /* positions evaluated */
  uint64_t sims;       /* simulations completed */
  uint64_t cache_hits;
} mcts_batch_info;

mcts_batch *mcts_batch_create(const game *g, const mcts_params *p, const mcts_eval *ev, int n_games,
                              uint64_t seed, char *err, size_t errlen);
void mcts_batch_free(mcts_batch *b);
int mcts_batch_size(const mcts_batch *b);
/* The i-th search: set its root, read its results, advance it. */
mcts *mcts_batch_search(mcts_batch *b, int i);
/* mcts_set_game for the i-th search. Searches of different variants share
 * the driver; each evaluator call then holds one variant's leaves (at most
 * MCTS_BATCH_MAX_VARIANTS different variants at a time). */
#define MCTS_BATCH_MAX_VARIANTS 16
int mcts_batch_set_game(mcts_batch *b, int i, const game *g, char *err, size_t errlen);
int mcts_batch_run(mcts_batch *b, const uint8_t *active, int sims, char *err, size_t errlen);
void mcts_batch_get_info(const mcts_batch *b, mcts_batch_info *out);

#endif

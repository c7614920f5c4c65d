/* Shared by the search code of search/ only (mcts*.c, alphabeta.c). */
#ifndef SOWZERO_MCTS_INTERNAL_H
#define SOWZERO_MCTS_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "search/mcts.h"

/* The history a search of p starts from: h, or p alone (written into
 * scratch) when h is NULL; NULL with "cannot search a finished game" when
 * p has no legal move. */
static inline const game_hist *search_root_hist(const game *g, const game_pos *p,
                                                const game_hist *h, game_hist *scratch, char *err,
                                                size_t errlen) {
  if (p->status != GAME_ONGOING || game_legal(g, p) == 0) {
    errf(err, errlen, "cannot search a finished game");
    return NULL;
  }
  if (h) return h;
  game_hist_reset(scratch, p);
  return scratch;
}

/* ---- The node arena ---------------------------------------------------------------
 * Nodes live in one array; the children of a node are a contiguous block
 * allocated after it (so a child's index is always larger than its
 * parent's, which re-rooting relies on). Index 0 is the root. */
enum {
  NODE_SEEN = 1,        /* mover and terminal state are known */
  NODE_TERMINAL = 2,    /* the game is over at this node */
  NODE_PROOF_SHIFT = 2, /* bits 2-3: MCTS_PROVEN_* for the chooser */
  NODE_EXACT = 16       /* with NODE_TERMINAL: ongoing, but the endgame database's value
                           is exact (docs/SEARCH.md) */
};

typedef struct {
  uint32_t child; /* first child; 0: not expanded */
  uint32_t n;     /* visits */
  float w;        /* sum of backed-up values, for the chooser (the parent's
                     mover; the root's own mover at the root) */
  float prior;    /* prior of the action at the parent (noise mixed in) */
  float v;        /* the evaluator's value, for this node's mover; at a
                     terminal node the exact final margin for its mover */
  uint8_t nchild;
  uint8_t action; /* action from the parent */
  uint8_t mover;  /* side to move here (valid with NODE_SEEN) */
  uint8_t flags;
} mcts_node;

static inline int node_proof(const mcts_node *x) { return (x->flags >> NODE_PROOF_SHIFT) & 3; }
static inline void node_set_proof(mcts_node *x, int p) {
  x->flags = (uint8_t)((x->flags & ~(3 << NODE_PROOF_SHIFT)) | (p << NODE_PROOF_SHIFT));
}
/* A proof seen from the other side. */
static inline int proof_flip(int p) {
  return p == MCTS_PROVEN_WIN ? MCTS_PROVEN_LOSS : p == MCTS_PROVEN_LOSS ? MCTS_PROVEN_WIN : p;
}
static inline float proof_value(int p) {
  return p == MCTS_PROVEN_WIN ? 1.0f : p == MCTS_PROVEN_LOSS ? -1.0f : 0.0f;
}

struct mcts_cache {
  int entries, n_actions;
  uint64_t *key; /* entries; 0 = empty (stored keys are forced non-zero) */
  uint64_t salt; /* XORed into stored keys: a new salt empties the cache at once */
  float *data;   /* entries x (n_actions + 1): policy then value */
};

/* Per-search Gumbel state (the root's sequential halving). */
typedef struct {
  int active;                       /* a Gumbel search is under way */
  int considered;                   /* m: actions halving starts with */
  int budget;                       /* simulations of this search */
  int level;                        /* visit level of the current round */
  int width;                        /* actions visited per round now */
  int rounds_left;                  /* rounds left in this phase */
  int left_in_round;                /* simulations left in this round */
  int phases;                       /* ceil(log2(considered)) */
  float g[GAME_MAX_ACTIONS];        /* Gumbel(0,1) sample per action */
  uint32_t local[GAME_MAX_ACTIONS]; /* root child visits in this search */
} mcts_gumbel_state;

/* One simulation under way: its path from the root and its pending leaf.
 * A search has one for the split API (mcts_select/mcts_backup); a search
 * run by several threads has one per leaf in flight (mcts_search). */
typedef struct {
  game_path path;
  uint32_t node_path[GAME_PATH_MAX];
  int depth;
  int pending; /* a leaf awaits its evaluation */
  int vloss;   /* the path carries a virtual loss (mcts_search's threads) */
  game_pos leaf_pos;
  uint64_t leaf_key;
} mcts_sim;

typedef struct mcts_workers mcts_workers; /* mcts_search.c */

struct mcts {
  game g;
  mcts_params p;
  mcts_eval ev;
  rng_t rng;
  mcts_node *nodes;
  int cap, used;
  int cap_max;     /* the node array may grow up to this (mcts_set_node_limit) */
  uint32_t *remap; /* cap entries, for re-rooting */
  game_pos root_pos;
  game_hist *root_hist;            /* history up to the root, the root's hash last */
  game_hist *tmp_hist, *tmp_hist2; /* scratch for mcts_set_root */
  int root_set;
  mcts_sim sim;          /* the simulation of mcts_select/mcts_backup */
  float *scratch_policy; /* n_actions, for mcts_run and cache hits */
  /* mcts_search's state: simulations started (finished or in flight), the
   * threads' simulations and scratch, made on first use and kept. */
  int started;
  mcts_workers *workers;
  /* Budget of the current search. */
  int budget, done_sims, begin_visits;
  /* Root noise: clean priors are kept so noise never compounds. */
  int root_noised;
  float clean_prior[GAME_MAX_ACTIONS];
  mcts_gumbel_state gs;
  /* Cache: own (params.cache_size) or attached; keys are salted with the
   * variant's options (mcts_set_game). */
  mcts_cache *own_cache, *cache;
  uint64_t cache_salt;
  /* Counters. */
  uint64_t evals, cache_hits, arena_full;
  /* The endgame database (mcts_attach_egdb), borrowed; NULL: none. */
  const struct egdb *db;
  int db_max; /* probe positions of at most this many seeds */
};

/* The cache-key salt of a variant: its options, hashed. */
static inline uint64_t search_variant_salt(const game *g) {
  uint64_t salt = 0xcbf29ce484222325ULL;
  for (int i = 0; i < GAME_MAX_OPTIONS; i++)
    salt = (salt ^ (uint64_t)(unsigned)g->opt[i]) * 0x100000001b3ULL;
  return salt;
}

/* mcts.c: drops the tree, keeping the root position (a one-node tree). */
void mcts_clear_tree(mcts *m);
/* mcts.c: makes room for `need` nodes in use, growing the node array up to
 * cap_max; -1 when it cannot. */
int mcts_grow(mcts *m, int need);
/* mcts.c: one simulation on s: mcts_select and mcts_backup for the search's
 * own simulation, and for mcts_search's threads (vloss: a pending leaf's
 * path carries a virtual loss until its backup). */
int mcts_sim_select(mcts *m, mcts_sim *s, const game_pos **leaf, int vloss);
void mcts_sim_backup(mcts *m, mcts_sim *s, const float *policy, float value);
/* Gives up s's pending leaf (its evaluation failed), virtual loss and all. */
void mcts_sim_drop(mcts *m, mcts_sim *s);
/* mcts_search.c */
void mcts_workers_free(mcts_workers *w);

/* mcts_gumbel.c */
void mcts_gumbel_begin(mcts *m);
int mcts_gumbel_root_select(mcts *m);
int mcts_gumbel_nonroot_select(const mcts *m, uint32_t x);
int mcts_gumbel_best(const mcts *m);
void mcts_completed_q(const mcts *m, uint32_t x, float *sigma_logits);

/* Value of child c for the mover at its parent (the chooser of c). */
static inline float node_q(const mcts_node *c) {
  int pr = node_proof(c);
  if (pr) return proof_value(pr);
  return c->n ? c->w / (float)c->n : 0.0f;
}

#endif

/* The batched driver: one worker advances many searches (one per game) in
 * rounds. A round takes one leaf from every unfinished search, evaluates the
 * pending leaves together and backs them up, so the evaluator sees large
 * batches while no search ever has two leaves in flight (no virtual loss).
 * Simulations that need no evaluation (terminal, proven, cached) finish
 * inside the round; a search may run several of those before it yields a
 * leaf, up to a small cap so one search cannot stall a round. */
#include <stdlib.h>
#include <string.h>

#include "search/mcts_internal.h"

/* Simulations a search may finish without an evaluation in one round. */
#define FREE_SIMS_PER_ROUND 64

struct mcts_batch {
  game g;
  mcts_params p;
  mcts_eval ev;
  int n;
  mcts **s;
  mcts_cache *cache;
  const game_pos **leaf; /* n pending leaves of a round */
  int *owner;            /* n: which search each leaf belongs to */
  float *policy;         /* n x n_actions */
  float *value;          /* n */
  mcts_batch_info info;
};

mcts_batch *mcts_batch_create(const game *g, const mcts_params *p, const mcts_eval *ev, int n_games,
                              uint64_t seed, char *err, size_t errlen) {
  if (n_games < 1) {
    errf(err, errlen, "a batched search needs at least one game");
    return NULL;
  }
  if (mcts_params_check(p, err, errlen) != 0) return NULL;
  mcts_batch *b = calloc(1, sizeof *b);
  if (!b) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  b->g = *g;
  b->p = *p;
  b->ev = *ev;
  b->n = n_games;
  b->s = calloc((size_t)n_games, sizeof *b->s);
  b->leaf = calloc((size_t)n_games, sizeof *b->leaf);
  b->owner = calloc((size_t)n_games, sizeof *b->owner);
  b->policy = calloc((size_t)n_games * (size_t)g->n_actions, sizeof *b->policy);
  b->value = calloc((size_t)n_games, sizeof *b->value);
  if (!b->s || !b->leaf || !b->owner || !b->policy || !b->value) {
    mcts_batch_free(b);
    errf(err, errlen, "out of memory for %d games", n_games);
    return NULL;
  }
  /* The searches share the driver's cache instead of owning one each. */
  mcts_params sp = *p;
  sp.cache_size = 0;
  if (p->cache_size > 0) {
    b->cache = mcts_cache_create(p->cache_size, g->n_actions, err, errlen);
    if (!b->cache) {
      mcts_batch_free(b);
      return NULL;
    }
  }
  for (int i = 0; i < n_games; i++) {
    b->s[i] =
        mcts_create(g, &sp, ev, seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1), err, errlen);
    if (!b->s[i]) {
      mcts_batch_free(b);
      return NULL;
    }
    mcts_attach_cache(b->s[i], b->cache);
  }
  return b;
}

void mcts_batch_free(mcts_batch *b) {
  if (!b) return;
  for (int i = 0; b->s && i < b->n; i++) mcts_free(b->s[i]);
  free(b->s);
  free(b->leaf);
  free(b->owner);
  free(b->policy);
  free(b->value);
  mcts_cache_free(b->cache);
  free(b);
}

int mcts_batch_size(const mcts_batch *b) { return b->n; }

mcts *mcts_batch_search(mcts_batch *b, int i) { return i >= 0 && i < b->n ? b->s[i] : NULL; }

void mcts_batch_get_info(const mcts_batch *b, mcts_batch_info *out) { *out = b->info; }

/* Evaluates leaves [0, k) in calls of at most `chunk` positions. */
static int evaluate_leaves(mcts_batch *b, int k, char *err, size_t errlen) {
  int chunk = b->p.batch;
  if (b->ev.max_batch > 0 && b->ev.max_batch < chunk) chunk = b->ev.max_batch;
  for (int at = 0; at < k; at += chunk) {
    int n = k - at < chunk ? k - at : chunk;
    if (b->ev.evaluate(b->ev.ctx, &b->g, b->leaf + at, n,
                       b->policy + (size_t)at * (size_t)b->g.n_actions, b->value + at) != 0) {
      errf(err, errlen, "the evaluator failed on a batch of %d", n);
      return -1;
    }
    b->info.eval_calls++;
    b->info.evals += (uint64_t)n;
  }
  return 0;
}

int mcts_batch_run(mcts_batch *b, const uint8_t *active, int sims, char *err, size_t errlen) {
  for (int i = 0; i < b->n; i++)
    if (!active || active[i]) mcts_begin(b->s[i], sims);
  for (;;) {
    int k = 0, running = 0;
    for (int i = 0; i < b->n; i++) {
      mcts *m = b->s[i];
      if ((active && !active[i]) || mcts_done(m)) continue;
      running = 1;
      for (int tries = 0; tries < FREE_SIMS_PER_ROUND && !mcts_done(m); tries++) {
        uint64_t hits = m->cache_hits;
        const game_pos *leaf;
        int r = mcts_select(m, &leaf);
        if (r < 0) {
          errf(err, errlen, "search %d is in a bad state", i);
          return -1;
        }
        if (r == 1) {
          b->leaf[k] = leaf;
          b->owner[k++] = i;
          break;
        }
        b->info.sims++;
        b->info.cache_hits += m->cache_hits - hits;
      }
    }
    if (!running) break;
    b->info.rounds++;
    if (k == 0) continue;
    if (evaluate_leaves(b, k, err, errlen) != 0) {
      for (int j = 0; j < k; j++) b->s[b->owner[j]]->pending = 0;
      return -1;
    }
    for (int j = 0; j < k; j++) {
      mcts_backup(b->s[b->owner[j]], b->policy + (size_t)j * (size_t)b->g.n_actions, b->value[j]);
      b->info.sims++;
    }
  }
  return 0;
}

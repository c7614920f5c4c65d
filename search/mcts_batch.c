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
  /* Variants: the distinct games of the searches, and each search's. With
   * more than one, leaves are gathered per variant into the g_ buffers. */
  game variant[MCTS_BATCH_MAX_VARIANTS];
  int n_variants;
  int *var;                /* n: variant of each search */
  const game_pos **g_leaf; /* n */
  int *g_at;               /* n: where each gathered leaf came from */
  float *g_policy, *g_value;
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
  b->variant[0] = *g;
  b->n_variants = 1;
  b->var = calloc((size_t)n_games, sizeof *b->var);
  b->g_leaf = calloc((size_t)n_games, sizeof *b->g_leaf);
  b->g_at = calloc((size_t)n_games, sizeof *b->g_at);
  b->g_policy = calloc((size_t)n_games * (size_t)g->n_actions, sizeof *b->g_policy);
  b->g_value = calloc((size_t)n_games, sizeof *b->g_value);
  if (!b->s || !b->leaf || !b->owner || !b->policy || !b->value || !b->var || !b->g_leaf ||
      !b->g_at || !b->g_policy || !b->g_value) {
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
  free(b->var);
  free(b->g_leaf);
  free(b->g_at);
  free(b->g_policy);
  free(b->g_value);
  mcts_cache_free(b->cache);
  free(b);
}

int mcts_batch_size(const mcts_batch *b) { return b->n; }

mcts *mcts_batch_search(mcts_batch *b, int i) { return i >= 0 && i < b->n ? b->s[i] : NULL; }

void mcts_batch_get_info(const mcts_batch *b, mcts_batch_info *out) { *out = b->info; }

int mcts_batch_set_game(mcts_batch *b, int i, const game *g, char *err, size_t errlen) {
  if (i < 0 || i >= b->n) {
    errf(err, errlen, "no search %d in a batch of %d", i, b->n);
    return -1;
  }
  int v = 0;
  while (v < b->n_variants && memcmp(b->variant[v].opt, g->opt, sizeof g->opt)) v++;
  if (v == b->n_variants) {
    /* A variant no search plays any more makes room. */
    for (v = 0; v < b->n_variants; v++) {
      int used = 0;
      for (int j = 0; j < b->n && !used; j++) used = j != i && b->var[j] == v;
      if (!used) break;
    }
    if (v == MCTS_BATCH_MAX_VARIANTS) {
      errf(err, errlen, "a batch plays at most %d variants at a time", MCTS_BATCH_MAX_VARIANTS);
      return -1;
    }
    if (mcts_set_game(b->s[i], g, err, errlen) != 0) return -1;
    b->variant[v] = *g;
    if (v == b->n_variants) b->n_variants++;
  } else if (mcts_set_game(b->s[i], g, err, errlen) != 0) {
    return -1;
  }
  b->var[i] = v;
  return 0;
}

/* Evaluates leaves [0, k) of game g in calls of at most `chunk` positions. */
static int evaluate_chunks(mcts_batch *b, const game *g, const game_pos **leaf, int k,
                           float *policy, float *value, char *err, size_t errlen) {
  int chunk = b->p.batch;
  if (b->ev.max_batch > 0 && b->ev.max_batch < chunk) chunk = b->ev.max_batch;
  for (int at = 0; at < k; at += chunk) {
    int n = k - at < chunk ? k - at : chunk;
    if (b->ev.evaluate(b->ev.ctx, g, leaf + at, n, policy + (size_t)at * (size_t)g->n_actions,
                       value + at) != 0) {
      errf(err, errlen, "the evaluator failed on a batch of %d", n);
      return -1;
    }
    b->info.eval_calls++;
    b->info.evals += (uint64_t)n;
  }
  return 0;
}

/* Evaluates the round's k leaves: in one pass when every search plays one
 * variant, else gathered per variant and scattered back. */
static int evaluate_leaves(mcts_batch *b, int k, char *err, size_t errlen) {
  if (b->n_variants == 1)
    return evaluate_chunks(b, &b->variant[0], b->leaf, k, b->policy, b->value, err, errlen);
  const size_t A = (size_t)b->g.n_actions;
  for (int v = 0; v < b->n_variants; v++) {
    int m = 0;
    for (int j = 0; j < k; j++)
      if (b->var[b->owner[j]] == v) {
        b->g_leaf[m] = b->leaf[j];
        b->g_at[m++] = j;
      }
    if (m == 0) continue;
    if (evaluate_chunks(b, &b->variant[v], b->g_leaf, m, b->g_policy, b->g_value, err, errlen))
      return -1;
    for (int t = 0; t < m; t++) {
      memcpy(b->policy + (size_t)b->g_at[t] * A, b->g_policy + (size_t)t * A, A * sizeof(float));
      b->value[b->g_at[t]] = b->g_value[t];
    }
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
      for (int j = 0; j < k; j++) b->s[b->owner[j]]->sim.pending = 0;
      return -1;
    }
    for (int j = 0; j < k; j++) {
      mcts_backup(b->s[b->owner[j]], b->policy + (size_t)j * (size_t)b->g.n_actions, b->value[j]);
      b->info.sims++;
    }
  }
  return 0;
}

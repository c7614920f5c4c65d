/* The evaluators that need no network: uniform priors with value 0, and
 * uniform priors with the value of random playouts. */
#include <stdlib.h>
#include <string.h>

#include "search/mcts.h"

static void uniform_policy(const game *g, const game_pos *p, float *policy) {
  game_moves legal = game_legal(g, p);
  int k = game_count(legal);
  for (int a = 0; a < g->n_actions; a++) policy[a] = (legal >> a & 1) ? 1.0f / (float)k : 0.0f;
}

static int uniform_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                            float *policy, float *value) {
  (void)ctx;
  for (int i = 0; i < n; i++) {
    uniform_policy(g, pos[i], policy + (size_t)i * (size_t)g->n_actions);
    value[i] = 0.0f;
  }
  return 0;
}

mcts_eval mcts_eval_uniform(void) {
  mcts_eval e = {uniform_evaluate, NULL, 0};
  return e;
}

struct mcts_rollout {
  rng_t rng;
  int rollouts;
};

mcts_rollout *mcts_rollout_create(int rollouts, uint64_t seed, char *err, size_t errlen) {
  if (rollouts < 1) {
    errf(err, errlen, "rollouts must be at least 1");
    return NULL;
  }
  mcts_rollout *r = calloc_lines(sizeof *r); /* one per thread, written every move */
  if (!r) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  r->rollouts = rollouts;
  mcts_rollout_reseed(r, seed);
  return r;
}

void mcts_rollout_free(mcts_rollout *r) { free(r); }

void mcts_rollout_reseed(mcts_rollout *r, uint64_t seed) { rng_seed(&r->rng, seed, 0x726f6c6c); }

/* One uniformly random playout to the end; the outcome for `side`. */
static int playout(const game *g, game_pos p, int side, rng_t *rng) {
  while (p.status == GAME_ONGOING) {
    game_moves m = game_legal(g, &p);
    if (!m) break; /* the rules end such positions; defensive */
    game_play(g, &p, game_random_action(rng, m));
  }
  return p.status == GAME_ONGOING ? 0 : game_outcome(&p, side);
}

static int rollout_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                            float *policy, float *value) {
  mcts_rollout *r = ctx;
  for (int i = 0; i < n; i++) {
    uniform_policy(g, pos[i], policy + (size_t)i * (size_t)g->n_actions);
    int sum = 0;
    for (int k = 0; k < r->rollouts; k++) sum += playout(g, *pos[i], pos[i]->mover, &r->rng);
    value[i] = (float)sum / (float)r->rollouts;
  }
  return 0;
}

mcts_eval mcts_rollout_eval(mcts_rollout *r) {
  mcts_eval e = {rollout_evaluate, r, 0};
  return e;
}

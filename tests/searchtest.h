/* Helpers shared by the search suites (test_search.c, test_mcts_batch.c,
 * test_alphabeta.c, test_agents.c): the game suites' helpers (the game
 * under test G, configure_game, positions from setboard tokens) and random
 * play through the full rules. */
#ifndef SOWZERO_TESTS_SEARCHTEST_H
#define SOWZERO_TESTS_SEARCHTEST_H

#include <stdatomic.h>

#include "search/mcts.h"
#include "tests/gametest.h"

/* Up to `plies` uniformly random moves from p through game_step, extending
 * the history h; stops at the end of the game. */
static inline void random_moves(game_pos *p, game_hist *h, rng_t *r, int plies) {
  for (int i = 0; i < plies && p->status == GAME_ONGOING; i++)
    game_step(&G, p, h, game_random_action(r, game_legal(&G, p)));
}

/* An evaluator of uniform priors and zero values that fails on its
 * fail_at-th call (counted across the threads that share it; 0: never). */
typedef struct {
  _Atomic int calls;
  int fail_at;
} failing_ctx;

static inline int failing_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                                   float *policy, float *value) {
  failing_ctx *f = ctx;
  if (atomic_fetch_add(&f->calls, 1) + 1 == f->fail_at) return -1;
  mcts_eval u = mcts_eval_uniform();
  return u.evaluate(NULL, g, pos, n, policy, value);
}

#endif

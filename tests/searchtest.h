/* Helpers shared by the search suites (test_search.c, test_mcts_batch.c,
 * test_alphabeta.c, test_agents.c): the game suites' helpers (the game
 * under test G, configure_game, positions from setboard tokens) and random
 * play through the full rules. */
#ifndef SOWZERO_TESTS_SEARCHTEST_H
#define SOWZERO_TESTS_SEARCHTEST_H

#include "tests/gametest.h"

/* Up to `plies` uniformly random moves from p through game_step, extending
 * the history h; stops at the end of the game. */
static inline void random_moves(game_pos *p, game_hist *h, rng_t *r, int plies) {
  for (int i = 0; i < plies && p->status == GAME_ONGOING; i++)
    game_step(&G, p, h, game_random_action(r, game_legal(&G, p)));
}

#endif

/* Shared by the agent kinds of trainer/ only. */
#ifndef SOWZERO_AGENTS_INTERNAL_H
#define SOWZERO_AGENTS_INTERNAL_H

#include "trainer/agent.h"

extern const agent_kind agent_random;
extern const agent_kind agent_greedy;
extern const agent_kind agent_alphabeta; /* trainer/alphabeta.c */
extern const agent_kind agent_mcts;      /* trainer/agent_mcts.c */
extern const agent_kind agent_zero;      /* trainer/agent_zero.c */
extern const agent_kind agent_net;       /* trainer/agent_net.c */

/* A uniformly random set bit of m (m != 0). */
int agent_pick_uniform(rng_t *r, game_moves m);

/* For the searching kinds (trainer/agent_mcts.c): sets the root, runs the
 * search's budget and picks (or analyzes) a move; errors go to a->err. */
struct mcts;
int agent_search_move(agent *a, struct mcts *m, const game_pos *p, const game_hist *h);
int agent_search_analyze(agent *a, struct mcts *m, const game_pos *p, const game_hist *h,
                         agent_analysis *out);

#endif

/* Shared by the agent kinds of search/ only. */
#ifndef SOWZERO_AGENTS_INTERNAL_H
#define SOWZERO_AGENTS_INTERNAL_H

#include "search/agent.h"

extern const agent_kind agent_random;
extern const agent_kind agent_greedy;
extern const agent_kind agent_alphabeta; /* search/alphabeta.c */
extern const agent_kind agent_mcts;      /* search/agent_mcts.c */
extern const agent_kind agent_zero;      /* search/agent_zero.c */
extern const agent_kind agent_net;       /* search/agent_net.c */

/* For the searching kinds (search/agent_mcts.c): sets the root, runs the
 * search's budget and picks (or analyzes) a move; errors go to a->err. */
struct mcts;
int agent_search_move(agent *a, struct mcts *m, const game_pos *p, const game_hist *h);
int agent_search_analyze(agent *a, struct mcts *m, const game_pos *p, const game_hist *h,
                         agent_analysis *out);

#endif

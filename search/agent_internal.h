/* Shared by the agent kinds of search/ only. */
#ifndef SOWZERO_AGENTS_INTERNAL_H
#define SOWZERO_AGENTS_INTERNAL_H

#include "base/kv.h"
#include "nn/nn.h"
#include "search/agent.h"
#include "search/evaluator_nn.h"

extern const agent_kind agent_random;    /* search/agent.c */
extern const agent_kind agent_greedy;    /* search/agent.c */
extern const agent_kind agent_alphabeta; /* search/alphabeta.c */
extern const agent_kind agent_mcts;      /* search/agent_search.c */
extern const agent_kind agent_zero;      /* search/agent_search.c */
extern const agent_kind agent_net;       /* search/agent_net.c */

/* Parses a kind's settings (argv: "key=value" tokens) into the targets
 * (base/kv.h: unknown and repeated keys, bad values); messages start with
 * "agent KIND: ". */
int agent_settings(const agent *a, kv_target *tg, int n, int argc, char *const *argv, char *err,
                   size_t errlen);

/* A network loaded for a's game and its evaluator (search/agent_net.c).
 * Open refuses an empty path ("agent KIND needs weights=FILE") and files
 * made for another game; close frees what open made (also after a failed
 * open, and twice). */
typedef struct {
  nn_net *net;
  mcts_nn *ev;
} agent_network;
int agent_network_open(agent_network *n, const agent *a, const char *weights, char *err,
                       size_t errlen);
void agent_network_close(agent_network *n);

#endif

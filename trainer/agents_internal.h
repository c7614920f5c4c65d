/* Shared by the agent kinds of trainer/ only. */
#ifndef SOWZERO_AGENTS_INTERNAL_H
#define SOWZERO_AGENTS_INTERNAL_H

#include "trainer/agent.h"

extern const agent_kind agent_random;
extern const agent_kind agent_greedy;

/* A uniformly random set bit of m (m != 0). */
int agent_pick_uniform(rng_t *r, game_moves m);

#endif

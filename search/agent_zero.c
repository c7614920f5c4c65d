/* The `zero` agent: a network's priors and values guiding PUCT search, or
 * Gumbel root search with gumbel=1. */
#include <stdlib.h>
#include <string.h>

#include "search/agent_internal.h"
#include "search/evaluator_nn.h"
#include "search/mcts.h"

typedef struct {
  nn_net *net;
  mcts_nn *ev;
  mcts *m;
} zero_agent;

static void zero_free_parts(zero_agent *z) {
  mcts_free(z->m);
  mcts_nn_free(z->ev);
  nn_free(z->net);
  free(z);
}

static int zero_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  mcts_params p = mcts_defaults();
  p.sims = 400;
  p.node_cap = 1 << 18;
  const char *weights = NULL;
  for (int i = 0; i < argc; i++) {
    char key[32];
    const char *value;
    if (agent_split_setting(argv[i], key, sizeof key, &value, err, errlen)) return -1;
    if (!strcmp(key, "weights"))
      weights = value;
    else if (mcts_params_set(&p, key, value, err, errlen))
      return -1;
  }
  if (!weights) {
    errf(err, errlen, "agent zero needs weights=FILE");
    return -1;
  }
  if (mcts_params_check(&p, err, errlen)) return -1;
  zero_agent *z = calloc(1, sizeof *z);
  if (!z) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  z->net = mcts_nn_load(&a->g, weights, err, errlen);
  if (z->net) z->ev = mcts_nn_create(&a->g, z->net, 1, err, errlen);
  if (z->ev) {
    mcts_eval ev = mcts_nn_eval(z->ev);
    z->m = mcts_create(&a->g, &p, &ev, rng_u64(&a->rng), err, errlen);
  }
  if (!z->m) {
    zero_free_parts(z);
    return -1;
  }
  a->impl = z;
  return 0;
}

static int zero_choose(agent *a, const game_pos *p, const game_hist *h) {
  return agent_search_move(a, ((zero_agent *)a->impl)->m, p, h);
}

static int zero_analyze(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out) {
  return agent_search_analyze(a, ((zero_agent *)a->impl)->m, p, h, out);
}

static void zero_reset(agent *a) {
  zero_agent *z = a->impl;
  mcts_reset(z->m);
  mcts_reseed(z->m, rng_u64(&a->rng));
}

static void zero_free(agent *a) {
  if (a->impl) zero_free_parts(a->impl);
}

const agent_kind agent_zero = {
    "zero", "zero weights=FILE sims=N [gumbel=1] [search settings, docs/SEARCH.md]",
    zero_create, zero_choose, zero_analyze, zero_reset, zero_free};

/* The `mcts` agent: PUCT search with uniform priors and random rollouts at
 * the leaves; no network. Any search parameter can be set by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/agent_internal.h"
#include "search/mcts.h"

typedef struct {
  mcts *m;
  mcts_rollout *ro;
} mcts_agent;

static int mcts_agent_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  mcts_params p = mcts_rollout_defaults();
  long rollouts = 1;
  for (int i = 0; i < argc; i++) {
    char key[32];
    const char *value;
    if (agent_split_setting(argv[i], key, sizeof key, &value, err, errlen)) return -1;
    if (!strcmp(key, "rollouts")) {
      if (agent_parse_int(key, value, 1, 100000, &rollouts, err, errlen)) return -1;
    } else if (mcts_params_set(&p, key, value, err, errlen)) {
      return -1;
    }
  }
  if (mcts_params_check(&p, err, errlen)) return -1;
  mcts_agent *ma = calloc(1, sizeof *ma);
  if (!ma) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  ma->ro = mcts_rollout_create((int)rollouts, rng_u64(&a->rng), err, errlen);
  if (ma->ro) {
    mcts_eval ev = mcts_rollout_eval(ma->ro);
    ma->m = mcts_create(&a->g, &p, &ev, rng_u64(&a->rng), err, errlen);
  }
  if (!ma->m) {
    mcts_rollout_free(ma->ro);
    free(ma);
    return -1;
  }
  a->impl = ma;
  return 0;
}

int agent_search_move(agent *a, mcts *m, const game_pos *p, const game_hist *h) {
  if (mcts_set_root(m, p, h, a->err, sizeof a->err)) return -1;
  if (mcts_run(m, 0, a->err, sizeof a->err) < 0) return -1;
  return mcts_choose_action(m);
}

int agent_search_analyze(agent *a, mcts *m, const game_pos *p, const game_hist *h,
                         agent_analysis *out) {
  if (mcts_set_root(m, p, h, a->err, sizeof a->err)) return -1;
  if (mcts_run(m, 0, a->err, sizeof a->err) < 0) return -1;
  memset(out, 0, sizeof *out);
  int proof[GAME_MAX_ACTIONS];
  out->n = mcts_root_children(m, out->action, out->visits, out->prior, out->value, proof);
  for (int i = 0; i < out->n; i++)
    if (isnan(out->value[i])) out->value[i] = 0.0f; /* unvisited */
  mcts_info info;
  mcts_get_info(m, &info);
  out->root_value = info.root_value;
  out->best = mcts_best_action(m);
  return 0;
}

static int mcts_agent_choose(agent *a, const game_pos *p, const game_hist *h) {
  return agent_search_move(a, ((mcts_agent *)a->impl)->m, p, h);
}

static int mcts_agent_analyze(agent *a, const game_pos *p, const game_hist *h,
                              agent_analysis *out) {
  return agent_search_analyze(a, ((mcts_agent *)a->impl)->m, p, h, out);
}

static void mcts_agent_reset(agent *a) {
  mcts_agent *ma = a->impl;
  mcts_reset(ma->m);
  mcts_reseed(ma->m, rng_u64(&a->rng));
  mcts_rollout_reseed(ma->ro, rng_u64(&a->rng));
}

static void mcts_agent_free(agent *a) {
  mcts_agent *ma = a->impl;
  if (!ma) return;
  mcts_free(ma->m);
  mcts_rollout_free(ma->ro);
  free(ma);
}

const agent_kind agent_mcts = {"mcts", "mcts sims=N rollouts=R [search settings, docs/SEARCH.md]",
                               mcts_agent_create, mcts_agent_choose, mcts_agent_analyze,
                               mcts_agent_reset, mcts_agent_free};

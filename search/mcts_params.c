/* The search parameters: one table gives their names, ranges, defaults and
 * help (configs, agent specs, `sowzero train --keys`). */
#include <stddef.h>
#include <string.h>

#include "base/kv.h"
#include "search/mcts_internal.h"

#define P_(kind, name, ...) kind(#name, mcts_params, name, __VA_ARGS__)
static const kv_key param_keys[] = {
    P_(KV_I, sims, 1, 100000000, "800", "simulations per move"),
    P_(KV_F, c_puct, 0, 100, "1.25", "PUCT exploration weight"),
    P_(KV_F, c_puct_base, 0, 1e9, "0", "0: constant c_puct; else c grows with the visits"),
    P_(KV_F, fpu_reduction, -2, 2, "0.25",
       "first-play urgency: an unvisited child's Q is the parent's minus this"),
    P_(KV_F, fpu_root, -1, 2, "-1", "the same at the root; < 0: fpu_reduction"),
    P_(KV_B, noise, "0", "1: root exploration noise (Dirichlet, or Gumbel with gumbel=1)"),
    P_(KV_F, dirichlet_alpha, 0.001, 100, "0.5", "Dirichlet concentration of the root noise"),
    P_(KV_F, dirichlet_frac, 0, 1, "0.25", "weight of the noise in the root priors"),
    P_(KV_F, temperature, 0, 100, "1", "move sampling temperature while ply < temp_plies"),
    P_(KV_I, temp_plies, 0, GAME_MAX_PLIES_CAP, "0", "game plies played at temperature"),
    P_(KV_F, temp_final, 0, 100, "0", "temperature afterwards (0: the most visited move)"),
    P_(KV_I, node_cap, 64, 200000000, "200000", "node array size of a search"),
    P_(KV_I, cache_size, 0, 100000000, "0", "position cache entries (0: none)"),
    /* Drivers set batch to their game count (gating: up to 100000 games). */
    P_(KV_I, batch, 1, 1000000, "256", "largest evaluator call of the batched driver"),
    P_(KV_B, reuse, "1", "keep the subtree of the move played"),
    P_(KV_B, solver, "1", "propagate proven wins, losses and draws"),
    P_(KV_B, gumbel, "0", "Gumbel root search with sequential halving"),
    P_(KV_I, gumbel_m, 1, GAME_MAX_ACTIONS, "16", "root actions Gumbel search considers"),
    P_(KV_F, gumbel_c_visit, 0, 1e6, "50", "sigma(q) = (c_visit + max N) * c_scale * q"),
    P_(KV_F, gumbel_c_scale, 0, 1e6, "1", "scale of sigma"),
    P_(KV_F, gumbel_q_span, 0, 2, "0",
       "completed Q over max(its range at the node, this): 0 min-max, 2 the whole value range"),
};
#undef P_
static const kv_table params = KV_TABLE(param_keys);

const kv_table *mcts_params_table(void) { return &params; }

mcts_params mcts_defaults(void) {
  mcts_params p;
  memset(&p, 0, sizeof p);
  kv_defaults(&params, &p, NULL, 0); /* the table's defaults parse (tests) */
  return p;
}

mcts_params mcts_rollout_defaults(void) {
  mcts_params p = mcts_defaults();
  /* c_puct from arena runs at 1000 simulations (docs/SEARCH.md). */
  p.sims = 1000;
  p.c_puct = 2.0f;
  p.fpu_reduction = 0.0f;
  p.node_cap = 1 << 18;
  return p;
}

int mcts_params_set(mcts_params *p, const char *key, const char *value, char *err, size_t errlen) {
  return kv_set(&params, p, key, value, err, errlen);
}

int mcts_params_format(const mcts_params *p, char *buf, size_t len) {
  return kv_write(&params, p, buf, len);
}

/* The smallest node_cap leaves room for a root and all its children. */
_Static_assert(64 >= 1 + GAME_MAX_ACTIONS, "node_cap's lower bound is too small");

int mcts_params_check(const mcts_params *p, char *err, size_t errlen) {
  return kv_check(&params, p, err, errlen);
}

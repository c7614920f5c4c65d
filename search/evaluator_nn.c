/* The network evaluator: game_encode into a batch buffer, one nn_forward. */
#include "search/evaluator_nn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mcts_nn {
  game g;
  const nn_net *net;
  nn_config cfg;
  nn_ws *ws;
  int max_batch;
  float *x;        /* max_batch x n_features */
  uint32_t *legal; /* max_batch */
};

int mcts_nn_meta(const game *g, nn_meta *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->game, sizeof out->game, "%s", g->rules->name);
  if (game_options_string(g, out->rules, sizeof out->rules) != 0) {
    errf(err, errlen, "the rule options of %s do not fit a weight file", g->rules->name);
    return -1;
  }
  out->encoding = g->encoding_version;
  out->n_features = g->n_features;
  out->n_actions = g->n_actions;
  return 0;
}

nn_net *mcts_nn_load(game *g, const char *path, mcts_nn_rules rules, char *err, size_t errlen) {
  nn_meta m;
  nn_expect ex = {.game = g->rules->name, .n_actions = g->n_actions};
  nn_net *net = nn_load(path, &ex, &m, err, errlen);
  if (!net) return NULL;
  char mine[NN_RULES_MAX];
  if (game_options_string(g, mine, sizeof mine) != 0) {
    errf(err, errlen, "the rule options of %s do not fit a weight file", g->rules->name);
    goto refuse;
  }
  game h = *g;
  int base = g->encoding_version & ~GAME_ENCODING_RULES;
  if (m.encoding == base) {
    game_set_rule_inputs(&h, 0);
    if (rules == MCTS_NN_OWN_RULES && strcmp(m.rules, mine) != 0) {
      errf(err, errlen, "%s: trained with rule options '%s' but this run uses '%s'", path, m.rules,
           mine);
      goto refuse;
    }
  } else if (m.encoding == (base | GAME_ENCODING_RULES)) {
    game_set_rule_inputs(&h, 1);
    if (rules == MCTS_NN_OWN_RULES && !game_variants_cover(&h, m.rules)) {
      errf(err, errlen,
           "%s: trained on the variants '%s', which do not include this game's rules '%s'", path,
           m.rules, mine);
      goto refuse;
    }
  } else {
    errf(err, errlen,
         "%s: trained on feature encoding version %d but this build encodes %s as version %d "
         "(%d with the rule inputs)",
         path, m.encoding, g->rules->name, base, base | GAME_ENCODING_RULES);
    goto refuse;
  }
  if (m.n_features != h.n_features) {
    errf(err, errlen, "%s: network takes %d features but this run encodes %d", path, m.n_features,
         h.n_features);
    goto refuse;
  }
  *g = h;
  return net;
refuse:
  nn_free(net);
  return NULL;
}

static int check_net(const game *g, const nn_net *net, char *err, size_t errlen) {
  nn_config c = nn_config_of(net);
  if (c.n_in != g->n_features || c.n_actions != g->n_actions) {
    errf(err, errlen, "the network takes %d features and %d actions; %s has %d and %d", c.n_in,
         c.n_actions, g->rules->name, g->n_features, g->n_actions);
    return -1;
  }
  return 0;
}

mcts_nn *mcts_nn_create(const game *g, const nn_net *net, int max_batch, char *err, size_t errlen) {
  if (check_net(g, net, err, errlen)) return NULL;
  if (max_batch < 1) {
    errf(err, errlen, "max_batch must be at least 1");
    return NULL;
  }
  /* One per search thread: each on lines of its own. */
  mcts_nn *e = calloc_lines(sizeof *e);
  if (!e) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  e->g = *g;
  e->net = net;
  e->cfg = nn_config_of(net);
  e->max_batch = max_batch;
  e->x = calloc_lines((size_t)max_batch * (size_t)g->n_features * sizeof *e->x);
  e->legal = calloc_lines((size_t)max_batch * sizeof *e->legal);
  e->ws = nn_ws_create(net, max_batch, err, errlen);
  if (!e->x || !e->legal || !e->ws) {
    if (e->ws && (!e->x || !e->legal)) errf(err, errlen, "out of memory");
    mcts_nn_free(e);
    return NULL;
  }
  return e;
}

void mcts_nn_free(mcts_nn *e) {
  if (!e) return;
  nn_ws_free(e->ws);
  free(e->x);
  free(e->legal);
  free(e);
}

int mcts_nn_set_net(mcts_nn *e, const nn_net *net) {
  nn_config c = nn_config_of(net);
  if (memcmp(&c, &e->cfg, sizeof c) != 0) return -1;
  e->net = net;
  return 0;
}

/* Encodes n positions and runs the network; score may be NULL. */
static int forward(mcts_nn *e, const game *g, const game_pos *const *pos, int n, float *policy,
                   float *value, float *score) {
  if (n < 1 || n > e->max_batch) return -1;
  int nf = g->n_features;
  for (int i = 0; i < n; i++) {
    game_encode(g, pos[i], e->x + (size_t)i * (size_t)nf); /* row i: n_features */
    e->legal[i] = game_legal(g, pos[i]);
  }
  /* x: n x n_features -> policy: n x n_actions (masked), value: n */
  return nn_forward(e->net, e->ws, e->x, e->legal, n, policy, value, score);
}

static int nn_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                       float *value) {
  return forward(ctx, g, pos, n, policy, value, NULL);
}

int mcts_nn_score(mcts_nn *e, const game_pos *p, float *score) {
  return forward(e, &e->g, &p, 1, NULL, NULL, score);
}

mcts_eval mcts_nn_eval(mcts_nn *e) {
  mcts_eval ev = {nn_evaluate, e, e->max_batch};
  return ev;
}

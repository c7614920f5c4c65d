/* The `net` agent: the network's policy without search — the most likely
 * legal action, or a sample at a temperature with sample=1 — and the
 * network loading the network agents share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search/agent_internal.h"

const char *const agent_precision_names[] = {"auto", "fp32", "bf16", "int8", NULL};
const char *const agent_rules_names[] = {"own", "any", NULL};

#ifndef SOWZERO_MODELS_DIR
#define SOWZERO_MODELS_DIR "models" /* the build names the source tree's folder */
#endif

/* The shipped network of g's game, NAME.weights in the folder
 * $SOWZERO_MODELS when it is set (alone, so that it can also turn the
 * shipped networks off), else in the first that has it of the models/
 * folder of the tree the binary was built from and models/ beside the
 * executable. 0 and path set, or -1. */
static int shipped_weights(const game *g, char *path, size_t len) {
  char exe[4096], beside[4096 + 16];
  const char *env = getenv("SOWZERO_MODELS");
  const char *dirs[3] = {env ? env : SOWZERO_MODELS_DIR, NULL, NULL};
  ssize_t k = env ? -1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (k > 0) {
    exe[k] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(beside, sizeof beside, "%s/models", exe);
    dirs[2] = beside;
  }
  for (int i = 0; i < 3; i++) {
    if (!dirs[i]) continue;
    int w = snprintf(path, len, "%s/%s.weights", dirs[i], g->rules->name);
    if (w > 0 && (size_t)w < len && access(path, R_OK) == 0) return 0;
  }
  return -1;
}

int agent_network_open(agent_network *n, agent *a, const char *weights, int precision, int rules,
                       int batch, char *err, size_t errlen) {
  char shipped[4200];
  if (!weights[0]) {
    if (shipped_weights(&a->g, shipped, sizeof shipped) != 0) {
      errf(err, errlen,
           "agent %s: no weights=FILE given and no shipped network of %s (models/, or "
           "$SOWZERO_MODELS)",
           a->kind->kind, a->g.rules->name);
      return -1;
    }
    weights = shipped;
  }
  if (precision == NN_PRECISION_BF16 && !nn_bf16_supported()) {
    errf(err, errlen,
         "agent %s: precision=bf16 needs a CPU with AVX512_BF16, which this one lacks "
         "(precision=auto or fp32 run anywhere)",
         a->kind->kind);
    return -1;
  }
  n->net = mcts_nn_load(&a->g, weights, (mcts_nn_rules)rules, err, errlen);
  /* auto: measured at the batch the agent evaluates (nn_auto_choose, once
   * per shape and batch in a process). Converted once here; the evaluator
   * only reads the net. */
  nn_auto_report rep;
  if (n->net && precision == NN_PRECISION_AUTO) {
    if (nn_auto_choose(n->net, &batch, 1, NULL, NULL, &rep, err, errlen)) return -1;
    precision = (int)rep.choice;
  }
  if (n->net && nn_set_precision(n->net, (nn_precision)precision, err, errlen)) return -1;
  if (n->net) n->ev = mcts_nn_create(&a->g, n->net, 1, err, errlen);
  return n->ev ? 0 : -1;
}

void agent_network_margin(agent_network *n, const game *g, const game_pos *p, agent_analysis *out) {
  float score;
  if (p->status != GAME_ONGOING || mcts_nn_score(n->ev, p, &score)) return;
  /* Each move's margin: exact when it ends the game, else the network's
   * score after it, turned to p's mover's view. */
  for (int i = 0; i < out->n; i++) {
    game_pos c = *p;
    game_play(g, &c, out->action[i]);
    float s = 0.0f;
    if (c.status != GAME_ONGOING)
      out->move_margin[i] = (float)game_margin(&c, p->mover);
    else if (mcts_nn_score(n->ev, &c, &s) == 0)
      out->move_margin[i] = (float)(s * n->score_scale) * (c.mover == p->mover ? 1.0f : -1.0f);
    else
      return;
  }
  out->has_margin = 1;
  out->margin = (float)(score * n->score_scale);
}

void agent_network_close(agent_network *n) {
  mcts_nn_free(n->ev);
  nn_free(n->net);
  n->ev = NULL;
  n->net = NULL;
}

typedef struct {
  char weights[256];
  int sample;
  double temp, score_scale;
  int precision, rules;
} net_opts;

static const kv_key net_keys[] = {
    KV_S("weights", net_opts, weights, "", "the network's weight file"),
    KV_B("sample", net_opts, sample, "0", "1: sample a move instead of the most likely"),
    KV_D("temp", net_opts, temp, 0.01, 100, "1", "sampling temperature"),
    AGENT_SCORE_SCALE_KEY(net_opts, score_scale),
    AGENT_PRECISION_KEY(net_opts, precision),
    AGENT_RULES_KEY(net_opts, rules),
};
static const kv_table net_table = KV_TABLE(net_keys);

typedef struct {
  agent_network nw;
  int sample;
  double temp;
} net_agent;

static void net_free_parts(net_agent *n) {
  agent_network_close(&n->nw);
  free(n);
}

static int net_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  net_opts o;
  memset(&o, 0, sizeof o);
  kv_defaults(&net_table, &o, NULL, 0);
  kv_target tg = {&net_table, &o, 0};
  if (agent_settings(a, &tg, 1, argc, argv, err, errlen)) return -1;
  net_agent *n = calloc(1, sizeof *n);
  if (!n) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  n->sample = o.sample;
  n->temp = o.temp;
  n->nw.score_scale = o.score_scale;
  if (agent_network_open(&n->nw, a, o.weights, o.precision, o.rules, 1, err, errlen)) {
    net_free_parts(n);
    return -1;
  }
  a->impl = n;
  return 0;
}

static int net_eval(agent *a, const game_pos *p, float *policy, float *value) {
  net_agent *n = a->impl;
  mcts_eval ev = mcts_nn_eval(n->nw.ev);
  if (ev.evaluate(ev.ctx, &a->g, &p, 1, policy, value)) {
    errf(a->err, sizeof a->err, "network evaluation failed");
    return -1;
  }
  return 0;
}
static int net_choose(agent *a, const game_pos *p, const game_hist *h) {
  (void)h;
  net_agent *n = a->impl;
  float policy[GAME_MAX_ACTIONS], value;
  if (net_eval(a, p, policy, &value)) return -1;
  game_moves legal = game_legal(&a->g, p);
  int best = -1;
  for (game_moves r = legal; r; r &= r - 1) {
    int act = __builtin_ctz(r);
    if (best < 0 || policy[act] > policy[best]) best = act;
  }
  if (!n->sample) return best;
  double w[GAME_MAX_ACTIONS], sum = 0;
  for (game_moves r = legal; r; r &= r - 1) {
    int act = __builtin_ctz(r);
    w[act] = policy[act] > 0 ? pow(policy[act] / policy[best], 1.0 / n->temp) : 0.0;
    sum += w[act];
  }
  double u = rng_double(&a->rng) * sum;
  for (game_moves r = legal; r; r &= r - 1) {
    int act = __builtin_ctz(r);
    u -= w[act];
    if (u < 0 && w[act] > 0) return act;
  }
  return best;
}

static int net_analyze(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out) {
  (void)h;
  float policy[GAME_MAX_ACTIONS], value;
  if (net_eval(a, p, policy, &value)) return -1;
  memset(out, 0, sizeof *out);
  int best = -1;
  for (game_moves r = game_legal(&a->g, p); r; r &= r - 1) {
    int act = __builtin_ctz(r);
    out->action[out->n] = act;
    out->prior[out->n] = policy[act];
    out->value[out->n] = 0.0f; /* one evaluation gives no per-move values */
    out->n++;
    if (best < 0 || policy[act] > policy[best]) best = act;
  }
  out->root_value = value;
  out->best = best;
  agent_network_margin(&((net_agent *)a->impl)->nw, &a->g, p, out);
  return 0;
}

static void net_free(agent *a) {
  if (a->impl) net_free_parts(a->impl);
}

const agent_kind agent_net = {
    "net",   "net weights=FILE [sample=1 temp=T]", net_create, net_choose, net_analyze, NULL,
    net_free};

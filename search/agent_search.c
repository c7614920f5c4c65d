/* The searching agents: `mcts` (uniform priors and random rollouts at the
 * leaves; no network) and `zero` (a network's priors and values guiding
 * PUCT search, or Gumbel root search with gumbel=1). Both are one search
 * that keeps its tree between moves; they differ in the evaluator and the
 * defaults. Any search parameter can be set by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "egdb/egdb.h"
#include "search/agent_internal.h"
#include "search/alphabeta.h"
#include "search/mcts.h"

/* The settings of the kinds beside the search parameters. */
typedef struct {
  int rollouts;
  char weights[256];
  double score_scale;
  int precision, rules;
  int endgame, endgame_seeds;
  double time;
  int threads, leaves, tree_mb;
  int sims_given; /* not a key: sims was set, so it caps a timed search */
} search_opts;

/* Time and threads (docs/SEARCH.md, "Time and threads"). */
#define TIME_KEYS                                                                          \
  KV_D("time", search_opts, time, 0, 1e6, "0",                                             \
       "seconds per move (anytime: the best move found by then; sims= caps it); 0: none"), \
      KV_I("threads", search_opts, threads, 1, MCTS_MAX_THREADS, "1",                      \
           "threads searching the one tree"),                                              \
      KV_I("leaves", search_opts, leaves, 1, MCTS_MAX_LEAVES, "1",                         \
           "leaves a thread evaluates in one call (virtual loss between them)"),           \
      KV_I("tree_mb", search_opts, tree_mb, 1, 1 << 20, "1024",                            \
           "MiB the search tree may grow to (from node_cap) when long searches fill it")

/* With egdb: the endgame search, below. */
#define ENDGAME_KEYS                                                                         \
  KV_I("endgame", search_opts, endgame, 0, AB_MAX_DEPTH, "14",                               \
       "with egdb: depth of the alpha-beta over the database's margins that chooses the "    \
       "move near it (0: the search there too)"),                                            \
      KV_I("endgame_seeds", search_opts, endgame_seeds, 0, 48, "5",                          \
           "with egdb: the endgame search takes positions of at most this many seeds above " \
           "the database's")

static const kv_key mcts_keys[] = {
    KV_I("rollouts", search_opts, rollouts, 1, 100000, "1", "random playouts per leaf"),
    ENDGAME_KEYS,
    TIME_KEYS,
};
static const kv_key zero_keys[] = {
    KV_S("weights", search_opts, weights, "", "the network's weight file"),
    AGENT_SCORE_SCALE_KEY(search_opts, score_scale),
    AGENT_PRECISION_KEY(search_opts, precision),
    AGENT_RULES_KEY(search_opts, rules),
    ENDGAME_KEYS,
    TIME_KEYS,
};
static const kv_table mcts_opts = KV_TABLE(mcts_keys), zero_opts = KV_TABLE(zero_keys);

typedef struct {
  mcts *m;
  mcts_rollout *ro;  /* mcts: the rollout evaluator */
  agent_network net; /* zero: the network and its evaluator */
  agent_egdb db;     /* egdb=: the endgame database */
  /* The endgame search: just above the database, MCTS's values (win, draw
   * or loss) cannot tell the biggest sure win from a smaller one, so an
   * alpha-beta search that scores the database's positions by their final
   * margins chooses the move (docs/SEARCH.md). NULL: none. */
  ab_search *endgame;
  int endgame_max; /* it takes positions of more than the database's seeds, up to this */
  /* Time and threads: one evaluator per thread (rollouts or the network's
   * workspace), made with the agent. */
  double time;    /* time=: seconds per move, 0: none */
  int sims_given; /* sims= set: a cap under a time limit */
  int threads, leaves;
  mcts_eval evals[MCTS_MAX_THREADS];
  mcts_rollout *ros[MCTS_MAX_THREADS];
  mcts_nn *nevs[MCTS_MAX_THREADS];
} search_agent;

static void search_free_parts(search_agent *s) {
  for (int i = 0; i < MCTS_MAX_THREADS; i++) {
    mcts_rollout_free(s->ros[i]);
    mcts_nn_free(s->nevs[i]);
  }
  ab_free(s->endgame);
  agent_egdb_close(&s->db);
  mcts_free(s->m);
  mcts_rollout_free(s->ro);
  agent_network_close(&s->net);
  free(s);
}

/* The most seeds of a position the database answers for the agent. */
static int endgame_floor(const search_agent *s) {
  int n = egdb_max_seeds(s->db.db);
  return s->db.max_seeds > 0 && s->db.max_seeds < n ? s->db.max_seeds : n;
}

/* The endgame search's move for p, or -1 when p is not its to decide (no
 * endgame search, or p inside the database or too far above it). */
static int endgame_move(agent *a, const game_pos *p, const game_hist *h, int *failed) {
  search_agent *s = a->impl;
  *failed = 0;
  if (!s->endgame) return -1;
  int n = egdb_seeds(p);
  if (n <= endgame_floor(s) || n > s->endgame_max) return -1;
  /* Under a clock the endgame search keeps to the move's budget too. */
  ab_set_time(s->endgame, agent_budget(a, p, s->time).soft);
  ab_result r;
  if (ab_run(s->endgame, p, h, &r, a->err, sizeof a->err)) {
    *failed = 1;
    return -1;
  }
  return r.best;
}

/* The search of a's kind (own: its settings' table) from settings read. */
static int search_build(agent *a, const mcts_params *pp, const search_opts *op,
                        const agent_egdb_opts *eo, const kv_table *own, char *err, size_t errlen) {
  mcts_params p = *pp;
  search_opts o = *op;
  search_agent *s = calloc(1, sizeof *s);
  if (!s) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  mcts_eval ev = {NULL, NULL, 0};
  if (own == &zero_opts) {
    s->net.score_scale = o.score_scale;
    if (agent_network_open(&s->net, a, o.weights, o.precision, o.rules, o.leaves, err, errlen) == 0)
      ev = mcts_nn_eval(s->net.ev);
  } else {
    s->ro = mcts_rollout_create(o.rollouts, rng_u64(&a->rng), err, errlen);
    if (s->ro) ev = mcts_rollout_eval(s->ro);
  }
  if (ev.evaluate) s->m = mcts_create(&a->g, &p, &ev, rng_u64(&a->rng), err, errlen);
  if (!s->m || agent_egdb_open(&s->db, a, eo, err, errlen)) {
    search_free_parts(s);
    return -1;
  }
  mcts_attach_egdb(s->m, s->db.db, s->db.max_seeds);
  s->time = o.time;
  s->sims_given = o.sims_given;
  s->threads = o.threads;
  s->leaves = o.leaves;
  /* Long searches grow the tree rather than stop expanding it. */
  double nodes = (double)o.tree_mb * (1 << 20) / 24; /* a node and its re-rooting entry */
  mcts_set_node_limit(s->m, nodes < 2e9 ? (int)nodes : 2000000000);
  if (s->threads > 1 || s->leaves > 1) {
    for (int i = 0; i < s->threads; i++) {
      if (s->net.net) {
        s->nevs[i] = mcts_nn_create(&a->g, s->net.net, s->leaves, err, errlen);
        if (s->nevs[i]) s->evals[i] = mcts_nn_eval(s->nevs[i]);
      } else {
        s->ros[i] = mcts_rollout_create(o.rollouts, rng_u64(&a->rng), err, errlen);
        if (s->ros[i]) s->evals[i] = mcts_rollout_eval(s->ros[i]);
      }
      if (!s->evals[i].evaluate) {
        search_free_parts(s);
        return -1;
      }
    }
  }
  if (s->db.db && o.endgame > 0 && o.endgame_seeds > 0) {
    ab_params ap = ab_defaults();
    ap.depth = o.endgame;
    ap.tt_mb = 4;
    ap.margins = 1;
    if (!(s->endgame = ab_create(&a->g, &ap, err, errlen))) {
      search_free_parts(s);
      return -1;
    }
    ab_attach_egdb(s->endgame, s->db.db, s->db.max_seeds);
    s->endgame_max = endgame_floor(s) + o.endgame_seeds;
  }
  a->impl = s;
  return 0;
}

/* p: the kind's default search parameters; own: its other settings. */
static int search_create(agent *a, int argc, char *const *argv, mcts_params p, const kv_table *own,
                         char *err, size_t errlen) {
  search_opts o;
  memset(&o, 0, sizeof o);
  kv_defaults(own, &o, NULL, 0);
  agent_egdb_opts eo;
  agent_egdb_defaults(&eo);
  kv_target tg[3] = {{own, &o, 0}, {mcts_params_table(), &p, 0}, {agent_egdb_table(), &eo, 0}};
  if (agent_settings(a, tg, 3, argc, argv, err, errlen)) return -1;
  o.sims_given = kv_given(&tg[1], "sims");
  return search_build(a, &p, &o, &eo, own, err, errlen);
}

static int mcts_agent_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  return search_create(a, argc, argv, mcts_rollout_defaults(), &mcts_opts, err, errlen);
}

static mcts_params zero_defaults(void) {
  mcts_params p = mcts_defaults();
  p.sims = 400;
  p.node_cap = 1 << 18;
  return p;
}

static int zero_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  return search_create(a, argc, argv, zero_defaults(), &zero_opts, err, errlen);
}

int agent_zero_build(agent *a, const agent_zero_params *zp, char *err, size_t errlen) {
  mcts_params p = zero_defaults();
  p.sims = zp->sims;
  search_opts o;
  memset(&o, 0, sizeof o);
  kv_defaults(&zero_opts, &o, NULL, 0);
  snprintf(o.weights, sizeof o.weights, "%s", zp->weights);
  o.precision = zp->precision;
  o.sims_given = 1;
  agent_egdb_opts eo;
  agent_egdb_defaults(&eo);
  return search_build(a, &p, &o, &eo, &zero_opts, err, errlen);
}

/* Sets the root and runs the search's budget: its simulations, or the
 * time of the move (time=, or the caller's clock); errors go to a->err. */
static mcts *search_position(agent *a, const game_pos *p, const game_hist *h) {
  search_agent *s = a->impl;
  mcts *m = s->m;
  double t0 = clock_wall();
  if (mcts_set_root(m, p, h, a->err, sizeof a->err)) return NULL;
  timectl_budget b = agent_budget(a, p, s->time);
  /* Keeping a large subtree takes time of its own: the move's. */
  double spent = clock_wall() - t0;
  if (b.soft > 0) {
    b.soft = b.soft - spent > b.soft / 10 ? b.soft - spent : b.soft / 10;
    b.hard = b.hard - spent > b.soft ? b.hard - spent : b.soft;
  }
  if (b.soft == 0 && s->threads == 1 && s->leaves == 1) {
    if (mcts_run(m, 0, a->err, sizeof a->err) < 0) return NULL;
    return m;
  }
  mcts_limits l = mcts_limits_sims(b.soft > 0 && !s->sims_given ? 0 : mcts_get_params(m)->sims);
  l.soft = b.soft;
  l.hard = b.hard;
  l.early_stop = b.banked;
  l.threads = s->threads;
  l.leaves = s->leaves;
  l.evals = s->evals[0].evaluate ? s->evals : NULL;
  if (mcts_search(m, &l, NULL, a->err, sizeof a->err) < 0) return NULL;
  return m;
}

static int search_choose(agent *a, const game_pos *p, const game_hist *h) {
  int failed, e = endgame_move(a, p, h, &failed);
  if (e >= 0 || failed) return e;
  mcts *m = search_position(a, p, h);
  return m ? mcts_choose_action(m) : -1;
}

/* Each root move's principal variation: the move, then the most visited
 * child at each node below it, as the tree stands. */
static void search_pv(const mcts *m, agent_analysis *out) {
  mcts_node_view root, v, c;
  if (mcts_node_at(m, 0, &root)) return;
  for (int k = 0; k < root.nchild && mcts_node_at(m, root.first_child + k, &v) == 0; k++) {
    int i = 0;
    while (i < out->n && out->action[i] != v.action) i++;
    if (i == out->n || v.visits == 0) continue;
    int len = 0;
    out->pv[i][len++] = (uint8_t)v.action;
    while (len < AGENT_PV_MAX && v.nchild > 0) {
      int best = -1, best_visits = 0;
      for (int j = 0; j < v.nchild; j++)
        if (mcts_node_at(m, v.first_child + j, &c) == 0 && c.visits > best_visits) {
          best = v.first_child + j;
          best_visits = c.visits;
        }
      if (best < 0 || mcts_node_at(m, best, &v)) break;
      out->pv[i][len++] = (uint8_t)v.action;
    }
    out->pv_len[i] = len;
  }
}

static int search_analyze(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out) {
  mcts *m = search_position(a, p, h);
  if (!m) return -1;
  memset(out, 0, sizeof *out);
  int proof[GAME_MAX_ACTIONS];
  out->n = mcts_root_children(m, out->action, out->visits, out->prior, out->value, proof);
  for (int i = 0; i < out->n; i++)
    if (isnan(out->value[i])) out->value[i] = 0.0f; /* unvisited */
  mcts_info info;
  mcts_get_info(m, &info);
  out->root_value = info.root_value;
  out->best = mcts_best_action(m);
  int failed, e = endgame_move(a, p, h, &failed);
  if (failed) return -1;
  if (e >= 0) out->best = e; /* the search's figures stay, the endgame search's move */
  search_agent *s = a->impl;
  if (s->net.ev) agent_network_margin(&s->net, &a->g, p, out);
  search_pv(m, out);
  return 0;
}

static void search_reset(agent *a) {
  search_agent *s = a->impl;
  mcts_reset(s->m);
  if (s->endgame) ab_clear(s->endgame);
  mcts_reseed(s->m, rng_u64(&a->rng));
  if (s->ro) mcts_rollout_reseed(s->ro, rng_u64(&a->rng));
  for (int i = 0; i < s->threads; i++)
    if (s->ros[i]) mcts_rollout_reseed(s->ros[i], rng_u64(&a->rng));
}

static void search_free(agent *a) {
  if (a->impl) search_free_parts(a->impl);
}

const agent_kind agent_mcts = {
    "mcts",
    "mcts sims=N rollouts=R time=SECONDS threads=N [search settings, docs/SEARCH.md]",
    mcts_agent_create,
    search_choose,
    search_analyze,
    search_reset,
    search_free};

const agent_kind agent_zero = {
    "zero",
    "zero weights=FILE sims=N time=SECONDS threads=N [gumbel=1] [search settings, docs/SEARCH.md]",
    zero_create,
    search_choose,
    search_analyze,
    search_reset,
    search_free};

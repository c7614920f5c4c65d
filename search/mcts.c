/* PUCT search over an index-based node arena: the life cycle of a search,
 * selection, expansion, backup with signs decided by who moves at each
 * node, the solver, root noise, and the results of a search. Parameters,
 * the position cache and root handling (reuse) have files of their own. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "egdb/egdb.h"
#include "search/mcts.h"
#include "search/mcts_internal.h"

/* ---- Life cycle ------------------------------------------------------------------------- */

void mcts_clear_tree(mcts *m) {
  memset(&m->nodes[0], 0, sizeof m->nodes[0]);
  m->nodes[0].flags = NODE_SEEN;
  m->nodes[0].mover = m->root_pos.mover;
  m->used = 1;
  m->root_noised = 0;
  m->sim.pending = 0;
  memset(&m->gs, 0, sizeof m->gs);
}

int mcts_grow(mcts *m, int need) {
  if (need <= m->cap) return 0;
  if (need > m->cap_max) return -1;
  int cap = m->cap;
  while (cap < need) cap = cap > m->cap_max / 2 ? m->cap_max : cap * 2;
  mcts_node *nodes = realloc(m->nodes, (size_t)cap * sizeof *nodes);
  if (!nodes) return -1;
  m->nodes = nodes;
  uint32_t *remap = realloc(m->remap, (size_t)cap * sizeof *remap);
  if (!remap) return -1; /* the nodes grew; the next try grows the rest */
  m->remap = remap;
  m->cap = cap;
  return 0;
}

void mcts_set_node_limit(mcts *m, int max_nodes) {
  m->cap_max = max_nodes > m->cap ? max_nodes : m->cap;
}

mcts *mcts_create(const game *g, const mcts_params *p, const mcts_eval *ev, uint64_t seed,
                  char *err, size_t errlen) {
  if (mcts_params_check(p, err, errlen) != 0) return NULL;
  if (!ev || !ev->evaluate) {
    errf(err, errlen, "search needs an evaluator");
    return NULL;
  }
  mcts *m = calloc(1, sizeof *m);
  if (!m) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  m->g = *g;
  m->p = *p;
  m->ev = *ev;
  m->cache_salt = search_variant_salt(g);
  m->cap = m->cap_max = p->node_cap;
  rng_seed(&m->rng, seed, 0x6d637473);
  m->nodes = malloc((size_t)m->cap * sizeof *m->nodes);
  m->remap = malloc((size_t)m->cap * sizeof *m->remap);
  m->root_hist = malloc(sizeof *m->root_hist);
  m->tmp_hist = malloc(sizeof *m->tmp_hist);
  m->tmp_hist2 = malloc(sizeof *m->tmp_hist2);
  m->scratch_policy = calloc(GAME_MAX_ACTIONS, sizeof *m->scratch_policy);
  if (!m->nodes || !m->remap || !m->root_hist || !m->tmp_hist || !m->tmp_hist2 ||
      !m->scratch_policy) {
    mcts_free(m);
    errf(err, errlen, "out of memory for a search of %d nodes", p->node_cap);
    return NULL;
  }
  if (p->cache_size > 0) {
    m->own_cache = mcts_cache_create(p->cache_size, g->n_actions, err, errlen);
    if (!m->own_cache) {
      mcts_free(m);
      return NULL;
    }
    m->cache = m->own_cache;
  }
  game_start(g, &m->root_pos);
  game_hist_reset(m->root_hist, &m->root_pos);
  mcts_clear_tree(m);
  return m;
}

void mcts_free(mcts *m) {
  if (!m) return;
  free(m->nodes);
  free(m->remap);
  free(m->root_hist);
  free(m->tmp_hist);
  free(m->tmp_hist2);
  free(m->scratch_policy);
  mcts_workers_free(m->workers);
  mcts_cache_free(m->own_cache);
  free(m);
}

const mcts_params *mcts_get_params(const mcts *m) { return &m->p; }

int mcts_set_params(mcts *m, const mcts_params *p, char *err, size_t errlen) {
  if (mcts_params_check(p, err, errlen) != 0) return -1;
  if (p->node_cap != m->p.node_cap || p->cache_size != m->p.cache_size) {
    errf(err, errlen, "node_cap and cache_size are fixed when a search is made");
    return -1;
  }
  m->p = *p;
  return 0;
}

void mcts_reseed(mcts *m, uint64_t seed) { rng_seed(&m->rng, seed, 0x6d637473); }

void mcts_attach_cache(mcts *m, mcts_cache *c) { m->cache = c ? c : m->own_cache; }

void mcts_attach_egdb(mcts *m, const egdb *db, int max_seeds) {
  m->db = db && egdb_serves(db, &m->g) ? db : NULL;
  m->db_max = max_seeds;
}

void mcts_reset(mcts *m) {
  m->root_set = 0;
  mcts_clear_tree(m);
  if (m->own_cache) mcts_cache_clear(m->own_cache);
}

/* ---- Simulation ----------------------------------------------------------------------- */

static void apply_root_noise(mcts *m) {
  mcts_node *root = &m->nodes[0];
  if (!root->child || root->nchild < 2) return;
  mcts_node *c = &m->nodes[root->child];
  double eta[GAME_MAX_ACTIONS], sum = 0;
  for (int k = 0; k < root->nchild; k++) {
    eta[k] = rng_gamma(&m->rng, m->p.dirichlet_alpha);
    sum += eta[k];
  }
  if (!(sum > 0)) return;
  float f = m->p.dirichlet_frac;
  for (int k = 0; k < root->nchild; k++) {
    m->clean_prior[k] = c[k].prior;
    c[k].prior = (1 - f) * c[k].prior + f * (float)(eta[k] / sum);
  }
  m->root_noised = 1;
}

static void restore_root_priors(mcts *m) {
  if (!m->root_noised) return;
  mcts_node *root = &m->nodes[0];
  for (int k = 0; k < root->nchild; k++) m->nodes[root->child + k].prior = m->clean_prior[k];
  m->root_noised = 0;
}

void mcts_begin(mcts *m, int sims) {
  m->budget = sims > 0 ? sims : m->p.sims;
  m->done_sims = 0;
  m->started = 0;
  m->sim.pending = 0;
  m->begin_visits = (int)m->nodes[0].n;
  if (m->used + GAME_MAX_ACTIONS > m->cap && !m->nodes[0].child) mcts_clear_tree(m);
  restore_root_priors(m);
  if (m->p.noise && !m->p.gumbel) apply_root_noise(m);
  mcts_gumbel_begin(m);
}

int mcts_done(const mcts *m) {
  if (!m->root_set) return 1;
  if (m->p.solver && node_proof(&m->nodes[0])) return 1;
  return m->done_sims >= m->budget;
}

static int select_puct(const mcts *m, uint32_t x, int chooser) {
  const mcts_node *nx = &m->nodes[x];
  const mcts_node *c = &m->nodes[nx->child];
  int mover = nx->mover;
  float pq = nx->n ? nx->w / (float)nx->n : 0.0f;
  if (chooser != mover) pq = -pq;
  float mass = 0;
  for (int k = 0; k < nx->nchild; k++)
    if (c[k].n) mass += c[k].prior;
  float fpu = (x == 0 && m->p.fpu_root >= 0) ? m->p.fpu_root : m->p.fpu_reduction;
  float fpu_q = pq - fpu * sqrtf(mass);
  float cp = m->p.c_puct;
  if (m->p.c_puct_base > 0) cp += logf((1.0f + (float)nx->n + m->p.c_puct_base) / m->p.c_puct_base);
  float sq = cp * sqrtf((float)(nx->n ? nx->n : 1));
  int best = 0;
  float best_score = -FLT_MAX;
  for (int k = 0; k < nx->nchild; k++) {
    int pr = node_proof(&c[k]);
    float score;
    if (pr == MCTS_PROVEN_WIN) return k;
    if (pr == MCTS_PROVEN_LOSS && m->p.solver) {
      score = -10.0f; /* only if every child is a proven loss */
    } else {
      float q = c[k].n || pr ? node_q(&c[k]) : fpu_q;
      score = q + sq * c[k].prior / (1.0f + (float)c[k].n);
    }
    if (score > best_score) {
      best_score = score;
      best = k;
    }
  }
  return best;
}

/* The sum of values along the path, each for its node's chooser. vs is the
 * simulation's value for South. */
static void backup_value(mcts *m, const mcts_sim *s, float vs) {
  for (int i = s->depth - 1; i >= 0; i--) {
    mcts_node *x = &m->nodes[s->node_path[i]];
    int chooser = i ? m->nodes[s->node_path[i - 1]].mover : x->mover;
    x->n++;
    x->w += chooser == GAME_SOUTH ? vs : -vs;
  }
}

/* A virtual loss on s's path: one visit valued as a loss for each node's
 * chooser, so other threads' selections turn elsewhere while the leaf is
 * evaluated (sign = 1 adds it, -1 takes it back). */
static void virtual_loss(mcts *m, const mcts_sim *s, int sign) {
  for (int i = 0; i < s->depth; i++) {
    mcts_node *x = &m->nodes[s->node_path[i]];
    x->n = (uint32_t)((int64_t)x->n + sign);
    x->w -= (float)sign;
  }
}

/* Recomputes the proof of a node from its children's proofs (which are for
 * this node's mover); returns it for the node's chooser. */
static int node_proof_from_children(const mcts *m, uint32_t x, int chooser) {
  const mcts_node *nx = &m->nodes[x];
  if (!nx->child) return node_proof(nx);
  int all = 1, any_draw = 0;
  for (int k = 0; k < nx->nchild; k++) {
    int pr = node_proof(&m->nodes[nx->child + k]);
    if (pr == MCTS_PROVEN_WIN) return chooser == nx->mover ? MCTS_PROVEN_WIN : MCTS_PROVEN_LOSS;
    if (pr == MCTS_UNPROVEN) all = 0;
    if (pr == MCTS_PROVEN_DRAW) any_draw = 1;
  }
  if (!all) return MCTS_UNPROVEN;
  int r = any_draw ? MCTS_PROVEN_DRAW : MCTS_PROVEN_LOSS;
  return chooser == nx->mover ? r : proof_flip(r);
}

/* A leaf just became proven: carry the proof up while it changes. */
static void update_proofs(mcts *m, const mcts_sim *s) {
  for (int i = s->depth - 2; i >= 0; i--) {
    uint32_t x = s->node_path[i];
    int chooser = i ? m->nodes[s->node_path[i - 1]].mover : m->nodes[x].mover;
    int old = node_proof(&m->nodes[x]);
    int now = node_proof_from_children(m, x, chooser);
    if (now == old) return;
    node_set_proof(&m->nodes[x], now);
  }
}

/* A node reached for the first time at position pos, chosen by chooser:
 * its mover, and whether the game is over there or the endgame database
 * knows its result. */
static void see_node(mcts *m, mcts_node *c, const game_pos *pos, int chooser) {
  c->mover = pos->mover;
  c->flags |= NODE_SEEN;
  egdb_result ex;
  if (pos->status != GAME_ONGOING) {
    int o = game_outcome(pos, chooser);
    c->flags |= NODE_TERMINAL;
    node_set_proof(c, o > 0 ? MCTS_PROVEN_WIN : o < 0 ? MCTS_PROVEN_LOSS : MCTS_PROVEN_DRAW);
    c->v = (float)game_margin(pos, c->mover);
  } else if (m->db && egdb_exact(m->db, &m->g, pos, m->db_max, &ex)) {
    /* Solved as if the game ended here with perfect play's result. */
    int o = c->mover == chooser ? ex.outcome : -ex.outcome;
    c->flags |= NODE_TERMINAL | NODE_EXACT;
    node_set_proof(c, o > 0 ? MCTS_PROVEN_WIN : o < 0 ? MCTS_PROVEN_LOSS : MCTS_PROVEN_DRAW);
    c->v = (float)ex.margin;
  }
}

/* A root the database holds: every child is seen at once, so that the
 * move is chosen among all exact results (mcts_best_action), not among
 * those the simulations happened to reach before the root was proven. */
static void see_root_children(mcts *m) {
  mcts_node *r = &m->nodes[0];
  egdb_result ex;
  if (!egdb_exact(m->db, &m->g, &m->root_pos, m->db_max, &ex)) return;
  for (int k = 0; k < r->nchild; k++) {
    mcts_node *c = &m->nodes[r->child + k];
    if (c->flags & NODE_SEEN) continue;
    game_pos q = m->root_pos;
    /* The split API's path is free here: its simulation is over, and
     * mcts_search's threads use paths of their own. */
    game_path_reset(&m->sim.path, m->root_hist);
    game_path_step(&m->g, &q, &m->sim.path, c->action);
    see_node(m, c, &q, r->mover);
  }
}

static void expand(mcts *m, uint32_t x, const game_pos *pos, const float *policy) {
  game_moves legal = game_legal(&m->g, pos);
  int k = game_count(legal);
  if (k == 0) return;
  if (m->used + k > m->cap && mcts_grow(m, m->used + k) != 0) {
    m->arena_full++;
    return;
  }
  uint32_t first = (uint32_t)m->used;
  m->used += k;
  float sum = 0;
  int i = 0;
  for (game_moves r = legal; r; r &= r - 1, i++) {
    int a = __builtin_ctz(r);
    mcts_node *c = &m->nodes[first + i];
    memset(c, 0, sizeof *c);
    c->action = (uint8_t)a;
    float pr = policy[a];
    c->prior = pr > 0 && pr <= 1e30f ? pr : 0.0f; /* also drops NaN */
    sum += c->prior;
  }
  for (i = 0; i < k; i++) {
    mcts_node *c = &m->nodes[first + i];
    c->prior = sum > 0 ? c->prior / sum : 1.0f / (float)k;
  }
  m->nodes[x].child = first;
  m->nodes[x].nchild = (uint8_t)k;
  if (x == 0) {
    if (m->db) see_root_children(m);
    m->root_noised = 0;
    if (m->p.noise && !m->p.gumbel) apply_root_noise(m);
  }
}

/* Finishes s's pending leaf with an evaluation. */
static void finish_leaf(mcts *m, mcts_sim *s, const float *policy, float value) {
  uint32_t x = s->node_path[s->depth - 1];
  mcts_node *nx = &m->nodes[x];
  if (value != value) value = 0.0f; /* NaN from a broken evaluator */
  if (value < -1.0f) value = -1.0f;
  if (value > 1.0f) value = 1.0f;
  nx->v = value;
  int mover = nx->mover;
  if (!nx->child) expand(m, x, &s->leaf_pos, policy); /* may move the nodes */
  backup_value(m, s, mover == GAME_SOUTH ? value : -value);
  m->done_sims++;
  s->pending = 0;
}

int mcts_sim_select(mcts *m, mcts_sim *s, const game_pos **leaf, int vloss) {
  if (!m->root_set || s->pending) return -1;
  game_pos pos = m->root_pos;
  game_path_reset(&s->path, m->root_hist);
  uint32_t x = 0;
  s->depth = 0;
  s->node_path[s->depth++] = 0;
  s->vloss = 0;
  int gumbel = m->p.gumbel && m->gs.active;
  for (;;) {
    mcts_node *nx = &m->nodes[x];
    int chooser = s->depth > 1 ? m->nodes[s->node_path[s->depth - 2]].mover : nx->mover;
    if (nx->flags & NODE_TERMINAL) {
      int fresh = nx->n == 0;
      if (nx->flags & NODE_EXACT) {
        float v = proof_value(node_proof(nx));
        backup_value(m, s, chooser == GAME_SOUTH ? v : -v);
      } else {
        backup_value(m, s, (float)game_outcome(&pos, GAME_SOUTH));
      }
      if (fresh && m->p.solver) update_proofs(m, s);
      m->done_sims++;
      return 0;
    }
    int pr = node_proof(nx);
    if (pr && x != 0 && m->p.solver) {
      float v = proof_value(pr);
      backup_value(m, s, chooser == GAME_SOUTH ? v : -v);
      m->done_sims++;
      return 0;
    }
    if (!nx->child) {
      s->leaf_pos = pos;
      s->pending = 1;
      if (m->cache) {
        s->leaf_key = mcts_cache_key(&pos) ^ m->cache_salt;
        float v;
        if (mcts_cache_get(m->cache, s->leaf_key, m->scratch_policy, &v)) {
          m->cache_hits++;
          finish_leaf(m, s, m->scratch_policy, v);
          return 0;
        }
      }
      if (vloss) {
        virtual_loss(m, s, 1);
        s->vloss = 1;
      }
      *leaf = &s->leaf_pos;
      return 1;
    }
    int slot;
    if (x == 0 && gumbel) {
      slot = mcts_gumbel_root_select(m);
    } else if (gumbel) {
      slot = mcts_gumbel_nonroot_select(m, x);
    } else {
      slot = select_puct(m, x, chooser);
    }
    uint32_t cx = nx->child + (uint32_t)slot;
    mcts_node *c = &m->nodes[cx];
    game_path_step(&m->g, &pos, &s->path, c->action);
    if (!(c->flags & NODE_SEEN)) see_node(m, c, &pos, nx->mover);
    x = cx;
    s->node_path[s->depth++] = x;
  }
}

void mcts_sim_backup(mcts *m, mcts_sim *s, const float *policy, float value) {
  if (!s->pending) return;
  if (s->vloss) virtual_loss(m, s, -1);
  s->vloss = 0;
  m->evals++;
  if (m->cache) mcts_cache_put(m->cache, s->leaf_key, policy, value);
  finish_leaf(m, s, policy, value);
}

void mcts_sim_drop(mcts *m, mcts_sim *s) {
  if (s->vloss) virtual_loss(m, s, -1);
  s->vloss = 0;
  s->pending = 0;
}

int mcts_select(mcts *m, const game_pos **leaf) { return mcts_sim_select(m, &m->sim, leaf, 0); }

void mcts_backup(mcts *m, const float *policy, float value) {
  mcts_sim_backup(m, &m->sim, policy, value);
}

int mcts_run(mcts *m, int sims, char *err, size_t errlen) {
  if (!m->root_set) {
    errf(err, errlen, "no root position set");
    return -1;
  }
  mcts_begin(m, sims);
  while (!mcts_done(m)) {
    const game_pos *leaf;
    int r = mcts_select(m, &leaf);
    if (r < 0) {
      errf(err, errlen, "search state error");
      return -1;
    }
    if (r == 0) continue;
    float v;
    if (m->ev.evaluate(m->ev.ctx, &m->g, &leaf, 1, m->scratch_policy, &v) != 0) {
      m->sim.pending = 0;
      errf(err, errlen, "the evaluator failed");
      return -1;
    }
    mcts_backup(m, m->scratch_policy, v);
  }
  return m->done_sims;
}

/* ---- Results ------------------------------------------------------------------------------ */

void mcts_get_info(const mcts *m, mcts_info *out) {
  const mcts_node *r = &m->nodes[0];
  memset(out, 0, sizeof *out);
  out->sims = (uint64_t)m->done_sims;
  out->evals = m->evals;
  out->cache_hits = m->cache_hits;
  out->arena_full = m->arena_full;
  out->nodes = m->used;
  out->node_cap = m->cap;
  out->root_visits = (int)r->n;
  out->reused = m->begin_visits;
  out->proof = node_proof(r);
  out->root_value = out->proof ? proof_value(out->proof) : r->n ? r->w / (float)r->n : 0.0f;
}

int mcts_visits(const mcts *m, int *visits) {
  const mcts_node *r = &m->nodes[0];
  int total = 0;
  memset(visits, 0, (size_t)m->g.n_actions * sizeof *visits);
  for (int k = 0; r->child && k < r->nchild; k++) {
    const mcts_node *c = &m->nodes[r->child + k];
    visits[c->action] = (int)c->n;
    total += (int)c->n;
  }
  return total;
}

void mcts_visit_policy(const mcts *m, float *pi) {
  int v[GAME_MAX_ACTIONS];
  int total = mcts_visits(m, v);
  for (int a = 0; a < m->g.n_actions; a++) pi[a] = total ? (float)v[a] / (float)total : 0.0f;
}

void mcts_improved_policy(const mcts *m, float *pi) {
  const mcts_node *r = &m->nodes[0];
  memset(pi, 0, (size_t)m->g.n_actions * sizeof *pi);
  if (!r->child) return;
  float sigma[GAME_MAX_ACTIONS], z[GAME_MAX_ACTIONS], zmax = -FLT_MAX, sum = 0;
  mcts_completed_q(m, 0, sigma);
  for (int k = 0; k < r->nchild; k++) {
    float pr = m->root_noised ? m->clean_prior[k] : m->nodes[r->child + k].prior;
    z[k] = logf(pr > 1e-30f ? pr : 1e-30f) + sigma[k];
    if (z[k] > zmax) zmax = z[k];
  }
  for (int k = 0; k < r->nchild; k++) {
    z[k] = expf(z[k] - zmax);
    sum += z[k];
  }
  for (int k = 0; k < r->nchild; k++) pi[m->nodes[r->child + k].action] = z[k] / sum;
}

void mcts_target_policy(const mcts *m, float *pi) {
  if (m->p.gumbel)
    mcts_improved_policy(m, pi);
  else
    mcts_visit_policy(m, pi);
}

int mcts_node_at(const mcts *m, int i, mcts_node_view *out) {
  if (i < 0 || i >= m->used) return -1;
  const mcts_node *x = &m->nodes[i];
  out->action = i == 0 ? -1 : x->action;
  out->visits = (int)x->n;
  out->w = x->w;
  out->v = x->v;
  out->prior = x->prior;
  out->mover = (x->flags & NODE_SEEN) || i == 0 ? x->mover : -1;
  out->terminal = (x->flags & NODE_TERMINAL) != 0;
  out->proof = node_proof(x);
  out->first_child = (int)x->child;
  out->nchild = x->nchild;
  return 0;
}

int mcts_root_children(const mcts *m, int *action, int *visits, float *prior, float *value,
                       int *proof) {
  const mcts_node *r = &m->nodes[0];
  for (int k = 0; r->child && k < r->nchild; k++) {
    const mcts_node *c = &m->nodes[r->child + k];
    int pr = node_proof(c);
    if (action) action[k] = c->action;
    if (visits) visits[k] = (int)c->n;
    if (prior) prior[k] = m->root_noised ? m->clean_prior[k] : c->prior;
    if (value) value[k] = pr ? proof_value(pr) : c->n ? c->w / (float)c->n : NAN;
    if (proof) proof[k] = pr;
  }
  return r->child ? r->nchild : 0;
}

/* When every root child's result is exact (finished games and database
 * positions: a root within the database), the best outcome with the best
 * final margin for the root mover (ties: the first); else -1. */
static int exact_best(const mcts *m) {
  const mcts_node *r = &m->nodes[0], *c = &m->nodes[r->child];
  int best = -1;
  float best_key = -FLT_MAX;
  for (int k = 0; k < r->nchild; k++) {
    if (!(c[k].flags & NODE_TERMINAL)) return -1;
    int pr = node_proof(&c[k]);
    float margin = c[k].mover == r->mover ? c[k].v : -c[k].v;
    float key = 1000.0f * proof_value(pr) + margin;
    if (key > best_key) {
      best_key = key;
      best = k;
    }
  }
  return best;
}

int mcts_best_action(const mcts *m) {
  const mcts_node *r = &m->nodes[0];
  if (!r->child) {
    game_moves legal = game_legal(&m->g, &m->root_pos);
    return legal ? __builtin_ctz(legal) : -1;
  }
  const mcts_node *c = &m->nodes[r->child];
  int best = exact_best(m);
  if (best >= 0) return c[best].action;
  /* A proven win: the most visited one. */
  for (int k = 0; k < r->nchild; k++)
    if (node_proof(&c[k]) == MCTS_PROVEN_WIN && (best < 0 || c[k].n > c[best].n)) best = k;
  if (best >= 0) return c[best].action;
  if (m->p.gumbel && m->gs.considered > 0) {
    int k = mcts_gumbel_best(m);
    if (k >= 0) return c[k].action;
  }
  float best_q = -FLT_MAX;
  for (int pass = 0; pass < 2 && best < 0; pass++)
    for (int k = 0; k < r->nchild; k++) {
      if (pass == 0 && node_proof(&c[k]) == MCTS_PROVEN_LOSS) continue;
      float q = c[k].n ? node_q(&c[k]) : -2.0f;
      if (best < 0 || c[k].n > c[best].n ||
          (c[k].n == c[best].n && (q > best_q || (q == best_q && c[k].prior > c[best].prior)))) {
        best = k;
        best_q = q;
      }
    }
  return c[best].action;
}

int mcts_choose_action(mcts *m) {
  const mcts_node *r = &m->nodes[0];
  float t = m->root_pos.ply < m->p.temp_plies ? m->p.temperature : m->p.temp_final;
  if (m->p.gumbel || t <= 0 || !r->child) return mcts_best_action(m);
  const mcts_node *c = &m->nodes[r->child];
  for (int k = 0; k < r->nchild; k++)
    if (node_proof(&c[k]) == MCTS_PROVEN_WIN) return mcts_best_action(m);
  double w[GAME_MAX_ACTIONS], sum = 0, maxn = 0;
  for (int k = 0; k < r->nchild; k++)
    if (c[k].n > maxn) maxn = c[k].n;
  if (maxn == 0) return mcts_best_action(m);
  for (int k = 0; k < r->nchild; k++) {
    int skip = node_proof(&c[k]) == MCTS_PROVEN_LOSS || c[k].n == 0;
    w[k] = skip ? 0.0 : pow((double)c[k].n / maxn, 1.0 / t);
    sum += w[k];
  }
  if (!(sum > 0)) return mcts_best_action(m);
  double u = rng_double(&m->rng) * sum;
  for (int k = 0; k < r->nchild; k++) {
    u -= w[k];
    if (u < 0 && w[k] > 0) return c[k].action;
  }
  for (int k = r->nchild - 1; k >= 0; k--)
    if (w[k] > 0) return c[k].action;
  return mcts_best_action(m);
}

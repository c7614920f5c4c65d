/* PUCT search over an index-based node arena: selection, expansion,
 * backup with signs decided by who moves at each node, the solver, root
 * noise, re-rooting, and the results of a search. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "search/mcts.h"
#include "search/mcts_internal.h"

/* ---- Parameters ------------------------------------------------------------------------- */

mcts_params mcts_defaults(void) {
  mcts_params p;
  memset(&p, 0, sizeof p);
  p.sims = 800;
  p.c_puct = 1.25f;
  p.c_puct_base = 0.0f;
  p.fpu_reduction = 0.25f;
  p.fpu_root = -1.0f;
  p.noise = 0;
  p.dirichlet_alpha = 0.5f;
  p.dirichlet_frac = 0.25f;
  p.temperature = 1.0f;
  p.temp_plies = 0;
  p.temp_final = 0.0f;
  p.node_cap = 200000;
  p.cache_size = 0;
  p.batch = 256;
  p.reuse = 1;
  p.solver = 1;
  p.gumbel = 0;
  p.gumbel_m = 16;
  p.gumbel_c_visit = 50.0f;
  p.gumbel_c_scale = 1.0f;
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

typedef struct {
  const char *name;
  int is_float;
  size_t off;
  double lo, hi;
} param_desc;

#define PI_(f, lo, hi) {#f, 0, offsetof(mcts_params, f), lo, hi}
#define PF_(f, lo, hi) {#f, 1, offsetof(mcts_params, f), lo, hi}
static const param_desc param_table[] = {
    PI_(sims, 1, 100000000),
    PF_(c_puct, 0, 100),
    PF_(c_puct_base, 0, 1e9),
    PF_(fpu_reduction, -2, 2),
    PF_(fpu_root, -1, 2),
    PI_(noise, 0, 1),
    PF_(dirichlet_alpha, 0.001, 100),
    PF_(dirichlet_frac, 0, 1),
    PF_(temperature, 0, 100),
    PI_(temp_plies, 0, GAME_MAX_PLIES_CAP),
    PF_(temp_final, 0, 100),
    PI_(node_cap, 64, 200000000),
    PI_(cache_size, 0, 100000000),
    PI_(batch, 1, 65536),
    PI_(reuse, 0, 1),
    PI_(solver, 0, 1),
    PI_(gumbel, 0, 1),
    PI_(gumbel_m, 1, GAME_MAX_ACTIONS),
    PF_(gumbel_c_visit, 0, 1e6),
    PF_(gumbel_c_scale, 0, 1e6),
};
#define N_PARAMS (int)(sizeof param_table / sizeof param_table[0])

const char *mcts_params_keys(void) {
  return "sims c_puct c_puct_base fpu_reduction fpu_root noise dirichlet_alpha "
         "dirichlet_frac temperature temp_plies temp_final node_cap cache_size batch "
         "reuse solver gumbel gumbel_m gumbel_c_visit gumbel_c_scale";
}

int mcts_params_set(mcts_params *p, const char *key, const char *value, char *err,
                    size_t errlen) {
  for (int i = 0; i < N_PARAMS; i++) {
    const param_desc *d = &param_table[i];
    if (strcmp(d->name, key) != 0) continue;
    char *end;
    double v = strtod(value, &end);
    if (*value == 0 || *end != 0 || !(v >= d->lo && v <= d->hi) ||
        (!d->is_float && v != (double)(long)v)) {
      errf(err, errlen, "bad value '%s' for %s (%s %g..%g)", value, key,
           d->is_float ? "a number" : "an integer", d->lo, d->hi);
      return -1;
    }
    char *field = (char *)p + d->off;
    if (d->is_float) {
      float f = (float)v;
      memcpy(field, &f, sizeof f);
    } else {
      int n = (int)v;
      memcpy(field, &n, sizeof n);
    }
    return 0;
  }
  errf(err, errlen, "unknown search setting '%s' (known: %s)", key, mcts_params_keys());
  return -1;
}

int mcts_params_format(const mcts_params *p, char *buf, size_t len) {
  size_t n = 0;
  if (len) buf[0] = 0;
  for (int i = 0; i < N_PARAMS; i++) {
    const param_desc *d = &param_table[i];
    const char *field = (const char *)p + d->off;
    int w;
    if (d->is_float) {
      float f;
      memcpy(&f, field, sizeof f);
      w = snprintf(buf + n, len - n, "%s = %.9g\n", d->name, (double)f);
    } else {
      int v;
      memcpy(&v, field, sizeof v);
      w = snprintf(buf + n, len - n, "%s = %d\n", d->name, v);
    }
    if (w < 0 || (size_t)w >= len - n) return -1;
    n += (size_t)w;
  }
  return 0;
}

int mcts_params_check(const mcts_params *p, char *err, size_t errlen) {
  if (p->sims < 1) {
    errf(err, errlen, "sims must be at least 1");
    return -1;
  }
  if (p->node_cap < 1 + GAME_MAX_ACTIONS) {
    errf(err, errlen, "node_cap %d is too small (at least %d)", p->node_cap,
         1 + GAME_MAX_ACTIONS);
    return -1;
  }
  if (p->cache_size < 0 || p->batch < 1 || p->gumbel_m < 1 || p->c_puct < 0) {
    errf(err, errlen, "bad search parameters (cache_size, batch, gumbel_m or c_puct)");
    return -1;
  }
  return 0;
}

/* ---- Cache ------------------------------------------------------------------------------ */

mcts_cache *mcts_cache_create(int entries, int n_actions, char *err, size_t errlen) {
  if (entries < 1 || n_actions < 1 || n_actions > GAME_MAX_ACTIONS) {
    errf(err, errlen, "bad cache size %d x %d", entries, n_actions);
    return NULL;
  }
  mcts_cache *c = calloc(1, sizeof *c);
  if (c) {
    c->entries = entries;
    c->n_actions = n_actions;
    c->key = calloc((size_t)entries, sizeof *c->key);
    c->data = malloc((size_t)entries * (size_t)(n_actions + 1) * sizeof *c->data);
  }
  if (!c || !c->key || !c->data) {
    mcts_cache_free(c);
    errf(err, errlen, "out of memory for a cache of %d entries", entries);
    return NULL;
  }
  return c;
}

void mcts_cache_free(mcts_cache *c) {
  if (!c) return;
  free(c->key);
  free(c->data);
  free(c);
}

void mcts_cache_clear(mcts_cache *c) { memset(c->key, 0, (size_t)c->entries * sizeof *c->key); }

static inline uint64_t mix64(uint64_t h, uint64_t w) {
  h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}

uint64_t mcts_cache_key(const game_pos *p) {
  uint64_t h = mix64(p->hash, (uint64_t)p->store[0] | (uint64_t)p->store[1] << 16 |
                                  (uint64_t)p->ply << 32 | (uint64_t)p->nocap << 48);
  h = mix64(h, (uint64_t)p->round | (uint64_t)p->aux[0] << 8 | (uint64_t)p->aux[1] << 16 |
                   (uint64_t)p->aux[2] << 24 | (uint64_t)p->phase << 32 |
                   (uint64_t)p->mover << 40);
  return h ? h : 1;
}

int mcts_cache_get(mcts_cache *c, uint64_t key, float *policy, float *value) {
  size_t i = (size_t)(key % (uint64_t)c->entries);
  if (c->key[i] != key) return 0;
  const float *d = c->data + i * (size_t)(c->n_actions + 1);
  memcpy(policy, d, (size_t)c->n_actions * sizeof *d);
  *value = d[c->n_actions];
  return 1;
}

void mcts_cache_put(mcts_cache *c, uint64_t key, const float *policy, float value) {
  size_t i = (size_t)(key % (uint64_t)c->entries);
  float *d = c->data + i * (size_t)(c->n_actions + 1);
  memcpy(d, policy, (size_t)c->n_actions * sizeof *d);
  d[c->n_actions] = value;
  c->key[i] = key;
}

/* ---- Life cycle ------------------------------------------------------------------------- */

static void clear_tree(mcts *m) {
  memset(&m->nodes[0], 0, sizeof m->nodes[0]);
  m->nodes[0].flags = NODE_SEEN;
  m->nodes[0].mover = m->root_pos.mover;
  m->used = 1;
  m->root_noised = 0;
  m->pending = 0;
  memset(&m->gs, 0, sizeof m->gs);
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
  m->cap = p->node_cap;
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
  clear_tree(m);
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

void mcts_reset(mcts *m) {
  m->root_set = 0;
  clear_tree(m);
  if (m->own_cache) mcts_cache_clear(m->own_cache);
}

/* ---- Re-rooting -------------------------------------------------------------------------
 * Keeps the subtree of node r and packs it to the front of the arena. A
 * child always sits after its parent, so one forward sweep marks the
 * subtree, a second numbers it, a third moves each node down (never over a
 * node still to be moved). */
#define REMAP_NONE UINT32_MAX
#define REMAP_MARK (UINT32_MAX - 1)

static void reroot(mcts *m, uint32_t r) {
  mcts_node *nd = m->nodes;
  for (int i = (int)r; i < m->used; i++) m->remap[i] = REMAP_NONE;
  m->remap[r] = REMAP_MARK;
  for (int i = (int)r; i < m->used; i++)
    if (m->remap[i] == REMAP_MARK && nd[i].child)
      for (uint32_t k = nd[i].child; k < nd[i].child + nd[i].nchild; k++) m->remap[k] = REMAP_MARK;
  uint32_t next = 0;
  for (int i = (int)r; i < m->used; i++)
    if (m->remap[i] == REMAP_MARK) m->remap[i] = next++;
  for (int i = (int)r; i < m->used; i++) {
    if (m->remap[i] == REMAP_NONE) continue;
    mcts_node x = nd[i];
    if (x.child) x.child = m->remap[x.child];
    nd[m->remap[i]] = x;
  }
  m->used = (int)next;
  m->root_noised = 0;
  memset(&m->gs, 0, sizeof m->gs);
}

/* After reroot: the root's statistics were for the old parent's mover. */
static void root_take_perspective(mcts *m, int old_chooser) {
  mcts_node *x = &m->nodes[0];
  if (old_chooser != x->mover) {
    x->w = -x->w;
    node_set_proof(x, proof_flip(node_proof(x)));
  }
  x->prior = 1.0f;
}

/* Keeps the subtree of node idx (a child or grandchild of the root) as the
 * new root at position p; falls back to a fresh tree when the kept subtree
 * leaves too little room to search. */
static void keep_subtree(mcts *m, uint32_t idx, int parent_mover, const game_pos *p) {
  reroot(m, idx);
  m->root_pos = *p;
  root_take_perspective(m, parent_mover);
  if (m->used + GAME_MAX_ACTIONS > m->cap || m->used > m->cap - m->cap / 4) clear_tree(m);
}

static int hist_equal(const game_hist *a, const game_hist *b) {
  return a->len == b->len && memcmp(a->hash, b->hash, (size_t)a->len * sizeof a->hash[0]) == 0;
}

/* The old root's history extended by the actions to a kept node must be
 * the caller's history: terminal flags set by the repetition rule in the
 * kept subtree depend on it. */
static int reuse_ok(mcts *m, const game_hist *h, int n, const int *actions) {
  game_hist *t = m->tmp_hist;
  game_pos q = m->root_pos;
  game_hist_copy(t, m->root_hist);
  for (int i = 0; i < n; i++) game_step(&m->g, &q, t, actions[i]);
  return hist_equal(t, h);
}

int mcts_set_root(mcts *m, const game_pos *p, const game_hist *h, char *err, size_t errlen) {
  if (p->status != GAME_ONGOING || game_legal(&m->g, p) == 0) {
    errf(err, errlen, "cannot search a finished game");
    return -1;
  }
  if (!h) {
    game_hist_reset(m->tmp_hist2, p);
    h = m->tmp_hist2;
  }
  m->pending = 0;
  if (m->root_set && m->p.reuse && m->used > 1) {
    mcts_node *nd = m->nodes;
    const mcts_node *root = &nd[0];
    if (game_pos_equal(&m->root_pos, p) && reuse_ok(m, h, 0, NULL)) return 0;
    for (uint32_t c = root->child; root->child && c < root->child + root->nchild; c++) {
      if (!(nd[c].flags & NODE_SEEN) || (nd[c].flags & NODE_TERMINAL)) continue;
      game_pos q = m->root_pos;
      game_play(&m->g, &q, nd[c].action);
      int path[2] = {nd[c].action, 0};
      if (game_pos_equal(&q, p)) {
        if (!reuse_ok(m, h, 1, path)) break;
        game_hist_copy(m->root_hist, h);
        keep_subtree(m, c, root->mover, p);
        return 0;
      }
      for (uint32_t gc = nd[c].child; nd[c].child && gc < nd[c].child + nd[c].nchild; gc++) {
        if (!(nd[gc].flags & NODE_SEEN) || (nd[gc].flags & NODE_TERMINAL)) continue;
        game_pos q2 = q;
        game_play(&m->g, &q2, nd[gc].action);
        path[1] = nd[gc].action;
        if (game_pos_equal(&q2, p)) {
          if (!reuse_ok(m, h, 2, path)) goto fresh;
          game_hist_copy(m->root_hist, h);
          keep_subtree(m, gc, nd[c].mover, p);
          return 0;
        }
      }
    }
  }
fresh:
  game_hist_copy(m->root_hist, h);
  m->root_pos = *p;
  m->root_set = 1;
  clear_tree(m);
  return 0;
}

int mcts_advance(mcts *m, int action, char *err, size_t errlen) {
  if (!m->root_set) {
    errf(err, errlen, "no root position to advance from");
    return -1;
  }
  if (action < 0 || action >= m->g.n_actions || !(game_legal(&m->g, &m->root_pos) >> action & 1)) {
    errf(err, errlen, "action %d is not legal at the root", action);
    return -1;
  }
  game_pos q = m->root_pos;
  game_step(&m->g, &q, m->root_hist, action);
  m->pending = 0;
  if (q.status != GAME_ONGOING) {
    m->root_pos = q;
    m->root_set = 0;
    clear_tree(m);
    return 1;
  }
  const mcts_node *root = &m->nodes[0];
  uint32_t found = 0;
  for (uint32_t c = root->child; root->child && c < root->child + root->nchild; c++)
    if (m->nodes[c].action == action) found = c;
  if (m->p.reuse && found && (m->nodes[found].flags & NODE_SEEN)) {
    keep_subtree(m, found, root->mover, &q);
  } else {
    m->root_pos = q;
    clear_tree(m);
  }
  return 0;
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
  m->pending = 0;
  m->begin_visits = (int)m->nodes[0].n;
  if (m->used + GAME_MAX_ACTIONS > m->cap && !m->nodes[0].child) clear_tree(m);
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
  if (m->p.c_puct_base > 0)
    cp += logf((1.0f + (float)nx->n + m->p.c_puct_base) / m->p.c_puct_base);
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
static void backup_value(mcts *m, float vs) {
  for (int i = m->depth - 1; i >= 0; i--) {
    mcts_node *x = &m->nodes[m->node_path[i]];
    int chooser = i ? m->nodes[m->node_path[i - 1]].mover : x->mover;
    x->n++;
    x->w += chooser == GAME_SOUTH ? vs : -vs;
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
static void update_proofs(mcts *m) {
  for (int i = m->depth - 2; i >= 0; i--) {
    uint32_t x = m->node_path[i];
    int chooser = i ? m->nodes[m->node_path[i - 1]].mover : m->nodes[x].mover;
    int old = node_proof(&m->nodes[x]);
    int now = node_proof_from_children(m, x, chooser);
    if (now == old) return;
    node_set_proof(&m->nodes[x], now);
  }
}

static void expand(mcts *m, uint32_t x, const game_pos *pos, const float *policy) {
  game_moves legal = game_legal(&m->g, pos);
  int k = game_count(legal);
  if (k == 0) return;
  if (m->used + k > m->cap) {
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
    m->root_noised = 0;
    if (m->p.noise && !m->p.gumbel) apply_root_noise(m);
  }
}

/* Finishes the pending leaf with an evaluation. */
static void finish_leaf(mcts *m, const float *policy, float value) {
  uint32_t x = m->node_path[m->depth - 1];
  mcts_node *nx = &m->nodes[x];
  if (value != value) value = 0.0f; /* NaN from a broken evaluator */
  if (value < -1.0f) value = -1.0f;
  if (value > 1.0f) value = 1.0f;
  nx->v = value;
  if (!nx->child) expand(m, x, &m->leaf_pos, policy);
  backup_value(m, nx->mover == GAME_SOUTH ? value : -value);
  m->done_sims++;
  m->pending = 0;
}

int mcts_select(mcts *m, const game_pos **leaf) {
  if (!m->root_set || m->pending) return -1;
  game_pos pos = m->root_pos;
  game_path_reset(&m->path, m->root_hist);
  uint32_t x = 0;
  m->depth = 0;
  m->node_path[m->depth++] = 0;
  int gumbel = m->p.gumbel && m->gs.active;
  for (;;) {
    mcts_node *nx = &m->nodes[x];
    int chooser = m->depth > 1 ? m->nodes[m->node_path[m->depth - 2]].mover : nx->mover;
    if (nx->flags & NODE_TERMINAL) {
      int fresh = nx->n == 0;
      backup_value(m, (float)game_outcome(&pos, GAME_SOUTH));
      if (fresh && m->p.solver) update_proofs(m);
      m->done_sims++;
      return 0;
    }
    int pr = node_proof(nx);
    if (pr && x != 0 && m->p.solver) {
      float v = proof_value(pr);
      backup_value(m, chooser == GAME_SOUTH ? v : -v);
      m->done_sims++;
      return 0;
    }
    if (!nx->child) {
      m->leaf_pos = pos;
      m->pending = 1;
      if (m->cache) {
        m->leaf_key = mcts_cache_key(&pos);
        float v;
        if (mcts_cache_get(m->cache, m->leaf_key, m->scratch_policy, &v)) {
          m->cache_hits++;
          finish_leaf(m, m->scratch_policy, v);
          return 0;
        }
      }
      *leaf = &m->leaf_pos;
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
    game_path_step(&m->g, &pos, &m->path, c->action);
    if (!(c->flags & NODE_SEEN)) {
      c->mover = pos.mover;
      c->flags |= NODE_SEEN;
      if (pos.status != GAME_ONGOING) {
        int o = game_outcome(&pos, nx->mover);
        c->flags |= NODE_TERMINAL;
        node_set_proof(c, o > 0 ? MCTS_PROVEN_WIN : o < 0 ? MCTS_PROVEN_LOSS : MCTS_PROVEN_DRAW);
      }
    }
    x = cx;
    m->node_path[m->depth++] = x;
  }
}

void mcts_backup(mcts *m, const float *policy, float value) {
  if (!m->pending) return;
  m->evals++;
  if (m->cache) mcts_cache_put(m->cache, m->leaf_key, policy, value);
  finish_leaf(m, policy, value);
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
      m->pending = 0;
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

int mcts_best_action(const mcts *m) {
  const mcts_node *r = &m->nodes[0];
  if (!r->child) {
    game_moves legal = game_legal(&m->g, &m->root_pos);
    return legal ? __builtin_ctz(legal) : -1;
  }
  const mcts_node *c = &m->nodes[r->child];
  int best = -1;
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

/* Root handling: setting the position to search, playing a move at the
 * root, and keeping the subtree of the position reached (reuse). */
#include <string.h>

#include "search/mcts_internal.h"

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
  /* A growing array makes the room (a quarter free) before giving up. */
  int need = m->used + GAME_MAX_ACTIONS > m->used + m->used / 3 ? m->used + GAME_MAX_ACTIONS
                                                                : m->used + m->used / 3;
  if (need > m->cap && m->cap_max > m->cap) mcts_grow(m, need < m->cap_max ? need : m->cap_max);
  if (m->used + GAME_MAX_ACTIONS > m->cap || m->used > m->cap - m->cap / 4) mcts_clear_tree(m);
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

int mcts_set_game(mcts *m, const game *g, char *err, size_t errlen) {
  if (g->rules != m->g.rules || g->n_actions != m->g.n_actions ||
      g->n_features != m->g.n_features) {
    errf(err, errlen, "a search of %s cannot play %s with %d actions and %d features",
         m->g.rules->name, g->rules->name, g->n_actions, g->n_features);
    return -1;
  }
  m->g = *g;
  m->root_set = 0;
  m->sim.pending = 0;
  m->cache_salt = search_variant_salt(g);
  return 0;
}

int mcts_set_root(mcts *m, const game_pos *p, const game_hist *h, char *err, size_t errlen) {
  h = search_root_hist(&m->g, p, h, m->tmp_hist2, err, errlen);
  if (!h) return -1;
  m->sim.pending = 0;
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
  mcts_clear_tree(m);
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
  m->sim.pending = 0;
  if (q.status != GAME_ONGOING) {
    m->root_pos = q;
    m->root_set = 0;
    mcts_clear_tree(m);
    return 1;
  }
  const mcts_node *root = &m->nodes[0];
  uint32_t found = 0;
  for (uint32_t c = root->child; root->child && c < root->child + root->nchild; c++)
    if (m->nodes[c].action == action) found = c;
  /* A child solved by the endgame database was never expanded as a root. */
  if (m->p.reuse && found && (m->nodes[found].flags & NODE_SEEN) &&
      !(m->nodes[found].flags & NODE_TERMINAL)) {
    keep_subtree(m, found, root->mover, &q);
  } else {
    m->root_pos = q;
    mcts_clear_tree(m);
  }
  return 0;
}

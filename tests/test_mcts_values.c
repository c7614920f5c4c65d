/* MCTS against truths computed outside the search: every node's backed-up
 * value and who chose it, the node PUCT picks next (first-play urgency
 * included) for both sides, Gumbel's improved policy from completed Q, and
 * mirrored positions searched alike. The games are the ones where a player
 * can move twice in a row or pass: Bao for Kenyan children (extra turns),
 * Nam Nam (passes, rounds) and Oware with grand_slam=capture_continue. The
 * evaluators that need no network are held to the priors and values they
 * promise. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "search/mcts.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

/* ---- An evaluator whose every answer the test can recompute ------------------------------
 * Value and priors come from a hash of the mover-relative encoding, so a
 * position and its mirror image get the same answers, and the test can ask
 * for the value of any position it replays. */

static uint64_t enc_hash(const game *g, const game_pos *p) {
  float f[GAME_MAX_FEATURES];
  game_encode(g, p, f);
  uint64_t h = 1469598103934665603ULL;
  const unsigned char *b = (const unsigned char *)f;
  for (size_t i = 0; i < (size_t)g->n_features * sizeof *f; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h ^ (h >> 29);
}

static float hash_value(const game *g, const game_pos *p) {
  return (float)((int)(enc_hash(g, p) % 2001) - 1000) / 1000.0f;
}

static int hash_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                         float *value) {
  (void)ctx;
  for (int i = 0; i < n; i++) {
    uint64_t h = enc_hash(g, pos[i]);
    float *pi = policy + (size_t)i * (size_t)g->n_actions;
    for (int a = 0; a < g->n_actions; a++) pi[a] = 1.0f + (float)((h >> (2 * (a % 30))) & 3);
    value[i] = hash_value(g, pos[i]);
  }
  return 0;
}

static const mcts_eval HASH_EVAL = {hash_evaluate, NULL, 0};

static mcts *make_search(const char *settings, uint64_t seed) {
  mcts_params p = mcts_defaults();
  p.solver = 0;
  p.noise = 0;
  p.reuse = 0;
  p.node_cap = 200000;
  char buf[256], err[256], *save = NULL;
  snprintf(buf, sizeof buf, "%s", settings ? settings : "");
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(t, '=');
    ck_assert_ptr_nonnull(eq);
    *eq = 0;
    ck_assert_msg(mcts_params_set(&p, t, eq + 1, err, sizeof err) == 0, "%s", err);
  }
  mcts *m = mcts_create(&G, &p, &HASH_EVAL, seed, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  return m;
}

static void set_root(mcts *m, const game_pos *p, const game_hist *h) {
  char err[256];
  ck_assert_msg(mcts_set_root(m, p, h, err, sizeof err) == 0, "%s", err);
}

static void run(mcts *m, int sims) {
  char err[256];
  ck_assert_msg(mcts_run(m, sims, err, sizeof err) >= 0, "%s", err);
}

static mcts_node_view node(const mcts *m, int i) {
  mcts_node_view v;
  ck_assert_int_eq(mcts_node_at(m, i, &v), 0);
  return v;
}

/* Roots to search: the start and positions a few random plies in, so that
 * both sides are to move at some root. */
static int roots(game_pos *out, game_hist **hist, int n, uint64_t seed) {
  rng_t r;
  rng_seed(&r, seed, 0);
  int k = 0;
  for (int i = 0; i < n; i++) {
    game_hist *h = hist[k];
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    random_moves(&p, h, &r, i == 0 ? 0 : 1 + (int)rng_below(&r, 12));
    if (p.status != GAME_ONGOING) continue;
    out[k++] = p;
  }
  return k;
}

/* ---- Every node's backed-up value and who chose it -----------------------------------------
 * Replaying the tree from the root (with the repetition rule along the line,
 * as the search applies it), each node must have the mover of its position;
 * its chooser is its parent's mover (the root's, its own). A terminal node
 * holds visits x the outcome for its chooser. An expanded node holds its own
 * evaluation once plus everything its children hold, those being for its
 * mover: W = sign x (v + sum W(child)), sign -1 exactly when the chooser is
 * not the mover. An extra turn, a pass or a grand slam that keeps the
 * mover is where a search that assumes alternation goes wrong. */

typedef struct {
  const mcts *m;
  int checked, same_mover_edges;
} walk;

static void check_node(walk *w, int i, const game_pos *pos, game_path *path, int chooser) {
  mcts_node_view v = node(w->m, i);
  if (v.visits == 0) return;
  CHECK(v.mover == pos->mover, "node %d: mover %d, the replayed position says %d", i, v.mover,
        pos->mover);
  w->checked++;
  if (v.terminal) {
    CHECK(pos->status != GAME_ONGOING, "node %d: terminal but the game goes on", i);
    float want = (float)v.visits * (float)game_outcome(pos, chooser);
    CHECK(fabsf(v.w - want) < 1e-3f, "terminal node %d: W %g, want %g", i, v.w, want);
    return;
  }
  CHECK(pos->status == GAME_ONGOING, "node %d: the game is over but the node is not terminal", i);
  float own = hash_value(&G, pos);
  CHECK(fabsf(v.v - own) < 1e-6f, "node %d: evaluation %g, the evaluator says %g", i, v.v, own);
  /* The children's priors: the evaluator's policy over the legal actions,
   * renormalised. */
  if (v.nchild) {
    float pol[GAME_MAX_ACTIONS], val;
    const game_pos *one = pos;
    hash_evaluate(NULL, &G, &one, 1, pol, &val);
    game_moves legal = game_legal(&G, pos);
    float total = 0;
    for (int a = 0; a < G.n_actions; a++)
      if (legal >> a & 1) total += pol[a];
    CHECK(v.nchild == game_count(legal), "node %d: %d children, %d legal actions", i, v.nchild,
          game_count(legal));
    for (int k = 0; k < v.nchild; k++) {
      mcts_node_view c = node(w->m, v.first_child + k);
      CHECK(fabsf(c.prior - pol[c.action] / total) < 1e-5f, "node %d action %d: prior %g, want %g",
            i, c.action, c.prior, pol[c.action] / total);
    }
  }
  double sum = own;
  int n = 1;
  for (int k = 0; k < v.nchild; k++) {
    mcts_node_view c = node(w->m, v.first_child + k);
    if (!c.visits) continue;
    sum += c.w;
    n += c.visits;
    game_pos q = *pos;
    int root_live = path->root_live, base = path->base, len = path->len;
    game_path_step(&G, &q, path, c.action);
    if (q.status == GAME_ONGOING && q.mover == pos->mover) w->same_mover_edges++;
    check_node(w, v.first_child + k, &q, path, pos->mover);
    path->root_live = root_live;
    path->base = base;
    path->len = len;
  }
  CHECK(n == v.visits, "node %d: %d visits, its evaluation and children account for %d", i,
        v.visits, n);
  double want = (chooser == pos->mover ? 1 : -1) * sum;
  CHECK(fabs(v.w - want) < 1e-3 * v.visits, "node %d (chooser %d, mover %d): W %g, want %g", i,
        chooser, pos->mover, v.w, want);
}

static void values_are_exact(const char *game_name, const char *settings, const char *search) {
  configure_game(game_name, settings);
  game_hist *h[8];
  for (int i = 0; i < 8; i++) h[i] = malloc(sizeof *h[i]);
  game_pos root[8];
  int n = roots(root, h, 8, 11);
  game_path *path = malloc(sizeof *path);
  int same = 0;
  for (int i = 0; i < n; i++) {
    mcts *m = make_search(search, 5 + (uint64_t)i);
    set_root(m, &root[i], h[i]);
    run(m, (int)(1500 * test_scale()) + 50);
    walk w = {m, 0, 0};
    game_path_reset(path, h[i]);
    check_node(&w, 0, &root[i], path, root[i].mover);
    ck_assert_int_gt(w.checked, 10);
    same += w.same_mover_edges;
    mcts_free(m);
  }
  /* The searches went through moves that keep the mover, or this checks
   * nothing about them. */
  if (strcmp(game_name, "bao-kenya") == 0 || strstr(settings ? settings : "", "continue"))
    ck_assert_int_gt(same, 0);
  free(path);
  for (int i = 0; i < 8; i++) free(h[i]);
}

START_TEST(values_extra_turns) { values_are_exact("bao-kenya", NULL, NULL); }
END_TEST
START_TEST(values_extra_turns_gumbel) {
  values_are_exact("bao-kenya", NULL, "gumbel=1 gumbel_m=8");
}
END_TEST
START_TEST(values_passes_and_rounds) { values_are_exact("namnam", NULL, NULL); }
END_TEST
START_TEST(values_grand_slam_continue) {
  values_are_exact("oware", "grand_slam=capture_continue houses=4 seeds=2", NULL);
}
END_TEST
START_TEST(values_oware_gumbel) { values_are_exact("oware", NULL, "gumbel=1 gumbel_m=4"); }
END_TEST

/* ---- The next selection, predicted by the formula ------------------------------------------
 * From the tree as it stands, the documented PUCT rule (docs/SEARCH.md)
 * says which child each node on the way down picks: Q of a visited child
 * for the node's mover, first-play urgency Q(node) - fpu sqrt(visited
 * prior mass) for the others, Q(node) taken for the node's mover. One more
 * simulation must add one visit to exactly that path. */

static int predict_child(const mcts *m, const mcts_node_view *x, int chooser, const mcts_params *p,
                         int is_root) {
  float pq = x->visits ? x->w / (float)x->visits : 0.0f;
  if (chooser != x->mover) pq = -pq;
  float mass = 0;
  for (int k = 0; k < x->nchild; k++) {
    mcts_node_view c = node(m, x->first_child + k);
    if (c.visits) mass += c.prior;
  }
  float fpu = is_root && p->fpu_root >= 0 ? p->fpu_root : p->fpu_reduction;
  float cp = p->c_puct;
  if (p->c_puct_base > 0) cp += logf((1.0f + (float)x->visits + p->c_puct_base) / p->c_puct_base);
  float sq = cp * sqrtf((float)(x->visits ? x->visits : 1));
  int best = -1;
  float best_score = -INFINITY;
  for (int k = 0; k < x->nchild; k++) {
    mcts_node_view c = node(m, x->first_child + k);
    if (c.proof == MCTS_PROVEN_WIN) return k;
    float q = c.proof    ? (c.proof == MCTS_PROVEN_LOSS ? -1.0f : 0.0f)
              : c.visits ? c.w / (float)c.visits
                         : pq - fpu * sqrtf(mass);
    float score = q + sq * c.prior / (1.0f + (float)c.visits);
    if (score > best_score) {
      best_score = score;
      best = k;
    }
  }
  return best;
}

static int warm_sims = 30; /* simulations before the predictions start */

static void selection_follows_formula(const char *game_name, const char *settings,
                                      const char *search) {
  configure_game(game_name, settings);
  game_hist *h[6];
  for (int i = 0; i < 6; i++) h[i] = malloc(sizeof *h[i]);
  game_pos root[6];
  int n = roots(root, h, 6, 3);
  int movers[2] = {0, 0};
  static int before[200000];
  for (int i = 0; i < n; i++) {
    mcts *m = make_search(search, 9);
    const mcts_params *p = mcts_get_params(m);
    set_root(m, &root[i], h[i]);
    run(m, warm_sims);
    movers[root[i].mover]++;
    for (int step = 0; step < (int)(200 * test_scale()) + 20; step++) {
      int path[GAME_PATH_MAX], len = 0, x = 0, chooser = root[i].mover;
      mcts_node_view v = node(m, 0);
      path[len++] = 0;
      while (v.first_child && !v.terminal && len < GAME_PATH_MAX) {
        int k = predict_child(m, &v, chooser, p, x == 0);
        chooser = v.mover;
        x = v.first_child + k;
        path[len++] = x;
        v = node(m, x);
      }
      int used = 0;
      mcts_node_view t;
      while (used < 200000 && mcts_node_at(m, used, &t) == 0) before[used++] = t.visits;
      run(m, 1);
      int on = 0;
      for (int j = 0; j < used; j++) {
        int grew = node(m, j).visits - before[j];
        int want = 0;
        for (int l = 0; l < len; l++) want |= path[l] == j;
        on += want;
        CHECK(grew == want, "root %d step %d: node %d gained %d visits, the formula says %d", i,
              step, j, grew, want);
      }
      ck_assert_int_eq(on, len);
    }
    mcts_free(m);
  }
  ck_assert_int_gt(movers[0], 0);
  ck_assert_int_gt(movers[1], 0);
  for (int i = 0; i < 6; i++) free(h[i]);
}

START_TEST(puct_oware) { selection_follows_formula("oware", NULL, NULL); }
END_TEST
START_TEST(puct_fpu_root_and_growing_c) {
  selection_follows_formula("oware", NULL, "fpu_root=0 fpu_reduction=0.5 c_puct_base=20");
  /* From the root's first visits on, while some of its moves are still
   * unvisited: the root's own urgency, and none (-1: the reduction's, as
   * below the root). */
  warm_sims = 2;
  selection_follows_formula("oware", NULL, "fpu_root=0.9 fpu_reduction=0.2");
  selection_follows_formula("oware", NULL, "fpu_root=-1 fpu_reduction=0.5");
  warm_sims = 30;
}
END_TEST
START_TEST(puct_extra_turns) { selection_follows_formula("bao-kenya", NULL, "fpu_reduction=0.4"); }
END_TEST
START_TEST(puct_passes) { selection_follows_formula("namnam", NULL, NULL); }
END_TEST

/* ---- Gumbel's improved policy from completed Q ------------------------------------------
 * softmax(log prior + sigma(completed Q)), with completed Q the mean value
 * of each visited action for the root's mover and, for the others, v_mix =
 * (v + sum N sum(p q) / sum p) / (1 + sum N) over the visited ones; sigma
 * = (c_visit + max N) c_scale (q - min q) / max(max q - min q, q_span). */

static void improved_policy_matches(const char *game_name, const char *search) {
  configure_game(game_name, NULL);
  game_hist *h[6];
  for (int i = 0; i < 6; i++) h[i] = malloc(sizeof *h[i]);
  game_pos root[6];
  int n = roots(root, h, 6, 21);
  int movers[2] = {0, 0}, with_unvisited = 0;
  for (int i = 0; i < n; i++) {
    for (int sims = 2; sims <= 64; sims *= 2) {
      mcts *m = make_search(search, 4);
      const mcts_params *p = mcts_get_params(m);
      set_root(m, &root[i], h[i]);
      run(m, sims);
      mcts_node_view r = node(m, 0);
      double sum_n = 0, sum_pq = 0, sum_p = 0;
      int max_n = 0, unvisited = 0;
      double q[GAME_MAX_ACTIONS];
      for (int k = 0; k < r.nchild; k++) {
        mcts_node_view c = node(m, r.first_child + k);
        if (c.visits > max_n) max_n = c.visits;
        if (!c.visits) {
          unvisited++;
          continue;
        }
        q[k] = c.w / c.visits;
        sum_n += c.visits;
        sum_pq += c.prior * q[k];
        sum_p += c.prior;
      }
      with_unvisited += unvisited > 0;
      double v_mix = sum_p > 0 ? (r.v + sum_n * sum_pq / sum_p) / (1 + sum_n) : r.v;
      double lo = INFINITY, hi = -INFINITY;
      for (int k = 0; k < r.nchild; k++) {
        if (!node(m, r.first_child + k).visits) q[k] = v_mix;
        lo = fmin(lo, q[k]);
        hi = fmax(hi, q[k]);
      }
      double span = fmax(fmax(hi - lo, p->gumbel_q_span), 1e-8);
      double z[GAME_MAX_ACTIONS], zmax = -INFINITY, zs = 0;
      for (int k = 0; k < r.nchild; k++) {
        mcts_node_view c = node(m, r.first_child + k);
        double sigma = (p->gumbel_c_visit + max_n) * p->gumbel_c_scale * (q[k] - lo) / span;
        z[k] = log(fmax(c.prior, 1e-30)) + sigma;
        zmax = fmax(zmax, z[k]);
      }
      for (int k = 0; k < r.nchild; k++) zs += (z[k] = exp(z[k] - zmax));
      float pi[GAME_MAX_ACTIONS];
      mcts_improved_policy(m, pi);
      for (int k = 0; k < r.nchild; k++) {
        int a = node(m, r.first_child + k).action;
        ck_assert_msg(fabs(pi[a] - z[k] / zs) < 1e-4, "root %d sims %d action %d: %g, want %g", i,
                      sims, a, pi[a], z[k] / zs);
      }
      movers[root[i].mover]++;
      mcts_free(m);
    }
  }
  ck_assert_int_gt(movers[0], 0);
  ck_assert_int_gt(movers[1], 0);
  ck_assert_int_gt(with_unvisited, 0);
  for (int i = 0; i < 6; i++) free(h[i]);
}

START_TEST(improved_policy_oware) {
  improved_policy_matches("oware", "gumbel=1 gumbel_m=4 gumbel_c_scale=0.1");
}
END_TEST
START_TEST(improved_policy_extra_turns) {
  improved_policy_matches("bao-kenya", "gumbel=1 gumbel_m=4 gumbel_c_scale=1");
}
END_TEST
/* A decided game: South wins from everywhere, by values within 0.01 of a
 * win; uniform priors. */
static int decided_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                            float *policy, float *value) {
  (void)ctx;
  for (int i = 0; i < n; i++) {
    for (int a = 0; a < g->n_actions; a++) policy[(size_t)i * (size_t)g->n_actions + a] = 1;
    float v = 0.99f - 0.01f * (float)(enc_hash(g, pos[i]) % 1000) / 1000.0f;
    value[i] = pos[i]->mover == GAME_SOUTH ? v : -v;
  }
  return 0;
}

static float largest_improved_prob(float q_span) {
  configure_game("oware", NULL);
  mcts_params p = mcts_defaults();
  p.gumbel = 1;
  p.gumbel_m = 6;
  p.gumbel_c_scale = 0.1f;
  p.gumbel_q_span = q_span;
  p.solver = 0;
  char err[256];
  mcts_eval ev = {decided_evaluate, NULL, 0};
  mcts *m = mcts_create(&G, &p, &ev, 3, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  game_pos root;
  game_start(&G, &root);
  set_root(m, &root, NULL);
  run(m, 100);
  float pi[GAME_MAX_ACTIONS], top = 0;
  mcts_improved_policy(m, pi);
  for (int a = 0; a < G.n_actions; a++) top = fmaxf(top, pi[a]);
  mcts_free(m);
  return top;
}

/* Values that differ by noise alone: min-max rescaling makes a sharp
 * target of them, a span floor of the value range leaves the prior. */
START_TEST(improved_policy_decided_position) {
  ck_assert_float_gt(largest_improved_prob(0), 2.0f / 6);
  ck_assert_float_lt(largest_improved_prob(2), 1.0f / 6 + 0.01f);
}
END_TEST

START_TEST(improved_policy_span_floor) {
  /* The hash values spread over [-1, 1]: spans below and above the floor. */
  improved_policy_matches("oware", "gumbel=1 gumbel_m=4 gumbel_c_scale=1 gumbel_q_span=0.5");
  improved_policy_matches("bao-kenya", "gumbel=1 gumbel_m=4 gumbel_q_span=2");
}
END_TEST

/* ---- Mirrored positions ---------------------------------------------------------------
 * A position and its mirror image (the rows swapped, the other side to
 * move) are the same game for the mover. With an evaluator that sees the
 * position from the mover's side and the same random stream, the searches
 * must visit the mover-relative actions identically: any rule of the
 * search that treats one side differently breaks this. */

/* p set up again through setboard (clocks at 0, as the mirror's are), or
 * its mirror image. */
static game_pos mirror(const game_pos *p, int row, int flip) {
  char tokens[512], text[600];
  ck_assert_int_eq(G.rules->board_tokens(&G, p, tokens, sizeof tokens), 0);
  char *tok[64], *save = NULL;
  int n = 0;
  for (char *t = strtok_r(tokens, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
    tok[n++] = t;
  ck_assert_int_eq(n, 2 * row + 2); /* pits, then the two stores */
  size_t k = (size_t)snprintf(text, sizeof text, "%d", flip ? 1 - p->mover : p->mover);
  int shift = flip ? row : 0;
  for (int i = 0; i < 2 * row; i++)
    k += (size_t)snprintf(text + k, sizeof text - k, " %s", tok[(i + shift) % (2 * row)]);
  snprintf(text + k, sizeof text - k, " %s %s", tok[2 * row + flip], tok[2 * row + 1 - flip]);
  return pos(text);
}

static void mirrors_search_alike(const char *game_name, int row, const char *search) {
  configure_game(game_name, NULL);
  game_hist *h[6], *hm = malloc(sizeof *hm);
  for (int i = 0; i < 6; i++) h[i] = malloc(sizeof *h[i]);
  game_pos root[6];
  int n = roots(root, h, 6, 8);
  for (int i = 0; i < n; i++) {
    game_pos op = mirror(&root[i], row, 0), mp = mirror(&root[i], row, 1);
    game_hist_reset(h[i], &op); /* both searches start without history */
    game_hist_reset(hm, &mp);
    int va[GAME_MAX_ACTIONS], vb[GAME_MAX_ACTIONS];
    mcts *a = make_search(search, 31), *b = make_search(search, 31);
    set_root(a, &op, h[i]);
    set_root(b, &mp, hm);
    run(a, 300);
    run(b, 300);
    mcts_visits(a, va);
    mcts_visits(b, vb);
    for (int x = 0; x < G.n_actions; x++)
      ck_assert_msg(va[x] == vb[x], "root %d, action %d: %d visits, mirrored %d", i, x, va[x],
                    vb[x]);
    mcts_free(a);
    mcts_free(b);
  }
  free(hm);
  for (int i = 0; i < 6; i++) free(h[i]);
}

START_TEST(mirror_oware) { mirrors_search_alike("oware", 6, NULL); }
END_TEST
START_TEST(mirror_oware_gumbel) { mirrors_search_alike("oware", 6, "gumbel=1"); }
END_TEST
START_TEST(mirror_extra_turns) { mirrors_search_alike("bao-kenya", 8, "fpu_reduction=0.3"); }
END_TEST
START_TEST(mirror_laps) { mirrors_search_alike("bao-laps", 8, "gumbel=1 gumbel_m=8"); }
END_TEST

/* Gumbel's choice below the root follows the improved policy: at the
 * node after each first move, the one reply the values favour (worth 0.8
 * to the side that plays it, every other position 0) must take most of
 * the node's visits, however large its sigma(q) grows (the softmax is
 * taken from the largest logit down). */
typedef struct {
  game_pos target[GAME_MAX_ACTIONS];
  int n;
} favoured;

static int favoured_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                             float *policy, float *value) {
  const favoured *f = ctx;
  mcts_eval u = mcts_eval_uniform();
  if (u.evaluate(NULL, g, pos, n, policy, value) != 0) return -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < f->n; k++)
      if (!memcmp(pos[i]->pits, f->target[k].pits, sizeof pos[i]->pits) &&
          pos[i]->mover == f->target[k].mover && pos[i]->ply == f->target[k].ply)
        value[i] = -0.8f; /* for the mover, whose opponent chose it */
  return 0;
}

START_TEST(gumbel_inner_nodes_follow_the_values) {
  configure_game("oware", NULL);
  game_pos p;
  game_start(&G, &p);
  favoured f = {.n = 0};
  int reply[GAME_MAX_ACTIONS];
  for (int a = 0; a < G.n_actions; a++) {
    reply[a] = -1;
    if (!(game_legal(&G, &p) >> a & 1)) continue;
    game_pos q = p;
    game_play(&G, &q, a);
    game_moves legal = game_legal(&G, &q);
    reply[a] = 31 - __builtin_clz(legal); /* the last: never the first tried */
    game_play(&G, &q, reply[a]);
    f.target[f.n++] = q;
  }
  mcts_params prm = mcts_defaults();
  prm.gumbel = 1;
  mcts_eval ev = {favoured_evaluate, &f, 0};
  char err[256];
  mcts *m = mcts_create(&G, &prm, &ev, 3, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  /* A search for each first move: the node below it, kept by advancing
   * the tree, holds the visits to look at. */
  int checked = 0;
  for (int a = 0; a < G.n_actions; a++) {
    if (reply[a] < 0) continue;
    ck_assert_int_eq(mcts_set_root(m, &p, NULL, err, sizeof err), 0);
    ck_assert_int_eq(mcts_run(m, 600, err, sizeof err), 600);
    int visits[GAME_MAX_ACTIONS];
    mcts_visits(m, visits);
    if (visits[a] < 20) continue;
    checked++;
    ck_assert_int_eq(mcts_advance(m, a, err, sizeof err), 0);
    int below[GAME_MAX_ACTIONS], total = mcts_visits(m, below);
    ck_assert_msg(2 * below[reply[a]] > total, "after %d: reply %d has %d of %d visits", a,
                  reply[a], below[reply[a]], total);
  }
  ck_assert_int_ge(checked, 2);
  mcts_free(m);
}
END_TEST

/* Both evaluators that need no network write every row they are given,
 * whatever the buffers held: priors 1/k on the k legal actions and 0 on
 * the others, value 0 (uniform) or a mean outcome in [-1, 1] (rollouts). */
START_TEST(evaluators_fill_every_row) {
  const char *names[] = {"oware", "bao-kenya", "kujifunza"};
  enum { N = 5 };
  game_hist *h = malloc(sizeof *h);
  for (int gi = 0; gi < 3; gi++) {
    configure_game(names[gi], NULL);
    rng_t r;
    rng_seed(&r, 5, (uint64_t)gi);
    game_pos ps[N];
    const game_pos *pp[N];
    for (int i = 0; i < N; i++) {
      do {
        game_start(&G, &ps[i]);
        game_hist_reset(h, &ps[i]);
        random_moves(&ps[i], h, &r, 2 + 3 * i);
      } while (ps[i].status != GAME_ONGOING);
      pp[i] = &ps[i];
    }
    char err[256];
    mcts_rollout *ro = mcts_rollout_create(4, 9, err, sizeof err);
    ck_assert_ptr_nonnull(ro);
    mcts_eval evs[2] = {mcts_eval_uniform(), mcts_rollout_eval(ro)};
    size_t na = (size_t)G.n_actions;
    float *policy = malloc(N * na * sizeof *policy), value[N];
    for (int e = 0; e < 2; e++) {
      for (size_t k = 0; k < N * na; k++) policy[k] = NAN;
      for (int i = 0; i < N; i++) value[i] = NAN;
      ck_assert_int_eq(evs[e].evaluate(evs[e].ctx, &G, pp, N, policy, value), 0);
      for (int i = 0; i < N; i++) {
        game_moves legal = game_legal(&G, &ps[i]);
        float want = 1.0f / (float)game_count(legal);
        for (size_t a = 0; a < na; a++)
          ck_assert_msg(policy[i * na + a] == ((legal >> a & 1) ? want : 0.0f),
                        "%s evaluator %d, row %d, action %zu: %g", names[gi], e, i, a,
                        (double)policy[i * na + a]);
        if (e == 0)
          ck_assert_msg(value[i] == 0.0f, "%s row %d: value %g", names[gi], i, (double)value[i]);
        else
          ck_assert_msg(value[i] >= -1 && value[i] <= 1, "%s row %d: value %g", names[gi], i,
                        (double)value[i]);
      }
    }
    free(policy);
    mcts_rollout_free(ro);
  }
  free(h);
}
END_TEST

static Suite *values_suite(void) {
  Suite *s = suite_create("mcts_values");
  TCase *t = tcase_create("values");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, values_extra_turns);
  tcase_add_test(t, values_extra_turns_gumbel);
  tcase_add_test(t, values_passes_and_rounds);
  tcase_add_test(t, values_grand_slam_continue);
  tcase_add_test(t, values_oware_gumbel);
  tcase_add_test(t, puct_oware);
  tcase_add_test(t, puct_fpu_root_and_growing_c);
  tcase_add_test(t, puct_extra_turns);
  tcase_add_test(t, puct_passes);
  tcase_add_test(t, improved_policy_oware);
  tcase_add_test(t, improved_policy_extra_turns);
  tcase_add_test(t, improved_policy_span_floor);
  tcase_add_test(t, improved_policy_decided_position);
  tcase_add_test(t, mirror_oware);
  tcase_add_test(t, mirror_oware_gumbel);
  tcase_add_test(t, mirror_extra_turns);
  tcase_add_test(t, mirror_laps);
  tcase_add_test(t, evaluators_fill_every_row);
  tcase_add_test(t, gumbel_inner_nodes_follow_the_values);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(values_suite)

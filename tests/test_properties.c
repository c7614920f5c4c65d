/* Properties over many cases that no single example pins down: a search
 * that keeps its tree across moves holds a fresh search's invariants; the
 * move played with Gumbel noise follows the Gumbel sample; alpha-beta's
 * transposition table keeps win distances exact across searches; protocol
 * `undo` leaves the game a replay of the remaining moves would. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "protocol/protocol.h"
#include "search/alphabeta.h"
#include "search/mcts.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

/* ---- An evaluator whose priors and values depend on the position ----------------
 * Priors softmax(logits) and a value in [-0.9, 0.9], both drawn from the
 * position's hash: values that differ between positions make a sign error
 * visible, priors that differ make a stale prior visible. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static void hashed_policy(const game *g, const game_pos *p, float *policy, float *value) {
  game_moves legal = game_legal(g, p);
  double sum = 0;
  for (int a = 0; a < g->n_actions; a++) {
    policy[a] = 0;
    if (legal >> a & 1) {
      double u = (double)(mix64(p->hash * 31 + (uint64_t)a + 1) >> 11) / 9007199254740992.0;
      policy[a] = (float)exp(3.0 * u);
      sum += policy[a];
    }
  }
  for (int a = 0; a < g->n_actions; a++) policy[a] = (float)(policy[a] / sum);
  *value = (float)(1.8 * (double)(mix64(p->hash ^ 0x5eed) >> 11) / 9007199254740992.0 - 0.9);
}

static int hashed_eval(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                       float *value) {
  (void)ctx;
  for (int i = 0; i < n; i++)
    hashed_policy(g, pos[i], policy + (size_t)i * g->n_actions, value + i);
  return 0;
}

static const mcts_eval HASHED = {hashed_eval, NULL, 0};

/* ---- (a) Tree reuse ------------------------------------------------------------------
 * Every expanded node of a tree, kept or fresh, holds the backup's
 * invariants: its visits are one (its own evaluation) plus its children's,
 * and its value sum for its own mover is its evaluation plus its children's
 * sums (each kept for its chooser, which is this node's mover). The root
 * keeps its sum for its own mover. */
static void expect_tree_invariants(const mcts *m, const char *what) {
  mcts_node_view x, c;
  for (int i = 0; mcts_node_at(m, i, &x) == 0; i++) {
    if (!x.first_child || !x.visits || x.terminal) continue;
    int chooser = i ? -1 : x.mover;
    if (i) { /* the parent's mover: find the parent by scanning (trees are small) */
      mcts_node_view p;
      for (int j = 0; chooser < 0 && mcts_node_at(m, j, &p) == 0; j++)
        if (p.first_child && i >= p.first_child && i < p.first_child + p.nchild) chooser = p.mover;
    }
    int n = 1;
    double w = x.v;
    for (int k = 0; k < x.nchild; k++) {
      ck_assert_int_eq(mcts_node_at(m, x.first_child + k, &c), 0);
      n += c.visits;
      w += c.w;
    }
    double own = chooser == x.mover ? x.w : -x.w;
    ck_assert_msg(x.visits == n, "%s: node %d has %d visits, its children and itself %d", what, i,
                  x.visits, n);
    ck_assert_msg(fabs(own - w) < 1e-3 * (1 + x.visits),
                  "%s: node %d's value sum for its mover is %.4f, its evaluation and its "
                  "children's %.4f",
                  what, i, own, w);
  }
}

/* The clean priors of the root's children are the evaluator's, and the
 * noised ones mix in noise once: each keeps at least (1 - frac) of its clean
 * prior and they sum to 1. */
static void expect_root_priors(const mcts *m, const game_pos *p, float frac, const char *what) {
  int action[GAME_MAX_ACTIONS], visits[GAME_MAX_ACTIONS], proof[GAME_MAX_ACTIONS];
  float prior[GAME_MAX_ACTIONS], value[GAME_MAX_ACTIONS], want[GAME_MAX_ACTIONS], v;
  hashed_policy(&G, p, want, &v);
  int n = mcts_root_children(m, action, visits, prior, value, proof);
  mcts_node_view root, c;
  ck_assert_int_eq(mcts_node_at(m, 0, &root), 0);
  ck_assert_int_eq(root.nchild, n);
  double sum = 0;
  for (int k = 0; k < n; k++) {
    ck_assert_msg(fabsf(prior[k] - want[action[k]]) < 1e-5f,
                  "%s: action %d's clean prior is %g, the evaluator's %g", what, action[k],
                  prior[k], want[action[k]]);
    ck_assert_int_eq(mcts_node_at(m, root.first_child + k, &c), 0);
    ck_assert_msg(c.prior >= (1 - frac) * prior[k] - 1e-5f,
                  "%s: action %d's noised prior %g is below (1 - %g) x its clean prior %g: "
                  "noise applied twice",
                  what, action[k], c.prior, frac, prior[k]);
    sum += c.prior;
  }
  ck_assert_msg(fabs(sum - 1) < 1e-4, "%s: the root's priors sum to %g", what, sum);
}

/* The most visited child of node x that was reached and is not the end of
 * the game: its index, or -1. */
static int visited_child(const mcts *m, int x) {
  mcts_node_view nx, c;
  ck_assert_int_eq(mcts_node_at(m, x, &nx), 0);
  int best = -1, most = 0;
  for (int k = 0; nx.first_child && k < nx.nchild; k++) {
    mcts_node_at(m, nx.first_child + k, &c);
    if (c.visits > most && !c.terminal && c.first_child) best = nx.first_child + k, most = c.visits;
  }
  return best;
}

START_TEST(tree_reuse_keeps_fresh_root_invariants) {
  char err[256];
  configure_game("oware", NULL);
  mcts_params mp = mcts_defaults();
  mp.sims = 96;
  mp.reuse = 1;
  mp.noise = 1;
  mp.dirichlet_frac = 0.5f;
  mp.solver = 0;
  mp.node_cap = 1 << 14;
  int cases = (int)(200 * test_scale()) + 10, kept = 0;
  game_hist *h = malloc(sizeof *h), *h2 = malloc(sizeof *h2);
  for (int t = 0; t < cases; t++) {
    rng_t r;
    rng_seed(&r, (uint64_t)t, 11);
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    random_moves(&p, h, &r, (int)rng_below(&r, 40));
    if (p.status != GAME_ONGOING) continue;
    mcts *m = mcts_create(&G, &mp, &HASHED, (uint64_t)t, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    ck_assert_int_eq(mcts_set_root(m, &p, h, err, sizeof err), 0);
    ck_assert_int_eq(mcts_run(m, 0, err, sizeof err), mp.sims);
    expect_tree_invariants(m, "fresh");
    /* One move (mcts_advance) or a move pair (mcts_set_root two below). */
    int pair = t % 2, c = visited_child(m, 0), gc = c > 0 && pair ? visited_child(m, c) : -1;
    if (c < 0 || (pair && gc < 0)) {
      mcts_free(m);
      continue;
    }
    mcts_node_view root, vc, vg;
    mcts_node_at(m, 0, &root);
    mcts_node_at(m, c, &vc);
    game_pos q = p;
    game_hist_copy(h2, h);
    game_step(&G, &q, h2, vc.action);
    const mcts_node_view *k = &vc;
    int chooser = root.mover;
    if (pair) {
      mcts_node_at(m, gc, &vg);
      game_step(&G, &q, h2, vg.action);
      k = &vg;
      chooser = vc.mover;
    }
    if (q.status != GAME_ONGOING) {
      mcts_free(m);
      continue;
    }
    if (pair)
      ck_assert_int_eq(mcts_set_root(m, &q, h2, err, sizeof err), 0);
    else
      ck_assert_int_eq(mcts_advance(m, vc.action, err, sizeof err), 0);
    /* The kept subtree is the root, its values for the new mover. */
    mcts_info in;
    mcts_get_info(m, &in);
    ck_assert_int_eq(in.root_visits, k->visits);
    double want = (chooser == q.mover ? 1 : -1) * k->w / k->visits;
    ck_assert_msg(fabs(in.root_value - want) < 1e-4,
                  "case %d: the kept root's value %.4f for its mover, the old tree's %.4f", t,
                  in.root_value, want);
    expect_tree_invariants(m, "kept, before searching");
    ck_assert_int_eq(mcts_run(m, 0, err, sizeof err), mp.sims);
    mcts_get_info(m, &in);
    ck_assert_int_eq(in.reused, k->visits);
    ck_assert_int_eq(in.root_visits, k->visits + mp.sims);
    expect_tree_invariants(m, "kept, searched");
    expect_root_priors(m, &q, mp.dirichlet_frac, "kept, searched");
    /* A second search of the same root: noise is not compounded. */
    ck_assert_int_eq(mcts_run(m, 0, err, sizeof err), mp.sims);
    expect_root_priors(m, &q, mp.dirichlet_frac, "kept, searched twice");
    kept++;
    mcts_free(m);
  }
  ck_assert_msg(kept >= cases / 2, "only %d of %d cases kept a subtree", kept, cases);
  free(h);
  free(h2);
}
END_TEST

/* ---- (b) Gumbel root selection with noise ----------------------------------------------
 * With every value equal (the evaluator's value 0, positions far from the
 * end), sequential halving keeps the action of the largest g + logit among
 * the m sampled: by the Gumbel-max trick, the move played is distributed as
 * the prior. Over many seeds each action's frequency must lie within 4.5
 * standard errors of its prior (all of them together fail by chance about
 * once in 10^4 runs; a fixed seed list makes the test deterministic). */
static const float gumbel_prior[6] = {0.40f, 0.25f, 0.15f, 0.10f, 0.06f, 0.04f};

static int fixed_eval(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                      float *value) {
  (void)ctx;
  for (int i = 0; i < n; i++) {
    game_moves legal = game_legal(g, pos[i]);
    double sum = 0;
    for (int a = 0; a < g->n_actions; a++)
      sum += policy[(size_t)i * g->n_actions + a] = (legal >> a & 1) ? gumbel_prior[a % 6] : 0;
    for (int a = 0; a < g->n_actions; a++) policy[(size_t)i * g->n_actions + a] /= (float)sum;
    value[i] = 0;
  }
  return 0;
}

START_TEST(gumbel_noise_move_follows_the_sample) {
  char err[256];
  configure_game("oware", NULL);
  mcts_params mp = mcts_defaults();
  mp.gumbel = 1;
  mp.noise = 1;
  mp.solver = 0;
  const int ms[] = {2, 4, 6}, sims[] = {8, 32, 50};
  mcts_eval ev = {fixed_eval, NULL, 0};
  game_pos p;
  game_start(&G, &p);
  for (int v = 0; v < 3; v++) {
    mp.gumbel_m = ms[v];
    mp.sims = sims[v];
    int runs = (int)(3000 * test_scale()) + 300, count[6] = {0};
    mcts *m = mcts_create(&G, &mp, &ev, 1, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    for (int i = 0; i < runs; i++) {
      mcts_reseed(m, 1000003ULL * (uint64_t)i + (uint64_t)v);
      mcts_reset(m);
      ck_assert_int_eq(mcts_set_root(m, &p, NULL, err, sizeof err), 0);
      ck_assert_int_gt(mcts_run(m, 0, err, sizeof err), 0);
      int a = mcts_choose_action(m);
      ck_assert_int_eq(a, mcts_best_action(m));
      ck_assert(a >= 0 && a < 6);
      count[a]++;
    }
    for (int a = 0; a < 6; a++) {
      double f = (double)count[a] / runs, q = gumbel_prior[a];
      double se = sqrt(q * (1 - q) / runs);
      ck_assert_msg(fabs(f - q) <= 4.5 * se,
                    "m=%d sims=%d: action %d played %.3f of %d times, its prior %.3f (4.5 "
                    "standard errors: %.3f)",
                    ms[v], sims[v], a, f, runs, q, 4.5 * se);
    }
    mcts_free(m);
  }
  /* Without noise the same search plays the prior's argmax every time. */
  mp.noise = 0;
  mp.gumbel_m = 4;
  mp.sims = 32;
  mcts *m = mcts_create(&G, &mp, &ev, 1, err, sizeof err);
  for (int i = 0; i < 20; i++) {
    mcts_reseed(m, (uint64_t)i);
    mcts_reset(m);
    mcts_set_root(m, &p, NULL, err, sizeof err);
    mcts_run(m, 0, err, sizeof err);
    ck_assert_int_eq(mcts_choose_action(m), 0);
  }
  mcts_free(m);
}
END_TEST

/* ---- (c) Alpha-beta win distances through the table --------------------------------------
 * Along random endgames, one search keeps its table from each position to
 * the next (so a win stored at one distance from one root is read at
 * another from the next), another has no table. Wherever both searches
 * reach the end of every line, they must return the same score: the exact
 * win distance. Oware endgames repeat positions along different orders of
 * moves, so the table is hit. */
START_TEST(alphabeta_table_keeps_win_distances) {
  char err[256];
  configure_game("oware", NULL);
  ab_params pt = ab_defaults(), pn;
  pt.depth = 12;
  pt.tt_mb = 4;
  pn = pt;
  pn.tt_mb = 0;
  ab_search *st = ab_create(&G, &pt, err, sizeof err), *sn = ab_create(&G, &pn, err, sizeof err);
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(sn);
  game_hist *h = malloc(sizeof *h);
  int games = (int)(60 * test_scale()) + 6, compared = 0, wins = 0;
  for (int t = 0; t < games; t++) {
    rng_t r;
    rng_seed(&r, (uint64_t)t, 23);
    /* An endgame: 4 to 6 seeds on the board, the stores close to the
     * target (25 of 48). */
    char tokens[256];
    int pits[12] = {0}, seeds = 4 + (int)rng_below(&r, 3), s0 = 20 + (int)rng_below(&r, 4);
    for (int i = 0; i < seeds; i++) pits[rng_below(&r, 12)]++;
    int len = snprintf(tokens, sizeof tokens, "%d", (int)rng_below(&r, 2));
    for (int i = 0; i < 12; i++)
      len += snprintf(tokens + len, sizeof tokens - (size_t)len, " %d", pits[i]);
    snprintf(tokens + len, sizeof tokens - (size_t)len, " %d %d", s0, 48 - seeds - s0);
    game_pos p = pos(tokens);
    if (p.status != GAME_ONGOING) continue;
    game_hist_reset(h, &p);
    ab_clear(st);
    for (int ply = 0; p.status == GAME_ONGOING && ply < 16; ply++) {
      ab_result a, b;
      ck_assert_int_eq(ab_run(st, &p, h, &a, err, sizeof err), 0);
      ck_assert_int_eq(ab_run(sn, &p, h, &b, err, sizeof err), 0);
      if (a.exact && b.exact) {
        compared++;
        wins += abs(b.score) > AB_WIN / 2;
        ck_assert_msg(a.score == b.score,
                      "game %d ply %d: with the table %d, without %d (win distances %d, %d)", t,
                      ply, a.score, b.score, abs(a.score) > AB_WIN / 2 ? AB_WIN - abs(a.score) : 0,
                      abs(b.score) > AB_WIN / 2 ? AB_WIN - abs(b.score) : 0);
      }
      /* The played move: the table's best, so the next root sits under the
       * lines the table holds. */
      game_step(&G, &p, h, a.best);
    }
  }
  /* Enough wins that the table's conversion was exercised: 20 at full
   * scale, 5 when the sanitizer runs scale the games down. */
  int need = games >= 60 ? 20 : 5;
  ck_assert_msg(wins >= compared / 4 && wins >= need, "only %d of %d exact searches were wins",
                wins, compared);
  free(h);
  ab_free(st);
  ab_free(sn);
}
END_TEST

/* ---- (d) Protocol undo ------------------------------------------------------------------
 * Random games with random undos against the remaining moves replayed from
 * the start (`moves`): the same state now, and the same states along one
 * random continuation to the end of the game, which would differ if undo
 * left the repetition history or the ply and no-capture clocks behind.
 * Small clocks (max_plies, nocap_limit) make them matter within a game. */
static void ask(proto *s, const char *cmd, char *out) {
  proto_handle(s, cmd, out, PROTO_MAX_RESPONSE);
  ck_assert_msg(out[0] == '=', "%s: %s", cmd, out);
}

/* The legal actions in a `state` response ("M PITS.. STORES LEGAL STATUS"). */
static int legal_of(const char *state, int *acts) {
  char buf[PROTO_MAX_RESPONSE], *tok[64], *save = NULL;
  snprintf(buf, sizeof buf, "%s", state + 2);
  int n = 0, k = 0;
  for (char *t = strtok_r(buf, " \n", &save); t && n < 64; t = strtok_r(NULL, " \n", &save))
    tok[n++] = t;
  ck_assert_int_ge(n, 2);
  const char *legal = tok[n - 1];
  if (!strcmp(legal, "ongoing"))
    legal = tok[n - 2];
  else
    for (int i = 0; i < n; i++)
      if (!strcmp(tok[i], "over")) legal = tok[i - 1];
  if (!strcmp(legal, "-")) return 0;
  for (const char *c = legal; *c;) {
    acts[k++] = atoi(c);
    c = strchr(c, ',');
    if (!c) break;
    c++;
  }
  return k;
}

START_TEST(undo_equals_replay) {
  static const char *games[] = {
      "game oware repetition=1 nocap_limit=12 max_plies=60",
      "game oware repetition=1 max_plies=40",
      "game namnam",
      "game bao_kenya",
  };
  char out[PROTO_MAX_RESPONSE], cmd[PROTO_MAX_LINE], sa[PROTO_MAX_RESPONSE], sb[PROTO_MAX_RESPONSE];
  int cases = (int)(300 * test_scale()) + 20;
  for (int t = 0; t < cases; t++) {
    const char *gcmd = games[t % 4];
    proto *a = proto_create(1), *b = proto_create(1);
    proto_handle(a, gcmd, out, sizeof out);
    if (out[0] != '=') { /* a game this build does not have */
      proto_free(a);
      proto_free(b);
      continue;
    }
    ask(b, gcmd, out);
    rng_t r;
    rng_seed(&r, (uint64_t)t, 41);
    int moves[1024], n = 0, acts[64];
    ask(a, "state", sa);
    for (int step = 0; step < 200; step++) {
      int k = legal_of(sa, acts);
      if (n > 0 && (k == 0 || rng_below(&r, 4) == 0)) {
        ask(a, "undo", sa);
        n--;
        continue;
      }
      if (k == 0) break;
      moves[n++] = acts[rng_below(&r, (uint32_t)k)];
      snprintf(cmd, sizeof cmd, "play %d", moves[n - 1]);
      ask(a, cmd, sa);
    }
    int len = snprintf(cmd, sizeof cmd, "moves");
    for (int i = 0; i < n; i++)
      len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %d", moves[i]);
    if (n > 0) ask(b, cmd, out);
    ask(a, "state", sa);
    ask(b, "state", sb);
    ck_assert_msg(!strcmp(sa, sb), "case %d (%s), after %d moves: undo gives %s, the replay %s", t,
                  gcmd, n, sa, sb);
    for (int step = 0; step < 400; step++) {
      int k = legal_of(sa, acts);
      if (k == 0) break;
      snprintf(cmd, sizeof cmd, "play %d", acts[rng_below(&r, (uint32_t)k)]);
      ask(a, cmd, sa);
      ask(b, cmd, sb);
      ck_assert_msg(!strcmp(sa, sb), "case %d (%s), %d plies on: undo gives %s, the replay %s", t,
                    gcmd, step + 1, sa, sb);
    }
    proto_free(a);
    proto_free(b);
  }
}
END_TEST

static Suite *properties_suite(void) {
  Suite *s = suite_create("properties");
  const struct {
    const char *name;
    const TTest *test;
  } cases[] = {{"reuse", tree_reuse_keeps_fresh_root_invariants},
               {"gumbel", gumbel_noise_move_follows_the_sample},
               {"alphabeta", alphabeta_table_keeps_win_distances},
               {"undo", undo_equals_replay}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    TCase *t = tcase_create(cases[i].name);
    tcase_set_timeout(t, 300);
    tcase_add_test(t, cases[i].test);
    suite_add_tcase(s, t);
  }
  return s;
}

TEST_MAIN(properties_suite)

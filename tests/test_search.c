/* Search: repetition along paths, tactics with the uniform and rollout
 * evaluators, proven values against plain minimax (also with extra turns),
 * arena exhaustion, subtree reuse, root noise and temperature, Gumbel
 * halving, no allocation per simulation, and the parameter table. The
 * batched driver has test_mcts_batch.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/kv.h"
#include "game/game.h"
#include "search/mcts.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

/* ---- Allocation counter ----------------------------------------------------------
 * The test binary interposes malloc and friends to count calls (glibc's
 * mallinfo misses blocks recycled through its per-thread cache). The
 * sanitizers bring their own allocator, so under them nothing is counted. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define COUNT_ALLOCS 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static _Atomic long n_allocs;
void *malloc(size_t n) {
  n_allocs++;
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  n_allocs++;
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  n_allocs++;
  return __libc_realloc(p, n);
}
#else
#define COUNT_ALLOCS 0
static long n_allocs;
#endif
/* Read through a barrier: the compiler assumes malloc touches no globals. */
__attribute__((noinline)) static long alloc_count(void) {
  __asm__ volatile("" ::: "memory");
  return n_allocs;
}

/* ---- Plain minimax: exact outcome for the mover, or 2 when a line is
 * longer than `depth` plies. Follows game_step's repetition rule with its
 * own copy of the history. Extra turns: no negation when the mover stays. */
/* One history per depth, made once (16 KiB each). */
#define MM_DEPTH 64
static game_hist *hstack[MM_DEPTH + 1];

static game_hist *hist_at(int d) {
  if (!hstack[d]) hstack[d] = malloc(sizeof(game_hist));
  return hstack[d];
}

static int minimax_at(const game_pos *p, const game_hist *h, int depth, int level, long *budget) {
  if (depth == 0 || level >= MM_DEPTH || --*budget < 0) return 2;
  int best = -2, unknown = 0;
  game_hist *hc = hist_at(level + 1);
  for (game_moves m = game_legal(&G, p); m; m &= m - 1) {
    game_pos q = *p;
    game_hist_copy(hc, h);
    game_step(&G, &q, hc, __builtin_ctz(m));
    int v;
    if (q.status != GAME_ONGOING) {
      v = game_outcome(&q, p->mover);
    } else {
      int r = minimax_at(&q, hc, depth - 1, level + 1, budget);
      v = r == 2 ? 2 : q.mover == p->mover ? r : -r;
    }
    if (v == 2) {
      unknown = 1;
      continue;
    }
    if (v > best) best = v;
    if (best == 1) return 1;
  }
  return unknown ? 2 : best;
}

/* h is copied first: callers may pass any history. */
static int minimax(const game_pos *p, const game_hist *h, int depth, long *budget) {
  game_hist *h0 = hist_at(0);
  if (h != h0) game_hist_copy(h0, h);
  return minimax_at(p, h0, depth, 0, budget);
}

static int minimax_move(const game_pos *p, int action, int depth) {
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, p);
  game_pos q = *p;
  game_step(&G, &q, h, action);
  long budget = 5000000;
  int v;
  if (q.status != GAME_ONGOING)
    v = game_outcome(&q, p->mover);
  else {
    int r = minimax(&q, h, depth - 1, &budget);
    v = r == 2 ? 2 : q.mover == p->mover ? r : -r;
  }
  free(h);
  return v;
}

static int search_best(const game_pos *p, mcts_params prm, mcts_eval ev, int sims,
                       mcts_info *info) {
  char err[256];
  mcts *m = mcts_create(&G, &prm, &ev, 7, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  ck_assert_int_eq(mcts_set_root(m, p, NULL, err, sizeof err), 0);
  ck_assert_int_ge(mcts_run(m, sims, err, sizeof err), 1);
  int a = mcts_best_action(m);
  if (info) mcts_get_info(m, info);
  mcts_free(m);
  return a;
}

/* ---- Repetition along a path equals game_step -------------------------------- */

START_TEST(path_step_matches_game_step) {
  const char *presets[] = {"oware", "warri", "oware"};
  const char *settings[] = {"houses=3 seeds=2", "houses=4 seeds=2",
                            "repetition=3 houses=3 seeds=2"};
  int games = (int)(400 * test_scale()) + 10, endings = 0;
  game_hist *h = malloc(sizeof *h), *root = malloc(sizeof *root);
  game_path *sp = malloc(sizeof *sp);
  for (int v = 0; v < 3; v++) {
    configure_game(presets[v], settings[v]);
    rng_t r;
    rng_seed(&r, 11, (uint64_t)v);
    for (int gno = 0; gno < games; gno++) {
      game_pos p, q;
      game_start(&G, &p);
      game_hist_reset(h, &p);
      /* A random prefix becomes the root history. */
      random_moves(&p, h, &r, (int)rng_below(&r, 12));
      if (p.status != GAME_ONGOING) continue;
      game_hist_copy(root, h);
      q = p;
      game_path_reset(sp, root);
      while (p.status == GAME_ONGOING) {
        int a = game_random_action(&r, game_legal(&G, &p));
        int f1 = game_step(&G, &p, h, a);
        int f2 = game_path_step(&G, &q, sp, a);
        CHECK(f1 == f2 && game_pos_equal(&p, &q), "path step differs from game_step");
      }
      endings += p.end_reason == GAME_END_REPETITION;
    }
  }
  ck_assert_int_gt(endings, 0); /* the repetition rule was exercised */
  free(h);
  free(root);
  free(sp);
}
END_TEST

/* ---- Tactics ---------------------------------------------------------------------- */

typedef struct {
  const char *name, *tokens;
  int answer, depth; /* the only winning / non-losing move, proven at depth */
  int losing;        /* 1: every other move loses at `depth` */
} tactic;

static const tactic tactics[] = {
    /* South's pit 5 drops its seed on North's single seed: 2 captured, 25. */
    {"capture to 25", "0 2 1 1 1 0 1 1 0 0 0 1 0 23 17", 5, 1, 0},
    /* North threatens a capture that reaches 25 after every South move but
     * pit 0, which takes away the seeds the capture needs. */
    {"avoid the losing capture", "0 2 1 0 3 1 1 0 0 0 1 2 0 15 22", 0, 2, 1},
    {"avoid the losing capture 2", "0 2 1 1 0 0 0 0 1 0 1 0 1 17 24", 0, 2, 1},
    /* Pit 0 keeps every South seed out of reach of North's row: after
     * North's forced move into South's row, South cannot feed and takes
     * the board by famine. */
    {"famine win", "0 1 0 1 0 1 0 0 0 0 0 0 1 22 22", 0, 3, 0},
};

static void check_ground_truth(const tactic *t, const game_pos *p) {
  for (game_moves m = game_legal(&G, p); m; m &= m - 1) {
    int a = __builtin_ctz(m), v = minimax_move(p, a, t->depth);
    if (a == t->answer)
      ck_assert_msg(t->losing ? v != -1 : v == 1, "%s: move %d scores %d", t->name, a, v);
    else
      ck_assert_msg(t->losing ? v == -1 : v != 1, "%s: move %d scores %d", t->name, a, v);
  }
}

START_TEST(tactics_uniform) {
  configure_game("oware", NULL);
  for (size_t i = 0; i < sizeof tactics / sizeof tactics[0]; i++) {
    const tactic *t = &tactics[i];
    game_pos p = pos(t->tokens);
    check_ground_truth(t, &p);
    mcts_params prm = mcts_defaults();
    mcts_info info;
    int a = search_best(&p, prm, mcts_eval_uniform(), 400, &info);
    ck_assert_msg(a == t->answer, "%s: uniform search chose %d, not %d", t->name, a, t->answer);
    if (!t->losing)
      ck_assert_msg(info.proof == MCTS_PROVEN_WIN, "%s: win not proven (%d)", t->name, info.proof);
  }
}
END_TEST

START_TEST(tactics_rollouts_no_solver) {
  configure_game("oware", NULL);
  for (size_t i = 0; i < sizeof tactics / sizeof tactics[0]; i++) {
    const tactic *t = &tactics[i];
    game_pos p = pos(t->tokens);
    char err[256];
    mcts_rollout *ro = mcts_rollout_create(4, 3, err, sizeof err);
    mcts_params prm = mcts_defaults();
    prm.solver = 0;
    prm.c_puct = 2.0f;
    mcts_info info;
    int a = search_best(&p, prm, mcts_rollout_eval(ro), 800, &info);
    ck_assert_msg(a == t->answer, "%s: rollout search chose %d, not %d", t->name, a, t->answer);
    ck_assert_int_eq(info.proof, MCTS_UNPROVEN); /* no solver: nothing proven at the root */
    mcts_rollout_free(ro);
  }
}
END_TEST

START_TEST(tactics_gumbel) {
  configure_game("oware", NULL);
  for (size_t i = 0; i < sizeof tactics / sizeof tactics[0]; i++) {
    const tactic *t = &tactics[i];
    game_pos p = pos(t->tokens);
    mcts_params prm = mcts_defaults();
    prm.gumbel = 1;
    prm.solver = 0; /* let sequential halving, not the solver, decide */
    int a = search_best(&p, prm, mcts_eval_uniform(), 200, NULL);
    ck_assert_msg(a == t->answer, "%s: Gumbel search chose %d, not %d", t->name, a, t->answer);
  }
}
END_TEST

/* ---- Proofs agree with minimax, with extra turns ------------------------------------ */

/* Random small positions; the search runs until the root is proven (or a
 * large budget ends), and any proof must equal the exhaustive result. */
static void proofs_agree(const char *preset, const char *settings, int want_extra_turns) {
  configure_game(preset, settings);
  rng_t r;
  rng_seed(&r, 5, 0);
  int checked = 0, extra = 0, tried = 0, n = (int)(30 * test_scale()) + 6;
  char err[256];
  mcts_params prm = mcts_defaults();
  prm.node_cap = 1 << 17;
  mcts_eval ev = mcts_eval_uniform();
  mcts *m = mcts_create(&G, &prm, &ev, 3, err, sizeof err);
  ck_assert_ptr_nonnull(m);
  game_hist *h = malloc(sizeof *h);
  for (int it = 0; it < 40 * n && checked < n; it++) {
    game_pos p;
    game_start(&G, &p);
    game_hist_reset(h, &p);
    int plies = 4 + (int)rng_below(&r, 30);
    for (int i = 0; i < plies && p.status == GAME_ONGOING; i++) {
      int mover = p.mover;
      game_step(&G, &p, h, game_random_action(&r, game_legal(&G, &p)));
      extra += p.status == GAME_ONGOING && p.mover == mover;
    }
    if (p.status != GAME_ONGOING) continue;
    game_hist_reset(h, &p); /* the root's history is the root alone */
    long budget = 200000;
    int exact = minimax(&p, h, 40, &budget);
    if (exact == 2) continue;
    tried++;
    mcts_reset(m);
    ck_assert_int_eq(mcts_set_root(m, &p, h, err, sizeof err), 0);
    mcts_run(m, 20000, err, sizeof err);
    mcts_info info;
    mcts_get_info(m, &info);
    if (info.proof == MCTS_UNPROVEN) continue;
    int got = info.proof == MCTS_PROVEN_WIN ? 1 : info.proof == MCTS_PROVEN_LOSS ? -1 : 0;
    ck_assert_msg(got == exact, "%s: proof %d, minimax %d", preset, got, exact);
    if (exact == 1) {
      /* The chosen move must itself win. */
      int a = mcts_best_action(m);
      game_pos q = p;
      game_hist *hc = malloc(sizeof *hc);
      game_hist_copy(hc, h);
      game_step(&G, &q, hc, a);
      int v = q.status != GAME_ONGOING ? game_outcome(&q, p.mover)
                                       : (budget = 200000, minimax(&q, hc, 40, &budget));
      if (q.status == GAME_ONGOING && q.mover != p.mover) v = -v;
      free(hc);
      ck_assert_msg(v == 1, "%s: best move %d does not win", preset, a);
    }
    checked++;
  }
  if (getenv("SOWZERO_TEST_VERBOSE"))
    fprintf(stderr, "%s: %d proven of %d solved\n", preset, checked, tried);
  ck_assert_msg(checked >= n / 2, "%s: only %d positions proven", preset, checked);
  if (want_extra_turns) ck_assert_msg(extra > 0, "no extra turn occurred");
  free(h);
  mcts_free(m);
}

START_TEST(proofs_match_minimax) { proofs_agree("oware", "houses=3 seeds=2", 0); }
END_TEST

START_TEST(proofs_match_minimax_extra_turns) {
  /* Warri: a grand slam captures and the mover plays again. */
  proofs_agree("warri", "houses=2 seeds=3", 1);
  /* Kenya: a sowing that ends in the store moves again. */
  proofs_agree("bao-kenya", "seeds=1 target=9", 1);
  /* Laps: relays, and a capture that ends the game early. */
  proofs_agree("bao-laps", "seeds=1 target=9", 0);
}
END_TEST

/* A forced win several moves deep is found and reported as proven. */
START_TEST(deep_forced_win_proven) {
  configure_game("oware", NULL);
  game_pos p = pos("0 1 1 1 1 1 2 1 2 0 0 0 1 18 19");
  ck_assert_int_eq(minimax_move(&p, 5, 5), 1);
  mcts_info info;
  int a = search_best(&p, mcts_defaults(), mcts_eval_uniform(), 100000, &info);
  ck_assert_int_eq(info.proof, MCTS_PROVEN_WIN);
  ck_assert_float_eq(info.root_value, 1.0f);
  ck_assert_int_eq(minimax_move(&p, a, 7), 1);
  ck_assert_int_lt((int)info.sims, 100000); /* stopped once proven */
}
END_TEST

/* ---- Arena exhaustion, reuse, noise, temperature -------------------------------------- */

START_TEST(arena_full_is_graceful) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params prm = mcts_defaults();
  prm.node_cap = 64;
  mcts_rollout *ro = mcts_rollout_create(1, 1, err, sizeof err);
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts *m = mcts_create(&G, &prm, &ev, 1, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  ck_assert_int_eq(mcts_set_root(m, &p, NULL, err, sizeof err), 0);
  ck_assert_int_eq(mcts_run(m, 3000, err, sizeof err), 3000);
  mcts_info info;
  mcts_get_info(m, &info);
  ck_assert_int_le(info.nodes, 64);
  ck_assert_uint_gt(info.arena_full, 0);
  ck_assert_int_eq(info.root_visits, 3000);
  int a = mcts_best_action(m);
  ck_assert(game_legal(&G, &p) >> a & 1);
  /* Re-rooting a full tree leaves room to search again. */
  ck_assert_int_eq(mcts_advance(m, a, err, sizeof err), 0);
  ck_assert_int_eq(mcts_run(m, 500, err, sizeof err), 500);
  mcts_free(m);
  mcts_rollout_free(ro);
}
END_TEST

START_TEST(subtree_reuse) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params prm = mcts_defaults();
  mcts_rollout *ro = mcts_rollout_create(1, 1, err, sizeof err);
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts *m = mcts_create(&G, &prm, &ev, 1, err, sizeof err);
  game_pos p;
  game_hist *h = malloc(sizeof *h);
  game_start(&G, &p);
  game_hist_reset(h, &p);
  ck_assert_int_eq(mcts_set_root(m, &p, h, err, sizeof err), 0);
  mcts_run(m, 2000, err, sizeof err);
  int a = mcts_best_action(m), visits[GAME_MAX_ACTIONS];
  mcts_visits(m, visits);
  int child_visits = visits[a];
  /* Advance: the child's visits become the root's. */
  ck_assert_int_eq(mcts_advance(m, a, err, sizeof err), 0);
  mcts_info info;
  mcts_get_info(m, &info);
  ck_assert_int_eq(info.root_visits, child_visits);
  /* The tree below is intact: the root's children hold all but one visit. */
  int total = mcts_visits(m, visits);
  ck_assert_int_eq(total, child_visits - 1);
  /* The root's value is now for the new mover: it agrees in sign with the
   * child's value seen from the old root, negated. */
  game_step(&G, &p, h, a);
  /* set_root on the same position keeps the tree; two plies down too. */
  ck_assert_int_eq(mcts_set_root(m, &p, h, err, sizeof err), 0);
  mcts_run(m, 1000, err, sizeof err);
  mcts_get_info(m, &info);
  ck_assert_int_eq(info.reused, child_visits);
  int b = mcts_best_action(m);
  mcts_visits(m, visits);
  int bv = visits[b];
  game_pos q = p;
  game_step(&G, &q, h, b);
  int c = __builtin_ctz(game_legal(&G, &q));
  game_step(&G, &q, h, c);
  ck_assert_int_eq(mcts_set_root(m, &q, h, err, sizeof err), 0);
  mcts_get_info(m, &info);
  ck_assert_int_gt(info.root_visits, 0);
  ck_assert_int_lt(info.root_visits, bv);
  /* The same position with another history drops the tree: the
   * repetition rule shaped it. */
  mcts_run(m, 200, err, sizeof err);
  ck_assert_int_eq(mcts_set_root(m, &q, NULL, err, sizeof err), 0);
  mcts_get_info(m, &info);
  ck_assert_int_eq(info.nodes, 1);
  /* An unrelated position drops the tree. */
  game_pos s;
  game_start(&G, &s);
  game_hist_reset(h, &s);
  ck_assert_int_eq(mcts_set_root(m, &s, h, err, sizeof err), 0);
  mcts_get_info(m, &info);
  ck_assert_int_eq(info.root_visits, 0);
  ck_assert_int_eq(info.nodes, 1);
  free(h);
  mcts_free(m);
  mcts_rollout_free(ro);
}
END_TEST

/* Reuse keeps search consistent: values at the re-rooted node match what
 * the old tree held for that child, seen by the right side. */
START_TEST(reroot_perspective) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params prm = mcts_defaults();
  mcts_rollout *ro = mcts_rollout_create(1, 2, err, sizeof err);
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts *m = mcts_create(&G, &prm, &ev, 1, err, sizeof err);
  game_pos p = pos("0 2 1 0 3 1 1 0 0 0 1 2 0 15 22");
  mcts_set_root(m, &p, NULL, err, sizeof err);
  mcts_run(m, 3000, err, sizeof err);
  int act[GAME_MAX_ACTIONS], vis[GAME_MAX_ACTIONS], proof[GAME_MAX_ACTIONS];
  float pri[GAME_MAX_ACTIONS], val[GAME_MAX_ACTIONS];
  int n = mcts_root_children(m, act, vis, pri, val, proof);
  int k = 1; /* a losing move: North wins next */
  while (k < n && act[k] == 0) k++;
  float v_old = val[k];
  ck_assert_int_eq(proof[k], MCTS_PROVEN_LOSS);
  ck_assert_int_eq(mcts_advance(m, act[k], err, sizeof err), 0);
  mcts_info info;
  mcts_get_info(m, &info);
  /* Now North to move: the same result is a proven win for North. */
  ck_assert_int_eq(info.proof, MCTS_PROVEN_WIN);
  ck_assert_float_eq(info.root_value, -v_old);
  /* North's winning move ends the game: the tree is dropped with the root. */
  ck_assert_int_gt(info.nodes, 1);
  ck_assert_int_eq(mcts_advance(m, mcts_best_action(m), err, sizeof err), 1);
  mcts_get_info(m, &info);
  ck_assert_int_eq(info.nodes, 1);
  ck_assert_int_eq(info.root_visits, 0);
  ck_assert_int_eq(info.proof, MCTS_UNPROVEN);
  ck_assert_int_eq(mcts_run(m, 10, err, sizeof err), -1);
  mcts_free(m);
  mcts_rollout_free(ro);
}
END_TEST

START_TEST(noise_and_temperature) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params prm = mcts_defaults();
  prm.noise = 1;
  prm.temp_plies = 30;
  prm.temperature = 1.0f;
  mcts_eval ev = mcts_eval_uniform();
  mcts *m = mcts_create(&G, &prm, &ev, 1, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  mcts_set_root(m, &p, NULL, err, sizeof err);
  mcts_run(m, 300, err, sizeof err);
  float prior[GAME_MAX_ACTIONS];
  int vis[GAME_MAX_ACTIONS];
  int n = mcts_root_children(m, NULL, vis, prior, NULL, NULL);
  ck_assert_int_eq(n, 6);
  for (int i = 0; i < n; i++) ck_assert_float_eq_tol(prior[i], 1.0f / 6, 1e-6); /* clean */
  /* Noise made the visits uneven although priors and values are flat. */
  int lo = vis[0], hi = vis[0];
  for (int i = 1; i < n; i++) {
    if (vis[i] < lo) lo = vis[i];
    if (vis[i] > hi) hi = vis[i];
  }
  ck_assert_int_gt(hi - lo, 2);
  /* Noise reaches a root of two moves too. */
  game_pos two = pos("0  1 1 0 0 0 0  4 4 4 4 4 4  11 11");
  ck_assert_int_eq(__builtin_popcount(game_legal(&G, &two)), 2);
  mcts *m2 = mcts_create(&G, &prm, &ev, 3, err, sizeof err);
  mcts_set_root(m2, &two, NULL, err, sizeof err);
  mcts_run(m2, 300, err, sizeof err);
  int v2[GAME_MAX_ACTIONS];
  mcts_root_children(m2, NULL, v2, NULL, NULL, NULL);
  ck_assert_msg(abs(v2[0] - v2[1]) > 2, "visits %d and %d: no noise", v2[0], v2[1]);
  mcts_free(m2);
  /* Temperature 1: choices follow the visit counts. */
  int counts[GAME_MAX_ACTIONS] = {0}, draws = 6000;
  for (int i = 0; i < draws; i++) counts[mcts_choose_action(m)]++;
  int total = 0;
  for (int i = 0; i < n; i++) total += vis[i];
  for (int i = 0; i < n; i++) {
    double expect = (double)vis[i] / total;
    ck_assert_msg(fabs((double)counts[i] / draws - expect) < 0.03, "action %d: %g vs %g", i,
                  (double)counts[i] / draws, expect);
  }
  /* Past temp_plies: always the most visited. */
  p.ply = 40;
  mcts_set_root(m, &p, NULL, err, sizeof err);
  mcts_run(m, 300, err, sizeof err);
  int best = mcts_best_action(m);
  for (int i = 0; i < 50; i++) ck_assert_int_eq(mcts_choose_action(m), best);
  mcts_free(m);
}
END_TEST

/* ---- Gumbel ---------------------------------------------------------------------------------- */

START_TEST(gumbel_halving_schedule) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params prm = mcts_defaults();
  prm.gumbel = 1;
  prm.gumbel_m = 4;
  prm.noise = 1;
  mcts_rollout *ro = mcts_rollout_create(1, 9, err, sizeof err);
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts *m = mcts_create(&G, &prm, &ev, 4, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  mcts_set_root(m, &p, NULL, err, sizeof err);
  ck_assert_int_eq(mcts_run(m, 201, err, sizeof err), 201);
  int vis[GAME_MAX_ACTIONS];
  int total = mcts_visits(m, vis);
  ck_assert_int_eq(total, 200); /* the first simulation expanded the root */
  /* m = 4 actions considered, two phases: 200 / (2 * 4) = 25 visits each,
   * then the best two share the rest (50 each). */
  int used = 0, sorted[GAME_MAX_ACTIONS];
  for (int a = 0; a < 6; a++)
    if (vis[a]) sorted[used++] = vis[a];
  ck_assert_int_eq(used, 4);
  for (int i = 0; i < used; i++)
    for (int j = i + 1; j < used; j++)
      if (sorted[j] > sorted[i]) {
        int t = sorted[i];
        sorted[i] = sorted[j];
        sorted[j] = t;
      }
  ck_assert_int_eq(sorted[0], 75);
  ck_assert_int_eq(sorted[1], 75);
  ck_assert_int_eq(sorted[2], 25);
  ck_assert_int_eq(sorted[3], 25);
  int best = mcts_best_action(m);
  ck_assert_int_eq(vis[best], 75);
  /* The improved policy is a distribution over legal actions that favours
   * the chosen action over any unvisited one. */
  float pi[GAME_MAX_ACTIONS], sum = 0;
  mcts_improved_policy(m, pi);
  for (int a = 0; a < 6; a++) {
    ck_assert(pi[a] >= 0);
    sum += pi[a];
  }
  ck_assert_float_eq_tol(sum, 1.0f, 1e-5);
  for (int a = 0; a < 6; a++)
    if (!vis[a]) ck_assert(pi[best] > pi[a]);
  float t[GAME_MAX_ACTIONS];
  mcts_target_policy(m, t);
  ck_assert_mem_eq(t, pi, 6 * sizeof(float));
  /* Other budgets n (after the root's expansion): n / 8 visits each in
   * the first phase, whatever n / 8 rounds away, the rest to the best
   * two. */
  static const int budgets[] = {207, 215, 230};
  for (int b = 0; b < 3; b++) {
    mcts_reset(m);
    mcts_set_root(m, &p, NULL, err, sizeof err);
    ck_assert_int_eq(mcts_run(m, budgets[b], err, sizeof err), budgets[b]);
    const int n = budgets[b] - 1, first = n / 8;
    ck_assert_int_eq(mcts_visits(m, vis), n);
    int lo[2] = {0, 0}, hi = 0, hi_sum = 0;
    for (int a = 0; a < 6; a++) {
      if (vis[a] == first && lo[0] < 2)
        lo[0]++;
      else if (vis[a] > first)
        hi++, hi_sum += vis[a];
      else
        lo[1] += vis[a];
    }
    ck_assert_msg(lo[0] == 2 && hi == 2 && lo[1] == 0 && hi_sum == n - 2 * first,
                  "%d simulations: visits %d %d %d %d %d %d", n, vis[0], vis[1], vis[2], vis[3],
                  vis[4], vis[5]);
  }
  mcts_free(m);
  mcts_rollout_free(ro);
}
END_TEST

/* ---- No allocation per simulation ------------------------------------------------------------ */

START_TEST(no_allocation_per_simulation) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params prm = mcts_defaults();
  prm.node_cap = 1 << 16;
  prm.cache_size = 4096;
  mcts_rollout *ro = mcts_rollout_create(1, 1, err, sizeof err);
  mcts_eval ev = mcts_rollout_eval(ro);
  mcts *m = mcts_create(&G, &prm, &ev, 1, err, sizeof err);
  mcts_batch *b = mcts_batch_create(&G, &prm, &ev, 4, 1, err, sizeof err);
  game_pos p;
  game_start(&G, &p);
  mcts_set_root(m, &p, NULL, err, sizeof err);
  for (int i = 0; i < 4; i++) mcts_set_root(mcts_batch_search(b, i), &p, NULL, err, sizeof err);
  /* No Check assertion inside the measured part: Check allocates. */
  int sims = (int)(20000 * test_scale()) + 500;
  long before = alloc_count();
  int r1 = mcts_run(m, sims, err, sizeof err);
  int a = mcts_choose_action(m);
  int r2 = mcts_advance(m, a, err, sizeof err);
  int r3 = mcts_run(m, sims / 2, err, sizeof err);
  int r4 = mcts_batch_run(b, NULL, sims / 4, err, sizeof err);
  long after = alloc_count();
  ck_assert_int_eq(r1, sims);
  ck_assert_int_eq(r2, 0);
  ck_assert_int_eq(r3, sims / 2);
  ck_assert_int_eq(r4, 0);
  ck_assert_msg(after == before, "the search made %ld allocations", after - before);
  /* The counter can fail: one allocation shows. */
  long base = alloc_count();
  char *volatile x = malloc(100);
  x[0] = 1;
  long one = alloc_count() - base;
  ck_assert_int_eq(one, COUNT_ALLOCS);
  free(x);
  mcts_batch_free(b);
  mcts_free(m);
  mcts_rollout_free(ro);
}
END_TEST

/* ---- Parameters ------------------------------------------------------------------------------ */

/* docs/SEARCH.md's table of the parameters is the code's: every key in
 * order, its default and the values it takes, as a refusal names them. */
START_TEST(params_table_is_the_documented_one) {
  FILE *f = fopen("docs/SEARCH.md", "r");
  ck_assert_ptr_nonnull(f);
  char line[1024];
  while (fgets(line, sizeof line, f) && strcmp(line, "| key | default | accepted | meaning |\n")) {}
  ck_assert_msg(fgets(line, sizeof line, f) != NULL, "no parameter table in docs/SEARCH.md");
  const kv_table *t = mcts_params_table();
  int k = 0;
  for (; fgets(line, sizeof line, f) && !strncmp(line, "| `", 3); k++) {
    char key[64], def[64], acc[128], want[128];
    ck_assert_msg(sscanf(line, "| `%63[^`]` | %63[^|]| %127[^|]|", key, def, acc) == 3, "%s", line);
    def[strlen(def) - 1] = acc[strlen(acc) - 1] = 0; /* the space before '|' */
    ck_assert_int_lt(k, t->n);
    ck_assert_str_eq(key, t->keys[k].name);
    ck_assert_msg(!strcmp(def, t->keys[k].def), "%s: the docs say %s, the code %s", key, def,
                  t->keys[k].def);
    kv_accepts(&t->keys[k], want, sizeof want);
    ck_assert_msg(!strcmp(acc, want), "%s: the docs accept %s, the code %s", key, acc, want);
  }
  fclose(f);
  ck_assert_int_eq(k, t->n);
}
END_TEST

START_TEST(params_by_name) {
  mcts_params p = mcts_defaults();
  char err[256];
  ck_assert_int_eq(mcts_params_set(&p, "c_puct", "2.5", err, sizeof err), 0);
  ck_assert_float_eq(p.c_puct, 2.5f);
  ck_assert_int_eq(mcts_params_set(&p, "sims", "77", err, sizeof err), 0);
  ck_assert_int_eq(p.sims, 77);
  ck_assert_int_eq(mcts_params_set(&p, "sims", "7.5", err, sizeof err), -1);
  ck_assert_int_eq(mcts_params_set(&p, "bogus", "1", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "bogus"));
  ck_assert_int_eq(mcts_params_set(&p, "gumbel", "2", err, sizeof err), -1);
  ck_assert_int_eq(mcts_params_set(&p, "dirichlet_frac", "x", err, sizeof err), -1);
  ck_assert_str_eq(err, "bad value 'x' for dirichlet_frac (a number 0..1)");
  ck_assert_int_eq(mcts_params_set(&p, "sims", "1e3", err, sizeof err), -1);
  ck_assert_str_eq(err, "bad value '1e3' for sims (an integer 1..100000000)");
  /* The defaults are the table's, and within its ranges. */
  mcts_params d = mcts_defaults(), t;
  memset(&t, 0, sizeof t);
  ck_assert_int_eq(kv_defaults(mcts_params_table(), &t, err, sizeof err), 0);
  ck_assert_mem_eq(&d, &t, sizeof d);
  ck_assert_int_eq(mcts_params_check(&d, err, sizeof err), 0);
  ck_assert_int_eq(d.sims, 800);
  ck_assert_float_eq(d.c_puct, 1.25f);
  ck_assert_int_eq(d.gumbel_m, 16);
  mcts_params r = mcts_rollout_defaults();
  ck_assert_int_eq(mcts_params_check(&r, err, sizeof err), 0);
  /* Values set by code meet the same ranges. */
  d.gumbel_m = GAME_MAX_ACTIONS + 1;
  ck_assert_int_eq(mcts_params_check(&d, err, sizeof err), -1);
  ck_assert_str_eq(err, "gumbel_m 33 is out of range (an integer 1..32)");
  d = mcts_defaults();
  d.node_cap = 10;
  configure_game("oware", NULL);
  mcts_eval ev = mcts_eval_uniform();
  ck_assert_ptr_null(mcts_create(&G, &d, &ev, 1, err, sizeof err));
  ck_assert_str_eq(err, "node_cap 10 is out of range (an integer 64..200000000)");
  /* A search's parameters change, but for those that size its memory. */
  d = mcts_defaults();
  mcts *m = mcts_create(&G, &d, &ev, 1, err, sizeof err);
  ck_assert_ptr_nonnull(m);
  d.c_puct = 3;
  d.sims = 40;
  ck_assert_int_eq(mcts_set_params(m, &d, err, sizeof err), 0);
  ck_assert_float_eq(mcts_get_params(m)->c_puct, 3);
  ck_assert_int_eq(mcts_get_params(m)->sims, 40);
  d.node_cap *= 2;
  ck_assert_int_eq(mcts_set_params(m, &d, err, sizeof err), -1);
  ck_assert_str_eq(err, "node_cap and cache_size are fixed when a search is made");
  d = mcts_defaults();
  d.c_puct = -1;
  ck_assert_int_eq(mcts_set_params(m, &d, err, sizeof err), -1);
  ck_assert_int_eq(mcts_get_params(m)->sims, 40);
  mcts_free(m);
  /* The INI text reads back to the same parameters. */
  char text[2048];
  p.gumbel_c_scale = 0.1f;
  ck_assert_int_eq(mcts_params_format(&p, text, sizeof text), 0);
  mcts_params q = mcts_defaults();
  for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *sep = strstr(line, " = ");
    *sep = 0;
    ck_assert_int_eq(mcts_params_set(&q, line, sep + 3, err, sizeof err), 0);
  }
  ck_assert_mem_eq(&p, &q, sizeof p);
}
END_TEST

/* The position cache: a put is found again, a clear forgets every entry
 * (and the cache works on after it), and a cache larger than half the
 * machine's memory is refused with its size in the message. */
START_TEST(position_cache_put_get_clear) {
  char err[256];
  mcts_cache *c = mcts_cache_create(64, 6, err, sizeof err);
  ck_assert_msg(c != NULL, "%s", err);
  float pol[6] = {0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f}, got[6], v;
  for (int round = 0; round < 3; round++) {
    for (uint64_t k = 1; k <= 40; k++) mcts_cache_put(c, k * 977, pol, (float)k / 100);
    int hits = 0;
    for (uint64_t k = 1; k <= 40; k++)
      if (mcts_cache_get(c, k * 977, got, &v)) {
        hits++;
        ck_assert_float_eq(v, (float)k / 100);
        ck_assert_float_eq(got[0], 0.5f);
      }
    ck_assert_int_gt(hits, 20);
    mcts_cache_clear(c);
    for (uint64_t k = 1; k <= 40; k++) ck_assert_int_eq(mcts_cache_get(c, k * 977, got, &v), 0);
  }
  mcts_cache_free(c);
  double phys = mem_physical_mb();
  if (phys > 0 && phys < 100000) {
    ck_assert_ptr_null(mcts_cache_create(100000000, 32, err, sizeof err));
    ck_assert_msg(strstr(err, "more than half of this machine's memory") != NULL, "%s", err);
  }
}
END_TEST

static Suite *search_suite(void) {
  Suite *s = suite_create("search");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, path_step_matches_game_step);
  tcase_add_test(t, tactics_uniform);
  tcase_add_test(t, tactics_rollouts_no_solver);
  tcase_add_test(t, tactics_gumbel);
  tcase_add_test(t, proofs_match_minimax);
  tcase_add_test(t, proofs_match_minimax_extra_turns);
  tcase_add_test(t, deep_forced_win_proven);
  tcase_add_test(t, arena_full_is_graceful);
  tcase_add_test(t, subtree_reuse);
  tcase_add_test(t, reroot_perspective);
  tcase_add_test(t, noise_and_temperature);
  tcase_add_test(t, gumbel_halving_schedule);
  tcase_add_test(t, no_allocation_per_simulation);
  tcase_add_test(t, params_by_name);
  tcase_add_test(t, params_table_is_the_documented_one);
  tcase_add_test(t, position_cache_put_get_clear);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(search_suite)

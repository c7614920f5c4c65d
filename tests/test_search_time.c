/* Searches under a clock and on several threads: the budget of a move
 * (timectl), deadlines kept to within one evaluator call, stopping when
 * sure, early or when unsure later, all driven by an injected clock that
 * advances only when positions are evaluated (no timing); one tree
 * searched by several threads with virtual loss (totals and node
 * statistics consistent, nothing left over); a node array that grows. */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "search/agent.h"
#include "search/mcts.h"
#include "search/timectl.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

/* ---- The budget of a move ----------------------------------------------------------------- */

START_TEST(plan_per_move_and_clock) {
  timectl_state t = {0};
  timectl_budget b = timectl_plan(&t);
  ck_assert(b.soft == 0 && b.hard == 0); /* no limit at all */
  t.per_move = 0.5;
  b = timectl_plan(&t);
  ck_assert_double_eq_tol(b.soft, 0.5 - TIMECTL_LAG, 1e-12);
  ck_assert_double_eq(b.hard, b.soft);
  ck_assert_int_eq(b.banked, 0);
  /* A short limit keeps a tenth back, not the whole lag. */
  t.per_move = 0.01;
  b = timectl_plan(&t);
  ck_assert_double_eq_tol(b.soft, 0.009, 1e-12);
  t.per_move = 0.5;
  t.cap = 0.2; /* the agent's own time= caps the caller's */
  b = timectl_plan(&t);
  ck_assert_double_eq(b.hard, 0.2);
  t = (timectl_state){0, 60, 1, 0, 0};
  b = timectl_plan(&t);
  int n = timectl_moves_left(0);
  ck_assert_double_eq_tol(b.soft, (60 - TIMECTL_LAG + 1.0 * (n - 1)) / n, 1e-9);
  ck_assert(b.hard >= b.soft && b.hard <= 3 * b.soft + 1e-9 && b.banked);
  /* Little left: never more than half of it on one move. */
  t = (timectl_state){0, 0.4, 5, 0, 80};
  b = timectl_plan(&t);
  ck_assert(b.hard <= (0.4 - TIMECTL_LAG) / 2 + 1e-12 && b.soft <= b.hard && b.soft > 0);
  /* Later in the game fewer moves are left, so a larger share is spent:
   * docs/SEARCH.md's rule, 40 at the start, one fewer every 4 plies, never
   * under 12. */
  for (int ply = 0; ply < 400; ply++) {
    int want = 40 - ply / 4;
    ck_assert_int_eq(timectl_moves_left(ply), want > 12 ? want : 12);
  }
  timectl_state early = {0, 100, 0, 0, 0}, late = {0, 100, 0, 0, 120};
  ck_assert(timectl_plan(&late).soft > timectl_plan(&early).soft);
}
END_TEST

/* ---- An injected clock ---------------------------------------------------------------------
 * Time moves only when the evaluator evaluates: `tick` seconds a position.
 * Atomic, so that several search threads may read and advance it. */
typedef struct {
  _Atomic long long micros;
  long long tick; /* micro-seconds per evaluated position */
  int bias;       /* 1: priors of 0.9 on the first legal action (a search sure of its move) */
} fake_time;

static double fake_now(void *ctx) {
  fake_time *f = ctx;
  return (double)atomic_load(&f->micros) * 1e-6;
}

static int fake_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                         float *value) {
  fake_time *f = ctx;
  mcts_eval u = mcts_eval_uniform();
  u.evaluate(NULL, g, pos, n, policy, value);
  if (f->bias)
    for (int i = 0; i < n; i++) {
      float *pi = policy + (size_t)i * (size_t)g->n_actions;
      game_moves m = game_legal(g, pos[i]);
      int k = game_count(m), first = __builtin_ctz(m);
      for (int a = 0; a < g->n_actions; a++)
        if (m >> a & 1) pi[a] = k == 1 ? 1.0f : a == first ? 0.9f : 0.1f / (float)(k - 1);
    }
  atomic_fetch_add(&f->micros, f->tick * n);
  return 0;
}

static mcts *start_search(const mcts_params *p, fake_time *f) {
  char err[256];
  mcts_eval ev = {fake_evaluate, f, 0};
  mcts *m = mcts_create(&G, p, &ev, 1, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  game_pos s;
  game_start(&G, &s);
  ck_assert_int_eq(mcts_set_root(m, &s, NULL, err, sizeof err), 0);
  return m;
}

/* The hard limit is kept to within one evaluator call of `leaves`
 * positions, for one thread and for two (whose calls may both be under way
 * when it passes: two calls). */
START_TEST(deadline_within_one_batch) {
  configure_game("oware", NULL);
  char err[256];
  for (int threads = 1; threads <= 2; threads++)
    for (int leaves = 1; leaves <= 8; leaves *= 8) {
      fake_time f = {0, 1000, 0}; /* 1 ms a position */
      mcts_params p = mcts_defaults();
      mcts *m = start_search(&p, &f);
      mcts_eval evs[2] = {{fake_evaluate, &f, 0}, {fake_evaluate, &f, 0}};
      timectl_clock clk = {fake_now, &f};
      mcts_limits l = mcts_limits_sims(0);
      l.soft = l.hard = 0.25;
      l.threads = threads;
      l.leaves = leaves;
      l.evals = evs;
      l.clock = &clk;
      mcts_search_info info;
      int sims = mcts_search(m, &l, &info, err, sizeof err);
      ck_assert_msg(sims > 0, "%s", err);
      double batch = threads * leaves * 1e-3;
      ck_assert_msg(info.seconds >= 0.25 && info.seconds <= 0.25 + batch + 1e-9,
                    "threads %d leaves %d: stopped at %.4f s", threads, leaves, info.seconds);
      ck_assert_int_eq(info.stop, MCTS_STOP_HARD);
      /* Every simulation was an evaluation here: the clock counts them. */
      ck_assert_int_eq(sims, (int)llround(info.seconds / 1e-3));
      mcts_info mi;
      mcts_get_info(m, &mi);
      ck_assert_int_eq(mi.root_visits, sims); /* no virtual loss left */
      mcts_free(m);
    }
}
END_TEST

/* The search counts each change of its most visited move (the unsure
 * rule's input): an evaluator that reads the root before every evaluation
 * sees the same leaders, here with values from the position (a flat
 * evaluator never changes its leader) and a clock that stands still. */
typedef struct {
  mcts *m;
  int leader, changes;
} leader_watch;

static void watch_root(leader_watch *w) {
  int act[GAME_MAX_ACTIONS], vis[GAME_MAX_ACTIONS], proof[GAME_MAX_ACTIONS];
  float prior[GAME_MAX_ACTIONS], val[GAME_MAX_ACTIONS];
  int k = mcts_root_children(w->m, act, vis, prior, val, proof), best = -1;
  for (int i = 0; i < k; i++)
    if (best < 0 || vis[i] > vis[best]) best = i;
  if (best < 0) return;
  if (w->leader >= 0 && best != w->leader) w->changes++;
  w->leader = best;
}

/* A value scattered over -0.83..0.83 by a hash of the position (and the
 * hash, if asked): searches whose leaders change. */
static float scattered_value(const game *g, const game_pos *q, uint32_t *hash) {
  uint32_t h = (uint32_t)q->store[0] * 2654435761u ^ (uint32_t)q->ply * 40503u;
  for (int a = 0; a < g->n_pits; a++) h = h * 31u + q->pits[a];
  if (hash) *hash = h;
  return (float)((int)(h % 1001u) - 500) / 600.0f;
}

static int watching_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                             float *policy, float *value) {
  leader_watch *w = ctx;
  if (w->m) watch_root(w);
  mcts_eval u = mcts_eval_uniform();
  u.evaluate(NULL, g, pos, n, policy, value);
  for (int i = 0; i < n; i++) value[i] = scattered_value(g, pos[i], NULL);
  return 0;
}

START_TEST(leader_changes_counted) {
  configure_game("oware", NULL);
  char err[256];
  rng_t r;
  rng_seed(&r, 5, 5);
  int total = 0;
  for (int game_no = 0; game_no < 12; game_no++) {
    leader_watch w = {NULL, -1, 0};
    mcts_eval ev = {watching_evaluate, &w, 0};
    mcts_params p = mcts_defaults();
    p.noise = 0;
    p.solver = 0;
    p.cache_size = 0;
    mcts *m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    game_pos s;
    game_start(&G, &s);
    game_hist *h = malloc(sizeof *h);
    game_hist_reset(h, &s);
    random_moves(&s, h, &r, 2 * game_no);
    ck_assert_int_eq(mcts_set_root(m, &s, h, err, sizeof err), 0);
    w.m = m;
    fake_time f = {0, 0, 0}; /* never moves: only the cap stops */
    timectl_clock clk = {fake_now, &f};
    mcts_limits l = mcts_limits_sims(300);
    l.soft = l.hard = 1;
    l.clock = &clk;
    mcts_search_info info;
    ck_assert_msg(mcts_search(m, &l, &info, err, sizeof err) > 0, "%s", err);
    watch_root(&w); /* the last look, after the last simulation */
    ck_assert_msg(info.best_changes == w.changes, "position %d: %d changes counted, %d seen",
                  game_no, info.best_changes, w.changes);
    total += w.changes;
    free(h);
    mcts_free(m);
  }
  ck_assert_int_gt(total, 5);
}
END_TEST

/* A search sure of its move stops at the soft limit; with early stopping
 * it ends once the runner-up cannot catch up, with the move the full
 * search would have played. */
START_TEST(soft_limit_unsure_and_early_stop) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params p = mcts_defaults();
  timectl_clock clk;
  mcts_search_info info;
  /* Sure. */
  fake_time f = {0, 1000, 1};
  mcts *m = start_search(&p, &f);
  clk = (timectl_clock){fake_now, &f};
  mcts_limits l = mcts_limits_sims(0);
  l.soft = 0.2;
  l.hard = 1.0;
  l.clock = &clk;
  ck_assert_int_gt(mcts_search(m, &l, &info, err, sizeof err), 0);
  ck_assert_int_eq(info.stop, MCTS_STOP_SOFT);
  ck_assert(info.seconds >= 0.2 && info.seconds <= 0.2 + 1e-3 + 1e-9);
  int full_best = mcts_best_action(m);
  mcts_free(m);
  /* Early. */
  fake_time e = {0, 1000, 1};
  m = start_search(&p, &e);
  clk = (timectl_clock){fake_now, &e};
  l.early_stop = 1;
  ck_assert_int_gt(mcts_search(m, &l, &info, err, sizeof err), 0);
  ck_assert_int_eq(info.stop, MCTS_STOP_EARLY);
  ck_assert(info.seconds < 0.2);
  ck_assert_int_eq(mcts_best_action(m), full_best);
  int visits[GAME_MAX_ACTIONS], second = 0;
  int total = mcts_visits(m, visits);
  for (int a = 0; a < G.n_actions; a++)
    if (a != full_best && visits[a] > second) second = visits[a];
  /* The lead is more than the simulations the soft limit still allowed. */
  ck_assert_int_gt(visits[full_best] - second, (int)((0.2 - info.seconds) / 1e-3));
  ck_assert_int_gt(total, 0);
  mcts_free(m);
}
END_TEST

/* The decision at each look at the clock: unsure searches (a recent
 * change of the best move, or a better-valued runner-up) go on to twice
 * soft, never past hard; early stopping weighs the lead against the
 * simulations left. */
START_TEST(decide_unsure_and_early) {
  timectl_view v = {0};
  v.soft = 0.2;
  v.hard = 1.0;
  v.elapsed = 0.1;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_GO);
  v.elapsed = 0.2;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_SOFT);
  v.changes = 3;
  v.changed_at = 0.17; /* within the last quarter of 0.2 s */
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_GO);
  v.changed_at = 0.1;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_SOFT);
  v.disagree = 1;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_GO);
  v.elapsed = 0.39;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_GO);
  v.elapsed = 0.4;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_HARD);
  v.hard = 0.3; /* twice soft is past hard: hard rules */
  v.elapsed = 0.3;
  ck_assert_int_eq(timectl_decide(&v), TIMECTL_HARD);
  /* Early: 1000 simulations a second, 0.1 s to the soft limit: 100 left. */
  timectl_view e = {0};
  e.soft = 0.2;
  e.hard = 1;
  e.elapsed = 0.1;
  e.early = 1;
  e.rate = 1000;
  e.cap_left = 1e9;
  e.lead = 100;
  ck_assert_int_eq(timectl_decide(&e), TIMECTL_GO);
  e.lead = 101;
  ck_assert_int_eq(timectl_decide(&e), TIMECTL_EARLY);
  e.lead = 30;
  e.cap_left = 20; /* the cap leaves fewer */
  ck_assert_int_eq(timectl_decide(&e), TIMECTL_EARLY);
  e.early = 0;
  ck_assert_int_eq(timectl_decide(&e), TIMECTL_GO);
}
END_TEST

/* With time banked a forced move is played at once; without (a time per
 * move) the search uses its time, building the tree it will keep. */
START_TEST(forced_move_with_time_banked) {
  configure_game("oware", NULL);
  char err[256];
  fake_time f = {0, 1000, 0};
  mcts_params p = mcts_defaults();
  mcts_eval ev = {fake_evaluate, &f, 0};
  timectl_clock clk = {fake_now, &f};
  game_pos q = pos("0 0 0 0 0 0 1 4 4 4 4 4 4 11 12");
  ck_assert_int_eq(game_count(game_legal(&G, &q)), 1);
  for (int banked = 0; banked <= 1; banked++) {
    mcts *m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
    ck_assert_int_eq(mcts_set_root(m, &q, NULL, err, sizeof err), 0);
    mcts_limits l = mcts_limits_sims(0);
    l.soft = l.hard = 0.05;
    l.early_stop = banked;
    l.clock = &clk;
    mcts_search_info info;
    ck_assert_int_gt(mcts_search(m, &l, &info, err, sizeof err), 0);
    if (banked) {
      ck_assert_int_eq(info.stop, MCTS_STOP_EARLY);
      ck_assert_int_eq(info.sims, 1);
    } else {
      ck_assert(info.seconds >= 0.05);
    }
    ck_assert_int_eq(mcts_best_action(m), 5);
    mcts_free(m);
  }
}
END_TEST

/* The same through an agent on a game clock: time banked, a forced move
 * is played after one evaluation (without early stopping it would think
 * for its share of the clock, seconds). */
START_TEST(agent_on_a_clock_plays_a_forced_move_at_once) {
  configure_game("oware", NULL);
  char err[256];
  game_pos q = pos("0 0 0 0 0 0 1 4 4 4 4 4 4 11 12");
  static const char *const specs[] = {"mcts", "mcts threads=2"};
  for (int i = 0; i < 2; i++) {
    agent *a = agent_create(&G, specs[i], 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    agent_set_time(a, &(agent_time){0, 60, 1});
    agent_analysis an;
    ck_assert_msg(agent_analyze(a, &q, NULL, &an) == 0, "%s", agent_error(a));
    ck_assert_int_eq(an.best, 5);
    int visits = 0;
    for (int k = 0; k < an.n; k++) visits += an.visits[k];
    ck_assert_msg(visits <= 2, "%s: %d visits for a forced move", specs[i], visits);
    agent_free(a);
  }
}
END_TEST

/* On a game clock, an agent's own limit still holds: `alphabeta depth=1`
 * plays the move of its depth-1 search, chosen where a deeper search
 * prefers another (the clock without a depth would search deeper). */
START_TEST(a_depth_given_caps_a_search_on_a_clock) {
  configure_game("oware", NULL);
  char err[256];
  agent *one = agent_create(&G, "alphabeta depth=1", 1, err, sizeof err);
  agent *deep = agent_create(&G, "alphabeta depth=6", 1, err, sizeof err);
  ck_assert_ptr_nonnull(one);
  ck_assert_ptr_nonnull(deep);
  rng_t r;
  rng_seed(&r, 5, 0);
  int found = 0;
  for (int game = 0; game < 50 && !found; game++) {
    game_pos p;
    game_start(&G, &p);
    for (int ply = 0; ply < 40 && p.status == GAME_ONGOING && !found; ply++) {
      int a1 = agent_choose(one, &p, NULL), a6 = agent_choose(deep, &p, NULL);
      if (a1 != a6) {
        found = 1;
        agent_set_time(one, &(agent_time){0, 60, 1});
        ck_assert_int_eq(agent_choose(one, &p, NULL), a1);
        agent_set_time(one, &(agent_time){0.5, 0, 0});
        ck_assert_int_eq(agent_choose(one, &p, NULL), a1);
      }
      game_play(&G, &p, game_random_action(&r, game_legal(&G, &p)));
    }
  }
  ck_assert_msg(found, "no position where depth 1 and depth 6 choose apart");
  agent_free(one);
  agent_free(deep);
}
END_TEST

/* A search that stops at its soft limit is sure of its move: no move with
 * a quarter of the leader's visits has a better mean value (else it goes
 * on), over positions whose values are scattered. */
typedef struct {
  fake_time t;
} scattered;

static int scattered_evaluate(void *ctx, const game *g, const game_pos *const *pos, int n,
                              float *policy, float *value) {
  scattered *s = ctx;
  mcts_eval u = mcts_eval_uniform();
  u.evaluate(NULL, g, pos, n, policy, value);
  for (int i = 0; i < n; i++) {
    const game_pos *q = pos[i];
    uint32_t h;
    value[i] = scattered_value(g, q, &h);
    /* Priors that favour one move, whatever its value: the visits follow
     * the prior for a while, the values disagree with them. */
    float *pi = policy + (size_t)i * (size_t)g->n_actions;
    game_moves m = game_legal(g, q);
    int k = game_count(m), first = (int)(h >> 16) % g->n_actions;
    while (k > 1 && !(m >> first & 1)) first = (first + 1) % g->n_actions;
    for (int a = 0; a < g->n_actions; a++)
      if (m >> a & 1) pi[a] = k == 1 ? 1.0f : a == first ? 0.7f : 0.3f / (float)(k - 1);
  }
  atomic_fetch_add(&s->t.micros, s->t.tick * n);
  return 0;
}

START_TEST(soft_stop_only_when_values_agree) {
  configure_game("oware", NULL);
  char err[256];
  rng_t r;
  rng_seed(&r, 9, 1);
  game_hist *h = malloc(sizeof *h);
  int soft = 0, longer = 0;
  for (int it = 0; it < 40; it++) {
    scattered sc = {{0, 1000, 0}};
    mcts_eval ev = {scattered_evaluate, &sc, 0};
    mcts_params p = mcts_defaults();
    p.noise = 0;
    p.cache_size = 0;
    mcts *m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    game_pos s;
    game_start(&G, &s);
    game_hist_reset(h, &s);
    random_moves(&s, h, &r, (int)rng_below(&r, 20));
    if (s.status != GAME_ONGOING) {
      mcts_free(m);
      continue;
    }
    ck_assert_int_eq(mcts_set_root(m, &s, h, err, sizeof err), 0);
    timectl_clock clk = {fake_now, &sc.t};
    mcts_limits l = mcts_limits_sims(0);
    l.soft = 0.2;
    l.hard = 1.0;
    l.clock = &clk;
    mcts_search_info info;
    ck_assert_msg(mcts_search(m, &l, &info, err, sizeof err) > 0, "%s", err);
    int act[GAME_MAX_ACTIONS], vis[GAME_MAX_ACTIONS], proof[GAME_MAX_ACTIONS], best = -1;
    float prior[GAME_MAX_ACTIONS], val[GAME_MAX_ACTIONS];
    int k = mcts_root_children(m, act, vis, prior, val, proof);
    for (int i = 0; i < k; i++)
      if (best < 0 || vis[i] > vis[best]) best = i;
    if (info.stop == MCTS_STOP_SOFT) {
      soft++;
      for (int i = 0; i < k; i++)
        ck_assert_msg(i == best || 4 * vis[i] < vis[best] || !(val[i] > val[best]),
                      "position %d: stopped at soft with move %d (%d visits, %.3f) behind move %d "
                      "(%d visits, %.3f)",
                      it, act[i], vis[i], val[i], act[best], vis[best], val[best]);
    } else if (info.stop == MCTS_STOP_HARD) {
      longer++;
    }
    mcts_free(m);
  }
  ck_assert_int_ge(soft, 5);
  ck_assert_int_ge(longer, 5);
  free(h);
}
END_TEST

/* sims= caps a timed search; a proven root stops it at once. */
START_TEST(cap_and_proof_stop_timed_search) {
  configure_game("oware", NULL);
  char err[256];
  fake_time f = {0, 1000, 0};
  mcts_params p = mcts_defaults();
  mcts *m = start_search(&p, &f);
  timectl_clock clk = {fake_now, &f};
  mcts_limits l = mcts_limits_sims(50);
  l.soft = l.hard = 10;
  l.clock = &clk;
  mcts_search_info info;
  ck_assert_int_eq(mcts_search(m, &l, &info, err, sizeof err), 50);
  ck_assert_int_eq(info.stop, MCTS_STOP_SIMS);
  mcts_free(m);
  /* South's pit 5 captures to 25 and wins (test_search.c's tactics). */
  game_pos q = pos("0 2 1 1 1 0 1 1 0 0 0 1 0 23 17");
  mcts_eval ev = {fake_evaluate, &f, 0};
  m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
  ck_assert_int_eq(mcts_set_root(m, &q, NULL, err, sizeof err), 0);
  l = mcts_limits_sims(0);
  l.soft = l.hard = 10;
  l.clock = &clk;
  ck_assert_int_gt(mcts_search(m, &l, &info, err, sizeof err), 0);
  ck_assert_int_eq(info.stop, MCTS_STOP_PROVEN);
  ck_assert(info.seconds < 1);
  mcts_free(m);
}
END_TEST

/* ---- Threads ---------------------------------------------------------------------------- */

/* Visits and values add up at every node (nothing of a virtual loss is
 * left): a node's visits are at least its children's, its |w| at most its
 * visits. */
static void check_tree(const mcts *m) {
  mcts_node_view v, c;
  for (int i = 0; mcts_node_at(m, i, &v) == 0; i++) {
    ck_assert(fabsf(v.w) <= (float)v.visits + 1e-3f);
    int sum = 0;
    for (int k = 0; k < v.nchild && v.first_child; k++) {
      ck_assert_int_eq(mcts_node_at(m, v.first_child + k, &c), 0);
      sum += c.visits;
    }
    ck_assert_int_le(sum, v.visits);
  }
}

/* A batch whose evaluation fails is dropped: its leaves' virtual losses
 * are taken back once, and the tree holds exactly the simulations that
 * completed, ready for the next search. */
START_TEST(failed_batch_leaves_the_tree_whole) {
  configure_game("oware", NULL);
  char err[256];
  for (int threads = 1; threads <= 2; threads++)
    for (int fail_at = 2; fail_at <= 40; fail_at += 19) {
      failing_ctx f = {0, fail_at};
      mcts_eval ev = {failing_evaluate, &f, 0}, evs[2] = {ev, ev};
      mcts_params p = mcts_defaults();
      p.noise = 0;
      mcts *m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
      game_pos s;
      game_start(&G, &s);
      ck_assert_int_eq(mcts_set_root(m, &s, NULL, err, sizeof err), 0);
      mcts_limits l = mcts_limits_sims(5000);
      l.threads = threads;
      l.leaves = 4;
      l.evals = evs;
      mcts_search_info info;
      ck_assert_int_eq(mcts_search(m, &l, &info, err, sizeof err), -1);
      ck_assert_ptr_nonnull(strstr(err, "evaluator failed"));
      mcts_info mi;
      mcts_get_info(m, &mi);
      ck_assert_msg(mi.root_visits == info.sims, "%d threads, failing call %d: root %d, sims %d",
                    threads, fail_at, mi.root_visits, info.sims);
      check_tree(m);
      /* The next search goes on from there. */
      f.fail_at = 0;
      int before = info.sims;
      l.sims = 200;
      ck_assert_int_eq(mcts_search(m, &l, &info, err, sizeof err), 200);
      mcts_get_info(m, &mi);
      ck_assert_int_eq(mi.root_visits, before + 200);
      check_tree(m);
      mcts_free(m);
    }
  /* mcts_run, one leaf a call: -1 and the message, as documented. */
  failing_ctx f = {0, 7};
  mcts_eval ev = {failing_evaluate, &f, 0};
  mcts_params p = mcts_defaults();
  mcts *m = mcts_create(&G, &p, &ev, 1, err, sizeof err);
  game_pos s;
  game_start(&G, &s);
  ck_assert_int_eq(mcts_set_root(m, &s, NULL, err, sizeof err), 0);
  err[0] = 0;
  ck_assert_int_eq(mcts_run(m, 100, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "evaluator failed"));
  mcts_free(m);
}
END_TEST

/* One thread and one leaf without a time limit is mcts_run, simulation for
 * simulation; several threads, up to the most allowed, complete exactly
 * the simulations asked. */
START_TEST(threads_share_one_tree) {
  configure_game("oware", NULL);
  char err[256];
  mcts_params p = mcts_rollout_defaults();
  game_pos s;
  game_start(&G, &s);
  mcts_rollout *ro[MCTS_MAX_THREADS];
  mcts_eval evs[MCTS_MAX_THREADS];
  for (int i = 0; i < MCTS_MAX_THREADS; i++) {
    ro[i] = mcts_rollout_create(1, 7 + (uint64_t)i, err, sizeof err);
    evs[i] = mcts_rollout_eval(ro[i]);
  }
  mcts *a = mcts_create(&G, &p, &evs[0], 1, err, sizeof err);
  ck_assert_int_eq(mcts_set_root(a, &s, NULL, err, sizeof err), 0);
  ck_assert_int_eq(mcts_run(a, 400, err, sizeof err), 400);
  int va[GAME_MAX_ACTIONS], vb[GAME_MAX_ACTIONS];
  mcts_visits(a, va);
  mcts_rollout_reseed(ro[0], 7);
  mcts *b = mcts_create(&G, &p, &evs[0], 1, err, sizeof err);
  ck_assert_int_eq(mcts_set_root(b, &s, NULL, err, sizeof err), 0);
  mcts_limits l = mcts_limits_sims(400);
  ck_assert_int_eq(mcts_search(b, &l, NULL, err, sizeof err), 400);
  mcts_visits(b, vb);
  ck_assert_mem_eq(va, vb, (size_t)G.n_actions * sizeof *va);
  mcts_free(b);
  static const int counts[] = {2, 3, MCTS_MAX_THREADS};
  for (int k = 0; k < 3; k++) {
    const int threads = counts[k];
    mcts_reset(a);
    ck_assert_int_eq(mcts_set_root(a, &s, NULL, err, sizeof err), 0);
    l = mcts_limits_sims(3000);
    l.threads = threads;
    l.leaves = 4;
    l.evals = evs;
    mcts_search_info info;
    ck_assert_int_eq(mcts_search(a, &l, &info, err, sizeof err), 3000);
    mcts_info mi;
    mcts_get_info(a, &mi);
    ck_assert_int_eq(mi.root_visits, 3000);
    /* The root's own visits: the first, and the threads' first leaves,
     * which may all be the unexpanded root. */
    int children = mcts_visits(a, va);
    ck_assert(children <= 2999 && children >= 3000 - threads * 4);
    check_tree(a);
    /* The tree goes on to the next move with its subtree. */
    int best = mcts_best_action(a);
    ck_assert_int_eq(mcts_advance(a, best, err, sizeof err), 0);
    mcts_get_info(a, &mi);
    ck_assert_int_gt(mi.root_visits, 0);
    ck_assert_int_eq(mcts_search(a, &l, &info, err, sizeof err), 3000);
    check_tree(a);
  }
  mcts_free(a);
  for (int i = 0; i < MCTS_MAX_THREADS; i++) mcts_rollout_free(ro[i]);
}
END_TEST

/* Bad limits are refused with a message. */
START_TEST(bad_limits_refused) {
  configure_game("oware", NULL);
  char err[256];
  fake_time f = {0, 1000, 0};
  mcts_params p = mcts_defaults();
  mcts *m = start_search(&p, &f);
  mcts_limits l = mcts_limits_sims(10);
  l.threads = 2; /* without an evaluator per thread */
  ck_assert_int_eq(mcts_search(m, &l, NULL, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "threads"));
  mcts_eval evs[MCTS_MAX_THREADS + 1];
  for (int i = 0; i <= MCTS_MAX_THREADS; i++) evs[i] = (mcts_eval){fake_evaluate, &f, 0};
  l.threads = MCTS_MAX_THREADS + 1, l.evals = evs;
  ck_assert_int_eq(mcts_search(m, &l, NULL, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "threads"));
  l = mcts_limits_sims(10);
  l.leaves = MCTS_MAX_LEAVES + 1;
  ck_assert_int_eq(mcts_search(m, &l, NULL, err, sizeof err), -1);
  mcts_free(m);
}
END_TEST

/* ---- A node array that grows ----------------------------------------------------------- */

/* A growing array keeps every subtree: whatever share of the array the
 * kept subtree fills (searches of many sizes: after the array's doublings
 * it may fill from a few percent to nearly all of it), advancing makes the
 * room and keeps it, never a fresh root. */
START_TEST(node_array_grows_and_keeps_subtree) {
  configure_game("oware", NULL);
  char err[256];
  fake_time f = {0, 1, 0};
  mcts_params p = mcts_defaults();
  /* First a fixed array (3000 simulations), then growing ones, from an
   * array of 64 nodes and of 100 (sizes come from time and memory budgets,
   * not only powers of two). */
  for (int n = 0; n <= 6000; n += 41) {
    const int grow = n > 0, sims = grow ? 1 + (n - 1) % 3000 : 3000;
    p.node_cap = n > 3000 ? 100 : 64;
    mcts *m = start_search(&p, &f);
    if (grow) mcts_set_node_limit(m, 1 << 20);
    ck_assert_int_eq(mcts_run(m, sims, err, sizeof err), sims);
    mcts_info mi;
    mcts_get_info(m, &mi);
    if (grow) {
      ck_assert_uint_eq(mi.arena_full, 0);
      ck_assert_int_gt(mi.nodes, sims / 3);
      ck_assert_int_ge(mi.node_cap, mi.nodes);
      check_tree(m);
      int best = mcts_best_action(m), kept = 0, v[GAME_MAX_ACTIONS];
      mcts_visits(m, v);
      kept = v[best];
      ck_assert_int_eq(mcts_advance(m, best, err, sizeof err), 0);
      mcts_get_info(m, &mi);
      ck_assert_msg(mi.root_visits == kept,
                    "%d simulations: the kept subtree's %d visits became %d", sims, kept,
                    mi.root_visits); /* the whole subtree, not a fresh root */
    } else {
      ck_assert_uint_gt(mi.arena_full, 0);
      ck_assert_int_eq(mi.node_cap, 64);
    }
    mcts_free(m);
  }
}
END_TEST

/* ---- Agents ------------------------------------------------------------------------------- */

/* time= and threads= agents play legal games, also under a caller's clock. */
START_TEST(timed_threaded_agents_play) {
  configure_game("oware", NULL);
  char err[256];
  const char *specs[] = {"mcts time=0.002 threads=2", "mcts sims=200 threads=2 leaves=4",
                         "mcts time=0.002 sims=50", "alphabeta"};
  for (int i = 0; i < 4; i++) {
    agent *a = agent_create(&G, specs[i], 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s: %s", specs[i], err);
    agent_time t = {0, 0.2, 0.001};
    if (i == 3) agent_set_time(a, &t);
    game_pos p;
    game_hist *h = malloc(sizeof *h);
    game_start(&G, &p);
    game_hist_reset(h, &p);
    for (int ply = 0; ply < 12 && p.status == GAME_ONGOING; ply++) {
      int mv = agent_choose(a, &p, h);
      ck_assert_msg(mv >= 0 && (game_legal(&G, &p) >> mv & 1), "%s: %s", specs[i], agent_error(a));
      game_step(&G, &p, h, mv);
    }
    free(h);
    agent_free(a);
  }
  ck_assert_ptr_null(agent_create(&G, "mcts threads=0", 1, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "threads"));
  ck_assert_ptr_null(agent_create(&G, "zero time=-1 weights=x", 1, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "time"));
}
END_TEST

static Suite *search_time_suite(void) {
  Suite *s = suite_create("search_time");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, plan_per_move_and_clock);
  tcase_add_test(t, deadline_within_one_batch);
  tcase_add_test(t, soft_limit_unsure_and_early_stop);
  tcase_add_test(t, leader_changes_counted);
  tcase_add_test(t, decide_unsure_and_early);
  tcase_add_test(t, forced_move_with_time_banked);
  tcase_add_test(t, agent_on_a_clock_plays_a_forced_move_at_once);
  tcase_add_test(t, a_depth_given_caps_a_search_on_a_clock);
  tcase_add_test(t, soft_stop_only_when_values_agree);
  tcase_add_test(t, cap_and_proof_stop_timed_search);
  tcase_add_test(t, threads_share_one_tree);
  tcase_add_test(t, failed_batch_leaves_the_tree_whole);
  tcase_add_test(t, bad_limits_refused);
  tcase_add_test(t, node_array_grows_and_keeps_subtree);
  tcase_add_test(t, timed_threaded_agents_play);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(search_time_suite)

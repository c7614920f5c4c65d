/* The endgame database in play and training: MCTS and alpha-beta with
 * egdb=, the egdb agent, the shared opening and the folder's resolution,
 * the errors of a bad setting, exact targets in self-play and the [egdb]
 * config section. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "search/agent.h"
#include "search/alphabeta.h"
#include "search/mcts.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/config.h"
#include "trainer/endgame.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"
#include "trainer/train.h"

#define SMALL_N 10 /* the suite's database: levels 0..10, well under a second */

static char db_dir[512];
static egdb *DB;
static game G;

static void build_small(void) {
  char err[512];
  scratch_dir(db_dir, sizeof db_dir, "egdbplay");
  egdb_build_params p = {SMALL_N, 2, NULL, NULL};
  if (egdb_build(db_dir, &p, err, sizeof err)) {
    fprintf(stderr, "build: %s\n", err);
    exit(1);
  }
}

static void remove_small(void) { remove_tree(db_dir); }

static void open_small(void) {
  char err[512];
  DB = egdb_acquire(db_dir, err, sizeof err);
  ck_assert_msg(DB != NULL, "open: %s", err);
  ck_assert_int_eq(game_configure(&G, "oware", 0, NULL, err, sizeof err), 0);
}

static void close_small(void) { egdb_release(DB); }

/* A random South-to-move position of n seeds on the board, the captured
 * ones split between the stores (both under 25: the game goes on). */
static game_pos random_position(rng_t *r, int n) {
  char tok[16][16], *argv[16], err[256];
  game_pos p;
again:;
  int pits[12] = {0};
  for (int s = 0; s < n; s++) pits[rng_u64(r) % 12]++;
  snprintf(tok[0], sizeof tok[0], "0");
  for (int i = 0; i < 12; i++) snprintf(tok[1 + i], sizeof tok[1], "%d", pits[i]);
  int left = 48 - n, s0 = left / 2 - 1 + (int)(rng_u64(r) % 3);
  snprintf(tok[13], sizeof tok[13], "%d", s0);
  snprintf(tok[14], sizeof tok[14], "%d", left - s0);
  for (int i = 0; i < 15; i++) argv[i] = tok[i];
  ck_assert_msg(G.rules->setboard(&G, &p, 15, argv, err, sizeof err) == 0, "%s", err);
  if (p.status != GAME_ONGOING || !game_legal(&G, &p)) goto again; /* famine at once */
  return p;
}

/* The database's verdict on move a at p: keeps the best outcome, and the
 * best margin. */
static void verdict(const game_pos *p, int a, int *result, int *margin) {
  int v[GAME_MAX_ACTIONS], best = -1000, me = p->mover;
  game_moves m = egdb_probe_moves(DB, &G, p, v);
  ck_assert(m >> a & 1);
  for (game_moves r = m; r; r &= r - 1)
    if (v[__builtin_ctz(r)] > best) best = v[__builtin_ctz(r)];
  int d = p->store[me] - p->store[1 - me], ma = d + v[a], mb = d + best;
  *result = (ma > 0) - (ma < 0) == (mb > 0) - (mb < 0);
  *margin = v[a] == best;
}

static int mcts_move(const game_pos *p, int sims, const egdb *db) {
  char err[256];
  mcts_params mp = mcts_rollout_defaults();
  mp.sims = sims;
  mp.node_cap = 4096;
  mcts_eval ev = mcts_eval_uniform();
  mcts *m = mcts_create(&G, &mp, &ev, 3, err, sizeof err);
  ck_assert_msg(m != NULL, "%s", err);
  mcts_attach_egdb(m, db, 0);
  ck_assert_int_eq(mcts_set_root(m, p, NULL, err, sizeof err), 0);
  ck_assert_int_ge(mcts_run(m, 0, err, sizeof err), 0);
  int a = mcts_best_action(m);
  mcts_free(m);
  return a;
}

/* Boards of 6..10 seeds where only some moves keep the result: plain MCTS
 * on a few simulations misses some; with the database every move it
 * plays is the database's best (outcome and margin). */
START_TEST(mcts_with_egdb_plays_exact_moves) {
  rng_t r;
  rng_seed(&r, 11, 0);
  int plain_wrong = 0, tried = 0;
  for (int k = 0; k < 400 && (plain_wrong < 5 || tried < 100); k++) {
    game_pos p = random_position(&r, 6 + k % 5);
    if (game_count(game_legal(&G, &p)) < 2) continue;
    tried++;
    int res, mar;
    verdict(&p, mcts_move(&p, 16, DB), &res, &mar);
    CHECK(res && mar, "MCTS with the database played a move the database rejects (case %d)", k);
    verdict(&p, mcts_move(&p, 16, NULL), &res, &mar);
    plain_wrong += !res;
  }
  CHECK(plain_wrong > 0, "plain MCTS never lost a result in %d positions: the test proves nothing",
        tried);
}
END_TEST

/* A root one move above the database: MCTS proves it from exact children
 * (the search stops early), and the proof is the database's outcome. */
START_TEST(mcts_proves_roots_above_the_database) {
  rng_t r;
  rng_seed(&r, 5, 0);
  char err[256];
  for (int k = 0; k < 50; k++) {
    game_pos p = random_position(&r, 4 + k % 7);
    egdb_result ex;
    ck_assert(egdb_exact(DB, &G, &p, 0, &ex));
    mcts_params mp = mcts_defaults();
    mp.sims = 400;
    mcts_eval ev = mcts_eval_uniform();
    mcts *m = mcts_create(&G, &mp, &ev, 1, err, sizeof err);
    mcts_attach_egdb(m, DB, 0);
    ck_assert_int_eq(mcts_set_root(m, &p, NULL, err, sizeof err), 0);
    int sims = mcts_run(m, 0, err, sizeof err);
    mcts_info info;
    mcts_get_info(m, &info);
    int want = ex.outcome > 0   ? MCTS_PROVEN_WIN
               : ex.outcome < 0 ? MCTS_PROVEN_LOSS
                                : MCTS_PROVEN_DRAW;
    CHECK(info.proof == want && sims < 400, "case %d: proof %d (want %d) after %d simulations", k,
          info.proof, want, sims);
    mcts_free(m);
  }
}
END_TEST

/* Alpha-beta at a root within the database: exact after one iteration,
 * the database's outcome, and its margin when no move ends the game (the
 * engine's own end scores the rest of the board differently); with
 * margins=1 always its margin (ended games valued as it plays them on). */
START_TEST(alphabeta_with_egdb_is_exact) {
  rng_t r;
  rng_seed(&r, 9, 0);
  char err[256];
  ab_params ap = ab_defaults();
  ap.depth = 3;
  ab_search *s = ab_create(&G, &ap, err, sizeof err);
  ab_attach_egdb(s, DB, 0);
  ap.margins = 1;
  ab_search *sm = ab_create(&G, &ap, err, sizeof err);
  ab_attach_egdb(sm, DB, 0);
  for (int k = 0; k < 200; k++) {
    game_pos p = random_position(&r, 3 + k % 8);
    egdb_result ex;
    ck_assert(egdb_exact(DB, &G, &p, 0, &ex));
    ab_result res;
    /* margins=1: w_store * the database's margin, whatever ends, and its best move. */
    ck_assert_int_eq(ab_run(sm, &p, NULL, &res, err, sizeof err), 0);
    int v[GAME_MAX_ACTIONS];
    egdb_probe_moves(DB, &G, &p, v);
    CHECK(res.score == ap.w_store * ex.margin && v[res.best] == ex.value,
          "case %d margins: score %d, margin %d; move %d worth %d, best %d", k, res.score,
          ex.margin, res.best, v[res.best], ex.value);
    ck_assert_int_eq(ab_run(s, &p, NULL, &res, err, sizeof err), 0);
    int outcome = res.score > AB_WIN / 2 ? 1 : res.score < -AB_WIN / 2 ? -1 : 0;
    CHECK(res.exact && res.depth == 1 && outcome == ex.outcome,
          "case %d: exact %d depth %d outcome %d, database %d", k, res.exact, res.depth, outcome,
          ex.outcome);
    int ends = 0;
    for (game_moves m = game_legal(&G, &p); m; m &= m - 1) {
      game_pos q = p;
      game_play(&G, &q, __builtin_ctz(m));
      ends |= q.status != GAME_ONGOING;
    }
    if (!ends)
      CHECK(res.score == ex.outcome * (AB_WIN - 1) + ex.margin, "case %d: score %d, margin %d", k,
            res.score, ex.margin);
  }
  ab_free(s);
  ab_free(sm);
}
END_TEST

/* Just above the database (the agent's cut to 7 seeds, the suite's
 * judging) the endgame search picks the move of the biggest margin far
 * more often than the search alone, and keeps the results. */
START_TEST(endgame_search_finds_the_biggest_win_above_the_database) {
  char err[512], spec[2][700];
  agent *ag[2];
  for (int e = 0; e < 2; e++) {
    snprintf(spec[e], sizeof spec[e], "mcts sims=200 egdb=%s egdb_seeds=7 endgame=%d", db_dir,
             e ? 10 : 0);
    ag[e] = agent_create(&G, spec[e], 1, err, sizeof err);
    ck_assert_msg(ag[e] != NULL, "%s", err);
  }
  rng_t r;
  rng_seed(&r, 21, 0);
  int best[2] = {0, 0}, kept[2] = {0, 0}, tried = 0;
  for (int k = 0; tried < 150; k++) {
    game_pos p = random_position(&r, 8 + k % 3);
    if (game_count(game_legal(&G, &p)) < 2) continue;
    tried++;
    for (int e = 0; e < 2; e++) {
      agent_reset(ag[e]);
      int a = agent_choose(ag[e], &p, NULL), res, mar;
      ck_assert_msg(a >= 0, "%s", agent_error(ag[e]));
      verdict(&p, a, &res, &mar);
      best[e] += mar;
      kept[e] += res;
    }
  }
  CHECK(best[1] >= tried * 85 / 100 && best[1] > best[0] && kept[1] >= kept[0] - 2,
        "biggest margin in %d of %d with the endgame search, %d without; results kept %d, %d",
        best[1], tried, best[0], kept[1], kept[0]);
  for (int e = 0; e < 2; e++) agent_free(ag[e]);
  /* Its reach: 8 seeds (7 + endgame_seeds=1) are its, 9 the tree search's. */
  snprintf(spec[0], sizeof spec[0], "mcts sims=50 egdb=%s egdb_seeds=7 endgame=6 endgame_seeds=1",
           db_dir);
  agent *a = agent_create(&G, spec[0], 1, err, sizeof err);
  ck_assert_msg(a != NULL, "%s", err);
  ab_params ap = ab_defaults();
  ap.depth = 6;
  ap.tt_mb = 4;
  ap.margins = 1;
  ab_search *ab = ab_create(&G, &ap, err, sizeof err);
  ab_attach_egdb(ab, DB, 7);
  int differ[2] = {0, 0};
  for (int k = 0; k < 120; k++) {
    game_pos p = random_position(&r, 8 + k % 2);
    ab_result res;
    ck_assert_int_eq(ab_run(ab, &p, NULL, &res, err, sizeof err), 0);
    agent_reset(a);
    ab_clear(ab);
    differ[k % 2] += agent_choose(a, &p, NULL) != res.best;
  }
  CHECK(differ[0] == 0 && differ[1] > 0,
        "the agent's move differs from the endgame search's in %d positions of 8 seeds (want "
        "none) and %d of 9 (want some)",
        differ[0], differ[1]);
  ab_free(ab);
  agent_free(a);
}
END_TEST

/* The egdb agent plays the database's best moves within it, and exactly
 * what its else= agent plays outside it. */
START_TEST(egdb_agent_plays_best_and_delegates) {
  char spec[700], err[512];
  snprintf(spec, sizeof spec, "egdb dir=%s else=alphabeta,depth=2", db_dir);
  agent *a = agent_create(&G, spec, 1, err, sizeof err);
  ck_assert_msg(a != NULL, "%s", err);
  agent *ab = agent_create(&G, "alphabeta depth=2", 1, err, sizeof err);
  rng_t r;
  rng_seed(&r, 3, 0);
  for (int k = 0; k < 100; k++) {
    game_pos p = random_position(&r, 2 + k % 9);
    int res, mar;
    verdict(&p, agent_choose(a, &p, NULL), &res, &mar);
    CHECK(res && mar, "case %d: not the database's best move", k);
  }
  /* Its analysis: the exact values of every legal move and nothing a
   * search would give (no visits, no lines), whatever the struct held. */
  agent_analysis an;
  memset(&an, 0xa5, sizeof an);
  game_pos p = random_position(&r, 7);
  ck_assert_int_eq(agent_analyze(a, &p, NULL, &an), 0);
  ck_assert(an.has_margin == 1);
  ck_assert_int_eq(an.n, game_count(game_legal(&G, &p)));
  int vals[GAME_MAX_ACTIONS];
  egdb_probe_moves(DB, &G, &p, vals);
  for (int i = 0; i < an.n; i++) {
    int a_i = an.action[i], m = p.store[p.mover] - p.store[1 - p.mover] + vals[a_i];
    ck_assert_int_eq(an.visits[i], 0);
    ck_assert_int_eq(an.pv_len[i], 0);
    ck_assert_float_eq(an.value[i], (float)((m > 0) - (m < 0)));
    if (a_i == an.best) ck_assert_float_eq(an.root_value, an.value[i]);
  }
  /* Outside: random positions of many seeds. */
  for (int k = 0; k < 30; k++) {
    game_pos q = random_position(&r, 12 + k);
    ck_assert_int_eq(agent_choose(a, &q, NULL), agent_choose(ab, &q, NULL));
  }
  agent_free(a);
  agent_free(ab);
  /* The delegate cannot be egdb itself; a bad delegate names else=. */
  snprintf(spec, sizeof spec, "egdb dir=%s else=egdb", db_dir);
  ck_assert(agent_create(&G, spec, 1, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, "else=egdb"), "%s", err);
  snprintf(spec, sizeof spec, "egdb dir=%s else=alphabeta,depth=0", db_dir);
  ck_assert(agent_create(&G, spec, 1, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, "else=alphabeta,depth=0") && strstr(err, "depth"), "%s", err);
}
END_TEST

/* A bad egdb= names the setting and the folder; egdb=on names the folder
 * it resolved to; a database of other rules is refused for that game. */
START_TEST(bad_egdb_settings_are_clear_errors) {
  char err[1024], spec[700];
  const char *kinds[] = {"mcts sims=10 egdb=/no/such/db", "alphabeta egdb=/no/such/db",
                         "egdb dir=/no/such/db"};
  for (int i = 0; i < 3; i++) {
    ck_assert(agent_create(&G, kinds[i], 1, err, sizeof err) == NULL);
    CHECK(strstr(err, "=/no/such/db:") && strstr(err, "no database there"), "%s", err);
  }
  /* A folder of one character is a folder too ("off" and "" alone are none). */
  ck_assert(agent_create(&G, "mcts sims=10 egdb=q", 1, err, sizeof err) == NULL);
  CHECK(strstr(err, "egdb=q:") && strstr(err, "no database there"), "%s", err);
  agent_params none = {1, "/no/such/default"}, here = {1, db_dir};
  ck_assert(agent_make(&G, "mcts egdb=on", &none, err, sizeof err) == NULL);
  CHECK(strstr(err, "egdb=on") && strstr(err, "/no/such/default"), "%s", err);
  agent *a = agent_make(&G, "alphabeta egdb=on", &here, err, sizeof err);
  ck_assert_msg(a != NULL, "%s", err);
  agent_free(a);
  /* The egdb agent's own agent outside the database inherits the folder. */
  ck_assert(agent_make(&G, "egdb else=alphabeta,egdb=on", &none, err, sizeof err) == NULL);
  CHECK(strstr(err, "/no/such/default"), "%s", err);
  a = agent_make(&G, "egdb else=alphabeta,egdb=on", &here, err, sizeof err);
  ck_assert_msg(a != NULL, "%s", err);
  agent_free(a);
  game w;
  ck_assert_int_eq(game_configure(&w, "warri", 0, NULL, err, sizeof err), 0);
  snprintf(spec, sizeof spec, "mcts egdb=%s", db_dir);
  ck_assert(agent_create(&w, spec, 1, err, sizeof err) == NULL);
  CHECK(strstr(err, "warri") && strstr(err, "egdb="), "%s", err);
}
END_TEST

/* The default folder: the one given, else $SOWZERO_EGDB, else
 * $XDG_DATA_HOME/sowzero/egdb, else $HOME/.local/share/sowzero/egdb; with
 * none of them an error that says what to set. */
START_TEST(default_dir_order) {
  char err[256], dir[512];
  const char *keep[] = {"SOWZERO_EGDB", "XDG_DATA_HOME", "HOME"};
  char saved[3][512];
  int had[3];
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(keep[i]);
    had[i] = v != NULL;
    snprintf(saved[i], sizeof saved[i], "%s", v ? v : "");
  }
  const char *given = "/set/here";
  setenv("SOWZERO_EGDB", "/env/db", 1);
  setenv("XDG_DATA_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  const char *want[] = {"/set/here", "/env/db", "/xdg/sowzero/egdb",
                        "/home/u/.local/share/sowzero/egdb"};
  for (int i = 0; i < 4; i++) {
    ck_assert_msg(egdb_default_dir(given, dir, sizeof dir, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(dir, want[i]);
    /* A buffer that holds the name and its end fits; one byte less is
     * refused, never a cut name. */
    size_t n = strlen(want[i]);
    ck_assert_int_eq(egdb_default_dir(given, dir, n + 1, err, sizeof err), 0);
    ck_assert_str_eq(dir, want[i]);
    ck_assert_int_eq(egdb_default_dir(given, dir, n, err, sizeof err), -1);
    ck_assert_str_eq(err, "the database folder's name is too long");
    if (i == 0)
      given = ""; /* "" is none, as NULL is */
    else
      unsetenv(keep[i - 1]);
  }
  unsetenv("HOME");
  ck_assert_int_eq(egdb_default_dir(NULL, dir, sizeof dir, err, sizeof err), -1);
  ck_assert_str_eq(err, "no database folder: set SOWZERO_EGDB (or XDG_DATA_HOME or HOME)");
  for (int i = 0; i < 3; i++)
    if (had[i]) setenv(keep[i], saved[i], 1);
}
END_TEST

/* One opened copy per folder, however named, until the last release. */
START_TEST(databases_are_shared) {
  char err[512], other[600];
  snprintf(other, sizeof other, "%s/.", db_dir);
  egdb *a = egdb_acquire(other, err, sizeof err);
  ck_assert_msg(a == DB, "%s", err);
  egdb_release(a);
  ck_assert_int_eq(egdb_max_seeds(DB), SMALL_N);
}
END_TEST

/* Self-play on a board of 12 seeds (seeds=1: the values ignore the seed
 * count): every recorded position the database holds gets its exact
 * outcome and margin as targets. */
START_TEST(selfplay_targets_are_exact) {
  char err[512];
  game g;
  char *set[] = {"seeds=1"};
  ck_assert_int_eq(game_configure(&g, "oware", 1, set, err, sizeof err), 0);
  ck_assert(egdb_serves(DB, &g));
  nn_net *net = game_net(&g, 16, 3);
  netslot *slot = netslot_create(net, err, sizeof err);
  replay *buf = replay_create(&g, 1 << 14, err, sizeof err);
  selfplay_counters cnt;
  memset(&cnt, 0, sizeof cnt);
  selfplay_params p;
  memset(&p, 0, sizeof p);
  p.g = &g;
  p.search = mcts_defaults();
  p.search.sims = 8;
  p.search.node_cap = 2000;
  p.search.temp_plies = 20;
  p.games = 4;
  p.full_frac = 1;
  p.seed = 5;
  p.phased = 1;
  p.db = DB;
  selfplay_store store = {buf, NULL};
  p.sink = selfplay_store_game;
  p.sink_ctx = &store;
  selfplay *sp = selfplay_start(&p, 1, slot, &cnt, err, sizeof err);
  ck_assert_msg(sp != NULL, "%s", err);
  ck_assert_int_eq(selfplay_phase(sp, 200, NULL), 0);
  ck_assert_int_eq(selfplay_stop(sp, err, sizeof err), 0);
  replay_sample s[400];
  rng_t r;
  rng_seed(&r, 1, 0);
  ck_assert_int_eq(replay_sample_batch(buf, &r, s, 400), 0);
  int inside = 0;
  for (int i = 0; i < 400; i++) {
    egdb_result ex;
    if (!egdb_exact(DB, &g, &s[i].pos, 0, &ex)) continue;
    inside++;
    CHECK(s[i].z == ex.outcome && s[i].margin == ex.margin,
          "sample %d: z %d margin %d, exact %d %d", i, s[i].z, s[i].margin, ex.outcome, ex.margin);
  }
  CHECK(inside > 100, "only %d samples within the database", inside);
  replay_free(buf);
  netslot_free(slot);
  nn_free(net);
}
END_TEST

/* [egdb] in a config: the keys, their ranges, and Oware only. */
START_TEST(config_egdb_section) {
  char dir[256], path[300], err[1024];
  scratch_dir(dir, sizeof dir, "egdbcfg");
  snprintf(path, sizeof path, "%s/c.ini", dir);
  put_file(path, "[egdb]\nenabled = 1\nmax_seeds = 8\n");
  train_config c;
  ck_assert_msg(config_load(&c, path, 0, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert(c.egdb_enabled && c.egdb_max_seeds == 8 && c.egdb_dir[0] == 0);
  /* The run's database: a folder without one is refused by name, the
   * small one here is taken (one shared copy), none asked gives none. */
  egdb *db = DB;
  char where[512];
  ck_assert_int_lt(snprintf(c.egdb_dir, sizeof c.egdb_dir, "%s/none", dir), (int)sizeof c.egdb_dir);
  ck_assert_int_eq(endgame_acquire_db(&c, &db, where, sizeof where, err, sizeof err), -1);
  ck_assert_ptr_null(db);
  CHECK(strstr(err, "egdb.dir") && strstr(err, c.egdb_dir), "%s", err);
  ck_assert_int_lt(snprintf(c.egdb_dir, sizeof c.egdb_dir, "%s", db_dir), (int)sizeof c.egdb_dir);
  ck_assert_msg(endgame_acquire_db(&c, &db, where, sizeof where, err, sizeof err) == 0, "%s", err);
  ck_assert_ptr_eq(db, DB);
  ck_assert_str_eq(where, db_dir);
  egdb_release(db);
  c.egdb_enabled = 0;
  ck_assert_int_eq(endgame_acquire_db(&c, &db, where, sizeof where, err, sizeof err), 0);
  ck_assert_ptr_null(db);
  /* A run asked for a database that is not there does not start. */
  char over_dir[400], run_dir[300];
  snprintf(over_dir, sizeof over_dir, "egdb.dir=%s/none", dir);
  snprintf(run_dir, sizeof run_dir, "%s/run", dir);
  char *over[] = {"egdb.enabled=1", over_dir, "run.iterations=1"};
  train_args a = {.config_path = "configs/tiny.ini", .run_dir = run_dir, .n_over = 3, .over = over};
  ck_assert_int_eq(train_run(&a, err, sizeof err), -1);
  CHECK(strstr(err, "egdb.dir") && strstr(err, "/none"), "%s", err);
  put_file(path, "[game]\nname = warri\n[egdb]\nenabled = 1\n");
  ck_assert(config_load(&c, path, 0, NULL, err, sizeof err) != 0);
  CHECK(strstr(err, "egdb.enabled") && strstr(err, "warri"), "%s", err);
  put_file(path, "[egdb]\nmax_seeds = 31\n");
  ck_assert(config_load(&c, path, 0, NULL, err, sizeof err) != 0);
  CHECK(strstr(err, ":2: egdb.max_seeds"), "%s", err);
  put_file(path, "[egdb]\nfolder = x\n");
  ck_assert(config_load(&c, path, 0, NULL, err, sizeof err) != 0);
  CHECK(strstr(err, "unknown key") && strstr(err, "enabled"), "%s", err);
  ck_assert(config_resumable("egdb.dir") && !config_resumable("egdb.enabled"));
  remove_tree(dir);
}
END_TEST

/* The run's banner line for its database counts the positions it
 * measures the network on: none when eval_positions = 0. The run stops
 * as soon as the line is out. */
typedef struct {
  volatile sig_atomic_t stop;
  char line[512];
} banner_watch;

static void watch_banner(void *ctx, int kind, const train_status *st, const char *line) {
  banner_watch *w = ctx;
  (void)st;
  if (kind == 1 && line && strstr(line, "endgame database")) {
    snprintf(w->line, sizeof w->line, "%s", line);
    w->stop = 1;
  }
}

START_TEST(run_banner_counts_the_measured_positions) {
  char dir[256], run_dir[300], over_dir[600], err[1024];
  scratch_dir(dir, sizeof dir, "egdbbanner");
  snprintf(over_dir, sizeof over_dir, "egdb.dir=%s", db_dir);
  for (int k = 0; k < 2; k++) {
    banner_watch w = {0, ""};
    snprintf(run_dir, sizeof run_dir, "%s/run%d", dir, k);
    char *over[] = {"egdb.enabled=1", over_dir,
                    k ? "egdb.eval_positions=7" : "egdb.eval_positions=0", "run.iterations=1"};
    train_args a = {.config_path = "configs/tiny.ini",
                    .run_dir = run_dir,
                    .n_over = 4,
                    .over = over,
                    .progress = watch_banner,
                    .progress_ctx = &w,
                    .stop = &w.stop};
    ck_assert_msg(train_run(&a, err, sizeof err) == 0, "%s", err);
    const char *at = strstr(w.line, " positions to measure");
    ck_assert_msg(at != NULL, "no banner line: '%s'", w.line);
    while (at > w.line && at[-1] >= '0' && at[-1] <= '9') at--;
    int n = atoi(at);
    if (k == 0)
      ck_assert_msg(n == 0, "%s", w.line);
    else
      ck_assert_msg(n > 0 && n % 7 == 0, "%s", w.line); /* 7 of each seed count measured */
  }
  remove_tree(dir);
}
END_TEST

/* The endgame set ([egdb] measurement): up to per_level positions of each
 * of the top seed counts the database holds, however many are asked (an
 * empty board is no position), each measured and counted under its seed
 * count. */
START_TEST(endgame_set_covers_the_seed_counts_asked) {
  char err[512];
  nn_net *net = game_net(&G, 16, 5);
  for (int asked = 3; asked <= 30; asked += 27) {
    endgame_set *e = endgame_sample(DB, &G, 2, asked, 9, err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    int levels = asked < SMALL_N ? asked : SMALL_N;
    ck_assert_int_le(endgame_count(e), 2 * levels);
    char out[16384];
    json_writer w;
    json_writer_init(&w, out, sizeof out);
    json_begin_object(&w, NULL);
    ck_assert_msg(endgame_measure(e, net, 1.0f, 4, &w, err, sizeof err) == 0, "%s", err);
    json_end_object(&w);
    ck_assert_int_eq(json_writer_done(&w), 0);
    json_doc *d = json_parse(out, err, sizeof err);
    ck_assert_msg(d != NULL, "%s: %s", err, out);
    int eg = json_get(d, 0, "egdb"), seeds = json_get(d, eg, "seeds");
    double all, n;
    ck_assert_int_eq(json_get_number(d, eg, "positions", &all), 0);
    ck_assert_int_eq((int)all, endgame_count(e));
    /* Each figure is a mean over positions: within its range, and the
     * overall one the positions-weighted mean of the seed counts' own. */
    static const char *const means[] = {"value_mae",     "margin_mae",    "policy_result",
                                        "policy_margin", "search_result", "search_margin"};
    static const double top[] = {2, 48, 1, 1, 1, 1};
    double weighted[6] = {0}, overall[6];
    for (int f = 0; f < 6; f++) {
      ck_assert_int_eq(json_get_number(d, eg, means[f], &overall[f]), 0);
      ck_assert_msg(overall[f] >= 0 && overall[f] <= top[f], "%s %g", means[f], overall[f]);
    }
    int k = 0, sum = 0;
    for (int c = json_first(d, seeds); c >= 0; c = json_next(d, c), k++) {
      char want[16];
      snprintf(want, sizeof want, "%d", SMALL_N - k);
      ck_assert_str_eq(json_key(d, c), want);
      ck_assert_int_eq(json_get_number(d, c, "positions", &n), 0);
      ck_assert_msg(n >= 1 && n <= 2, "%g positions of %s seeds", n, want);
      sum += (int)n;
      for (int f = 0; f < 6; f++) {
        double x;
        ck_assert_int_eq(json_get_number(d, c, means[f], &x), 0);
        ck_assert_msg(x >= 0 && x <= top[f], "%s seeds: %s %g", want, means[f], x);
        weighted[f] += x * n;
      }
      /* A move of the best margin keeps the best result: never more
       * positions of the one than of the other. */
      double pr, pm, sr, sm;
      json_get_number(d, c, "policy_result", &pr), json_get_number(d, c, "policy_margin", &pm);
      json_get_number(d, c, "search_result", &sr), json_get_number(d, c, "search_margin", &sm);
      ck_assert_msg(pm <= pr && sm <= sr, "%s seeds: margins %g %g, results %g %g", want, pm, sm,
                    pr, sr);
    }
    ck_assert_int_eq(k, levels);
    ck_assert_int_eq(sum, (int)all);
    for (int f = 0; f < 6; f++)
      ck_assert_msg(fabs(weighted[f] / all - overall[f]) < 2e-3 * (1 + overall[f]),
                    "%s: %g overall, %g from the seed counts", means[f], overall[f],
                    weighted[f] / all);
    json_free(d);
    endgame_free(e);
  }
  nn_free(net);
}
END_TEST

static Suite *egdb_play_suite(void) {
  Suite *s = suite_create("egdb_play");
  TCase *t = add_tests(
      s, "play", 120,
      (const TTest *const[]){
          mcts_with_egdb_plays_exact_moves, mcts_proves_roots_above_the_database,
          alphabeta_with_egdb_is_exact, endgame_search_finds_the_biggest_win_above_the_database,
          egdb_agent_plays_best_and_delegates, bad_egdb_settings_are_clear_errors,
          databases_are_shared, default_dir_order, selfplay_targets_are_exact, config_egdb_section,
          run_banner_counts_the_measured_positions, endgame_set_covers_the_seed_counts_asked,
          NULL});
  tcase_add_unchecked_fixture(t, build_small, remove_small);
  tcase_add_checked_fixture(t, open_small, close_small);
  return s;
}

TEST_MAIN(egdb_play_suite)

/* The JSON analysis engine (protocol/analysis.h): answers and their lines,
 * ids and error fields, the same answers from concurrent threads, and the
 * endgame database's exact values. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "protocol/analysis.h"
#include "search/agent.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

static const analysis_opts plain = {NULL, NULL, NULL};

/* The answer to one query line, parsed; rc the return of analysis_answer. */
static json_doc *ask(const analysis_opts *o, const char *line, int *rc, char **text) {
  char *out, err[256];
  *rc = analysis_answer(o, line, strlen(line), &out);
  ck_assert_ptr_nonnull(out);
  size_t n = strlen(out);
  ck_assert_msg(n > 1 && out[n - 1] == '\n' && !memchr(out, '\n', n - 1), "not one line: %s", out);
  json_doc *d = json_parse(out, err, sizeof err);
  ck_assert_msg(d != NULL, "%s: %s", err, out);
  if (text)
    *text = out;
  else
    free(out);
  return d;
}

START_TEST(analyses_every_move_with_its_line) {
  int rc;
  json_doc *d = ask(&plain,
                    "{\"id\":\"q\",\"moves\":[2,3,1],\"turns\":[0,3],\"agent\":\"mcts sims=200\","
                    "\"seed\":4}",
                    &rc, NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_str_eq(json_get_string(d, 0, "id"), "q");
  ck_assert_str_eq(json_get_string(d, 0, "agent"), "mcts sims=200");
  int turns = json_get(d, 0, "turns"), want_turn[] = {0, 3}, k = 0;
  for (int t = json_first(d, turns); t >= 0; t = json_next(d, t), k++) {
    double turn, visits, mover, sum = 0;
    ck_assert_int_eq(json_get_number(d, t, "turn", &turn), 0);
    ck_assert_int_eq((int)turn, want_turn[k]);
    json_get_number(d, t, "mover", &mover);
    ck_assert_int_eq((int)mover, want_turn[k] % 2); /* Oware alternates */
    json_get_number(d, t, "visits", &visits);
    int moves = json_get(d, t, "moves"), n = 0, deep = 0;
    for (int m = json_first(d, moves); m >= 0; m = json_next(d, m), n++) {
      double v, action;
      json_get_number(d, m, "visits", &v);
      json_get_number(d, m, "action", &action);
      sum += v;
      int pv = json_get(d, m, "pv");
      /* The line starts with the move, labelled as the board names it. */
      ck_assert_str_eq(json_string(d, json_first(d, pv)), json_get_string(d, m, "move"));
      int len = 0;
      for (int c = json_first(d, pv); c >= 0; c = json_next(d, c)) len++;
      deep += len > 2;
      /* A line follows visited nodes only: each ply down took at least one
       * of the move's visits. */
      ck_assert_msg(len <= ((int)v > 1 ? (int)v : 1), "a line of %d plies after %d visits", len,
                    (int)v);
      /* North's action a is the pit the drawing labels a + 6. */
      char label[8];
      snprintf(label, sizeof label, "%d", (int)action + 6 * (int)mover);
      ck_assert_str_eq(json_get_string(d, m, "move"), label);
    }
    ck_assert_int_eq(n, want_turn[k] == 0 ? 6 : n);
    ck_assert_msg(n > 0 && deep > 0, "no move with a line of three");
    ck_assert_int_eq((int)sum, (int)visits);
    ck_assert_int_ge((int)visits, 190);
  }
  ck_assert_int_eq(k, 2);
  json_free(d);
}
END_TEST

START_TEST(errors_name_the_query_and_the_field) {
  static const struct {
    const char *line, *id, *field;
  } cases[] = {
      {"{\"id\":\"a\",\"moves\":[9]}", "a", "moves"},
      {"{\"id\":\"a\",\"moves\":[0,0,0]}", "a", "moves"}, /* South's pit 0 is empty */
      {"{\"id\":\"a\",\"moves\":[\"x\"]}", "a", "moves"},
      {"{\"id\":\"b\",\"game\":\"chess\"}", "b", "game"},
      {"{\"id\":\"c\",\"rules\":{\"seeds\":\"many\"}}", "c", "rules"},
      {"{\"id\":\"d\",\"turns\":[1]}", "d", "turns"},
      {"{\"id\":\"e\",\"colour\":1}", "e", "colour"},
      {"{\"id\":\"f\",\"rules\":{\"houses\":5}}", "f", "network"}, /* the shipped one has 6 */
      {"{\"id\":\"g\",\"agent\":\"random\"}", "g", "agent"},
      {"{\"id\":\"h\",\"agent\":\"mcts sims=8 depth=2\"}", "h", "agent"},
      {"{\"id\":\"i\",\"sims\":-3}", "i", "sims"},
      {"{\"id\":\"j\",\"position\":\"0 1 2\"}", "j", "position"},
      {"{\"id\":\"k\",\"seed\":1.5}", "k", "seed"},
      {"{\"moves\":[]}", NULL, "id"},
      {"{\"id\":1e999}", NULL, "id"}, /* no finite number to echo */
      {"[1,2]", NULL, NULL},
      {"{\"id\":1", NULL, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int rc;
    char *text;
    json_doc *d = ask(&plain, cases[i].line, &rc, &text);
    ck_assert_msg(rc == 1, "%s: answered %s", cases[i].line, text);
    const char *id = json_get_string(d, 0, "id"), *field = json_get_string(d, 0, "field");
    ck_assert_msg(cases[i].id ? id && !strcmp(id, cases[i].id) : !id, "%s: %s", cases[i].line,
                  text);
    ck_assert_msg(cases[i].field ? field && !strcmp(field, cases[i].field) : !field, "%s: %s",
                  cases[i].line, text);
    ck_assert_ptr_nonnull(json_get_string(d, 0, "error"));
    free(text);
    json_free(d);
  }
  /* A position of neither kind is named as such. */
  int rc;
  char *text;
  json_doc *d = ask(&plain, "{\"id\":\"p\",\"position\":3}", &rc, &text);
  ck_assert_int_eq(rc, 1);
  ck_assert_str_eq(json_get_string(d, 0, "field"), "position");
  ck_assert_str_eq(json_get_string(d, 0, "error"),
                   "position must be a string or an array of the game's board tokens");
  free(text);
  json_free(d);
  /* Blank lines get nothing; a NUL byte is an error. */
  char *out;
  ck_assert_int_eq(analysis_answer(&plain, " \r\n", 3, &out), 2);
  ck_assert_ptr_null(out);
  ck_assert_int_eq(analysis_answer(&plain, "{\"id\":1}\0x", 10, &out), 1);
  ck_assert_ptr_nonnull(strstr(out, "NUL"));
  free(out);
  /* The longest query is ANALYSIS_MAX_LINE - 1 bytes, and a longer one's
   * error says so. */
  char *big = malloc(ANALYSIS_MAX_LINE), msg[64];
  memset(big, ' ', ANALYSIS_MAX_LINE);
  memcpy(big, "{\"id\":7}", 8);
  ck_assert_int_eq(analysis_answer(&plain, big, ANALYSIS_MAX_LINE - 1, &out), 0);
  free(out);
  ck_assert_int_eq(analysis_answer(&plain, big, ANALYSIS_MAX_LINE, &out), 1);
  snprintf(msg, sizeof msg, "query longer than %d bytes", ANALYSIS_MAX_LINE - 1);
  ck_assert_msg(strstr(out, msg), "%s", out);
  free(out);
  free(big);
}
END_TEST

/* A query without a seed is seeded 1 (docs/ANALYSIS.md), and the seed
 * matters to a search with noise. */
START_TEST(the_default_seed_is_one) {
  static const char *const q[3] = {
      "{\"id\":0,\"moves\":[2],\"agent\":\"mcts sims=60 noise=1\"}",
      "{\"id\":0,\"moves\":[2],\"agent\":\"mcts sims=60 noise=1\",\"seed\":1}",
      "{\"id\":0,\"moves\":[2],\"agent\":\"mcts sims=60 noise=1\",\"seed\":2}"};
  char *out[3];
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(analysis_answer(&plain, q[i], strlen(q[i]), &out[i]), 0);
    ck_assert_msg(!strstr(out[i], "\"error\""), "%s", out[i]);
  }
  ck_assert_str_eq(out[0], out[1]);
  ck_assert_str_ne(out[1], out[2]);
  for (int i = 0; i < 3; i++) free(out[i]);
  /* Each turn is seeded by the seed and its own number: its answer is the
   * same whichever other turns the query asks for. */
  static const char *const both =
                               "{\"id\":0,\"moves\":[2,3],\"turns\":[0,1,2],\"agent\":"
                               "\"mcts sims=60 noise=1\",\"seed\":3}",
                           *last =
                               "{\"id\":0,\"moves\":[2,3],\"turns\":[2],\"agent\":"
                               "\"mcts sims=60 noise=1\",\"seed\":3}";
  char *a, *b, err[256];
  ck_assert_int_eq(analysis_answer(&plain, both, strlen(both), &a), 0);
  ck_assert_int_eq(analysis_answer(&plain, last, strlen(last), &b), 0);
  json_doc *da = json_parse(a, err, sizeof err), *db = json_parse(b, err, sizeof err);
  ck_assert(da && db);
  int ta = json_first(da, json_get(da, 0, "turns")), tb = json_first(db, json_get(db, 0, "turns"));
  ck_assert(ta >= 0 && tb >= 0);
  ta = json_next(da, json_next(da, ta));
  ck_assert(ta >= 0);
  int ma = json_first(da, json_get(da, ta, "moves")),
      mb = json_first(db, json_get(db, tb, "moves"));
  int n = 0;
  for (; ma >= 0 && mb >= 0; ma = json_next(da, ma), mb = json_next(db, mb), n++) {
    double va, vb;
    ck_assert_int_eq(json_get_number(da, ma, "visits", &va), 0);
    ck_assert_int_eq(json_get_number(db, mb, "visits", &vb), 0);
    ck_assert_msg(va == vb, "turn 2, move %d: %g visits asked with turns 0 and 1, %g alone", n, va,
                  vb);
  }
  ck_assert(ma < 0 && mb < 0 && n > 1);
  json_free(da);
  json_free(db);
  free(a);
  free(b);
}
END_TEST

/* ---- Threads ------------------------------------------------------------------------ */

#define N_QUERIES 6
static const char *const queries[N_QUERIES] = {
    "{\"id\":0,\"moves\":[2,3],\"agent\":\"mcts sims=60\"}",
    "{\"id\":1,\"game\":\"kujifunza\",\"agent\":\"mcts sims=40\"}",
    "{\"id\":2,\"game\":\"namnam\",\"agent\":\"mcts sims=40\",\"seed\":9}",
    "{\"id\":3,\"game\":\"bao-kenya\",\"agent\":\"alphabeta depth=3\"}",
    "{\"id\":4,\"game\":\"bao-laps\",\"agent\":\"mcts sims=40\",\"moves\":[0]}",
    "{\"id\":5,\"game\":\"warri\",\"agent\":\"mcts sims=40\",\"turns\":[0,1],\"moves\":[1]}",
};
static char *answers[N_QUERIES];

static void *answer_some(void *arg) {
  for (int i = *(int *)arg; i < N_QUERIES; i += 2)
    analysis_answer(&plain, queries[i], strlen(queries[i]), &answers[i]);
  return NULL;
}

START_TEST(concurrent_queries_answer_as_alone) {
  char *alone[N_QUERIES];
  for (int i = 0; i < N_QUERIES; i++) {
    ck_assert_int_eq(analysis_answer(&plain, queries[i], strlen(queries[i]), &alone[i]), 0);
    ck_assert_msg(!strstr(alone[i], "\"error\""), "%s", alone[i]);
  }
  pthread_t t[2];
  int first[2] = {0, 1};
  for (int k = 0; k < 2; k++)
    ck_assert_int_eq(pthread_create(&t[k], NULL, answer_some, &first[k]), 0);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  for (int i = 0; i < N_QUERIES; i++) {
    ck_assert_str_eq(answers[i], alone[i]);
    free(answers[i]);
    free(alone[i]);
  }
}
END_TEST

/* ---- The endgame database ---------------------------------------------------------- */

START_TEST(egdb_values_are_the_databases) {
  char dir[512], err[512];
  scratch_dir(dir, sizeof dir, "analysis-egdb");
  egdb_build_params p = {5, 1, NULL, NULL};
  ck_assert_msg(egdb_build(dir, &p, err, sizeof err) == 0, "%s", err);
  egdb *db = egdb_open(dir, err, sizeof err);
  ck_assert_msg(db != NULL, "%s", err);
  game g;
  ck_assert_int_eq(game_configure(&g, "oware", 0, NULL, err, sizeof err), 0);
  const char *tokens = "0 1 0 2 0 0 0 0 1 0 0 1 0 20 23";
  char *argv[16], buf[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", tokens);
  for (char *s = strtok(buf, " "); s; s = strtok(NULL, " ")) argv[argc++] = s;
  game_pos pos;
  ck_assert_int_eq(g.rules->setboard(&g, &pos, argc, argv, err, sizeof err), 0);
  int vals[GAME_MAX_ACTIONS], v = egdb_probe(db, &g, &pos);
  game_moves m = egdb_probe_moves(db, &g, &pos, vals);
  ck_assert_int_ne(v, EGDB_NONE);

  char line[256];
  snprintf(line, sizeof line, "{\"id\":1,\"position\":\"%s\",\"agent\":\"mcts sims=50\"}", tokens);
  analysis_opts o = {db, NULL, NULL};
  int rc;
  json_doc *d = ask(&o, line, &rc, NULL);
  ck_assert_int_eq(rc, 0);
  int t = json_first(d, json_get(d, 0, "turns")), n = 0;
  double x;
  ck_assert_int_eq(json_get_number(d, t, "egdb", &x), 0);
  ck_assert_int_eq((int)x, v);
  for (int mv = json_first(d, json_get(d, t, "moves")); mv >= 0; mv = json_next(d, mv), n++) {
    double a, e;
    json_get_number(d, mv, "action", &a);
    ck_assert_msg(m >> (int)a & 1, "move %d not in the database's", (int)a);
    ck_assert_int_eq(json_get_number(d, mv, "egdb", &e), 0);
    ck_assert_int_eq((int)e, vals[(int)a]);
  }
  ck_assert_int_eq(n, game_count(m));
  json_free(d);
  /* Asked not to, or without a database: null. */
  snprintf(line, sizeof line,
           "{\"id\":1,\"position\":\"%s\",\"agent\":\"mcts sims=50\",\"egdb\":false}", tokens);
  d = ask(&o, line, &rc, NULL);
  t = json_first(d, json_get(d, 0, "turns"));
  ck_assert_int_eq(json_type_of(d, json_get(d, t, "egdb")), JSON_NULL);
  json_free(d);
  egdb_close(db);
  remove_tree(dir);
}
END_TEST

/* Rules as a string of key=value settings are the same rules as an object
 * of them: the same answer, and the same refusal of a bad value. */
START_TEST(rules_as_a_string_or_an_object) {
  static const char *const pairs[][2] = {
      {"{\"id\":\"r\",\"moves\":[2],\"rules\":{\"grand_slam\":\"forbidden\",\"repetition\":2},"
       "\"agent\":\"mcts sims=60\",\"seed\":5}",
       "{\"id\":\"r\",\"moves\":[2],\"rules\":\"grand_slam=forbidden  repetition=2\","
       "\"agent\":\"mcts sims=60\",\"seed\":5}"},
      {"{\"id\":\"s\",\"rules\":{\"seeds\":\"many\"}}", "{\"id\":\"s\",\"rules\":\"seeds=many\"}"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    int rc[2];
    char *text[2];
    for (int k = 0; k < 2; k++) json_free(ask(&plain, pairs[i][k], &rc[k], &text[k]));
    ck_assert_msg(rc[0] == (i ? 1 : 0) && rc[1] == rc[0], "%s: %s", pairs[i][1], text[1]);
    ck_assert_str_eq(text[1], text[0]);
    free(text[0]);
    free(text[1]);
  }
  /* A string is read up to twice as many settings as a game may have
   * options; more are refused before the rules see them. */
  for (int n = 2 * GAME_MAX_OPTIONS; n <= 2 * GAME_MAX_OPTIONS + 1; n++) {
    char line[1024];
    size_t at = (size_t)snprintf(line, sizeof line, "{\"id\":\"m\",\"rules\":\"");
    for (int k = 0; k < n; k++) at += (size_t)snprintf(line + at, sizeof line - at, "seeds=4 ");
    snprintf(line + at, sizeof line - at, "\",\"agent\":\"greedy\"}");
    int rc;
    char *text;
    json_free(ask(&plain, line, &rc, &text));
    if (n == 2 * GAME_MAX_OPTIONS) /* read, then refused by the rules */
      ck_assert_msg(rc == 1 && strstr(text, "given twice"), "%d settings: %s", n, text);
    else
      ck_assert_msg(rc == 1 && strstr(text, "too many rule settings"), "%d settings: %s", n, text);
    free(text);
  }
}
END_TEST

/* sims and time join the agent's spec as settings: the answer names the
 * agent they make, and the search makes that many simulations. */
START_TEST(sims_and_time_join_the_agents_spec) {
  int rc;
  json_doc *d = ask(&plain, "{\"id\":\"t\",\"agent\":\"mcts\",\"sims\":77,\"time\":30}", &rc, NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_str_eq(json_get_string(d, 0, "agent"), "mcts sims=77 time=30");
  double visits;
  int turn = json_first(d, json_get(d, 0, "turns"));
  ck_assert_int_eq(json_get_number(d, turn, "visits", &visits), 0);
  ck_assert_int_eq((int)visits, 76); /* the first simulation expands the root */
  json_free(d);
}
END_TEST

/* A line goes on through a forced reply: after South's pit 0, North's one
 * seed is its only move, so a move searched twice or more has a line of at
 * least two plies. */
START_TEST(a_line_goes_through_a_forced_reply) {
  int rc;
  json_doc *d = ask(&plain,
                    "{\"id\":\"f\",\"position\":\"0 1 0 0 0 0 2 0 0 0 0 0 1 20 24\","
                    "\"agent\":\"mcts sims=200\",\"seed\":3}",
                    &rc, NULL);
  ck_assert_int_eq(rc, 0);
  int turn = json_first(d, json_get(d, 0, "turns")), found = 0;
  int moves = json_get(d, turn, "moves");
  for (int m = json_first(d, moves); m >= 0; m = json_next(d, m)) {
    double action, visits;
    json_get_number(d, m, "action", &action);
    json_get_number(d, m, "visits", &visits);
    if ((int)action != 0) continue;
    found = 1;
    int len = 0, pv = json_get(d, m, "pv");
    for (int c = json_first(d, pv); c >= 0; c = json_next(d, c)) len++;
    ck_assert_int_ge((int)visits, 2);
    ck_assert_msg(len >= 2, "pit 0 after %d visits: a line of %d", (int)visits, len);
    ck_assert_str_eq(json_string(d, json_next(d, json_first(d, pv))), "11");
  }
  ck_assert(found);
  json_free(d);
}
END_TEST

/* A line is as long as an agent keeps (AGENT_PV_MAX plies) and no longer:
 * with four seeds a side, 5,000 simulations go deeper than that along the
 * best move. */
START_TEST(the_longest_line_is_kept_whole) {
  int rc;
  json_doc *d = ask(&plain,
                    "{\"id\":\"l\",\"position\":\"0 1 1 1 1 0 0 0 0 1 1 1 1 20 20\","
                    "\"agent\":\"mcts sims=5000\",\"seed\":1}",
                    &rc, NULL);
  ck_assert_int_eq(rc, 0);
  int turn = json_first(d, json_get(d, 0, "turns")), longest = 0;
  for (int m = json_first(d, json_get(d, turn, "moves")); m >= 0; m = json_next(d, m)) {
    int len = 0;
    for (int c = json_first(d, json_get(d, m, "pv")); c >= 0; c = json_next(d, c)) len++;
    ck_assert_int_le(len, AGENT_PV_MAX);
    if (len > longest) longest = len;
  }
  ck_assert_int_eq(longest, AGENT_PV_MAX);
  json_free(d);
}
END_TEST

/* The action of the legal move labelled `label` for the mover of p, or -1. */
static int action_of(const game *g, const game_pos *p, const char *label) {
  for (game_moves m = game_legal(g, p); m; m &= m - 1) {
    int a = __builtin_ctz(m);
    char l[16];
    game_move_label(g, p->mover, a, l, sizeof l);
    if (!strcmp(l, label)) return a;
  }
  return -1;
}

static double number(const json_doc *d, int obj, const char *key) {
  double x = -9;
  ck_assert_msg(json_get_number(d, obj, key, &x) == 0, "no number '%s'", key);
  return x;
}

/* Every answer holds together, for every game and every kind of agent
 * that analyses: the mover of the position, its legal moves in action
 * order under the board's labels, the best among them, values and priors
 * in range, the visits summed, and each line a legal sequence of moves
 * from the position, each labelled for its own mover. */
/* Every number after "key": in text has exactly places decimals, as
 * docs/ANALYSIS.md promises; the count of such numbers. */
static int decimals_hold(const char *text, const char *key, int places) {
  char pat[32];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  int n = 0;
  for (const char *s = strstr(text, pat); s; s = strstr(s, pat)) {
    s += strlen(pat);
    if (*s == 'n') continue; /* null */
    size_t num = strspn(s, "-0123456789."), point = strcspn(s, ".");
    ck_assert_msg(point < num && num - point - 1 == (size_t)places, "%s with %s decimals: %.*s",
                  key, point < num ? "other" : "no", (int)num, s);
    n++;
  }
  return n;
}

START_TEST(every_answer_holds_together) {
  static const char *const games[] = {"oware", "bao-kenya", "bao-laps", "namnam", "kujifunza"};
  static const char *const agents[] = {"mcts sims=60", "alphabeta depth=2", "zero sims=30", "net"};
  for (int gi = 0; gi < 5; gi++) {
    game g;
    char err[256];
    ck_assert_msg(game_configure(&g, games[gi], 0, NULL, err, sizeof err) == 0, "%s", err);
    game_pos p;
    game_start(&g, &p);
    rng_t r;
    rng_seed(&r, 21, (uint64_t)gi);
    char moves[256] = "";
    size_t k = 0;
    for (int i = 0; i < 7 && p.status == GAME_ONGOING; i++) {
      game_pos q = p;
      int a = game_random_action(&r, game_legal(&g, &p));
      game_play(&g, &q, a);
      if (q.status != GAME_ONGOING) break;
      p = q;
      k += (size_t)snprintf(moves + k, sizeof moves - k, "%s%d", k ? "," : "", a);
    }
    for (int ai = 0; ai < 4; ai++) {
      char line[512], what[64];
      snprintf(line, sizeof line, "{\"id\":1,\"game\":\"%s\",\"moves\":[%s],\"agent\":\"%s\"}",
               games[gi], moves, agents[ai]);
      snprintf(what, sizeof what, "%s, %s", games[gi], agents[ai]);
      int rc;
      char *text;
      json_doc *d = ask(&plain, line, &rc, &text);
      ck_assert_msg(rc == 0, "%s: %s", what, text);
      int t = json_first(d, json_get(d, 0, "turns"));
      ck_assert_int_eq((int)number(d, t, "mover"), p.mover);
      double value = number(d, t, "value"), visits = number(d, t, "visits"), sum = 0, prior = 0;
      ck_assert_msg(value >= -1 && value <= 1, "%s: value %g", what, value);
      game_moves legal = game_legal(&g, &p), seen = 0;
      int last = -1, best = (int)number(d, t, "best_action");
      ck_assert_msg(legal >> best & 1, "%s: best action %d is not legal", what, best);
      char label[16];
      game_move_label(&g, p.mover, best, label, sizeof label);
      ck_assert_str_eq(json_get_string(d, t, "best"), label);
      for (int m = json_first(d, json_get(d, t, "moves")); m >= 0; m = json_next(d, m)) {
        int a = (int)number(d, m, "action");
        ck_assert_msg(a > last && (legal >> a & 1), "%s: action %d after %d: %s", what, a, last,
                      text);
        last = a;
        seen |= (game_moves)1 << a;
        game_move_label(&g, p.mover, a, label, sizeof label);
        ck_assert_str_eq(json_get_string(d, m, "move"), label);
        double v = number(d, m, "value"), pr = number(d, m, "prior");
        ck_assert_msg(v >= -1 && v <= 1 && pr >= 0 && pr <= 1, "%s: value %g, prior %g", what, v,
                      pr);
        sum += number(d, m, "visits");
        prior += pr;
        /* The line: the move, then replies each legal where it is played. */
        game_pos q = p;
        int plies = 0;
        for (int c = json_first(d, json_get(d, m, "pv")); c >= 0; c = json_next(d, c), plies++) {
          const char *l = json_string(d, c);
          int b = q.status == GAME_ONGOING ? action_of(&g, &q, l) : -1;
          ck_assert_msg(b >= 0, "%s: move %d's line, ply %d: '%s' is not a legal move", what, a,
                        plies, l);
          ck_assert_msg(plies > 0 || b == a, "%s: move %d's line starts with %s", what, a, l);
          game_play(&g, &q, b);
        }
        ck_assert_int_ge(plies, 1);
      }
      ck_assert_msg(seen == legal, "%s: moves %x of legal %x", what, (unsigned)seen,
                    (unsigned)legal);
      ck_assert_msg(sum == visits, "%s: %g visits over the moves, %g at the root", what, sum,
                    visits);
      ck_assert_msg(prior == 0 || (prior > 0.99 && prior < 1.01), "%s: priors sum to %g", what,
                    prior);
      ck_assert_int_eq(decimals_hold(text, "value", 4), 1 + game_count(legal));
      ck_assert_int_eq(decimals_hold(text, "prior", 4), game_count(legal));
      decimals_hold(text, "margin", 2);
      free(text);
      json_free(d);
    }
    /* The same position given as its board tokens (every token of the
     * game's longest board, Kujifunza's 32 pits among them). */
    char tokens[512], line[1024];
    int n = snprintf(tokens, sizeof tokens, "%d ", p.mover);
    ck_assert_int_eq(g.rules->board_tokens(&g, &p, tokens + n, sizeof tokens - (size_t)n), 0);
    snprintf(line, sizeof line,
             "{\"id\":2,\"game\":\"%s\",\"position\":\"%s\",\"agent\":\"alphabeta "
             "depth=1\"}",
             games[gi], tokens);
    int rc;
    char *text;
    json_doc *d = ask(&plain, line, &rc, &text);
    ck_assert_msg(rc == 0, "%s, position %s: %s", games[gi], tokens, text);
    int t = json_first(d, json_get(d, 0, "turns")), answered = 0;
    ck_assert_int_eq((int)number(d, t, "mover"), p.mover);
    for (int m = json_first(d, json_get(d, t, "moves")); m >= 0; m = json_next(d, m)) answered++;
    ck_assert_int_eq(answered, game_count(game_legal(&g, &p)));
    free(text);
    json_free(d);
  }
}
END_TEST

static Suite *analysis_suite(void) {
  Suite *s = suite_create("analysis");
  add_tests(
      s, "queries", 120,
      (const TTest *[]){analyses_every_move_with_its_line, errors_name_the_query_and_the_field,
                        concurrent_queries_answer_as_alone, egdb_values_are_the_databases,
                        the_default_seed_is_one, rules_as_a_string_or_an_object,
                        sims_and_time_join_the_agents_spec, a_line_goes_through_a_forced_reply,
                        the_longest_line_is_kept_whole, every_answer_holds_together, NULL});
  return s;
}

TEST_MAIN(analysis_suite)

/* Arena: paired colours per opening, gauntlets, the anchor of the
 * ratings, results independent of the thread count, bad requests, a
 * strength sanity check, and the arena command. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/record.h"
#include "base/base.h"
#include "game/game.h"
#include "tests/gametest.h"
#include "tests/testutil.h"

/* ---- Colours, anchors, threads -------------------------------------------------------- */

#define MAXG 400
typedef struct {
  int n;
  int pairing[MAXG], south[MAXG], north[MAXG], opening[MAXG], number[MAXG];
} seen_games;

static void collect(const arena_game *rec, const arena_result *so_far, void *ud) {
  (void)so_far;
  seen_games *s = ud;
  if (s->n < MAXG) {
    s->pairing[s->n] = rec->pairing;
    s->south[s->n] = rec->south;
    s->north[s->n] = rec->north;
    s->opening[s->n] = rec->opening;
    s->number[s->n] = rec->number;
    s->n++;
  }
}

START_TEST(colours_are_paired) {
  configure_game("oware", NULL);
  const char *specs[] = {"random", "greedy", "alphabeta depth=1"};
  arena_params p = arena_defaults();
  p.games = 12;
  p.openings = 3;
  p.threads = 2;
  p.book_depth = 2;
  seen_games *s = calloc(1, sizeof *s);
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_msg(arena_run(&G, 3, specs, &p, collect, s, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->n_pairings, 3);
  ck_assert_int_eq(r->games, 36);
  ck_assert_int_eq(s->n, 36);
  /* For every pairing and opening: as many games with a as South as with
   * a as North, and every game number once. */
  int as_south[3][3] = {{0}}, as_north[3][3] = {{0}}, numbers[36] = {0};
  for (int i = 0; i < s->n; i++) {
    const arena_pairing *q = &r->pairings[s->pairing[i]];
    ck_assert(s->opening[i] >= 0 && s->opening[i] < 3);
    ck_assert((s->south[i] == q->a && s->north[i] == q->b) ||
              (s->south[i] == q->b && s->north[i] == q->a));
    if (s->south[i] == q->a)
      as_south[s->pairing[i]][s->opening[i]]++;
    else
      as_north[s->pairing[i]][s->opening[i]]++;
    numbers[s->number[i]]++;
  }
  for (int k = 0; k < 3; k++)
    for (int o = 0; o < 3; o++) {
      ck_assert_int_eq(as_south[k][o], 2);
      ck_assert_int_eq(as_north[k][o], 2);
    }
  for (int i = 0; i < 36; i++) ck_assert_int_eq(numbers[i], 1);
  /* The pairing tallies add up, and a's South share is half the games. */
  int south = 0, north = 0, draws = 0;
  for (int k = 0; k < 3; k++) {
    const arena_pairing *q = &r->pairings[k];
    ck_assert_int_eq(q->wins + q->draws + q->losses, 12);
    ck_assert_int_eq(q->a_south_wins + q->a_south_draws + q->a_south_losses, 6);
  }
  south = r->south_wins;
  north = r->north_wins;
  draws = r->draws;
  ck_assert_int_eq(south + north + draws, 36);
  ck_assert_int_eq(r->anchor, 0); /* the default: the first agent */
  free(s);
  free(r);
}
END_TEST

START_TEST(gauntlet_pairs_first_agent_only) {
  configure_game("oware", NULL);
  const char *specs[] = {"greedy", "random", "random", "alphabeta depth=1"};
  arena_params p = arena_defaults();
  p.games = 4;
  p.gauntlet = 1;
  p.anchor = 1; /* the first random agent */
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_int_eq(arena_run(&G, 4, specs, &p, NULL, NULL, r, err, sizeof err), 0);
  ck_assert_int_eq(r->n_pairings, 3);
  for (int k = 0; k < 3; k++) ck_assert_int_eq(r->pairings[k].a, 0);
  ck_assert_int_eq(r->anchor, 1);
  ck_assert_double_eq(r->elo[1], 0);
  /* Anchored elsewhere, the same games give the same differences. */
  arena_result *r3 = malloc(sizeof *r3);
  p.anchor = 3;
  ck_assert_int_eq(arena_run(&G, 4, specs, &p, NULL, NULL, r3, err, sizeof err), 0);
  ck_assert_int_eq(r3->anchor, 3);
  ck_assert_double_eq(r3->elo[3], 0);
  for (int i = 0; i < 4; i++)
    ck_assert_double_eq_tol(r3->elo[i] - r3->elo[0], r->elo[i] - r->elo[0], 1e-6);
  free(r3);
  free(r);
}
END_TEST

/* As many agents as an arena takes: every pairing, game and rating is
 * there, the last agent's too. */
START_TEST(a_full_field_plays) {
  configure_game("oware", NULL);
  const char *specs[ARENA_MAX_AGENTS];
  specs[0] = "greedy";
  for (int i = 1; i < ARENA_MAX_AGENTS; i++) specs[i] = "random";
  arena_params p = arena_defaults();
  p.games = 2;
  p.gauntlet = 1;
  p.prior_draws = 1;
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_msg(arena_run(&G, ARENA_MAX_AGENTS, specs, &p, NULL, NULL, r, err, sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(r->n_agents, ARENA_MAX_AGENTS);
  ck_assert_int_eq(r->n_pairings, ARENA_MAX_AGENTS - 1);
  ck_assert_int_eq(r->games, 2 * (ARENA_MAX_AGENTS - 1));
  ck_assert_int_eq(r->south_wins + r->draws + r->north_wins, r->games);
  ck_assert(r->distinct_games >= 1 && r->distinct_games <= r->games);
  for (int i = 0; i < ARENA_MAX_AGENTS; i++) {
    ck_assert_msg(isfinite(r->elo[i]) && isfinite(r->elo_se[i]), "agent %d: %g +- %g", i, r->elo[i],
                  r->elo_se[i]);
    ck_assert_msg(i == 0 ? r->elo_se[i] == 0 : r->elo_se[i] > 0, "agent %d: se %g", i,
                  r->elo_se[i]);
  }
  free(r);
}
END_TEST

START_TEST(results_do_not_depend_on_threads) {
  configure_game("oware", NULL);
  const char *specs[] = {"random", "greedy", "mcts sims=30"};
  arena_params p = arena_defaults();
  p.games = (int)(8 * test_scale()) * 2 + 2;
  p.openings = 2;
  p.book_depth = 2;
  p.seed = 77;
  arena_result *r1 = malloc(sizeof *r1), *r3 = malloc(sizeof *r3);
  char err[256];
  p.threads = 1;
  ck_assert_int_eq(arena_run(&G, 3, specs, &p, NULL, NULL, r1, err, sizeof err), 0);
  p.threads = 3;
  ck_assert_int_eq(arena_run(&G, 3, specs, &p, NULL, NULL, r3, err, sizeof err), 0);
  for (int k = 0; k < r1->n_pairings; k++) {
    ck_assert_int_eq(r1->pairings[k].wins, r3->pairings[k].wins);
    ck_assert_int_eq(r1->pairings[k].draws, r3->pairings[k].draws);
    ck_assert_int_eq(r1->pairings[k].losses, r3->pairings[k].losses);
  }
  free(r1);
  free(r3);
}
END_TEST

START_TEST(bad_arena_requests) {
  configure_game("oware", NULL);
  const char *specs[] = {"random", "alphabeta depth=99"};
  arena_params p = arena_defaults();
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "depth"));
  specs[1] = "random";
  p.games = 7;
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "even"));
  p.games = 4;
  ck_assert_int_eq(arena_run(&G, 1, specs, &p, NULL, NULL, r, err, sizeof err), -1);
  /* The anchor must be one of the agents. */
  p.anchor = 2;
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "anchor"));
  p.anchor = -1;
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err), -1);
  p.anchor = 0;
  /* A bad opening book request fails before any game. */
  p.openings = 10;
  p.opening_plies = 0;
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "opening"));
  free(r);
}
END_TEST

/* ---- Time controls ---------------------------------------------------------------------
 * An injected clock that moves one second at every reading: each move then
 * takes exactly one second. */
static double one_second_a_reading(void *ctx) {
  double *t = ctx;
  return *t += 1.0;
}

/* A clock of 3.5 s runs out on the mover's fourth move: South (who moves
 * first) loses on time at ply 7; the record says so and replays; the
 * match tallies one loss on time per agent, one per colour; a per-move
 * limit under a second loses South's first move unless the grace covers
 * the rest; bad controls are refused. */
START_TEST(losses_on_time) {
  configure_game("oware", NULL);
  char err[256];
  double now = 0;
  timectl_clock clk = {one_second_a_reading, &now};
  arena_clock tc = {0, 3.5, 0, &clk, 0};
  agent *a = agent_create(&G, "random", 1, err, sizeof err),
        *b = agent_create(&G, "random", 2, err, sizeof err);
  arena_game *rec = malloc(sizeof *rec);
  ck_assert_int_eq(arena_play_timed(&G, a, b, NULL, &tc, rec, err, sizeof err), 0);
  ck_assert_int_eq(rec->lost_on_time, 1);
  ck_assert_int_eq(rec->final.mover, GAME_SOUTH);
  ck_assert_int_eq(rec->n_moves, 6);
  ck_assert_int_eq(rec->final.status, GAME_ONGOING);
  ck_assert_int_eq(arena_game_outcome(rec), -1);
  /* The increment keeps a side alive: 1 s a move, 1 s back. */
  tc.inc = 1;
  ck_assert_int_eq(arena_play_timed(&G, a, b, NULL, &tc, rec, err, sizeof err), 0);
  ck_assert_int_eq(rec->lost_on_time, 0);
  ck_assert_int_eq(rec->final.status, GAME_OVER);
  tc = (arena_clock){0.5, 0, 0, &clk, 0.4};
  ck_assert_int_eq(arena_play_timed(&G, a, b, NULL, &tc, rec, err, sizeof err), 0);
  ck_assert_int_eq(rec->lost_on_time, 1);
  ck_assert_int_eq(rec->n_moves, 0);
  tc.grace = 0.6; /* 1 s is within 0.5 + 0.6: the game is played out */
  ck_assert_int_eq(arena_play_timed(&G, a, b, NULL, &tc, rec, err, sizeof err), 0);
  ck_assert_int_eq(rec->lost_on_time, 0);
  ck_assert_int_eq(rec->final.status, GAME_OVER);
  ck_assert_double_eq(rec->longest[GAME_SOUTH], 1.0);
  ck_assert_double_eq(rec->longest[GAME_NORTH], 1.0);
  /* The record of a loss on time replays. */
  tc = (arena_clock){0, 3.5, 0, &clk, 0};
  ck_assert_int_eq(arena_play_timed(&G, a, b, NULL, &tc, rec, err, sizeof err), 0);
  char path[96];
  snprintf(path, sizeof path, "%s/sowzero-arena-time-%d.txt", test_tmp(), (int)getpid());
  FILE *f = fopen(path, "w+");
  ck_assert_ptr_nonnull(f);
  rec->number = 0;
  rec->opening = -1;
  ck_assert_int_eq(record_write(f, &G, rec, "random", "random"), 0);
  rewind(f);
  record *r = malloc(sizeof *r);
  int line = 0;
  ck_assert_int_eq(record_read(f, r, &line, err, sizeof err), 1);
  ck_assert_str_eq(r->end, "time");
  ck_assert_str_eq(r->result, "0-1");
  game g;
  game_pos end;
  ck_assert_msg(record_replay(r, &g, &end, err, sizeof err) == 0, "%s", err);
  snprintf(r->result, sizeof r->result, "1-0"); /* the wrong side */
  ck_assert_int_eq(record_replay(r, &g, &end, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "lost on time"));
  fclose(f);
  unlink(path);
  free(r);
  agent_free(a);
  agent_free(b);
  free(rec);
  /* A match. */
  const char *specs[] = {"random", "greedy"};
  arena_params p = arena_defaults();
  p.games = 2;
  p.time = (arena_clock){0, 3.5, 0, &clk, 0};
  arena_result *res = malloc(sizeof *res);
  ck_assert_msg(arena_run(&G, 2, specs, &p, NULL, NULL, res, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(res->time_losses[0], 1);
  ck_assert_int_eq(res->time_losses[1], 1);
  ck_assert_int_eq(res->south_wins, 0);
  ck_assert_int_eq(res->north_wins, 2);
  ck_assert_double_eq(res->longest_move[0], 1.0);
  p.time = (arena_clock){0.5, 1, 0, NULL, 0}; /* both controls */
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, res, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "time control"));
  p.time = (arena_clock){-1, 0, 0, NULL, 0};
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, NULL, NULL, res, err, sizeof err), -1);
  free(res);
  char out[8192];
  char *both[] = {"arena", "random", "greedy", "--clock", "1+0", "--time-per-move", "1", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, both), 2);
  char *bad[] = {"arena", "random", "greedy", "--clock", "1+x", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, bad), 2);
  ck_assert_ptr_nonnull(strstr(out, "--clock"));
  char *ok[] = {"arena", "random", "greedy", "--games", "2", "--clock", "60+1", "--quiet", NULL};
  ck_assert_msg(test_sowzero(out, sizeof out, ok) == 0, "%s", out);
  ck_assert_ptr_nonnull(strstr(out, "losses on time (clock 60+1 s): random 0, greedy 0"));
}
END_TEST

/* ---- Strength sanity at small scale ------------------------------------------------------ */

START_TEST(stronger_agents_score_more) {
  configure_game("oware", NULL);
  const char *specs[] = {"random", "greedy", "alphabeta depth=4"};
  arena_params p = arena_defaults();
  p.games = 20;
  p.threads = 2;
  p.openings = 4;
  p.book_depth = 2;
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_int_eq(arena_run(&G, 3, specs, &p, NULL, NULL, r, err, sizeof err), 0);
  ck_assert(r->elo[1] > r->elo[0] + 100);
  ck_assert(r->elo[2] > r->elo[1] + 100);
  free(r);
}
END_TEST

/* ---- The command --------------------------------------------------------------------------- */

START_TEST(arena_command_writes_files) {
  char json[64], csv[64], rec[64];
  int pid = (int)getpid();
  snprintf(json, sizeof json, "%s/sowzero-arena-%d.json", test_tmp(), pid);
  snprintf(csv, sizeof csv, "%s/sowzero-arena-%d.csv", test_tmp(), pid);
  snprintf(rec, sizeof rec, "%s/sowzero-arena-%d.txt", test_tmp(), pid);
  char out[8192];
  char *argv[] = {"arena", "--game",    "oware",     "random",  "greedy", "--games",
                  "4",     "--threads", "2",         "--quiet", "--json", json,
                  "--csv", csv,         "--records", rec,       NULL};
  ck_assert_msg(test_sowzero(out, sizeof out, argv) == 0, "%s", out);
  FILE *f = fopen(json, "r");
  ck_assert_ptr_nonnull(f);
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "\"pairings\""));
  ck_assert_ptr_nonnull(strstr(buf, "\"games\": 4"));
  f = fopen(rec, "r");
  record *r = malloc(sizeof *r);
  int line = 0, count = 0;
  char err[256];
  game g;
  game_pos end;
  while (record_read(f, r, &line, err, sizeof err) == 1) {
    ck_assert_int_eq(record_replay(r, &g, &end, err, sizeof err), 0);
    count++;
  }
  ck_assert_int_eq(count, 4);
  fclose(f);
  free(r);
  unlink(json);
  unlink(csv);
  unlink(rec);
  char *bad[] = {"arena", "random", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, bad), 2);
}
END_TEST

/* The "anchor" the command's JSON reports for these arguments. */
static int anchor_of(char **argv, const char *json) {
  char out[8192];
  ck_assert_msg(test_sowzero(out, sizeof out, argv) == 0, "%s", out);
  FILE *f = fopen(json, "r");
  ck_assert_ptr_nonnull(f);
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  unlink(json);
  const char *a = strstr(buf, "\"anchor\": ");
  ck_assert_ptr_nonnull(a);
  return atoi(a + 10);
}

START_TEST(arena_command_anchor) {
  char json[64], out[8192];
  snprintf(json, sizeof json, "%s/sowzero-anchor-%d.json", test_tmp(), (int)getpid());
  /* By default the first agent whose spec is random, else the first. */
  char *dflt[] = {"arena", "greedy",  " random", "random", "--games",
                  "2",     "--quiet", "--json",  json,     NULL};
  ck_assert_int_eq(anchor_of(dflt, json), 1);
  char *none[] = {"arena", "greedy", "alphabeta depth=1", "--games", "2", "--quiet", "--json",
                  json,    NULL};
  ck_assert_int_eq(anchor_of(none, json), 0);
  /* By place (from 1) or by spec. */
  char *place[] = {"arena",    "greedy", "random",  "alphabeta depth=1",
                   "--anchor", "3",      "--games", "2",
                   "--quiet",  "--json", json,      NULL};
  ck_assert_int_eq(anchor_of(place, json), 2);
  char *spec[] = {"arena", "random",  "greedy", "--anchor", "greedy", "--games",
                  "2",     "--quiet", "--json", json,       NULL};
  ck_assert_int_eq(anchor_of(spec, json), 1);
  /* Neither a place nor an agent: refused before playing. */
  char *far[] = {"arena", "random", "greedy", "--anchor", "3", "--games", "2", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, far), 2);
  ck_assert_ptr_nonnull(strstr(out, "--anchor"));
  char *stranger[] = {"arena", "random", "greedy", "--anchor", "alphabeta", "--games", "2", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, stranger), 2);
}
END_TEST

/* ---- Deterministic agents ---------------------------------------------------------------- */

/* The probe tells agents that ignore their random stream from those that
 * do not, and names a bad spec. */
START_TEST(determinism_probe) {
  configure_game("oware", NULL);
  char err[256];
  const char *fixed[] = {"alphabeta depth=2", "alphabeta depth=3 tt=1"};
  const char *random_[] = {"random", "greedy", "mcts sims=40"};
  for (int i = 0; i < 2; i++)
    ck_assert_msg(
        arena_agent_deterministic(&G, fixed[i], &(agent_params){1, NULL}, err, sizeof err) == 1,
        "%s", fixed[i]);
  for (int i = 0; i < 3; i++)
    ck_assert_msg(
        arena_agent_deterministic(&G, random_[i], &(agent_params){1, NULL}, err, sizeof err) == 0,
        "%s", random_[i]);
  ck_assert_int_eq(
      arena_agent_deterministic(&G, "alphabeta depth=x", &(agent_params){1, NULL}, err, sizeof err),
      -1);
  ck_assert_msg(strstr(err, "depth") != NULL, "%s", err);
}
END_TEST

/* Results count their distinct games: two deterministic agents from the
 * start position play one game per colour, however many are asked for. */
/* ud: int[2], games after a book opening's plies and from the start. */
static void count_book_games(const arena_game *rec, const arena_result *so_far, void *ud) {
  (void)so_far;
  ((int *)ud)[!(rec->opening >= 0 && rec->open.n > 0)]++;
}

START_TEST(results_count_distinct_games) {
  configure_game("oware", NULL);
  const char *specs[] = {"alphabeta depth=1", "alphabeta depth=2"};
  arena_params p = arena_defaults();
  p.games = 8;
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_msg(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->games, 8);
  ck_assert_int_eq(r->distinct_games, 2);
  p.openings = 4;
  ck_assert_msg(arena_run(&G, 2, specs, &p, NULL, NULL, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->distinct_games, 8);
  /* A book of one opening: every game starts from it. */
  p.openings = 1;
  int book_games[2] = {0, 0};
  ck_assert_msg(arena_run(&G, 2, specs, &p, count_book_games, book_games, r, err, sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(book_games[0], 8);
  ck_assert_int_eq(book_games[1], 0);
  const char *rnd[] = {"random", "random"};
  p.openings = 0;
  ck_assert_msg(arena_run(&G, 2, rnd, &p, NULL, NULL, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->distinct_games, 8);
  free(r);
}
END_TEST

/* The command gives deterministic agents an opening book unless told
 * otherwise, says so, and reports the distinct games. */
START_TEST(arena_command_books_deterministic_agents) {
  char json[64], out[8192], buf[4096];
  snprintf(json, sizeof json, "%s/sowzero-distinct-%d.json", test_tmp(), (int)getpid());
  struct {
    const char *openings; /* NULL: not given */
    int book, distinct;
  } cases[] = {{NULL, 5, 10}, {"0", 0, 2}, {"2", 2, 4}};
  for (int i = 0; i < 3; i++) {
    char *argv[16] = {
        "arena", "alphabeta depth=1", "alphabeta depth=2", "--games", "10", "--quiet", "--json",
        json};
    int n = 8;
    if (cases[i].openings) argv[n++] = "--openings", argv[n++] = (char *)cases[i].openings;
    argv[n] = NULL;
    ck_assert_msg(test_sowzero(out, sizeof out, argv) == 0, "%s", out);
    ck_assert_msg((strstr(out, "deterministically") != NULL) == !cases[i].openings, "%s", out);
    char want[64];
    snprintf(want, sizeof want, "10 games (%d distinct)", cases[i].distinct);
    ck_assert_msg(strstr(out, want) != NULL, "case %d: no '%s' in %s", i, want, out);
    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    snprintf(want, sizeof want, "\"distinct_games\": %d", cases[i].distinct);
    ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
    snprintf(want, sizeof want, "\"openings\": %d", cases[i].book);
    ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
  }
  unlink(json);
  /* A random agent in the match: no book, no note. */
  char *mixed[] = {"arena", "random", "alphabeta depth=1", "--games", "4", "--quiet", NULL};
  ck_assert_msg(test_sowzero(out, sizeof out, mixed) == 0, "%s", out);
  ck_assert_ptr_null(strstr(out, "deterministically"));
}
END_TEST

/* The book of level openings as docs/STUDY.md states it for every tool
 * that takes it from arena_defaults: "1..P random plies that an alpha-beta
 * search of depth D scores within M seeds". */
START_TEST(the_opening_book_is_the_documented_one) {
  FILE *f = fopen("docs/STUDY.md", "r");
  ck_assert_ptr_nonnull(f);
  static char doc[1 << 17];
  size_t len = fread(doc, 1, sizeof doc - 1, f);
  doc[len] = 0;
  fclose(f);
  for (char *c = doc; *c; c++)
    if (*c == '\n') *c = ' ';
  const char *at = strstr(doc, "random plies");
  ck_assert_ptr_nonnull(at);
  while (at > doc && at[-1] != '.') at--; /* back to the number's "1.." */
  int plies = 0, depth = 0;
  double seeds = 0;
  ck_assert_msg(sscanf(at,
                       "%d random plies that an alpha-beta search of depth %d scores within "
                       "%lf seeds",
                       &plies, &depth, &seeds) == 3,
                "docs/STUDY.md: %.120s", at);
  arena_params p = arena_defaults();
  ck_assert_int_eq(p.opening_plies, plies);
  ck_assert_int_eq(p.book_depth, depth);
  ck_assert_int_eq(p.book_margin, (int)(seeds * 100 + 0.5));
  ck_assert_int_eq(p.openings, 0);
}
END_TEST

static Suite *arena_suite(void) {
  Suite *s = suite_create("arena");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, colours_are_paired);
  tcase_add_test(t, gauntlet_pairs_first_agent_only);
  tcase_add_test(t, results_do_not_depend_on_threads);
  tcase_add_test(t, a_full_field_plays);
  tcase_add_test(t, bad_arena_requests);
  tcase_add_test(t, losses_on_time);
  tcase_add_test(t, stronger_agents_score_more);
  tcase_add_test(t, arena_command_writes_files);
  tcase_add_test(t, arena_command_anchor);
  tcase_add_test(t, determinism_probe);
  tcase_add_test(t, results_count_distinct_games);
  tcase_add_test(t, arena_command_books_deterministic_agents);
  tcase_add_test(t, the_opening_book_is_the_documented_one);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(arena_suite)

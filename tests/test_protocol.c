/* The engine protocol: every command, its errors, and garbage input. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "protocol/protocol.h"
#include "tests/testutil.h"

static proto *S;
static char out[PROTO_MAX_RESPONSE];

static void setup(void) { S = proto_create(1); }
static void teardown(void) { proto_free(S); }

static const char *ask(const char *line) {
  proto_handle(S, line, out, sizeof out);
  return out;
}

START_TEST(state_of_the_start) {
  ck_assert_str_eq(ask("state"), "= 0 4 4 4 4 4 4 4 4 4 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
}
END_TEST

START_TEST(play_undo_and_ids) {
  ck_assert_str_eq(ask("7 play 4"), "=7 1 4 4 4 4 0 5 5 5 5 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
  ck_assert_str_eq(ask("undo"), "= 0 4 4 4 4 4 4 4 4 4 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
  ck_assert_str_eq(ask("undo"), "? nothing to undo\n\n");
  ck_assert_str_eq(ask("12 undo"), "?12 nothing to undo\n\n");
}
END_TEST

START_TEST(moves_replays_from_the_start) {
  ask("play 0");
  ck_assert_str_eq(ask("moves 4"), "= 1 4 4 4 4 0 5 5 5 5 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
  /* A bad move anywhere leaves the game as it was. */
  ck_assert_str_eq(ask("moves 4 0 9"), "? move 3: bad move '9' (an action number 0..5)\n\n");
  ck_assert_str_eq(ask("state"), "= 1 4 4 4 4 0 5 5 5 5 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
  ck_assert_str_eq(ask("moves"), "= 0 4 4 4 4 4 4 4 4 4 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
}
END_TEST

START_TEST(illegal_moves_change_nothing) {
  ask("setboard 0 1 1 0 0 2 0 0 0 0 0 0 0 22 22");
  ck_assert_str_eq(ask("legal"), "= 4\n\n");
  ck_assert_str_eq(ask("play 0"), "? illegal move 0 (legal: 4)\n\n");
  ck_assert_str_eq(ask("play 2"), "? illegal move 2 (legal: 4)\n\n");
  ck_assert_str_eq(ask("play -1"), "? bad move '-1' (an action number 0..5)\n\n");
  ck_assert_str_eq(ask("play"), "? usage: play ACTION\n\n");
  ck_assert_str_eq(ask("state"), "= 0 1 1 0 0 2 0 0 0 0 0 0 0 22 22 4 ongoing\n\n");
  ck_assert_str_eq(ask("play 4"), "= 1 1 1 0 0 0 1 1 0 0 0 0 0 22 22 0 ongoing\n\n");
}
END_TEST

START_TEST(finished_games_report_final_scores) {
  ck_assert_str_eq(ask("setboard 0 3 2 1 1 0 0 0 0 0 0 0 0 20 21"),
                   "= 0 3 2 1 1 0 0 0 0 0 0 0 0 20 21 - over 27 21 0\n\n");
  ck_assert_str_eq(ask("play 0"), "? illegal move 0: the game is over\n\n");
  ck_assert_str_eq(ask("genmove"), "? the game is over\n\n");
  ck_assert_str_eq(ask("legal"), "=\n\n");
}
END_TEST

START_TEST(setboard_errors) {
  ck_assert_str_eq(ask("setboard 0 4 4"),
                   "? setboard takes MOVER, 12 pits and 2 stores (15 numbers), got 3\n\n");
  ck_assert_str_eq(ask("setboard 0 4 4 4 4 4 4 4 4 4 4 4 4 0 1"),
                   "? pits and stores hold 49 seeds, this game has 48\n\n");
  ck_assert_str_eq(ask("state"), "= 0 4 4 4 4 4 4 4 4 4 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n");
}
END_TEST

START_TEST(game_and_options) {
  ck_assert_str_eq(ask("game wari houses=4"),
                   "= oware houses=4 seeds=4 grand_slam=forbidden target=0 repetition=1 "
                   "nocap_limit=0 max_plies=1000 cycle_award=own_side feed_check=sow "
                   "leftover=own_row first_player=0\n\n");
  ck_assert_str_eq(ask("state"), "= 0 4 4 4 4 4 4 4 4 0 0 0,1,2,3 ongoing\n\n");
  ck_assert_str_eq(ask("game oware houses=9"), "? value 9 for option houses is out of range 2..8\n\n");
  /* The failed command kept the 4-house game. */
  ck_assert_str_eq(ask("state"), "= 0 4 4 4 4 4 4 4 4 0 0 0,1,2,3 ongoing\n\n");
  ck_assert_str_eq(ask("game"), "? usage: game NAME [key=value ...]\n\n");
}
END_TEST

START_TEST(agents_and_genmove) {
  ck_assert_str_eq(ask("agent"), "= random\n\n");
  ck_assert_str_eq(ask("agent greedy"), "= greedy\n\n");
  ck_assert_int_eq(strncmp(ask("agent wizard"), "? unknown agent 'wizard' (known: random, greedy", 47), 0);
  ck_assert_str_eq(ask("agent greedy depth=3"), "? agent greedy takes no settings (got 'depth=3')\n\n");
  ck_assert_str_eq(ask("agent"), "= greedy\n\n");
  /* Greedy takes the capture of O4: South's pit 3 captures 3. */
  ask("setboard 0 1 0 2 6 0 1 3 0 3 2 1 0 14 15");
  ck_assert_str_eq(ask("genmove"), "= 3\n\n");
  ck_assert_str_eq(ask("state"), "= 1 1 0 2 0 1 2 4 1 4 0 1 0 17 15 0,1,2,4 ongoing\n\n");
  ck_assert_str_eq(ask("analyze"), "? agent greedy does not analyze positions\n\n");
}
END_TEST

START_TEST(unknown_and_blank_lines) {
  ck_assert_str_eq(ask("fly"), "? unknown command 'fly' (try help)\n\n");
  ck_assert_str_eq(ask(""), "");
  ck_assert_str_eq(ask("   # just a comment"), "");
  ck_assert_str_eq(ask("42"), "?42 missing command\n\n");
  ck_assert_str_eq(ask("name"), "= SowZero\n\n");
  ck_assert_int_eq(proto_handle(S, "quit", out, sizeof out), 1);
  ck_assert_str_eq(out, "=\n\n");
}
END_TEST

START_TEST(show_draws_the_board) {
  const char *r = ask("show");
  ck_assert_msg(strstr(r, "North [") && strstr(r, "South [") && strstr(r, "<- to move"), "%s", r);
  ck_assert_int_eq(strncmp(r, "= \n", 3), 0);
}
END_TEST

/* Garbage lines: every one gets exactly one well-formed response and the
 * session stays consistent (seed conservation in `state`). */
START_TEST(garbage_input) {
  rng_t r;
  rng_seed(&r, 5, 0);
  static const char *words[] = {"play", "undo", "moves", "setboard", "game", "state", "legal",
                                "show", "agent", "genmove", "analyze", "oware", "warri",
                                "random", "greedy", "0", "1", "5", "6", "-3", "99999999999",
                                "houses=3", "x=y", "=", "#", "\t", "\xff\xfe", "%s%n", "48"};
  int n = (int)(20000 * test_scale());
  for (int i = 0; i < n; i++) {
    char line[300];
    size_t k = 0;
    int nw = (int)rng_below(&r, 8);
    for (int w = 0; w < nw; w++)
      k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", w ? " " : "",
                            words[rng_below(&r, sizeof words / sizeof words[0])]);
    line[k] = 0;
    if (!strncmp(line, "quit", 4)) continue;
    proto_handle(S, line, out, sizeof out);
    size_t len = strlen(out);
    CHECK(len == 0 || ((out[0] == '=' || out[0] == '?') && len >= 2 && !strcmp(out + len - 2, "\n\n")),
          "malformed response to '%s': '%s'", line, out);
    proto_handle(S, "state", out, sizeof out);
    CHECK(out[0] == '=', "state failed after '%s'", line);
  }
  /* A whole game in one `moves` line (a long one: over 63 moves). */
  char game[8000];
  size_t k = 0;
  int plies = 0;
  rng_seed(&r, 9, 0);
  while (plies <= 63) {
    k = (size_t)snprintf(game, sizeof game, "moves");
    plies = 0;
    proto_handle(S, "moves", out, sizeof out);
    for (;;) {
      proto_handle(S, "legal", out, sizeof out);
      if (!strcmp(out, "=\n\n")) break;
      int legal[8], n = 0;
      for (char *t = strtok(out + 1, " \n"); t; t = strtok(NULL, " \n")) legal[n++] = atoi(t);
      char mv[16];
      snprintf(mv, sizeof mv, "play %d", legal[rng_below(&r, (uint32_t)n)]);
      proto_handle(S, mv, out, sizeof out);
      k += (size_t)snprintf(game + k, sizeof game - k, " %s", mv + 5);
      plies++;
    }
  }
  char final_state[512];
  proto_handle(S, "state", final_state, sizeof final_state);
  ck_assert_str_eq(ask(game), final_state);
  /* Overlong lines are refused, not cut. */
  char big[20000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = 0;
  ck_assert_int_eq(strncmp(ask(big), "? command line too long", 23), 0);
}
END_TEST

Suite *protocol_suite(void) {
  Suite *s = suite_create("protocol");
  TCase *t = tcase_create("commands");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 60);
  tcase_add_test(t, state_of_the_start);
  tcase_add_test(t, play_undo_and_ids);
  tcase_add_test(t, moves_replays_from_the_start);
  tcase_add_test(t, illegal_moves_change_nothing);
  tcase_add_test(t, finished_games_report_final_scores);
  tcase_add_test(t, setboard_errors);
  tcase_add_test(t, game_and_options);
  tcase_add_test(t, agents_and_genmove);
  tcase_add_test(t, unknown_and_blank_lines);
  tcase_add_test(t, show_draws_the_board);
  tcase_add_test(t, garbage_input);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(protocol_suite)

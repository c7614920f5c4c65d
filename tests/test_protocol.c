/* The engine protocol: every command, its errors, and garbage input. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "protocol/protocol.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

static proto *S;
static char out[PROTO_MAX_RESPONSE];

static void setup(void) { S = proto_create(1); }
static void teardown(void) { proto_free(S); }

static const char *ask(const char *line) {
  proto_handle(S, line, out, sizeof out);
  return out;
}

/* One exchange: a command line and its response. A NULL response is not
 * checked (a step that sets the scene); one that does not end in a newline
 * (whole responses end in a blank line, or are empty) is how the response
 * starts. */
typedef struct {
  const char *line, *response;
} exchange;

/* Sends the lines of x in turn (a NULL line ends the list); each response
 * must be the one given. */
static void converse(const exchange *x) {
  for (; x->line; x++) {
    const char *got = ask(x->line);
    if (!x->response) continue;
    size_t n = strlen(x->response);
    if (n && x->response[n - 1] != '\n')
      ck_assert_msg(strncmp(got, x->response, n) == 0,
                    "'%s' answered '%s', expected it to start with '%s'", x->line, got,
                    x->response);
    else
      ck_assert_msg(strcmp(got, x->response) == 0, "'%s' answered '%s', expected '%s'", x->line,
                    got, x->response);
  }
}

#define START_STATE "= 0 4 4 4 4 4 4 4 4 4 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n"

START_TEST(state_of_the_start) {
  converse((const exchange[]){{"state", START_STATE}, {NULL, NULL}});
}
END_TEST

START_TEST(play_undo_and_ids) {
  converse(
      (const exchange[]){{"7 play 4", "=7 1 4 4 4 4 0 5 5 5 5 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n"},
                         {"undo", START_STATE},
                         {"undo", "? nothing to undo\n\n"},
                         {"12 undo", "?12 nothing to undo\n\n"},
                         {NULL, NULL}});
}
END_TEST

START_TEST(moves_replays_from_the_start) {
  const char *after_4 = "= 1 4 4 4 4 0 5 5 5 5 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n";
  converse((const exchange[]){{"play 0", NULL},
                              {"moves 4", after_4},
                              /* A bad move anywhere leaves the game as it was. */
                              {"moves 4 0 9", "? move 3: bad move '9' (an action number 0..5)\n\n"},
                              {"state", after_4},
                              {"moves", START_STATE},
                              {NULL, NULL}});
}
END_TEST

START_TEST(illegal_moves_change_nothing) {
  converse((const exchange[]){{"setboard 0 1 1 0 0 2 0 0 0 0 0 0 0 22 22", NULL},
                              {"legal", "= 4\n\n"},
                              {"play 0", "? illegal move 0 (legal: 4)\n\n"},
                              {"play 2", "? illegal move 2 (legal: 4)\n\n"},
                              {"play -1", "? bad move '-1' (an action number 0..5)\n\n"},
                              {"play", "? usage: play ACTION\n\n"},
                              {"state", "= 0 1 1 0 0 2 0 0 0 0 0 0 0 22 22 4 ongoing\n\n"},
                              {"play 4", "= 1 1 1 0 0 0 1 1 0 0 0 0 0 22 22 0 ongoing\n\n"},
                              {NULL, NULL}});
}
END_TEST

START_TEST(finished_games_report_final_scores) {
  converse((const exchange[]){{"setboard 0 3 2 1 1 0 0 0 0 0 0 0 0 20 21",
                               "= 0 3 2 1 1 0 0 0 0 0 0 0 0 20 21 - over 27 21 0\n\n"},
                              {"play 0", "? illegal move 0: the game is over\n\n"},
                              {"genmove", "? the game is over\n\n"},
                              {"legal", "=\n\n"},
                              {NULL, NULL}});
}
END_TEST

START_TEST(setboard_errors) {
  converse((const exchange[]){
      {"setboard 0 4 4", "? setboard takes MOVER, 12 pits and 2 stores (15 numbers), got 3\n\n"},
      {"setboard 0 4 4 4 4 4 4 4 4 4 4 4 4 0 1",
       "? pits and stores hold 49 seeds, this game has 48\n\n"},
      {"state", START_STATE},
      {NULL, NULL}});
}
END_TEST

START_TEST(game_and_options) {
  const char *four = "= 0 4 4 4 4 4 4 4 4 0 0 0,1,2,3 ongoing\n\n";
  converse((const exchange[]){
      {"game wari houses=4",
       "= oware houses=4 seeds=4 grand_slam=forbidden target=0 repetition=1 "
       "nocap_limit=0 max_plies=1000 cycle_award=own_side feed_check=sow "
       "leftover=own_row first_player=0\n\n"},
      {"state", four},
      {"game oware houses=9", "? value 9 for option houses is out of range 2..8\n\n"},
      /* The failed command kept the 4-house game. */
      {"state", four},
      {"game", "? usage: game NAME [key=value ...]\n\n"},
      {NULL, NULL}});
}
END_TEST

START_TEST(agents_and_genmove) {
  converse((const exchange[]){
      {"agent", "= random\n\n"},
      {"agent greedy", "= greedy\n\n"},
      {"agent wizard", "? unknown agent 'wizard' (known: random, greedy"},
      {"agent greedy depth=3", "? agent greedy takes no settings (got 'depth=3')\n\n"},
      {"agent", "= greedy\n\n"},
      /* Greedy takes the capture of O4: South's pit 3 captures 3. */
      {"setboard 0 1 0 2 6 0 1 3 0 3 2 1 0 14 15", NULL},
      {"genmove", "= 3\n\n"},
      {"state", "= 1 1 0 2 0 1 2 4 1 4 0 1 0 17 15 0,1,2,4 ongoing\n\n"},
      {"analyze", "? agent greedy does not analyze positions\n\n"},
      {NULL, NULL}});
}
END_TEST

/* The game clock: settings, what is left, the engine's own moves charged
 * to its side (never more than it had: the agent plans inside it), and
 * clear refusals. */
START_TEST(time_settings_and_time_left) {
  converse((const exchange[]){
      {"time_left", "= off\n\n"},
      {"time_settings 0 0.02", "=\n\n"},
      {"time_left", "= per_move 0.020\n\n"},
      {"time_left north 3", "? no game clock (time_settings MAIN INC with MAIN > 0 sets one)\n\n"},
      {"time_settings 2 0.1", "=\n\n"},
      {"time_left", "= south 2.000 north 2.000\n\n"},
      {"time_left north 0.25", "=\n\n"},
      {"time_left", "= south 2.000 north 0.250\n\n"},
      {"time_left east 1", "? usage: time_left [south|north SECONDS]\n\n"},
      {"time_left south -1", "? bad time left '-1' (seconds, 0..1e6)\n\n"},
      {"time_settings 1", "? usage: time_settings MAIN INC | time_settings off\n\n"},
      {"time_settings 0 0", "? time_settings 0 0 leaves no time to move"},
      {"time_settings x 1", "? bad main time 'x' (seconds, 0..1e6)\n\n"},
      {"time_settings 1 nan", "? bad increment 'nan' (seconds, 0..1e6)\n\n"},
      {"time_left", "= south 2.000 north 0.250\n\n"}, /* refusals change nothing */
      {"agent mcts threads=2", NULL},
      {"genmove", "= "},
      {NULL, NULL}});
  /* South's move was charged: less than 2 + 0.1 left (what the plan
   * spends is timectl's test; wall time here is only roughly bounded). */
  double south, north;
  ck_assert_int_eq(sscanf(ask("time_left"), "= south %lf north %lf", &south, &north), 2);
  ck_assert(south < 2.1 && south > 0);
  ck_assert_double_eq(north, 0.25);
  converse((const exchange[]){
      {"time_settings off", "=\n\n"}, {"time_left", "= off\n\n"}, {"genmove", "= "}, {NULL, NULL}});
}
END_TEST

START_TEST(unknown_and_blank_lines) {
  converse((const exchange[]){{"fly", "? unknown command 'fly' (try help)\n\n"},
                              {"", ""},
                              {"   # just a comment", ""},
                              {"42", "?42 missing command\n\n"},
                              {"name", "= SowZero\n\n"},
                              {NULL, NULL}});
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
  static const char *words[] = {"play",  "undo",   "moves",       "setboard", "game",    "state",
                                "legal", "show",   "agent",       "genmove",  "analyze", "oware",
                                "warri", "random", "greedy",      "0",        "1",       "5",
                                "6",     "-3",     "99999999999", "houses=3", "x=y",     "=",
                                "#",     "\t",     "\xff\xfe",    "%s%n",     "48"};
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
    CHECK(len == 0 ||
              ((out[0] == '=' || out[0] == '?') && len >= 2 && !strcmp(out + len - 2, "\n\n")),
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
  converse((const exchange[]){{big, "? command line too long"}, {NULL, NULL}});
}
END_TEST

/* ---- Refused commands change nothing -------------------------------------------------
 * Two sessions with the same past; one is sent a bad command. Whatever the
 * command, the other's answers to a probe that reads everything a session
 * holds (position, record, game, agent and its search tree and random
 * stream) must then be the same. */

static void setup_twin(proto *t) {
  static const char *past[] = {"game oware",
                               "setboard 1 3 0 2 5 1 4 4 2 0 6 3 2 8 8",
                               "play 0",
                               "play 2",
                               "agent mcts sims=40",
                               "genmove",
                               NULL};
  char o[PROTO_MAX_RESPONSE];
  for (int i = 0; past[i]; i++) {
    proto_handle(t, past[i], o, sizeof o);
    ck_assert_msg(o[0] == '=', "'%s' answered '%s'", past[i], o);
  }
}

static void probe(proto *t, char *buf, size_t len) {
  static const char *lines[] = {"state", "options", "agent", "analyze", "genmove", "undo",
                                "undo",  "undo",    "undo",  "state",   NULL};
  char o[PROTO_MAX_RESPONSE];
  size_t k = 0;
  for (int i = 0; lines[i]; i++) {
    proto_handle(t, lines[i], o, sizeof o);
    k += (size_t)snprintf(buf + k, len - k, "%s -> %s", lines[i], o);
  }
}

START_TEST(refused_commands_change_nothing) {
  static const char *bad[] = {"undo 3",
                              "state x",
                              "legal x",
                              "show x",
                              "genmove now",
                              "analyze x",
                              "options x",
                              "name x",
                              "version 2",
                              "help me",
                              "quit now",
                              "play",
                              "play 1 2",
                              "play x",
                              "play 99",
                              "moves 0 99",
                              "moves x",
                              "moves 0 1 2 3 4 5 nosuch",
                              "setboard",
                              "setboard 0 1 2",
                              "setboard 0 4 4 4 4 4 4 4 4 4 4 4 4 0 1",
                              "setboard 2 4 4 4 4 4 4 4 4 4 4 4 4 0 0",
                              "setboard 0 x 4 4 4 4 4 4 4 4 4 4 4 0 0",
                              "game",
                              "game nosuch",
                              "game oware houses=99",
                              "game oware nosuch=1",
                              "agent nosuch",
                              "agent mcts sims=x",
                              "agent alphabeta time=0",
                              "frobnicate",
                              "99999999999999999999 state",
                              "7",
                              "\x01",
                              NULL};
  char want[16384], got[16384];
  proto *ref = proto_create(5);
  setup_twin(ref);
  probe(ref, want, sizeof want);
  proto_free(ref);
  for (int i = 0; bad[i]; i++) {
    proto *t = proto_create(5);
    setup_twin(t);
    char o[PROTO_MAX_RESPONSE];
    int quit = proto_handle(t, bad[i], o, sizeof o);
    ck_assert_msg(o[0] == '?' && !quit, "'%s' answered '%s'", bad[i], o);
    probe(t, got, sizeof got);
    ck_assert_msg(strcmp(got, want) == 0, "after '%s' the session differs:\n%s\nwant:\n%s", bad[i],
                  got, want);
    proto_free(t);
  }
}
END_TEST

/* undo goes back to where the record starts: setboard's position, moves'
 * and game's start, never further, and never to another game's start. */
START_TEST(undo_after_setboard_moves_and_game) {
  const char *board = "= 0 1 1 0 0 2 0 0 3 0 0 0 0 21 20 0,1,4 ongoing\n\n";
  converse((const exchange[]){{"setboard 0 1 1 0 0 2 0 0 3 0 0 0 0 21 20", board},
                              {"play 4", NULL},
                              {"play 0", NULL},
                              {"undo", "= 1 1 1 0 0 0 1 1 3 0 0 0 0 21 20 0,1 ongoing\n\n"},
                              {"undo", board},
                              {"undo", "? nothing to undo\n\n"},
                              {"state", board},
                              /* moves starts a new record from the start position. */
                              {"moves 2 3", NULL},
                              {"undo", "= 1 4 4 0 5 5 5 5 4 4 4 4 4 0 0 0,1,2,3,4,5 ongoing\n\n"},
                              {"undo", START_STATE},
                              {"undo", "? nothing to undo\n\n"},
                              /* game starts one too; a setboard after moves starts another. */
                              {"play 5", NULL},
                              {"setboard 0 1 1 0 0 2 0 0 3 0 0 0 0 21 20", NULL},
                              {"undo", "? nothing to undo\n\n"},
                              {"play 4", NULL},
                              {"game warri", NULL},
                              {"play 0", NULL},
                              {"undo", START_STATE},
                              {"options", "= oware houses=6 seeds=4 grand_slam=capture_continue"},
                              {"undo", "? nothing to undo\n\n"},
                              {NULL, NULL}});
}
END_TEST

/* One whole response per line, whatever the line holds. */
START_TEST(every_line_gets_one_whole_answer) {
  static char line[PROTO_MAX_LINE + 100];
  for (size_t len = 8000; len < sizeof line - 1; len += 1500) {
    memset(line, 'z', len);
    line[len] = 0;
    ask(line);
    size_t n = strlen(out);
    ck_assert_msg(n >= 3 && out[0] == '?' && !strcmp(out + n - 2, "\n\n"), "%zu bytes: %.80s", len,
                  out);
    ck_assert_msg(strstr(out, "\n\n") == out + n - 2, "a blank line inside the answer");
  }
  /* NUL bytes: the line is refused as a whole, its id kept. */
  const struct {
    const char *bytes;
    size_t len;
    const char *response;
  } nul[] = {{"play 2\0junk", 11, "? the line holds a NUL byte (at byte 7)\n\n"},
             {"\0play 2", 7, "? the line holds a NUL byte (at byte 1)\n\n"},
             {"4 play 2\0", 9, "?4 the line holds a NUL byte (at byte 9)\n\n"}};
  for (size_t i = 0; i < sizeof nul / sizeof nul[0]; i++) {
    proto_handle_bytes(S, nul[i].bytes, nul[i].len, out, sizeof out);
    ck_assert_str_eq(out, nul[i].response);
  }
  ck_assert_str_eq(ask("state"), START_STATE);
  /* A response buffer too small for the answer still ends it properly. */
  char tiny[24];
  proto_handle(S, "help", tiny, sizeof tiny);
  ck_assert_int_eq(strlen(tiny), sizeof tiny - 1);
  ck_assert_str_eq(tiny + sizeof tiny - 3, "\n\n");
}
END_TEST

/* state names the winner the rules chose, also when the scores say
 * otherwise. */
/* labels: the legal moves as the board drawing names them, for the side to
 * move (Oware's North sows pits 6..11; Kujifunza's moves have names). */
START_TEST(labels_name_moves_as_the_board_does) {
  converse((const exchange[]){
      {"labels", "= 0:0 1:1 2:2 3:3 4:4 5:5\n\n"},
      {"play 2", NULL},
      {"labels", "= 0:6 1:7 2:8 3:9 4:10 5:11\n\n"},
      {"labels x", "? usage: labels (no arguments)\n\n"},
      {"game kujifunza", NULL},
      {"labels",
       "= 6:b6ccw 7:b7ccw 8:f7ccw 9:f6ccw 10:f5ccw 11:f4ccw 12:f3ccw 13:f2ccw 16:b0cw "
       "17:b1cw 26:f5cw 27:f4cw 28:f3cw 29:f2cw 30:f1cw 31:f0cw\n\n"},
      {"game oware", NULL},
      {"setboard 0 0 0 0 0 0 0 0 0 0 0 0 1 23 24", NULL}, /* over: South cannot move */
      {"labels", "=\n\n"},
      {NULL, NULL}});
}
END_TEST

START_TEST(state_names_the_winner) {
  converse((const exchange[]){{"setboard 0 3 2 1 1 0 0 0 0 0 0 0 0 20 21",
                               "= 0 3 2 1 1 0 0 0 0 0 0 0 0 20 21 - over 27 21 0\n\n"},
                              /* A grand slam that loses: North wins with fewer seeds. */
                              {"game oware grand_slam=loses", NULL},
                              {"setboard 0 3 0 0 0 0 1 1 0 0 0 0 0 22 21", NULL},
                              {"play 5", "= 0 3 0 0 0 0 0 2 0 0 0 0 0 22 21 - over 22 21 1\n\n"},
                              {NULL, NULL}});
}
END_TEST

static Suite *protocol_suite(void) {
  Suite *s = suite_create("protocol");
  TCase *t = add_tests(
      s, "commands", 60,
      (const TTest *[]){state_of_the_start, play_undo_and_ids, moves_replays_from_the_start,
                        illegal_moves_change_nothing, finished_games_report_final_scores,
                        setboard_errors, game_and_options, agents_and_genmove,
                        time_settings_and_time_left, unknown_and_blank_lines, show_draws_the_board,
                        garbage_input, refused_commands_change_nothing,
                        undo_after_setboard_moves_and_game, every_line_gets_one_whole_answer,
                        state_names_the_winner, labels_name_moves_as_the_board_does, NULL});
  tcase_add_checked_fixture(t, setup, teardown);
  return s;
}

TEST_MAIN(protocol_suite)

/* `sowzero play`: a person against an agent in the terminal. Moves are read
 * and written as the board drawing labels them (game_move_label). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "game/game.h"
#include "game/session.h"
#include "search/agent.h"

typedef struct {
  char game[64], agent[1024], egdb[CLI_EGDB_MAX];
  int side;
  uint64_t seed;
} play_opts;

static const char *const sides[] = {"south", "north", NULL};

#define O_(kind, name, F, ...) kind(name, play_opts, F, __VA_ARGS__)
static const kv_key play_keys[] = {
    O_(KV_S, "game", game, NULL, "NAME  the game or preset ('sowzero rules' lists them)"),
    O_(KV_S, "agent", agent, NULL, "SPEC  the agent you play against ('sowzero arena --help')"),
    O_(KV_E, "side", side, sides, NULL, "the side you play; South moves first"),
    O_(KV_U, "seed", seed, NULL, "seed of the agent's random choices"),
    CLI_EGDB_KEY(play_opts, egdb, "for agents' egdb=on"),
};
#undef O_
static const kv_table play_table = KV_TABLE(play_keys);

/* Reads one line into buf without its end and surrounding spaces: 1, 0 at
 * the end of input, -1 for a line longer than buf (read and dropped). */
static int read_line(char *buf, size_t len) {
  if (!fgets(buf, (int)len, stdin)) return 0;
  size_t n = strlen(buf);
  if (n == len - 1 && buf[n - 1] != '\n') {
    int ch;
    while ((ch = getchar()) != EOF && ch != '\n') {}
    return -1;
  }
  buf[strcspn(buf, "\r\n")] = 0;
  char *s = buf + strspn(buf, " \t");
  memmove(buf, s, strlen(s) + 1);
  for (n = strlen(buf); n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'); n--) buf[n - 1] = 0;
  return 1;
}

int cmd_play(int argc, char **argv) {
  play_opts o = {.side = 0, .seed = 1};
  snprintf(o.game, sizeof o.game, "oware");
  snprintf(o.agent, sizeof o.agent, "greedy");
  char *sets[64];
  cli_list set = {"set", "KEY=VALUE", "a rule option of the game ('sowzero rules')", 1, 64, sets,
                  0};
  cli_cmd c = {.name = "play",
               .synopsis =
                   "play [--game NAME] [--set KEY=VALUE ...] [--agent SPEC] "
                   "[--side south|north] [--seed N]",
               .about =
                   "  You against an agent in the terminal. Type a move as the board labels "
                   "it\n  (the legal ones are listed), 'u' to take back your last move, 'q' "
                   "to quit.\n",
               .opts = &play_table,
               .base = &o,
               .lists = &set,
               .n_lists = 1};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  cli_precision_to_stderr();
  int human = o.side;
  const char *spec = o.agent;
  char err[512];
  game g;
  if (game_configure(&g, o.game, set.n, sets, err, sizeof err) != 0)
    return cli_fail(&c, 2, "%s", err);
  agent *a = agent_make(&g, spec, &(agent_params){o.seed, o.egdb}, err, sizeof err);
  if (!a) return cli_fail(&c, 2, "--agent '%s': %s", spec, err);
  session *gs = session_create(&g, NULL);
  if (!gs) {
    agent_free(a);
    return cli_fail(&c, 1, "out of memory");
  }
  int rc = 0;
  char board[2048], line[256], legal[512], name[32];
  printf(
      "You play %s against %s. Moves are named as the board labels them; 'u' takes back "
      "your last move, 'q' quits.\n\n",
      human ? "North" : "South", spec);
  for (;;) {
    const game_pos *p = session_pos(gs);
    game_render(&g, p, board, sizeof board);
    fputs(board, stdout);
    if (p->status != GAME_ONGOING) break;
    if (session_plies(gs) >= SESSION_MAX_MOVES) {
      printf("the game is too long to go on\n");
      break;
    }
    if (p->mover != human) {
      int act = agent_choose(a, p, session_hist(gs));
      if (act < 0 || session_play(gs, act, err, sizeof err) != 0) {
        rc = cli_fail(&c, 1, "%s", act < 0 ? agent_error(a) : err);
        break;
      }
      game_move_label(&g, p->mover, act, name, sizeof name);
      printf("%s plays %s\n\n", spec, name);
      continue;
    }
    session_legal_text(gs, 1, " ", legal, sizeof legal);
    printf("legal moves: %s\nyour move> ", legal);
    fflush(stdout);
    int got = read_line(line, sizeof line);
    if (got == 0) {
      printf("\n");
      break;
    }
    if (got < 0) {
      printf("that line is too long; legal moves: %s\n\n", legal);
      continue;
    }
    if (!strcmp(line, "q")) break;
    if (!strcmp(line, "u")) {
      /* Back to the human's previous turn. */
      int k = session_plies(gs) - 1;
      while (k >= 0 && session_pos_at(gs, k)->mover != human) k--;
      if (k < 0)
        printf("nothing to take back\n\n");
      else
        session_undo(gs, session_plies(gs) - k);
      continue;
    }
    int act = session_find_label(gs, line);
    if (act < 0) {
      char safe[4 * sizeof line]; /* what was typed, escaped */
      printf("'%s' is not a legal move here; legal moves: %s\n\n",
             text_escape(safe, sizeof safe, line, strlen(line)), legal);
      continue;
    }
    session_play(gs, act, err, sizeof err);
  }
  session_free(gs);
  agent_free(a);
  return rc;
}

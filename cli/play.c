/* `sowzero play`: a person against an agent in the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "game/game.h"
#include "search/agent.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: sowzero play [--game NAME] [--set key=value ...] [--agent SPEC]\n"
          "                    [--side south|north] [--seed N]\n"
          "  Type an action number to move, 'u' to take back your last move, 'q' to quit.\n");
}

int cmd_play(int argc, char **argv) {
  const char *name = "oware", *spec = "greedy";
  char *sets[32];
  int nset = 0, human = 0;
  uint64_t seed = 1;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--game") && i + 1 < argc)
      name = argv[++i];
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && nset < 32)
      sets[nset++] = argv[++i];
    else if (!strcmp(argv[i], "--agent") && i + 1 < argc)
      spec = argv[++i];
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--side") && i + 1 < argc) {
      const char *s = argv[++i];
      if (strcmp(s, "south") && strcmp(s, "north")) {
        fprintf(stderr, "sowzero play: --side takes south or north, not '%s'\n", s);
        return 2;
      }
      human = !strcmp(s, "north");
    } else {
      usage(!strcmp(argv[i], "--help") ? stdout : stderr);
      return !strcmp(argv[i], "--help") ? 0 : 2;
    }
  }
  char err[512];
  game g;
  if (game_configure(&g, name, nset, sets, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero play: %s\n", err);
    return 1;
  }
  agent *a = agent_create(&g, spec, seed, err, sizeof err);
  if (!a) {
    fprintf(stderr, "sowzero play: %s\n", err);
    return 1;
  }
  /* The record behind undo: positions after each move, and one history. */
  game_pos *rec = malloc(sizeof(game_pos) * (GAME_MAX_PLIES_CAP + 1));
  game_hist *h = malloc(sizeof *h);
  if (!rec || !h) {
    fprintf(stderr, "sowzero play: out of memory\n");
    return 1;
  }
  int n = 0;
  uint8_t moves[GAME_MAX_PLIES_CAP];
  game_start(&g, &rec[0]);
  game_hist_reset(h, &rec[0]);
  char board[2048], line[256];
  printf("You play %s against %s. Actions count from your left.\n\n",
         human ? "North" : "South", spec);
  for (;;) {
    game_pos *p = &rec[n];
    game_render(&g, p, board, sizeof board);
    fputs(board, stdout);
    if (p->status != GAME_ONGOING) break;
    if (p->mover != human) {
      int act = agent_choose(a, p, h);
      if (act < 0) {
        fprintf(stderr, "sowzero play: %s\n", agent_error(a));
        break;
      }
      printf("%s plays %d\n\n", spec, act);
      rec[n + 1] = *p;
      game_step(&g, &rec[n + 1], h, act);
      moves[n++] = (uint8_t)act;
      continue;
    }
    printf("your move> ");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) break;
    line[strcspn(line, "\r\n")] = 0;
    if (!strcmp(line, "q")) break;
    if (!strcmp(line, "u")) {
      /* Back to the human's previous turn, then rebuild the history. */
      int k = n - 1;
      while (k >= 0 && rec[k].mover != human) k--;
      if (k < 0) {
        printf("nothing to take back\n\n");
        continue;
      }
      n = k;
      game_hist_reset(h, &rec[0]);
      game_pos q = rec[0];
      for (int i = 0; i < n; i++) game_step(&g, &q, h, moves[i]);
      continue;
    }
    int act = game_parse_action(&g, line, err, sizeof err);
    if (act < 0 || !(game_legal(&g, p) >> act & 1)) {
      printf("%s\n\n", act < 0 ? err : "that move is not legal here");
      continue;
    }
    rec[n + 1] = *p;
    game_step(&g, &rec[n + 1], h, act);
    moves[n++] = (uint8_t)act;
    if (n >= GAME_MAX_PLIES_CAP) break;
  }
  free(rec);
  free(h);
  agent_free(a);
  return 0;
}

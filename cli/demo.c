/* `sowzero demo`: two built-in agents play one game, move by move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ini.h"
#include "cli/cli.h"
#include "game/game.h"
#include "search/agent.h"
#include "trainer/config.h"

int cmd_demo(int argc, char **argv) {
  const char *path = "configs/oware.ini", *spec[2] = {"greedy", "random"};
  uint64_t seed = 1;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--south") && i + 1 < argc)
      spec[0] = argv[++i];
    else if (!strcmp(argv[i], "--north") && i + 1 < argc)
      spec[1] = argv[++i];
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 10);
    else if (argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: sowzero demo [CONFIG] [--south SPEC] [--north SPEC] [--seed N]\n");
      return 2;
    }
  }
  char err[512];
  ini f;
  game g;
  if (ini_load(&f, path, err, sizeof err) != 0 || config_game(&f, &g, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero demo: %s\n", err);
    ini_free(&f);
    return 1;
  }
  ini_free(&f);
  agent *a[2] = {NULL, NULL};
  for (int s = 0; s < 2; s++)
    if (!(a[s] = agent_create(&g, spec[s], seed + (uint64_t)s, err, sizeof err))) {
      fprintf(stderr, "sowzero demo: %s agent: %s\n", s ? "north" : "south", err);
      agent_free(a[0]);
      return 1;
    }
  game_hist *h = malloc(sizeof *h);
  if (!h) return 1;
  game_pos p;
  game_start(&g, &p);
  game_hist_reset(h, &p);
  char board[2048];
  printf("Demo: %s (South: %s, North: %s)\n\n", g.preset, spec[0], spec[1]);
  int rc = 0;
  while (p.status == GAME_ONGOING) {
    game_render(&g, &p, board, sizeof board);
    fputs(board, stdout);
    int who = p.mover, act = agent_choose(a[who], &p, h);
    if (act < 0) {
      fprintf(stderr, "sowzero demo: %s\n", agent_error(a[who]));
      rc = 1;
      break;
    }
    printf("%s (%s) plays %d\n\n", who ? "North" : "South", spec[who], act);
    game_step(&g, &p, h, act);
  }
  game_render(&g, &p, board, sizeof board);
  fputs(board, stdout);
  free(h);
  agent_free(a[0]);
  agent_free(a[1]);
  return rc;
}

/* `sowzero demo`: two built-in agents play one game, move by move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ini.h"
#include "cli/cli.h"
#include "game/game.h"
#include "search/agent.h"
#include "trainer/config.h"

typedef struct {
  char south[1024], north[1024];
  uint64_t seed;
} demo_opts;

#define O_(kind, name, F, ...) kind(name, demo_opts, F, __VA_ARGS__)
static const kv_key demo_keys[] = {
    O_(KV_S, "south", south, NULL, "SPEC  the agent playing South ('sowzero arena --help')"),
    O_(KV_S, "north", north, NULL, "SPEC  the agent playing North"),
    O_(KV_U, "seed", seed, NULL, "seed of the agents (North's is seed+1)"),
};
#undef O_
static const kv_table demo_table = KV_TABLE(demo_keys);

int cmd_demo(int argc, char **argv) {
  demo_opts o = {.seed = 1};
  snprintf(o.south, sizeof o.south, "greedy");
  snprintf(o.north, sizeof o.north, "random");
  char *pos[1];
  cli_cmd c = {.name = "demo",
               .synopsis = "demo [CONFIG] [--south SPEC] [--north SPEC] [--seed N]",
               .about =
                   "  Two agents play one game of CONFIG's game (configs/oware.ini), move by "
                   "move.\n",
               .opts = &demo_table,
               .base = &o,
               .pos_name = "CONFIG",
               .max_pos = 1,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  const char *path = c.n_pos ? pos[0] : "configs/oware.ini", *spec[2] = {o.south, o.north};
  uint64_t seed = o.seed;
  char err[512];
  ini f;
  game g;
  if (ini_load(&f, path, err, sizeof err) != 0 || config_game(&f, &g, err, sizeof err) != 0) {
    ini_free(&f);
    return cli_fail(&c, 1, "%s", err);
  }
  ini_free(&f);
  agent *a[2] = {NULL, NULL};
  for (int s = 0; s < 2; s++)
    if (!(a[s] = agent_create(&g, spec[s], seed + (uint64_t)s, err, sizeof err))) {
      agent_free(a[0]);
      return cli_fail(&c, 2, "--%s '%s': %s", s ? "north" : "south", spec[s], err);
    }
  game_hist *h = malloc(sizeof *h);
  if (!h) {
    agent_free(a[0]);
    agent_free(a[1]);
    return cli_fail(&c, 1, "out of memory");
  }
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
      rc = cli_fail(&c, 1, "%s", agent_error(a[who]));
      break;
    }
    char name[32];
    game_move_label(&g, who, act, name, sizeof name);
    printf("%s (%s) plays %s\n\n", who ? "North" : "South", spec[who], name);
    game_step(&g, &p, h, act);
  }
  game_render(&g, &p, board, sizeof board);
  fputs(board, stdout);
  free(h);
  agent_free(a[0]);
  agent_free(a[1]);
  return rc;
}

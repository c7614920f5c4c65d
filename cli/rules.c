/* `sowzero rules`: the games, presets and rule options, from the registry. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "game/game.h"

/* "oware, namnam, ..." and "abapa, warri, ...". */
static void registry_names(char *games, char *presets, size_t len) {
  size_t at = 0;
  games[0] = presets[0] = 0;
  for (int i = 0; game_rules_at(i) && at < len; i++)
    at += (size_t)snprintf(games + at, len - at, "%s%s", i ? ", " : "", game_rules_at(i)->name);
  at = 0;
  for (int i = 0; game_preset_at(i, NULL, NULL) && at < len; i++)
    at += (size_t)snprintf(presets + at, len - at, "%s%s", i ? ", " : "",
                           game_preset_at(i, NULL, NULL));
}

int cmd_rules(int argc, char **argv) {
  char *pos[1];
  cli_cmd c = {.name = "rules",
               .synopsis = "rules [GAME]",
               .about =
                   "  Every game with its rule options (values, defaults) and the presets;\n"
                   "  GAME (a game or a preset) shows that game alone.\n",
               .pos_name = "GAME",
               .max_pos = 1,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  /* A preset stands for its game. */
  const char *only = c.n_pos ? pos[0] : NULL;
  if (only) {
    const char *gname = NULL, *settings;
    int found = 0;
    for (int i = 0; game_rules_at(i); i++) found |= !strcmp(only, game_rules_at(i)->name);
    for (int i = 0; !found && game_preset_at(i, &gname, &settings); i++)
      if (!strcmp(only, game_preset_at(i, NULL, NULL))) {
        only = gname;
        found = 1;
      }
    if (!found) {
      char games[512], presets[512];
      registry_names(games, presets, sizeof games);
      return cli_fail(&c, 2, "unknown game '%s' (games: %s; presets: %s)", only, games, presets);
    }
  }
  for (int i = 0; game_rules_at(i); i++) {
    const game_rules *r = game_rules_at(i);
    if (only && strcmp(only, r->name)) continue;
    printf("%s — %s\n", r->name, r->summary);
    int w = 13; /* the longest key of the game sets the column */
    for (const game_option *o = r->options; o->key; o++)
      if ((int)strlen(o->key) > w) w = (int)strlen(o->key);
    for (const game_option *o = r->options; o->key; o++) {
      printf("  %-*s ", w, o->key);
      if (o->values) {
        for (int v = 0; o->values[v]; v++)
          printf("%s%s%s", v ? " | " : "", o->values[v], v == o->def ? "*" : "");
        printf("\n");
      } else {
        printf("%d..%d (default %d)\n", o->min, o->max, o->def);
      }
      printf("  %*s %s%s\n", w, "", o->help, o->input ? " [rule input]" : "");
    }
    printf("\n");
  }
  printf("presets:\n");
  const char *gname, *settings;
  for (int i = 0; game_preset_at(i, &gname, &settings); i++)
    if (!only || !strcmp(only, gname))
      printf("  %-10s = %s %s\n", game_preset_at(i, NULL, NULL), gname, settings);
  printf(
      "(* marks a default; [rule input]: an option a network trained on several variants\n"
      " reads, docs/VARIANTS.md)\n");
  return 0;
}

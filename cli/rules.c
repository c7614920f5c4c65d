/* `sowzero rules`: the games, presets and rule options, from the registry. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "game/game.h"

int cmd_rules(int argc, char **argv) {
  const char *only = argc > 0 ? argv[0] : NULL;
  for (int i = 0; game_rules_at(i); i++) {
    const game_rules *r = game_rules_at(i);
    if (only && strcmp(only, r->name)) continue;
    printf("%s — %s\n", r->name, r->summary);
    for (const game_option *o = r->options; o->key; o++) {
      if (o->values) {
        printf("  %-14s", o->key);
        for (int v = 0; o->values[v]; v++)
          printf("%s%s%s", v ? " | " : "", o->values[v], v == o->def ? "*" : "");
        printf("\n  %14s %s\n", "", o->help);
      } else {
        printf("  %-14s %d..%d (default %d)\n  %14s %s\n", o->key, o->min, o->max, o->def, "",
               o->help);
      }
    }
    printf("\n");
  }
  printf("presets:\n");
  const char *gname, *settings;
  for (int i = 0; game_preset_at(i, &gname, &settings); i++)
    printf("  %-10s = %s %s\n", game_preset_at(i, NULL, NULL), gname, settings);
  printf("(* marks a default)\n");
  return 0;
}

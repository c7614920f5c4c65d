#include "trainer/config.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"

int config_game(ini *f, game *g, char *err, size_t errlen) {
  ini_entry *name = ini_get(f, "game", "name");
  const char *game_name = name ? name->value : "oware";
  char e[256];
  if (game_configure(g, game_name, 0, NULL, e, sizeof e) != 0) {
    errf(err, errlen, "%s:%d: game.name: %s", f->path, name ? name->line : 0, e);
    return -1;
  }
  for (int i = 0; i < f->n; i++) {
    ini_entry *x = &f->e[i];
    if (strcmp(x->section, "game") != 0 || !strcmp(x->key, "name")) continue;
    x->used = 1;
    if (game_set_option(g, x->key, x->value, e, sizeof e) != 0) {
      errf(err, errlen, "%s:%d: game.%s: %s", f->path, x->line, x->key, e);
      return -1;
    }
  }
  /* Options that constrain each other are checked once all are set. */
  if (g->rules->setup(g, e, sizeof e) != 0) {
    errf(err, errlen, "%s: [game]: %s", f->path, e);
    return -1;
  }
  return 0;
}

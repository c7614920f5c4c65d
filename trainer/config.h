/* config: turning INI files into the settings of a run. */
#ifndef SOWZERO_CONFIG_H
#define SOWZERO_CONFIG_H

#include <stddef.h>

#include "base/ini.h"
#include "game/game.h"

/* Configures g from the [game] section: `name` (a game or preset, default
 * oware) and every other key as a rule option. Errors name file, line and
 * key: "configs/x.ini:3: game.grand_slam: bad value 'y' ...". */
int config_game(ini *f, game *g, char *err, size_t errlen);

#endif

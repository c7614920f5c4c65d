/* What the files of the config module share: config.c (the keys, loading,
 * checks, writing, comparing) and config_game.c (the [game] section). */
#ifndef SOWZERO_CONFIG_INTERNAL_H
#define SOWZERO_CONFIG_INTERNAL_H

#include <stdio.h>

#include "base/ini.h"
#include "trainer/config.h"

/* Where entry x (of f) came from, for messages: "FILE:LINE", or "--set
 * S.K=V" for an override (line 0: the command line's argument, as given),
 * or "default" when there is no entry (x NULL); into buf, returned.
 * config_origin_of looks section.key up. */
#define CONFIG_ORIGIN_LEN 1024 /* a path, or "--set S.K=V" */
const char *config_origin(const ini *f, const ini_entry *x, char *buf, size_t len);
const char *config_origin_of(ini *f, const char *section, const char *key, char *buf, size_t len);

/* [game] of f: the variants (one without `variants`) and their weights. */
int config_game_set(ini *f, game *v, float *w, int *n, char *err, size_t errlen);
/* The `variants` value config_write writes: each variant as its preset
 * and the options in which the variants differ. -1 when it does not fit. */
int config_variants_line(const train_config *c, char *line, size_t len);
/* [game] as config_write writes it. */
int config_write_game(const train_config *c, FILE *out);
/* Fills d for a key whose values differ; returns 1. */
int config_differs(const char *key, const char *va, const char *vb, config_diff *d);
/* config_compare's [game] part: 1 with d filled at the first difference. */
int config_compare_game(const train_config *a, const train_config *b, config_diff *d);

#endif

/* A config's [game] section: one game or a set of variants with their
 * weights, read (errors name the key's line), written back, compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "trainer/config_internal.h"

/* Where entry x of f came from, into the caller's `at` (config_origin). */
#define at_of(x) config_origin(f, x, at, sizeof at)

/* "; set: K=V (ORIGIN), ..." for the keys of a section that were given:
 * a rule between several of them names where each came from. */
static const char *section_origins(ini *f, const char *section, char *buf, size_t len) {
  char at[CONFIG_ORIGIN_LEN];
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < f->n && k < len; i++) {
    const ini_entry *x = &f->e[i];
    if (strcmp(x->section, section) != 0) continue;
    k += (size_t)snprintf(buf + k, len - k, "%s%s=%s (%s)", k ? ", " : "; set: ", x->key, x->value,
                          at_of(x));
  }
  return buf;
}

/* The [game] section without `variants`: one game, its options set one by
 * one so that an error names the key's line (or the override). */
static int one_game(ini *f, const char *game_name, const ini_entry *name, game *g, char *err,
                    size_t errlen) {
  char e[256], at[CONFIG_ORIGIN_LEN];
  if (game_configure(g, game_name, 0, NULL, e, sizeof e) != 0) {
    errf(err, errlen, "%s: game.name: %s", at_of(name), e);
    return -1;
  }
  for (int i = 0; i < f->n; i++) {
    ini_entry *x = &f->e[i];
    if (strcmp(x->section, "game") != 0 || !strcmp(x->key, "name")) continue;
    x->used = 1;
    if (game_set_option(g, x->key, x->value, e, sizeof e) != 0) {
      errf(err, errlen, "%s: game.%s: %s", at_of(x), x->key, e);
      return -1;
    }
  }
  /* Options that constrain each other are checked once all are set; the
   * refusal says where each option given came from. */
  if (game_setup(g, e, sizeof e) != 0) {
    char set[768];
    errf(err, errlen, "%s: [game]: %s%s", f->path, e, section_origins(f, "game", set, sizeof set));
    return -1;
  }
  return 0;
}

/* `variant_weights`: n positive numbers separated by spaces or commas. */
static int variant_weights(ini *f, ini_entry *x, int n, float *w, char *err, size_t errlen) {
  char list[512], at[CONFIG_ORIGIN_LEN], at_list[CONFIG_ORIGIN_LEN];
  at_of(x);
  snprintf(list, sizeof list, "%s", x->value);
  int k = 0;
  for (char *save = NULL, *t = strtok_r(list, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
    char *end;
    double v = strtod(t, &end);
    if (*end || !(v > 0 && v < 1e6)) {
      errf(err, errlen, "%s: game.variant_weights: bad weight '%s' (a number above 0)", at, t);
      return -1;
    }
    if (k < n) w[k] = (float)v;
    k++;
  }
  if (k != n) {
    /* Two keys: each named where it was set. */
    errf(err, errlen, "%s: game.variant_weights: %d weights for %d variants (game.variants: %s)",
         at, k, n, config_origin_of(f, "game", "variants", at_list, sizeof at_list));
    return -1;
  }
  return 0;
}

/* The [game] section with `variants = V; V; ...`: each V a game or preset
 * and its own settings, on top of the section's other keys (shared by
 * every variant). Every variant has the rule inputs on. */
static int game_variants(ini *f, ini_entry *list, const char *game_name, game *v, float *w, int *n,
                         char *err, size_t errlen) {
  char *shared[GAME_MAX_OPTIONS + 1];
  char kv[GAME_MAX_OPTIONS + 1][sizeof f->e[0].key + sizeof f->e[0].value + 2];
  int ns = 0;
  for (int i = 0; i < f->n; i++) {
    ini_entry *x = &f->e[i];
    if (strcmp(x->section, "game") != 0 || !strcmp(x->key, "name") || !strcmp(x->key, "variants") ||
        !strcmp(x->key, "variant_weights"))
      continue;
    x->used = 1;
    if (ns == GAME_MAX_OPTIONS + 1) {
      char at[CONFIG_ORIGIN_LEN];
      errf(err, errlen, "%s: game.%s: too many settings", at_of(x), x->key);
      return -1;
    }
    snprintf(kv[ns], sizeof kv[ns], "%s=%s", x->key, x->value);
    shared[ns] = kv[ns];
    ns++;
  }
  game named;
  char e[256], items[1024], at[CONFIG_ORIGIN_LEN];
  if (game_configure(&named, game_name, 0, NULL, e, sizeof e) != 0) {
    errf(err, errlen, "%s: game.name: %s", config_origin_of(f, "game", "name", at, sizeof at), e);
    return -1;
  }
  at_of(list);
  snprintf(items, sizeof items, "%s", list->value);
  *n = 0;
  for (char *s1 = NULL, *item = strtok_r(items, ";", &s1); item; item = strtok_r(NULL, ";", &s1)) {
    char *settings[2 * GAME_MAX_OPTIONS + 2], *name = NULL;
    int nset = 0;
    for (int i = 0; i < ns; i++) settings[nset++] = shared[i];
    for (char *s2 = NULL, *t = strtok_r(item, " ", &s2); t; t = strtok_r(NULL, " ", &s2)) {
      if (!name) {
        name = t;
      } else if (nset == 2 * GAME_MAX_OPTIONS + 2) {
        errf(err, errlen, "%s: game.variants: variant %d: too many settings", at, *n + 1);
        return -1;
      } else {
        settings[nset++] = t;
      }
    }
    if (!name) continue;
    if (*n == GAME_MAX_VARIANTS) {
      errf(err, errlen, "%s: game.variants: more than %d variants", at, GAME_MAX_VARIANTS);
      return -1;
    }
    game *g = &v[*n];
    if (game_configure(g, name, nset, settings, e, sizeof e) != 0) {
      errf(err, errlen, "%s: game.variants: variant %d '%s': %s", at, *n + 1, name, e);
      return -1;
    }
    if (g->rules != named.rules || g->n_actions != v[0].n_actions || g->n_pits != v[0].n_pits) {
      errf(err, errlen,
           "%s: game.variants: variant %d '%s' is not a variant of %s with %d actions (one "
           "network plays every variant)",
           at, *n + 1, name, named.rules->name, *n ? v[0].n_actions : named.n_actions);
      return -1;
    }
    game_set_rule_inputs(g, 1);
    if (*n && g->n_features != v[0].n_features) {
      errf(err, errlen, "%s: game.variants: variant %d '%s' encodes %d features, variant 1 %d", at,
           *n + 1, name, g->n_features, v[0].n_features);
      return -1;
    }
    w[*n] = 1;
    (*n)++;
  }
  if (*n == 0) {
    errf(err, errlen, "%s: game.variants: no variant (games or presets separated by ';')", at);
    return -1;
  }
  if (*n == 1) {
    errf(err, errlen,
         "%s: game.variants: one variant; a set needs two or more (for one, set game.name "
         "and its options)",
         at);
    return -1;
  }
  return 0;
}

int config_game_set(ini *f, game *v, float *w, int *n, char *err, size_t errlen) {
  ini_entry *name = ini_get(f, "game", "name");
  ini_entry *list = ini_get(f, "game", "variants");
  ini_entry *weights = ini_get(f, "game", "variant_weights");
  const char *game_name = name ? name->value : "oware";
  if (!list) {
    if (weights) {
      char at[CONFIG_ORIGIN_LEN];
      errf(err, errlen, "%s: game.variant_weights: only with game.variants", at_of(weights));
      return -1;
    }
    *n = 1;
    w[0] = 1;
    return one_game(f, game_name, name, &v[0], err, errlen);
  }
  if (game_variants(f, list, game_name, v, w, n, err, errlen) != 0) return -1;
  return weights ? variant_weights(f, weights, *n, w, err, errlen) : 0;
}

int config_game(ini *f, game *g, char *err, size_t errlen) {
  game v[GAME_MAX_VARIANTS];
  float w[GAME_MAX_VARIANTS];
  int n;
  if (config_game_set(f, v, w, &n, err, errlen) != 0) return -1;
  *g = v[0];
  return 0;
}

/* Writes option i of g as "key=value" (sep before it). */
static int option_text(const game *g, int i, const char *sep, char *buf, size_t len) {
  const game_option *o = &g->rules->options[i];
  int w = o->values ? snprintf(buf, len, "%s%s=%s", sep, o->key, o->values[g->opt[i]])
                    : snprintf(buf, len, "%s%s=%d", sep, o->key, g->opt[i]);
  return w < 0 || (size_t)w >= len ? -1 : w;
}

/* Whether option i has one value in every variant. */
static int shared_option(const train_config *c, int i) {
  for (int k = 1; k < c->n_variants; k++)
    if (c->variant[k].opt[i] != c->variant[0].opt[i]) return 0;
  return 1;
}

/* The `variants` value config_write writes: each variant as its preset and
 * the options in which the variants differ. -1 when it does not fit. */
int config_variants_line(const train_config *c, char *line, size_t len) {
  size_t at = 0;
  line[0] = 0;
  for (int k = 0; k < c->n_variants; k++) {
    int w = snprintf(line + at, len - at, "%s%s", k ? "; " : "", c->variant[k].preset);
    if (w < 0 || (size_t)w >= len - at) return -1;
    at += (size_t)w;
    for (int i = 0; c->variant[0].rules->options[i].key; i++) {
      if (shared_option(c, i)) continue;
      if ((w = option_text(&c->variant[k], i, " ", line + at, len - at)) < 0) return -1;
      at += (size_t)w;
    }
  }
  return 0;
}

/* [game] of a variant set: the options every variant shares as keys, then
 * the variants (config_variants_line) and their weights. */
static int write_variants(const train_config *c, FILE *out) {
  const game *v = c->variant;
  char line[sizeof((ini_entry *)0)->value], one[160];
  if (config_variants_line(c, line, sizeof line) != 0) return -1;
  fprintf(out, "name = %s\n", v[0].rules->name);
  for (int i = 0; v[0].rules->options[i].key; i++) {
    if (!shared_option(c, i)) continue;
    if (option_text(&v[0], i, "", one, sizeof one) < 0) return -1;
    char *eq = strchr(one, '=');
    fprintf(out, "%.*s = %s\n", (int)(eq - one), one, eq + 1);
  }
  fprintf(out, "variants = %s\nvariant_weights =", line);
  for (int k = 0; k < c->n_variants; k++) fprintf(out, " %.9g", c->variant_weight[k]);
  fprintf(out, "\n");
  return 0;
}

int config_write_game(const train_config *c, FILE *out) {
  fprintf(out, "[game]\n");
  if (c->n_variants > 1) return write_variants(c, out);
  char opts[512];
  if (game_options_string(&c->g, opts, sizeof opts) != 0) return -1;
  fprintf(out, "name = %s\n", c->g.preset);
  for (char *save = NULL, *t = strtok_r(opts, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(t, '=');
    *eq = 0;
    fprintf(out, "%s = %s\n", t, eq + 1);
  }
  return 0;
}

/* Fills the outputs for a differing key; returns 1. */
int config_differs(const char *key, const char *va, const char *vb, config_diff *d) {
  snprintf(d->key, sizeof d->key, "%s", key);
  snprintf(d->a, sizeof d->a, "%s", va);
  snprintf(d->b, sizeof d->b, "%s", vb);
  return 1;
}

int config_compare_game(const train_config *a, const train_config *b, config_diff *d) {
  memset(d, 0, sizeof *d);
  /* The game: its rules and every option (the preset name is only a label). */
  if (strcmp(a->g.rules->name, b->g.rules->name) != 0)
    return config_differs("game.name", a->g.preset, b->g.preset, d);
  char oa[512], ob[512], key[80];
  if (a->n_variants > 1 || b->n_variants > 1) {
    char sa[sizeof d->a], sb[sizeof d->b];
    if (game_variants_string(a->variant, a->n_variants, sa, sizeof sa) != 0 ||
        game_variants_string(b->variant, b->n_variants, sb, sizeof sb) != 0)
      return config_differs("game.variants", "(too long)", "(too long)", d);
    if (strcmp(sa, sb) != 0) return config_differs("game.variants", sa, sb, d);
    for (int k = 0; k < a->n_variants; k++)
      if (a->variant_weight[k] != b->variant_weight[k]) {
        snprintf(sa, sizeof sa, "%.9g (variant %d)", a->variant_weight[k], k + 1);
        snprintf(sb, sizeof sb, "%.9g (variant %d)", b->variant_weight[k], k + 1);
        return config_differs("game.variant_weights", sa, sb, d);
      }
  }
  if (game_options_string(&a->g, oa, sizeof oa) != 0 ||
      game_options_string(&b->g, ob, sizeof ob) != 0)
    return config_differs("game", "(options too long)", "(options too long)", d);
  char *sa = NULL, *sb = NULL;
  char *ta = strtok_r(oa, " ", &sa), *tb = strtok_r(ob, " ", &sb);
  for (; ta || tb; ta = strtok_r(NULL, " ", &sa), tb = strtok_r(NULL, " ", &sb)) {
    if (ta && tb && !strcmp(ta, tb)) continue;
    const char *t = ta ? ta : tb, *eq = strchr(t, '=');
    snprintf(key, sizeof key, "game.%.*s", eq ? (int)(eq - t) : (int)strlen(t), t);
    const char *va = ta && strchr(ta, '=') ? strchr(ta, '=') + 1 : "(none)";
    const char *vb = tb && strchr(tb, '=') ? strchr(tb, '=') + 1 : "(none)";
    return config_differs(key, va, vb, d);
  }
  return 0;
}

/* The game registry, option parsing, repetition history and outcomes:
 * everything that is the same for every rules table. */
#include "game/game.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"

static const game_rules *const registry[] = {&oware_rules, &namnam_rules, &bao_kenya_rules,
                                             &bao_laps_rules, &kujifunza_rules};
#define N_RULES (int)(sizeof registry / sizeof registry[0])

/* Presets: named option sets over a game (docs/games/oware.md). */
static const struct {
  const char *name, *game, *settings;
} presets[] = {
    {"oware", "oware", ""},
    {"abapa", "oware", "grand_slam=no_capture"},
    {"warri", "oware", "grand_slam=capture_continue"},
    {"wari", "oware", "grand_slam=forbidden"},
    {"wari-es", "oware", "grand_slam=capture_continue"},
    {"oware-cut", "oware", "grand_slam=capture_end"},
};
#define N_PRESETS (int)(sizeof presets / sizeof presets[0])

const game_rules *game_rules_at(int i) { return i >= 0 && i < N_RULES ? registry[i] : NULL; }

const char *game_preset_at(int i, const char **game_name, const char **settings) {
  if (i < 0 || i >= N_PRESETS) return NULL;
  if (game_name) *game_name = presets[i].game;
  if (settings) *settings = presets[i].settings;
  return presets[i].name;
}

static int option_index(const game_rules *r, const char *key) {
  for (int i = 0; r->options[i].key; i++)
    if (strcmp(r->options[i].key, key) == 0) return i;
  return -1;
}

int game_option_value(const game *g, const char *key) {
  int i = option_index(g->rules, key);
  return i < 0 ? -1 : g->opt[i];
}

static void list_keys(const game_rules *r, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; r->options[i].key && n < len; i++)
    n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", r->options[i].key);
}

static void list_values(const game_option *o, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; o->values[i] && n < len; i++)
    n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->values[i]);
}

int game_set_option(game *g, const char *key, const char *value, char *err, size_t errlen) {
  const game_rules *r = g->rules;
  int i = option_index(r, key);
  if (i < 0) {
    char keys[512];
    list_keys(r, keys, sizeof keys);
    errf(err, errlen, "unknown option '%s' for game %s (options: %s)", key, r->name, keys);
    return -1;
  }
  const game_option *o = &r->options[i];
  if (o->values) {
    for (int v = 0; o->values[v]; v++)
      if (strcmp(o->values[v], value) == 0) {
        g->opt[i] = v;
        return 0;
      }
    char vals[512];
    list_values(o, vals, sizeof vals);
    errf(err, errlen, "bad value '%s' for option %s (one of: %s)", value, key, vals);
    return -1;
  }
  /* Whole numbers only: no sign but '-', no spaces, no other base. */
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  int digits = value[value[0] == '-'] >= '0' && value[value[0] == '-'] <= '9';
  if (!digits || *end != 0 || errno == ERANGE) {
    errf(err, errlen, "bad value '%s' for option %s (an integer %d..%d)", value, key, o->min,
         o->max);
    return -1;
  }
  if (v < o->min || v > o->max) {
    errf(err, errlen, "value %ld for option %s is out of range %d..%d", v, key, o->min, o->max);
    return -1;
  }
  g->opt[i] = (int)v;
  return 0;
}

/* Applies one "key=value" token. given (may be NULL) holds the options set
 * so far by the same list: setting one twice is an error, not "the last
 * wins" (a preset's settings are not in it, so a setting overrides them). */
static int apply_setting(game *g, const char *kv, unsigned *given, char *err, size_t errlen) {
  const char *eq = strchr(kv, '=');
  char key[64];
  if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof key) {
    errf(err, errlen, "bad setting '%s' (expected key=value)", kv);
    return -1;
  }
  memcpy(key, kv, (size_t)(eq - kv));
  key[eq - kv] = 0;
  int i = option_index(g->rules, key);
  if (given && i >= 0) {
    if (*given >> i & 1) {
      errf(err, errlen, "option %s given twice", key);
      return -1;
    }
    *given |= 1u << i;
  }
  return game_set_option(g, key, eq + 1, err, errlen);
}

/* Applies a space-separated list of key=value settings. */
static int apply_settings_string(game *g, const char *s, char *err, size_t errlen) {
  char buf[512], *save = NULL;
  snprintf(buf, sizeof buf, "%s", s);
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
    if (apply_setting(g, t, NULL, err, errlen) != 0) return -1;
  return 0;
}

int game_configure(game *g, const char *name, int nset, char *const *settings, char *err,
                   size_t errlen) {
  memset(g, 0, sizeof *g);
  const char *game_name = name, *preset_settings = "";
  for (int i = 0; i < N_PRESETS; i++)
    if (strcmp(presets[i].name, name) == 0) {
      game_name = presets[i].game;
      preset_settings = presets[i].settings;
    }
  for (int i = 0; i < N_RULES; i++)
    if (strcmp(registry[i]->name, game_name) == 0) g->rules = registry[i];
  if (!g->rules) {
    char names[512];
    size_t n = (size_t)snprintf(names, sizeof names, "games:");
    for (int i = 0; i < N_RULES; i++)
      n += (size_t)snprintf(names + n, sizeof names - n, " %s", registry[i]->name);
    n += (size_t)snprintf(names + n, sizeof names - n, "; presets:");
    for (int i = 0; i < N_PRESETS && n < sizeof names; i++)
      n += (size_t)snprintf(names + n, sizeof names - n, " %s", presets[i].name);
    errf(err, errlen, "unknown game '%s' (%s)", name, names);
    return -1;
  }
  snprintf(g->preset, sizeof g->preset, "%s", name);
  for (int i = 0; g->rules->options[i].key; i++) {
    if (i >= GAME_MAX_OPTIONS) {
      errf(err, errlen, "game %s has too many options", g->rules->name);
      return -1;
    }
    g->opt[i] = g->rules->options[i].def;
  }
  if (apply_settings_string(g, preset_settings, err, errlen) != 0) return -1;
  unsigned given = 0;
  _Static_assert(GAME_MAX_OPTIONS <= 32, "option bits fit an unsigned");
  for (int i = 0; i < nset; i++)
    if (apply_setting(g, settings[i], &given, err, errlen) != 0) return -1;
  return game_setup(g, err, errlen);
}

int game_setup(game *g, char *err, size_t errlen) {
  int on = g->rule_inputs > 0;
  g->rule_inputs = 0;
  if (g->rules->setup(g, err, errlen) != 0) return -1;
  game_set_rule_inputs(g, on);
  return 0;
}

static int rule_feature_count(const game_rules *r) {
  int n = 0;
  for (const game_option *o = r->options; o->key; o++)
    if (o->input) n += o->values ? o->max + 1 : 1;
  return n;
}

void game_set_rule_inputs(game *g, int on) {
  int n = on ? rule_feature_count(g->rules) : 0;
  g->n_features += n - g->rule_inputs;
  g->encoding_version =
      (g->encoding_version & ~GAME_ENCODING_RULES) | (n ? GAME_ENCODING_RULES : 0);
  g->rule_inputs = n;
}

void game_rule_features(const game *g, float *out) {
  const game_option *o = g->rules->options;
  for (int i = 0; o[i].key; i++) {
    if (!o[i].input) continue;
    if (o[i].values) {
      for (int v = 0; v <= o[i].max; v++) *out++ = g->opt[i] == v;
    } else {
      *out++ = (float)(g->opt[i] - o[i].min) / (float)(o[i].max - o[i].min);
    }
  }
}

/* ---- Variant sets ------------------------------------------------------------ */

/* The value of key in an options string ("k=v k=v ..."): its length and
 * where it starts, or NULL. */
static const char *value_in(const char *opts, const char *key, size_t *len) {
  size_t kl = strlen(key);
  for (const char *t = opts; *t;) {
    const char *end = strchr(t, ' ');
    if (!end) end = t + strlen(t);
    if ((size_t)(end - t) > kl && !strncmp(t, key, kl) && t[kl] == '=') {
      *len = (size_t)(end - t) - kl - 1;
      return t + kl + 1;
    }
    t = *end ? end + 1 : end;
  }
  return NULL;
}

int game_variants_string(const game *v, int n, char *buf, size_t len) {
  if (n < 1 || game_options_string(&v[0], buf, len) != 0) return -1;
  size_t at = strlen(buf);
  for (int k = 1; k < n; k++) {
    if (v[k].rules != v[0].rules) return -1;
    int w = snprintf(buf + at, len - at, " |");
    if (w < 0 || (size_t)w >= len - at) return -1;
    at += (size_t)w;
    for (int i = 0; v[0].rules->options[i].key; i++) {
      if (v[k].opt[i] == v[0].opt[i]) continue;
      const game_option *o = &v[0].rules->options[i];
      w = o->values ? snprintf(buf + at, len - at, " %s=%s", o->key, o->values[v[k].opt[i]])
                    : snprintf(buf + at, len - at, " %s=%d", o->key, v[k].opt[i]);
      if (w < 0 || (size_t)w >= len - at) return -1;
      at += (size_t)w;
    }
  }
  return 0;
}

/* s without its leading and trailing spaces (in place). */
static char *trim(char *s) {
  while (*s == ' ') s++;
  size_t n = strlen(s);
  while (n && s[n - 1] == ' ') s[--n] = 0;
  return s;
}

/* Whether g has, for every option, the value that diff gives it, else the
 * value in base. */
static int is_variant(const game *g, const char *mine, const char *base, const char *diff) {
  for (int i = 0; g->rules->options[i].key; i++) {
    const char *key = g->rules->options[i].key, *want, *have;
    size_t wl, hl;
    if (!(want = value_in(diff, key, &wl)) && !(want = value_in(base, key, &wl))) return 0;
    if (!(have = value_in(mine, key, &hl)) || wl != hl || strncmp(want, have, wl)) return 0;
  }
  return 1;
}

int game_variants_cover(const game *g, const char *set) {
  char mine[512], buf[1024], *save = NULL;
  if (game_options_string(g, mine, sizeof mine) != 0 || strlen(set) >= sizeof buf) return 0;
  snprintf(buf, sizeof buf, "%s", set);
  char *first = strtok_r(buf, "|", &save);
  if (!first) return 0;
  char *base = trim(first);
  if (is_variant(g, mine, base, "")) return 1;
  for (char *part; (part = strtok_r(NULL, "|", &save));)
    if (is_variant(g, mine, base, trim(part))) return 1;
  return 0;
}

int game_options_string(const game *g, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; g->rules->options[i].key; i++) {
    const game_option *o = &g->rules->options[i];
    int w = o->values
                ? snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "", o->key, o->values[g->opt[i]])
                : snprintf(buf + n, len - n, "%s%s=%d", i ? " " : "", o->key, g->opt[i]);
    if (w < 0 || (size_t)w >= len - n) return -1;
    n += (size_t)w;
  }
  return 0;
}

/* ---- History ---------------------------------------------------------------- */

static inline void filter_add(game_hist *h, uint64_t x) {
  unsigned b = (unsigned)(x >> 54); /* top 10 bits: 1024-bit filter */
  h->seen[b >> 6] |= 1ULL << (b & 63);
}
static inline int filter_has(const game_hist *h, uint64_t x) {
  unsigned b = (unsigned)(x >> 54);
  return (h->seen[b >> 6] >> (b & 63)) & 1;
}

void game_hist_reset(game_hist *h, const game_pos *p) {
  memset(h->seen, 0, sizeof h->seen);
  h->len = 1;
  h->hash[0] = p->hash;
  filter_add(h, p->hash);
}

int game_hist_count(const game_hist *h, uint64_t hash) {
  if (!filter_has(h, hash)) return 0;
  int c = 0;
  for (int i = 0; i < h->len; i++) c += h->hash[i] == hash;
  return c;
}

void game_hist_copy(game_hist *dst, const game_hist *src) {
  dst->len = src->len;
  memcpy(dst->seen, src->seen, sizeof dst->seen);
  memcpy(dst->hash, src->hash, (size_t)src->len * sizeof src->hash[0]);
}

int game_step(const game *g, game_pos *p, game_hist *h, int action) {
  int flags = g->rules->play(g, p, action);
  if (flags & GAME_PLAY_CAPTURE) {
    for (int i = 0; i < 16; i++) h->seen[i] = 0;
    h->len = 0;
  }
  if (p->status != GAME_ONGOING) return flags;
  if (g->repetition > 0 && game_hist_count(h, p->hash) >= g->repetition) {
    g->rules->end_cycle(g, p);
    return flags;
  }
  if (h->len < GAME_HIST_CAP) {
    h->hash[h->len++] = p->hash;
    filter_add(h, p->hash);
  } else {
    /* Only reachable if a game outlives its max_plies cap; end it rather
     * than forget history. */
    g->rules->end_cycle(g, p);
  }
  return flags;
}

/* ---- Outcomes and text --------------------------------------------------------- */

void game_finish(game_pos *p, int reason, int final0, int final1, int winner) {
  p->status = GAME_OVER;
  p->end_reason = (uint8_t)reason;
  p->final[0] = (uint8_t)final0;
  p->final[1] = (uint8_t)final1;
  p->half = 0;
  if (winner >= 0)
    p->winner = (uint8_t)winner;
  else
    p->winner = final0 == final1 ? GAME_DRAW : final0 > final1 ? GAME_SOUTH : GAME_NORTH;
}

const char *game_end_name(int reason) {
  static const char *const names[GAME_END_COUNT] = {
      "none",     "target",    "famine",  "repetition", "nocapture",
      "maxplies", "grandslam", "nomoves", "frontrow",   "maxrounds"};
  return reason >= 0 && reason < GAME_END_COUNT ? names[reason] : "unknown";
}

int game_parse_action(const game *g, const char *s, char *err, size_t errlen) {
  char *end;
  long a = strtol(s, &end, 10);
  if (*s != 0 && *end == 0 && a >= 0 && a < g->n_actions) return (int)a;
  if (g->rules->move_name) {
    char name[32];
    for (int i = 0; i < g->n_actions; i++)
      if (g->rules->move_name(g, i, name, sizeof name) == 0 && strcmp(name, s) == 0) return i;
    game_move_name(g, 0, name, sizeof name);
    errf(err, errlen, "bad move '%s' (an action number 0..%d or a move name such as %s)", s,
         g->n_actions - 1, name);
    return -1;
  }
  errf(err, errlen, "bad move '%s' (an action number 0..%d)", s, g->n_actions - 1);
  return -1;
}

int game_move_name(const game *g, int action, char *buf, size_t len) {
  if (g->rules->move_name) return g->rules->move_name(g, action, buf, len);
  int w = snprintf(buf, len, "%d", action);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

int game_move_label(const game *g, int mover, int action, char *buf, size_t len) {
  if (g->rules->move_name) return g->rules->move_name(g, action, buf, len);
  int pit = (action + g->n_pits / 2 * (mover ? 1 : 0)) % g->n_pits;
  int w = snprintf(buf, len, "%d", pit);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

void game_render(const game *g, const game_pos *p, char *buf, size_t len) {
  g->rules->render(g, p, buf, len);
}

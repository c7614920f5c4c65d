#include "trainer/config.h"

#include <stdio.h>
#include <stdlib.h>
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

/* ---- The key table ------------------------------------------------------------ */

typedef enum { T_INT, T_FLOAT, T_DOUBLE, T_U64, T_STR, T_GATE } key_type;

typedef struct {
  const char *section, *key;
  key_type type;
  size_t off;
  double lo, hi;
  const char *def; /* default, as text */
  const char *help;
} key_desc;

#define F(field) offsetof(train_config, field)
static const key_desc keys[] = {
    {"network", "hidden", T_INT, F(hidden), 8, 4096, "256", "width of every hidden layer"},
    {"network", "blocks", T_INT, F(blocks), 0, 64, "2", "residual blocks of two dense layers"},
    {"selfplay", "threads", T_INT, F(threads), 1, 64, "1",
     "self-play worker threads (the learner and gating run on one more)"},
    {"selfplay", "games_per_thread", T_INT, F(games_per_thread), 1, 4096, "64",
     "games each worker advances at once; their leaves form one network batch"},
    {"selfplay", "cap_sims", T_INT, F(cap_sims), 0, 100000, "0",
     "playout-cap randomisation: budget of fast moves, which are not training targets; 0 = off"},
    {"selfplay", "full_frac", T_FLOAT, F(full_frac), 0, 1, "0.25",
     "with cap_sims: share of moves searched with the full budget"},
    {"selfplay", "record_every", T_INT, F(record_every), 0, 1000000, "50",
     "keep every N-th self-play game in games/; 0 = none"},
    {"replay", "window", T_INT, F(window), 256, 50000000, "200000", "samples the buffer holds"},
    {"replay", "min_samples", T_INT, F(min_samples), 1, 50000000, "4096",
     "samples before learning starts"},
    {"learner", "batch", T_INT, F(batch), 1, 8192, "256", "mini-batch size"},
    {"learner", "lr", T_FLOAT, F(lr), 0, 10, "0.002", "learning rate (Adam)"},
    {"learner", "lr_final", T_FLOAT, F(lr_final), 0, 10, "0.0002",
     "learning rate at the end of the budget (cosine schedule)"},
    {"learner", "warmup_steps", T_INT, F(warmup_steps), 0, 10000000, "200",
     "steps of linear learning-rate warm-up"},
    {"learner", "weight_decay", T_FLOAT, F(weight_decay), 0, 1, "0.0001",
     "decoupled weight decay (weights, not biases)"},
    {"learner", "clip_norm", T_FLOAT, F(clip_norm), 0, 1e6, "5", "gradient norm clip; 0 = off"},
    {"learner", "policy_w", T_FLOAT, F(policy_w), 0, 100, "1", "weight of the policy loss"},
    {"learner", "value_w", T_FLOAT, F(value_w), 0, 100, "1", "weight of the value loss"},
    {"learner", "score_w", T_FLOAT, F(score_w), 0, 100, "0.25",
     "weight of the score-margin loss"},
    {"learner", "score_scale", T_FLOAT, F(score_scale), 0.01, 1000, "10",
     "score target = final seed margin / score_scale"},
    {"learner", "train_ratio", T_FLOAT, F(train_ratio), 0.01, 1000, "4",
     "samples trained per new self-play sample"},
    {"learner", "steps_per_iter", T_INT, F(steps_per_iter), 1, 10000000, "200",
     "training steps between candidates"},
    {"gating", "mode", T_GATE, F(gating), 0, 2, "sprt",
     "off (always the latest, AlphaZero) | threshold | sprt"},
    {"gating", "games", T_INT, F(gate_games), 2, 100000, "100",
     "gating games at most (pairs: each opening with both colours)"},
    {"gating", "threshold", T_FLOAT, F(gate_threshold), 0, 1, "0.55",
     "score of the candidate that promotes it (threshold; sprt when still undecided)"},
    {"gating", "sims", T_INT, F(gate_sims), 1, 100000, "64", "simulations per move in gating"},
    {"gating", "sprt_elo1", T_FLOAT, F(sprt_elo1), 1, 1000, "35",
     "SPRT: H1 Elo (H0 is 0 Elo)"},
    {"gating", "sprt_alpha", T_FLOAT, F(sprt_alpha), 0.001, 0.5, "0.05", "SPRT: false promotions"},
    {"gating", "sprt_beta", T_FLOAT, F(sprt_beta), 0.001, 0.5, "0.05", "SPRT: missed promotions"},
    {"eval", "every", T_INT, F(eval_every), 0, 100000, "2",
     "promotions between evaluations against the anchors; 0 = off"},
    {"eval", "anchors", T_STR, F(anchors), 0, 0, "random;greedy;alphabeta depth=4",
     "anchor agents, ';'-separated"},
    {"eval", "games", T_INT, F(eval_games), 2, 100000, "40", "games against each anchor"},
    {"eval", "sims", T_INT, F(eval_sims), 1, 100000, "100",
     "simulations per move of the best in evaluations"},
    {"run", "seed", T_U64, F(seed), 0, 0, "1", "seed of everything random in the run"},
    {"run", "minutes", T_DOUBLE, F(minutes), 0, 1e7, "60",
     "training budget in wall minutes, over all resumes; 0 = no limit"},
    {"run", "iterations", T_INT, F(iterations), 0, 100000000, "0",
     "stop after this many iterations; 0 = no limit"},
    {"run", "checkpoint_every", T_INT, F(checkpoint_every), 1, 1000000, "1",
     "iterations between saves of the replay buffer"},
};
#undef F
#define N_KEYS (int)(sizeof keys / sizeof keys[0])

static const char *const gate_names[] = {"off", "threshold", "sprt"};

static int set_key(train_config *c, const key_desc *d, const char *value, char *err,
                   size_t errlen) {
  char *field = (char *)c + d->off, *end;
  switch (d->type) {
  case T_STR: {
    size_t n = strlen(value);
    if (n >= sizeof c->anchors) {
      errf(err, errlen, "value too long (at most %zu characters)", sizeof c->anchors - 1);
      return -1;
    }
    memcpy(field, value, n + 1);
    return 0;
  }
  case T_GATE:
    for (int i = 0; i < 3; i++)
      if (!strcmp(value, gate_names[i])) {
        *(int *)(void *)field = i;
        return 0;
      }
    errf(err, errlen, "bad value '%s' (one of: off, threshold, sprt)", value);
    return -1;
  case T_U64: {
    unsigned long long v = strtoull(value, &end, 10);
    if (!*value || *end || value[0] == '-') {
      errf(err, errlen, "bad value '%s' (a non-negative integer)", value);
      return -1;
    }
    *(uint64_t *)(void *)field = v;
    return 0;
  }
  default: {
    double v = strtod(value, &end);
    if (!*value || *end || !(v >= d->lo && v <= d->hi) ||
        (d->type == T_INT && v != (double)(long)v)) {
      errf(err, errlen, "bad value '%s' (%s %g..%g)", value,
           d->type == T_INT ? "an integer" : "a number", d->lo, d->hi);
      return -1;
    }
    if (d->type == T_INT)
      *(int *)(void *)field = (int)v;
    else if (d->type == T_FLOAT)
      *(float *)(void *)field = (float)v;
    else
      *(double *)(void *)field = v;
    return 0;
  }
  }
}

static mcts_params selfplay_search_defaults(void) {
  mcts_params p = mcts_defaults();
  p.sims = 100;
  p.noise = 1;
  p.temp_plies = 12;
  p.temperature = 1.0f;
  p.node_cap = 40000;
  p.cache_size = 0;
  p.gumbel = 1;
  p.gumbel_m = 6;
  /* Completed Q is min-max scaled per node, so a full-scale sigma makes
   * one-hot targets; 0.1 keeps them soft (the value_scale of mctx). */
  p.gumbel_c_scale = 0.1f;
  return p;
}

void config_defaults(train_config *c) {
  memset(c, 0, sizeof *c);
  char err[256];
  game_configure(&c->g, "oware", 0, NULL, err, sizeof err);
  for (int i = 0; i < N_KEYS; i++) set_key(c, &keys[i], keys[i].def, err, sizeof err);
  c->search = selfplay_search_defaults();
}

static const key_desc *find_key(const char *section, const char *key) {
  for (int i = 0; i < N_KEYS; i++)
    if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, key)) return &keys[i];
  return NULL;
}

static int known_section(const char *s) {
  if (!strcmp(s, "game") || !strcmp(s, "search")) return 1;
  for (int i = 0; i < N_KEYS; i++)
    if (!strcmp(keys[i].section, s)) return 1;
  return 0;
}

/* Applies one entry of any section but [game]. */
static int apply_entry(train_config *c, const char *section, const char *key, const char *value,
                       char *err, size_t errlen) {
  if (!known_section(section)) {
    errf(err, errlen, "unknown section [%s] (sections: game network search selfplay replay "
                      "learner gating eval run)", section);
    return -1;
  }
  if (!strcmp(section, "search")) return mcts_params_set(&c->search, key, value, err, errlen);
  const key_desc *d = find_key(section, key);
  if (!d) {
    char known[512];
    size_t n = 0;
    known[0] = 0;
    for (int i = 0; i < N_KEYS; i++)
      if (!strcmp(keys[i].section, section))
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", n ? ", " : "", keys[i].key);
    errf(err, errlen, "unknown key (known in [%s]: %s)", section, known);
    return -1;
  }
  return set_key(c, d, value, err, errlen);
}

static int check(const train_config *c, char *err, size_t errlen) {
  char e[256];
  if (mcts_params_check(&c->search, e, sizeof e) != 0) {
    errf(err, errlen, "[search]: %s", e);
    return -1;
  }
  if (c->min_samples > c->window) {
    errf(err, errlen, "replay.min_samples %d is more than replay.window %d", c->min_samples,
         c->window);
    return -1;
  }
  if (c->min_samples < c->batch) {
    errf(err, errlen, "replay.min_samples %d is less than one batch (learner.batch %d)",
         c->min_samples, c->batch);
    return -1;
  }
  if (c->cap_sims && c->cap_sims >= c->search.sims) {
    errf(err, errlen, "selfplay.cap_sims %d must be below search.sims %d", c->cap_sims,
         c->search.sims);
    return -1;
  }
  return 0;
}

int config_load(train_config *c, const char *path, int n_over, char *const *over, char *err,
                size_t errlen) {
  config_defaults(c);
  ini f;
  char e[512];
  if (ini_load(&f, path, err, errlen) != 0) return -1;
  /* Overrides first go into the INI, so [game] overrides are rule options. */
  for (int i = 0; i < n_over; i++) {
    char sec[64], key[64];
    const char *dot = strchr(over[i], '.'), *eq = strchr(over[i], '=');
    if (!dot || !eq || dot > eq || dot == over[i] || eq == dot + 1 ||
        (size_t)(dot - over[i]) >= sizeof sec || (size_t)(eq - dot - 1) >= sizeof key) {
      errf(err, errlen, "bad override '%s' (expected section.key=value)", over[i]);
      ini_free(&f);
      return -1;
    }
    memcpy(sec, over[i], (size_t)(dot - over[i]));
    sec[dot - over[i]] = 0;
    memcpy(key, dot + 1, (size_t)(eq - dot - 1));
    key[eq - dot - 1] = 0;
    if (ini_set(&f, sec, key, eq + 1, e, sizeof e) != 0) {
      errf(err, errlen, "override '%s': %s", over[i], e);
      ini_free(&f);
      return -1;
    }
  }
  if (config_game(&f, &c->g, err, errlen) != 0) {
    ini_free(&f);
    return -1;
  }
  for (int i = 0; i < f.n; i++) {
    ini_entry *x = &f.e[i];
    if (!strcmp(x->section, "game")) continue;
    if (!x->section[0]) {
      errf(err, errlen, "%s:%d: key '%s' outside any section", path, x->line, x->key);
      ini_free(&f);
      return -1;
    }
    if (apply_entry(c, x->section, x->key, x->value, e, sizeof e) != 0) {
      if (x->line)
        errf(err, errlen, "%s:%d: %s.%s: %s", path, x->line, x->section, x->key, e);
      else
        errf(err, errlen, "override %s.%s: %s", x->section, x->key, e);
      ini_free(&f);
      return -1;
    }
  }
  ini_free(&f);
  c->search.noise = 1;
  if (check(c, e, sizeof e) != 0) {
    errf(err, errlen, "%s: %s", path, e);
    return -1;
  }
  return 0;
}

static void write_value(const train_config *c, const key_desc *d, FILE *out) {
  const char *field = (const char *)c + d->off;
  switch (d->type) {
  case T_INT: fprintf(out, "%d", *(const int *)(const void *)field); break;
  case T_FLOAT: fprintf(out, "%.9g", *(const float *)(const void *)field); break;
  case T_DOUBLE: fprintf(out, "%.17g", *(const double *)(const void *)field); break;
  case T_U64: fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)(const void *)field); break;
  case T_STR: fputs(field, out); break;
  case T_GATE: fputs(gate_names[*(const int *)(const void *)field], out); break;
  }
}

int config_write(const train_config *c, FILE *out) {
  char opts[512];
  if (game_options_string(&c->g, opts, sizeof opts) != 0) return -1;
  fprintf(out, "# The resolved configuration of this run (every key).\n\n[game]\nname = %s\n",
          c->g.preset);
  for (char *save = NULL, *t = strtok_r(opts, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(t, '=');
    *eq = 0;
    fprintf(out, "%s = %s\n", t, eq + 1);
  }
  fprintf(out, "\n[search]\n");
  char text[2048];
  if (mcts_params_format(&c->search, text, sizeof text) != 0) return -1;
  fputs(text, out);
  const char *section = "";
  for (int i = 0; i < N_KEYS; i++) {
    if (strcmp(section, keys[i].section)) {
      section = keys[i].section;
      fprintf(out, "\n[%s]\n", section);
    }
    fprintf(out, "%s = ", keys[i].key);
    write_value(c, &keys[i], out);
    fputc('\n', out);
  }
  return ferror(out) ? -1 : 0;
}

void config_describe(FILE *out) {
  char text[2048];
  mcts_params sp = selfplay_search_defaults();
  fprintf(out, "[search]  self-play search; noise is always on (docs/SEARCH.md). Defaults:\n");
  if (mcts_params_format(&sp, text, sizeof text) == 0) fputs(text, out);
  const char *section = "";
  for (int i = 0; i < N_KEYS; i++) {
    if (strcmp(section, keys[i].section)) {
      section = keys[i].section;
      fprintf(out, "\n[%s]\n", section);
    }
    fprintf(out, "%-18s default %-32s %s\n", keys[i].key, keys[i].def, keys[i].help);
  }
}

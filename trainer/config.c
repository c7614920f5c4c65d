#include "trainer/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/kv.h"
#include "egdb/egdb.h"
#include "nn/nn.h"
#include "search/agent.h"
#include "trainer/config_internal.h"

const char *config_origin(const ini *f, const ini_entry *x, char *buf, size_t len) {
  if (!x)
    snprintf(buf, len, "default");
  else if (x->line)
    snprintf(buf, len, "%s:%d", f->path, x->line);
  else
    snprintf(buf, len, "--set %s.%s=%s", x->section, x->key, x->value);
  return buf;
}

const char *config_origin_of(ini *f, const char *section, const char *key, char *buf, size_t len) {
  return config_origin(f, ini_get(f, section, key), buf, len);
}

#define K_(kind, name, field, ...) kind(name, train_config, field, __VA_ARGS__)
static const char *const precision_names[] = {"auto", "fp32", "bf16", "int8", NULL};
static const kv_key network_keys[] = {
    K_(KV_I, "hidden", hidden, 8, 4096, "256", "width of every hidden layer"),
    K_(KV_I, "blocks", blocks, 0, 64, "2", "residual blocks of two dense layers"),
    K_(KV_E, "precision", precision, precision_names, "auto",
       "inference arithmetic: auto (the fastest this CPU runs) | fp32 | bf16 | int8"),
};
static const kv_key selfplay_keys[] = {
    K_(KV_IA, "threads", threads, 1, 64, "auto",
       "self-play worker threads, or auto: the cores this process may use less the learner's"),
    K_(KV_I, "learner_plays", learner_plays, 0, 1, "1",
       "1: the learner's thread runs one more worker while it waits for samples; 0: it waits"),
    K_(KV_I, "games_per_thread", games_per_thread, 1, 4096, "64",
       "games each worker advances at once; their leaves form one network batch"),
    K_(KV_I, "cap_sims", cap_sims, 0, 100000, "0",
       "playout-cap randomisation: budget of fast moves, which are not training targets; 0 = off"),
    K_(KV_F, "full_frac", full_frac, 0, 1, "0.25",
       "with cap_sims: share of moves searched with the full budget"),
    K_(KV_I, "random_plies", random_plies, 0, 64, "0",
       "each game starts after 0..N uniformly random plies, which are not training targets"),
    K_(KV_I, "record_every", record_every, 0, 1000000, "50",
       "keep every N-th self-play game in games/; 0 = none"),
    K_(KV_I, "actor_outbox_mb", actor_outbox_mb, 1, 65536, "16",
       "under mpirun, each actor's finished games (MiB) queued or not yet taken in by the "
       "learner before its workers pause"),
};
static const kv_key replay_keys[] = {
    K_(KV_I, "window", window, 256, 50000000, "200000", "samples the buffer holds"),
    K_(KV_I, "min_samples", min_samples, 1, 50000000, "4096", "samples before learning starts"),
};
static const kv_key learner_keys[] = {
    K_(KV_I, "batch", batch, 1, 8192, "256", "mini-batch size"),
    K_(KV_I, "threads", learner_threads, 1, 256, "1", "threads sharing each training step"),
    K_(KV_F, "lr", lr, 0, 10, "0.002", "learning rate (Adam)"),
    K_(KV_F, "lr_final", lr_final, 0, 10, "0.0002",
       "learning rate at the end of the budget (cosine schedule)"),
    K_(KV_I, "warmup_steps", warmup_steps, 0, 10000000, "200",
       "steps of linear learning-rate warm-up"),
    K_(KV_F, "weight_decay", weight_decay, 0, 1, "0.0001",
       "decoupled weight decay (weights, not biases)"),
    K_(KV_F, "clip_norm", clip_norm, 0, 1e6, "5", "gradient norm clip; 0 = off"),
    K_(KV_F, "policy_w", policy_w, 0, 100, "1", "weight of the policy loss"),
    K_(KV_F, "value_w", value_w, 0, 100, "1", "weight of the value loss"),
    K_(KV_F, "score_w", score_w, 0, 100, "0.25", "weight of the score-margin loss"),
    K_(KV_F, "score_scale", score_scale, 0.01, 1000, "10",
       "score target = final seed margin / score_scale"),
    K_(KV_F, "train_ratio", train_ratio, 0.01, 1000, "4",
       "samples trained per new self-play sample"),
    K_(KV_I, "steps_per_iter", steps_per_iter, 1, 10000000, "200",
       "training steps between candidates"),
};
static const char *const gate_names[] = {"off", "threshold", "sprt", NULL};
static const kv_key gating_keys[] = {
    K_(KV_E, "mode", gating, gate_names, "sprt",
       "off (always the latest, AlphaZero) | threshold | sprt"),
    K_(KV_I, "games", gate_games, 2, 100000, "100",
       "gating games at most (pairs: each opening with both colours)"),
    K_(KV_F, "threshold", gate_threshold, 0, 1, "0.55",
       "score of the candidate that promotes it (threshold; sprt when still undecided)"),
    K_(KV_I, "sims", gate_sims, 1, 100000, "64", "simulations per move in gating"),
    K_(KV_F, "sprt_elo1", sprt_elo1, 1, 1000, "35", "SPRT: H1 Elo (H0 is 0 Elo)"),
    K_(KV_F, "sprt_alpha", sprt_alpha, 0.001, 0.5, "0.05", "SPRT: false promotions"),
    K_(KV_F, "sprt_beta", sprt_beta, 0.001, 0.5, "0.05", "SPRT: missed promotions"),
};
static const kv_key eval_keys[] = {
    K_(KV_I, "every", eval_every, 0, 100000, "2",
       "promotions between evaluations against the anchors; 0 = off"),
    K_(KV_S, "anchors", anchors, "random;greedy;alphabeta depth=4", "anchor agents, ';'-separated"),
    K_(KV_I, "games", eval_games, 2, 100000, "40", "games against each anchor"),
    K_(KV_I, "sims", eval_sims, 1, 100000, "100",
       "simulations per move of the best in evaluations"),
};
static const kv_key egdb_keys[] = {
    K_(KV_B, "enabled", egdb_enabled, "0",
       "1: self-play searches use the Oware endgame database, and the results of recorded "
       "positions within it are replaced by its exact ones"),
    K_(KV_S, "dir", egdb_dir, "",
       "the database's folder (--egdb); empty = $SOWZERO_EGDB, else the default folder"),
    K_(KV_I, "max_seeds", egdb_max_seeds, 0, 30, "0",
       "use it for positions of at most this many seeds; 0 = all it holds"),
    K_(KV_I, "eval_positions", egdb_eval_n, 0, 100000, "200",
       "positions per seed count on which evaluations measure the network against it; 0 = none"),
    K_(KV_I, "eval_levels", egdb_eval_levels, 1, 30, "5", "the top seed counts measured"),
};
static const kv_key run_keys[] = {
    K_(KV_U, "seed", seed, "1", "seed of everything random in the run"),
    K_(KV_D, "minutes", minutes, 0, 1e7, "60",
       "training budget in wall minutes, over all resumes; 0 = no limit"),
    K_(KV_I, "iterations", iterations, 0, 100000000, "0",
       "stop after this many iterations; 0 = no limit"),
    K_(KV_I, "checkpoint_every", checkpoint_every, 1, 1000000, "1",
       "iterations between saves of the replay buffer"),
    K_(KV_I, "deterministic", deterministic, 0, 1, "0",
       "1: a fixed schedule, so the same config, seed and threads give the same run (slower)"),
};
#undef K_

static const kv_table network_t = KV_TABLE(network_keys), selfplay_t = KV_TABLE(selfplay_keys),
                      replay_t = KV_TABLE(replay_keys), learner_t = KV_TABLE(learner_keys),
                      gating_t = KV_TABLE(gating_keys), eval_t = KV_TABLE(eval_keys),
                      egdb_t = KV_TABLE(egdb_keys), run_t = KV_TABLE(run_keys);

/* The sections after [game], in file order; [search] is a table over c->search. */
typedef struct {
  const char *name;
  const kv_table *t; /* NULL: [search] */
} section_desc;

static const section_desc sections[] = {
    {"search", NULL},      {"network", &network_t}, {"selfplay", &selfplay_t},
    {"replay", &replay_t}, {"learner", &learner_t}, {"gating", &gating_t},
    {"eval", &eval_t},     {"egdb", &egdb_t},       {"run", &run_t},
};
#define N_SECTIONS (int)(sizeof sections / sizeof sections[0])

static const kv_table *section_keys(const section_desc *s) {
  return s->t ? s->t : mcts_params_table();
}

static void *section_base(const section_desc *s, train_config *c) {
  return s->t ? (void *)c : (void *)&c->search;
}

static const section_desc *find_section(const char *name) {
  for (int i = 0; i < N_SECTIONS; i++)
    if (!strcmp(sections[i].name, name)) return &sections[i];
  return NULL;
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
  c->variant[0] = c->g;
  c->variant_weight[0] = 1;
  c->n_variants = 1;
  /* The tables' defaults parse (the config tests load them). */
  for (int i = 0; i < N_SECTIONS; i++)
    if (sections[i].t) kv_defaults(sections[i].t, c, err, sizeof err);
  c->search = selfplay_search_defaults();
}

/* Applies one entry of any section but [game]. */
static int apply_entry(train_config *c, const char *section, const char *key, const char *value,
                       char *err, size_t errlen) {
  const section_desc *s = find_section(section);
  if (!s) {
    errf(err, errlen,
         "unknown section [%s] (sections: game network search selfplay replay "
         "learner gating eval egdb run)",
         section);
    return -1;
  }
  const kv_table *t = section_keys(s);
  const kv_key *k = kv_find(t, key);
  if (!k) {
    char known[512];
    kv_names(t, ", ", known, sizeof known);
    errf(err, errlen, "unknown key (known in [%s]: %s)", section, known);
    return -1;
  }
  return kv_parse(k, section_base(s, c), value, err, errlen);
}

/* The rules between keys, checked once on the final configuration (the
 * file's values and every override together); a refusal names where each
 * value came from (origin). */
static int check(const train_config *c, ini *f, char *err, size_t errlen) {
  char e[256], a[CONFIG_ORIGIN_LEN], b[CONFIG_ORIGIN_LEN];
#define AT(s, k, buf) config_origin_of(f, s, k, buf, sizeof buf)
  if (mcts_params_check(&c->search, e, sizeof e) != 0) {
    errf(err, errlen, "%s: [search]: %s", f->path, e);
    return -1;
  }
  if (c->min_samples > c->window) {
    errf(err, errlen, "replay.min_samples %d (%s) is more than replay.window %d (%s)",
         c->min_samples, AT("replay", "min_samples", a), c->window, AT("replay", "window", b));
    return -1;
  }
  if (c->min_samples < c->batch) {
    errf(err, errlen, "replay.min_samples %d (%s) is less than one batch: learner.batch %d (%s)",
         c->min_samples, AT("replay", "min_samples", a), c->batch, AT("learner", "batch", b));
    return -1;
  }
  /* The database holds default Oware; its own rules are checked when the
   * run opens it (egdb_serves). */
  if (c->egdb_enabled && c->n_variants > 1) {
    errf(err, errlen,
         "egdb.enabled (%s): the endgame database serves one rule set, not game.variants (%s)",
         AT("egdb", "enabled", a), AT("game", "variants", b));
    return -1;
  }
  if (c->egdb_enabled && !egdb_game_supported(&c->g)) {
    errf(err, errlen,
         "egdb.enabled (%s): the endgame database holds default Oware (its houses, grand_slam, "
         "feed_check and leftover), not %s ([game] of %s)",
         AT("egdb", "enabled", a), c->g.preset, f->path);
    return -1;
  }
  if (c->cap_sims && c->cap_sims >= c->search.sims) {
    errf(err, errlen, "selfplay.cap_sims %d (%s) must be below search.sims %d (%s)", c->cap_sims,
         AT("selfplay", "cap_sims", a), c->search.sims, AT("search", "sims", b));
    return -1;
  }
#undef AT
  return 0;
}

void config_anchors(const train_config *c, config_anchor_list *out) {
  _Static_assert(sizeof out->text == sizeof c->anchors, "an anchor list holds eval.anchors");
  _Static_assert(sizeof out->name / sizeof out->name[0] >= sizeof c->anchors / 2,
                 "room for every anchor of eval.anchors");
  out->n = 0;
  snprintf(out->text, sizeof out->text, "%s", c->anchors);
  for (char *save = NULL, *t = strtok_r(out->text, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
    while (*t == ' ') t++;
    if (*t) out->name[out->n++] = t;
  }
}

/* Every anchor of eval.anchors makes an agent of the run's game, so that a
 * typo fails here, naming file, line and key, rather than at the first
 * evaluation, hours into the run. */
static int check_anchors(const train_config *c, ini *f, const char *path, char *err,
                         size_t errlen) {
  char e[512];
  config_anchor_list list;
  config_anchors(c, &list);
  for (int i = 0; i < list.n; i++) {
    const char *t = list.name[i];
    /* Anchors play under every variant (evaluate.c). */
    agent *a = NULL;
    int k = 0;
    for (; k < c->n_variants; k++) {
      if (!(a = agent_make(&c->variant[k], t, &(agent_params){1, c->egdb_dir}, e, sizeof e))) break;
      agent_free(a);
    }
    if (k == c->n_variants) continue;
    char where[32] = "";
    if (c->n_variants > 1) snprintf(where, sizeof where, " under variant %d", k + 1);
    char at[CONFIG_ORIGIN_LEN];
    (void)path;
    errf(err, errlen, "%s: eval.anchors: anchor '%s'%s: %s",
         config_origin_of(f, "eval", "anchors", at, sizeof at), t, where, e);
    return -1;
  }
  return 0;
}

/* precision = bf16 where the CPU lacks it fails here, naming the key,
 * rather than when the first network is converted. */
static int check_precision(const train_config *c, ini *f, const char *path, char *err,
                           size_t errlen) {
  if (c->precision != NN_PRECISION_BF16 || nn_bf16_supported()) return 0;
  const char *why =
      "bf16 needs a CPU with AVX512_BF16, which this one lacks (auto and fp32 run "
      "anywhere)";
  char at[CONFIG_ORIGIN_LEN];
  (void)path;
  errf(err, errlen, "%s: network.precision: %s",
       config_origin_of(f, "network", "precision", at, sizeof at), why);
  return -1;
}

/* A config from an INI read from `path` (a file's name, or what stands for
 * text) and the overrides; frees f. */
static int load_ini(train_config *c, ini *f, const char *path, int n_over, char *const *over,
                    char *err, size_t errlen) {
  config_defaults(c);
  char e[512];
  /* Overrides first go into the INI, so [game] overrides are rule options. */
  for (int i = 0; i < n_over; i++) {
    char sec[64], key[64];
    const char *dot = strchr(over[i], '.'), *eq = strchr(over[i], '=');
    if (!dot || !eq || dot > eq || dot == over[i] || eq == dot + 1 ||
        (size_t)(dot - over[i]) >= sizeof sec || (size_t)(eq - dot - 1) >= sizeof key) {
      errf(err, errlen, "bad override '%s' (expected section.key=value)", over[i]);
      ini_free(f);
      return -1;
    }
    memcpy(sec, over[i], (size_t)(dot - over[i]));
    sec[dot - over[i]] = 0;
    memcpy(key, dot + 1, (size_t)(eq - dot - 1));
    key[eq - dot - 1] = 0;
    if (ini_set(f, sec, key, eq + 1, e, sizeof e) != 0) {
      errf(err, errlen, "override '%s': %s", over[i], e);
      ini_free(f);
      return -1;
    }
  }
  if (config_game_set(f, c->variant, c->variant_weight, &c->n_variants, err, errlen) != 0) {
    ini_free(f);
    return -1;
  }
  c->g = c->variant[0];
  /* The set must fit the files that keep it: config.ini and weight files. */
  char kept[sizeof((ini_entry *)0)->value], set[NN_RULES_MAX];
  if (c->n_variants > 1 && (config_variants_line(c, kept, sizeof kept) != 0 ||
                            game_variants_string(c->variant, c->n_variants, set, sizeof set))) {
    errf(err, errlen,
         "%s: game.variants: the set does not fit a run's files (config.ini keeps %zu "
         "characters of it, weight files %d): fewer variants or fewer differences",
         path, sizeof kept - 1, NN_RULES_MAX - 1);
    ini_free(f);
    return -1;
  }
  for (int i = 0; i < f->n; i++) {
    ini_entry *x = &f->e[i];
    if (!strcmp(x->section, "game")) continue;
    if (!x->section[0]) {
      errf(err, errlen, "%s:%d: key '%s' outside any section", path, x->line, x->key);
      ini_free(f);
      return -1;
    }
    if (apply_entry(c, x->section, x->key, x->value, e, sizeof e) != 0) {
      char at[CONFIG_ORIGIN_LEN];
      errf(err, errlen, "%s: %s.%s: %s", config_origin(f, x, at, sizeof at), x->section, x->key, e);
      ini_free(f);
      return -1;
    }
  }
  c->search.noise = 1;
  int bad = check_anchors(c, f, path, err, errlen) != 0 ||
            check_precision(c, f, path, err, errlen) != 0 || check(c, f, err, errlen) != 0;
  ini_free(f);
  return bad ? -1 : 0;
}

int config_load(train_config *c, const char *path, int n_over, char *const *over, char *err,
                size_t errlen) {
  ini f;
  if (ini_load(&f, path, err, errlen) != 0) return -1;
  return load_ini(c, &f, path, n_over, over, err, errlen);
}

int config_parse(train_config *c, const char *name, const char *text, char *err, size_t errlen) {
  ini f;
  if (ini_parse(&f, name, text, err, errlen) != 0) return -1;
  return load_ini(c, &f, name, 0, NULL, err, errlen);
}

int config_write(const train_config *c, FILE *out) {
  fprintf(out, "# The resolved configuration of this run (every key).\n\n");
  if (config_write_game(c, out) != 0) return -1;
  char text[4096];
  for (int i = 0; i < N_SECTIONS; i++) {
    const section_desc *s = &sections[i];
    if (kv_write(section_keys(s), section_base(s, (train_config *)c), text, sizeof text) != 0)
      return -1;
    fprintf(out, "\n[%s]\n%s", s->name, text);
  }
  return ferror(out) ? -1 : 0;
}

void config_describe(FILE *out) {
  char text[8192];
  train_config d;
  config_defaults(&d);
  for (int i = 0; i < N_SECTIONS; i++) {
    const section_desc *s = &sections[i];
    if (s->t)
      fprintf(out, "%s[%s]\n", i ? "\n" : "", s->name);
    else
      fprintf(out, "%s[%s]  self-play search; noise is always on (docs/SEARCH.md)\n", i ? "\n" : "",
              s->name);
    if (kv_describe(section_keys(s), section_base(s, &d), text, sizeof text) == 0) fputs(text, out);
  }
}

/* ---- Resuming ---------------------------------------------------------------------
 * The keys a resume may change: how long to train, how many threads do it
 * and the inference arithmetic of the machine it runs on. Everything else
 * makes a different run (docs/TRAINING.md). */
static const char *const resumable_keys[] = {"run.minutes",
                                             "run.iterations",
                                             "selfplay.threads",
                                             "selfplay.learner_plays",
                                             "selfplay.actor_outbox_mb",
                                             "network.precision",
                                             "egdb.dir",
                                             NULL};

int config_resumable(const char *key) {
  for (int i = 0; resumable_keys[i]; i++)
    if (!strcmp(key, resumable_keys[i])) return 1;
  return 0;
}

int config_compare(const train_config *a, const train_config *b, config_diff *d) {
  if (config_compare_game(a, b, d)) return 1;
  char key[80];
  for (int i = 0; i < N_SECTIONS; i++) {
    const section_desc *s = &sections[i];
    const kv_table *t = section_keys(s);
    for (int k = 0; k < t->n; k++) {
      char va[512], vb[512];
      snprintf(key, sizeof key, "%s.%s", s->name, t->keys[k].name);
      if (config_resumable(key)) continue;
      if (kv_format(&t->keys[k], section_base(s, (train_config *)a), va, sizeof va) != 0 ||
          kv_format(&t->keys[k], section_base(s, (train_config *)b), vb, sizeof vb) != 0)
        return config_differs(key, "(too long)", "(too long)", d);
      if (strcmp(va, vb) != 0) return config_differs(key, va, vb, d);
    }
  }
  return 0;
}

/* `sowzero study`: how rule variants of one game play in practice — an
 * agent's self-play under each, tests between them, and cross-play —
 * written as report.md, study.json and plots (arena/study.h does the
 * work; study_report.c and study_plot.c the files). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena/study.h"
#include "base/base.h"
#include "cli/cli.h"
#include "cli/study_internal.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "search/agent.h"
#include "trainer/config.h"

typedef struct {
  study_params p;
  char variants[4096], agent[STUDY_SPEC_MAX], out[CLI_PATH_MAX], egdb[CLI_EGDB_MAX];
} study_opts;

#define O_(kind, name, F, ...) kind(name, study_opts, F, __VA_ARGS__)
static const kv_key study_keys[] = {
    O_(KV_S, "variants", variants, NULL,
       "LIST  the variants, ';' between them: each a game or preset, then key=value rule "
       "options (default: the config's [game])"),
    O_(KV_S, "agent", agent, NULL,
       "SPEC  the agent that plays itself (default: zero weights=RUN/best.weights sims=200)"),
    O_(KV_I, "games", p.games, 1, 1000000, NULL, "self-play games per variant"),
    O_(KV_I, "openings", p.openings, -1, 100000, NULL,
       "K  games start from a book of K level openings, in self-play and cross-play (0: "
       "none; -1: cross-play from a book of half its games, self-play only if the agent "
       "plays deterministically)"),
    O_(KV_I, "sample-plies", p.sample_plies, 0, 1000, NULL,
       "P  in self-play an mcts or zero agent samples its first P moves from its visits"),
    O_(KV_I, "cross-games", p.cross_games, 0, 1000000, NULL,
       "N  games per cross-play cell, even (0: --games, rounded up to even)"),
    O_(KV_I, "threads", p.threads, 1, 256, NULL, "worker threads"),
    O_(KV_U, "seed", p.seed, NULL, "seed of the agents and the books"),
    O_(KV_S, "out", out, NULL, "DIR  where the report goes (default RUN/study, or study/)"),
    CLI_EGDB_KEY(study_opts, egdb, "for agents' egdb=on"),
};
#undef O_
static const kv_table study_table = KV_TABLE(study_keys);

/* ---- Progress on stderr ---------------------------------------------------------------------- */

typedef struct {
  const study_variant *variants;
  const study_agent *cross;
  int tty, last_tenth;
} progress_state;

static void describe_method(const study_result *r, char *buf, size_t len) {
  int n = snprintf(buf, len, "games differ by ");
  if (r->method & STUDY_SAMPLED)
    n += snprintf(buf + n, len - (size_t)n, "its sampled opening moves%s",
                  r->method & STUDY_BOOK ? " and " : "");
  if (r->method & STUDY_BOOK)
    snprintf(buf + n, len - (size_t)n, "a book of %d level openings%s", r->book,
             r->book_why == 2 ? " (the agent plays deterministically)" : "");
  if (!r->method) snprintf(buf + n, len - (size_t)n, "the agent's own randomness alone");
}

static void on_progress(const study_progress *pr, void *ud) {
  progress_state *s = ud;
  const study_result *r = pr->r;
  if (pr->phase == STUDY_PLAN) {
    char how[256];
    describe_method(r, how, sizeof how);
    fprintf(stderr, "study: %d variant%s, '%s' plays itself; %s\n", r->n_variants,
            r->n_variants > 1 ? "s" : "", r->selfplay_spec, how);
    return;
  }
  if (pr->done == 1) s->last_tenth = 0;
  char what[256];
  const char *label = s->variants[pr->variant].label;
  const char *unit = pr->phase == STUDY_OPENINGS ? "openings" : "games";
  if (pr->phase == STUDY_SELFPLAY)
    snprintf(what, sizeof what, "%s: self-play", label);
  else if (pr->phase == STUDY_OPENINGS)
    snprintf(what, sizeof what, "%s: the opening book", label);
  else
    snprintf(what, sizeof what, "%s: %s against the agent", label, s->cross[pr->cross].name);
  double rate = pr->seconds > 0 ? pr->done / pr->seconds : 0;
  if (s->tty) {
    fprintf(stderr, "\rstudy: %s, %d/%d %s, %.1f %s/s   ", what, pr->done, pr->total, unit, rate,
            unit);
    if (pr->done == pr->total) fputc('\n', stderr);
  } else {
    int tenth = 10 * pr->done / pr->total;
    if (tenth > s->last_tenth || pr->done == pr->total) {
      fprintf(stderr, "study: %s, %d/%d %s, %.1f %s/s\n", what, pr->done, pr->total, unit, rate,
              unit);
      s->last_tenth = tenth;
    }
  }
}

/* ---- Variants ----------------------------------------------------------------------------------- */

/* The label of a config's [game]: its preset, then the options where it
 * differs from that preset. */
static void config_label(const game *g, char *label, size_t len) {
  game base;
  int n = snprintf(label, len, "%s", g->preset);
  if (game_configure(&base, g->preset, 0, NULL, NULL, 0)) return;
  for (int i = 0; g->rules->options[i].key && (size_t)n < len; i++) {
    if (g->opt[i] == base.opt[i]) continue;
    const game_option *o = &g->rules->options[i];
    if (o->values)
      n += snprintf(label + n, len - (size_t)n, " %s=%s", o->key, o->values[g->opt[i]]);
    else
      n += snprintf(label + n, len - (size_t)n, " %s=%d", o->key, g->opt[i]);
  }
}

/* The variants a config names: its [game] variants, else its game. */
static int config_variants(const train_config *tc, study_variant *v, int max) {
  int n = tc->n_variants < max ? tc->n_variants : max;
  for (int k = 0; k < n; k++) {
    v[k].g = tc->variant[k];
    config_label(&tc->variant[k], v[k].label, sizeof v[k].label);
  }
  return n;
}

/* --variants "V1;V2": each item a name and settings, split at white space. */
static int parse_variants(const cli_cmd *c, char *text, study_variant *v, int *n) {
  *n = 0;
  int item = 0;
  for (char *save = NULL, *s = text;; s = NULL) {
    char *it = strtok_r(s, ";", &save);
    if (!it) break;
    item++;
    char copy[sizeof((study_opts *)0)->variants];
    snprintf(copy, sizeof copy, "%s", it);
    char *tok[GAME_MAX_OPTIONS + 2], *ts = NULL;
    int nt = 0;
    for (char *t = strtok_r(copy, " \t\n", &ts); t; t = strtok_r(NULL, " \t\n", &ts)) {
      if (nt == GAME_MAX_OPTIONS + 1)
        return cli_fail(c, 2, "--variants item %d '%s': more settings than the game has options",
                        item, it);
      tok[nt++] = t;
    }
    if (!nt) continue;
    if (*n == STUDY_MAX_VARIANTS)
      return cli_fail(c, 2, "--variants: at most %d variants", STUDY_MAX_VARIANTS);
    study_variant *x = &v[*n];
    char err[1024];
    if (game_configure(&x->g, tok[0], nt - 1, tok + 1, err, sizeof err))
      return cli_fail(c, 2, "--variants item %d '%s': %s", item, it, err);
    if (*n && x->g.rules != v[0].g.rules)
      return cli_fail(c, 2,
                      "--variants item %d '%s' is a game of %s, '%s' of %s: a study compares "
                      "rule variants of one game",
                      item, it, x->g.rules->name, v[0].label, v[0].g.rules->name);
    int w = 0;
    for (int i = 0; i < nt; i++)
      w += snprintf(x->label + w, sizeof x->label - (size_t)w, "%s%s", i ? " " : "", tok[i]);
    if ((size_t)w >= sizeof x->label)
      return cli_fail(c, 2, "--variants item %d '%s': longer than %zu characters", item, it,
                      sizeof x->label - 1);
    for (int j = 0; j < *n; j++)
      if (!strcmp(v[j].label, x->label))
        return cli_fail(c, 2, "--variants: '%s' given twice", x->label);
    (*n)++;
  }
  if (!*n) return cli_fail(c, 2, "--variants '%s' names no variant", text);
  return 0;
}

/* --cross NAME=SPEC: names are short words, so that tables and file
 * names stay readable. */
static int parse_cross(const cli_cmd *c, cli_list *l, study_agent *x) {
  for (int i = 0; i < l->n; i++) {
    const char *v = l->values[i], *eq = strchr(v, '=');
    size_t kl = (size_t)(eq - v);
    if (kl >= sizeof x[i].name)
      return cli_fail(c, 2, "--cross '%s': the name is longer than %zu characters", v,
                      sizeof x[i].name - 1);
    for (size_t k = 0; k < kl; k++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-", v[k]))
        return cli_fail(c, 2, "--cross '%s': a name is letters, digits and _ . + - only", v);
    if (!eq[1]) return cli_fail(c, 2, "--cross '%s': no agent spec after '='", v);
    if (strlen(eq + 1) >= sizeof x[i].spec)
      return cli_fail(c, 2, "--cross '%s': the spec is longer than %zu characters", v,
                      sizeof x[i].spec - 1);
    snprintf(x[i].name, sizeof x[i].name, "%.*s", (int)kl, v);
    snprintf(x[i].spec, sizeof x[i].spec, "%s", eq + 1);
  }
  return 0;
}

/* ---- The command ------------------------------------------------------------------------------ */

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int cmd_study(int argc, char **argv) {
  study_opts o;
  memset(&o, 0, sizeof o);
  o.p = study_defaults();
  o.p.cross_games = 0;
  char *pos[1], *cross_v[STUDY_MAX_CROSS];
  cli_list cross_l = {"cross",
                      "NAME=SPEC",
                      "an agent for the cross-play matrix (e.g. a network trained on one variant)",
                      1,
                      STUDY_MAX_CROSS,
                      cross_v,
                      0};
  cli_cmd c = {.name = "study",
               .synopsis = "study CONFIG_OR_RUN [options]",
               .about =
                   "  How rule variants of one game play in practice: an agent's self-play\n"
                   "  under each, whether they differ, and cross-play; written to\n"
                   "  DIR/report.md, DIR/study.json and plots (docs/STUDY.md).\n"
                   "  CONFIG_OR_RUN  a config file, or a run directory (its config.ini)\n",
               .opts = &study_table,
               .base = &o,
               .lists = &cross_l,
               .n_lists = 1,
               .pos_name = "CONFIG_OR_RUN",
               .min_pos = 1,
               .max_pos = 1,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  study_params p = o.p;
  p.egdb_dir = o.egdb;
  const char *src = pos[0];
  if (!cli_given(&c, "cross-games"))
    p.cross_games = p.games + p.games % 2;
  else if (p.cross_games % 2)
    return cli_fail(&c, 2,
                    "bad value '%d' for --cross-games (an even number: each opening is played "
                    "with both colours)",
                    p.cross_games);
  else if (!cross_l.n)
    return cli_fail(&c, 2, "--cross-games sizes the cross-play: it needs --cross NAME=SPEC");
  if (p.openings >= 0)
    p.cross_openings = p.openings;
  else
    p.cross_openings = p.cross_games / 2 < 1000 ? p.cross_games / 2 : 1000;

  /* CONFIG_OR_RUN: a run directory holds its config.ini. */
  char cfg[CLI_PATH_MAX], run[CLI_PATH_MAX] = "", weights[CLI_PATH_MAX];
  struct stat st;
  if (stat(src, &st) != 0)
    return cli_fail(&c, 2, "'%s': %s (a config file or a run directory)", src,
                    errno == ENOENT ? "no such file or folder" : strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    if (cli_path(cfg, sizeof cfg, src, "config.ini") || strlen(src) >= sizeof run)
      return cli_fail(&c, 2, "'%s': name too long", src);
    snprintf(run, sizeof run, "%s", src);
    if (!file_exists(cfg))
      return cli_fail(&c, 2, "'%s' is a folder without config.ini: not a run directory", src);
  } else {
    snprintf(cfg, sizeof cfg, "%s", src);
  }
  train_config *tc = malloc(sizeof *tc);
  if (!tc) return cli_fail(&c, 1, "out of memory");
  char err[1024];
  if (config_load(tc, cfg, 0, NULL, err, sizeof err)) {
    free(tc);
    return cli_fail(&c, 2, "%s", err);
  }
  /* Where the trained network is: the run, or the run a config makes
   * (runs/NAME for .../NAME.ini, as `sowzero train` names it). */
  if (!run[0]) {
    const char *base = strrchr(cfg, '/') ? strrchr(cfg, '/') + 1 : cfg;
    snprintf(run, sizeof run, "runs/%.*s", (int)strcspn(base, "."), base);
  }
  int have_weights =
      !cli_path(weights, sizeof weights, run, "best.weights") && file_exists(weights);

  study_variant variants[STUDY_MAX_VARIANTS];
  int n_variants = 0;
  if (cli_given(&c, "variants")) {
    if (parse_variants(&c, o.variants, variants, &n_variants)) {
      free(tc);
      return 2;
    }
  } else {
    n_variants = config_variants(tc, variants, STUDY_MAX_VARIANTS);
  }
  free(tc);
  const char *origin = "given by --agent";
  char spec[STUDY_SPEC_MAX];
  if (cli_given(&c, "agent")) {
    snprintf(spec, sizeof spec, "%s", o.agent);
  } else if (!have_weights) {
    return cli_fail(&c, 2,
                    "no --agent SPEC, and no trained network at %s to default to; name the "
                    "agent that plays itself (e.g. --agent \"mcts sims=200\")",
                    weights);
  } else if (strchr(weights, ' ')) {
    return cli_fail(&c, 2, "'%s' has a space, which an agent spec cannot hold; give --agent",
                    weights);
  } else {
    if (snprintf(spec, sizeof spec, "zero weights=%s sims=200", weights) >= (int)sizeof spec)
      return cli_fail(&c, 2, "'%s': name too long for an agent spec; give --agent", weights);
    origin = "the trained network of the run";
  }
  study_agent cross[STUDY_MAX_CROSS];
  if (parse_cross(&c, &cross_l, cross)) return 2;
  /* The main agent must play every variant; a cross agent at least one. */
  for (int i = 0; i < n_variants; i++) {
    agent *a = agent_make(&variants[i].g, spec, &(agent_params){1, p.egdb_dir}, err, sizeof err);
    if (!a)
      return cli_fail(&c, 2, "agent '%s' (%s) under variant '%s': %s", spec, origin,
                      variants[i].label, err);
    agent_free(a);
  }
  for (int k = 0; k < cross_l.n; k++) {
    int plays = 0;
    for (int i = 0; i < n_variants && !plays; i++) {
      agent *a = agent_make(&variants[i].g, cross[k].spec, &(agent_params){1, p.egdb_dir}, err,
                            sizeof err);
      plays = a != NULL;
      agent_free(a);
    }
    if (!plays)
      return cli_fail(&c, 2, "--cross %s: the agent '%s' can play none of the variants (%s)",
                      cross[k].name, cross[k].spec, err);
  }
  char out[CLI_PATH_MAX];
  if (o.out[0])
    snprintf(out, sizeof out, "%s", o.out);
  else if (S_ISDIR(st.st_mode)) {
    if (cli_path(out, sizeof out, src, "study")) return cli_fail(&c, 2, "'%s': name too long", src);
  } else
    snprintf(out, sizeof out, "study");
  /* The folder before hours of games, so that a bad --out fails now. */
  if (dir_make(out, err, sizeof err)) return cli_fail(&c, 1, "--out: %s", err);

  study_result *r = malloc(sizeof *r);
  if (!r) return cli_fail(&c, 1, "out of memory");
  progress_state ps = {variants, cross, isatty(2), 0};
  int rc = study_run(variants, n_variants, spec, cross, cross_l.n, &p, on_progress, &ps, r, err,
                     sizeof err);
  if (rc) {
    study_result_free(r);
    free(r);
    return cli_fail(&c, 1, "%s", err);
  }
  study_doc d = {.source = src,
                 .out = out,
                 .variants = variants,
                 .cross = cross,
                 .r = r,
                 .agent_origin = origin};
  time_t now = time(NULL);
  struct tm tm;
  strftime(d.date, sizeof d.date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  if (study_plots(&d, err, sizeof err) || study_write_json(&d, err, sizeof err) ||
      study_write_report(&d, err, sizeof err))
    rc = cli_fail(&c, 1, "%s", err);
  else if (!d.plotted)
    cli_fail(&c, 0, "plots skipped: %s", d.plot_note);
  if (!rc) {
    printf("%s/%s\n%s/%s\n", out, STUDY_REPORT, out, STUDY_JSON);
    for (int i = 0; d.plotted && i < study_n_plots; i++) printf("%s/%s\n", out, study_plot_png[i]);
  }
  study_result_free(r);
  free(r);
  return rc;
}

/* The study's report.md (for people) and study.json (every figure, for
 * tools; docs/STUDY.md describes its fields), each written atomically. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena/study.h"
#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "cli/study_internal.h"

/* ---- Markdown ---------------------------------------------------------------------------- */

/* Text as Markdown shows it: the characters that would start markup are
 * escaped, and a line break would end a table row, so it is a space. */
static void md(FILE *f, const char *s) {
  for (; *s; s++) {
    if (strchr("\\`*_[]<>|#", *s)) fputc('\\', f);
    fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
  }
}

/* A spec or rule string in a code span; only '|' needs escaping there,
 * inside a table. */
static void code(FILE *f, const char *s) {
  if (strchr(s, '`')) {
    md(f, s);
    return;
  }
  fputc('`', f);
  for (; *s; s++) {
    if (*s == '|') fputc('\\', f);
    fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
  }
  fputc('`', f);
}

static void pct_ci(FILE *f, const stats_rate *r) {
  fprintf(f, " %.1f%% [%.1f, %.1f] |", 100 * r->rate, 100 * r->lo, 100 * r->hi);
}

/* A p-value as people read it: 3 significant digits, tiny ones as < 1e-6. */
static void pval(FILE *f, double p) {
  if (isnan(p))
    fputs("n/a", f);
  else if (p < 1e-6)
    fputs("< 1e-6", f);
  else
    fprintf(f, "%.3g", p);
}

/* The options whose values are not the same in every variant. */
static int option_differs(const study_doc *d, int o) {
  for (int i = 1; i < d->r->n_variants; i++)
    if (d->variants[i].g.opt[o] != d->variants[0].g.opt[o]) return 1;
  return 0;
}

static void option_value(const game *g, int o, char *buf, size_t len) {
  const game_option *opt = &g->rules->options[o];
  if (opt->values)
    snprintf(buf, len, "%s", opt->values[g->opt[o]]);
  else
    snprintf(buf, len, "%d", g->opt[o]);
}

static void how_games_were_made(FILE *f, const study_doc *d) {
  const study_result *r = d->r;
  const study_params *p = &r->params;
  fprintf(f, "## How the games were made\n\nEvery self-play game is the agent ");
  code(f, r->agent);
  fprintf(f, " (%s) against itself", d->agent_origin);
  if (strcmp(r->agent, r->selfplay_spec)) {
    fprintf(f, ", played as ");
    code(f, r->selfplay_spec);
  }
  fprintf(f,
          ". An agent that plays the same moves whatever its random stream would replay "
          "one game from the start position, so the games were made to differ");
  if (r->method & STUDY_SAMPLED)
    fprintf(f,
            ": each game's first moves are sampled in proportion to the agent's visit "
            "counts (the spec's `temp_plies`, at temperature 1 unless the spec sets "
            "`temperature`), after which it plays its most visited move. The opening "
            "figures below are therefore the agent's own preferences, and the results "
            "are those of games that open with plausible but not always best moves");
  if (r->method & STUDY_BOOK)
    fprintf(f,
            "%s each game starts after the plies of one of %d level openings (1 to %d random "
            "plies that an alphabeta search of depth %d scores within %.2f seeds; game k "
            "plays opening k mod %d)%s. The first plies below are then the book's, not the "
            "agent's choices",
            r->method & STUDY_SAMPLED ? ". Besides," : ":", r->book, p->opening_plies,
            p->book_depth, p->book_margin / 100.0, r->book,
            r->book_why != 2            ? ""
            : r->method & STUDY_SAMPLED ? ", because the agent plays deterministically even so"
                                        : ", because the agent plays deterministically");
  if (!r->method)
    fprintf(f,
            " by the agent's own randomness alone (random playouts, random choice among "
            "equal moves)");
  fprintf(f, ".\n\n");
  for (int i = 0; i < r->n_variants; i++)
    if (r->v[i].s.distinct_games < r->v[i].s.games) {
      fprintf(f,
              "Some games repeat (see *distinct games*): a repeated game counts as another "
              "sample here although it tells nothing new, so the intervals of those variants "
              "are too narrow.\n\n");
      break;
    }
  fprintf(f,
          "The *first player* is whoever moves first from the start position; the *score* "
          "counts a win 1 and a draw 1/2. Intervals are 95%%: Wilson's for rates, the normal "
          "one with the observed variance for scores.\n\n");
}

/* The rest of a table's header after its first cell: a column per
 * variant, right-aligned for numbers. */
static void variant_columns(FILE *f, const study_doc *d, int numeric) {
  for (int i = 0; i < d->r->n_variants; i++) {
    fputc(' ', f);
    md(f, d->variants[i].label);
    fputs(" |", f);
  }
  fprintf(f, "\n|---|");
  for (int i = 0; i < d->r->n_variants; i++) fputs(numeric ? "--:|" : "---|", f);
  fputc('\n', f);
}

static void variants_table(FILE *f, const study_doc *d) {
  const study_result *r = d->r;
  int n = r->n_variants;
  const game *g0 = &d->variants[0].g;
  fprintf(f, "## The variants side by side\n\n| |");
  variant_columns(f, d, 1);
  for (int o = 0; g0->rules->options[o].key; o++) {
    if (!option_differs(d, o)) continue;
    fputs("| rule: ", f);
    md(f, g0->rules->options[o].key);
    fputs(" |", f);
    for (int i = 0; i < n; i++) {
      char v[64];
      option_value(&d->variants[i].g, o, v, sizeof v);
      fputc(' ', f);
      md(f, v);
      fputs(" |", f);
    }
    fputc('\n', f);
  }
  int any_same = 0;
  for (int i = 0; i < n; i++) any_same |= r->v[i].same_as >= 0;
  if (any_same) {
    fprintf(f, "| same rules as |");
    for (int i = 0; i < n; i++) {
      fputc(' ', f);
      if (r->v[i].same_as >= 0) md(f, d->variants[r->v[i].same_as].label);
      fputs(" |", f);
    }
    fputc('\n', f);
  }
#define ROW(title, ...)                   \
  do {                                    \
    fprintf(f, "| %s |", title);          \
    for (int i = 0; i < n; i++) {         \
      const stats_result *s = &r->v[i].s; \
      (void)s;                            \
      __VA_ARGS__;                        \
    }                                     \
    fputc('\n', f);                       \
  } while (0)
  ROW("games (distinct)", fprintf(f, " %d (%d) |", s->games, s->distinct_games));
  ROW("first player wins", pct_ci(f, &s->first_win));
  ROW("draws", pct_ci(f, &s->draw));
  ROW("first player loses", pct_ci(f, &s->first_loss));
  ROW("first player's score",
      fprintf(f, " %.3f [%.3f, %.3f] |", s->first_score, s->first_score_lo, s->first_score_hi));
  ROW("first player's mean margin", fprintf(f, " %+.2f seeds |", s->mean_margin));
  ROW("length: mean (sd)", fprintf(f, " %.1f (%.1f) |", s->len_mean, s->len_sd));
  ROW("length: median [p25, p75]",
      fprintf(f, " %d [%d, %d] |", s->len_median, s->len_p25, s->len_p75));
  ROW("length: p10, p90", fprintf(f, " %d, %d |", s->len_p10, s->len_p90));
  ROW("length: min, max", fprintf(f, " %d, %d |", s->len_min, s->len_max));
  for (int e = 0; e < GAME_END_COUNT; e++) {
    int used = 0;
    for (int i = 0; i < n; i++) used |= r->v[i].s.end_reason[e] > 0;
    if (!used) continue;
    char title[64];
    snprintf(title, sizeof title, "ended by %s", game_end_name(e));
    ROW(title, fprintf(f, " %.1f%% (%d) |", 100.0 * s->end_reason[e] / s->games, s->end_reason[e]));
  }
  ROW("captures per game", fprintf(f, " %.2f |", (double)s->captures / s->games));
  ROW("grand slams per game", fprintf(f, " %.3f |", (double)s->grand_slams / s->games));
  ROW("self-play time", fprintf(f, " %.1f s |", s->seconds));
#undef ROW
  fprintf(f, "\nThe rules in full (`sowzero rules %s` explains each option):\n\n", g0->rules->name);
  for (int i = 0; i < n; i++) {
    fputs("- ", f);
    md(f, d->variants[i].label);
    fputs(": ", f);
    code(f, r->v[i].rules);
    fputc('\n', f);
  }
  for (int i = 0; i < n; i++) {
    if (r->v[i].same_as < 0) continue;
    fputs("\n**", f);
    md(f, d->variants[r->v[i].same_as].label);
    fputs("** and **", f);
    md(f, d->variants[i].label);
    fputs(
        "** have identical rules: they are one game under two names, played with random "
        "streams of their own, so every difference between their columns is chance, a "
        "measure of the noise in the others (an agent that plays the same moves whatever its "
        "stream, from the same book, plays the same games in both).\n",
        f);
  }
  fputc('\n', f);
}

/* One pair of first two plies and how many games opened with it. */
typedef struct {
  int count, a, m, b;
} first_two;

/* The k most played first two plies of a variant, most played first (ties
 * in action order); returns how many there are, at most k. */
static int top_pairs(const study_variant_result *v, int k, first_two *top) {
  first_two all[GAME_MAX_ACTIONS * 2 * GAME_MAX_ACTIONS];
  int n = 0;
  for (int a = 0; a < GAME_MAX_ACTIONS; a++)
    for (int m = 0; m < 2; m++)
      for (int b = 0; b < GAME_MAX_ACTIONS; b++)
        if (v->first_two[a][m][b]) all[n++] = (first_two){v->first_two[a][m][b], a, m, b};
  int kept = n < k ? n : k;
  for (int i = 0; i < kept; i++) {
    int best = i;
    for (int j = i + 1; j < n; j++)
      if (all[j].count > all[best].count) best = j;
    /* Moved to the front by a rotation, so ties keep their action order. */
    first_two t = all[best];
    memmove(&all[i + 1], &all[i], (size_t)(best - i) * sizeof all[0]);
    top[i] = all[i] = t;
  }
  return kept;
}

static void openings(FILE *f, const study_doc *d) {
  const study_result *r = d->r;
  int n = r->n_variants;
  const game *g = &d->variants[0].g;
  int first = game_first_mover(g);
  fprintf(f, "## Opening preferences\n\n");
  if (r->method & STUDY_BOOK)
    fprintf(f,
            "These games started from a book, so these are the book's first plies, not "
            "the agent's preferences.\n\n");
  fprintf(f,
          "The first player's first move (share of games; moves as the board names them):"
          "\n\n| move |");
  variant_columns(f, d, 1);
  for (int a = 0; a < GAME_MAX_ACTIONS; a++) {
    int any = 0;
    for (int i = 0; i < n; i++) any |= r->v[i].first[a] > 0;
    if (!any) continue;
    char name[32];
    study_move_name(g, first, a, name, sizeof name);
    fputs("| ", f);
    md(f, name);
    fputs(" |", f);
    for (int i = 0; i < n; i++) fprintf(f, " %.1f%% |", 100.0 * r->v[i].first[a] / r->v[i].s.games);
    fputc('\n', f);
  }
  enum { TOP = 5 };
  fprintf(f, "\nThe %d most played first two plies (share of games):\n\n| |", TOP);
  variant_columns(f, d, 0);
  first_two top[STUDY_MAX_VARIANTS][TOP];
  int k[STUDY_MAX_VARIANTS];
  for (int i = 0; i < n; i++) k[i] = top_pairs(&r->v[i], TOP, top[i]);
  for (int t = 0; t < TOP; t++) {
    fprintf(f, "| %d |", t + 1);
    for (int i = 0; i < n; i++) {
      if (t >= k[i]) {
        fputs(" |", f);
        continue;
      }
      const first_two *p = &top[i][t];
      char x[32], y[32];
      study_move_name(g, first, p->a, x, sizeof x);
      study_move_name(g, p->m, p->b, y, sizeof y);
      fputc(' ', f);
      md(f, x);
      fputs(", ", f);
      md(f, y);
      fprintf(f, " (%.1f%%) |", 100.0 * p->count / r->v[i].s.games);
    }
    fputc('\n', f);
  }
  fputc('\n', f);
}

static void significance(FILE *f, const study_doc *d) {
  const study_result *r = d->r;
  fprintf(f, "## Do the variants differ?\n\n");
  if (r->n_pairs == 0) {
    fprintf(f, "One variant: nothing to compare.\n\n");
    return;
  }
  fprintf(f,
          "For every pair of variants, five tests: **results**, Pearson's chi-square on the "
          "table of the first player's wins, draws and losses; **score**, a z test of the "
          "first player's mean score (pooled variance); **draws**, a two-proportion z test "
          "of the draw rates; **length**, the Mann-Whitney rank test of the game lengths; "
          "**mean length**, Welch's t test. Each cell gives the p-value, then in parentheses "
          "the p-value adjusted by Holm's method over the %d pairs of that column, which "
          "keeps the chance of any false finding in the column at most %g. A **bold** "
          "adjusted value is at most %g: that difference is unlikely to be chance.\n\n"
          "| pair | results | score | draws | length | mean length |\n"
          "|---|---|---|---|---|---|\n",
          r->n_pairs, r->params.alpha, r->params.alpha);
  int found = 0;
  for (int k = 0; k < r->n_pairs; k++) {
    const study_pair *q = &r->pairs[k];
    fputs("| ", f);
    md(f, d->variants[q->a].label);
    fputs(" vs ", f);
    md(f, d->variants[q->b].label);
    if (q->same_rules) fputs(" (same rules)", f);
    fputs(" |", f);
    for (int t = 0; t < STUDY_TESTS; t++) {
      fputc(' ', f);
      pval(f, q->t[t].p);
      fputs(q->differ[t] ? " (**" : " (", f);
      pval(f, q->p_holm[t]);
      fputs(q->differ[t] ? "**) |" : ") |", f);
      found += q->differ[t];
    }
    fputc('\n', f);
  }
  fputc('\n', f);
  if (!found) {
    fprintf(f,
            "No difference passes: with these games, every difference between the "
            "variants could be chance. More games (`--games`) make smaller differences "
            "visible.\n\n");
    return;
  }
  fprintf(f, "Differences unlikely to be chance:\n\n");
  static const char *const what[STUDY_TESTS] = {"results", "first player's score", "draw rate",
                                                "length distribution", "mean length"};
  for (int k = 0; k < r->n_pairs; k++) {
    const study_pair *q = &r->pairs[k];
    for (int t = 0; t < STUDY_TESTS; t++) {
      if (!q->differ[t]) continue;
      fputs("- ", f);
      md(f, d->variants[q->a].label);
      fputs(" vs ", f);
      md(f, d->variants[q->b].label);
      fprintf(f, ": %s (adjusted p ", what[t]);
      pval(f, q->p_holm[t]);
      fprintf(f, ")%s\n", q->same_rules ? " — the same rules, so this is a false finding" : "");
    }
  }
  fputc('\n', f);
}

static void cross_play(FILE *f, const study_doc *d) {
  const study_result *r = d->r;
  const study_params *p = &r->params;
  fprintf(f, "## Cross-play\n\n");
  if (!r->n_cross) {
    fprintf(f, "No cross-play agents were given (`--cross NAME=SPEC`).\n\n");
    return;
  }
  fprintf(f, "Each cell is the row agent's score against the main agent ");
  code(f, r->agent);
  fprintf(f, " under the column's rules: %d games, both colours from ", p->cross_games);
  if (p->cross_openings)
    fprintf(f, "each of %d level openings, with its 95%% interval.", p->cross_openings);
  else
    fprintf(f, "the start position, with its 95%% interval.");
  fprintf(f,
          " *cannot play*: the agent refused those rules (for a network, weights made "
          "for other rules).\n\n| agent |");
  variant_columns(f, d, 0);
  for (int c = 0; c < r->n_cross; c++) {
    fputs("| ", f);
    md(f, d->cross[c].name);
    fputs(": ", f);
    code(f, d->cross[c].spec);
    fputs(" |", f);
    for (int i = 0; i < r->n_variants; i++) {
      const study_cell *x = &r->cross[c][i];
      if (!x->played) {
        fputs(" *cannot play*: ", f);
        md(f, x->reason);
        fputs(" |", f);
      } else {
        fprintf(f, " %.1f%% [%.1f, %.1f] (+%d =%d -%d) |", 100 * x->score, 100 * x->score_lo,
                100 * x->score_hi, x->wins, x->draws, x->losses);
      }
    }
    fputc('\n', f);
  }
  fputc('\n', f);
}

int study_write_report(const study_doc *d, char *err, size_t errlen) {
  char path[CLI_PATH_MAX];
  if (cli_path(path, sizeof path, d->out, STUDY_REPORT)) {
    errf(err, errlen, "%s: folder name too long", d->out);
    return -1;
  }
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  FILE *f = a.f;
  const study_result *r = d->r;
  fprintf(f, "# Rule variants of %s in practice\n\n`sowzero study ", d->variants[0].g.rules->name);
  md(f, d->source);
  fprintf(f,
          "`, finished %s after %.1f s: %d variant%s, %d self-play games each, seed %llu, %d "
          "thread%s.\n\n",
          d->date, r->seconds, r->n_variants, r->n_variants > 1 ? "s" : "", r->params.games,
          (unsigned long long)r->params.seed, r->params.threads, r->params.threads > 1 ? "s" : "");
  how_games_were_made(f, d);
  variants_table(f, d);
  openings(f, d);
  significance(f, d);
  cross_play(f, d);
  fprintf(f, "## Plots\n\n");
  if (d->plotted) {
    for (int k = 0; k < study_n_plots; k++)
      fprintf(f, "![%s](%s)\n\n", study_plot_about[k], study_plot_png[k]);
  } else {
    fprintf(f, "Plots skipped: ");
    md(f, d->plot_note);
    fprintf(f,
            ". Their data and gnuplot scripts are here (score.dat and score.gp, ...); "
            "`gnuplot -c score.gp score.png score.dat TITLE COUNT` draws one, COUNT being "
            "the number of data columns after the first.\n\n");
  }
  fprintf(f,
          "## Files\n\n`report.md` this report; `study.json` every figure (docs/STUDY.md "
          "describes it); `*.dat` and `*.gp` each plot's data and gnuplot script%s.\n",
          d->plotted ? "; `*.png` the plots" : "");
  if (ferror(f)) return afile_fail(&a, err, errlen);
  return afile_commit(&a, err, errlen);
}

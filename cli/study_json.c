/* The study's study.json: every figure of the report, with the counts,
 * means and spreads a tool needs to redo the tests. docs/STUDY.md
 * describes its fields; "version" changes when one changes meaning. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena/study.h"
#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "cli/study_internal.h"

/* A number, or null where it has none (an infinite statistic). */
static void num(FILE *f, double v) {
  if (isnan(v) || isinf(v))
    fputs("null", f);
  else
    fprintf(f, "%.6g", v);
}

static void key_str(FILE *f, const char *key, const char *v, const char *after) {
  fprintf(f, "\"%s\": ", key);
  json_fput_string(f, v);
  fputs(after, f);
}

static void rate(FILE *f, const char *key, const stats_rate *r) {
  fprintf(f, "\"%s\": {\"count\": %d, \"rate\": %.6f, \"lo\": %.6f, \"hi\": %.6f}, ", key, r->count,
          r->rate, r->lo, r->hi);
}

static void variant(FILE *f, const study_doc *d, int i) {
  const study_variant_result *v = &d->r->v[i];
  const stats_result *s = &v->s;
  const game *g = &d->variants[i].g;
  fputs("    {", f);
  key_str(f, "label", d->variants[i].label, ", ");
  key_str(f, "preset", g->preset, ", ");
  key_str(f, "rules", v->rules, ", ");
  fputs("\"same_rules_as\": ", f);
  if (v->same_as >= 0)
    json_fput_string(f, d->variants[v->same_as].label);
  else
    fputs("null", f);
  fprintf(f, ", \"deterministic\": %s,\n     \"games\": %d, \"distinct_games\": %d, ",
          v->deterministic ? "true" : "false", s->games, s->distinct_games);
  fprintf(f, "\"first_side\": \"%s\", \"seconds\": %.3f,\n     ",
          s->first_side == GAME_SOUTH ? "south" : "north", s->seconds);
  rate(f, "first_win", &s->first_win);
  rate(f, "draw", &s->draw);
  rate(f, "first_loss", &s->first_loss);
  fprintf(f, "\n     \"first_score\": {\"score\": %.6f, \"lo\": %.6f, \"hi\": %.6f}, ",
          s->first_score, s->first_score_lo, s->first_score_hi);
  fprintf(f, "\"mean_margin\": %.4f,\n", s->mean_margin);
  fprintf(f,
          "     \"length\": {\"mean\": %.3f, \"sd\": %.3f, \"min\": %d, \"p10\": %d, "
          "\"p25\": %d, \"median\": %d, \"p75\": %d, \"p90\": %d, \"max\": %d},\n",
          s->len_mean, s->len_sd, s->len_min, s->len_p10, s->len_p25, s->len_median, s->len_p75,
          s->len_p90, s->len_max);
  fputs("     \"endings\": {", f);
  for (int e = 1; e < GAME_END_COUNT; e++)
    fprintf(f, "%s\"%s\": %d", e > 1 ? ", " : "", game_end_name(e), s->end_reason[e]);
  fprintf(f,
          "},\n     \"captures\": %d, \"captures_per_game\": %.4f, \"grand_slams\": %d, "
          "\"grand_slams_per_game\": %.4f,\n",
          s->captures, (double)s->captures / s->games, s->grand_slams,
          (double)s->grand_slams / s->games);
  /* Opening moves by name and action number. */
  int first = game_first_mover(g), sep = 0;
  fputs("     \"first_moves\": [", f);
  for (int a = 0; a < GAME_MAX_ACTIONS; a++) {
    if (!v->first[a]) continue;
    char name[32];
    study_move_name(g, first, a, name, sizeof name);
    fprintf(f, "%s{\"move\": ", sep++ ? ", " : "");
    json_fput_string(f, name);
    fprintf(f, ", \"action\": %d, \"games\": %d}", a, v->first[a]);
  }
  fputs("],\n     \"first_two\": [", f);
  sep = 0;
  for (int a = 0; a < GAME_MAX_ACTIONS; a++)
    for (int m = 0; m < 2; m++)
      for (int b = 0; b < GAME_MAX_ACTIONS; b++) {
        int c = v->first_two[a][m][b];
        if (!c) continue;
        char x[32], y[32];
        study_move_name(g, first, a, x, sizeof x);
        study_move_name(g, m, b, y, sizeof y);
        fprintf(f, "%s{\"moves\": [", sep++ ? ", " : "");
        json_fput_string(f, x);
        fputs(", ", f);
        json_fput_string(f, y);
        fprintf(f, "], \"actions\": [%d, %d], \"second_mover\": \"%s\", \"games\": %d}", a, b,
                m == GAME_SOUTH ? "south" : "north", c);
      }
  fputs("]}", f);
}

static void pair(FILE *f, const study_doc *d, int k) {
  const study_pair *q = &d->r->pairs[k];
  fputs("    {", f);
  key_str(f, "a", d->variants[q->a].label, ", ");
  key_str(f, "b", d->variants[q->b].label, ", ");
  fprintf(f, "\"same_rules\": %s, \"tests\": {", q->same_rules ? "true" : "false");
  for (int t = 0; t < STUDY_TESTS; t++) {
    fprintf(f, "%s\n      \"%s\": {\"stat\": ", t ? "," : "", study_test_name(t));
    num(f, q->t[t].stat);
    fputs(", \"df\": ", f);
    num(f, q->t[t].df);
    fputs(", \"p\": ", f);
    num(f, q->t[t].p);
    fputs(", \"p_holm\": ", f);
    num(f, q->p_holm[t]);
    fprintf(f, ", \"differ\": %s}", q->differ[t] ? "true" : "false");
  }
  fputs("}}", f);
}

static void cross(FILE *f, const study_doc *d) {
  const study_result *r = d->r;
  fprintf(f, "  \"cross\": {\"games\": %d, \"openings\": %d, \"agents\": [",
          r->n_cross ? r->params.cross_games : 0, r->n_cross ? r->params.cross_openings : 0);
  for (int c = 0; c < r->n_cross; c++) {
    fprintf(f, "%s\n    {", c ? "," : "");
    key_str(f, "name", d->cross[c].name, ", ");
    key_str(f, "spec", d->cross[c].spec, ", \"cells\": [");
    for (int i = 0; i < r->n_variants; i++) {
      const study_cell *x = &r->cross[c][i];
      fprintf(f, "%s\n      {", i ? "," : "");
      key_str(f, "variant", d->variants[i].label, ", ");
      if (!x->played) {
        fputs("\"played\": false, ", f);
        key_str(f, "reason", x->reason, "}");
        continue;
      }
      fprintf(f,
              "\"played\": true, \"wins\": %d, \"draws\": %d, \"losses\": %d, \"score\": %.6f, "
              "\"lo\": %.6f, \"hi\": %.6f, \"distinct_games\": %d, \"seconds\": %.3f}",
              x->wins, x->draws, x->losses, x->score, x->score_lo, x->score_hi, x->distinct_games,
              x->seconds);
    }
    fputs("]}", f);
  }
  fputs(r->n_cross ? "\n  ]},\n" : "]},\n", f);
}

int study_write_json(const study_doc *d, char *err, size_t errlen) {
  char path[CLI_PATH_MAX];
  if (cli_path(path, sizeof path, d->out, STUDY_JSON)) {
    errf(err, errlen, "%s: folder name too long", d->out);
    return -1;
  }
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  FILE *f = a.f;
  const study_result *r = d->r;
  const study_params *p = &r->params;
  fputs("{\n  \"format\": \"sowzero-study\", \"version\": 1,\n  ", f);
  key_str(f, "game", d->variants[0].g.rules->name, ", ");
  key_str(f, "source", d->source, ",\n  ");
  key_str(f, "date", d->date, ", ");
  fprintf(f,
          "\"seconds\": %.3f, \"seed\": %llu, \"threads\": %d, \"games\": %d, \"alpha\": %g,\n  ",
          r->seconds, (unsigned long long)p->seed, p->threads, p->games, p->alpha);
  key_str(f, "agent", r->agent, ", ");
  key_str(f, "agent_origin", d->agent_origin, ", ");
  key_str(f, "selfplay_agent", r->selfplay_spec, ",\n  ");
  fprintf(f,
          "\"method\": {\"sampled\": %s, \"book\": %d, \"book_reason\": %s, \"opening_plies\": "
          "%d, \"book_depth\": %d, \"book_margin\": %d},\n",
          r->method & STUDY_SAMPLED ? "true" : "false", r->method & STUDY_BOOK ? r->book : 0,
          r->book_why == 1   ? "\"asked\""
          : r->book_why == 2 ? "\"deterministic\""
                             : "null",
          p->opening_plies, p->book_depth, p->book_margin);
  fputs("  \"variants\": [\n", f);
  for (int i = 0; i < r->n_variants; i++) {
    variant(f, d, i);
    fputs(i + 1 < r->n_variants ? ",\n" : "\n", f);
  }
  fputs("  ],\n  \"pairs\": [\n", f);
  for (int k = 0; k < r->n_pairs; k++) {
    pair(f, d, k);
    fputs(k + 1 < r->n_pairs ? ",\n" : "\n", f);
  }
  fputs("  ],\n", f);
  cross(f, d);
  fprintf(f, "  \"plots\": {\"drawn\": %s, \"skipped\": ", d->plotted ? "true" : "false");
  if (d->plotted)
    fputs("null", f);
  else
    json_fput_string(f, d->plot_note);
  fputs(", \"files\": [", f);
  for (int k = 0; k < study_n_plots; k++) fprintf(f, "%s\"%s\"", k ? ", " : "", study_plot_png[k]);
  fputs("]}\n}\n", f);
  if (ferror(f)) return afile_fail(&a, err, errlen);
  return afile_commit(&a, err, errlen);
}

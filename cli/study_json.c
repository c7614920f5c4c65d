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

/* The file's layout: each variant, pair and cross cell on lines of its
 * own, indented under its list. */
#define NL2 "\n  "
#define NL4 "\n    "
#define NL5 "\n     "
#define NL6 "\n      "

/* A number, or null where it has none (an infinite statistic). */
static void num(json_writer *w, const char *key, double v) { json_put_real(w, key, v, 6); }

static void variant(json_writer *w, const study_doc *d, int i) {
  const study_variant_result *v = &d->r->v[i];
  const stats_result *s = &v->s;
  const game *g = &d->variants[i].g;
  json_begin_object(w, NULL);
  json_put_string(w, "label", d->variants[i].label);
  json_put_string(w, "preset", g->preset);
  json_put_string(w, "rules", v->rules);
  if (v->same_as >= 0)
    json_put_string(w, "same_rules_as", d->variants[v->same_as].label);
  else
    json_put_null(w, "same_rules_as");
  json_put_bool(w, "deterministic", v->deterministic);
  json_break(w, NL5);
  json_put_int(w, "games", s->games);
  json_put_int(w, "distinct_games", s->distinct_games);
  json_put_string(w, "first_side", s->first_side == GAME_SOUTH ? "south" : "north");
  json_put_fixed(w, "seconds", s->seconds, 3);
  json_break(w, NL5);
  cli_json_rate(w, "first_win", &s->first_win);
  cli_json_rate(w, "draw", &s->draw);
  cli_json_rate(w, "first_loss", &s->first_loss);
  json_break(w, " " NL5);
  cli_json_first_score(w, s);
  json_put_fixed(w, "mean_margin", s->mean_margin, 4);
  json_break(w, NL5);
  cli_json_length(w, s);
  json_break(w, NL5);
  cli_json_endings(w, s);
  json_break(w, NL5);
  json_put_int(w, "captures", s->captures);
  json_put_fixed(w, "captures_per_game", (double)s->captures / s->games, 4);
  json_put_int(w, "grand_slams", s->grand_slams);
  json_put_fixed(w, "grand_slams_per_game", (double)s->grand_slams / s->games, 4);
  /* Opening moves by name and action number. */
  int first = game_first_mover(g);
  json_break(w, NL5);
  json_begin_array(w, "first_moves");
  for (int a = 0; a < GAME_MAX_ACTIONS; a++) {
    if (!v->first[a]) continue;
    char name[32];
    study_move_name(g, first, a, name, sizeof name);
    json_begin_object(w, NULL);
    json_put_string(w, "move", name);
    json_put_int(w, "action", a);
    json_put_int(w, "games", v->first[a]);
    json_end_object(w);
  }
  json_end_array(w);
  json_break(w, NL5);
  json_begin_array(w, "first_two");
  for (int a = 0; a < GAME_MAX_ACTIONS; a++)
    for (int m = 0; m < 2; m++)
      for (int b = 0; b < GAME_MAX_ACTIONS; b++) {
        int c = v->first_two[a][m][b];
        if (!c) continue;
        char x[32], y[32];
        study_move_name(g, first, a, x, sizeof x);
        study_move_name(g, m, b, y, sizeof y);
        json_begin_object(w, NULL);
        json_begin_array(w, "moves");
        json_put_string(w, NULL, x);
        json_put_string(w, NULL, y);
        json_end_array(w);
        json_begin_array(w, "actions");
        json_put_int(w, NULL, a);
        json_put_int(w, NULL, b);
        json_end_array(w);
        json_put_string(w, "second_mover", m == GAME_SOUTH ? "south" : "north");
        json_put_int(w, "games", c);
        json_end_object(w);
      }
  json_end_array(w);
  json_end_object(w);
}

static void pair(json_writer *w, const study_doc *d, int k) {
  const study_pair *q = &d->r->pairs[k];
  json_begin_object(w, NULL);
  json_put_string(w, "a", d->variants[q->a].label);
  json_put_string(w, "b", d->variants[q->b].label);
  json_put_bool(w, "same_rules", q->same_rules);
  json_begin_object(w, "tests");
  json_lines(w, NL6, NULL);
  for (int t = 0; t < STUDY_TESTS; t++) {
    json_begin_object(w, study_test_name(t));
    num(w, "stat", q->t[t].stat);
    num(w, "df", q->t[t].df);
    num(w, "p", q->t[t].p);
    num(w, "p_holm", q->p_holm[t]);
    json_put_bool(w, "differ", q->differ[t]);
    json_end_object(w);
  }
  json_end_object(w);
  json_end_object(w);
}

static void cross(json_writer *w, const study_doc *d) {
  const study_result *r = d->r;
  json_break(w, NL2);
  json_begin_object(w, "cross");
  json_put_int(w, "games", r->n_cross ? r->params.cross_games : 0);
  json_put_int(w, "openings", r->n_cross ? r->params.cross_openings : 0);
  json_begin_array(w, "agents");
  if (r->n_cross) json_lines(w, NL4, NL2);
  for (int c = 0; c < r->n_cross; c++) {
    json_begin_object(w, NULL);
    json_put_string(w, "name", d->cross[c].name);
    json_put_string(w, "spec", d->cross[c].spec);
    json_begin_array(w, "cells");
    json_lines(w, NL6, NULL);
    for (int i = 0; i < r->n_variants; i++) {
      const study_cell *x = &r->cross[c][i];
      json_begin_object(w, NULL);
      json_put_string(w, "variant", d->variants[i].label);
      json_put_bool(w, "played", x->played);
      if (!x->played) {
        json_put_string(w, "reason", x->reason);
      } else {
        json_put_int(w, "wins", x->wins);
        json_put_int(w, "draws", x->draws);
        json_put_int(w, "losses", x->losses);
        json_put_fixed(w, "score", x->score, 6);
        json_put_fixed(w, "lo", x->score_lo, 6);
        json_put_fixed(w, "hi", x->score_hi, 6);
        json_put_int(w, "distinct_games", x->distinct_games);
        json_put_fixed(w, "seconds", x->seconds, 3);
      }
      json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
  }
  json_end_array(w);
  json_end_object(w);
}

int study_write_json(const study_doc *d, char *err, size_t errlen) {
  char path[CLI_PATH_MAX];
  if (cli_path(path, sizeof path, d->out, STUDY_JSON)) {
    errf(err, errlen, "%s: folder name too long", d->out);
    return -1;
  }
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  const study_result *r = d->r;
  const study_params *p = &r->params;
  json_writer w;
  json_writer_init_file(&w, a.f);
  json_begin_object(&w, NULL);
  json_break(&w, NL2);
  json_put_string(&w, "format", "sowzero-study");
  json_put_int(&w, "version", 1);
  json_break(&w, NL2);
  json_put_string(&w, "game", d->variants[0].g.rules->name);
  json_put_string(&w, "source", d->source);
  json_break(&w, NL2);
  json_put_string(&w, "date", d->date);
  json_put_fixed(&w, "seconds", r->seconds, 3);
  json_put_uint(&w, "seed", (unsigned long long)p->seed);
  json_put_int(&w, "threads", p->threads);
  json_put_int(&w, "games", p->games);
  json_put_real(&w, "alpha", p->alpha, 6);
  json_break(&w, NL2);
  json_put_string(&w, "agent", r->agent);
  json_put_string(&w, "agent_origin", d->agent_origin);
  json_put_string(&w, "selfplay_agent", r->selfplay_spec);
  json_break(&w, NL2);
  json_begin_object(&w, "method");
  json_put_bool(&w, "sampled", r->method & STUDY_SAMPLED);
  json_put_int(&w, "book", r->method & STUDY_BOOK ? r->book : 0);
  if (r->book_why == 1 || r->book_why == 2)
    json_put_string(&w, "book_reason", r->book_why == 1 ? "asked" : "deterministic");
  else
    json_put_null(&w, "book_reason");
  json_put_int(&w, "opening_plies", p->opening_plies);
  json_put_int(&w, "book_depth", p->book_depth);
  json_put_int(&w, "book_margin", p->book_margin);
  json_end_object(&w);
  json_break(&w, NL2);
  json_begin_array(&w, "variants");
  json_lines(&w, NL4, NL2);
  for (int i = 0; i < r->n_variants; i++) variant(&w, d, i);
  json_end_array(&w);
  json_break(&w, NL2);
  json_begin_array(&w, "pairs");
  json_lines(&w, NL4, NL2);
  for (int k = 0; k < r->n_pairs; k++) pair(&w, d, k);
  json_end_array(&w);
  cross(&w, d);
  json_break(&w, NL2);
  json_begin_object(&w, "plots");
  json_put_bool(&w, "drawn", d->plotted);
  if (d->plotted)
    json_put_null(&w, "skipped");
  else
    json_put_string(&w, "skipped", d->plot_note);
  json_begin_array(&w, "files");
  for (int k = 0; k < study_n_plots; k++) json_put_string(&w, NULL, study_plot_png[k]);
  json_end_array(&w);
  json_end_object(&w);
  json_break(&w, "\n");
  json_end_object(&w);
  return cli_json_commit(&a, &w, err, errlen);
}

/* A study of rule variants: self-play per variant, tests between them,
 * cross-play. */
#include "arena/study.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/openings.h"
#include "arena/ratings.h"
#include "base/base.h"
#include "search/agent.h"

study_params study_defaults(void) {
  arena_params a = arena_defaults();
  study_params p = {.games = 200,
                    .threads = 1,
                    .seed = 1,
                    .sample_plies = 4,
                    .openings = -1,
                    .cross_games = 100,
                    .cross_openings = 50,
                    .opening_plies = a.opening_plies,
                    .book_depth = a.book_depth,
                    .book_margin = a.book_margin,
                    .alpha = 0.05};
  return p;
}

const char *study_test_name(int t) {
  static const char *const names[STUDY_TESTS] = {"results", "score", "draws", "length",
                                                 "mean_length"};
  return t >= 0 && t < STUDY_TESTS ? names[t] : "?";
}

void study_result_free(study_result *r) {
  for (int i = 0; i < STUDY_MAX_VARIANTS; i++) {
    free(r->v[i].games);
    r->v[i].games = NULL;
  }
}

/* ---- Checks ---------------------------------------------------------------------------- */

static int check_params(const study_variant *v, int n, int n_cross, const study_params *p,
                        char *err, size_t errlen) {
  if (n < 1 || n > STUDY_MAX_VARIANTS) {
    errf(err, errlen, "a study takes 1..%d variants (got %d)", STUDY_MAX_VARIANTS, n);
    return -1;
  }
  if (n_cross < 0 || n_cross > STUDY_MAX_CROSS) {
    errf(err, errlen, "a study takes 0..%d cross-play agents (got %d)", STUDY_MAX_CROSS, n_cross);
    return -1;
  }
  struct {
    const char *name;
    long v, lo, hi;
  } r[] = {{"games", p->games, 1, 1000000},
           {"threads", p->threads, 1, 256},
           {"sample plies", p->sample_plies, 0, 1000},
           {"openings", p->openings, -1, 100000},
           {"cross-play games", p->cross_games, 2, 1000000},
           {"cross-play openings", p->cross_openings, 0, 100000},
           {"opening plies", p->opening_plies, 1, OPENING_MAX_PLIES},
           {"book depth", p->book_depth, 1, 64}};
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (r[i].v < r[i].lo || r[i].v > r[i].hi) {
      errf(err, errlen, "%s must be %ld..%ld (got %ld)", r[i].name, r[i].lo, r[i].hi, r[i].v);
      return -1;
    }
  if (n_cross > 0 && p->cross_games % 2) {
    errf(err, errlen,
         "cross-play games must be even (each opening is played with both colours); got %d",
         p->cross_games);
    return -1;
  }
  if (!(p->alpha > 0 && p->alpha < 1)) {
    errf(err, errlen, "alpha must be between 0 and 1 (got %g)", p->alpha);
    return -1;
  }
  for (int i = 1; i < n; i++)
    if (v[i].g.rules != v[0].g.rules) {
      errf(err, errlen,
           "variant '%s' is a game of %s, variant '%s' of %s: a study compares rule variants "
           "of one game",
           v[i].label, v[i].g.rules->name, v[0].label, v[0].g.rules->name);
      return -1;
    }
  return 0;
}

/* ---- How self-play games differ --------------------------------------------------------- */

/* 1 if spec has a setting key=... (settings follow the kind, split at
 * spaces); *value gets its value. */
static int spec_has(const char *spec, const char *key, const char **value) {
  size_t kl = strlen(key);
  for (const char *s = spec; *s;) {
    while (*s == ' ') s++;
    if (!strncmp(s, key, kl) && s[kl] == '=') {
      if (value) *value = s + kl + 1;
      return 1;
    }
    while (*s && *s != ' ') s++;
  }
  return 0;
}

/* The spec self-play uses: the agent's, with temp_plies=N added when the
 * agent takes that setting and does not set it itself. */
static int selfplay_spec(const game *g, const char *spec, const study_params *p, study_result *r,
                         char *err, size_t errlen) {
  const agent_params ap = {1, p->egdb_dir};
  int plies = p->sample_plies;
  agent *a = agent_make(g, spec, &ap, err, errlen);
  if (!a) return -1;
  agent_free(a);
  snprintf(r->selfplay_spec, sizeof r->selfplay_spec, "%s", spec);
  const char *v;
  if (spec_has(spec, "temp_plies", &v)) {
    if (atoi(v) > 0) r->method |= STUDY_SAMPLED;
    return 0;
  }
  char with[sizeof r->selfplay_spec], refused[256];
  if (plies <= 0 ||
      snprintf(with, sizeof with, "%s temp_plies=%d", spec, plies) >= (int)sizeof with)
    return 0;
  /* Kinds without a search (random, greedy, alphabeta, net) refuse it. */
  if ((a = agent_make(g, with, &ap, refused, sizeof refused))) {
    agent_free(a);
    snprintf(r->selfplay_spec, sizeof r->selfplay_spec, "%s", with);
    r->method |= STUDY_SAMPLED;
  }
  return 0;
}

/* ---- Progress ----------------------------------------------------------------------------- */

typedef struct {
  study_progress_fn fn;
  void *ud;
  study_progress pr;
  double t0;
} progress_ctx;

static void step_start(progress_ctx *c, int phase, int variant, int cross, int total) {
  c->pr.phase = phase;
  c->pr.variant = variant;
  c->pr.cross = cross;
  c->pr.done = 0;
  c->pr.total = total;
  c->pr.seconds = 0;
  c->t0 = clock_wall();
}

static void step_report(progress_ctx *c, int done) {
  if (!c->fn) return;
  c->pr.done = done;
  c->pr.seconds = clock_wall() - c->t0;
  c->fn(&c->pr, c->ud);
}

static void on_selfplay_game(int done, int total, void *ud) {
  (void)total;
  step_report(ud, done);
}

/* A deep book takes long: reported as each opening is found. */
static void on_book(void *ud, int found, int k, int draws) {
  progress_ctx *c = ud;
  (void)k, (void)draws;
  if (found > c->pr.done) step_report(c, found);
}

static void on_cross_game(const arena_game *rec, const arena_result *so_far, void *ud) {
  (void)rec;
  step_report(ud, so_far->games);
}

/* ---- Self-play ------------------------------------------------------------------------------- */

static void count_openings(study_variant_result *v) {
  for (int k = 0; k < v->s.games; k++) {
    const stats_game *s = &v->games[k];
    if (s->n_open >= 1 && s->open[0] < GAME_MAX_ACTIONS) v->first[s->open[0]]++;
    if (s->n_open >= 2 && s->open[0] < GAME_MAX_ACTIONS && s->open[1] < GAME_MAX_ACTIONS)
      v->first_two[s->open[0]][s->open_mover[1] & 1][s->open[1]]++;
  }
}

uint64_t study_variant_seed(uint64_t seed, int i) {
  uint64_t st = seed ^ (0x5EEDull << 32) ^ (uint64_t)i;
  return i == 0 ? seed : splitmix64(&st);
}

static int selfplay(const study_variant *var, int i, const study_params *p,
                    const opening_line *book, int n_book, progress_ctx *pc, study_result *r,
                    char *err, size_t errlen) {
  study_variant_result *v = &r->v[i];
  v->games = calloc((size_t)p->games, sizeof *v->games);
  if (!v->games) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  stats_params sp = stats_defaults();
  sp.games = p->games;
  sp.threads = p->threads;
  sp.seed = study_variant_seed(p->seed, i);
  sp.book = book;
  sp.n_book = n_book;
  sp.egdb_dir = p->egdb_dir;
  step_start(pc, STUDY_SELFPLAY, i, -1, p->games);
  char why[1024];
  double t0 = clock_wall();
  if (stats_play(&var->g, r->selfplay_spec, r->selfplay_spec, &sp, on_selfplay_game, pc, v->games,
                 why, sizeof why) ||
      stats_summarize(v->games, p->games, game_first_mover(&var->g), &v->s, why, sizeof why)) {
    errf(err, errlen, "variant '%s': %s", var->label, why);
    return -1;
  }
  v->s.seconds = clock_wall() - t0;
  count_openings(v);
  return 0;
}

/* Decides how games differ (r->method, r->book) from the agent and the
 * request; the same for every variant. */
static int plan(const study_variant *var, int n, const char *agent, const study_params *p,
                study_result *r, char *err, size_t errlen) {
  char why[1024];
  int any_deterministic = 0;
  for (int i = 0; i < n; i++) {
    if (selfplay_spec(&var[i].g, agent, p, r, why, sizeof why)) {
      errf(err, errlen, "agent '%s' under variant '%s': %s", agent, var[i].label, why);
      return -1;
    }
    int d = arena_agent_deterministic(&var[i].g, r->selfplay_spec,
                                      &(agent_params){p->seed, p->egdb_dir}, why, sizeof why);
    if (d < 0) {
      errf(err, errlen, "agent '%s' under variant '%s': %s", r->selfplay_spec, var[i].label, why);
      return -1;
    }
    r->v[i].deterministic = d;
    any_deterministic |= d;
  }
  if (p->openings > 0) {
    r->method |= STUDY_BOOK;
    r->book = p->openings;
    r->book_why = 1;
  } else if (p->openings < 0 && any_deterministic) {
    r->method |= STUDY_BOOK;
    r->book = p->games < 1000 ? p->games : 1000;
    r->book_why = 2;
  }
  return 0;
}

/* ---- Tests between variants ------------------------------------------------------------- */

static int test_pairs(study_result *r, double alpha, char *err, size_t errlen) {
  int n = r->n_variants, *len[STUDY_MAX_VARIANTS] = {0}, rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    const study_variant_result *v = &r->v[i];
    if (!(len[i] = malloc((size_t)v->s.games * sizeof *len[i]))) rc = -1;
    for (int k = 0; len[i] && k < v->s.games; k++) len[i][k] = v->games[k].plies;
  }
  r->n_pairs = 0;
  for (int a = 0; a < n && !rc; a++)
    for (int b = a + 1; b < n && !rc; b++) {
      study_pair *q = &r->pairs[r->n_pairs++];
      const stats_result *x = &r->v[a].s, *y = &r->v[b].s;
      memset(q, 0, sizeof *q);
      q->a = a;
      q->b = b;
      q->same_rules = !strcmp(r->v[a].rules, r->v[b].rules);
      int ra[3] = {x->first_win.count, x->draw.count, x->first_loss.count};
      int rb[3] = {y->first_win.count, y->draw.count, y->first_loss.count};
      q->t[STUDY_T_RESULTS] = signif_chi2_rows(ra, rb, 3);
      q->t[STUDY_T_SCORE] = signif_score_z(ra[0], ra[1], ra[2], rb[0], rb[1], rb[2]);
      q->t[STUDY_T_DRAWS] = signif_two_proportions(ra[1], x->games, rb[1], y->games);
      if (signif_mann_whitney(len[a], x->games, len[b], y->games, &q->t[STUDY_T_LENGTH], NULL))
        rc = -1;
      q->t[STUDY_T_MEAN_LENGTH] =
          signif_welch(x->len_mean, x->len_sd, x->games, y->len_mean, y->len_sd, y->games);
    }
  for (int i = 0; i < n; i++) free(len[i]);
  if (rc) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  double p[STUDY_MAX_VARIANTS * (STUDY_MAX_VARIANTS - 1) / 2], adj[sizeof p / sizeof p[0]];
  for (int t = 0; t < STUDY_TESTS; t++) {
    for (int k = 0; k < r->n_pairs; k++) p[k] = r->pairs[k].t[t].p;
    signif_holm(p, r->n_pairs, adj);
    for (int k = 0; k < r->n_pairs; k++) {
      r->pairs[k].p_holm[t] = adj[k];
      r->pairs[k].differ[t] = adj[k] <= alpha;
    }
  }
  return 0;
}

/* ---- Cross-play -------------------------------------------------------------------------------- */

static int cross_cell(const study_variant *var, int vi, const study_agent *x, int ci,
                      const char *main_spec, const study_params *p, progress_ctx *pc,
                      study_cell *cell, char *err, size_t errlen) {
  memset(cell, 0, sizeof *cell);
  /* Refused for these rules (weights of another variant, a setting the
   * game does not have): a finding of the study, not a failure. Memory
   * that ran out (errno ENOMEM, as the allocators leave it) is a failure. */
  errno = 0;
  agent *a = agent_make(&var->g, x->spec, &(agent_params){1, p->egdb_dir}, cell->reason,
                        sizeof cell->reason);
  if (!a && errno == ENOMEM) {
    errf(err, errlen, "cross-play of '%s' under variant '%s': %s", x->name, var->label,
         cell->reason);
    return -1;
  }
  if (!a) return 0;
  agent_free(a);
  arena_params ap = arena_defaults();
  ap.games = p->cross_games;
  ap.threads = p->threads;
  ap.seed = p->seed;
  ap.egdb_dir = p->egdb_dir;
  ap.openings = p->cross_openings;
  ap.opening_plies = p->opening_plies;
  ap.book_depth = p->book_depth;
  ap.book_margin = p->book_margin;
  arena_result *ar = malloc(sizeof *ar);
  if (!ar) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  const char *specs[2] = {x->spec, main_spec};
  step_start(pc, STUDY_CROSS, vi, ci, p->cross_games);
  char why[1024];
  if (arena_run(&var->g, 2, specs, &ap, on_cross_game, pc, ar, why, sizeof why)) {
    errf(err, errlen, "cross-play of '%s' under variant '%s': %s", x->name, var->label, why);
    free(ar);
    return -1;
  }
  const arena_pairing *q = &ar->pairings[0];
  cell->played = 1;
  cell->wins = q->wins;
  cell->draws = q->draws;
  cell->losses = q->losses;
  rating_score_ci(q->wins, q->draws, q->losses, &cell->score, &cell->score_lo, &cell->score_hi);
  cell->distinct_games = ar->distinct_games;
  cell->seconds = ar->seconds;
  free(ar);
  return 0;
}

/* ---- The study --------------------------------------------------------------------------------- */

int study_run(const study_variant *variants, int n_variants, const char *agent,
              const study_agent *cross, int n_cross, const study_params *p,
              study_progress_fn progress, void *ud, study_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->n_variants = n_variants;
  out->n_cross = n_cross;
  out->params = *p;
  if (check_params(variants, n_variants, n_cross, p, err, errlen)) return -1;
  if (strlen(agent) >= sizeof out->agent) {
    errf(err, errlen, "agent spec too long (%zu characters, at most %zu)", strlen(agent),
         sizeof out->agent - 1);
    return -1;
  }
  snprintf(out->agent, sizeof out->agent, "%s", agent);
  double t0 = clock_wall();
  for (int i = 0; i < n_variants; i++) {
    study_variant_result *v = &out->v[i];
    game_options_string(&variants[i].g, v->rules, sizeof v->rules);
    v->same_as = -1;
    for (int j = 0; j < i && v->same_as < 0; j++)
      if (!strcmp(out->v[j].rules, v->rules)) v->same_as = j;
  }
  if (plan(variants, n_variants, agent, p, out, err, errlen)) return -1;
  progress_ctx pc = {progress, ud, {.variant = -1, .cross = -1, .r = out}, clock_wall()};
  step_start(&pc, STUDY_PLAN, -1, -1, 0);
  step_report(&pc, 0);
  opening_line *book = NULL;
  /* Game k plays opening k % K: a book larger than the games is made only
   * as far as they reach (the same openings, drawn in order). */
  int made = out->book < p->games ? out->book : p->games;
  if (out->method & STUDY_BOOK && !(book = malloc((size_t)made * sizeof *book))) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  int rc = 0;
  char why[1024];
  for (int i = 0; i < n_variants && !rc; i++) {
    const study_variant *var = &variants[i];
    if (book) step_start(&pc, STUDY_OPENINGS, i, -1, made);
    if (book &&
        opening_level_book_report(&var->g, made, p->opening_plies, p->book_depth, p->book_margin,
                                  p->seed, book, on_book, &pc, why, sizeof why)) {
      errf(err, errlen, "variant '%s': a book of %d openings: %s%s", var->label, out->book, why,
           out->book_why == 2 ? " (ask for a smaller book)" : "");
      rc = -1;
      break;
    }
    rc = selfplay(var, i, p, book, book ? made : 0, &pc, out, err, errlen);
  }
  free(book);
  if (!rc) rc = test_pairs(out, p->alpha, err, errlen);
  for (int c = 0; c < n_cross && !rc; c++)
    for (int i = 0; i < n_variants && !rc; i++)
      rc = cross_cell(&variants[i], i, &cross[c], c, agent, p, &pc, &out->cross[c][i], err, errlen);
  out->seconds = clock_wall() - t0;
  return rc;
}

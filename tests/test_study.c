/* Studies of rule variants: the module (how games are made to differ,
 * identical rules found and sampled apart, tests between pairs,
 * cross-play and the variants an agent cannot play, seeds not threads)
 * and the `sowzero study` command (its files and figures, refusals that
 * name the culprit, a run directory's network as the default agent,
 * plots skipped without gnuplot). Games are few and agents cheap: this
 * checks the plumbing, not the rules' statistics. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/signif.h"
#include "arena/study.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/alphabeta.h"
#include "search/evaluator_nn.h"
#include "tests/testutil.h"

static void variant(study_variant *v, const char *name) {
  char err[256];
  ck_assert_msg(game_configure(&v->g, name, 0, NULL, err, sizeof err) == 0, "%s", err);
  snprintf(v->label, sizeof v->label, "%s", name);
}

static int run(study_variant *v, int n, const char *agent, study_agent *cross, int n_cross,
               const study_params *p, study_result *r, char *err, size_t errlen) {
  int rc = study_run(v, n, agent, cross, n_cross, p, NULL, NULL, r, err, errlen);
  return rc;
}

/* The tiny network of a run: untrained, for g's rules. */
static void save_net(const game *g, const char *path) {
  char err[256];
  nn_config c = {g->n_features, 8, 1, g->n_actions};
  nn_net *n = nn_create(&c, 3, err, sizeof err);
  ck_assert_msg(n != NULL, "%s", err);
  nn_meta m;
  ck_assert_int_eq(mcts_nn_meta(g, &m, err, sizeof err), 0);
  ck_assert_msg(nn_save(n, &m, path, err, sizeof err) == 0, "%s", err);
  nn_free(n);
}

START_TEST(variants_side_by_side) {
  study_variant v[3];
  variant(&v[0], "warri");
  variant(&v[1], "abapa");
  variant(&v[2], "wari-es");
  study_params p = study_defaults();
  p.games = 12;
  study_result *r = malloc(sizeof *r), *r2 = malloc(sizeof *r2);
  char err[512];
  ck_assert_msg(run(v, 3, "greedy", NULL, 0, &p, r, err, sizeof err) == 0, "%s", err);
  /* greedy breaks ties at random: games differ without help. */
  ck_assert_int_eq(r->method, 0);
  ck_assert_str_eq(r->selfplay_spec, "greedy");
  for (int i = 0; i < 3; i++) {
    const study_variant_result *x = &r->v[i];
    ck_assert_int_eq(x->s.games, 12);
    ck_assert_int_eq(x->s.first_win.count + x->s.draw.count + x->s.first_loss.count, 12);
    int firsts = 0, pairs = 0;
    for (int a = 0; a < GAME_MAX_ACTIONS; a++) {
      firsts += x->first[a];
      for (int m = 0; m < 2; m++)
        for (int b = 0; b < GAME_MAX_ACTIONS; b++) pairs += x->first_two[a][m][b];
      /* The second ply is North's. */
      for (int b = 0; b < GAME_MAX_ACTIONS; b++) ck_assert_int_eq(x->first_two[a][0][b], 0);
    }
    ck_assert_int_eq(firsts, 12);
    ck_assert_int_eq(pairs, 12);
    ck_assert_int_gt(x->s.captures, 12);
    ck_assert(x->s.distinct_games > 1);
  }
  /* warri and wari-es are one rule set: found, and played with streams of
   * their own, so their games are other samples of the same game. */
  ck_assert_int_eq(r->v[0].same_as, -1);
  ck_assert_int_eq(r->v[1].same_as, -1);
  ck_assert_int_eq(r->v[2].same_as, 0);
  ck_assert_int_eq(r->n_pairs, 3);
  const study_pair *same = &r->pairs[1];
  ck_assert_int_eq(same->a, 0);
  ck_assert_int_eq(same->b, 2);
  ck_assert_int_eq(same->same_rules, 1);
  ck_assert_int_eq(r->pairs[0].same_rules, 0);
  int shared = 0;
  for (int k = 0; k < 12; k++) shared += r->v[0].games[k].hash == r->v[2].games[k].hash;
  ck_assert_msg(shared < 12, "identical rules replayed the same games (%d of 12)", shared);
  /* The first variant's stream is the study's seed, the others their own. */
  ck_assert(study_variant_seed(7, 0) == 7);
  ck_assert(study_variant_seed(7, 1) != 7 && study_variant_seed(7, 2) != 7);
  ck_assert(study_variant_seed(7, 1) != study_variant_seed(7, 2));
  ck_assert(study_variant_seed(7, 1) != study_variant_seed(8, 1));
  stats_params sp = stats_defaults();
  sp.games = 12;
  sp.seed = p.seed;
  stats_game *direct = calloc(12, sizeof *direct);
  ck_assert_msg(
      stats_play(&v[0].g, "greedy", "greedy", &sp, NULL, NULL, direct, err, sizeof err) == 0, "%s",
      err);
  for (int k = 0; k < 12; k++) ck_assert(direct[k].hash == r->v[0].games[k].hash);
  free(direct);
  /* Each pair's tests are the named tests of its two variants' games. */
  for (int k = 0; k < 3; k++) {
    const stats_result *x = &r->v[r->pairs[k].a].s, *y = &r->v[r->pairs[k].b].s;
    int ra[3] = {x->first_win.count, x->draw.count, x->first_loss.count};
    int rb[3] = {y->first_win.count, y->draw.count, y->first_loss.count};
    int la[12], lb[12];
    for (int i = 0; i < 12; i++) {
      la[i] = r->v[r->pairs[k].a].games[i].plies;
      lb[i] = r->v[r->pairs[k].b].games[i].plies;
    }
    signif_test want[STUDY_TESTS];
    want[STUDY_T_RESULTS] = signif_chi2_rows(ra, rb, 3);
    want[STUDY_T_SCORE] = signif_score_z(ra[0], ra[1], ra[2], rb[0], rb[1], rb[2]);
    want[STUDY_T_DRAWS] = signif_two_proportions(ra[1], 12, rb[1], 12);
    ck_assert_int_eq(signif_mann_whitney(la, 12, lb, 12, &want[STUDY_T_LENGTH], NULL), 0);
    want[STUDY_T_MEAN_LENGTH] =
        signif_welch(x->len_mean, x->len_sd, 12, y->len_mean, y->len_sd, 12);
    for (int t = 0; t < STUDY_TESTS; t++)
      ck_assert_msg(!memcmp(&r->pairs[k].t[t], &want[t], sizeof want[t]),
                    "pair %d, test %d: stat %g p %g, not %g p %g", k, t, r->pairs[k].t[t].stat,
                    r->pairs[k].t[t].p, want[t].stat, want[t].p);
  }
  for (int t = 0; t < STUDY_TESTS; t++) {
    ck_assert(same->t[t].p >= 0 && same->t[t].p <= 1);
    for (int k = 0; k < 3; k++) {
      ck_assert(r->pairs[k].p_holm[t] >= r->pairs[k].t[t].p);
      /* A pair differs exactly where its adjusted p is within alpha. */
      ck_assert_int_eq(r->pairs[k].differ[t], r->pairs[k].p_holm[t] <= p.alpha);
    }
  }
  /* Two threads play the same games. */
  p.threads = 2;
  ck_assert_msg(run(v, 3, "greedy", NULL, 0, &p, r2, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(r2->v[i].s.first_win.count, r->v[i].s.first_win.count);
    ck_assert_int_eq(r2->v[i].s.captures, r->v[i].s.captures);
    ck_assert_int_eq(memcmp(r2->v[i].first_two, r->v[i].first_two, sizeof r->v[i].first_two), 0);
  }
  study_result_free(r);
  study_result_free(r2);
  free(r);
  free(r2);
}
END_TEST

/* A searching agent samples its opening; one that plays deterministically
 * even so gets a book, whose plies open every game. */
START_TEST(games_are_made_to_differ) {
  study_variant v[1];
  variant(&v[0], "abapa");
  study_params p = study_defaults();
  p.games = 4;
  p.sample_plies = 3;
  study_result *r = malloc(sizeof *r);
  char err[512];
  ck_assert_msg(run(v, 1, "mcts sims=8", NULL, 0, &p, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->method, STUDY_SAMPLED);
  ck_assert_str_eq(r->selfplay_spec, "mcts sims=8 temp_plies=3");
  ck_assert_int_eq(r->n_pairs, 0);
  study_result_free(r);
  /* The spec's own temp_plies is kept. */
  ck_assert_msg(run(v, 1, "mcts sims=8 temp_plies=1", NULL, 0, &p, r, err, sizeof err) == 0, "%s",
                err);
  ck_assert_str_eq(r->selfplay_spec, "mcts sims=8 temp_plies=1");
  ck_assert_int_eq(r->method, STUDY_SAMPLED);
  study_result_free(r);
  ck_assert_msg(run(v, 1, "alphabeta depth=1", NULL, 0, &p, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->method, STUDY_BOOK);
  ck_assert_int_eq(r->book, 4);
  ck_assert_int_eq(r->book_why, 2);
  ck_assert_int_eq(r->v[0].deterministic, 1);
  ck_assert_int_eq(r->v[0].s.distinct_games, 4);
  study_result_free(r);
  /* Asked for: a book of K for 4 games repeats each game 4 / K times
   * (one opening is a book too). */
  for (int k = 1; k <= 2; k++) {
    p.openings = k;
    ck_assert_msg(run(v, 1, "alphabeta depth=1", NULL, 0, &p, r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r->method, STUDY_BOOK);
    ck_assert_int_eq(r->book, k);
    ck_assert_int_eq(r->book_why, 1);
    ck_assert_int_eq(r->v[0].s.distinct_games, k);
    study_result_free(r);
  }
  /* Nothing asked and nothing to vary: one game, as the count says. */
  p.openings = 0;
  ck_assert_msg(run(v, 1, "alphabeta depth=1", NULL, 0, &p, r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r->method, 0);
  ck_assert_int_eq(r->v[0].s.distinct_games, 1);
  study_result_free(r);
  /* A deterministic agent's book has one opening a game, at most 1000:
   * seen in the request for a book that one-ply openings cannot fill
   * (the study stops there, before any game). */
  p.openings = -1;
  p.opening_plies = 1;
  p.book_depth = 1;
  p.book_margin = AB_WIN;
  const int games[3] = {999, 1000, 1500}, book[3] = {999, 1000, 1000};
  for (int i = 0; i < 3; i++) {
    p.games = games[i];
    ck_assert_int_eq(run(v, 1, "alphabeta depth=1", NULL, 0, &p, r, err, sizeof err), -1);
    ck_assert_int_eq(r->method, STUDY_BOOK);
    ck_assert_int_eq(r->book, book[i]);
    ck_assert_int_eq(r->book_why, 2);
    char want[64];
    snprintf(want, sizeof want, "a book of %d openings", book[i]);
    ck_assert_msg(strstr(err, want) && strstr(err, "ask for a smaller book"), "%s", err);
    study_result_free(r);
  }
  free(r);
}
END_TEST

START_TEST(cross_play_and_refusals) {
  study_variant v[2];
  variant(&v[0], "oware");
  variant(&v[1], "warri");
  char net[300], spec[400], err[512];
  snprintf(net, sizeof net, "%s/sowzero-study-%d.weights", test_tmp(), (int)getpid());
  save_net(&v[0].g, net);
  study_agent x[2] = {{"ab", "alphabeta depth=2"}, {"net", ""}};
  snprintf(x[1].spec, sizeof x[1].spec, "zero weights=%s sims=4", net);
  study_params p = study_defaults();
  p.games = 2;
  p.cross_games = 4;
  p.cross_openings = 2;
  study_result *r = malloc(sizeof *r);
  ck_assert_msg(run(v, 2, "greedy", x, 2, &p, r, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < 2; i++) {
    const study_cell *c = &r->cross[0][i];
    ck_assert_int_eq(c->played, 1);
    ck_assert_int_eq(c->wins + c->draws + c->losses, 4);
    ck_assert(c->score_lo <= c->score && c->score <= c->score_hi);
  }
  /* The network of Abapa's rules plays Abapa, and cannot play Warri. */
  ck_assert_int_eq(r->cross[1][0].played, 1);
  ck_assert_int_eq(r->cross[1][1].played, 0);
  ck_assert_ptr_nonnull(strstr(r->cross[1][1].reason, "grand_slam"));
  study_result_free(r);
  /* ...unless its spec says rules=any: then it plays every cell. */
  snprintf(x[1].spec, sizeof x[1].spec, "zero weights=%s sims=4 rules=any", net);
  ck_assert_msg(run(v, 2, "greedy", x, 2, &p, r, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < 2; i++) {
    const study_cell *c = &r->cross[1][i];
    ck_assert_msg(c->played == 1, "%s", c->reason);
    ck_assert_int_eq(c->wins + c->draws + c->losses, 4);
  }
  study_result_free(r);
  /* The main agent must play every variant. */
  snprintf(spec, sizeof spec, "zero weights=%s sims=4", net);
  ck_assert_int_eq(run(v, 2, spec, NULL, 0, &p, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "variant 'warri'"));
  study_result_free(r);
  /* Variants of two games, and numbers out of range, name themselves. */
  variant(&v[1], "namnam");
  ck_assert_int_eq(run(v, 2, "greedy", NULL, 0, &p, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "one game"));
  ck_assert_ptr_nonnull(strstr(err, "namnam"));
  p.games = 0;
  ck_assert_int_eq(run(v, 1, "greedy", NULL, 0, &p, r, err, sizeof err), -1);
  ck_assert_str_eq(err, "games must be 1..1000000 (got 0)");
  p.games = 2;
  p.cross_games = 3;
  /* An odd cross-play count matters only where there is cross-play. */
  ck_assert_msg(run(v, 1, "greedy", NULL, 0, &p, r, err, sizeof err) == 0, "%s", err);
  study_result_free(r);
  ck_assert_int_eq(run(v, 1, "greedy", x, 1, &p, r, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "even"));
  study_result_free(r);
  free(r);
  unlink(net);
}
END_TEST

/* As many variants and cross-play agents as a study takes: every
 * variant, pair and cell is there, the last ones too. */
START_TEST(a_full_study) {
  static const char *const presets[] = {"oware", "abapa", "warri", "wari-es"};
  study_variant v[STUDY_MAX_VARIANTS];
  for (int i = 0; i < STUDY_MAX_VARIANTS; i++) {
    variant(&v[i], presets[i % 4]);
    snprintf(v[i].label, sizeof v[i].label, "%s-%d", presets[i % 4], i);
  }
  study_agent x[STUDY_MAX_CROSS];
  for (int k = 0; k < STUDY_MAX_CROSS; k++) {
    snprintf(x[k].name, sizeof x[k].name, "x%d", k);
    snprintf(x[k].spec, sizeof x[k].spec, "%s", k % 2 ? "random" : "greedy");
  }
  study_params p = study_defaults();
  p.games = 2;
  p.cross_games = 2;
  p.cross_openings = 1;
  study_result *r = malloc(sizeof *r);
  char err[512];
  ck_assert_msg(
      run(v, STUDY_MAX_VARIANTS, "greedy", x, STUDY_MAX_CROSS, &p, r, err, sizeof err) == 0, "%s",
      err);
  ck_assert_int_eq(r->n_variants, STUDY_MAX_VARIANTS);
  ck_assert_int_eq(r->n_pairs, STUDY_MAX_VARIANTS * (STUDY_MAX_VARIANTS - 1) / 2);
  const study_pair *last = &r->pairs[r->n_pairs - 1];
  ck_assert(last->a == STUDY_MAX_VARIANTS - 2 && last->b == STUDY_MAX_VARIANTS - 1);
  for (int i = 0; i < STUDY_MAX_VARIANTS; i++) {
    ck_assert_int_eq(r->v[i].s.games, 2);
    int same = r->v[i].same_as; /* presets repeat from the fifth variant */
    ck_assert(i < 4 ? same < i : same >= 0 && same <= i % 4);
    ck_assert(same < 0 || !strcmp(r->v[same].rules, r->v[i].rules));
    for (int k = 0; k < STUDY_MAX_CROSS; k++) {
      const study_cell *c = &r->cross[k][i];
      ck_assert_msg(c->played == 1, "agent %d, variant %d: %s", k, i, c->reason);
      ck_assert_int_eq(c->wins + c->draws + c->losses, 2);
    }
  }
  for (int k = 0; k < r->n_pairs; k++)
    for (int t = 0; t < STUDY_TESTS; t++)
      ck_assert(isnan(r->pairs[k].t[t].p) || r->pairs[k].p_holm[t] >= r->pairs[k].t[t].p);
  study_result_free(r);
  free(r);
}
END_TEST

/* Cross-play makes its book from the study's book settings: where the
 * arena, given those settings, makes a book at one depth and cannot at
 * another, the study's cross-play does and fails alike. */
static int arena_book_ok(const game *g, const study_params *p) {
  arena_params ap = arena_defaults();
  ap.games = p->cross_games;
  ap.seed = p->seed;
  ap.openings = p->cross_openings;
  ap.opening_plies = p->opening_plies;
  ap.book_depth = p->book_depth;
  ap.book_margin = p->book_margin;
  const char *specs[2] = {"greedy", "greedy"};
  arena_result *ar = malloc(sizeof *ar);
  char err[512];
  int rc = arena_run(g, 2, specs, &ap, NULL, NULL, ar, err, sizeof err);
  free(ar);
  ck_assert_msg(rc == 0 || strstr(err, "found only"), "%s", err);
  return rc == 0;
}

START_TEST(cross_play_book_follows_the_study) {
  study_variant v;
  variant(&v, "oware");
  study_agent x = {"g", "greedy"};
  study_params p = study_defaults();
  p.games = 2;
  p.cross_games = 12; /* a book of K is cut to games / 2 openings */
  p.opening_plies = 1;
  p.cross_openings = 6; /* every first move: level by one depth's judgement, not another's */
  int depth[2] = {0, 0};
  for (int m = 0; m <= 100 && !(depth[0] && depth[1]); m += 25) {
    depth[0] = depth[1] = 0;
    p.book_margin = m;
    for (int d = 1; d <= 6; d++) {
      p.book_depth = d;
      int ok = arena_book_ok(&v.g, &p);
      if (!depth[!ok]) depth[!ok] = d;
    }
  }
  ck_assert_msg(depth[0] && depth[1], "no margin makes a book at one depth and not another");
  study_result *r = malloc(sizeof *r);
  char err[512];
  for (int k = 0; k < 2; k++) {
    p.book_depth = depth[k];
    int rc = run(&v, 1, "greedy", &x, 1, &p, r, err, sizeof err);
    ck_assert_msg(k ? rc == -1 && strstr(err, "found only") : rc == 0, "depth %d: %s", depth[k],
                  rc ? err : "a book");
    study_result_free(r);
  }
  free(r);
}
END_TEST

/* ---- The command -------------------------------------------------------------------------- */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "%s is missing", path);
  static char buf[1 << 17];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static void has(const char *text, const char *what, const char *where) {
  ck_assert_msg(strstr(text, what) != NULL, "%s lacks '%s'", where, what);
}

static void remove_files(const char *dir) {
  static const char *const names[] = {"report.md",   "study.json",   "score.dat",   "score.gp",
                                      "score.png",   "lengths.dat",  "lengths.gp",  "lengths.png",
                                      "endings.dat", "endings.gp",   "endings.png", "openings.dat",
                                      "openings.gp", "openings.png", "config.ini",  "best.weights"};
  char path[600];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

START_TEST(study_command) {
  char out[200], path[400], text[16384];
  snprintf(out, sizeof out, "%s/sowzero-study-out-%d", test_tmp(), (int)getpid());
  char *argv[] = {"study",
                  "configs/oware.ini",
                  "--variants",
                  "abapa; oware-cut ;warri;wari-es",
                  "--agent",
                  "greedy",
                  "--games",
                  "6",
                  "--cross",
                  "ab=alphabeta depth=1",
                  "--cross-games",
                  "4",
                  "--out",
                  out,
                  NULL};
  int rc = test_sowzero(text, sizeof text, argv);
  ck_assert_msg(rc == 0, "%s", text);
  has(text, "study: 4 variants, 'greedy' plays itself", "progress");
  snprintf(path, sizeof path, "%s/report.md", out);
  const char *md = slurp(path);
  static const char *const in_report[] = {
      "# Rule variants of oware in practice",
      "| | abapa | oware-cut | warri | wari-es |",
      "| rule: grand\\_slam | no\\_capture | capture\\_end | capture\\_continue | "
      "capture\\_continue |",
      "| games (distinct) | 6 (",
      "| first player wins |",
      "| draws |",
      "| captures per game |",
      "| grand slams per game |",
      "ended by ",
      "**warri** and **wari-es** have identical rules",
      "## Opening preferences",
      "## Do the variants differ?",
      "Holm",
      "| warri vs wari-es (same rules) | ",
      "| ab: `alphabeta depth=1` |",
      "seed 1"};
  for (size_t i = 0; i < sizeof in_report / sizeof in_report[0]; i++)
    has(md, in_report[i], "report.md");
  snprintf(path, sizeof path, "%s/study.json", out);
  const char *js = slurp(path);
  static const char *const in_json[] = {"\"format\": \"sowzero-study\"",
                                        "\"label\": \"abapa\"",
                                        "\"label\": \"oware-cut\"",
                                        "\"label\": \"wari-es\"",
                                        "\"same_rules_as\": \"warri\"",
                                        "\"games\": 6",
                                        "\"first_win\": {\"count\": ",
                                        "\"length\": {\"mean\": ",
                                        "\"endings\": {\"target\": ",
                                        "\"first_moves\": [{\"move\": ",
                                        "\"a\": \"abapa\", \"b\": \"oware-cut\"",
                                        "\"results\": {\"stat\": ",
                                        "\"p_holm\": ",
                                        "\"name\": \"ab\"",
                                        "\"played\": true",
                                        "\"agent\": \"greedy\""};
  for (size_t i = 0; i < sizeof in_json / sizeof in_json[0]; i++) has(js, in_json[i], "study.json");
  remove_files(out);
}
END_TEST

/* Each refusal: status 2 and one line naming the culprit. */
START_TEST(study_refusals) {
  static const struct {
    const char *args[8];
    const char *says;
  } bad[] = {
      {{"configs/oware.ini", "--agent", "greedy", "--games", "0"}, "--games"},
      {{"configs/oware.ini", "--agent", "greedy", "--games", "12abc"}, "--games"},
      {{"configs/oware.ini", "--agent", "greedy", "--bogus", "1"}, "--bogus"},
      {{"configs/oware.ini", "--agent", "greedy", "--variants", "abapa;nosuch"}, "nosuch"},
      {{"configs/oware.ini", "--agent", "greedy", "--variants", "abapa;namnam"}, "one game"},
      {{"configs/oware.ini", "--agent", "greedy", "--variants", "abapa;abapa"}, "twice"},
      {{"configs/oware.ini", "--agent", "greedy", "--variants", "abapa grand_slam=x"},
       "grand_slam"},
      {{"configs/oware.ini", "--agent", "alphabeta depth=99"}, "depth"},
      {{"configs/oware.ini", "--agent", "greedy", "--cross", "a=greedy", "--cross-games", "3"},
       "--cross-games"},
      {{"configs/oware.ini", "--agent", "greedy", "--cross", "a b=greedy"}, "a b=greedy"},
      {{"configs/oware.ini", "--agent", "greedy", "--cross", "x=nosuchagent"}, "--cross x"},
      {{"/nonexistent/x.ini", "--agent", "greedy"}, "/nonexistent/x.ini"},
      {{"--agent", "greedy"}, "CONFIG_OR_RUN"},
  };
  char text[4096];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *argv[10] = {"study"};
    for (int k = 0; bad[i].args[k]; k++) argv[k + 1] = (char *)bad[i].args[k];
    int rc = test_sowzero(text, sizeof text, argv);
    ck_assert_msg(rc == 2, "case %zu: status %d: %s", i, rc, text);
    ck_assert_msg(strstr(text, bad[i].says) != NULL, "case %zu does not name '%s': %s", i,
                  bad[i].says, text);
    ck_assert_msg(strchr(text, '\n') == text + strlen(text) - 1, "case %zu: not one line: %s", i,
                  text);
  }
}
END_TEST

/* A run directory: its network is the agent by default and the report
 * goes into RUN/study; a variant its weights refuse stops the study
 * before any game. Without gnuplot the report still comes, saying why
 * the plots are missing. */
START_TEST(study_of_a_run) {
  char dir[200], path[400], text[8192], err[256];
  snprintf(dir, sizeof dir, "%s/sowzero-study-run-%d", test_tmp(), (int)getpid());
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  snprintf(path, sizeof path, "%s/config.ini", dir);
  FILE *f = fopen(path, "w");
  fputs("[game]\nname = oware\n", f);
  fclose(f);
  game g;
  ck_assert_int_eq(game_configure(&g, "oware", 0, NULL, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/best.weights", dir);
  save_net(&g, path);
  /* A config whose run has no network yet needs --agent. */
  char cfg[300];
  snprintf(cfg, sizeof cfg, "%s/config.ini", dir);
  char *no_agent[] = {"study", cfg, NULL};
  ck_assert_int_eq(test_sowzero(text, sizeof text, no_agent), 2);
  has(text, "no --agent SPEC, and no trained network at runs/config/best.weights", "the refusal");
  char *refused[] = {"study", dir, "--variants", "oware;warri", "--games", "2", NULL};
  ck_assert_int_eq(test_sowzero(text, sizeof text, refused), 2);
  has(text, "variant 'warri'", "the refusal");
  char *argv[] = {"study", dir, "--games", "2", "--sample-plies", "2", NULL};
  const char *old = getenv("PATH");
  char *saved = old ? strdup(old) : NULL;
  setenv("PATH", "/nonexistent", 1);
  int rc = test_sowzero(text, sizeof text, argv);
  if (saved) setenv("PATH", saved, 1);
  free(saved);
  ck_assert_msg(rc == 0, "%s", text);
  has(text, "plots skipped: gnuplot is not installed", "stderr");
  char study[300];
  snprintf(study, sizeof study, "%s/study", dir);
  snprintf(path, sizeof path, "%s/report.md", study);
  const char *md = slurp(path);
  has(md, "Plots skipped: gnuplot is not installed", "report.md");
  has(md, "the trained network of the run", "report.md");
  has(md, "sims=200 temp_plies=2`", "report.md");
  snprintf(path, sizeof path, "%s/study.json", study);
  const char *js = slurp(path);
  has(js, "\"drawn\": false", "study.json");
  has(js, "best.weights sims=200\"", "study.json");
  snprintf(path, sizeof path, "%s/score.dat", study);
  ck_assert_int_eq(access(path, R_OK), 0);
  snprintf(path, sizeof path, "%s/score.png", study);
  ck_assert_int_ne(access(path, F_OK), 0);
  remove_files(study);
  remove_files(dir);
}
END_TEST

static Suite *study_suite(void) {
  Suite *s = suite_create("study");
  TCase *t = tcase_create("module");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, variants_side_by_side);
  tcase_add_test(t, games_are_made_to_differ);
  tcase_add_test(t, cross_play_and_refusals);
  tcase_add_test(t, cross_play_book_follows_the_study);
  tcase_add_test(t, a_full_study);
  suite_add_tcase(s, t);
  TCase *c = tcase_create("command");
  tcase_set_timeout(c, 120);
  tcase_add_test(c, study_command);
  tcase_add_test(c, study_refusals);
  tcase_add_test(c, study_of_a_run);
  suite_add_tcase(s, c);
  return s;
}

TEST_MAIN(study_suite)

/* One network for many rule variants: the rule inputs of the encoding, the
 * variant sets that weight files and replay buffers name, [game] variants
 * in configs, batched searches of mixed variants, loading a network for a
 * variant it covers (and refusing one it does not), and a tiny run that
 * trains on two variants and resumes. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "arena/match.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/agent.h"
#include "search/evaluator_nn.h"
#include "search/mcts.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/config.h"
#include "trainer/replay.h"
#include "trainer/train.h"

static game make(const char *name, const char *settings) {
  char buf[256], *argv[16], err[256];
  int n = 0;
  snprintf(buf, sizeof buf, "%s", settings ? settings : "");
  for (char *s = NULL, *t = strtok_r(buf, " ", &s); t && n < 16; t = strtok_r(NULL, " ", &s))
    argv[n++] = t;
  game g;
  ck_assert_msg(game_configure(&g, name, n, argv, err, sizeof err) == 0, "%s", err);
  return g;
}

/* ---- Rule inputs -------------------------------------------------------------------- */

START_TEST(rule_inputs_encode_the_options) {
  game g = make("oware",
                "grand_slam=capture_end target=30 repetition=3 cycle_award=split_even "
                "feed_check=after_capture leftover=none");
  int board = g.n_features, version = g.encoding_version;
  ck_assert_int_eq(g.rule_inputs, 0);
  game_pos p;
  game_start(&g, &p);
  float plain[GAME_MAX_FEATURES], with[GAME_MAX_FEATURES];
  game_encode(&g, &p, plain);
  game_set_rule_inputs(&g, 1);
  /* grand_slam 7 values, target, repetition, cycle_award 3, feed_check 2, leftover 2 */
  ck_assert_int_eq(g.n_features, board + 16);
  ck_assert_int_eq(g.encoding_version, version | GAME_ENCODING_RULES);
  game_encode(&g, &p, with);
  for (int i = 0; i < board; i++) ck_assert_float_eq(with[i], plain[i]);
  const float want[16] = {0, 1, 0, 0, 0, 0, 0, 30.0f / 128, 3.0f / 10, 0, 1, 0, 0, 1, 0, 1};
  for (int i = 0; i < 16; i++)
    ck_assert_msg(fabsf(with[board + i] - want[i]) < 1e-6f, "rule input %d: %g, want %g", i,
                  with[board + i], want[i]);
  /* Setting an option again keeps the inputs on, with the new value. */
  char err[256];
  ck_assert_int_eq(game_set_option(&g, "grand_slam", "forbidden", err, sizeof err), 0);
  ck_assert_int_eq(game_setup(&g, err, sizeof err), 0);
  ck_assert_int_eq(g.n_features, board + 16);
  game_encode(&g, &p, with);
  ck_assert_float_eq(with[board + 1], 0);
  ck_assert_float_eq(with[board + 2], 1);
  game_set_rule_inputs(&g, 0);
  ck_assert_int_eq(g.n_features, board);
  ck_assert_int_eq(g.encoding_version, version);
}
END_TEST

/* Every game's full encoding fits and is written exactly: nothing past
 * n_features, and every rule input within 0..1. */
START_TEST(every_game_encodes_its_rule_inputs) {
  for (int i = 0; game_rules_at(i); i++) {
    game g = make(game_rules_at(i)->name, NULL);
    int board = g.n_features;
    game_set_rule_inputs(&g, 1);
    ck_assert_int_gt(g.n_features, board);
    ck_assert_int_le(g.n_features, GAME_MAX_FEATURES - 1);
    float f[GAME_MAX_FEATURES + 1];
    for (int k = 0; k <= GAME_MAX_FEATURES; k++) f[k] = -7;
    game_pos p;
    game_start(&g, &p);
    game_encode(&g, &p, f);
    for (int k = board; k < g.n_features; k++)
      ck_assert_msg(f[k] >= 0 && f[k] <= 1, "%s: rule input %d = %g", g.rules->name, k - board,
                    f[k]);
    ck_assert_float_eq(f[g.n_features], -7);
  }
}
END_TEST

START_TEST(variant_sets_name_and_cover) {
  game v[4] = {make("abapa", NULL), make("warri", NULL), make("wari", NULL),
               make("oware", "target=30")};
  char set[512], one[512];
  ck_assert_int_eq(game_variants_string(v, 4, set, sizeof set), 0);
  ck_assert_int_eq(game_options_string(&v[0], one, sizeof one), 0);
  char want[700];
  snprintf(want, sizeof want, "%s | grand_slam=capture_continue | grand_slam=forbidden | target=30",
           one);
  ck_assert_str_eq(set, want);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(game_variants_cover(&v[k], set), 1);
  game other = make("oware", "grand_slam=loses"), both = make("warri", "target=30");
  ck_assert_int_eq(game_variants_cover(&other, set), 0);
  ck_assert_int_eq(game_variants_cover(&both, set), 0); /* each change alone, not together */
  /* A set of one is the options string, and covers its game only. */
  ck_assert_int_eq(game_variants_string(v, 1, set, sizeof set), 0);
  ck_assert_str_eq(set, one);
  ck_assert_int_eq(game_variants_cover(&v[1], set), 0);
  game mixed[2] = {make("oware", NULL), make("namnam", NULL)};
  ck_assert_int_eq(game_variants_string(mixed, 2, set, sizeof set), -1);
  ck_assert_int_eq(game_variants_string(v, 4, set, 40), -1);
}
END_TEST

/* ---- Configs ------------------------------------------------------------------------ */

static int parse(train_config *c, const char *game_section, char *err, size_t len) {
  char text[1024];
  snprintf(text, sizeof text, "[game]\n%s\n[run]\nminutes = 1\n", game_section);
  return config_parse(c, "t.ini", text, err, len);
}

START_TEST(config_variants_and_their_weights) {
  train_config c;
  char err[512];
  ck_assert_msg(parse(&c,
                      "target = 30\nvariants = abapa; warri; wari grand_slam=loses\n"
                      "variant_weights = 1, 2.34567891 1",
                      err, sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(c.n_variants, 3);
  const char *gs[3] = {"no_capture", "capture_continue", "loses"};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_gt(c.variant[k].rule_inputs, 0);
    ck_assert_int_eq(game_option_value(&c.variant[k], "target"), 30);
    char o[512];
    ck_assert_int_eq(game_options_string(&c.variant[k], o, sizeof o), 0);
    char want[64];
    snprintf(want, sizeof want, "grand_slam=%s ", gs[k]);
    ck_assert_msg(strstr(o, want), "variant %d: %s", k, o);
  }
  ck_assert_float_eq(c.variant_weight[1], 2.34567891f);
  ck_assert_str_eq(c.variant[1].preset, "warri");
  ck_assert_int_eq(memcmp(&c.g, &c.variant[0], sizeof c.g), 0);

  /* What config_write writes reads back as the same run; weights differ. */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_int_eq(config_write(&c, f), 0);
  fclose(f);
  train_config back;
  ck_assert_msg(config_parse(&back, "config.ini", text, err, sizeof err) == 0, "%s\n%s", err, text);
  char *again = NULL;
  f = open_memstream(&again, &len);
  ck_assert_int_eq(config_write(&back, f), 0);
  fclose(f);
  ck_assert_str_eq(again, text); /* what a run writes is what it reads on resume */
  free(again);
  free(text);
  config_diff d;
  ck_assert_msg(config_compare(&c, &back, &d) == 0, "%s: %s / %s", d.key, d.a, d.b);
  back.variant_weight[2] = 5;
  ck_assert_int_eq(config_compare(&c, &back, &d), 1);
  ck_assert_str_eq(d.key, "game.variant_weights");
  char want[64];
  snprintf(want, sizeof want, "%.9g (variant 3)", c.variant_weight[2]);
  ck_assert_str_eq(d.a, want);
  ck_assert_str_eq(d.b, "5 (variant 3)");
  train_config one;
  ck_assert_int_eq(parse(&one, "name = oware", err, sizeof err), 0);
  ck_assert_int_eq(one.n_variants, 1);
  ck_assert_int_eq(one.g.rule_inputs, 0); /* a single game keeps the plain encoding */
  ck_assert_int_eq(config_compare(&c, &one, &d), 1);
  ck_assert_str_eq(d.key, "game.variants");
}
END_TEST

/* A set of as many variants as a run takes: read, and played through by a
 * match, one pair a variant, the last one too. */
START_TEST(a_full_set_of_variants) {
  train_config c;
  char err[512];
  ck_assert_msg(parse(&c, "variants = abapa; warri; wari; wari-es; oware-cut; abapa; warri; wari",
                      err, sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(c.n_variants, GAME_MAX_VARIANTS);
  ck_assert_str_eq(c.variant[GAME_MAX_VARIANTS - 1].preset, "wari");
  ck_assert_float_eq(c.variant_weight[GAME_MAX_VARIANTS - 1], 1.0f);
  match_params p = {.games = 2 * GAME_MAX_VARIANTS, .seed = 5, .opening_plies = 2};
  p.variants = c.variant;
  p.n_variants = c.n_variants;
  match_result r;
  ck_assert_msg(match_specs(&c.g, "greedy", "random", &p, &r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r.games, 2 * GAME_MAX_VARIANTS);
  ck_assert_int_eq(r.wins + r.draws + r.losses, r.games);
  ck_assert_ptr_eq(match_pair_game(&c.g, &p, GAME_MAX_VARIANTS - 1),
                   &c.variant[GAME_MAX_VARIANTS - 1]);
}
END_TEST

START_TEST(config_variants_refused_with_the_culprit) {
  static const struct {
    const char *section, *says;
  } bad[] = {
      {"variants = abapa; nosuch", "game.variants: variant 2 'nosuch': unknown game"},
      {"variants = abapa; warri\nvariant_weights = 1", "1 weights for 2 variants"},
      {"variants = abapa; warri\nvariant_weights = 1 -2", "bad weight '-2'"},
      {"variant_weights = 1", "game.variant_weights: only with game.variants"},
      {"variants = abapa; namnam", "variant 2 'namnam' is not a variant of oware"},
      {"variants = abapa; oware houses=5",
       "variant 2 'oware' is not a variant of oware with 6 actions"}, /* the first's, not its 5 */
      {"grand_slam = loses\nvariants = abapa; oware grand_slam=forbidden",
       "option grand_slam given twice"},
      {"variants = ; ;", "game.variants: no variant"},
      {"variants = abapa;", "game.variants: one variant; a set needs two or more"},
      /* Each differs in one option, so config.ini would name all eight for each. */
      {"variants = oware target=30; oware cycle_award=draw; oware leftover=none; oware "
       "feed_check=after_capture; oware nocap_limit=100; oware max_plies=900; oware repetition=2; "
       "oware grand_slam=loses",
       "the set does not fit a run's files"},
      {"variants = abapa; warri; wari; abapa; warri; wari; abapa; warri; wari",
       "more than 8 variants"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    train_config c;
    char err[512] = "";
    ck_assert_msg(parse(&c, bad[i].section, err, sizeof err) == -1, "accepted: %s", bad[i].section);
    ck_assert_msg(strstr(err, bad[i].says) && strstr(err, "t.ini:"), "'%s' said: %s",
                  bad[i].section, err);
  }
  /* The endgame database serves one rule set. */
  train_config c;
  char err[512];
  ck_assert_int_eq(parse(&c, "variants = abapa; wari\n[egdb]\nenabled = 1", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "egdb.enabled"), "%s", err);
  /* An anchor must play every variant, not only the first. */
  char dir[256], path[300], text[1024];
  scratch_dir(dir, sizeof dir, "variants-anchor");
  snprintf(path, sizeof path, "%s/abapa.weights", dir);
  game plain = make("abapa", NULL);
  nn_config nc = {plain.n_features, 8, 1, plain.n_actions};
  nn_net *net = nn_create(&nc, 1, err, sizeof err);
  nn_meta m;
  ck_assert_int_eq(mcts_nn_meta(&plain, &m, err, sizeof err), 0);
  ck_assert_int_eq(nn_save(net, &m, path, err, sizeof err), 0);
  nn_free(net);
  snprintf(text, sizeof text,
           "[game]\nvariants = abapa; wari\n[eval]\nanchors = zero weights=%s sims=4\n", path);
  ck_assert_int_eq(config_parse(&c, "t.ini", text, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "eval.anchors") && strstr(err, "under variant 2"), "%s", err);
  snprintf(text, sizeof text,
           "[game]\nvariants = abapa; wari\n[eval]\nanchors = zero weights=%s sims=4 rules=any\n",
           path);
  ck_assert_msg(config_parse(&c, "t.ini", text, err, sizeof err) == 0, "%s", err);
  remove_tree(dir);
}
END_TEST

/* ---- Replay buffers -------------------------------------------------------------------- */

static replay_sample sample_of(const game *g, int variant, int plies, uint64_t seed) {
  replay_sample s;
  memset(&s, 0, sizeof s);
  game_pos p;
  game_start(g, &p);
  rng_t r;
  rng_seed(&r, seed, 0);
  for (int i = 0; i < plies; i++) {
    game_pos q = p;
    game_play(g, &q, game_random_action(&r, game_legal(g, &p)));
    if (q.status != GAME_ONGOING) break;
    p = q;
  }
  s.pos = p;
  float pi[GAME_MAX_ACTIONS] = {0};
  game_moves legal = game_legal(g, &p);
  for (int a = 0; a < g->n_actions; a++) pi[a] = (float)(legal >> a & 1);
  replay_set_policy(&s, pi, g->n_actions);
  s.variant = (uint8_t)variant;
  return s;
}

START_TEST(replay_files_keep_each_samples_variant) {
  game v[3] = {make("abapa", NULL), make("warri", NULL), make("wari", NULL)};
  for (int k = 0; k < 3; k++) game_set_rule_inputs(&v[k], 1);
  char err[512], dir[256], path[300];
  scratch_dir(dir, sizeof dir, "variants-replay");
  snprintf(path, sizeof path, "%s/replay.bin", dir);
  replay *r = replay_create(&v[0], 64, err, sizeof err);
  ck_assert_int_eq(replay_set_variants(r, v, 3, err, sizeof err), 0);
  for (int i = 0; i < 30; i++) {
    replay_sample s = sample_of(&v[i % 3], i % 3, i, (uint64_t)i);
    replay_add(r, &s, 1);
  }
  ck_assert_int_eq(replay_save(r, path, err, sizeof err), 0);
  replay *back = replay_create(&v[0], 64, err, sizeof err);
  ck_assert_int_eq(replay_set_variants(back, v, 3, err, sizeof err), 0);
  ck_assert_msg(replay_load(back, path, err, sizeof err) == 0, "%s", err);
  int seen[3] = {0, 0, 0};
  rng_t rng;
  rng_seed(&rng, 3, 0);
  replay_sample s[200];
  ck_assert_int_eq(replay_sample_batch(back, &rng, s, 200), 0);
  for (int i = 0; i < 200; i++) {
    ck_assert_int_lt(s[i].variant, 3);
    seen[s[i].variant]++;
  }
  for (int k = 0; k < 3; k++) ck_assert_int_gt(seen[k], 0);
  /* Another set, or a buffer of one game, refuses the file. */
  replay *single = replay_create(&v[0], 64, err, sizeof err);
  ck_assert_int_eq(replay_load(single, path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "samples of game 'oware'") && strstr(err, " | "), "%s", err);
  replay *two = replay_create(&v[0], 64, err, sizeof err);
  ck_assert_int_eq(replay_set_variants(two, v, 2, err, sizeof err), 0);
  ck_assert_int_eq(replay_load(two, path, err, sizeof err), -1);
  /* A sample of a variant the set does not have is impossible. */
  replay_sample stray = sample_of(&v[0], 5, 3, 1);
  replay_add(r, &stray, 1);
  ck_assert_int_eq(replay_save(r, path, err, sizeof err), 0);
  ck_assert_int_eq(replay_load(back, path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "variant 5, but the set has 3"), "%s", err);
  replay_free(r);
  replay_free(back);
  replay_free(single);
  replay_free(two);
  remove_tree(dir);
}
END_TEST

/* ---- Searches of mixed variants ------------------------------------------------------------
 * The evaluator puts the prior on an action that depends on the game it
 * is called with (grand_slam): a root's prior then shows which rules
 * evaluated it. */
static int variant_prior(void *ctx, const game *g, const game_pos *const *pos, int n, float *policy,
                         float *value) {
  (void)ctx;
  int favour = game_option_value(g, "grand_slam") == 3 ? 0 : 5; /* no_capture: action 0 */
  for (int i = 0; i < n; i++) {
    game_moves legal = game_legal(g, pos[i]);
    float *p = policy + (size_t)i * (size_t)g->n_actions;
    for (int a = 0; a < g->n_actions; a++) p[a] = (legal >> a & 1) ? (a == favour ? 50 : 1) : 0;
    float sum = 0;
    for (int a = 0; a < g->n_actions; a++) sum += p[a];
    for (int a = 0; a < g->n_actions; a++) p[a] /= sum;
    value[i] = 0;
  }
  return 0;
}

START_TEST(mixed_batches_evaluate_each_search_with_its_rules) {
  game a = make("abapa", NULL), b = make("warri", NULL);
  char err[256];
  mcts_eval ev = {variant_prior, NULL, 0};
  mcts_params prm = mcts_defaults();
  prm.cache_size = 1 << 10; /* shared by the searches: a position of one variant must not serve */
  prm.noise = 0;
  int n = 6;
  mcts_batch *mb = mcts_batch_create(&a, &prm, &ev, n, 1, err, sizeof err);
  ck_assert_ptr_nonnull(mb);
  game_hist *h = malloc(sizeof *h);
  for (int i = 0; i < n; i++) {
    if (i % 2) ck_assert_msg(mcts_batch_set_game(mb, i, &b, err, sizeof err) == 0, "%s", err);
    game_pos p;
    game_start(&a, &p); /* the same start position in both variants */
    game_hist_reset(h, &p);
    ck_assert_int_eq(mcts_set_root(mcts_batch_search(mb, i), &p, h, err, sizeof err), 0);
  }
  /* Abapa's searches first: Warri's then meet their positions in the
   * shared cache, which must not answer for them. */
  uint8_t active[6];
  for (int turn = 0; turn < 2; turn++) {
    for (int i = 0; i < n; i++) active[i] = i % 2 == turn;
    ck_assert_int_eq(mcts_batch_run(mb, active, 40, err, sizeof err), 0);
  }
  for (int i = 0; i < n; i++) {
    int act[GAME_MAX_ACTIONS], vis[GAME_MAX_ACTIONS], proof[GAME_MAX_ACTIONS];
    float prior[GAME_MAX_ACTIONS], val[GAME_MAX_ACTIONS];
    int k = mcts_root_children(mcts_batch_search(mb, i), act, vis, prior, val, proof);
    int favour = i % 2 ? 5 : 0, best = 0;
    for (int j = 1; j < k; j++)
      if (prior[j] > prior[best]) best = j;
    ck_assert_msg(act[best] == favour, "search %d (%s) has its prior on %d", i,
                  i % 2 ? "warri" : "abapa", act[best]);
  }
  /* A game of another size cannot join. */
  game small = make("oware", "houses=4");
  ck_assert_int_eq(mcts_batch_set_game(mb, 0, &small, err, sizeof err), -1);
  free(h);
  mcts_batch_free(mb);
}
END_TEST

/* A batch holds at most MCTS_BATCH_MAX_VARIANTS variants at a time, not in
 * all: a search that changes its rules frees its old variant's place, so a
 * long self-play run that draws a variant per game never runs out. Searches
 * that play all the places at once leave none for one more. */
START_TEST(batch_variant_places_are_reused) {
  game a = make("abapa", NULL);
  char err[256];
  mcts_eval ev = {variant_prior, NULL, 0};
  mcts_params prm = mcts_defaults();
  prm.noise = 0;
  const int n = MCTS_BATCH_MAX_VARIANTS + 1;
  mcts_batch *mb = mcts_batch_create(&a, &prm, &ev, n, 1, err, sizeof err);
  ck_assert_ptr_nonnull(mb);
  char opt[64];
  for (int k = 0; k < 3 * MCTS_BATCH_MAX_VARIANTS; k++) {
    snprintf(opt, sizeof opt, "max_plies=%d", 300 + k);
    game g = make("abapa", opt);
    ck_assert_msg(mcts_batch_set_game(mb, 0, &g, err, sizeof err) == 0, "variant %d: %s", k, err);
    game_pos p;
    game_start(&g, &p);
    ck_assert_int_eq(mcts_set_root(mcts_batch_search(mb, 0), &p, NULL, err, sizeof err), 0);
    uint8_t active[MCTS_BATCH_MAX_VARIANTS + 1] = {1};
    ck_assert_int_eq(mcts_batch_run(mb, active, 8, err, sizeof err), 0);
  }
  /* Searches 0..14 take a variant each beside the batch's first rules,
   * which search 16 still plays: sixteen at once, and a sixteenth new one
   * (search 15's) finds no place. */
  for (int i = 0; i < MCTS_BATCH_MAX_VARIANTS; i++) {
    snprintf(opt, sizeof opt, "max_plies=%d", 500 + i);
    game g = make("abapa", opt);
    int rc = mcts_batch_set_game(mb, i, &g, err, sizeof err);
    if (i < MCTS_BATCH_MAX_VARIANTS - 1) {
      ck_assert_msg(rc == 0, "search %d: %s", i, err);
    } else {
      ck_assert_int_eq(rc, -1);
      ck_assert_msg(strstr(err, "at most"), "%s", err);
    }
  }
  mcts_batch_free(mb);
}
END_TEST

/* A prior that depends on the position as well as the rules, so that a
 * policy row given to the wrong search changes that search's tree. */
static int position_prior(void *ctx, const game *g, const game_pos *const *pos, int n,
                          float *policy, float *value) {
  if (variant_prior(ctx, g, pos, n, policy, value)) return -1;
  for (int i = 0; i < n; i++) {
    float *p = policy + (size_t)i * (size_t)g->n_actions, sum = 0;
    for (int a = 0; a < g->n_actions; a++) {
      p[a] *= 1.0f + (float)((pos[i]->pits[a] * 7 + a) % 5);
      sum += p[a];
    }
    for (int a = 0; a < g->n_actions; a++) p[a] /= sum;
    value[i] = (float)(pos[i]->store[pos[i]->mover] - pos[i]->store[!pos[i]->mover]) / 48.0f;
  }
  return 0;
}

START_TEST(mixed_batches_grow_the_trees_of_lone_searches) {
  game v[2] = {make("abapa", NULL), make("warri", NULL)};
  char err[256];
  mcts_eval ev = {position_prior, NULL, 0};
  mcts_params prm = mcts_defaults();
  prm.noise = 0;
  prm.batch = 4; /* leaves of both variants, in several calls per round */
  enum { N = 7, SIMS = 120 };
  mcts_batch *mb = mcts_batch_create(&v[0], &prm, &ev, N, 1, err, sizeof err);
  ck_assert_ptr_nonnull(mb);
  game_pos p[N];
  for (int i = 0; i < N; i++) {
    const game *g = &v[i % 3 == 1];
    if (g != &v[0]) ck_assert_msg(mcts_batch_set_game(mb, i, g, err, sizeof err) == 0, "%s", err);
    game_start(g, &p[i]);
    for (int k = 0; k < i; k++) game_play(g, &p[i], __builtin_ctz(game_legal(g, &p[i])));
    ck_assert_int_eq(mcts_set_root(mcts_batch_search(mb, i), &p[i], NULL, err, sizeof err), 0);
  }
  ck_assert_int_eq(mcts_batch_run(mb, NULL, SIMS, err, sizeof err), 0);
  for (int i = 0; i < N; i++) {
    mcts *lone = mcts_create(&v[i % 3 == 1], &prm, &ev, 1, err, sizeof err);
    ck_assert_ptr_nonnull(lone);
    ck_assert_int_eq(mcts_set_root(lone, &p[i], NULL, err, sizeof err), 0);
    ck_assert_int_eq(mcts_run(lone, SIMS, err, sizeof err), SIMS);
    int a1[GAME_MAX_ACTIONS], a2[GAME_MAX_ACTIONS], n1[GAME_MAX_ACTIONS], n2[GAME_MAX_ACTIONS];
    int r1[GAME_MAX_ACTIONS], r2[GAME_MAX_ACTIONS];
    float q1[GAME_MAX_ACTIONS], q2[GAME_MAX_ACTIONS], v1[GAME_MAX_ACTIONS], v2[GAME_MAX_ACTIONS];
    int k1 = mcts_root_children(lone, a1, n1, q1, v1, r1);
    int k2 = mcts_root_children(mcts_batch_search(mb, i), a2, n2, q2, v2, r2);
    ck_assert_int_eq(k1, k2);
    for (int j = 0; j < k1; j++) {
      ck_assert_int_eq(a1[j], a2[j]);
      ck_assert_msg(n1[j] == n2[j], "search %d, action %d: %d visits alone, %d batched", i, a1[j],
                    n1[j], n2[j]);
      ck_assert_float_eq_tol(q1[j], q2[j], 1e-6f);
    }
    mcts_free(lone);
  }
  mcts_batch_free(mb);
}
END_TEST

/* ---- Networks ------------------------------------------------------------------------ */

START_TEST(a_network_plays_the_variants_of_its_set_only) {
  game v[2] = {make("abapa", NULL), make("wari", NULL)};
  for (int k = 0; k < 2; k++) game_set_rule_inputs(&v[k], 1);
  char err[512], dir[256], set_path[300], one_path[300];
  scratch_dir(dir, sizeof dir, "variants-net");
  snprintf(set_path, sizeof set_path, "%s/set.weights", dir);
  snprintf(one_path, sizeof one_path, "%s/one.weights", dir);
  nn_config nc = {v[0].n_features, 16, 1, v[0].n_actions};
  nn_net *net = nn_create(&nc, 1, err, sizeof err);
  nn_meta m;
  ck_assert_int_eq(mcts_nn_meta(&v[0], &m, err, sizeof err), 0);
  ck_assert_int_eq(game_variants_string(v, 2, m.rules, sizeof m.rules), 0);
  ck_assert_int_eq(nn_save(net, &m, set_path, err, sizeof err), 0);
  nn_free(net);
  /* Plain games (as an agent makes them) take the network's rule inputs. */
  for (int k = 0; k < 2; k++) {
    game g = make(k ? "wari" : "abapa", NULL);
    nn_net *x = mcts_nn_load(&g, set_path, MCTS_NN_OWN_RULES, err, sizeof err);
    ck_assert_msg(x != NULL, "%s", err);
    ck_assert_int_eq(g.n_features, v[0].n_features);
    ck_assert_int_gt(g.rule_inputs, 0);
    nn_free(x);
  }
  game loses = make("oware", "grand_slam=loses");
  ck_assert_ptr_null(mcts_nn_load(&loses, set_path, MCTS_NN_OWN_RULES, err, sizeof err));
  ck_assert_msg(strstr(err, "do not include this game's rules") && strstr(err, "grand_slam=loses"),
                "%s", err);
  ck_assert_int_eq(loses.rule_inputs, 0);
  /* A network of one variant, without rule inputs, plays its rules only. */
  game plain = make("abapa", NULL);
  nn_config pc = {plain.n_features, 16, 1, plain.n_actions};
  net = nn_create(&pc, 1, err, sizeof err);
  ck_assert_int_eq(mcts_nn_meta(&plain, &m, err, sizeof err), 0);
  ck_assert_int_eq(nn_save(net, &m, one_path, err, sizeof err), 0);
  nn_free(net);
  game same = make("abapa", NULL), wari = make("wari", NULL);
  nn_net *x = mcts_nn_load(&same, one_path, MCTS_NN_OWN_RULES, err, sizeof err);
  ck_assert_msg(x != NULL, "%s", err);
  ck_assert_int_eq(same.rule_inputs, 0);
  nn_free(x);
  ck_assert_ptr_null(mcts_nn_load(&wari, one_path, MCTS_NN_OWN_RULES, err, sizeof err));
  ck_assert_msg(strstr(err, "trained with rule options"), "%s", err);
  /* ANY (rules=any, cross-play): other rules of the game, shapes still checked. */
  x = mcts_nn_load(&wari, one_path, MCTS_NN_ANY_RULES, err, sizeof err);
  ck_assert_msg(x != NULL, "%s", err);
  ck_assert_int_eq(wari.rule_inputs, 0);
  char opts[NN_RULES_MAX];
  ck_assert_int_eq(game_options_string(&wari, opts, sizeof opts), 0);
  ck_assert_msg(strstr(opts, "grand_slam=forbidden"), "the game keeps its rules: %s", opts);
  nn_free(x);
  x = mcts_nn_load(&loses, set_path, MCTS_NN_ANY_RULES, err, sizeof err);
  ck_assert_msg(x != NULL, "%s", err);
  ck_assert_int_gt(loses.rule_inputs, 0);
  nn_free(x);
  /* The agents' spelling: zero and net refuse other rules unless rules=any. */
  char spec[400];
  const char *kinds[2] = {"zero sims=8", "net"};
  for (int k = 0; k < 2; k++) {
    snprintf(spec, sizeof spec, "%s weights=%s", kinds[k], one_path);
    ck_assert_ptr_null(agent_create(&wari, spec, 1, err, sizeof err));
    snprintf(spec, sizeof spec, "%s weights=%s rules=any", kinds[k], one_path);
    agent *a = agent_create(&wari, spec, 1, err, sizeof err);
    ck_assert_msg(a != NULL, "%s: %s", spec, err);
    game_pos p;
    game_start(&wari, &p);
    int mv = agent_choose(a, &p, NULL);
    ck_assert_msg(mv >= 0 && (game_legal(&wari, &p) >> mv & 1), "%s chose %d", spec, mv);
    agent_free(a);
  }
  snprintf(spec, sizeof spec, "zero weights=%s rules=some", one_path);
  ck_assert_ptr_null(agent_create(&wari, spec, 1, err, sizeof err));
  ck_assert_msg(strstr(err, "rules"), "%s", err);
  game kalah = make("bao-kenya", NULL);
  ck_assert_ptr_null(mcts_nn_load(&kalah, one_path, MCTS_NN_ANY_RULES, err, sizeof err));
  remove_tree(dir);
}
END_TEST

/* ---- A run ------------------------------------------------------------------------------ */

START_TEST(a_tiny_run_trains_on_two_variants_and_resumes) {
  char scratch[256], run[300], cfg[300], path[400], err[512];
  scratch_dir(scratch, sizeof scratch, "variants-run");
  snprintf(run, sizeof run, "%s/run", scratch);
  snprintf(cfg, sizeof cfg, "%s/mix.ini", scratch);
  put_file(cfg,
           "[game]\nname = oware\nvariants = abapa; wari\nvariant_weights = 1 1\n"
           "[network]\nhidden = 16\nblocks = 1\n"
           "[search]\nsims = 8\n"
           "[selfplay]\nthreads = 1\nlearner_plays = 0\ngames_per_thread = 16\n"
           "record_every = 1\n"
           "[replay]\nwindow = 20000\nmin_samples = 1500\n"
           "[learner]\nbatch = 32\nsteps_per_iter = 10\n"
           "[gating]\ngames = 4\nsims = 4\n"
           "[eval]\nevery = 1\ngames = 2\nanchors = greedy\n"
           "[run]\niterations = 2\ndeterministic = 1\n");
  train_args a = {.config_path = cfg, .run_dir = run};
  ck_assert_msg(train_run(&a, err, sizeof err) == 0, "%s", err);
  /* The weights name the set and take the rule inputs. */
  nn_meta m;
  snprintf(path, sizeof path, "%s/best.weights", run);
  nn_net *net = nn_load(path, NULL, &m, err, sizeof err);
  ck_assert_msg(net != NULL, "%s", err);
  nn_free(net);
  ck_assert_msg(
      strstr(m.rules, "grand_slam=no_capture") && strstr(m.rules, " | grand_slam=forbidden"), "%s",
      m.rules);
  ck_assert_int_ne(m.encoding & GAME_ENCODING_RULES, 0);
  /* The buffer holds games of both. */
  train_config c;
  snprintf(path, sizeof path, "%s/config.ini", run);
  ck_assert_msg(config_load(&c, path, 0, NULL, err, sizeof err) == 0, "%s", err);
  replay *r = replay_create(&c.g, c.window, err, sizeof err);
  ck_assert_int_eq(replay_set_variants(r, c.variant, c.n_variants, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/replay.bin", run);
  ck_assert_msg(replay_load(r, path, err, sizeof err) == 0, "%s", err);
  replay_sample s[400];
  rng_t rng;
  rng_seed(&rng, 1, 0);
  ck_assert_int_eq(replay_sample_batch(r, &rng, s, 400), 0);
  int seen[2] = {0, 0};
  for (int i = 0; i < 400; i++) seen[s[i].variant]++;
  ck_assert_msg(seen[0] > 40 && seen[1] > 40, "variant samples %d and %d", seen[0], seen[1]);
  replay_free(r);
  /* It resumes; the same run with another set is refused. */
  char *more[] = {"run.iterations=3"};
  train_args b = {.run_dir = run, .n_over = 1, .over = more};
  ck_assert_msg(train_run(&b, err, sizeof err) == 0, "%s", err);
  char *other[] = {"game.variants=abapa; warri", "run.iterations=4"};
  train_args o = {.config_path = NULL, .run_dir = run, .n_over = 2, .over = other};
  ck_assert_int_eq(train_run(&o, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "game.variants"), "%s", err);
  remove_tree(scratch);
}
END_TEST

static Suite *variants_suite(void) {
  Suite *s = suite_create("variants");
  TCase *t = tcase_create("variants");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, rule_inputs_encode_the_options);
  tcase_add_test(t, every_game_encodes_its_rule_inputs);
  tcase_add_test(t, variant_sets_name_and_cover);
  tcase_add_test(t, config_variants_and_their_weights);
  tcase_add_test(t, config_variants_refused_with_the_culprit);
  tcase_add_test(t, a_full_set_of_variants);
  tcase_add_test(t, replay_files_keep_each_samples_variant);
  tcase_add_test(t, mixed_batches_evaluate_each_search_with_its_rules);
  tcase_add_test(t, mixed_batches_grow_the_trees_of_lone_searches);
  tcase_add_test(t, batch_variant_places_are_reused);
  tcase_add_test(t, a_network_plays_the_variants_of_its_set_only);
  tcase_add_test(t, a_tiny_run_trains_on_two_variants_and_resumes);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(variants_suite)

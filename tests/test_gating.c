/* Gating and anchor matches (trainer/gating.c): a network against itself
 * scores exactly half over paired colours and repeats for a seed; a network
 * taught to count seeds is promoted over an untrained one and the untrained
 * one is rejected against it; agents by spec: greedy beats random, a
 * deterministic agent against itself splits every pair, bad specs are
 * refused. The statistics themselves are test_ratings.c's. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/match.h"
#include "base/base.h"
#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "search/evaluator_nn.h"
#include "trainer/config.h"
#include "trainer/evaluate.h"
#include "trainer/gating.h"

static game G;

static void setup(void) {
  char err[256];
  ck_assert_int_eq(game_configure(&G, "oware", 0, NULL, err, sizeof err), 0);
}

static nn_net *small_net(uint64_t seed) { return game_net(&G, 32, seed); }

/* Paired games at a few simulations, SPRT of 0 against 35 Elo. */
static match_params gate_params(int games, uint64_t seed, int sprt) {
  match_params p = {.games = games,
                    .sims = 8,
                    .opening_plies = 4,
                    .seed = seed,
                    .sprt = sprt,
                    .elo0 = 0,
                    .elo1 = 35,
                    .alpha = 0.05,
                    .beta = 0.05};
  return p;
}

static match_result gate(const nn_net *cand, const nn_net *best, const match_params *p) {
  mcts_params search = mcts_defaults();
  search.node_cap = 4000;
  match_result r;
  char err[512];
  ck_assert_msg(gate_match(&G, cand, best, &search, p, &r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r.wins + r.draws + r.losses, r.games);
  return r;
}

/* ---- A network that counts seeds ---------------------------------------------------
 * Taught on positions of random games: the value is the mover's lead in
 * captured seeds (tanh of a sixth of it), the policy leans to the moves
 * that capture most. Searched, it takes captures and avoids giving them
 * away, which an untrained network does not. */
static nn_net *seed_counter(void) {
  enum { N = 4096, B = 128 };
  const int F = G.n_features, A = G.n_actions;
  float *x = malloc(sizeof(float) * N * F), *tp = calloc((size_t)N * A, sizeof(float));
  float *tv = malloc(sizeof(float) * N);
  uint32_t *legal = malloc(sizeof(uint32_t) * N);
  rng_t r;
  rng_seed(&r, 77, 0);
  game_pos p;
  game_start(&G, &p);
  for (int s = 0; s < N; s++) {
    if (p.status != GAME_ONGOING) game_start(&G, &p);
    game_encode(&G, &p, x + (size_t)s * F);
    game_moves m = game_legal(&G, &p);
    legal[s] = m;
    int me = p.mover;
    tv[s] = (float)tanh((p.store[me] - p.store[1 - me]) / 6.0);
    double sum = 0;
    for (game_moves k = m; k; k &= k - 1) {
      int a = __builtin_ctz(k);
      game_pos q = p;
      game_play(&G, &q, a);
      sum += tp[(size_t)s * A + a] = (float)exp(q.store[me] - p.store[me]);
    }
    for (int a = 0; a < A; a++) tp[(size_t)s * A + a] /= (float)sum;
    game_play(&G, &p, game_random_action(&r, m));
  }
  nn_net *n = small_net(9);
  char err[256];
  nn_train_params tpar = nn_train_defaults();
  nn_trainer *t = nn_trainer_create(n, &tpar, err, sizeof err);
  nn_ws *ws = nn_ws_create(n, B, err, sizeof err);
  ck_assert(t && ws);
  nn_losses L;
  for (int k = 0; k < 600; k++) {
    int off = (k * B) % N;
    nn_train_step(n, t, ws, x + (size_t)off * F, legal + off, tp + (size_t)off * A, tv + off, NULL,
                  B, 3e-3f, &L);
  }
  nn_ws_free(ws);
  nn_trainer_free(t);
  free(x), free(tp), free(tv), free(legal);
  return n;
}

/* ---- gate_match ---------------------------------------------------------------------- */

/* Without noise both sides play the same moves from the same position, so
 * each pair's games are one game with the colours swapped. */
START_TEST(net_against_itself_splits_every_pair) {
  nn_net *n = small_net(3);
  match_params p = gate_params(12, 5, 0);
  match_result a = gate(n, n, &p), b = gate(n, n, &p);
  ck_assert_int_eq(a.games, 12);
  ck_assert_int_eq(a.wins, a.losses);
  ck_assert_double_eq(a.score, 0.5);
  ck_assert_int_eq(a.sprt_verdict, 0);
  /* The same seed, the same games. */
  ck_assert_int_eq(b.wins, a.wins);
  ck_assert_int_eq(b.draws, a.draws);
  ck_assert_double_eq(b.llr, a.llr);
  /* An odd count is rounded up to whole pairs. */
  p.games = 5;
  ck_assert_int_eq(gate(n, n, &p).games, 6);
  nn_free(n);
}
END_TEST

/* Variants: pair k plays variant k mod n with both its games, searched and
 * played by that variant's rules. Variant 0 ends at its opening's last
 * ply, a draw (its stores are still empty); variant 1 is Oware. So each
 * variant-0 pair adds two draws; the network against itself splits every
 * pair (two draws, or a win and a loss), and two networks play Oware's
 * other pairs out (not all draws). */
START_TEST(each_pair_plays_its_variant) {
  char err[256];
  game v[2];
  char *instant[] = {"max_plies=4", "cycle_award=draw", "leftover=none"};
  ck_assert_int_eq(game_configure(&v[0], "oware", 3, instant, err, sizeof err), 0);
  ck_assert_int_eq(game_configure(&v[1], "oware", 0, NULL, err, sizeof err), 0);
  nn_net *n = small_net(3), *o = small_net(4);
  for (int pairs = 5; pairs <= 7; pairs += 2) {
    match_params p = gate_params(2 * pairs, 11, 0);
    p.variants = v;
    p.n_variants = 2;
    int instant_games = 2 * ((pairs + 1) / 2);
    match_result same = gate(n, n, &p), other = gate(n, o, &p);
    ck_assert_msg(same.draws >= instant_games && (same.draws - instant_games) % 2 == 0 &&
                      same.wins == same.losses,
                  "%d pairs against itself: %d wins, %d draws, %d losses", pairs, same.wins,
                  same.draws, same.losses);
    ck_assert_msg(other.draws >= instant_games && other.wins + other.losses > 0,
                  "%d pairs against another: %d wins, %d draws, %d losses", pairs, other.wins,
                  other.draws, other.losses);
  }
  nn_free(n);
  nn_free(o);
}
END_TEST

START_TEST(taught_net_promoted_untrained_rejected) {
  nn_net *taught = seed_counter(), *fresh = small_net(3);
  match_params p = gate_params(100, 11, 1);
  match_result up = gate(taught, fresh, &p), down = gate(fresh, taught, &p);
  fprintf(stderr, "gating: taught %d-%d-%d (%d games, llr %.2f), untrained %d-%d-%d (llr %.2f)\n",
          up.wins, up.draws, up.losses, up.games, up.llr, down.wins, down.draws, down.losses,
          down.llr);
  ck_assert_int_eq(up.sprt_verdict, 1);
  ck_assert_double_gt(up.score, 0.5);
  ck_assert_int_eq(down.sprt_verdict, -1);
  ck_assert_double_lt(down.score, 0.5);
  /* The SPRT stopped at its decision, before all the games. */
  ck_assert_int_lt(up.games, p.games);
  /* And the run acts on the verdicts: the better network in, the worse out. */
  ck_assert_int_eq(gate_promotes(&up, 1, 0.55), 1);
  ck_assert_int_eq(gate_promotes(&down, 1, 0.55), 0);
  nn_free(taught), nn_free(fresh);
}
END_TEST

/* The promotion rule on constructed results: the SPRT's verdict when it
 * decided, the threshold otherwise (and always in threshold mode). */
START_TEST(promotion_follows_the_verdict) {
  const struct {
    int verdict;
    double score;
    int sprt;
    double threshold;
    int promotes;
  } c[] = {
      {1, 0.40, 1, 0.55, 1},                         /* accepted H1: in, whatever the score */
      {-1, 0.70, 1, 0.55, 0},                        /* accepted H0: out, whatever the score */
      {0, 0.60, 1, 0.55, 1},                         /* undecided: the threshold */
      {0, 0.50, 1, 0.55, 0},  {0, 0.55, 1, 0.55, 1}, /* the threshold itself promotes */
      {-1, 0.70, 0, 0.55, 1},                        /* threshold mode ignores any verdict */
      {1, 0.40, 0, 0.55, 0},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    match_result m = {.sprt_verdict = c[i].verdict, .score = c[i].score};
    ck_assert_msg(gate_promotes(&m, c[i].sprt, c[i].threshold) == c[i].promotes, "case %zu", i);
  }
}
END_TEST

/* ---- match_specs ---------------------------------------------------------------------------- */

static match_result anchor(const char *a, const char *b, int games, uint64_t seed) {
  match_params p = {.games = games,
                    .opening_plies = 2,
                    .seed = seed,
                    .elo0 = 0,
                    .elo1 = 35,
                    .alpha = 0.05,
                    .beta = 0.05};
  match_result r;
  char err[512];
  ck_assert_msg(match_specs(&G, a, b, &p, &r, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(r.wins + r.draws + r.losses, r.games);
  return r;
}

START_TEST(greedy_beats_random) {
  int games = test_scale() < 1 ? 20 : 100;
  match_result r = anchor("greedy", "random", games, 3);
  match_result again = anchor("greedy", "random", games, 3);
  fprintf(stderr, "anchors: greedy-random %d-%d-%d\n", r.wins, r.draws, r.losses);
  ck_assert_int_eq(r.games, games);
  ck_assert_double_gt(r.score_lo, 0.7);
  ck_assert_double_gt(r.elo, 100);
  ck_assert_int_eq(again.wins, r.wins);
  ck_assert_int_eq(again.losses, r.losses);
  match_result back = anchor("random", "greedy", games, 3);
  ck_assert_double_lt(back.score_hi, 0.3);
}
END_TEST

/* A deterministic agent (alphabeta to a fixed depth; greedy breaks ties at
 * random) plays each pair's opening the same way from both seats: one win
 * and one loss, or two draws. */
START_TEST(deterministic_agent_splits_every_pair) {
  match_result r = anchor("alphabeta depth=2", "alphabeta depth=2", 10, 4);
  ck_assert_int_eq(r.games, 10);
  ck_assert_int_eq(r.wins, r.losses);
  ck_assert_double_eq(r.score, 0.5);
}
END_TEST

START_TEST(bad_specs_are_refused) {
  match_params p = {.games = 2, .opening_plies = 2, .seed = 1};
  match_result r;
  char err[512] = "";
  ck_assert_int_eq(match_specs(&G, "wizard", "random", &p, &r, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "unknown agent 'wizard'") != NULL, "%s", err);
  err[0] = 0;
  ck_assert_int_eq(match_specs(&G, "random", "greedy depth=3", &p, &r, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "agent greedy takes no settings") != NULL, "%s", err);
}
END_TEST

/* metrics.jsonl's "gating" member: the mode, and with gating on the
 * match's counts, score, Elo and llr; always whether it promoted. */
START_TEST(gating_line_says_what_was_decided) {
  static const struct {
    int mode, promoted;
    const char *want;
  } cases[] = {
      {GATE_OFF, 1, "{\"gating\": {\"mode\": \"off\", \"promoted\": true}}"},
      {GATE_THRESHOLD, 0,
       "{\"gating\": {\"mode\": \"threshold\", \"games\": 10, \"wins\": 3, \"draws\": 2, "
       "\"losses\": 5, \"score\": 0.4000, \"elo\": -70.4, \"llr\": -0.125, \"promoted\": false}}"},
      {GATE_SPRT, 1,
       "{\"gating\": {\"mode\": \"sprt\", \"games\": 10, \"wins\": 3, \"draws\": 2, "
       "\"losses\": 5, \"score\": 0.4000, \"elo\": -70.4, \"llr\": -0.125, \"promoted\": true}}"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gate_outcome g;
    memset(&g, 0, sizeof g);
    g.mode = cases[i].mode;
    g.promoted = cases[i].promoted;
    g.m = (match_result){.wins = 3, .draws = 2, .losses = 5, .games = 10, .llr = -0.125};
    match_summarize(&g.m);
    char out[1024];
    json_writer w;
    json_writer_init(&w, out, sizeof out);
    json_begin_object(&w, NULL);
    gate_json(&w, &g);
    json_end_object(&w);
    ck_assert_int_eq(json_writer_done(&w), 0);
    ck_assert_str_eq(out, cases[i].want);
  }
}
END_TEST

/* The periodic evaluation (trainer/evaluate.c): one progress line per
 * anchor, saying what its metrics member holds; without a listener the
 * same evaluation, silently. */
typedef struct {
  int n;
  char line[4][256];
} said;

static void hear(void *ctx, const char *line) {
  said *s = ctx;
  ck_assert_int_lt(s->n, 4);
  snprintf(s->line[s->n++], sizeof s->line[0], "%s", line);
}

START_TEST(evaluation_says_each_anchor_result) {
  char err[512], path[400], out[2][4096];
  char *over[] = {"eval.anchors=random;greedy", "eval.games=2", "eval.sims=2"};
  train_config c;
  ck_assert_msg(config_load(&c, "configs/tiny.ini", 3, over, err, sizeof err) == 0, "%s", err);
  nn_config nc = {c.g.n_features, 8, 1, c.g.n_actions};
  nn_net *net = nn_create(&nc, 5, err, sizeof err);
  nn_meta meta;
  ck_assert_int_eq(mcts_nn_meta(&c.g, &meta, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/sowzero-eval-%d.weights", test_tmp(), (int)getpid());
  ck_assert_msg(nn_save(net, &meta, path, err, sizeof err) == 0, "%s", err);
  said s = {0};
  for (int k = 0; k < 2; k++) {
    eval_job j = {&c, 3, path, net, NULL, k ? NULL : hear, &s};
    json_writer w;
    json_writer_init(&w, out[k], sizeof out[k]);
    json_begin_object(&w, NULL);
    ck_assert_msg(eval_run(&j, &w, err, sizeof err) == 0, "%s", err);
    json_end_object(&w);
    ck_assert_int_eq(json_writer_done(&w), 0);
  }
  ck_assert_str_eq(out[1], out[0]);
  ck_assert_int_eq(s.n, 2);
  json_doc *d = json_parse(out[0], err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  const char *anchors[2] = {"random", "greedy"};
  for (int i = 0; i < 2; i++) {
    int a = json_get(d, json_get(d, 0, "eval"), anchors[i]);
    double score, elo, games;
    ck_assert_int_eq(json_get_number(d, a, "score", &score), 0);
    ck_assert_int_eq(json_get_number(d, a, "elo", &elo), 0);
    ck_assert_int_eq(json_get_number(d, a, "games", &games), 0);
    char want[256];
    snprintf(want, sizeof want, "  best vs %s: %.1f%% (%+.0f Elo, %d games)", anchors[i],
             100 * score, elo, (int)games);
    ck_assert_str_eq(s.line[i], want);
  }
  json_free(d);
  remove(path);
  nn_free(net);
}
END_TEST

static Suite *gating_suite(void) {
  Suite *s = suite_create("gating");
  TCase *g =
      add_tests(s, "gate", 300,
                (const TTest *[]){net_against_itself_splits_every_pair, each_pair_plays_its_variant,
                                  taught_net_promoted_untrained_rejected,
                                  promotion_follows_the_verdict, NULL});
  tcase_add_checked_fixture(g, setup, NULL);
  TCase *a = add_tests(s, "anchors", 300,
                       (const TTest *[]){greedy_beats_random, deterministic_agent_splits_every_pair,
                                         bad_specs_are_refused, gating_line_says_what_was_decided,
                                         evaluation_says_each_anchor_result, NULL});
  tcase_add_checked_fixture(a, setup, NULL);
  return s;
}

TEST_MAIN(gating_suite)

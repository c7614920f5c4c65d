/* The skeleton of the game suites: see tests/gametest.h. */
#include "tests/gametest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testkit.h"

game G;

/* The suite under test: set by game_suite before the runner starts, so
 * every test (in a forked child or not) sees it. */
static const game_spec *S;

/* ---- Positions ---------------------------------------------------------------------- */

int split_tokens(char *s, const char *sep, char **argv, int max) {
  int argc = 0;
  for (char *save, *t = strtok_r(s, sep, &save); t && argc < max; t = strtok_r(NULL, sep, &save))
    argv[argc++] = t;
  return argc;
}

/* game_configure of name with the settings of one string. */
static int configure_str(game *g, const char *name, const char *settings, char *err,
                         size_t errlen) {
  char buf[256], *argv[16];
  snprintf(buf, sizeof buf, "%s", settings ? settings : "");
  int argc = split_tokens(buf, " ", argv, 16);
  return game_configure(g, name, argc, argv, err, errlen);
}

void configure_game(const char *name, const char *settings) {
  char err[256];
  int rc = configure_str(&G, name, settings, err, sizeof err);
  ck_assert_msg(rc == 0, "configure %s %s: %s", name, settings ? settings : "", err);
}

void configure(const char *settings) { configure_game(S->game, settings); }

void configure_fails(const char *settings, const char *want) {
  game g;
  char err[256] = "";
  ck_assert_msg(configure_str(&g, S->game, settings, err, sizeof err) == -1,
                "configure %s accepted %s", S->game, settings);
  ck_assert_str_eq(err, want);
}

int setboard_str(game_pos *p, const char *tokens, char *err, size_t errlen) {
  char buf[1024], *argv[64];
  snprintf(buf, sizeof buf, "%s", tokens);
  int argc = split_tokens(buf, " ", argv, 64);
  return G.rules->setboard(&G, p, argc, argv, err, errlen);
}

game_pos pos(const char *tokens) {
  char err[256];
  game_pos p;
  int rc = setboard_str(&p, tokens, err, sizeof err);
  ck_assert_msg(rc == 0, "setboard %s: %s", tokens, err);
  return p;
}

game_pos start_pos(void) {
  game_pos p;
  game_start(&G, &p);
  return p;
}

void setboard_fails(const char *tokens, const char *want) {
  char err[256] = "";
  game_pos p;
  ck_assert_msg(setboard_str(&p, tokens, err, sizeof err) == -1, "setboard accepted %s", tokens);
  ck_assert_str_eq(err, want);
}

int board_seeds(const game_pos *p) {
  int total = p->store[0] + p->store[1];
  for (int i = 0; i < G.n_pits; i++) total += p->pits[i];
  return total;
}

/* ---- Moves and boards --------------------------------------------------------------- */

void expect_board(const game_pos *p, const char *want) {
  char got[256], norm[256], buf[256], *tok[64];
  size_t k = 0;
  for (int i = 0; i < G.n_pits + 2; i++)
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%d", i ? " " : "",
                          i < G.n_pits ? p->pits[i] : p->store[i - G.n_pits]);
  snprintf(buf, sizeof buf, "%s", want);
  int n = split_tokens(buf, " ", tok, 64);
  k = 0;
  norm[0] = 0;
  for (int i = 0; i < n; i++)
    k += (size_t)snprintf(norm + k, sizeof norm - k, "%s%s", i ? " " : "", tok[i]);
  ck_assert_msg(strcmp(got, norm) == 0, "board %s, expected %s", got, norm);
}

void expect_tokens(const game_pos *p, const char *want) {
  char buf[512];
  ck_assert_int_eq(G.rules->board_tokens(&G, p, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, want);
  /* Into a buffer of each size: refused until the text and its end fit,
   * and never a byte written past the buffer. */
  size_t n = strlen(want);
  for (size_t len = 1; len <= n + 1; len++) {
    memset(buf, '#', sizeof buf);
    int rc = G.rules->board_tokens(&G, p, buf, len);
    ck_assert_msg(rc == (len == n + 1 ? 0 : -1), "%zu bytes for %zu characters: %d", len, n, rc);
    for (size_t i = len; i < sizeof buf; i++)
      ck_assert_msg(buf[i] == '#', "%zu bytes: byte %zu written", len, i);
  }
  ck_assert_str_eq(buf, want);
}

void expect_tokens_round_trip(const game_pos *p) {
  char buf[512], line[600];
  ck_assert_int_eq(G.rules->board_tokens(&G, p, buf, sizeof buf), 0);
  snprintf(line, sizeof line, "%d %s", p->mover, buf);
  game_pos q = pos(line);
  ck_assert_msg(memcmp(q.pits, p->pits, sizeof q.pits) == 0, "pits of %s", line);
  ck_assert_int_eq(q.store[0], p->store[0]);
  ck_assert_int_eq(q.store[1], p->store[1]);
  ck_assert_uint_eq(q.owner, p->owner);
  ck_assert_int_eq(q.round, p->round);
  ck_assert_int_eq(q.phase, p->phase);
  ck_assert_int_eq(q.mover, p->mover);
  ck_assert_int_eq(q.aux[0], p->aux[0]);
  ck_assert_msg(q.hash == p->hash, "hash of %s", line);
}

void random_round_trips(uint64_t seed, int plies) {
  rng_t r;
  rng_seed(&r, seed, 0);
  game_pos p = start_pos();
  for (int i = 0; i < plies && p.status == GAME_ONGOING; i++) {
    expect_tokens_round_trip(&p);
    game_play(&G, &p, game_random_action(&r, game_legal(&G, &p)));
  }
}

int play_legal(game_pos *p, int a) {
  ck_assert_msg(game_legal(&G, p) >> a & 1, "action %d is not legal (legal %x)", a,
                game_legal(&G, p));
  return game_play(&G, p, a);
}

void play_first(game_pos *p, int n) {
  for (int i = 0; i < n; i++) {
    game_moves m = game_legal(&G, p);
    ck_assert_msg(m != 0, "no legal move at ply %d", p->ply);
    play_legal(p, __builtin_ctz(m));
  }
}

game_pos play_expect(const char *tokens, int a, const char *board, int *flags) {
  game_pos p = tokens ? pos(tokens) : start_pos();
  int f = play_legal(&p, a);
  expect_board(&p, board);
  if (flags) *flags = f;
  return p;
}

void expect_end(const game_pos *p, int reason, int final0, int final1, int winner) {
  ck_assert_int_eq(p->status, GAME_OVER);
  if (reason >= 0)
    ck_assert_msg(p->end_reason == reason, "ended by %s, expected %s", game_end_name(p->end_reason),
                  game_end_name(reason));
  if (final0 >= 0) ck_assert_int_eq(p->final[0], final0);
  if (final1 >= 0) ck_assert_int_eq(p->final[1], final1);
  if (winner >= 0) ck_assert_int_eq(p->winner, winner);
}

void expect_target_ends(const char *tokens, int action, int final0, int final1, int store) {
  configure(NULL);
  game_pos p = pos(tokens);
  play_legal(&p, action);
  expect_end(&p, GAME_END_TARGET, final0, final1,
             final0 > final1   ? GAME_SOUTH
             : final0 < final1 ? GAME_NORTH
                               : GAME_DRAW);
  configure("target=0");
  p = pos(tokens);
  int me = p.mover;
  play_legal(&p, action);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_int_eq(p.store[me], store);
}

/* ---- Encoding ----------------------------------------------------------------------- */

void expect_mirror_encoding(const game_pos *a, const game_pos *b, int n_features,
                            const feature_value *want) {
  float fa[GAME_MAX_FEATURES], fb[GAME_MAX_FEATURES];
  ck_assert_int_eq(G.n_features, n_features);
  /* The encoding writes its n_features and nothing after them (callers
   * pack positions side by side). */
  for (int i = 0; i < GAME_MAX_FEATURES; i++) fa[i] = fb[i] = -7.0f;
  game_encode(&G, a, fa);
  game_encode(&G, b, fb);
  for (int i = 0; i < G.n_features; i++) ck_assert_msg(fa[i] == fb[i], "feature %d", i);
  for (int i = G.n_features; i < GAME_MAX_FEATURES; i++)
    ck_assert_msg(fa[i] == -7.0f && fb[i] == -7.0f,
                  "the encoding wrote past its %d features, at %d", G.n_features, i);
  for (int i = 0; i < 4 && want[i].index >= 0; i++)
    ck_assert_msg(fa[want[i].index] == want[i].value, "feature %d is %g, expected %g",
                  want[i].index, fa[want[i].index], want[i].value);
}

/* ---- Perft -------------------------------------------------------------------------- */

uint64_t perft(const game_pos *p, int depth) {
  if (p->status != GAME_ONGOING) return 0;
  if (depth == 0) return 1;
  uint64_t n = 0;
  for (game_moves r = game_legal(&G, p); r; r &= r - 1) {
    game_pos q = *p;
    game_play(&G, &q, __builtin_ctz(r));
    n += perft(&q, depth - 1);
  }
  return n;
}

static uint64_t perft_hist_from(const game_pos *p, const game_hist *h, int depth) {
  if (p->status != GAME_ONGOING) return 0;
  if (depth == 0) return 1;
  uint64_t n = 0;
  game_hist *hc = malloc(sizeof *hc);
  for (game_moves r = game_legal(&G, p); r; r &= r - 1) {
    game_pos q = *p;
    game_hist_copy(hc, h);
    game_step(&G, &q, hc, __builtin_ctz(r));
    n += perft_hist_from(&q, hc, depth - 1);
  }
  free(hc);
  return n;
}

uint64_t perft_hist(const game_pos *p, int depth) {
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, p);
  uint64_t n = perft_hist_from(p, h, depth);
  free(h);
  return n;
}

/* ---- Random games ------------------------------------------------------------------- */

void random_games(const random_run *run) {
  long ends[GAME_END_COUNT] = {0}, games = (long)(run->games * test_scale());
  rng_t r;
  rng_seed(&r, run->seed, run->stream);
  game_hist *h = malloc(sizeof *h);
  for (long k = 0; k < games; k++) {
    game_pos p = start_pos();
    game_hist_reset(h, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = game_legal(&G, &p);
      CHECK(m != 0, "ongoing game without a legal move");
      int mover = p.mover;
      int flags = game_step(&G, &p, h, game_random_action(&r, m));
      if (run->seeds)
        CHECK(board_seeds(&p) == run->seeds, "seeds not conserved: %d", board_seeds(&p));
      CHECK(p.ply <= run->max_ply, "game longer than %d plies", run->max_ply);
      if (run->check_move) run->check_move(&p, flags, mover);
    }
    ends[p.end_reason]++;
    if (run->finals)
      CHECK(p.final[0] + p.final[1] == run->finals, "final %d-%d", p.final[0], p.final[1]);
    CHECK(p.winner == GAME_DRAW || game_outcome(&p, p.winner) == 1, "winner");
    if (run->check_game) run->check_game(&p);
  }
  free(h);
  for (int i = 0; i < 4 && run->common_ends[i] && games >= 10000; i++)
    ck_assert_msg(ends[run->common_ends[i]] > 0, "no game ended by %s",
                  game_end_name(run->common_ends[i]));
}

/* ---- A second implementation -------------------------------------------------------- */

void reference_games(const char *settings, long games, uint64_t seed, const reference_impl *ref,
                     reference_tally *out) {
  configure(settings);
  int truncate = settings && strstr(settings, "endless_move=truncate") != NULL;
  reference_tally t = {0, {0}};
  games = (long)(games * test_scale());
  rng_t r;
  rng_seed(&r, seed, 0);
  game_hist *h = malloc(sizeof *h);
  for (long k = 0; k < games; k++) {
    game_pos p = start_pos();
    game_hist_reset(h, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = game_legal(&G, &p), want;
      if (ref->legal(&p, truncate, &want, &t.endless))
        CHECK(m == want, "legal %x, reference %x", m, want);
      int a = game_random_action(&r, m);
      game_pos before = p;
      game_step(&G, &p, h, a);
      ref->check_move(&before, a, &p, truncate);
    }
    t.ends[p.end_reason]++;
  }
  free(h);
  if (out) *out = t;
}

/* ---- The shared tests --------------------------------------------------------------- */

/* Random games meet endless moves (and the ending asked for) only in the
 * long runs. */
START_TEST(engine_matches_reference) {
  reference_tally t;
  reference_games(NULL, S->reference.games, 5, S->reference.impl, &t);
  if (test_scale() >= 1.0) {
    ck_assert_int_gt(t.endless, 0);
    if (S->reference.end)
      ck_assert_msg(t.ends[S->reference.end] > 0, "no game ended by %s",
                    game_end_name(S->reference.end));
  }
}
END_TEST

START_TEST(engine_matches_reference_truncate) {
  reference_games("endless_move=truncate", S->reference.games, 6, S->reference.impl, NULL);
}
END_TEST

START_TEST(perft_goldens) {
  const perft_case *c = &S->perft[_i];
  configure(c->settings);
  game_pos p = c->tokens ? pos(c->tokens) : start_pos();
  int depth = test_scale() < 1.0 ? c->scaled_depth : c->depth;
  for (int d = 1; d <= depth; d++) {
    uint64_t got = c->hist ? perft_hist(&p, d) : perft(&p, d);
    ck_assert_msg(got == c->golden[d - 1], "perft %s depth %d: %llu, golden %llu", c->what, d,
                  (unsigned long long)got, (unsigned long long)c->golden[d - 1]);
  }
}
END_TEST

START_TEST(stress) {
  configure(S->stress[_i].settings);
  random_games(&S->stress[_i].run);
}
END_TEST

START_TEST(setboard_and_tokens) {
  configure(NULL);
  for (const setboard_refusal *b = S->refusals; b && b->tokens; b++)
    setboard_fails(b->tokens, b->error);
  game_pos p = start_pos();
  expect_tokens(&p, S->start_tokens);
  random_round_trips(3, 300);
  for (const render_case *rc = S->renders; rc && rc->text; rc++) {
    char buf[2048];
    p = rc->tokens ? pos(rc->tokens) : start_pos();
    game_render(&G, &p, buf, sizeof buf);
    ck_assert_msg(strstr(buf, rc->text) != NULL, "'%s' not in %s", rc->text, buf);
  }
  /* Front ends print drawings as they come: each ends its last line. */
  char buf[2048];
  p = start_pos();
  game_render(&G, &p, buf, sizeof buf);
  size_t n = strlen(buf);
  ck_assert_msg(n > 0 && buf[n - 1] == '\n', "the drawing's last line is not ended:\n%s", buf);
}
END_TEST

START_TEST(encode_is_from_movers_view) {
  configure(NULL);
  game_pos a = pos(S->encode.a), b = pos(S->encode.b);
  expect_mirror_encoding(&a, &b, S->encode.n_features, S->encode.want);
}
END_TEST

/* Over the positions of random games, each feature is finite and no
 * feature that varies copies another: an input computed from the wrong
 * pit or the wrong count would. */
START_TEST(features_are_distinct) {
  enum { MAX_POS = 3000 };
  configure(NULL);
  int nf = G.n_features, n = 0;
  float *f = malloc(sizeof *f * (size_t)MAX_POS * (size_t)nf);
  ck_assert_ptr_nonnull(f);
  rng_t r;
  rng_seed(&r, 31, 0);
  while (n < MAX_POS) {
    game_pos p = start_pos();
    for (int ply = 0; ply < 400 && p.status == GAME_ONGOING && n < MAX_POS; ply++) {
      game_encode(&G, &p, f + (size_t)n++ * (size_t)nf);
      game_play(&G, &p, game_random_action(&r, game_legal(&G, &p)));
    }
  }
  for (int k = 0; k < n * nf; k++) ck_assert_msg(isfinite(f[k]), "feature %d not finite", k % nf);
  for (int i = 0; i < nf; i++) {
    int varies = 0;
    for (int k = 1; k < n && !varies; k++) varies = f[(size_t)k * nf + i] != f[i];
    if (!varies) continue;
    for (int j = i + 1; j < nf; j++) {
      int same = 1;
      for (int k = 0; k < n && same; k++) same = f[(size_t)k * nf + i] == f[(size_t)k * nf + j];
      ck_assert_msg(!same, "features %d and %d are equal in all %d positions", i, j, n);
    }
  }
  free(f);
}
END_TEST

/* ---- The suite ---------------------------------------------------------------------- */

Suite *game_suite(const game_spec *spec, const game_tests *t) {
  S = spec;
  Suite *s = suite_create(spec->suite);
  add_tests(s, "worked examples", 0, t->examples);
  add_tests(s, "rules", 0, t->rules);
  TCase *rf = add_tests(s, "reference", 120, t->reference);
  if (spec->reference.impl) {
    tcase_add_test(rf, engine_matches_reference);
    tcase_add_test(rf, engine_matches_reference_truncate);
  }
  TCase *pf = add_tests(s, "perft", 300, t->perft);
  tcase_add_loop_test(pf, perft_goldens, 0, spec->n_perft);
  TCase *st = add_tests(s, "stress", 300, (const TTest *[]){NULL});
  tcase_add_loop_test(st, stress, 0, spec->n_stress);
  TCase *ot = add_tests(s, "other", 0, t->other);
  tcase_add_test(ot, setboard_and_tokens);
  if (spec->encode.a) tcase_add_test(ot, encode_is_from_movers_view);
  tcase_add_test(ot, features_are_distinct);
  return s;
}

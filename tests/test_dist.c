/* The learner's intake of a distributed run without MPI
 * (dist_learner_ingest): scripted actors' games, each saying which
 * network version played it, against a learner at a known version. The
 * "dist" member must report the lag of each game as the learner's version
 * less the game's, and count every game and sample of the rank that sent
 * it; a message that does not fit its header is refused by name. The
 * network the learner sends arrives whole. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "tests/testkit.h"
#include "trainer/config.h"
#include "trainer/dist_learner.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"

typedef struct {
  train_config c;
  replay *buf;
  selfplay_counters counters;
  uint32_t promotions;
  dist_learner_env env;
} intake;

static void intake_open(intake *in) {
  char err[1024];
  ck_assert_msg(config_load(&in->c, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  in->c.record_every = 0;
  in->buf = replay_create(&in->c.g, 4096, err, sizeof err);
  ck_assert_msg(in->buf, "%s", err);
  memset(&in->counters, 0, sizeof in->counters);
  in->promotions = 0;
  in->env = (dist_learner_env){
      .c = &in->c, .buf = in->buf, .counters = &in->counters, .promotions = &in->promotions};
}

/* Appends one game of n samples (the first n positions of a random game)
 * played by network `version`, as an actor sends it. */
static size_t add_game(unsigned char *out, size_t at, const game *g, rng_t *rng, uint32_t version,
                       int n) {
  replay_sample s[8];
  ck_assert_int_le(n, 8);
  game_pos p;
  game_start(g, &p);
  float pi[GAME_MAX_ACTIONS];
  for (int k = 0; k < n; k++) {
    memset(&s[k], 0, sizeof s[k]);
    s[k].pos = p;
    game_moves m = game_legal(g, &p);
    for (int a = 0; a < g->n_actions; a++) pi[a] = (float)(m >> a & 1);
    replay_set_policy(&s[k], pi, g->n_actions);
    if (p.status == GAME_ONGOING) game_play(g, &p, game_random_action(rng, m));
  }
  /* The actor's work since its last game, distinct per kind. */
  dist_game_msg h = {.version = version,
                     .n = (uint32_t)n,
                     .final = p,
                     .evals = 3u * (uint64_t)n,
                     .eval_calls = (uint64_t)n,
                     .search_ns = 1000u * (uint64_t)n,
                     .net_ns = 700u * (uint64_t)n};
  memcpy(out + at, &h, sizeof h);
  memcpy(out + at + sizeof h, s, sizeof s[0] * (size_t)n);
  return at + sizeof h + sizeof s[0] * (size_t)n;
}

static double member(json_doc *d, int obj, const char *key) {
  double v;
  ck_assert_msg(json_get_number(d, obj, key, &v) == 0, "no number %s", key);
  return v;
}

/* Random scripts: the learner promotes between batches, the actors' games
 * come from networks up to many versions old (and, from a stale clock, one
 * the learner has not reached: no lag). Each batch's member holds exactly
 * the lag of its own games. */
START_TEST(the_lag_is_the_learners_version_less_the_games) {
  intake in;
  intake_open(&in);
  rng_t rng;
  rng_seed(&rng, 7, 0x6c6167ULL);
  size_t cap = 64 * (sizeof(dist_game_msg) + 8 * sizeof(replay_sample));
  unsigned char *msgs = malloc(cap);
  ck_assert_ptr_nonnull(msgs);
  for (int round = 0; round < 40; round++) {
    in.promotions += rng_below(&rng, 4);
    int games = 1 + (int)rng_below(&rng, 12);
    size_t total = 0;
    uint64_t lag_sum = 0, lag_max = 0, newest = 0, samples = 0;
    for (int i = 0; i < games; i++) {
      uint32_t v = rng_below(&rng, in.promotions + 2);
      int n = 1 + (int)rng_below(&rng, 8);
      total = add_game(msgs, total, &in.c.g, &rng, v, n);
      uint64_t lag = v < in.promotions ? in.promotions - v : 0;
      lag_sum += lag;
      if (lag > lag_max) lag_max = lag;
      if (v > newest) newest = v;
      samples += (uint64_t)n;
    }
    char out[1024], err[1024];
    json_writer w;
    json_writer_init(&w, out, sizeof out);
    json_begin_object(&w, NULL);
    ck_assert_msg(dist_learner_ingest(&in.env, msgs, total, &w, err, sizeof err) == 0, "%s", err);
    json_end_object(&w);
    ck_assert_int_eq(json_writer_done(&w), 0);
    json_doc *d = json_parse(out, err, sizeof err);
    ck_assert_msg(d, "%s: %s", err, out);
    int dist = json_get(d, 0, "dist");
    ck_assert_int_ge(dist, 0);
    ck_assert_msg(member(d, dist, "version") == in.promotions, "%s", out);
    ck_assert_msg(member(d, dist, "lag_max") == (double)lag_max, "round %d: lag max %llu: %s",
                  round, (unsigned long long)lag_max, out);
    ck_assert_msg(fabs(member(d, dist, "lag_mean") - (double)lag_sum / games) < 6e-4,
                  "round %d: lag mean %g: %s", round, (double)lag_sum / games, out);
    ck_assert_msg(member(d, dist, "game_version_max") == (double)newest, "%s", out);
    int by = json_get(d, dist, "games_by_rank"), sb = json_get(d, dist, "samples_by_rank");
    ck_assert_int_ge(by, 0);
    ck_assert_int_ge(sb, 0);
    int r0 = json_first(d, by), s0 = json_first(d, sb);
    ck_assert_msg(json_number(d, r0) == 0 && json_number(d, json_next(d, r0)) == games, "%s", out);
    ck_assert_msg(json_number(d, s0) == 0 && json_number(d, json_next(d, s0)) == (double)samples,
                  "%s", out);
    json_free(d);
  }
  replay_stats st;
  replay_get_stats(in.buf, &st);
  ck_assert_int_gt(st.count, 0);
  /* The actors' work counts on the learner, each kind in its counter
   * (their time shares in the metrics come from these). */
  const uint64_t n = (uint64_t)st.added;
  ck_assert_uint_eq(atomic_load(&in.counters.evals), 3 * n);
  ck_assert_uint_eq(atomic_load(&in.counters.eval_calls), n);
  ck_assert_uint_eq(atomic_load(&in.counters.search_ns), 1000 * n);
  ck_assert_uint_eq(atomic_load(&in.counters.net_ns), 700 * n);
  free(msgs);
  replay_free(in.buf);
}
END_TEST

/* A message whose header promises more than follows, or a variant the run
 * does not have, is refused with the rank that sent it. */
START_TEST(a_bad_game_message_names_its_rank) {
  intake in;
  intake_open(&in);
  rng_t rng;
  rng_seed(&rng, 3, 1);
  unsigned char msgs[sizeof(dist_game_msg) + 8 * sizeof(replay_sample)];
  size_t total = add_game(msgs, 0, &in.c.g, &rng, 0, 3);
  char err[1024] = "";
  ck_assert_int_eq(dist_learner_ingest(&in.env, msgs, total - 1, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "rank 1") && strstr(err, "wrong size"), "%s", err);
  dist_game_msg h;
  memcpy(&h, msgs, sizeof h);
  h.variant = (uint32_t)in.c.n_variants;
  memcpy(msgs, &h, sizeof h);
  err[0] = 0;
  ck_assert_int_eq(dist_learner_ingest(&in.env, msgs, total, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "rank 1") && strstr(err, "variant"), "%s", err);
  replay_free(in.buf);
}
END_TEST

/* The network an actor takes from the learner is the learner's, every
 * parameter and the version; a message of another shape is refused and
 * leaves the actor's network as it was. */
START_TEST(a_network_message_carries_every_parameter) {
  char err[256] = "";
  nn_config c = {40, 24, 1, 6}, other = {40, 16, 1, 6};
  nn_net *sent = nn_create(&c, 11, err, sizeof err), *got = nn_create(&c, 12, err, sizeof err);
  nn_net *small = nn_create(&other, 13, err, sizeof err);
  ck_assert_msg(sent && got && small, "%s", err);
  size_t np = nn_param_count(sent), len;
  ck_assert_int_ne(memcmp(nn_params(sent), nn_params(got), np * sizeof(float)), 0);
  unsigned char *m = dist_net_pack(sent, 7, &len);
  ck_assert_ptr_nonnull(m);
  uint32_t version = 0;
  ck_assert_int_eq(dist_net_unpack(got, m, len, &version, err, sizeof err), 0);
  ck_assert_uint_eq(version, 7);
  ck_assert_mem_eq(nn_params(got), nn_params(sent), np * sizeof(float));
  /* Another shape, or the same cut short: refused, the network unchanged. */
  size_t small_np = nn_param_count(small);
  float *before = malloc(small_np * sizeof(float));
  memcpy(before, nn_params(small), small_np * sizeof(float));
  ck_assert_int_eq(dist_net_unpack(small, m, len, &version, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "parameters"), "%s", err);
  ck_assert_int_eq(dist_net_unpack(got, m, len - 1, &version, err, sizeof err), -1);
  ck_assert_int_eq(dist_net_unpack(got, m, 3, &version, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "short"), "%s", err);
  ck_assert_mem_eq(nn_params(small), before, small_np * sizeof(float));
  free(before);
  free(m);
  nn_free(sent);
  nn_free(got);
  nn_free(small);
}
END_TEST

/* The start message carries the learner's config whole and the run's
 * iteration; a learner that failed is told apart from a message cut
 * short, one whose text runs to its end without a NUL, or one whose text
 * is not a config. Each cut message is copied to a buffer of its own
 * length, so that a read past it shows under AddressSanitizer. */
START_TEST(a_start_message_carries_the_config) {
  char err[1200] = "";
  train_config c, got;
  ck_assert_msg(config_load(&c, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  c.hidden = 40, c.seed = 99;
  size_t len = 0;
  unsigned char *m = dist_start_pack(&c, 12, &len);
  ck_assert_ptr_nonnull(m);
  uint32_t it = 0;
  ck_assert_msg(dist_start_unpack(m, len, &it, &got, err, sizeof err) == 0, "%s", err);
  ck_assert_uint_eq(it, 12);
  config_diff d;
  ck_assert_msg(!config_compare(&c, &got, &d), "%s: %s against %s", d.key, d.a, d.b);
  for (size_t k = 0; k < len; k++) {
    unsigned char *cut = malloc(k ? k : 1);
    memcpy(cut, m, k);
    it = 5;
    ck_assert_int_eq(dist_start_unpack(cut, k, &it, &got, err, sizeof err), -1);
    ck_assert_msg(strstr(err, k < 8 ? "short" : "not one string"), "%zu bytes: %s", k, err);
    ck_assert_uint_eq(it, 5);
    free(cut);
  }
  /* A text that is not a config names the problem. */
  unsigned char bad[8 + 16] = {1, 0, 0, 0, 3, 0, 0, 0};
  memcpy(bad + 8, "[network]\nx = 1", 16);
  bad[sizeof bad - 1] = 0;
  ck_assert_int_eq(dist_start_unpack(bad, sizeof bad, &it, &got, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "the learner's config") && strstr(err, "unknown key"), "%s", err);
  /* A learner that failed. */
  m[0] = 0;
  ck_assert_int_eq(dist_start_unpack(m, 8, &it, &got, err, sizeof err), 1);
  ck_assert_str_eq(err, "the learner (rank 0) did not start");
  free(m);
}
END_TEST

static Suite *dist_suite(void) {
  Suite *s = suite_create("dist");
  add_tests(s, "intake", 60,
            (const TTest *const[]){the_lag_is_the_learners_version_less_the_games,
                                   a_bad_game_message_names_its_rank, NULL});
  add_tests(s, "network", 60,
            (const TTest *const[]){a_network_message_carries_every_parameter,
                                   a_start_message_carries_the_config, NULL});
  return s;
}

TEST_MAIN(dist_suite)

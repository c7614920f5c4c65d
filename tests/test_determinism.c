/* Deterministic runs (run.deterministic = 1): two runs of one config, seed
 * and thread count leave the same files byte for byte, but for the fields
 * that measure time (metrics' time_min, speed and time_share; the
 * checkpoint's elapsed time and CPU-time counters, and so its checksum);
 * another seed gives other weights, so the comparison cannot pass by a run
 * doing nothing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/config.h"
#include "trainer/counters.h"
#include "trainer/train.h"

/* configs/tiny.ini made smaller still: two short iterations. */
static const char *const base_over[] = {"run.deterministic=1",
                                        "run.iterations=2",
                                        "search.sims=12",
                                        "selfplay.games_per_thread=16",
                                        "selfplay.record_every=1",
                                        "replay.min_samples=256",
                                        "learner.batch=64",
                                        "learner.warmup_steps=5",
                                        "learner.steps_per_iter=20",
                                        "gating.games=6",
                                        "gating.sims=8"};
enum { N_BASE = sizeof base_over / sizeof base_over[0] };

/* Trains into scratch/NAME with the base overrides, the thread count,
 * selfplay.learner_plays and the seed. The time budget is never reached, but short enough that a
 * clock leaking into a decision (the learning rate, say) changes bits of
 * the weights; under the sanitizers, runs are slower and it is long. */
static void train_into(const char *scratch, const char *name, int threads, int lp, int seed,
                       char *dir, size_t len) {
  char th[64], sd[64], pl[64], err[1024];
  char *over[N_BASE + 4];
  for (int i = 0; i < N_BASE; i++) over[i] = (char *)base_over[i];
  snprintf(th, sizeof th, "selfplay.threads=%d", threads);
  snprintf(sd, sizeof sd, "run.seed=%d", seed);
  over[N_BASE] = th;
  over[N_BASE + 1] = sd;
  over[N_BASE + 2] = test_scale() < 1 ? "run.minutes=60" : "run.minutes=1";
  snprintf(pl, sizeof pl, "selfplay.learner_plays=%d", lp);
  over[N_BASE + 3] = pl;
  snprintf(dir, len, "%s/%s", scratch, name);
  train_args a = {
      .config_path = "configs/tiny.ini", .run_dir = dir, .n_over = N_BASE + 4, .over = over};
  ck_assert_msg(train_run(&a, err, sizeof err) == 0, "%s: %s", dir, err);
}

/* The whole of DIR/NAME (malloc'd; *len its size). */
static unsigned char *slurp(const char *dir, const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s is missing", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  ck_assert(b != NULL && fread(b, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  b[n] = 0;
  *len = (size_t)n;
  return b;
}

/* Blanks the time fields of a checkpoint: the run counters are the last
 * RUN_COUNTERS_BYTES before the 8-byte checksum (docs/FORMATS.md), with
 * the elapsed time at 12..19 and the CPU-time counters at 64..95. */
static void blank_checkpoint_times(unsigned char *b, size_t len) {
  ck_assert_uint_gt(len, RUN_COUNTERS_BYTES + 16);
  unsigned char *blob = b + len - 8 - RUN_COUNTERS_BYTES;
  ck_assert_uint_eq(get_u64le(blob - 8), RUN_COUNTERS_BYTES);
  memset(blob + 12, 0, 8);
  memset(blob + 64, 0, 32);
  memset(b + len - 8, 0, 8);
}

/* Cuts `"key": VALUE, ` out of every metrics line (VALUE a number or an
 * object). */
static void drop_metric(char *text, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  for (char *at; (at = strstr(text, pat));) {
    char *end = at + strlen(pat);
    if (*end == '{') { /* an object, nested ones included */
      int depth = 0;
      do depth += (*end == '{') - (*end == '}');
      while (*++end && depth > 0);
    } else {
      end += strcspn(end, ",}");
    }
    if (end[0] == ',' && end[1] == ' ') end += 2;
    memmove(at, end, strlen(end) + 1);
  }
}

static int count_lines(const char *text) {
  int n = 0;
  for (; *text; text++) n += *text == '\n';
  return n;
}

/* Each metrics line of text gives every part of the run a share of its
 * time: each iteration self-played, trained and gated. */
static void every_part_takes_time(const char *text) {
  static const char *const parts[] = {"network", "search", "learner", "gating"};
  for (const char *line = text; *line;) {
    size_t len = strcspn(line, "\n");
    char *copy = strndup(line, len), err[256];
    json_doc *d = json_parse(copy, err, sizeof err);
    ck_assert_msg(d != NULL, "%s: %s", err, copy);
    int share = json_get(d, 0, "time_share");
    for (int i = 0; i < 4; i++) {
      double v = -1;
      ck_assert_int_eq(json_get_number(d, share, parts[i], &v), 0);
      ck_assert_msg(v > 0 && v < 1, "%s's time share %g: %s", parts[i], v, copy);
    }
    json_free(d);
    free(copy);
    line += len + (line[len] == '\n');
  }
}

/* The files of two runs agree byte for byte, time fields aside. */
static void assert_same_runs(const char *a, const char *b) {
  static const char *const exact[] = {
      "best.weights",          "candidate.weights",     "replay.bin",
      "games/iter-000001.txt", "games/iter-000002.txt", NULL};
  for (int i = 0; exact[i]; i++) {
    size_t la, lb;
    unsigned char *x = slurp(a, exact[i], &la), *y = slurp(b, exact[i], &lb);
    ck_assert_msg(la == lb && memcmp(x, y, la) == 0, "%s differs between %s and %s", exact[i], a,
                  b);
    free(x);
    free(y);
  }
  size_t la, lb;
  unsigned char *x = slurp(a, "checkpoint/learner.ckpt", &la);
  unsigned char *y = slurp(b, "checkpoint/learner.ckpt", &lb);
  ck_assert_uint_eq(la, lb);
  blank_checkpoint_times(x, la);
  blank_checkpoint_times(y, lb);
  ck_assert_msg(memcmp(x, y, la) == 0, "the checkpoints differ beyond their time fields");
  free(x);
  free(y);
  char *m = (char *)slurp(a, "metrics.jsonl", &la), *n = (char *)slurp(b, "metrics.jsonl", &lb);
  /* precision = auto in a deterministic run: the fixed ranking, no timing. */
  ck_assert_ptr_nonnull(strstr(m, "\"setting\": \"auto\", \"measured\": 0"));
  every_part_takes_time(m);
  /* Time, and the machine the run saw (its "system" record names the threads). */
  static const char *const times[] = {"time_min", "speed", "time_share", "system"};
  for (int i = 0; i < 4; i++) {
    drop_metric(m, times[i]);
    drop_metric(n, times[i]);
  }
  ck_assert_int_eq(count_lines(m), 2);
  ck_assert_ptr_null(strstr(m, "time"));
  ck_assert_str_eq(m, n);
  free(m);
  free(n);
}

/* Two runs with these worker threads and learner_plays of each. */
static void same_runs(int threads_a, int lp_a, int threads_b, int lp_b) {
  char scratch[256], a[300], b[300];
  scratch_dir(scratch, sizeof scratch, "determ");
  train_into(scratch, "a", threads_a, lp_a, 7, a, sizeof a);
  train_into(scratch, "b", threads_b, lp_b, 7, b, sizeof b);
  assert_same_runs(a, b);
  remove_tree(scratch);
}

START_TEST(one_thread_twice_gives_the_same_run) { same_runs(1, 0, 1, 0); }
END_TEST

START_TEST(two_threads_twice_give_the_same_run) { same_runs(2, 0, 2, 0); }
END_TEST

/* The learner's hosted worker is the same worker as a thread's: one
 * thread and the learner's worker make the run of two threads. */
START_TEST(the_learners_worker_counts_as_a_thread) {
  same_runs(1, 1, 2, 0);
  same_runs(1, 1, 1, 1);
}
END_TEST

START_TEST(another_seed_gives_other_weights) {
  char scratch[256], a[300], b[300];
  scratch_dir(scratch, sizeof scratch, "determ");
  train_into(scratch, "a", 1, 1, 7, a, sizeof a);
  train_into(scratch, "b", 1, 1, 8, b, sizeof b);
  static const char *const files[] = {"best.weights", "candidate.weights", "replay.bin", NULL};
  for (int i = 0; files[i]; i++) {
    size_t la, lb;
    unsigned char *x = slurp(a, files[i], &la), *y = slurp(b, files[i], &lb);
    ck_assert_msg(la != lb || memcmp(x, y, la) != 0, "%s is the same with seeds 7 and 8", files[i]);
    free(x);
    free(y);
  }
  /* And the run trained: its candidate is not the untrained network. */
  char err[1024], fresh[400];
  train_config c;
  char *over[N_BASE + 1];
  for (int i = 0; i < N_BASE; i++) over[i] = (char *)base_over[i];
  over[N_BASE] = "selfplay.threads=1"; /* deterministic: a number, not auto */
  ck_assert_msg(config_load(&c, "configs/tiny.ini", N_BASE + 1, over, err, sizeof err) == 0, "%s",
                err);
  nn_config nc = {c.g.n_features, c.hidden, c.blocks, c.g.n_actions};
  nn_net *net = nn_create(&nc, 7, err, sizeof err);
  nn_meta meta;
  ck_assert_int_eq(mcts_nn_meta(&c.g, &meta, err, sizeof err), 0);
  snprintf(fresh, sizeof fresh, "%s/untrained.weights", scratch);
  ck_assert_int_eq(nn_save(net, &meta, fresh, err, sizeof err), 0);
  nn_free(net);
  size_t la, lb;
  unsigned char *x = slurp(a, "candidate.weights", &la),
                *y = slurp(scratch, "untrained.weights", &lb);
  ck_assert_uint_eq(la, lb);
  ck_assert_msg(memcmp(x, y, la) != 0, "the candidate is the untrained network");
  free(x);
  free(y);
  remove_tree(scratch);
}
END_TEST

static Suite *determinism_suite(void) {
  Suite *s = suite_create("determinism");
  add_tests(s, "runs", 300,
            (const TTest *[]){
                one_thread_twice_gives_the_same_run, two_threads_twice_give_the_same_run,
                the_learners_worker_counts_as_a_thread, another_seed_gives_other_weights, NULL});
  return s;
}

TEST_MAIN(determinism_suite)

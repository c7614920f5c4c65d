/* base: the worker pool (every job once, on one thread or several, errors
 * stop it and are reported) and JSON (escaping, and the reader on valid
 * and malformed lines). */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "base/pool.h"
#include "tests/testutil.h"

/* ---- Pool --------------------------------------------------------------------------------- */

#define JOBS 2000
#define MAX_WORKERS 16

typedef struct {
  int threads;
  atomic_int runs[JOBS];
  atomic_int started[MAX_WORKERS], finished[MAX_WORKERS], jobs_of[MAX_WORKERS];
  atomic_int max_job, bad_worker, on_caller;
  int fail_job;    /* this job fails; -1 none */
  int fail_start;  /* this worker's start fails; -1 none */
  pthread_t caller;
} tally;

static int t_start(void *ctx, int worker, char *err, size_t errlen) {
  tally *t = ctx;
  if (worker < 0 || worker >= t->threads) atomic_store(&t->bad_worker, 1);
  atomic_fetch_add(&t->started[worker], 1);
  if (worker == 0 && pthread_equal(pthread_self(), t->caller)) atomic_store(&t->on_caller, 1);
  if (worker == t->fail_start) {
    errf(err, errlen, "worker %d cannot start", worker);
    return -1;
  }
  return 0;
}

static int t_run(void *ctx, int worker, int job, char *err, size_t errlen) {
  tally *t = ctx;
  if (worker < 0 || worker >= t->threads) atomic_store(&t->bad_worker, 1);
  atomic_fetch_add(&t->runs[job], 1);
  atomic_fetch_add(&t->jobs_of[worker], 1);
  int m = atomic_load(&t->max_job);
  while (job > m && !atomic_compare_exchange_weak(&t->max_job, &m, job)) {
  }
  if (job == t->fail_job) {
    errf(err, errlen, "job %d failed", job);
    return -1;
  }
  return 0;
}

static void t_finish(void *ctx, int worker) {
  tally *t = ctx;
  atomic_fetch_add(&t->finished[worker], 1);
}

static tally *new_tally(int threads) {
  tally *t = calloc(1, sizeof *t);
  t->threads = threads;
  t->fail_job = -1;
  t->fail_start = -1;
  t->max_job = -1;
  t->caller = pthread_self();
  return t;
}

START_TEST(pool_runs_every_job_once) {
  static const int threads[] = {1, 2, 3, 8};
  for (int k = 0; k < 4; k++) {
    tally *t = new_tally(threads[k]);
    pool_work w = {t_start, t_run, t_finish, t};
    char err[128] = "";
    ck_assert_int_eq(pool_run(threads[k], JOBS, &w, err, sizeof err), 0);
    int total = 0;
    for (int j = 0; j < JOBS; j++) ck_assert_int_eq(t->runs[j], 1);
    for (int i = 0; i < threads[k]; i++) {
      /* Every worker starts and finishes once, whatever it ran. */
      ck_assert_int_eq(t->started[i], 1);
      ck_assert_int_eq(t->finished[i], 1);
      total += t->jobs_of[i];
    }
    ck_assert_int_eq(total, JOBS);
    ck_assert_int_eq(t->bad_worker, 0);
    ck_assert_int_eq(t->on_caller, 1); /* worker 0 is the calling thread */
    free(t);
  }
  /* One thread runs the jobs in order on the caller. */
  tally *t = new_tally(1);
  pool_work w = {t_start, t_run, t_finish, t};
  char err[128];
  ck_assert_int_eq(pool_run(1, 5, &w, err, sizeof err), 0);
  ck_assert_int_eq(t->jobs_of[0], 5);
  free(t);
  /* No jobs: the workers still start and finish; start and finish may be
   * left out. */
  t = new_tally(3);
  w = (pool_work){t_start, t_run, t_finish, t};
  ck_assert_int_eq(pool_run(3, 0, &w, err, sizeof err), 0);
  ck_assert_int_eq(t->started[2], 1);
  ck_assert_int_eq(t->finished[2], 1);
  w = (pool_work){NULL, t_run, NULL, t};
  ck_assert_int_eq(pool_run(3, 10, &w, err, sizeof err), 0);
  for (int j = 0; j < 10; j++) ck_assert_int_eq(t->runs[j], 1);
  free(t);
}
END_TEST

START_TEST(pool_stops_at_the_first_error) {
  static const int threads[] = {1, 2, 4};
  for (int k = 0; k < 3; k++) {
    tally *t = new_tally(threads[k]);
    t->fail_job = 37;
    pool_work w = {t_start, t_run, t_finish, t};
    char err[128] = "";
    ck_assert_int_eq(pool_run(threads[k], JOBS, &w, err, sizeof err), -1);
    ck_assert_str_eq(err, "job 37 failed");
    /* Job numbers go out in order and none after the failure, so at most
     * one job per other worker runs past it. */
    ck_assert_int_le(t->max_job, 37 + threads[k] - 1);
    ck_assert_int_eq(t->runs[37], 1);
    for (int j = 0; j < JOBS; j++) ck_assert_int_le(t->runs[j], 1);
    if (threads[k] == 1) ck_assert_int_eq(t->max_job, 37);
    for (int i = 0; i < threads[k]; i++) ck_assert_int_eq(t->finished[i], 1);
    free(t);
  }
  /* A worker that cannot start stops the pool too; every started worker
   * is finished. */
  tally *t = new_tally(3);
  t->fail_start = 1;
  pool_work w = {t_start, t_run, t_finish, t};
  char err[128] = "";
  ck_assert_int_eq(pool_run(3, JOBS, &w, err, sizeof err), -1);
  ck_assert_str_eq(err, "worker 1 cannot start");
  ck_assert_int_eq(t->jobs_of[1], 0);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(t->finished[i], 1);
  free(t);
  /* Requests out of range. */
  w.ctx = new_tally(1);
  ck_assert_int_eq(pool_run(0, 10, &w, err, sizeof err), -1);
  ck_assert_int_eq(pool_run(1, -1, &w, err, sizeof err), -1);
  free(w.ctx);
}
END_TEST

/* ---- JSON: writing ------------------------------------------------------------------------- */

/* json_fput_string's text, to compare with json_quote's. */
static char *fput_text(const char *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  json_fput_string(f, s);
  fclose(f);
  return text;
}

static void check_quote(const char *s, const char *want) {
  char buf[256];
  size_t n = json_quote(buf, sizeof buf, s);
  ck_assert_str_eq(buf, want);
  ck_assert_uint_eq(n, strlen(want));
  char *f = fput_text(s);
  ck_assert_str_eq(f, want);
  free(f);
}

START_TEST(json_escaping) {
  check_quote("plain", "\"plain\"");
  check_quote("", "\"\"");
  check_quote("say \"hi\"", "\"say \\\"hi\\\"\"");
  check_quote("C:\\runs\\a", "\"C:\\\\runs\\\\a\"");
  check_quote("a\nb\tc\rd", "\"a\\u000ab\\u0009c\\u000dd\"");
  check_quote("\x01\x1f end", "\"\\u0001\\u001f end\"");
  check_quote("\x7f", "\"\x7f\""); /* DEL is not a control character in JSON */
  /* UTF-8 passes through byte for byte. */
  check_quote("Bao la Kujifunza \xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8e\xb2",
              "\"Bao la Kujifunza \xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8e\xb2\"");
  /* snprintf's contract: the length it needs, a cut text always ended. */
  char small[6];
  ck_assert_uint_eq(json_quote(small, sizeof small, "a\"bcdef"), 10);
  ck_assert_str_eq(small, "\"a\\\"b");
  ck_assert_uint_eq(json_quote(small, 1, "abc"), 5);
  ck_assert_str_eq(small, "");
  ck_assert_uint_eq(json_quote(NULL, 0, "abc"), 5);
  /* Every byte survives a trip through the reader. */
  char all[256], line[2048];
  for (int i = 1; i < 256; i++) all[i - 1] = (char)i;
  all[255] = 0;
  size_t k = (size_t)snprintf(line, sizeof line, "{\"s\": ");
  k += json_quote(line + k, sizeof line - k, all);
  snprintf(line + k, sizeof line - k, "}\n");
  char err[128];
  json_doc *d = json_parse(line, err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  ck_assert_str_eq(json_get_string(d, 0, "s"), all);
  json_free(d);
}
END_TEST

/* ---- JSON: reading ------------------------------------------------------------------------- */

START_TEST(json_reads_metrics_lines) {
  const char *line =
      "{\"iteration\": 12, \"time_min\": 3.250, \"steps\": 4800, \"lr\": 1.5e-3, "
      "\"loss\": {\"total\": 2.12345, \"policy\": 1.5, \"value\": -0.25}, "
      "\"gating\": null, \"promoted\": true, \"sprt\": false, "
      "\"eval\": {\"random\": {\"score\": 0.9, \"elo\": 381.7}, "
      "\"alphabeta \\\"depth\\\"=4\": {\"score\": 0.4, \"elo\": -70.4}}, "
      "\"list\": [1, [2, 3], {\"x\": \"\\u00e9\\ud83c\\udfb2\\n\"}, []], \"empty\": {}}\r\n";
  char err[128];
  json_doc *d = json_parse(line, err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  ck_assert_int_eq(json_type_of(d, 0), JSON_OBJECT);
  double v;
  ck_assert_int_eq(json_get_number(d, 0, "iteration", &v), 0);
  ck_assert_double_eq(v, 12);
  ck_assert_int_eq(json_get_number(d, 0, "lr", &v), 0);
  ck_assert_double_eq(v, 1.5e-3);
  int loss = json_get(d, 0, "loss");
  ck_assert_int_eq(json_type_of(d, loss), JSON_OBJECT);
  ck_assert_int_eq(json_get_number(d, loss, "value", &v), 0);
  ck_assert_double_eq(v, -0.25);
  /* Nested keys are found only in their own object. */
  ck_assert_int_eq(json_get_number(d, 0, "total", &v), -1);
  ck_assert_int_eq(json_type_of(d, json_get(d, 0, "gating")), JSON_NULL);
  ck_assert_int_eq(json_get_number(d, 0, "gating", &v), -1);
  ck_assert_int_eq(json_type_of(d, json_get(d, 0, "promoted")), JSON_BOOL);
  ck_assert_double_eq(json_number(d, json_get(d, 0, "promoted")), 1);
  ck_assert_double_eq(json_number(d, json_get(d, 0, "sprt")), 0);
  ck_assert_int_eq(json_get(d, 0, "missing"), -1);
  ck_assert_ptr_null(json_get_string(d, 0, "steps"));
  /* Members in order, with their keys unescaped. */
  int ev = json_get(d, 0, "eval"), c = json_first(d, ev);
  ck_assert_str_eq(json_key(d, c), "random");
  c = json_next(d, c);
  ck_assert_str_eq(json_key(d, c), "alphabeta \"depth\"=4");
  ck_assert_int_eq(json_get_number(d, c, "elo", &v), 0);
  ck_assert_double_eq(v, -70.4);
  ck_assert_int_eq(json_next(d, c), -1);
  /* Arrays: elements in order, nested ones skipped over as a whole. */
  int list = json_get(d, 0, "list"), n = 0;
  ck_assert_int_eq(json_type_of(d, list), JSON_ARRAY);
  for (int e = json_first(d, list); e >= 0; e = json_next(d, e)) {
    ck_assert_ptr_null(json_key(d, e));
    if (n == 2) ck_assert_str_eq(json_get_string(d, e, "x"), "\xc3\xa9\xf0\x9f\x8e\xb2\n");
    if (n == 3) ck_assert_int_eq(json_first(d, e), -1);
    n++;
  }
  ck_assert_int_eq(n, 4);
  ck_assert_int_eq(json_first(d, json_get(d, 0, "empty")), -1);
  ck_assert_int_eq(json_first(d, json_get(d, 0, "steps")), -1);
  json_free(d);
  /* Any value may be the whole text; the last of repeated keys counts. */
  d = json_parse(" -0.5e+2 ", err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  ck_assert_double_eq(json_number(d, 0), -50);
  json_free(d);
  d = json_parse("{\"a\": 1, \"a\": 2}", err, sizeof err);
  ck_assert_int_eq(json_get_number(d, 0, "a", &v), 0);
  ck_assert_double_eq(v, 2);
  json_free(d);
}
END_TEST

START_TEST(json_rejects_malformed_lines) {
  static const struct {
    const char *text, *why;
  } bad[] = {
      {"", "expected a value"},
      {"   \n", "expected a value"},
      {"{", "expected a key"},
      {"{\"a\": }", "expected a value"},
      {"{\"a\" 1}", "expected ':'"},
      {"{'a': 1}", "expected a key"},
      {"{\"a\": 1,}", "expected a key"},
      {"{\"a\": 1 \"b\": 2}", "expected ',' or '}'"},
      {"[1, 2", "expected ',' or ']'"},
      {"[1,]", "expected a value"},
      {"{\"a\": 01}", "expected ',' or '}'"}, /* a 0, then a stray 1 */
      {"{\"a\": 1.}", "bad number"},
      {"{\"a\": -}", "bad number"},
      {"{\"a\": 1e}", "bad number"},
      {"{\"a\": .5}", "expected a value"},
      {"{\"a\": tru}", "unknown word"},
      {"{\"a\": nul}", "unknown word"},
      {"{\"a\": 1} x", "text after the value"},
      {"{\"a\": 1}{}", "text after the value"},
      {"{\"a\": \"b}", "unterminated string"},
      {"{\"a\": \"\\x\"}", "bad escape"},
      {"{\"a\": \"\\u12g4\"}", "bad \\u escape"},
      {"{\"a\": \"\\ud800\"}", "high surrogate"},
      {"{\"a\": \"\\udc00\"}", "lone low surrogate"},
      {"{\"a\": \"tab\there\"}", "control character"},
      {"{\"a\": NaN}", "expected a value"},
  };
  char err[128];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    json_doc *d = json_parse(bad[i].text, err, sizeof err);
    ck_assert_msg(d == NULL, "accepted '%s'", bad[i].text);
    ck_assert_msg(strstr(err, "column ") == err, "'%s': %s", bad[i].text, err);
    ck_assert_msg(strstr(err, bad[i].why) != NULL, "'%s': %s", bad[i].text, err);
  }
  /* Columns count from 1. */
  ck_assert_ptr_null(json_parse("{\"a\": x}", err, sizeof err));
  ck_assert_str_eq(err, "column 7: expected a value");
  /* Nesting up to JSON_MAX_DEPTH, not beyond. */
  char deep[2 * JSON_MAX_DEPTH + 4];
  for (int depth = JSON_MAX_DEPTH; depth <= JSON_MAX_DEPTH + 1; depth++) {
    memset(deep, '[', (size_t)depth);
    memset(deep + depth, ']', (size_t)depth);
    deep[2 * depth] = 0;
    json_doc *d = json_parse(deep, err, sizeof err);
    if (depth == JSON_MAX_DEPTH) {
      ck_assert_msg(d != NULL, "%s", err);
      json_free(d);
    } else {
      ck_assert_ptr_null(d);
      ck_assert_ptr_nonnull(strstr(err, "nested too deeply"));
    }
  }
  /* err may be NULL. */
  ck_assert_ptr_null(json_parse("{", NULL, 0));
}
END_TEST

static Suite *base_suite(void) {
  Suite *s = suite_create("base");
  TCase *t = tcase_create("pool");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, pool_runs_every_job_once);
  tcase_add_test(t, pool_stops_at_the_first_error);
  suite_add_tcase(s, t);
  TCase *j = tcase_create("json");
  tcase_add_test(j, json_escaping);
  tcase_add_test(j, json_reads_metrics_lines);
  tcase_add_test(j, json_rejects_malformed_lines);
  suite_add_tcase(s, j);
  return s;
}

TEST_MAIN(base_suite)

/* base: the worker pool (every job once, on one thread or several, errors
 * stop it and are reported), JSON (escaping, and the reader on valid
 * and malformed lines) and atomic files (only regular files are written;
 * temporaries are told apart from anything else). */
#include <check.h>
#include <limits.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "base/json.h"
#include "base/pool.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

/* ---- Pool --------------------------------------------------------------------------------- */

#define JOBS        2000
#define MAX_WORKERS 16

typedef struct {
  int threads;
  atomic_int runs[JOBS];
  atomic_int started[MAX_WORKERS], finished[MAX_WORKERS], jobs_of[MAX_WORKERS];
  atomic_int max_job, bad_worker, on_caller;
  int fail_job;   /* this job fails; -1 none */
  int fail_start; /* this worker's start fails; -1 none */
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
  while (job > m && !atomic_compare_exchange_weak(&t->max_job, &m, job)) {}
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
  /* A request for no threads is refused by name. */
  ck_assert_int_eq(pool_run(0, 10, &w, err, sizeof err), -1);
  ck_assert_str_eq(err, "bad pool request: 0 threads, 10 jobs");
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
    /* Job numbers go out in order, each once, and the failure stops the
     * handing out: the jobs that ran are a prefix, and far from all of them
     * (other workers may still take a few while job 37 fails). */
    ck_assert_int_lt(t->max_job, JOBS / 2);
    for (int j = 0; j < JOBS; j++) ck_assert_int_eq(t->runs[j], j <= t->max_job);
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

/* text_escape over 2000 random texts built from pieces whose escape is
 * known (printable ASCII, well-formed UTF-8 of 2 to 4 bytes, controls,
 * bytes that can start no character whatever follows), each text in the
 * middle of a larger buffer: the escape is the pieces' escapes in order;
 * a buffer too small cuts it between pieces, never inside one. */
/* Ill-formed UTF-8 is escaped byte by byte: overlong forms (2, 3 and 4
 * bytes), surrogates, code points above U+10FFFF, a lead byte cut short;
 * their well-formed neighbours are kept. */
START_TEST(text_escape_ill_formed_utf8) {
  static const char *const cases[][2] = {
      {"\xc1\xbf", "\\xc1\\xbf"},
      {"\xe0\x80\x80", "\\xe0\\x80\\x80"},
      {"\xe0\xa0\x80", "\xe0\xa0\x80"},
      {"\xed\xa0\x80", "\\xed\\xa0\\x80"},
      {"\xed\x9f\xbf", "\xed\x9f\xbf"},
      {"\xf0\x80\x80\x80", "\\xf0\\x80\\x80\\x80"},
      {"\xf0\x90\x80\x80", "\xf0\x90\x80\x80"},
      {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},
      {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},
      {"\xe6\x97", "\\xe6\\x97"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char got[64];
    ck_assert_str_eq(text_escape(got, sizeof got, cases[i][0], strlen(cases[i][0])), cases[i][1]);
  }
}
END_TEST

START_TEST(text_escape_property) {
  static const char *const in[] = {
      "a",    "~",    " ",    "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x8e\xb2", "\n", "\t", "\x01",
      "\x7f", "\x80", "\xc0", "\xf5",     "\xff"};
  static const char *const out[] = {
      "a",     "~",    " ",     "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x8e\xb2",
      "\\n",   "\\t",  "\\x01", "\\x7f",    "\\x80",        "\\xc0",
      "\\xf5", "\\xff"};
  const int kinds = (int)(sizeof in / sizeof in[0]);
  rng_t r;
  rng_seed(&r, 11, 0);
  for (int t = 0; t < 2000; t++) {
    char src[256], want[1024], got[1024];
    size_t at[64], n = 0, w = 0;
    memset(src, 'Z', 64); /* what lies before the text must not leak into it */
    int pieces = 1 + (int)rng_below(&r, 12);
    for (int i = 0; i < pieces; i++) {
      int k = (int)rng_below(&r, (uint32_t)kinds);
      memcpy(src + 64 + n, in[k], strlen(in[k]));
      n += strlen(in[k]);
      w += (size_t)snprintf(want + w, sizeof want - w, "%s", out[k]);
      at[i] = w;
    }
    ck_assert_str_eq(text_escape(got, sizeof got, src + 64, n), want);
    /* Cut short: the longest whole prefix of pieces that fits. */
    size_t cap = 1 + rng_below(&r, (uint32_t)w + 1), keep = 0;
    for (int i = 0; i < pieces && at[i] < cap; i++) keep = at[i];
    text_escape(got, cap, src + 64, n);
    ck_assert_uint_eq(strlen(got), keep);
    ck_assert_int_eq(memcmp(got, want, keep), 0);
  }
}
END_TEST

/* The writer: nesting, keys escaped, member lists, cut buffers, and a text
 * the reader takes back whole. */
START_TEST(json_writer_builds_texts) {
  char buf[512];
  json_writer w;
  json_writer_init(&w, buf, sizeof buf);
  json_begin_object(&w, NULL);
  json_put_int(&w, "iteration", -12);
  json_put_uint(&w, "games", 18446744073709551615ULL);
  json_put_fixed(&w, "score", 0.123456, 4);
  json_put_real(&w, "lr", 1.5e-3, 6);
  json_put_fixed(&w, "nan", NAN, 2);
  json_put_bool(&w, "promoted", 1);
  json_put_null(&w, "gating");
  json_begin_object(&w, "alphabeta \"depth\"=4");
  json_put_string(&w, "s", "a\nb");
  json_end_object(&w);
  json_begin_array(&w, "list");
  json_put_int(&w, NULL, 1);
  json_begin_array(&w, NULL);
  json_end_array(&w);
  json_put_raw(&w, NULL, "{\"x\": 2}");
  json_end_array(&w);
  json_end_object(&w);
  ck_assert_int_eq(json_writer_done(&w), 0);
  ck_assert_str_eq(buf,
                   "{\"iteration\": -12, \"games\": 18446744073709551615, \"score\": 0.1235, "
                   "\"lr\": 0.0015, \"nan\": null, \"promoted\": true, \"gating\": null, "
                   "\"alphabeta \\\"depth\\\"=4\": {\"s\": \"a\\u000ab\"}, "
                   "\"list\": [1, [], {\"x\": 2}]}");
  char err[128];
  json_doc *d = json_parse(buf, err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  ck_assert_str_eq(json_get_string(d, json_get(d, 0, "alphabeta \"depth\"=4"), "s"), "a\nb");
  json_free(d);

  /* A member list, as bench figures and metrics fragments are written. */
  json_writer_init(&w, buf, sizeof buf);
  json_put_int(&w, "seeds", 20);
  json_put_raw(&w, NULL, "\"a\": 1, \"b\": 2");
  json_begin_object(&w, "egdb");
  json_end_object(&w);
  ck_assert_int_eq(json_writer_done(&w), 0);
  ck_assert_str_eq(buf, "\"seeds\": 20, \"a\": 1, \"b\": 2, \"egdb\": {}");

  /* Lines: a break replaces the space after a comma, or comes first in an
   * empty level, or before its closing bracket; one break is used once. */
  json_writer_init(&w, buf, sizeof buf);
  json_begin_object(&w, NULL);
  json_break(&w, "\n  ");
  json_put_int(&w, "a", 1);
  json_put_int(&w, "b", 2);
  json_break(&w, " \n  ");
  json_begin_array(&w, "c");
  json_break(&w, "\n    ");
  json_put_int(&w, NULL, 3);
  json_break(&w, "\n  ");
  json_end_array(&w);
  json_begin_array(&w, "d");
  json_break(&w, "\n    ");
  json_break(&w, "\n  ");
  json_end_array(&w);
  json_break(&w, "\n");
  json_end_object(&w);
  ck_assert_int_eq(json_writer_done(&w), 0);
  ck_assert_str_eq(buf, "{\n  \"a\": 1, \"b\": 2, \n  \"c\": [\n    3\n  ], \"d\": [\n  ]\n}");
  d = json_parse(buf, err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  json_free(d);

  /* One item a line for a whole level, a break still first; the level
   * inside has its own layout, and the lines end with their level. */
  json_writer_init(&w, buf, sizeof buf);
  json_begin_object(&w, NULL);
  json_lines(&w, "\n  ", "\n");
  json_put_int(&w, "a", 1);
  json_begin_array(&w, "b");
  json_put_int(&w, NULL, 2);
  json_put_int(&w, NULL, 3);
  json_end_array(&w);
  json_break(&w, " \n  ");
  json_put_int(&w, "c", 4);
  json_end_object(&w);
  json_put_int(&w, NULL, 5);
  ck_assert_str_eq(buf, "{\n  \"a\": 1,\n  \"b\": [2, 3], \n  \"c\": 4\n}, 5");

  /* A cut text is ended, counted and reported; so is unbalanced nesting. */
  char small[8];
  json_writer_init(&w, small, sizeof small);
  json_put_string(&w, "key", "value");
  ck_assert_str_eq(small, "\"key\": ");
  ck_assert_uint_eq(w.len, strlen("\"key\": \"value\""));
  ck_assert_int_eq(json_writer_done(&w), -1);
  json_writer_init(&w, buf, sizeof buf);
  json_begin_array(&w, NULL);
  ck_assert_int_eq(json_writer_done(&w), -1);
  json_writer_init(&w, buf, sizeof buf);
  json_end_object(&w);
  ck_assert_int_eq(json_writer_done(&w), -1);
  json_writer_init(&w, buf, sizeof buf);
  for (int i = 0; i <= JSON_MAX_DEPTH; i++) json_begin_array(&w, NULL);
  ck_assert_int_eq(json_writer_done(&w), -1);

  /* The stream form writes the same text. */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  json_writer_init_file(&w, f);
  json_begin_object(&w, NULL);
  json_put_string(&w, "k", "\x01");
  json_end_object(&w);
  ck_assert_int_eq(json_writer_done(&w), 0);
  fclose(f);
  ck_assert_str_eq(text, "{\"k\": \"\\u0001\"}");
  free(text);
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

/* ---- Atomic files ------------------------------------------------------------------------ */

static char adir[64], aout[64]; /* the directory written in, and one outside it */

static void afile_setup(void) {
  snprintf(adir, sizeof adir, "%s/sowzero-afile-XXXXXX", test_tmp());
  snprintf(aout, sizeof aout, "%s/sowzero-afile-out-XXXXXX", test_tmp());
  ck_assert_ptr_nonnull(mkdtemp(adir));
  ck_assert_ptr_nonnull(mkdtemp(aout));
}

static void afile_teardown(void) {
  remove_tree(adir);
  remove_tree(aout);
}

static const char *in_adir(const char *name) {
  static char path[4][256];
  static int k;
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/%s", adir, name);
  return path[k];
}

static int entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* afile_write(path) is refused with "PATH: not a regular file (KIND); left
 * as it is", and afile_open creates nothing either. */
static void refused(const char *path, const char *kind) {
  char err[512] = "", want[512];
  snprintf(want, sizeof want, "%s: not a regular file (%s); left as it is", path, kind);
  ck_assert_int_eq(afile_write(path, "new\n", 4, err, sizeof err), -1);
  ck_assert_str_eq(err, want);
  afile a;
  ck_assert_int_eq(afile_open(&a, path, err, sizeof err), -1);
  ck_assert_str_eq(err, want);
}

START_TEST(afile_writes_regular_files_only) {
  char target[128], absent[128], buf[256];
  struct stat st;
  /* A symbolic link to a file outside: neither the link nor its target
   * changes, and a dangling link does not create its target. */
  snprintf(target, sizeof target, "%s/target.txt", aout);
  snprintf(absent, sizeof absent, "%s/absent.txt", aout);
  put_file(target, "keep\n");
  ck_assert_int_eq(symlink(target, in_adir("link")), 0);
  ck_assert_int_eq(symlink(absent, in_adir("dangling")), 0);
  refused(in_adir("link"), "a symbolic link");
  refused(in_adir("dangling"), "a symbolic link");
  ck_assert_str_eq(content(target), "keep\n");
  ck_assert_int_ne(lstat(absent, &st), 0);
  ssize_t n = readlink(in_adir("link"), buf, sizeof buf - 1);
  ck_assert_int_gt(n, 0);
  buf[n] = 0;
  ck_assert_str_eq(buf, target);
  /* A FIFO (nothing blocks: it is never opened), a directory. */
  ck_assert_int_eq(mkfifo(in_adir("fifo"), 0644), 0);
  refused(in_adir("fifo"), "a FIFO");
  ck_assert_int_eq(lstat(in_adir("fifo"), &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  ck_assert_int_eq(mkdir(in_adir("sub"), 0755), 0);
  refused(in_adir("sub"), "a directory");
  /* Devices: /dev/null itself, and (when allowed to make one) a copy of
   * it in the directory. */
  refused("/dev/null", "a character device");
  ck_assert_int_eq(lstat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  int made = mknod(in_adir("null"), S_IFCHR | 0666, makedev(1, 3)) == 0;
  if (made) {
    refused(in_adir("null"), "a character device");
    ck_assert_int_eq(lstat(in_adir("null"), &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
  }
  /* Nothing else appeared: no temporaries, no files. */
  ck_assert_int_eq(entries(adir), 4 + made);
  ck_assert_int_eq(entries(aout), 1);
  /* A regular file is replaced as before. */
  put_file(in_adir("plain"), "old\n");
  char err[512];
  ck_assert_msg(afile_write(in_adir("plain"), "new\n", 4, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(content(in_adir("plain")), "new\n");
  ck_assert_int_eq(entries(adir), 5 + made);
}
END_TEST

START_TEST(afile_temporaries_are_told_apart) {
  char err[512], name[128];
  long pid;
  /* The temporary's name: NAME.tmp.sowzero.PID beside the file. */
  afile a;
  ck_assert_msg(afile_open(&a, in_adir("f.bin"), err, sizeof err) == 0, "%s", err);
  snprintf(name, sizeof name, "f.bin.tmp.sowzero.%ld", (long)getpid());
  ck_assert_str_eq(a.tmp, in_adir(name));
  ck_assert_int_eq(afile_is_temporary(name, &pid), 1);
  ck_assert_int_eq(pid, (long)getpid());
  static const char *const not_ours[] = {
      "f.bin.tmp.123",   "f.bin.tmp.sowzero.", ".tmp.sowzero.12",           "f.tmp.sowzero.12a",
      "f.tmp.sowzero.0", "f.tmp.sowzero.-3",   "f.tmp.sowzero.12345678901", "notes.txt"};
  for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++)
    ck_assert_msg(!afile_is_temporary(not_ours[i], &pid), "%s taken for a temporary", not_ours[i]);

  /* A process that is gone, for leftovers. */
  pid_t dead = fork();
  ck_assert_int_ge(dead, 0);
  if (dead == 0) _exit(0);
  waitpid(dead, NULL, 0);
  char old[64], live[64], mine[64], sym[64], fifo[64], target[128];
  snprintf(old, sizeof old, "old.bin.tmp.sowzero.%d", (int)dead);
  snprintf(live, sizeof live, "live.bin.tmp.sowzero.%d", (int)getppid());
  snprintf(mine, sizeof mine, "mine.bin.tmp.sowzero.%d", (int)getpid());
  snprintf(sym, sizeof sym, "sym.tmp.sowzero.%d", (int)dead);
  snprintf(fifo, sizeof fifo, "fifo.tmp.sowzero.%d", (int)dead);
  snprintf(target, sizeof target, "%s/target.txt", aout);
  put_file(target, "keep\n");
  put_file(in_adir(old), "stale");
  put_file(in_adir(live), "being written by a live process");
  put_file(in_adir(mine), "stale, from a process of the same number");
  put_file(in_adir("notes.tmp.5"), "someone else's");
  put_file(in_adir("replay.bin.tmp.99999"), "an older SowZero's, or someone else's");
  ck_assert_int_eq(symlink(target, in_adir(sym)), 0);
  ck_assert_int_eq(mkfifo(in_adir(fifo), 0644), 0);
  /* Removed: the dead process's and this process's unheld one; the
   * temporary being written (held) and everything else stay. */
  ck_assert_int_eq(afile_remove_stale(adir, err, sizeof err), 2);
  ck_assert_str_eq(content(in_adir(old)), "(absent)");
  ck_assert_str_eq(content(in_adir(mine)), "(absent)");
  ck_assert_str_eq(content(in_adir(live)), "being written by a live process");
  ck_assert_str_eq(content(in_adir("notes.tmp.5")), "someone else's");
  ck_assert_str_eq(content(in_adir("replay.bin.tmp.99999")),
                   "an older SowZero's, or someone else's");
  ck_assert_str_eq(content(target), "keep\n");
  struct stat st;
  ck_assert_int_eq(lstat(in_adir(sym), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(lstat(in_adir(fifo), &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
  ck_assert_int_eq(lstat(a.tmp, &st), 0);
  fputs("whole", a.f);
  ck_assert_msg(afile_commit(&a, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(content(in_adir("f.bin")), "whole");
  ck_assert_str_eq(content(in_adir(name)), "(absent)");

  /* A leftover at this process's own temporary name (an earlier process
   * of the same number) does not stop a write. */
  snprintf(name, sizeof name, "g.bin.tmp.sowzero.%ld", (long)getpid());
  put_file(in_adir(name), "leftover");
  ck_assert_msg(afile_write(in_adir("g.bin"), "fresh", 5, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(content(in_adir("g.bin")), "fresh");
  ck_assert_str_eq(content(in_adir(name)), "(absent)");
  /* An aborted write leaves nothing. */
  ck_assert_int_eq(afile_open(&a, in_adir("h.bin"), err, sizeof err), 0);
  afile_abort(&a);
  ck_assert_str_eq(content(in_adir("h.bin")), "(absent)");
  ck_assert_int_eq(afile_remove_stale("/nonexistent-dir", err, sizeof err), -1);
  ck_assert_str_eq(err, "/nonexistent-dir: cannot read the directory: No such file or directory");
}
END_TEST

/* Folders with their parents, an existing one again, and the refusals. */
START_TEST(dir_make_makes_parents) {
  char err[512];
  struct stat st;
  ck_assert_msg(dir_make(in_adir("a/b/c"), err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(stat(in_adir("a/b/c"), &st), 0);
  ck_assert(S_ISDIR(st.st_mode));
  ck_assert_msg(dir_make(in_adir("a/b/c/"), err, sizeof err) == 0, "%s", err);
  put_file(in_adir("file"), "x");
  ck_assert_int_eq(dir_make(in_adir("file"), err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "not a folder"));
  ck_assert_int_eq(dir_make(in_adir("file/sub"), err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "cannot create"));
  ck_assert_int_eq(dir_make("", err, sizeof err), -1);
  ck_assert_str_eq(err, "empty folder name");
  /* The longest name the system takes, folders of 200 bytes deep: made;
   * one byte more is refused by name. */
  char *deep = malloc(PATH_MAX + 1);
  size_t n = (size_t)snprintf(deep, PATH_MAX, "%s", in_adir("deep"));
  while (n < PATH_MAX - 1) {
    size_t part = PATH_MAX - 1 - n > 201 ? 201 : PATH_MAX - 1 - n;
    deep[n++] = '/';
    memset(deep + n, 'd', part - 1);
    n += part - 1;
  }
  deep[n] = 0;
  ck_assert_uint_eq(strlen(deep), PATH_MAX - 1);
  char *big = malloc(PATH_MAX + 200);
  ck_assert_msg(dir_make(deep, big, PATH_MAX + 200) == 0, "%s", big);
  ck_assert_int_eq(stat(deep, &st), 0);
  ck_assert(S_ISDIR(st.st_mode));
  strcat(deep, "e");
  ck_assert_int_eq(dir_make(deep, big, PATH_MAX + 200), -1);
  ck_assert_ptr_nonnull(strstr(big, "folder name too long"));
  free(deep);
  free(big);
}
END_TEST

/* Free space where a path would go: the nearest folder that exists holds
 * it, absolute or relative (a relative name with no folder left is the
 * working folder's), as statvfs reports for that folder. */
START_TEST(disk_free_finds_the_nearest_folder) {
  struct statvfs v;
  ck_assert_int_eq(statvfs(adir, &v), 0);
  double here = (double)v.f_bavail * (double)v.f_frsize;
  double got = disk_free_bytes(in_adir("no/such/run/file"));
  /* Another process may write in between: within 1%. */
  ck_assert_msg(fabs(got - here) <= 0.01 * here + 1e6, "%g, statvfs %g", got, here);
  ck_assert_int_eq(statvfs(".", &v), 0);
  here = (double)v.f_bavail * (double)v.f_frsize;
  const char *rel[] = {"no-such-run", "no-such-run/sub/file"};
  for (int i = 0; i < 2; i++) {
    got = disk_free_bytes(rel[i]);
    ck_assert_msg(fabs(got - here) <= 0.01 * here + 1e6, "%s: %g, statvfs(.) %g", rel[i], got,
                  here);
  }
  ck_assert(disk_free_bytes("/") > 0);
}
END_TEST

/* Memory for what one thread writes: whole cache lines of its own, zeroed
 * (the size rounded up, so nothing else is placed in its last line). */
START_TEST(calloc_lines_owns_whole_lines) {
  const size_t sizes[] = {0, 1, 24, 63, 64, 65, 100, 4096, 100000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    size_t n = sizes[i], whole = n ? (n + 63) / 64 * 64 : 64;
    unsigned char *p = calloc_lines(n);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    for (size_t k = 0; k < whole; k++) ck_assert_msg(p[k] == 0, "size %zu byte %zu", n, k);
    memset(p, 0xa5, whole); /* ASan: every byte of the last line is ours */
    free(p);
  }
  ck_assert_ptr_null(calloc_lines(SIZE_MAX - 10));
}
END_TEST

static Suite *base_suite(void) {
  Suite *s = suite_create("base");
  TCase *t = tcase_create("pool");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, pool_runs_every_job_once);
  tcase_add_test(t, pool_stops_at_the_first_error);
  suite_add_tcase(s, t);
  TCase *m = tcase_create("memory");
  tcase_add_test(m, calloc_lines_owns_whole_lines);
  suite_add_tcase(s, m);
  TCase *j = tcase_create("json");
  tcase_add_test(j, json_escaping);
  tcase_add_test(j, text_escape_property);
  tcase_add_test(j, text_escape_ill_formed_utf8);
  tcase_add_test(j, json_writer_builds_texts);
  tcase_add_test(j, json_reads_metrics_lines);
  tcase_add_test(j, json_rejects_malformed_lines);
  suite_add_tcase(s, j);
  TCase *f = tcase_create("afile");
  tcase_add_checked_fixture(f, afile_setup, afile_teardown);
  tcase_add_test(f, afile_writes_regular_files_only);
  tcase_add_test(f, afile_temporaries_are_told_apart);
  tcase_add_test(f, dir_make_makes_parents);
  tcase_add_test(f, disk_free_finds_the_nearest_folder);
  suite_add_tcase(s, f);
  return s;
}

TEST_MAIN(base_suite)

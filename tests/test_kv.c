/* Typed key=value settings (base/kv.h): every type, ranges, whole-string
 * parsing, unknown and repeated keys, defaults, the text that reads back,
 * and help output. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/kv.h"
#include "tests/testutil.h"

typedef struct {
  int n;
  uint64_t seed;
  float f;
  double d;
  int on;
  int mode;
  char name[8];
} demo;

static const char *const modes[] = {"off", "threshold", "sprt", NULL};

static const kv_key demo_keys[] = {
    KV_I("n", demo, n, -5, 100, "7", "a count"),
    KV_U("seed", demo, seed, "1", "a seed"),
    KV_F("f", demo, f, 0, 1, "0.1", "a fraction"),
    KV_D("d", demo, d, -1e6, 1e6, "60", "minutes"),
    KV_B("on", demo, on, "1", "a switch"),
    KV_E("mode", demo, mode, modes, "sprt", "a choice"),
    KV_S("name", demo, name, "abc", "a short name"),
};
static const kv_table demo_t = KV_TABLE(demo_keys);

typedef struct {
  int depth;
} other;
static const kv_key other_keys[] = {KV_I("depth", other, depth, 1, 64, "6", "plies")};
static const kv_table other_t = KV_TABLE(other_keys);

static char err[512];

/* kv_set's message for key=value, or "" when accepted. */
static const char *set(demo *x, const char *key, const char *value) {
  err[0] = 0;
  return kv_set(&demo_t, x, key, value, err, sizeof err) == 0 ? "" : err;
}

static demo defaults(void) {
  demo x;
  memset(&x, 0xa5, sizeof x);
  ck_assert_int_eq(kv_defaults(&demo_t, &x, err, sizeof err), 0);
  return x;
}

START_TEST(defaults_come_from_the_table) {
  demo x = defaults();
  ck_assert_int_eq(x.n, 7);
  ck_assert_uint_eq(x.seed, 1);
  ck_assert_float_eq(x.f, 0.1f);
  ck_assert_double_eq(x.d, 60);
  ck_assert_int_eq(x.on, 1);
  ck_assert_int_eq(x.mode, 2);
  ck_assert_str_eq(x.name, "abc");
  ck_assert_int_eq(kv_check(&demo_t, &x, err, sizeof err), 0);
  ck_assert_ptr_eq(kv_find(&demo_t, "mode"), &demo_keys[5]);
  ck_assert_ptr_null(kv_find(&demo_t, "mod"));
}
END_TEST

START_TEST(every_type_parses) {
  demo x = defaults();
  ck_assert_str_eq(set(&x, "n", "-5"), "");
  ck_assert_int_eq(x.n, -5);
  ck_assert_str_eq(set(&x, "n", "+100"), "");
  ck_assert_int_eq(x.n, 100);
  ck_assert_str_eq(set(&x, "seed", "18446744073709551615"), "");
  ck_assert_uint_eq(x.seed, UINT64_MAX);
  ck_assert_str_eq(set(&x, "f", "0.25"), "");
  ck_assert_float_eq(x.f, 0.25f);
  ck_assert_str_eq(set(&x, "f", "1e-3"), "");
  ck_assert_float_eq(x.f, 1e-3f);
  ck_assert_str_eq(set(&x, "d", "-2.5E+2"), "");
  ck_assert_double_eq(x.d, -250);
  ck_assert_str_eq(set(&x, "d", ".5"), "");
  ck_assert_double_eq(x.d, 0.5);
  ck_assert_str_eq(set(&x, "on", "0"), "");
  ck_assert_int_eq(x.on, 0);
  ck_assert_str_eq(set(&x, "mode", "off"), "");
  ck_assert_int_eq(x.mode, 0);
  ck_assert_str_eq(set(&x, "name", "1234567"), "");
  ck_assert_str_eq(x.name, "1234567");
  ck_assert_str_eq(set(&x, "name", ""), "");
  ck_assert_str_eq(x.name, "");
}
END_TEST

START_TEST(whole_strings_only) {
  demo x = defaults(), before = x;
  ck_assert_str_eq(set(&x, "n", "12abc"), "bad value '12abc' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", ""), "bad value '' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", " 3"), "bad value ' 3' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "3 "), "bad value '3 ' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "7.5"), "bad value '7.5' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "1e1"), "bad value '1e1' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "0x10"), "bad value '0x10' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "-"), "bad value '-' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "seed", "-1"),
                   "bad value '-1' for seed (an integer "
                   "0..18446744073709551615)");
  ck_assert_str_eq(set(&x, "f", "1e999"), "bad value '1e999' for f (a number 0..1)");
  ck_assert_str_eq(set(&x, "f", "nan"), "bad value 'nan' for f (a number 0..1)");
  ck_assert_str_eq(set(&x, "d", "inf"), "bad value 'inf' for d (a number -1e+06..1e+06)");
  ck_assert_str_eq(set(&x, "d", "1e"), "bad value '1e' for d (a number -1e+06..1e+06)");
  ck_assert_str_eq(set(&x, "d", "."), "bad value '.' for d (a number -1e+06..1e+06)");
  ck_assert_str_eq(set(&x, "d", "0x1p3"), "bad value '0x1p3' for d (a number -1e+06..1e+06)");
  ck_assert_str_eq(set(&x, "on", "yes"), "bad value 'yes' for on (0 or 1)");
  ck_assert_str_eq(set(&x, "on", "1.0"), "bad value '1.0' for on (0 or 1)");
  ck_assert_str_eq(set(&x, "mode", "Off"),
                   "bad value 'Off' for mode (one of: off, threshold, sprt)");
  ck_assert_mem_eq(&x, &before, sizeof x); /* nothing changed */
}
END_TEST

START_TEST(ranges_and_overflow) {
  demo x = defaults();
  ck_assert_str_eq(set(&x, "n", "101"), "bad value '101' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "-6"), "bad value '-6' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "n", "99999999999999999999"),
                   "bad value '99999999999999999999' for n (an integer -5..100)");
  ck_assert_str_eq(set(&x, "seed", "18446744073709551616"),
                   "bad value '18446744073709551616' for seed (an integer "
                   "0..18446744073709551615)");
  ck_assert_str_eq(set(&x, "f", "1.0001"), "bad value '1.0001' for f (a number 0..1)");
  ck_assert_str_eq(set(&x, "f", "-0.5"), "bad value '-0.5' for f (a number 0..1)");
  ck_assert_str_eq(set(&x, "name", "12345678"),
                   "bad value '12345678' for name (at most 7 characters)");
  /* Values set by code are checked against the same ranges. */
  x.n = 101;
  ck_assert_int_eq(kv_check(&demo_t, &x, err, sizeof err), -1);
  ck_assert_str_eq(err, "n 101 is out of range (an integer -5..100)");
  x = defaults();
  x.mode = 3;
  ck_assert_int_eq(kv_check(&demo_t, &x, err, sizeof err), -1);
  ck_assert_str_eq(err, "mode 3 is out of range (one of: off, threshold, sprt)");
  x = defaults();
  x.f = 2;
  ck_assert_int_eq(kv_check(&demo_t, &x, err, sizeof err), -1);
  ck_assert_str_eq(err, "f 2 is out of range (a number 0..1)");
}
END_TEST

START_TEST(unknown_keys_and_the_callers_own_prefix) {
  demo x = defaults();
  ck_assert_str_eq(set(&x, "size", "3"),
                   "unknown setting 'size' (known: n, seed, f, d, on, mode, name)");
  /* kv_parse leaves naming the key to the caller. */
  ck_assert_int_eq(kv_parse(&demo_keys[0], &x, "x", err, sizeof err), -1);
  ck_assert_str_eq(err, "bad value 'x' (an integer -5..100)");
  ck_assert_int_eq(kv_parse(&demo_keys[0], &x, "42", err, sizeof err), 0);
  ck_assert_int_eq(x.n, 42);
}
END_TEST

/* Long texts equal (Check cannot quote them whole: their ends). */
static void same_long(const char *got, const char *want) {
  size_t g = strlen(got), w = strlen(want);
  ck_assert_msg(!strcmp(got, want), "%zu characters ending '%s', not %zu ending '%s'", g,
                got + (g > 40 ? g - 40 : 0), w, want + (w > 40 ? w - 40 : 0));
}

/* Every known key is named, however long the list: it is cut only where
 * the caller's buffer ends (400 keys, 3600 characters; two tables of 64
 * and one of 1, 1160). */
START_TEST(every_known_key_is_named) {
  enum { N = 400 };
  static kv_key many[N];
  static char names[N][12];
  static char want[8192], got[8192];
  size_t k = (size_t)snprintf(want, sizeof want, "unknown setting 'size' (known: ");
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "key_%03d", i);
    many[i] = demo_keys[0];
    many[i].name = names[i];
    k += (size_t)snprintf(want + k, sizeof want - k, "%s%s", i ? ", " : "", names[i]);
  }
  snprintf(want + k, sizeof want - k, ")");
  kv_table t = {many, N};
  demo x = defaults();
  ck_assert_int_eq(kv_set(&t, &x, "size", "3", got, sizeof got), -1);
  same_long(got, want);
  /* A short buffer holds the message's beginning. */
  ck_assert_int_eq(kv_set(&t, &x, "size", "3", got, 40), -1);
  ck_assert_uint_eq(strlen(got), 39);
  ck_assert_int_eq(strncmp(got, want, 39), 0);
  /* Several tables (of at most KV_MAX_KEYS keys): their keys in order. */
  kv_table a = {many, KV_MAX_KEYS}, b = {many + KV_MAX_KEYS, KV_MAX_KEYS};
  other o;
  kv_target tg[3] = {{&a, &x, 0}, {&b, &x, 0}, {&other_t, &o, 0}};
  char *arg[] = {"size=3"};
  ck_assert_int_eq(kv_set_list(tg, 3, 1, arg, got, sizeof got), -1);
  k = (size_t)snprintf(want, sizeof want, "unknown setting 'size' (known: ");
  for (int i = 0; i < 2 * KV_MAX_KEYS; i++)
    k += (size_t)snprintf(want + k, sizeof want - k, "%s, ", names[i]);
  snprintf(want + k, sizeof want - k, "depth)");
  same_long(got, want);
}
END_TEST

START_TEST(lists_of_settings) {
  demo x = defaults();
  other o = {6};
  kv_target tg[2] = {{&demo_t, &x, 0}, {&other_t, &o, 0}};
  char *ok[] = {"n=3", "depth=9", "mode=threshold"};
  ck_assert_int_eq(kv_set_list(tg, 2, 3, ok, err, sizeof err), 0);
  ck_assert_int_eq(x.n, 3);
  ck_assert_int_eq(o.depth, 9);
  ck_assert_int_eq(x.mode, 1);
  ck_assert(kv_given(&tg[0], "n") && kv_given(&tg[0], "mode") && !kv_given(&tg[0], "f"));
  ck_assert(kv_given(&tg[1], "depth"));
  ck_assert(!kv_given(&tg[1], "nothing"));
  /* A value may hold '='. */
  char *eq[] = {"name=a=b"};
  ck_assert_int_eq(kv_set_list(tg, 2, 1, eq, err, sizeof err), 0);
  ck_assert_str_eq(x.name, "a=b");
  ck_assert(!kv_given(&tg[0], "n")); /* seen is per list */
  const struct {
    char *arg[2];
    int n;
    const char *msg;
  } bad[] = {
      {{"n=3", "n=4"}, 2, "setting 'n' given twice"},
      {{"depth=3", "depth=3"}, 2, "setting 'depth' given twice"},
      {{"n"}, 1, "bad setting 'n' (expected key=value)"},
      {{"=3"}, 1, "bad setting '=3' (expected key=value)"},
      {{"speed=3"}, 1, "unknown setting 'speed' (known: n, seed, f, d, on, mode, name, depth)"},
      {{"depth=0"}, 1, "bad value '0' for depth (an integer 1..64)"},
      {{"n=1", "on="}, 2, "bad value '' for on (0 or 1)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    ck_assert_int_eq(kv_set_list(tg, 2, bad[i].n, bad[i].arg, err, sizeof err), -1);
    ck_assert_str_eq(err, bad[i].msg);
  }
}
END_TEST

START_TEST(text_reads_back) {
  demo x = defaults(), y = defaults();
  ck_assert_str_eq(set(&x, "f", "0.3"), "");
  ck_assert_str_eq(set(&x, "d", "0.1"), "");
  ck_assert_str_eq(set(&x, "seed", "12345678901234567890"), "");
  ck_assert_str_eq(set(&x, "mode", "off"), "");
  char text[1024], v[64];
  ck_assert_int_eq(kv_write(&demo_t, &x, text, sizeof text), 0);
  ck_assert_str_eq(text,
                   "n = 7\nseed = 12345678901234567890\nf = 0.300000012\nd = "
                   "0.10000000000000001\non = 1\nmode = off\nname = abc\n");
  /* Every line's pair sets y to x's values. */
  for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *sep = strstr(line, " = ");
    *sep = 0;
    ck_assert_str_eq(set(&y, line, sep + 3), "");
  }
  ck_assert_mem_eq(&x, &y, sizeof x);
  ck_assert_int_eq(kv_format(&demo_keys[2], &x, v, sizeof v), 0);
  ck_assert_str_eq(v, "0.300000012");
  ck_assert_int_eq(kv_format(&demo_keys[2], &x, v, 5), -1); /* too small */
  ck_assert_int_eq(kv_write(&demo_t, &x, text, 20), -1);
  ck_assert_int_eq(kv_names(&demo_t, " ", v, sizeof v), 0);
  ck_assert_str_eq(v, "n seed f d on mode name");
  ck_assert_int_eq(kv_names(&demo_t, " ", v, 8), -1);
}
END_TEST

START_TEST(help_lists_defaults) {
  char text[2048];
  ck_assert_int_eq(kv_describe(&demo_t, NULL, text, sizeof text), 0);
  ck_assert_ptr_nonnull(strstr(text,
                               "f                  default 0.1                              "
                               "a fraction [0..1]\n"));
  /* Numbers with the range the key enforces; others without. */
  ck_assert_ptr_nonnull(strstr(text, " a count [-5..100]\n"));
  ck_assert_ptr_nonnull(strstr(text, " minutes [-1000000..1000000]\n"));
  ck_assert_ptr_nonnull(strstr(text, " a seed\n"));
  ck_assert_ptr_nonnull(strstr(text, " a switch\n"));
  ck_assert_ptr_nonnull(strstr(text, " a short name\n"));
  ck_assert_ptr_nonnull(strstr(text, "mode               default sprt"));
  /* Defaults from a struct: short forms, as the struct holds them. */
  demo x = defaults();
  x.n = 9;
  ck_assert_int_eq(kv_describe(&demo_t, &x, text, sizeof text), 0);
  ck_assert_ptr_nonnull(strstr(text, "n                  default 9  "));
  ck_assert_ptr_nonnull(strstr(text, "f                  default 0.1  "));
  int lines = 0;
  for (char *c = text; *c; c++) lines += *c == '\n';
  ck_assert_int_eq(lines, demo_t.n);
  ck_assert_int_eq(kv_describe(&demo_t, NULL, text, 100), -1);
}
END_TEST

/* What a key accepts, in buffers of every size: the full text cut to fit
 * and terminated, never a byte past the buffer (a canary after it). */
START_TEST(accepts_fits_every_buffer) {
  for (int k = 0; k < demo_t.n; k++) {
    char full[256];
    kv_accepts(&demo_t.keys[k], full, sizeof full);
    size_t n = strlen(full);
    ck_assert_msg(n > 0 && n < sizeof full - 1, "key %s: '%s'", demo_t.keys[k].name, full);
    if (demo_t.keys[k].type == KV_ENUM) ck_assert_str_eq(full, "one of: off, threshold, sprt");
    for (size_t len = 1; len <= n + 1; len++) {
      char buf[300];
      memset(buf, '#', sizeof buf);
      kv_accepts(&demo_t.keys[k], buf, len);
      ck_assert_msg(strlen(buf) == len - 1 && !strncmp(buf, full, len - 1),
                    "key %s, %zu bytes: '%s'", demo_t.keys[k].name, len, buf);
      for (size_t i = len; i < sizeof buf; i++)
        ck_assert_msg(buf[i] == '#', "key %s, %zu bytes: byte %zu written", demo_t.keys[k].name,
                      len, i);
    }
  }
}
END_TEST

static Suite *kv_suite(void) {
  Suite *s = suite_create("kv");
  TCase *t = tcase_create("kv");
  tcase_add_test(t, defaults_come_from_the_table);
  tcase_add_test(t, every_type_parses);
  tcase_add_test(t, whole_strings_only);
  tcase_add_test(t, ranges_and_overflow);
  tcase_add_test(t, unknown_keys_and_the_callers_own_prefix);
  tcase_add_test(t, every_known_key_is_named);
  tcase_add_test(t, lists_of_settings);
  tcase_add_test(t, text_reads_back);
  tcase_add_test(t, help_lists_defaults);
  tcase_add_test(t, accepts_fits_every_buffer);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(kv_suite)

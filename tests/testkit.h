/* Helpers of the suites beside tests/testutil.h: scratch folders made and
 * removed without a shell, and test cases built from lists. */
#ifndef SOWZERO_TESTS_TESTKIT_H
#define SOWZERO_TESTS_TESTKIT_H

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/testutil.h"

/* Writes text to path (the test's own file). */
static inline void put_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* The whole content of a small file (up to 255 bytes), or "(absent)". */
static inline const char *content(const char *path) {
  static char buf[256];
  FILE *f = fopen(path, "rb");
  if (!f) return "(absent)";
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* A new empty folder TMP/sowzero-TAG-XXXXXX (test_tmp); its path into buf. */
static inline void scratch_dir(char *buf, size_t len, const char *tag) {
  snprintf(buf, len, "%s/sowzero-%s-XXXXXX", test_tmp(), tag);
  ck_assert_msg(mkdtemp(buf) != NULL, "cannot make %s", buf);
}

static inline int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)type, (void)ftw;
  return remove(path);
}

/* Removes path and everything below it, links themselves and not what they
 * point to (nothing there is fine); 0, or -1 if something stayed. */
static inline int remove_tree(const char *path) {
  if (access(path, F_OK) != 0 && errno == ENOENT) return 0;
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

/* Copies the file from to the new or emptied file to, byte for byte. */
static inline void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb");
  ck_assert_msg(in != NULL, "cannot read %s", from);
  FILE *out = fopen(to, "wb");
  ck_assert_msg(out != NULL, "cannot write %s", to);
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    ck_assert_msg(fwrite(buf, 1, n, out) == n, "cannot write %s", to);
  ck_assert_msg(!ferror(in), "cannot read %s", from);
  fclose(in);
  ck_assert_msg(fclose(out) == 0, "cannot write %s", to);
}

/* 1 if the files a and b both read and hold the same bytes, else 0. */
static inline int same_bytes(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb;
  while (same) {
    int ca = fgetc(fa), cb = fgetc(fb);
    if (ca != cb) same = 0;
    if (ca == EOF || cb == EOF) break;
  }
  if (same && (ferror(fa) || ferror(fb))) same = 0;
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

/* A test case of suite s named name with the NULL-terminated tests; a
 * timeout in seconds when positive (else Check's default). */
static inline TCase *add_tests(Suite *s, const char *name, double timeout,
                               const TTest *const *tests) {
  TCase *tc = tcase_create(name);
  if (timeout > 0) tcase_set_timeout(tc, timeout);
  for (int i = 0; tests[i]; i++) tcase_add_test(tc, tests[i]);
  suite_add_tcase(s, tc);
  return tc;
}

#endif

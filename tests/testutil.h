/* Helpers shared by the Check suites. */
#ifndef SOWZERO_TESTUTIL_H
#define SOWZERO_TESTUTIL_H

#include <check.h>
#include <stdlib.h>

/* Folder of the shared rules and reference traces: $SOWZERO_SHARED, or
 * ../shared beside the repository (tests run from the repository root). */
static inline const char *test_shared_dir(void) {
  const char *d = getenv("SOWZERO_SHARED");
  return d && *d ? d : "../shared";
}

/* Scales long loops down under sanitizers (SOWZERO_TEST_SCALE=0.1). */
static inline double test_scale(void) {
  const char *s = getenv("SOWZERO_TEST_SCALE");
  double v = s ? atof(s) : 1.0;
  return v > 0 ? v : 1.0;
}

/* A cheap assertion for hot loops: Check's ck_assert_* record every passing
 * check through a pipe, which dominates loops of millions of checks. */
#define CHECK(cond, ...)                   \
  do {                                     \
    if (!(cond)) ck_abort_msg(__VA_ARGS__); \
  } while (0)

#define TEST_MAIN(suite_fn)                                   \
  int main(void) {                                            \
    SRunner *sr = srunner_create(suite_fn());                 \
    srunner_run_all(sr, CK_NORMAL);                           \
    int failed = srunner_ntests_failed(sr);                   \
    srunner_free(sr);                                         \
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;              \
  }

#endif

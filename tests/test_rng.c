/* base's random numbers (base/base.h): the Gamma draws behind Dirichlet
 * noise against their distribution. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "arena/signif.h"
#include "base/base.h"
#include "tests/testkit.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The Gamma sampler behind Dirichlet noise against its distribution: for
 * half-integer shapes (below 1 through the boost, above through
 * Marsaglia-Tsang) the Kolmogorov-Smirnov distance of 50,000 draws to the
 * CDF P(shape, x) = 1 - chi2_sf(2x, 2 shape) stays under its 0.1% point,
 * and the mean and variance (both the shape) within 5 standard errors. */
START_TEST(gamma_draws_follow_the_distribution) {
  enum { N = 50000 };
  static double x[N];
  const int df[] = {1, 2, 3, 6, 10};
  rng_t r;
  rng_seed(&r, 17, 3);
  for (int k = 0; k < 5; k++) {
    double shape = df[k] / 2.0, sum = 0, sum2 = 0;
    for (int i = 0; i < N; i++) {
      x[i] = rng_gamma(&r, shape);
      ck_assert(x[i] >= 0 && isfinite(x[i]));
      sum += x[i];
      sum2 += x[i] * x[i];
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    ck_assert_msg(fabs(mean - shape) < 5 * sqrt(shape / N), "shape %g: mean %g", shape, mean);
    /* The variance's standard error: sqrt((m4 - var^2) / N), m4 = 3a(a+2). */
    ck_assert_msg(fabs(var - shape) < 5 * sqrt((3 * shape * (shape + 2) - shape * shape) / N),
                  "shape %g: variance %g", shape, var);
    qsort(x, N, sizeof *x, cmp_double);
    double d = 0;
    for (int i = 0; i < N; i++) {
      double f = 1 - signif_chi2_sf(2 * x[i], df[k]);
      d = fmax(d, fmax(fabs(f - (double)i / N), fabs(f - (double)(i + 1) / N)));
    }
    ck_assert_msg(d < 1.95 / sqrt(N), "shape %g: KS distance %g", shape, d);
  }
}
END_TEST

static Suite *rng_suite(void) {
  Suite *s = suite_create("rng");
  add_tests(s, "gamma", 60, (const TTest *const[]){gamma_draws_follow_the_distribution, NULL});
  return s;
}

TEST_MAIN(rng_suite)

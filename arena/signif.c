/* Two-sample tests and Holm's adjustment. */
#include "arena/signif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const signif_test NOTHING = {0, 0, 1};

/* ---- Distributions ------------------------------------------------------------------ */

double signif_normal_p2(double z) { return erfc(fabs(z) / sqrt(2.0)); }

/* Closed forms for whole df: for even df a Poisson tail, for odd df the
 * normal tail plus a finite series (Abramowitz and Stegun 26.4.4, 26.4.5),
 * so no incomplete gamma function is needed. */
double signif_chi2_sf(double x, int df) {
  if (df < 1 || isnan(x)) return NAN;
  if (x <= 0) return 1;
  double h = x / 2, e = exp(-h), sum = 0;
  if (df % 2 == 0) {
    double term = 1;
    for (int k = 0; k < df / 2; k++) {
      sum += term;
      term *= h / (k + 1);
    }
    return fmin(1, e * sum);
  }
  double term = sqrt(h) / (sqrt(M_PI) / 2); /* h^(1/2) / Gamma(3/2) */
  for (int k = 1; k <= df / 2; k++) {
    sum += term;
    term *= h / (k + 0.5);
  }
  return fmin(1, erfc(sqrt(h)) + e * sum);
}

/* The continued fraction of I_x(a, b) by the modified Lentz method; it
 * converges fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 1000; m++) {
    double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    c = 1 + num / c;
    d = 1 / (fabs(d) < tiny ? tiny : d);
    c = fabs(c) < tiny ? tiny : c;
    f *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    c = 1 + num / c;
    d = 1 / (fabs(d) < tiny ? tiny : d);
    c = fabs(c) < tiny ? tiny : c;
    double step = d * c;
    f *= step;
    if (fabs(step - 1) < 1e-15) break;
  }
  return f;
}

double signif_ibeta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || isnan(x)) return NAN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
  return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double signif_t_p2(double t, double df) {
  if (!(df > 0) || isnan(t)) return NAN;
  if (isinf(t)) return 0;
  return signif_ibeta(df / 2, 0.5, df / (df + t * t));
}

/* ---- Tests of two samples ----------------------------------------------------------- */

signif_test signif_chi2_rows(const int *a, const int *b, int k) {
  if (k < 1 || k > SIGNIF_MAX_COLUMNS) return NOTHING;
  double ra = 0, rb = 0;
  int kept = 0;
  for (int j = 0; j < k; j++) {
    ra += a[j];
    rb += b[j];
    kept += a[j] + b[j] > 0;
  }
  if (kept < 2 || ra <= 0 || rb <= 0) return NOTHING;
  double n = ra + rb, x2 = 0;
  for (int j = 0; j < k; j++) {
    double col = a[j] + b[j];
    if (col <= 0) continue;
    double ea = ra * col / n, eb = rb * col / n;
    x2 += (a[j] - ea) * (a[j] - ea) / ea + (b[j] - eb) * (b[j] - eb) / eb;
  }
  signif_test t = {x2, kept - 1, signif_chi2_sf(x2, kept - 1)};
  return t;
}

signif_test signif_two_proportions(int k1, int n1, int k2, int n2) {
  if (n1 <= 0 || n2 <= 0) return NOTHING;
  double p = (double)(k1 + k2) / (n1 + n2);
  double se = sqrt(p * (1 - p) * (1.0 / n1 + 1.0 / n2));
  if (!(se > 0)) return NOTHING;
  double z = ((double)k1 / n1 - (double)k2 / n2) / se;
  signif_test t = {z, 0, signif_normal_p2(z)};
  return t;
}

signif_test signif_score_z(int w1, int d1, int l1, int w2, int d2, int l2) {
  int n1 = w1 + d1 + l1, n2 = w2 + d2 + l2, n = n1 + n2;
  if (n1 <= 0 || n2 <= 0) return NOTHING;
  double s1 = (w1 + 0.5 * d1) / n1, s2 = (w2 + 0.5 * d2) / n2;
  double s = (w1 + w2 + 0.5 * (d1 + d2)) / n;
  double v =
      ((w1 + w2) * (1 - s) * (1 - s) + (d1 + d2) * (0.5 - s) * (0.5 - s) + (l1 + l2) * s * s) / n;
  double se = sqrt(v * (1.0 / n1 + 1.0 / n2));
  if (!(se > 0)) return NOTHING;
  double z = (s1 - s2) / se;
  signif_test t = {z, 0, signif_normal_p2(z)};
  return t;
}

signif_test signif_welch(double m1, double sd1, int n1, double m2, double sd2, int n2) {
  if (n1 < 2 || n2 < 2) return NOTHING;
  double v1 = sd1 * sd1 / n1, v2 = sd2 * sd2 / n2, se2 = v1 + v2;
  double df = n1 + n2 - 2;
  if (!(se2 > 0)) {
    signif_test t = {m1 == m2 ? 0 : m1 > m2 ? INFINITY : -INFINITY, df, m1 == m2 ? 1 : 0};
    return t;
  }
  df = se2 * se2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
  double stat = (m1 - m2) / sqrt(se2);
  signif_test t = {stat, df, signif_t_p2(stat, df)};
  return t;
}

/* A value and the sample it came from, ranked together. */
typedef struct {
  int v, from_x;
} ranked;

static int cmp_ranked(const void *a, const void *b) {
  int x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
  return (x > y) - (x < y);
}

int signif_mann_whitney(const int *x, int nx, const int *y, int ny, signif_test *out, double *u) {
  *out = NOTHING;
  if (u) *u = 0;
  if (nx <= 0 || ny <= 0) return 0;
  int n = nx + ny;
  ranked *r = malloc((size_t)n * sizeof *r);
  if (!r) return -1;
  for (int i = 0; i < nx; i++) r[i] = (ranked){x[i], 1};
  for (int i = 0; i < ny; i++) r[nx + i] = (ranked){y[i], 0};
  qsort(r, (size_t)n, sizeof *r, cmp_ranked);
  /* Rank sum of x with midranks; ties' t^3 - t for the variance. */
  double rx = 0, ties = 0;
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && r[j].v == r[i].v) j++;
    double t = j - i, mid = (i + 1 + j) / 2.0; /* ranks i+1 .. j */
    for (int q = i; q < j; q++) rx += r[q].from_x ? mid : 0;
    ties += t * t * t - t;
    i = j;
  }
  free(r);
  double ux = rx - nx * (nx + 1.0) / 2, mean = nx * (double)ny / 2;
  double var = nx * (double)ny / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
  if (u) *u = ux;
  if (!(var > 0)) return 0;
  double d = ux - mean;
  d = d > 0.5 ? d - 0.5 : d < -0.5 ? d + 0.5 : 0;
  double z = d / sqrt(var);
  *out = (signif_test){z, 0, signif_normal_p2(z)};
  return 0;
}

/* ---- Many tests ------------------------------------------------------------------------ */

typedef struct {
  double p;
  int i;
} indexed_p;

static int cmp_indexed(const void *a, const void *b) {
  const indexed_p *x = a, *y = b;
  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  return x->i - y->i;
}

void signif_holm(const double *p, int n, double *adj) {
  if (n <= 0) return;
  indexed_p small[64], *s = n <= 64 ? small : malloc((size_t)n * sizeof *s);
  if (!s) { /* Bonferroni, which Holm only improves on, keeps the promise */
    for (int i = 0; i < n; i++) adj[i] = fmin(1, p[i] * n);
    return;
  }
  for (int i = 0; i < n; i++) s[i] = (indexed_p){p[i], i};
  qsort(s, (size_t)n, sizeof *s, cmp_indexed);
  double run = 0;
  for (int j = 0; j < n; j++) {
    double a = fmin(1, (n - j) * s[j].p);
    run = fmax(run, a);
    adj[s[j].i] = run;
  }
  if (s != small) free(s);
}

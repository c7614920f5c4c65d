/* signif: whether two samples of games differ — the tests a study runs on
 * every pair of rule variants (first-player results, draw rate, game
 * length), their p-values, and Holm's correction for running many.
 *
 * Plain functions of their arguments: no state, no I/O, any thread. Every
 * p-value is two-sided. Each test's large-sample approximation is named
 * where it is declared; with few games (an expected count below 5 in a
 * chi-square table, samples of a handful of games) the p-values are
 * rough. */
#ifndef SOWZERO_SIGNIF_H
#define SOWZERO_SIGNIF_H

#define SIGNIF_MAX_COLUMNS 16

typedef struct {
  double
      stat; /* the statistic: chi-square, z or t (+-INFINITY when a spread is 0 but means differ) */
  double df; /* its degrees of freedom; 0 for z statistics */
  double p;  /* two-sided p-value */
} signif_test;

/* ---- Distributions ------------------------------------------------------------------ */

/* P(|Z| >= |z|) for a standard normal Z. */
double signif_normal_p2(double z);
/* P(X >= x) for X chi-square with df >= 1 (whole) degrees of freedom. */
double signif_chi2_sf(double x, int df);
/* P(|T| >= |t|) for T Student's t with df > 0 (real) degrees of freedom. */
double signif_t_p2(double t, double df);
/* The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double signif_ibeta(double a, double b, double x);

/* ---- Tests of two samples ----------------------------------------------------------- */

/* Pearson's chi-square test that two rows of k counts (k <= SIGNIF_MAX_COLUMNS;
 * e.g. wins, draws, losses) come from one distribution. Columns empty in
 * both rows are left out; df = columns kept - 1. Fewer than two columns
 * kept, or an empty row: nothing to tell apart, stat 0 and p 1. */
signif_test signif_chi2_rows(const int *a, const int *b, int k);

/* Two proportions, k1 of n1 against k2 of n2: z with the pooled
 * proportion's standard error. p 1 when either n is 0 or the pooled
 * proportion is 0 or 1. */
signif_test signif_two_proportions(int k1, int n1, int k2, int n2);

/* Two mean scores of games worth 1, 1/2 and 0 (w wins, d draws, l
 * losses each): z = (s1 - s2) / sqrt(v (1/n1 + 1/n2)), v the variance of
 * the two samples pooled (what both share if they do not differ). p 1
 * when every game of both ended alike or a sample is empty. */
signif_test signif_score_z(int w1, int d1, int l1, int w2, int d2, int l2);

/* Welch's t-test of two means from their standard deviations (n - 1 in
 * the denominator) and sizes, with the Welch-Satterthwaite degrees of
 * freedom. Either n below 2: stat 0, p 1. */
signif_test signif_welch(double m1, double sd1, int n1, double m2, double sd2, int n2);

/* The Mann-Whitney U test (Wilcoxon rank sum) of x[0..nx) against
 * y[0..ny): midranks for ties, the normal approximation with the tie
 * correction of the variance and a continuity correction of 1/2 (as
 * scipy.stats.mannwhitneyu(method="asymptotic")). stat is z, *u gets U of
 * x (may be NULL). Returns -1 only when it cannot get memory for the
 * ranks (nx + ny ints); an empty sample or equal values throughout give
 * stat 0, p 1. */
int signif_mann_whitney(const int *x, int nx, const int *y, int ny, signif_test *out, double *u);

/* ---- Many tests ------------------------------------------------------------------------ */

/* Holm's step-down adjustment of n p-values into adj (may be p itself):
 * with p sorted up, p_(i) becomes max over j <= i of min(1, (n - j + 1) p_(j)).
 * A test is significant at level alpha for the family when its adjusted
 * p-value is at most alpha, which keeps the chance of any false finding
 * among the n at most alpha whatever their dependence. */
void signif_holm(const double *p, int n, double *adj);

#endif

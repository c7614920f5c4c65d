/* Scores, intervals, Elo, rating fits and the SPRT. */
#include "arena/ratings.h"

#include <math.h>
#include <string.h>

static const double Z95 = 1.96;

/* ---- Scores and intervals ---------------------------------------------------- */

void rating_wilson(double p, int n, double *lo, double *hi) {
  if (n <= 0) {
    *lo = 0;
    *hi = 1;
    return;
  }
  double z = Z95, z2 = z * z / n, mid = (p + z2 / 2) / (1 + z2);
  double half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z2);
  *lo = fmax(0, mid - half);
  *hi = fmin(1, mid + half);
}

void rating_score_ci(int w, int d, int l, double *score, double *lo, double *hi) {
  int n = w + d + l;
  if (n == 0) {
    *score = 0.5;
    *lo = 0;
    *hi = 1;
    return;
  }
  double s = (w + 0.5 * d) / n, z = Z95;
  double var = (w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s) / n;
  *score = s;
  if (var > 0) {
    double half = z * sqrt(var / n);
    *lo = s - half < 0 ? 0 : s - half;
    *hi = s + half > 1 ? 1 : s + half;
    return;
  }
  /* Every game ended alike: the observed variance is 0 and the normal
   * interval collapses, so take the Wilson interval of a binomial. */
  rating_wilson(s, n, lo, hi);
}

/* ---- Elo ----------------------------------------------------------------------- */

double rating_elo_from_score(double s) {
  if (!(s > 0)) return -RATING_ELO_CLAMP;
  if (s >= 1) return RATING_ELO_CLAMP;
  double e = -400.0 * log10(1.0 / s - 1.0);
  return e < -RATING_ELO_CLAMP ? -RATING_ELO_CLAMP : e > RATING_ELO_CLAMP ? RATING_ELO_CLAMP : e;
}

double rating_score_from_elo(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

/* Inverts the n x n matrix a in place (Gauss-Jordan, partial pivoting);
 * -1 if singular. */
static int invert(double *a, int n) {
  double inv[RATING_MAX_PLAYERS * RATING_MAX_PLAYERS];
  for (int i = 0; i < n * n; i++) inv[i] = (i / n == i % n);
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(a[r * n + c]) > fabs(a[piv * n + c])) piv = r;
    if (fabs(a[piv * n + c]) < 1e-300) return -1;
    for (int k = 0; k < n; k++) {
      double t = a[c * n + k];
      a[c * n + k] = a[piv * n + k];
      a[piv * n + k] = t;
      t = inv[c * n + k];
      inv[c * n + k] = inv[piv * n + k];
      inv[piv * n + k] = t;
    }
    double d = a[c * n + c];
    for (int k = 0; k < n; k++) {
      a[c * n + k] /= d;
      inv[c * n + k] /= d;
    }
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      double f = a[r * n + c];
      if (f == 0) continue;
      for (int k = 0; k < n; k++) {
        a[r * n + k] -= f * a[c * n + k];
        inv[r * n + k] -= f * inv[c * n + k];
      }
    }
  }
  memcpy(a, inv, (size_t)n * (size_t)n * sizeof *a);
  return 0;
}

int rating_fit(int n_players, const rating_pairing *pairings, int n_pairings, int anchor,
               double prior_draws, double *elo, double *se) {
  int n = n_players;
  if (n < 1 || n > RATING_MAX_PLAYERS || anchor < 0 || anchor >= n) return -1;
  for (int k = 0; k < n_pairings; k++) {
    const rating_pairing *q = &pairings[k];
    if (q->a < 0 || q->a >= n || q->b < 0 || q->b >= n || q->a == q->b) return -1;
  }
  static const double ln10_400 = 400.0 / 2.302585092994046;
  double games[RATING_MAX_PLAYERS][RATING_MAX_PLAYERS], score[RATING_MAX_PLAYERS] = {0};
  memset(games, 0, sizeof games);
  for (int k = 0; k < n_pairings; k++) {
    const rating_pairing *q = &pairings[k];
    int played = q->wins + q->draws + q->losses;
    if (!played) continue;
    double m = played + prior_draws;
    games[q->a][q->b] += m;
    games[q->b][q->a] += m;
    score[q->a] += q->wins + 0.5 * q->draws + 0.5 * prior_draws;
    score[q->b] += q->losses + 0.5 * q->draws + 0.5 * prior_draws;
  }
  /* Every player must be linked to the anchor by played pairings. */
  int reach[RATING_MAX_PLAYERS] = {0}, stack[RATING_MAX_PLAYERS], sp = 0;
  reach[anchor] = 1;
  stack[sp++] = anchor;
  while (sp) {
    int i = stack[--sp];
    for (int j = 0; j < n; j++)
      if (games[i][j] > 0 && !reach[j]) {
        reach[j] = 1;
        stack[sp++] = j;
      }
  }
  for (int i = 0; i < n; i++)
    if (!reach[i]) return -1;
  /* Minorise-maximise iterations (Hunter 2004): each strength becomes its
   * score over the expected number of games it would need. */
  double g[RATING_MAX_PLAYERS];
  for (int i = 0; i < n; i++) g[i] = 1.0;
  for (int it = 0; it < 100000; it++) {
    double change = 0;
    for (int i = 0; i < n; i++) {
      double den = 0;
      for (int j = 0; j < n; j++)
        if (j != i && games[i][j] > 0) den += games[i][j] / (g[i] + g[j]);
      double v = den > 0 ? score[i] / den : g[i];
      if (v < 1e-12) v = 1e-12;
      change = fmax(change, fabs(log(v / g[i])));
      g[i] = v;
    }
    double a = g[anchor];
    for (int i = 0; i < n; i++) g[i] /= a;
    if (change < 1e-13) break;
  }
  for (int i = 0; i < n; i++) elo[i] = ln10_400 * log(g[i]);
  if (se) {
    /* Fisher information in log-strength, anchor row and column removed. */
    double info[RATING_MAX_PLAYERS * RATING_MAX_PLAYERS];
    int idx[RATING_MAX_PLAYERS], m = 0;
    for (int i = 0; i < n; i++)
      if (i != anchor) idx[m++] = i;
    memset(info, 0, sizeof info);
    for (int x = 0; x < m; x++)
      for (int j = 0; j < n; j++) {
        int i = idx[x];
        if (j == i || games[i][j] <= 0) continue;
        double p = g[i] / (g[i] + g[j]), f = games[i][j] * p * (1 - p);
        info[x * m + x] += f;
        for (int y = 0; y < m; y++)
          if (idx[y] == j) info[x * m + y] -= f;
      }
    for (int i = 0; i < n; i++) se[i] = 0;
    if (m > 0 && invert(info, m) == 0)
      for (int x = 0; x < m; x++) se[idx[x]] = ln10_400 * sqrt(fmax(info[x * m + x], 0));
  }
  return 0;
}

/* ---- Matches of two players ------------------------------------------------------ */

rating_summary rating_summarize(int wins, int draws, int losses) {
  rating_summary r;
  r.games = wins + draws + losses;
  rating_score_ci(wins, draws, losses, &r.score, &r.score_lo, &r.score_hi);
  r.elo = rating_elo_from_score(r.score);
  r.elo_lo = rating_elo_from_score(r.score_lo);
  r.elo_hi = rating_elo_from_score(r.score_hi);
  return r;
}

double rating_sprt_llr(int wins, int draws, int losses, double elo0, double elo1) {
  if (wins + draws + losses == 0) return 0;
  /* Half a win and half a loss of prior keep the variance away from 0 when
   * the first results are all alike (two draws must not decide). */
  double w = wins + 0.5, d = draws, l = losses + 0.5, n = w + d + l;
  double s = (w + 0.5 * d) / n;
  double var = (w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s) / n;
  double s0 = rating_score_from_elo(elo0), s1 = rating_score_from_elo(elo1);
  return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var);
}

int rating_sprt_verdict(double llr, double alpha, double beta) {
  if (llr >= log((1 - beta) / alpha)) return 1;
  if (llr <= log(beta / (1 - alpha))) return -1;
  return 0;
}

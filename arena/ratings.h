/* ratings: what game results say about strength — scores with 95%
 * intervals, Elo differences, maximum-likelihood ratings of many players,
 * and the sequential probability ratio test that gating stops on.
 *
 * Plain functions of their arguments: no state, any thread. The intervals
 * use z = 1.96 and are clamped to [0, 1]. */
#ifndef SOWZERO_RATINGS_H
#define SOWZERO_RATINGS_H

#define RATING_MAX_PLAYERS 32
#define RATING_ELO_CLAMP   1600 /* |Elo| reported for a score of 0 or 1 */

/* ---- Scores and intervals ---------------------------------------------------- */

/* Wilson score interval of a proportion p observed over n trials (p may be
 * a score with halves); [0, 1] when n <= 0. */
void rating_wilson(double p, int n, double *lo, double *hi);

/* Score of w wins, d draws, l losses with a 95% interval: the normal
 * approximation with the observed per-game variance of the results 1, 1/2,
 * 0; when all games ended alike (variance 0), the Wilson interval. No
 * games: 0.5 in [0, 1]. */
void rating_score_ci(int w, int d, int l, double *score, double *lo, double *hi);

/* ---- Elo ----------------------------------------------------------------------- */

/* Elo difference for a score in (0, 1): -400 log10(1/s - 1); clamped at
 * +-RATING_ELO_CLAMP, which scores of 0 and 1 get. */
double rating_elo_from_score(double s);
/* Expected score of a player rated elo above the opponent (the inverse). */
double rating_score_from_elo(double elo);

/* Results of two players a and b, counted for a. */
typedef struct {
  int a, b;
  int wins, draws, losses;
} rating_pairing;

/* Maximum-likelihood ratings (Bradley-Terry, a draw counts half a win to
 * each side) over the pairings, `prior_draws` virtual draws added to every
 * pairing that was played; player `anchor` is 0. se gets standard errors
 * from the inverse Fisher information (0 for the anchor). Returns 0, or -1
 * if n_players is not 1..RATING_MAX_PLAYERS, the anchor is not a player,
 * or the pairings do not connect every player to the anchor. */
int rating_fit(int n_players, const rating_pairing *pairings, int n_pairings, int anchor,
               double prior_draws, double *elo, double *se);

/* ---- Matches of two players ------------------------------------------------------ */

/* A match summed up: the score with its interval (rating_score_ci) and
 * the Elo differences of the score and of both bounds. */
typedef struct {
  int games;
  double score, score_lo, score_hi;
  double elo, elo_lo, elo_hi;
} rating_summary;

rating_summary rating_summarize(int wins, int draws, int losses);

/* Log-likelihood ratio of H1 (elo1) against H0 (elo0) from a trinomial
 * result (normal approximation of the generalised SPRT); 0 before any
 * game. */
double rating_sprt_llr(int wins, int draws, int losses, double elo0, double elo1);
/* +1 (H1 accepted) when llr reaches log((1-beta)/alpha), -1 (H0 accepted)
 * at log(beta/(1-alpha)), else 0. */
int rating_sprt_verdict(double llr, double alpha, double beta);

#endif

/* gating: matches that decide promotions and measure strength.
 *
 * gate_match plays a candidate network against the best over paired games
 * (each opening with both colours), both sides searching with the same
 * settings and no noise, all games advanced together with batched
 * evaluation. It stops early when the SPRT decides. anchor_match plays any
 * two agent specs (the periodic evaluation against fixed anchors).
 *
 * Openings are arena/openings.h's random openings (pair k uses opening k
 * of the seed); the statistics (score, Elo, SPRT) are arena/ratings.h's.
 * Nothing here keeps state between calls; the caller's thread does all the
 * work. */
#ifndef SOWZERO_GATING_H
#define SOWZERO_GATING_H

#include <stddef.h>
#include <stdint.h>

#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"

typedef struct {
  int games;         /* at most this many games (rounded up to pairs) */
  int sims;          /* simulations per move, both sides */
  int opening_plies; /* random plies that make each pair's opening */
  uint64_t seed;
  int sprt;           /* 1: stop when the SPRT decides */
  double elo0, elo1;  /* SPRT hypotheses */
  double alpha, beta; /* SPRT error rates */
  /* Variants of the game (borrowed; n_variants <= 1: the game alone):
   * pair k plays variant k mod n_variants. */
  const game *variants;
  int n_variants;
} match_params;

typedef struct {
  int wins, draws, losses;    /* for the first side (the candidate) */
  double score;               /* (wins + draws/2) / games */
  double score_lo, score_hi;  /* 95% confidence interval of the score */
  double elo, elo_lo, elo_hi; /* Elo difference and its 95% interval */
  double llr;                 /* SPRT log-likelihood ratio */
  int sprt_verdict;           /* +1 H1 accepted, -1 H0 accepted, 0 undecided */
  int games;
} match_result;

/* Candidate against best. search gives the search settings (noise is
 * switched off; temperature 0 after the opening). */
int gate_match(const game *g, const nn_net *cand, const nn_net *best, const mcts_params *search,
               const match_params *p, match_result *out, char *err, size_t errlen);

/* Two agents by spec (the first is "ours"): paired games, opening_plies
 * random plies for each pair. */
/* Whether a gating result promotes the candidate: with the SPRT (sprt = 1)
 * its verdict when it decided; otherwise, and when the SPRT is still
 * undecided after all the games (as Leela Zero's gating did), the score
 * against the threshold. */
int gate_promotes(const match_result *m, int sprt, double threshold);

int anchor_match(const game *g, const char *spec_a, const char *spec_b, const match_params *p,
                 match_result *out, char *err, size_t errlen);

#endif

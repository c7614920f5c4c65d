/* match: two sides over paired games — the one match loop, whose parts the
 * arena's tournaments (arena.c), gating's batched network matches
 * (trainer/gating.c) and the trainer's evaluation against anchors use.
 *
 * Pairs: games 2k and 2k+1 are pair k; they start from the same opening
 * with the seats swapped, side A playing South (the first seat) in the even
 * game (match_a_south). With variants, pair k plays variant k mod
 * n_variants. Openings: random opening k of the seed (arena/openings.h).
 * Tally: every game counted for side A (match_count); after each whole
 * pair, in pair order, the SPRT (match_pair_end); at the end score, Elo and
 * their intervals as the arena reports them (arena/ratings.h).
 *
 * Nothing here keeps state between calls; the caller's thread does all the
 * work. The params struct grows with what matches need: a zeroed field
 * means the old behaviour. */
#ifndef SOWZERO_MATCH_H
#define SOWZERO_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "arena/openings.h"
#include "game/game.h"
#include "search/agent.h"

typedef struct {
  int games;         /* at most this many games (rounded up to pairs) */
  int sims;          /* simulations per move where the match runs the searches (gating) */
  int opening_plies; /* random plies that make each pair's opening */
  uint64_t seed;
  int sprt;           /* 1: stop when the SPRT decides */
  double elo0, elo1;  /* SPRT hypotheses */
  double alpha, beta; /* SPRT error rates */
  /* Variants of the game (borrowed; n_variants <= 1: the game alone):
   * pair k plays variant k mod n_variants. */
  const game *variants;
  int n_variants;
  const char *egdb_dir; /* match_specs' agents' agent_params.egdb_dir (NULL: the default) */
} match_params;

typedef struct {
  int wins, draws, losses;    /* for side A */
  double score;               /* (wins + draws/2) / games */
  double score_lo, score_hi;  /* 95% confidence interval of the score */
  double elo, elo_lo, elo_hi; /* Elo difference and its 95% interval */
  double llr;                 /* SPRT log-likelihood ratio */
  int sprt_verdict;           /* +1 H1 accepted, -1 H0 accepted, 0 undecided */
  int games;
} match_result;

/* The rules pair `pair` plays. */
const game *match_pair_game(const game *g, const match_params *p, int pair);
/* Pair `pair`'s start: its opening's plies, the position and history they
 * reach (of match_pair_game's rules). */
void match_pair_start(const game *g, const match_params *p, int pair, opening_line *op,
                      game_pos *pos, game_hist *h);
/* 1 if side A takes the first seat (South, or the side to move after the
 * opening) in game k of its pairing. */
int match_a_south(int k);
/* One game's outcome for a side (+1, 0, -1) added to its counts. */
void match_count(int *wins, int *draws, int *losses, int outcome);
/* After pair k's two games are counted (pairs in order): the SPRT's llr
 * and verdict. 1 when the match stops here (p->sprt and it decided). */
int match_pair_end(match_result *r, const match_params *p);
/* Score, Elo and their intervals from the counts. */
void match_summarize(match_result *r);

/* Side A against side B, one agent per variant each (a[v], b[v]; one
 * without variants), pair by pair with arena_play; agents are reset before
 * each game. -1 with a message if an agent fails. */
int match_agents(const game *g, agent *const *a, agent *const *b, const match_params *p,
                 match_result *out, char *err, size_t errlen);

/* The same with agents made from specs (spec_a is side A), one pair per
 * variant, seeded from p->seed (side B: p->seed + 1). -1 with a message
 * for a bad spec or a failing agent. */
int match_specs(const game *g, const char *spec_a, const char *spec_b, const match_params *p,
                match_result *out, char *err, size_t errlen);

#endif

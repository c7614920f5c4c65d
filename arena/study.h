/* study: how rule variants of one game play in practice, side by side.
 *
 * For every variant, one agent plays itself (stats.h): the first player's
 * results, draws, lengths, endings, captures, grand slams and the agent's
 * opening moves. Between every two variants, tests of whether the first
 * player's results, the draw rate and the length differ (signif.h), with
 * Holm's correction over the pairs. Optionally a cross-play matrix: other
 * agents (say, networks trained on one variant each) against the main
 * agent under every variant, both colours from a book of level openings
 * (arena.h); an agent that cannot play a variant (its weights are refused
 * for those rules) leaves that cell "cannot play" with the reason.
 *
 * Games differ from one another in one of three ways, the same for every
 * variant so that variants compare like with like:
 *   - sampled: the agent, if it takes the search setting temp_plies
 *     (mcts, zero), samples its first sample_plies moves in proportion to
 *     its visit counts (temperature 1 unless its spec says otherwise);
 *   - a book: games start after the plies of a book of level openings
 *     (openings.h), game k from opening k mod K; used when asked for, or
 *     when the agent, even sampled, plays the same moves whatever its
 *     random stream (it would replay one game);
 *   - from the start: the agent's own randomness (random playouts, ties).
 *
 * Everything depends on the seed, not on the threads. study_run runs on
 * the calling thread plus params.threads - 1 workers; the progress
 * callback is called on any of them, one call at a time. Nothing is
 * printed. */
#ifndef SOWZERO_STUDY_H
#define SOWZERO_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "arena/signif.h"
#include "arena/stats.h"
#include "game/game.h"

#define STUDY_MAX_VARIANTS 16
#define STUDY_MAX_CROSS    8
#define STUDY_LABEL_MAX    128
#define STUDY_SPEC_MAX     512

/* A rule variant: a configured game and how the user named it. */
typedef struct {
  char label[STUDY_LABEL_MAX]; /* "abapa", "oware grand_slam=capture_end" */
  game g;
} study_variant;

/* An agent of the cross-play matrix. */
typedef struct {
  char name[64];
  char spec[STUDY_SPEC_MAX];
} study_agent;

typedef struct {
  int games;            /* self-play games per variant, 1..1000000 */
  int threads;          /* 1..256 */
  uint64_t seed;        /* of the agents and the books */
  int sample_plies;     /* opening plies sampled by an agent that takes temp_plies; 0: none */
  int openings;         /* self-play book: K > 0 openings; 0 none; -1 min(games, 1000) if needed */
  int cross_games;      /* games per cross-play cell: even, 2..1000000 */
  int cross_openings;   /* cross-play book: K >= 0 openings (0: every game from the start) */
  int opening_plies;    /* both books: an opening is 1..opening_plies plies */
  int book_depth;       /* the alphabeta depth that judges an opening level */
  int book_margin;      /* kept if it scores within this (100 = one seed) */
  double alpha;         /* level of the verdicts, for each family of tests */
  const char *egdb_dir; /* the agents' agent_params.egdb_dir (NULL: the default) */
} study_params;

/* games 200, threads 1, seed 1, sample_plies 4, openings -1, cross_games
 * 100, cross_openings 50, and the arena's book settings; alpha 0.05. */
study_params study_defaults(void);
/* The seed of variant i's self-play games: the study's seed for the first,
 * a stream of its own for each other, so that the variants' samples are
 * independent, as the tests assume (two variants with the same rules then
 * differ by chance alone). The books are common to all. */
uint64_t study_variant_seed(uint64_t seed, int i);

/* How self-play games were made to differ (a set of these bits; none:
 * from the start, by the agent's own randomness). */
enum { STUDY_SAMPLED = 1, STUDY_BOOK = 2 };

/* The tests run on every pair of variants, in this order. */
enum {
  STUDY_T_RESULTS,     /* wins/draws/losses of the first player: chi-square, 2x3 */
  STUDY_T_SCORE,       /* the first player's mean score: pooled z */
  STUDY_T_DRAWS,       /* draw rate: two-proportion z */
  STUDY_T_LENGTH,      /* length distribution: Mann-Whitney U */
  STUDY_T_MEAN_LENGTH, /* mean length: Welch's t */
  STUDY_TESTS
};
/* "results", "score", "draws", "length", "mean_length". */
const char *study_test_name(int t);

typedef struct {
  stats_result s;
  stats_game *games; /* the games, s.games of them (owned by the result) */
  /* Opening preferences: games whose first ply was action a (played by
   * the first player), and whose first two plies were a then b, b played
   * by side m (m differs from the first player's unless the rules gave
   * the first player a second move). */
  int first[GAME_MAX_ACTIONS];
  int first_two[GAME_MAX_ACTIONS][2][GAME_MAX_ACTIONS];
  char rules[512];   /* game_options_string */
  int same_as;       /* the first earlier variant with identical rules, or -1 */
  int deterministic; /* 1: the self-play agent chose alike under two random streams */
} study_variant_result;

typedef struct {
  int a, b;       /* variant indices, a < b */
  int same_rules; /* identical rules: any difference is noise */
  signif_test t[STUDY_TESTS];
  double p_holm[STUDY_TESTS]; /* adjusted over the pairs, per test */
  int differ[STUDY_TESTS];    /* p_holm <= alpha */
} study_pair;

typedef struct {
  int played; /* 0: cannot play; reason says why */
  char reason[256];
  int wins, draws, losses; /* of the cross agent */
  double score, score_lo, score_hi;
  int distinct_games;
  double seconds;
} study_cell;

typedef struct {
  int n_variants, n_cross;
  study_params params;
  char agent[STUDY_SPEC_MAX];              /* the main agent as given */
  char selfplay_spec[STUDY_SPEC_MAX + 32]; /* as it played itself */
  int method;                              /* STUDY_SAMPLED | STUDY_BOOK bits */
  int book;                                /* self-play book size (with STUDY_BOOK) */
  int book_why;                            /* 1: asked for; 2: the agent is deterministic */
  study_variant_result v[STUDY_MAX_VARIANTS];
  int n_pairs;
  study_pair pairs[STUDY_MAX_VARIANTS * (STUDY_MAX_VARIANTS - 1) / 2];
  study_cell cross[STUDY_MAX_CROSS][STUDY_MAX_VARIANTS]; /* [agent][variant] */
  double seconds;
} study_result;

/* What the progress callback sees. */
enum { STUDY_PLAN, STUDY_SELFPLAY, STUDY_CROSS, STUDY_OPENINGS };
typedef struct {
  int phase;             /* STUDY_PLAN once (the method is decided), then the others */
  int variant;           /* index, -1 for STUDY_PLAN */
  int cross;             /* cross agent index, -1 outside STUDY_CROSS */
  int done, total;       /* games of this step (STUDY_OPENINGS: openings of a book) */
  double seconds;        /* since this step started */
  const study_result *r; /* the result so far (its plan fields are set) */
} study_progress;
typedef void (*study_progress_fn)(const study_progress *pr, void *ud);

/* Runs the study of variants[0..n_variants) (1..STUDY_MAX_VARIANTS, all
 * of one game) with `agent` playing itself, and cross[0..n_cross)
 * (0..STUDY_MAX_CROSS) against it. out is filled (and owns the games;
 * study_result_free releases them) even on failure. -1 with a message
 * naming the culprit: a parameter out of range, variants of different
 * games, an agent spec the main agent's kind refuses, a book that cannot
 * be filled, an agent that fails in a game. */
int study_run(const study_variant *variants, int n_variants, const char *agent,
              const study_agent *cross, int n_cross, const study_params *p,
              study_progress_fn progress, void *ud, study_result *out, char *err, size_t errlen);
void study_result_free(study_result *r);

#endif

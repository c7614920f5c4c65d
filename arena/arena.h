/* arena: matches between agents — one game (arena_play), and round robins
 * or gauntlets (arena_run) with every opening of a level book played with
 * both colours, games in parallel threads, and Elo ratings (ratings.h).
 * Game records of the games are record.h's.
 *
 * Threads: arena_run runs params.threads workers (base/pool.h); each makes
 * its own instances of every agent from the specs and plays whole games.
 * Before each game both agents are reseeded from (seed, game number, seat)
 * and reset, so results do not depend on the number of threads or on which
 * thread played which game (time-limited agents excepted). The callbacks are
 * called with the arena's lock held, one at a time, in completion order.
 *
 * Colours: game 2k and 2k+1 of a pairing start from the same opening with
 * the seats swapped (agent a is South in even games). */
#ifndef SOWZERO_ARENA_H
#define SOWZERO_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "arena/openings.h"
#include "arena/ratings.h"
#include "game/game.h"
#include "search/agent.h"
#include "search/timectl.h"

#define ARENA_MAX_AGENTS RATING_MAX_PLAYERS

/* The time control of a match, the same for every agent (agent_set_time):
 * per_move > 0 seconds a move, none banked; else main > 0 seconds a game
 * per side with inc added after each move; all zero: none. A side whose
 * move takes longer than its time (the per-move limit and grace, or what
 * its clock has left) loses the game on time. */
typedef struct {
  double per_move, main, inc;
  const timectl_clock *clock; /* times the moves; NULL: the wall clock (tests inject one) */
  double grace; /* a move over per_move by at most this does not lose (a busy machine's lag) */
} arena_clock;

typedef struct {
  int games;         /* games per pairing; even */
  int threads;       /* worker threads, >= 1 */
  int gauntlet;      /* 1: agent 0 against each other agent only */
  int openings;      /* book size K; 0: every game from the start */
  int opening_plies; /* an opening is 1..opening_plies random plies */
  int book_depth;    /* alphabeta depth that judges an opening level */
  int book_margin;   /* kept if |score| <= this (100 = one seed) */
  uint64_t seed;
  double prior_draws;                /* virtual draws per pairing in the Elo fit */
  int anchor;                        /* index of the agent rated 0; default 0, the first */
  opening_progress_fn book_progress; /* optional: reports while the book is made */
  void *book_ctx;
  arena_clock time;     /* the time control; default none */
  const char *egdb_dir; /* the agents' agent_params.egdb_dir (NULL: the default) */
} arena_params;

arena_params arena_defaults(void);

/* One finished game. */
typedef struct {
  int number;        /* game number in the match (0-based) */
  int pairing;       /* index into arena_result.pairings */
  int south, north;  /* agent indices */
  int opening;       /* book index, -1 for the start position */
  opening_line open; /* the opening's plies */
  int n_moves;       /* plies played by the agents */
  uint8_t moves[GAME_MAX_PLIES_CAP];
  game_pos final;    /* the finished position (ongoing after a loss on time) */
  int lost_on_time;  /* 1: the side to move at final ran out of time and lost; 0: no */
  double longest[2]; /* timed games: each side's longest move, seconds */
} arena_game;

/* The game's result for South: +1, 0 or -1 (a loss on time included). */
int arena_game_outcome(const arena_game *rec);

/* Plays one game: the opening plies, then the agents in turn until the game
 * ends. Fills rec (its number/pairing/opening fields are the caller's).
 * -1 with a message if an agent fails. */
int arena_play(const game *g, agent *south, agent *north, const opening_line *opening,
               arena_game *rec, char *err, size_t errlen);
/* The same under a time control (NULL: none): each agent is told its time
 * before each move, and a side out of time loses (rec->lost_on_time). */
int arena_play_timed(const game *g, agent *south, agent *north, const opening_line *opening,
                     const arena_clock *tc, arena_game *rec, char *err, size_t errlen);

/* Results of one pairing, counted for agent a. */
typedef struct {
  int a, b;
  int wins, draws, losses;
  int a_south_wins, a_south_draws, a_south_losses; /* the part with a as South */
} arena_pairing;

typedef struct {
  int n_agents;
  char specs[ARENA_MAX_AGENTS][256];
  int n_pairings;
  arena_pairing pairings[ARENA_MAX_AGENTS * (ARENA_MAX_AGENTS - 1) / 2];
  int anchor;                      /* agent rated 0 (params.anchor) */
  double elo[ARENA_MAX_AGENTS];    /* maximum-likelihood ratings */
  double elo_se[ARENA_MAX_AGENTS]; /* standard errors (0 for the anchor) */
  int games;                       /* games played */
  int distinct_games;              /* of those, how many differ (agents, opening or moves) */
  int south_wins, draws, north_wins;
  int time_losses[ARENA_MAX_AGENTS];     /* games each agent lost on time */
  double longest_move[ARENA_MAX_AGENTS]; /* timed matches: each agent's longest move, seconds */
  double seconds;
} arena_result;

typedef void (*arena_game_fn)(const arena_game *rec, const arena_result *so_far, void *ud);

/* Plays the match. on_game (may be NULL) sees every finished game. -1
 * with a message for a request out of range (agents, games, threads,
 * openings, anchor), a bad spec, a book that cannot be filled, or an agent
 * that fails. */
int arena_run(const game *g, int n_agents, const char *const *specs, const arena_params *p,
              arena_game_fn on_game, void *ud, arena_result *out, char *err, size_t errlen);

/* Whether the agent of spec plays the same moves whatever its random
 * stream: 1 if it chose alike under two streams on a few positions (the
 * start and positions after random plies from ap's seed), 0 if it did not, -1
 * with a message for a bad spec or a failing agent. A match between such
 * agents from the start position replays one game per colour, so `sowzero
 * arena` gives them an opening book by default. */
int arena_agent_deterministic(const game *g, const char *spec, const agent_params *ap, char *err,
                              size_t errlen);

/* Refits out->elo and out->elo_se from its pairings (rating_fit); NaN
 * for everyone when the pairings do not connect every agent to the
 * anchor. */
void arena_rate(arena_result *r, double prior_draws);

#endif

/* agent: everything that picks moves, behind one interface.
 *
 * An agent is made from a spec string — a kind and key=value settings, e.g.
 * "random", "greedy", "alphabeta depth=6" — which is what configs, the
 * engine protocol (`agent SPEC`) and the arena use. An agent handle belongs
 * to one thread at a time; it owns its RNG and any search memory. */
#ifndef SOWZERO_AGENT_H
#define SOWZERO_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "game/game.h"

typedef struct agent agent;

#define AGENT_PV_MAX 16 /* moves of a principal variation kept per move */

/* What a searching agent thinks of a position (protocol `analyze`). */
typedef struct {
  int n; /* entries below: the legal actions, in action order */
  int action[GAME_MAX_ACTIONS];
  int visits[GAME_MAX_ACTIONS];  /* search visits (0 for non-searching) */
  float prior[GAME_MAX_ACTIONS]; /* policy prior */
  float value[GAME_MAX_ACTIONS]; /* mean value for the mover, -1..1 */
  float root_value;              /* value of the position for the mover */
  int best;                      /* the action it would play */
  int has_margin;                /* 1: margin holds the network's prediction */
  float margin;                  /* predicted final seed margin for the mover */
  /* Per move, from the mover's view: the network's predicted final margin
   * after it (exact when it ends the game); valid when has_margin. */
  float move_margin[GAME_MAX_ACTIONS];
  /* Per move: the line the search expects, the move itself first, then the
   * most visited child at each node below (mover-relative actions, each for
   * the side to move there); pv_len 0 for a move the search never tried. */
  int pv_len[GAME_MAX_ACTIONS];
  uint8_t pv[GAME_MAX_ACTIONS][AGENT_PV_MAX];
} agent_analysis;

/* What an agent is made with besides its game and spec. */
typedef struct {
  uint64_t seed;        /* fixes its random choices */
  const char *egdb_dir; /* where egdb=on finds the endgame database (a command's --egdb);
                           NULL or "": egdb_default_dir's choice */
} agent_params;

/* Makes an agent for game g from a spec. Returns NULL with a message naming
 * the culprit on a bad spec. */
agent *agent_make(const game *g, const char *spec, const agent_params *p, char *err, size_t errlen);
/* agent_make with the seed alone. */
agent *agent_create(const game *g, const char *spec, uint64_t seed, char *err, size_t errlen);
/* A `zero` agent from typed settings instead of a spec string (what the
 * trainer's evaluation plays): the network of weight file `weights`, `sims`
 * simulations a move, precision an nn_precision; every other setting the
 * kind's default. agent_spec gives the spec it equals. */
typedef struct {
  const char *weights;
  int sims;
  int precision;
} agent_zero_params;
agent *agent_zero_create(const game *g, const agent_zero_params *p, uint64_t seed, char *err,
                         size_t errlen);
void agent_free(agent *a);
/* Chooses an action for p; -1 on failure (message: agent_error). */
int agent_choose(agent *a, const game_pos *p, const game_hist *h);
/* Analysis of p; -1 (message: agent_error) if the kind cannot analyze. */
int agent_analyze(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out);
/* Tells the agent a new game starts (drops any reused search tree); a
 * searching agent draws its search's seeds from its random stream here. */
void agent_reset(agent *a);
/* Restarts the agent's random stream at (seed, stream). Before a game:
 * agent_reseed, then agent_reset, so the game depends on (seed, stream)
 * alone, not on what the agent played before (or on which thread). */
void agent_reseed(agent *a, uint64_t seed, uint64_t stream);

/* The time a caller (the engine protocol, the arena) gives the agent for
 * its moves from now on: per_move > 0 seconds for every move; else
 * remaining > 0 seconds left on the clock of the side the agent plays, and
 * increment seconds added after each of its moves; all zero: none. The
 * searching agents (alphabeta, mcts, zero) plan each move from it
 * (search/timectl.h), their own time= capping a move; the others ignore
 * it. The caller updates remaining before each move. */
typedef struct {
  double per_move, remaining, increment;
} agent_time;
void agent_set_time(agent *a, const agent_time *t);

/* The spec the agent was made from, its kind ("mcts"), and the message of
 * its last failed agent_choose or agent_analyze. Valid while a lives. */
const char *agent_spec(const agent *a);
const char *agent_kind_name(const agent *a);
const char *agent_error(const agent *a);

/* The usage line of the i-th kind of agent ("alphabeta depth=N ..."), for
 * help texts; NULL past the end. */
const char *agent_usage(int i);

#endif

/* Shared by the agent kinds of search/ only. */
#ifndef SOWZERO_AGENTS_INTERNAL_H
#define SOWZERO_AGENTS_INTERNAL_H

#include "base/kv.h"
#include "nn/nn.h"
#include "search/agent.h"
#include "search/evaluator_nn.h"
#include "search/timectl.h"

/* One kind of agent, implemented in search/. create parses the settings
 * (argv: "key=value" tokens) and sets a->impl; an unknown key, a key given
 * twice or a bad value is an error naming it. */
typedef struct {
  const char *kind;
  const char *usage; /* e.g. "alphabeta depth=N time=SECONDS" */
  int (*create)(agent *a, int argc, char *const *argv, char *err, size_t errlen);
  /* Chooses a legal action for p (ongoing); h is the repetition history
   * that led to p, read-only. Returns the action, or -1 on failure with a
   * message in a->err. */
  int (*choose)(agent *a, const game_pos *p, const game_hist *h);
  /* Fills an analysis of p; NULL for agents that do not search. */
  int (*analyze)(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out);
  void (*reset)(agent *a);     /* a new game starts; may be NULL */
  void (*free_impl)(agent *a); /* frees a->impl; may be NULL */
} agent_kind;

/* The fields belong to search/: callers elsewhere use agent.h's functions. */
struct agent {
  const agent_kind *kind;
  game g;              /* the game it plays (a copy) */
  rng_t rng;           /* its own random stream */
  char spec[256];      /* the spec it was made from */
  char egdb_dir[1024]; /* agent_params.egdb_dir ("": the default location) */
  char err[256];       /* last error of choose */
  agent_time time;     /* agent_set_time's */
  void *impl;          /* owned by the kind */
};

extern const agent_kind agent_random;    /* search/agent.c */
extern const agent_kind agent_greedy;    /* search/agent.c */
extern const agent_kind agent_alphabeta; /* search/alphabeta.c */
extern const agent_kind agent_mcts;      /* search/agent_search.c */
extern const agent_kind agent_zero;      /* search/agent_search.c */
extern const agent_kind agent_net;       /* search/agent_net.c */
extern const agent_kind agent_egdb_kind; /* search/agent_egdb.c */

/* Makes a's zero search from typed settings (search/agent_search.c). */
int agent_zero_build(agent *a, const agent_zero_params *p, char *err, size_t errlen);
/* The budget of a's move at p: the caller's time (agent_set_time) with
 * own_time (the agent's time=, 0: none) as a cap per move. */
timectl_budget agent_budget(const agent *a, const game_pos *p, double own_time);

/* Parses a kind's settings (argv: "key=value" tokens) into the targets
 * (base/kv.h: unknown and repeated keys, bad values); messages start with
 * "agent KIND: ". */
int agent_settings(const agent *a, kv_target *tg, int n, int argc, char *const *argv, char *err,
                   size_t errlen);

/* A network loaded for a's game and its evaluator (search/agent_net.c);
 * a->g takes the network's rule inputs (mcts_nn_load). Open refuses an empty path ("agent KIND needs weights=FILE"), files made
 * for another game and precision=bf16 on a CPU without AVX512_BF16;
 * precision is an nn_precision (the precision= setting), rules an
 * mcts_nn_rules (rules=). Close frees what
 * open made (also after a failed open, and twice). */
typedef struct {
  nn_net *net;
  mcts_nn *ev;
  double score_scale; /* the training's score_scale: score output x this = seeds */
} agent_network;
/* Loads the network (the shipped one of a's game without weights) in
 * precision; auto is measured at batch, the rows the agent evaluates at
 * once. */
int agent_network_open(agent_network *n, agent *a, const char *weights, int precision, int rules,
                       int batch, char *err, size_t errlen);
void agent_network_close(agent_network *n);
/* Fills out->margin and out->move_margin (out->n moves already listed)
 * from the network's score output for p and after each move (has_margin). */
void agent_network_margin(agent_network *n, const game *g, const game_pos *p, agent_analysis *out);
/* The setting that goes with weights=: the score_scale the network was
 * trained with (the trainer's default). */
#define AGENT_SCORE_SCALE_KEY(T, F) \
  KV_D("score_scale", T, F, 0.01, 1000, "10", "the training's score_scale (for analyze's margin)")
/* precision=auto|fp32|bf16|int8, an int holding an nn_precision. */
extern const char *const agent_precision_names[]; /* in nn_precision order */
/* rules=own|any, an int holding an mcts_nn_rules (mcts_nn_load). */
extern const char *const agent_rules_names[];
#define AGENT_RULES_KEY(T, F)                   \
  KV_E("rules", T, F, agent_rules_names, "own", \
       "own: only the rules the network was trained on; any: every rule set of its game")
#define AGENT_PRECISION_KEY(T, F)                                        \
  KV_E("precision", T, F, agent_precision_names, "auto",                 \
       "network arithmetic: auto (the fastest the CPU runs: int8 with "  \
       "AVX512_VNNI, else bf16, else int8 with AVX2, else fp32), fp32, " \
       "bf16 or int8")

/* The endgame-database settings every searching kind takes
 * (search/agent_egdb.c): egdb=DIR|on|off and egdb_seeds=N. */
typedef struct {
  char egdb[256]; /* a folder; "on": the default location; "" or "off": none */
  int seeds;      /* probe positions of at most this many seeds; 0: all */
} agent_egdb_opts;
const kv_table *agent_egdb_table(void);
void agent_egdb_defaults(agent_egdb_opts *o);
/* A database an agent uses: shared (egdb_acquire), so arena threads and
 * games do not reopen it. */
typedef struct {
  struct egdb *db; /* NULL: none asked for */
  int max_seeds;
} agent_egdb;
/* Opens what o asks for; an unreadable folder or one that does not serve
 * a's game is an error naming the setting and the folder. */
int agent_egdb_open(agent_egdb *d, const agent *a, const agent_egdb_opts *o, char *err,
                    size_t errlen);
void agent_egdb_close(agent_egdb *d); /* also after a failed open, and twice */

#endif

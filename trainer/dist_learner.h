/* dist_learner: the learner's side of a distributed run
 * (docs/DISTRIBUTED.md). Rank 0 checks that every rank runs the same
 * build and config, gives the actors the resolved config and the best
 * network, takes in their games between training steps without ever
 * waiting for them (into the buffer, the self-play counters and the kept
 * records, as a worker's games go), publishes each promotion, and at the
 * end stops the actors and takes their last games.
 *
 * Only the learner's thread calls these (MPI_THREAD_FUNNELED). */
#ifndef SOWZERO_DIST_LEARNER_H
#define SOWZERO_DIST_LEARNER_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "nn/nn.h"
#include "trainer/config.h"
#include "trainer/dist.h"
#include "trainer/records.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"

typedef struct dist_learner dist_learner;

/* An actor's game as it travels, in this build's byte order (every rank
 * runs the same build): this header, then n replay_samples, then nmoves
 * bytes of moves (the record's, when kept). */
typedef struct {
  uint32_t version;   /* of the network that played the game's last move */
  uint32_t n, nmoves; /* samples and moves that follow */
  uint32_t paused_ms; /* the actor's workers waited this long for room since its last game */
  uint32_t variant;   /* of the game, an index into the run's variants */
  uint32_t unused;
  uint64_t evals, eval_calls, search_ns, net_ns; /* the actor's work since its last game */
  game_pos final;
} dist_game_msg;

/* net's parameters as a network message of *len bytes (the caller frees
 * it): the version (the run's promotions when it was published) and the
 * parameter count as two uint32_t, then the parameters. NULL when out of
 * memory. */
unsigned char *dist_net_pack(const nn_net *net, uint32_t version, size_t *len);
/* A network message into net, which has the sender's shape; its version
 * into *version. -1 with a message for a message of another shape (net
 * unchanged). */
int dist_net_unpack(nn_net *net, const unsigned char *m, size_t len, uint32_t *version, char *err,
                    size_t errlen);

/* The start message rank 0 broadcasts after its set-up: the run's
 * iteration (which the actors' seeds follow) and c's text, *len bytes (the
 * caller frees it; NULL when out of memory). */
unsigned char *dist_start_pack(const train_config *c, uint32_t iteration, size_t *len);
/* A start message into *iteration and *c: 0; 1 when the learner failed
 * (its start says so, and its own message says why); -1 with a message
 * for a malformed message or a config this build refuses. */
int dist_start_unpack(const unsigned char *m, size_t len, uint32_t *iteration, train_config *c,
                      char *err, size_t errlen);

/* Where the actors' games go, and what the learner reads of the run (all
 * borrowed for the learner's lifetime). */
typedef struct {
  const train_config *c;
  replay *buf;
  selfplay_counters *counters;
  records *records;                         /* NULL: none kept */
  const uint32_t *promotions;               /* the run's promotions: the best's version */
  void (*say)(void *ctx, const char *line); /* progress lines; may be NULL */
  void *say_ctx;
} dist_learner_env;

/* Checks, then the config and best to the actors (the run at iteration
 * `iteration`). NULL with a message on failure; the actors know and end. */
dist_learner *dist_learner_start(dist *d, const dist_learner_env *env, unsigned iteration,
                                 const nn_net *best, char *err, size_t errlen);
/* Tells the actors the learner failed before it could start. */
void dist_learner_failed(dist *d);
/* Takes in every game waiting, without waiting for more. */
int dist_learner_poll(dist_learner *l, char *err, size_t errlen);
/* A promotion out to every actor. l may be NULL (no-op). */
int dist_learner_publish(dist_learner *l, const nn_net *best, char *err, size_t errlen);
/* Tells the actors to stop (once). */
int dist_learner_stop(dist_learner *l, char *err, size_t errlen);
/* Stops them if not yet done and takes their last games, until every
 * actor has said bye. */
int dist_learner_finish(dist_learner *l, char *err, size_t errlen);
/* 1 once every actor has left (the run cannot go on). */
int dist_learner_orphaned(const dist_learner *l);
/* metrics.jsonl's "dist" member, of the games since the last (l NULL:
 * nothing). */
void dist_learner_json(dist_learner *l, json_writer *w);
void dist_learner_free(dist_learner *l);

/* Game messages (total bytes, back to back, as actors send them, all from
 * rank 1) through the learner's intake without MPI: the same checks,
 * buffer and counters as dist_learner_poll (the learner benchmark). When w
 * is not NULL, the "dist" member of these games goes to it, as
 * dist_learner_json writes it for a run of two ranks. 0, or -1 with a
 * message naming the rank and what is wrong. */
int dist_learner_ingest(const dist_learner_env *env, const unsigned char *msgs, size_t total,
                        json_writer *w, char *err, size_t errlen);

#endif

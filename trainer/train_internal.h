/* What the files of a run's module (train.c, train_actor.c, train_bench.c,
 * dist_learner.c) share: the distributed run's messages and a few helpers.
 * The running run's state is train.c's own. */
#ifndef SOWZERO_TRAIN_INTERNAL_H
#define SOWZERO_TRAIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trainer/config.h"
#include "trainer/counters.h"
#include "trainer/dist.h"
#include "trainer/dist_learner.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"

/* Self-play's parameters from the config's keys (search, games, playout
 * cap, random plies, records, precision, database level); the caller adds
 * the seed, the schedule, the database and where games go. */
static inline selfplay_params train_selfplay_params(const train_config *c) {
  return (selfplay_params){.g = &c->g,
                           .variants = c->variant,
                           .variant_weight = c->variant_weight,
                           .n_variants = c->n_variants,
                           .search = c->search,
                           .games = c->games_per_thread,
                           .cap_sims = c->cap_sims,
                           .full_frac = c->full_frac,
                           .random_plies = c->random_plies,
                           .record_every = c->record_every,
                           .precision = c->precision,
                           .db_max_seeds = c->egdb_max_seeds};
}

/* Checks all ranks run the same build: a checksum of the executable,
 * gathered from every rank (collective). 0; 1 if a rank differs (every
 * rank knows, and err names it); -1 on an MPI failure. */
int train_same_build(dist *d, char *err, size_t errlen);

/* ---- A distributed run (docs/DISTRIBUTED.md) -----------------------------------
 * The messages between the learner (rank 0) and the actors, in this build's
 * byte order: every rank runs the same build (checked at start). */
enum {
  DIST_TAG_GAME = 1, /* actor to learner: dist_game_msg (dist_learner.h) and what follows it */
  DIST_TAG_NET = 2,  /* learner to actor: a network (dist_net_pack, dist_learner.h) */
  DIST_TAG_STOP = 3, /* learner to actor: stop playing; nothing follows it */
  DIST_TAG_BYE = 4,  /* actor to learner: nothing follows it from this rank */
  DIST_TAG_ACK = 5   /* learner to actor: a uint64_t, bytes of its games taken in since the last */
};
/* The learner acknowledges an actor's games every this many bytes; the
 * actor's games unacknowledged and queued are bounded by
 * selfplay.actor_outbox_mb (back-pressure). */
#define DIST_ACK_BYTES (1u << 20)

/* What rank 0 broadcasts after its set-up, before the config's text. */
typedef struct {
  uint32_t ok;        /* 0: the learner failed; the actors end quietly */
  uint32_t iteration; /* of the run, which the actors' seeds follow */
} dist_start_msg;

#endif

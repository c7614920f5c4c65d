/* Shared by the match loops of arena/ only (arena.c, stats.c). */
#ifndef SOWZERO_ARENA_INTERNAL_H
#define SOWZERO_ARENA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arena/arena.h"

/* What one worker of a match owns: an instance of every agent and a game
 * buffer. Only that worker's thread touches it. */
typedef struct {
  int n;
  agent *ag[ARENA_MAX_AGENTS];
  arena_game *rec;
} arena_seats;

/* Makes the n agents of specs (ap: the match seed and the database folder)
 * and the buffer; on -1 the caller still calls arena_seats_free. */
int arena_seats_create(arena_seats *s, const game *g, int n, const char *const *specs,
                       const agent_params *ap, char *err, size_t errlen);
void arena_seats_free(arena_seats *s);

/* Before game number k: the agent in seat 0 or 1 gets random stream 2k +
 * seat of the match seed and forgets the last game. Streams depend on the
 * game alone, so results do not depend on which worker plays it. */
void arena_seat_for_game(agent *a, uint64_t seed, int k, int seat);

#endif

/* replay: the replay buffer — a ring of compact training samples.
 *
 * A sample keeps the position (not its features: the learner encodes at
 * sampling time, so a buffer survives encoding changes of the same game),
 * the search's target policy, the outcome and the final seed margin, both
 * for the player to move. The ring holds the last `capacity` samples (the
 * training window).
 *
 * Thread safety: every function taking a replay* locks its mutex, so
 * self-play workers add while the learner samples. The file functions lock
 * too; a save writes a consistent snapshot. */
#ifndef SOWZERO_REPLAY_H
#define SOWZERO_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "game/game.h"

typedef struct {
  game_pos pos;                      /* the position searched */
  uint16_t policy[GAME_MAX_ACTIONS]; /* target distribution x 65535 */
  int8_t z;                          /* outcome for pos.mover: -1, 0, 1 */
  int8_t margin;                     /* final seed margin for pos.mover */
  uint8_t variant;                   /* index in the buffer's variant set */
} replay_sample;

typedef struct replay replay;

/* A buffer for `capacity` samples of game g (identified in files by its
 * name and option string). */
replay *replay_create(const game *g, int capacity, char *err, size_t errlen);
/* Makes the buffer one of a variant set v[0..n) (v[0] the game it was made
 * for): samples say their variant, files name the set. */
int replay_set_variants(replay *r, const game *v, int n, char *err, size_t errlen);
void replay_free(replay *r);

/* Fills a sample's policy field from floats (any non-negative weights;
 * normalised here). */
void replay_set_policy(replay_sample *s, const float *pi, int n_actions);
/* The sample's policy as floats summing to 1 over n_actions. */
void replay_get_policy(const replay_sample *s, float *pi, int n_actions);

/* Appends n samples, overwriting the oldest when full. */
void replay_add(replay *r, const replay_sample *s, int n);
/* n samples drawn uniformly with replacement; 0, or -1 when empty. */
int replay_sample_batch(replay *r, rng_t *rng, replay_sample *out, int n);

typedef struct {
  int capacity;
  int count;      /* samples held */
  uint64_t added; /* samples ever added (also across resumes) */
  size_t bytes;   /* memory of the ring */
} replay_stats;
void replay_get_stats(replay *r, replay_stats *out);

/* Files (docs/FORMATS.md, "Replay buffer"): written atomically; loading
 * refuses a file of another game or rule set, another version or record
 * size, a truncated or corrupted file, and a file holding any sample that
 * is not one of the game (checked against the game: the position, the
 * target policy, the outcome and margin), naming the problem and the
 * sample. A file with more samples than the capacity keeps the newest. A
 * refused file leaves the buffer as it was. */
int replay_save(replay *r, const char *path, char *err, size_t errlen);
int replay_load(replay *r, const char *path, char *err, size_t errlen);

#endif

/* For the reference implementations in the relay-game suites: the set of
 * every relay pick-up state seen during one move, as docs/games/README.md
 * describes the endless-move rule (a table of states, not the engine's
 * cycle detection). One set per test program; not thread-safe. */
#ifndef SOWZERO_TESTS_RELAY_REF_H
#define SOWZERO_TESTS_RELAY_REF_H

#include <stdint.h>
#include <string.h>

#define REF_STATE_BYTES 36
#define REF_SLOTS (1u << 17)

typedef struct {
  uint32_t gen[REF_SLOTS]; /* slot in use when equal to the set's generation */
  uint8_t key[REF_SLOTS][REF_STATE_BYTES];
  uint32_t cur;
} ref_set;

static ref_set ref_states; /* zero: no slot in use */

/* Empties the set (a new move). */
static inline void ref_set_clear(void) { ref_states.cur++; }

/* Adds a state of n <= REF_STATE_BYTES bytes; returns 1 if it was there. */
static inline int ref_set_add(const uint8_t *s, size_t n) {
  uint8_t k[REF_STATE_BYTES] = {0};
  memcpy(k, s, n);
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < REF_STATE_BYTES; i++) h = (h ^ k[i]) * 1099511628211ULL;
  for (uint32_t i = (uint32_t)(h >> 20) & (REF_SLOTS - 1);; i = (i + 1) & (REF_SLOTS - 1)) {
    if (ref_states.gen[i] != ref_states.cur) {
      ref_states.gen[i] = ref_states.cur;
      memcpy(ref_states.key[i], k, REF_STATE_BYTES);
      return 0;
    }
    if (memcmp(ref_states.key[i], k, REF_STATE_BYTES) == 0) return 1;
  }
}

#endif

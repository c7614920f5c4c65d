/* For the reference implementations in the relay-game suites: the set of
 * every relay pick-up state seen during one move, as docs/games/README.md
 * describes the endless-move rule (a table of states, not the engine's
 * cycle detection). One set per test program; not thread-safe. */
#ifndef SOWZERO_TESTS_RELAY_REF_H
#define SOWZERO_TESTS_RELAY_REF_H

#include <check.h>
#include <stdint.h>
#include <string.h>

#define REF_STATE_BYTES 36
#define REF_SLOTS       (1u << 17)

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

/* The relays of one move as a reference saw them: how many, and the pit
 * and seeds of the first eight pick-ups. */
typedef struct {
  int n, pit[8], seeds[8];
} ref_relays;

/* A relay pick-up of the b[at] seeds at pit `at` of the n-pit board b (n <
 * REF_STATE_BYTES), `dropped` seeds into the move: 1 when the move is
 * endless (this state, board and pit, was seen before in the move, or the
 * move has sown 100,000 seeds), so the reference stops before it; else the
 * pick-up is noted in r. */
static inline int ref_pickup(ref_relays *r, const int *b, int n, int at, long dropped) {
  uint8_t s[REF_STATE_BYTES];
  for (int i = 0; i < n; i++) s[i] = (uint8_t)b[i];
  s[n] = (uint8_t)at;
  if (ref_set_add(s, (size_t)n + 1) || dropped >= 100000) return 1;
  if (r->n < 8) {
    r->pit[r->n] = at;
    r->seeds[r->n] = b[at];
  }
  r->n++;
  return 0;
}

/* r holds n relays, the first at pits[i] with seeds[i] seeds. */
static inline void expect_relays(const ref_relays *r, int n, const int *pits, const int *seeds) {
  ck_assert_int_eq(r->n, n);
  for (int i = 0; i < n && i < 8; i++) {
    ck_assert_int_eq(r->pit[i], pits[i]);
    ck_assert_int_eq(r->seeds[i], seeds[i]);
  }
}

#endif

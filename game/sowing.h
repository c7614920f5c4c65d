/* Helpers shared by the relay-sowing games (Nam Nam, Bao with laps,
 * Kujifunza): endless-move detection and small board utilities.
 *
 * docs/games/README.md: relay sowing is deterministic on a finite state, so a
 * move either ends or loops for ever. The state at a relay pick-up is
 * (board, pit about to be picked up, direction); a move whose pick-up state
 * repeats is endless, and so is one that drops 100,000 seeds.
 *
 * Repeats are found with Brent's cycle detection: one saved state, compared
 * in full at every pick-up and replaced at powers of two. It needs no table
 * and has no hash collisions, and it flags exactly the moves a table of every
 * pick-up state would flag: a state that repeats repeats for ever, so Brent
 * finds it (or the seed cap does). It may find it some pick-ups later than
 * the first repeat; relay_run_cut finds the exact cut point that
 * endless_move=truncate needs. */
#ifndef SOWZERO_GAME_SOWING_H
#define SOWZERO_GAME_SOWING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "game/game.h"

/* Seeds dropped in one move beyond which the move counts as endless. */
#define RELAY_SEED_CAP 100000

/* What a relay engine reports at each step. */
enum {
  RELAY_END = 0,   /* the move is over */
  RELAY_PICKUP = 1 /* stopped before a relay pick-up */
};

/* Endless-move options shared by the relay games (endless_move=). */
enum { ENDLESS_ILLEGAL, ENDLESS_TRUNCATE };
static const char *const relay_endless_names[] = {"illegal", "truncate", NULL};
/* The endless_move entry of their option tables. */
#define RELAY_ENDLESS_OPTION                                                                  \
  {                                                                                           \
    "endless_move", relay_endless_names, 0, 1, ENDLESS_ILLEGAL,                               \
        "a relay move that never ends is illegal, or is cut at its first repeated pick-up", 1 \
  }

typedef struct {
  uint8_t board[GAME_MAX_PITS]; /* the saved pick-up state */
  int pit, dir;
  unsigned power, lam; /* Brent: steps since the save, and the next save */
} relay_guard;

static inline void relay_guard_init(relay_guard *r) {
  r->pit = -1;
  r->dir = 0;
  r->power = 1;
  r->lam = 0;
}

/* Called at every relay pick-up with the board before the pick-up (n
 * bytes). Returns the cycle length if this state equals the saved one (the
 * move is endless), else 0. */
static inline unsigned relay_guard_seen(relay_guard *r, const uint8_t *b, size_t n, int pit,
                                        int dir) {
  if (r->pit == pit && r->dir == dir && memcmp(r->board, b, n) == 0) return r->lam;
  if (r->pit < 0 || r->lam == r->power) {
    if (r->pit >= 0) r->power *= 2;
    memcpy(r->board, b, n);
    r->pit = pit;
    r->dir = dir;
    r->lam = 0;
  }
  r->lam++;
  return 0;
}

/* A relay engine seen from outside, for the slow path of truncate. */
typedef struct {
  size_t size; /* of the engine struct, at most RELAY_MAX_ENGINE bytes */
  /* Runs to the next relay pick-up (RELAY_PICKUP, stopped before it) or to
   * the end of the move (RELAY_END). */
  int (*advance)(void *m);
  /* The pick-up state (board of n bytes, pit, direction) and the seeds
   * dropped so far. */
  void (*state)(const void *m, const uint8_t **board, size_t *n, int *pit, int *dir, long *drops);
} relay_ops;

#define RELAY_MAX_ENGINE 128

static inline int relay_same(const relay_ops *ops, const void *a, const void *b) {
  const uint8_t *ba, *bb;
  size_t na, nb;
  int pa, pb, da, db;
  long xa, xb;
  ops->state(a, &ba, &na, &pa, &da, &xa);
  ops->state(b, &bb, &nb, &pb, &db, &xb);
  return pa == pb && da == db && memcmp(ba, bb, na) == 0;
}

/* The move of engine m (at the start of the move) under endless_move=
 * truncate. The move is cut at the first relay pick-up j whose state
 * repeats an earlier one or by which 100,000 seeds were dropped, whichever
 * comes first: m is left stopped before that pick-up and 1 returned. A move
 * that ends before j returns 0.
 *
 * Brent's method may see a repeat only some pick-ups after the first one,
 * so it is found from the cycle length in a second pass; and a repeat at
 * pick-up R is always seen by pick-up 3R+2, so when the seed cap comes at
 * pick-up C without a repeat seen, running on to 3C+3 decides whether one
 * came before C. Rare, so not fast. */
static inline int relay_run_cut(void *m, const relay_ops *ops) {
  union {
    unsigned char b[RELAY_MAX_ENGINE];
    max_align_t align;
  } start, cap, a, b;
  memcpy(start.b, m, ops->size);
  relay_guard gd;
  relay_guard_init(&gd);
  unsigned long pick = 0, cap_pick = 0;
  int capped = 0;
  for (;; pick++) {
    if (ops->advance(m) == RELAY_END) break;
    const uint8_t *board;
    size_t n;
    int pit, dir;
    long drops;
    ops->state(m, &board, &n, &pit, &dir, &drops);
    unsigned lam = relay_guard_seen(&gd, board, n, pit, dir);
    if (lam) {
      /* Second pass: a at pick-up i, b at pick-up i+lam, until they meet:
       * b is then at the first repeat. */
      memcpy(a.b, start.b, ops->size);
      memcpy(b.b, start.b, ops->size);
      ops->advance(a.b);
      for (unsigned i = 0; i <= lam; i++) ops->advance(b.b);
      unsigned long first = lam;
      while (!relay_same(ops, a.b, b.b)) {
        ops->advance(a.b);
        ops->advance(b.b);
        first++;
      }
      memcpy(m, capped && cap_pick < first ? cap.b : b.b, ops->size);
      return 1;
    }
    if (!capped && drops >= RELAY_SEED_CAP) {
      capped = 1;
      cap_pick = pick;
      memcpy(cap.b, m, ops->size);
    }
    if (capped && pick > 3 * cap_pick + 3) break;
  }
  if (!capped) return 0;
  memcpy(m, cap.b, ops->size); /* no repeat before the cap */
  return 1;
}

/* Runs the move of engine m (at the start of the move) to its end and
 * returns 0, or returns 1 if it is endless (docs/games/README.md): with truncate, m is
 * then left cut at the rule's pick-up (its seeds stay in the pit); without,
 * wherever the detection stopped. It is the hot loop of the relay games'
 * legal moves: called with their static const ops, the calls through ops
 * become direct calls, which an always_inline advance puts in the loop. */
static inline int relay_run(void *m, const relay_ops *ops, int truncate) {
  if (truncate) return relay_run_cut(m, ops);
  relay_guard gd;
  relay_guard_init(&gd);
  while (ops->advance(m) == RELAY_PICKUP) {
    const uint8_t *board;
    size_t n;
    int pit, dir;
    long drops;
    ops->state(m, &board, &n, &pit, &dir, &drops);
    if (relay_guard_seen(&gd, board, n, pit, dir) || drops >= RELAY_SEED_CAP) return 1;
  }
  return 0;
}

/* The glue from a game's relay engine to relay_run, written once. T is the
 * engine struct, with its board `b` (n bytes used) and its `drops`; STEP its
 * step (RELAY_END or RELAY_PICKUP), best always_inline; PIT and DIR the
 * pick-up pit and direction as expressions of the engine `x` (DIR 0 where
 * the game sows one way). Defines `static int run_move(T *m, int truncate)`:
 * runs a whole move, 1 if it is endless (relay_run). */
#define RELAY_ENGINE(T, STEP, N, PIT, DIR)                                                      \
  __attribute__((always_inline)) static inline int relay_advance_(void *m) {                    \
    return STEP((T *)m);                                                                        \
  }                                                                                             \
  static void relay_state_(const void *m, const uint8_t **board, size_t *n, int *pit, int *dir, \
                           long *drops) {                                                       \
    const T *x = m;                                                                             \
    *board = x->b;                                                                              \
    *n = (N);                                                                                   \
    *pit = (PIT);                                                                               \
    *dir = (DIR);                                                                               \
    *drops = x->drops;                                                                          \
  }                                                                                             \
  static const relay_ops relay_ops_ = {sizeof(T), relay_advance_, relay_state_};                \
  _Static_assert(sizeof(T) <= RELAY_MAX_ENGINE, "relay engine too large");                      \
  static int run_move(T *m, int truncate) { return relay_run(m, &relay_ops_, truncate); }

#endif

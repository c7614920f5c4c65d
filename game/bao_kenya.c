/* Bao for Kenyan children (docs/games/bao-kenya.md): a Kalah-like game on 2 x 8
 * pits with a store beside each row that the mover sows into; extra turns,
 * captures from the opposite pit, starvation.
 *
 * South owns pits 0-7 and store 0 (after pit 7), North pits 8-15 and store 1
 * (after pit 15); pit i faces pit 15-i. */
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"

enum {
  OPT_SEEDS,
  OPT_SOW_BOTH_STORES,
  OPT_KALAH_CAPTURE,
  OPT_TARGET,
  OPT_MAX_PLIES,
  OPT_STALEMATE,
  OPT_FIRST_PLAYER
};

enum { STALE_OWN_SIDE, STALE_DRAW };

#define ROW  8
#define PITS 16

static const char *const no_yes[] = {"no", "yes", NULL};
static const char *const stalemate_names[] = {"own_side", "draw", NULL};

static const game_option kenya_options[] = {
    {"seeds", NULL, 1, 6, 3, "seeds per pit at the start", 0},
    {"sow_both_stores", no_yes, 0, 1, 0,
     "sowing drops a seed in the opponent's store too (the origin is then skipped "
     "from the 18th seed)",
     1},
    {"kalah_capture", no_yes, 0, 1, 0,
     "the capturing seed goes to the store too, and only if the opposite pit holds seeds", 1},
    {"target", NULL, 0, 96, 25, "a store reaching this ends the game; 0 = off", 1},
    {"max_plies", NULL, 1, GAME_MAX_PLIES_CAP, 600, "hard cap on the game length", 0},
    {"stalemate", stalemate_names, 0, 1, STALE_OWN_SIDE,
     "at the ply cap each player adds his row, or the game is a draw", 1},
    {"first_player", NULL, 0, 1, 0, "who moves first: 0 = South, 1 = North", 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

/* Slot codes of the sowing ring: 0..15 are pits, STORE0 + s is store s. */
enum { STORE0 = 16 };

static inline int row_sum(const game_pos *p, int side) {
  int s = 0;
  for (int i = side * ROW; i < side * ROW + ROW; i++) s += p->pits[i];
  return s;
}

static inline uint64_t kenya_hash(const game_pos *p) { return game_hash(p, 2); }

/* Final scores: stores plus, when `rows`, each player's own row. */
static void finish(game_pos *p, int reason, int rows, int winner) {
  int s0 = p->store[0], s1 = p->store[1];
  if (rows) {
    s0 += row_sum(p, 0);
    s1 += row_sum(p, 1);
  }
  game_finish(p, reason, s0, s1, winner);
}

/* The checks after a move or a setboard: target (at once), starvation of the
 * side to move, the ply cap. */
static void settle(const game *g, game_pos *p) {
  int t = g->opt[OPT_TARGET];
  if (t && (p->store[0] >= t || p->store[1] >= t)) {
    finish(p, GAME_END_TARGET, 1, -1);
    return;
  }
  /* A mover with an empty row cannot play: the opponent captures his own
   * row (each row to its owner, the mover's being empty). */
  if (row_sum(p, p->mover) == 0) {
    finish(p, GAME_END_FAMINE, 1, -1);
    return;
  }
  if (p->ply >= g->opt[OPT_MAX_PLIES]) {
    if (g->opt[OPT_STALEMATE] == STALE_DRAW)
      finish(p, GAME_END_MAXPLIES, 0, GAME_DRAW);
    else
      finish(p, GAME_END_MAXPLIES, 1, -1);
  }
}

static game_moves kenya_legal(const game *g, const game_pos *p) {
  (void)g;
  game_moves m = 0;
  for (int a = 0; a < ROW; a++) m |= (game_moves)(p->pits[p->mover * ROW + a] != 0) << a;
  return m;
}

static int kenya_play(const game *g, game_pos *p, int action) {
  int me = p->mover, opp = 1 - me, both = g->opt[OPT_SOW_BOTH_STORES];
  /* The ring in sowing order from the mover's first pit: own row, own
   * store, opponent's row, and the opponent's store if it is sown. */
  int ring[18], n = 0;
  for (int k = 0; k < ROW; k++) ring[n++] = me * ROW + k;
  ring[n++] = STORE0 + me;
  for (int k = 0; k < ROW; k++) ring[n++] = opp * ROW + k;
  if (both) ring[n++] = STORE0 + opp;
  int origin = action, seeds = p->pits[me * ROW + action], at = origin;
  p->pits[me * ROW + action] = 0;
  while (seeds--) {
    if (++at == n) at = 0;
    if (at == origin && ++at == n) at = 0; /* the origin is skipped on every lap */
    int slot = ring[at];
    if (slot >= STORE0)
      p->store[slot - STORE0]++;
    else
      p->pits[slot]++;
  }
  int last = ring[at], flags = 0;
  p->ply++;
  if (last == STORE0 + me) {
    /* Extra turn: the mover stays. */
  } else {
    if (last < STORE0 && last / ROW == me && p->pits[last] == 1) {
      int facing = PITS - 1 - last, taken = p->pits[facing];
      if (g->opt[OPT_KALAH_CAPTURE]) {
        if (taken) { /* the capturing seed goes too (as in Kalah: not when nothing is taken) */
          p->pits[last] = 0;
          taken++;
        }
      }
      if (taken) {
        p->pits[facing] = 0;
        p->store[me] = (uint16_t)(p->store[me] + taken);
        flags |= GAME_PLAY_CAPTURE;
      }
    }
    p->mover = (uint8_t)opp;
  }
  p->hash = kenya_hash(p);
  settle(g, p);
  return flags;
}

/* Never called: the game has no repetition rule (it cannot cycle). */
static void kenya_end_cycle(const game *g, game_pos *p) {
  (void)g;
  finish(p, GAME_END_REPETITION, 1, -1);
}

static int kenya_setup(game *g, char *err, size_t errlen) {
  g->n_pits = PITS;
  g->n_actions = ROW;
  g->n_features = 4 * PITS + 3;
  g->encoding_version = 1;
  g->total_seeds = PITS * g->opt[OPT_SEEDS];
  g->repetition = 0;
  if (g->opt[OPT_TARGET] > g->total_seeds) {
    errf(err, errlen, "target %d is more than the %d seeds in play", g->opt[OPT_TARGET],
         g->total_seeds);
    return -1;
  }
  return 0;
}

static void kenya_start(const game *g, game_pos *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < PITS; i++) p->pits[i] = (uint8_t)g->opt[OPT_SEEDS];
  p->mover = (uint8_t)g->opt[OPT_FIRST_PLAYER];
  p->hash = kenya_hash(p);
}

/* Where n seeds from own pit k (0..7, mover's view) end: 1 in the own
 * store, 2 in an own pit that was empty (a capture), else 0. */
static int sow_end(const game *g, const game_pos *p, int k, int n) {
  int len = PITS + 1 + g->opt[OPT_SOW_BOTH_STORES];
  /* Positions after the origin, in the ring of len slots (origin skipped). */
  int steps = (n - 1) % (len - 1) + 1, at = (k + steps) % len;
  if (at == ROW) return 1;
  if (at < ROW && n < len) return p->pits[p->mover * ROW + at] == 0 ? 2 : 0;
  return 0;
}

/* Features from the mover's view, his row first then the opponent's, each
 * from its owner's left: count/8, count==0, count==1, and for the mover's
 * pits where the sowing ends: 1 in his store (an extra turn), 0.5 in an
 * empty pit of his (a capture), else 0; then both stores over the target
 * and the ply over max_plies. */
static void kenya_encode(const game *g, const game_pos *p, float *out) {
  int me = p->mover;
  for (int k = 0; k < PITS; k++) {
    int pit = (me * ROW + k) % PITS, c = p->pits[pit];
    float *f = out + 4 * k;
    f[0] = (float)c * 0.125f;
    f[1] = c == 0;
    f[2] = c == 1;
    f[3] = 0;
    if (k < ROW && c) {
      int e = sow_end(g, p, k, c);
      f[3] = e == 1 ? 1.0f : e == 2 ? 0.5f : 0.0f;
    }
  }
  float *f = out + 4 * PITS;
  float t = (float)(g->opt[OPT_TARGET] ? g->opt[OPT_TARGET] : g->total_seeds / 2 + 1);
  f[0] = (float)p->store[me] / t;
  f[1] = (float)p->store[1 - me] / t;
  f[2] = (float)p->ply / (float)g->opt[OPT_MAX_PLIES];
}

static void kenya_render(const game *g, const game_pos *p, char *buf, size_t len) {
  (void)g;
  board_text t = {buf, len, 0};
  board_render_rows(&t, p, ROW, BOARD_WIDE | BOARD_STORES);
  board_render_result(&t, p, "", "");
}

/* MOVER P0..P15 STORE0 STORE1 */
static int kenya_setboard(const game *g, game_pos *p, int argc, char *const *argv, char *err,
                          size_t errlen) {
  return board_setboard(g, p, argc, argv, kenya_hash, settle, err, errlen);
}

const game_rules bao_kenya_rules = {
    .name = "bao-kenya",
    .summary = "Bao for Kenyan children: 2 x 8 pits, Kalah-like stores, extra turns, captures",
    .options = kenya_options,
    .setup = kenya_setup,
    .start = kenya_start,
    .legal = kenya_legal,
    .play = kenya_play,
    .end_cycle = kenya_end_cycle,
    .encode = kenya_encode,
    .render = kenya_render,
    .setboard = kenya_setboard,
    .board_tokens = board_tokens,
};

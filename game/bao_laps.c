/* Bao, Kenyan with laps (docs/games/bao-laps.md): relay sowing over 2 x 8 pits,
 * one capture from the opposite pit when a move ends in an empty own pit.
 *
 * South owns pits 0-7, North 8-15; pit i faces pit 15-i. Stores hold
 * captures only. */
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"
#include "game/sowing.h"

enum {
  OPT_SEEDS,
  OPT_TARGET,
  OPT_NOCAP_LIMIT,
  OPT_MAX_PLIES,
  OPT_STALEMATE,
  OPT_ENDLESS,
  OPT_FIRST_PLAYER
};

enum { STALE_OWN_SIDE, STALE_DRAW };

#define ROW  8
#define PITS 16

static const char *const stalemate_names[] = {"own_side", "draw", NULL};

static const game_option laps_options[] = {
    {"seeds", NULL, 1, 4, 2, "seeds per pit at the start", 0},
    {"target", NULL, 0, 64, 17,
     "captures that end the game at once (17 = a majority of 32); 0 = play to the end", 1},
    {"nocap_limit", NULL, 0, GAME_MAX_PLIES_CAP, 100,
     "plies without a capture that end the game by the stalemate rule; 0 = off", 0},
    {"max_plies", NULL, 1, GAME_MAX_PLIES_CAP, 600, "hard cap on the game length (stalemate rule)",
     0},
    {"stalemate", stalemate_names, 0, 1, STALE_OWN_SIDE,
     "at a stalemate each player adds his own row, or the game is a draw", 1},
    RELAY_ENDLESS_OPTION,
    {"first_player", NULL, 0, 1, 0, "who moves first: 0 = South, 1 = North", 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static inline int row_sum(const game_pos *p, int side) {
  int s = 0;
  for (int i = side * ROW; i < side * ROW + ROW; i++) s += p->pits[i];
  return s;
}

static inline uint64_t laps_hash(const game_pos *p) { return game_hash(p, 2); }

/* ---- Relay sowing ------------------------------------------------------------ */

typedef struct {
  uint8_t b[PITS];
  int pos; /* last pit sown; at a pick-up, the pit to pick up */
  long drops;
} run;

/* Picks up m->pos and sows counter-clockwise until the last seed falls in
 * an empty pit (RELAY_END) or in an occupied one (RELAY_PICKUP). */
__attribute__((always_inline)) static inline int step(run *m) {
  int hand = m->b[m->pos];
  m->b[m->pos] = 0;
  m->drops += hand;
  int pos = m->pos;
  while (hand--) {
    pos = (pos + 1) & (PITS - 1);
    m->b[pos]++;
  }
  m->pos = pos;
  return m->b[pos] == 1 ? RELAY_END : RELAY_PICKUP;
}

/* run_move and relay_run's view of the engine (sowing.h). */
RELAY_ENGINE(run, step, PITS, x->pos, 0)

/* ---- Legal moves ---------------------------------------------------------------- */

/* Candidates by counts (pits of 2+, or the singles when every non-empty
 * pit is a single), then endless moves removed (docs/games/README.md). */
static game_moves legal_any(const game *g, const game_pos *p, int first_only) {
  int base = p->mover * ROW;
  game_moves multi = 0, single = 0, m = 0;
  for (int a = 0; a < ROW; a++) {
    int c = p->pits[base + a];
    multi |= (game_moves)(c >= 2) << a;
    single |= (game_moves)(c == 1) << a;
  }
  game_moves cand = multi ? multi : single;
  if (g->opt[OPT_ENDLESS] == ENDLESS_TRUNCATE) return cand;
  for (game_moves r = cand; r; r &= r - 1) {
    int a = __builtin_ctz(r);
    run q;
    memcpy(q.b, p->pits, PITS);
    q.pos = base + a;
    q.drops = 0;
    if (!run_move(&q, 0)) {
      m |= 1u << a;
      if (first_only) break;
    }
  }
  return m;
}

static game_moves laps_legal(const game *g, const game_pos *p) { return legal_any(g, p, 0); }

/* ---- Endings ------------------------------------------------------------------ */

static void finish_rows(game_pos *p, int reason) {
  game_finish(p, reason, p->store[0] + row_sum(p, 0), p->store[1] + row_sum(p, 1), -1);
}

static void stalemate(const game *g, game_pos *p, int reason) {
  if (g->opt[OPT_STALEMATE] == STALE_DRAW)
    game_finish(p, reason, p->store[0], p->store[1], GAME_DRAW);
  else
    finish_rows(p, reason);
}

/* The checks after a move or a setboard: the early end at the target, a
 * mover who cannot play (empty row, or every move endless: the opponent
 * captures all the seeds left), the stalemate rules. */
static void settle(const game *g, game_pos *p) {
  int t = g->opt[OPT_TARGET], me = p->mover;
  if (t && (p->store[0] >= t || p->store[1] >= t)) {
    finish_rows(p, GAME_END_TARGET);
    return;
  }
  int reason = row_sum(p, me) == 0       ? GAME_END_FAMINE
               : legal_any(g, p, 1) == 0 ? GAME_END_NOMOVES
                                         : 0;
  if (reason) {
    int s[2] = {p->store[0], p->store[1]};
    s[1 - me] += row_sum(p, 0) + row_sum(p, 1);
    game_finish(p, reason, s[0], s[1], -1);
    return;
  }
  if (g->opt[OPT_NOCAP_LIMIT] && p->nocap >= g->opt[OPT_NOCAP_LIMIT]) {
    stalemate(g, p, GAME_END_NOCAPTURE);
    return;
  }
  if (p->ply >= g->opt[OPT_MAX_PLIES]) stalemate(g, p, GAME_END_MAXPLIES);
}

static int laps_play(const game *g, game_pos *p, int action) {
  int me = p->mover, flags = 0;
  run m;
  memcpy(m.b, p->pits, PITS);
  m.pos = me * ROW + action;
  m.drops = 0;
  int cut = run_move(&m, 0);
  if (cut) { /* endless (legal under truncate): cut it */
    memcpy(m.b, p->pits, PITS);
    m.pos = me * ROW + action;
    m.drops = 0;
    run_move(&m, 1);
  }
  memcpy(p->pits, m.b, PITS);
  p->ply++;
  p->nocap++;
  /* The move ends in an empty pit; on the mover's side it captures the
   * opposite pit. The capturing seed stays. A cut move captures nothing. */
  if (!cut && m.pos / ROW == me) {
    int facing = PITS - 1 - m.pos, taken = p->pits[facing];
    if (taken) {
      p->pits[facing] = 0;
      p->store[me] = (uint16_t)(p->store[me] + taken);
      p->nocap = 0;
      flags |= GAME_PLAY_CAPTURE;
    }
  }
  p->mover = (uint8_t)(1 - me);
  p->hash = laps_hash(p);
  settle(g, p);
  return flags;
}

/* Never called: the game has no repetition rule (nocap_limit instead). */
static void laps_end_cycle(const game *g, game_pos *p) { stalemate(g, p, GAME_END_REPETITION); }

static int laps_setup(game *g, char *err, size_t errlen) {
  g->n_pits = PITS;
  g->n_actions = ROW;
  g->n_features = 4 * PITS + 4;
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

static void laps_start(const game *g, game_pos *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < PITS; i++) p->pits[i] = (uint8_t)g->opt[OPT_SEEDS];
  p->mover = (uint8_t)g->opt[OPT_FIRST_PLAYER];
  p->hash = laps_hash(p);
}

/* Features from the mover's view, his row first then the opponent's, each
 * from its owner's left: count/4, count==0, count==1, count==2; then both
 * captures over the target (or half the seeds), the plies since the last
 * capture over nocap_limit, and the ply over max_plies. */
static void laps_encode(const game *g, const game_pos *p, float *out) {
  int me = p->mover;
  for (int k = 0; k < PITS; k++) {
    int c = p->pits[(me * ROW + k) % PITS];
    float *f = out + 4 * k;
    f[0] = (float)c * 0.25f;
    f[1] = c == 0;
    f[2] = c == 1;
    f[3] = c == 2;
  }
  float *f = out + 4 * PITS;
  float t = (float)(g->opt[OPT_TARGET] ? g->opt[OPT_TARGET] : g->total_seeds / 2 + 1);
  int lim = g->opt[OPT_NOCAP_LIMIT] ? g->opt[OPT_NOCAP_LIMIT] : 100;
  f[0] = (float)p->store[me] / t;
  f[1] = (float)p->store[1 - me] / t;
  f[2] = p->nocap >= lim ? 1.0f : (float)p->nocap / (float)lim;
  f[3] = (float)p->ply / (float)g->opt[OPT_MAX_PLIES];
}

static void laps_render(const game *g, const game_pos *p, char *buf, size_t len) {
  (void)g;
  board_text t = {buf, len, 0};
  board_render_rows(&t, p, ROW, BOARD_WIDE);
  board_render_result(&t, p, "", "");
}

/* MOVER P0..P15 STORE0 STORE1 */
static int laps_setboard(const game *g, game_pos *p, int argc, char *const *argv, char *err,
                         size_t errlen) {
  return board_setboard(g, p, argc, argv, laps_hash, settle, err, errlen);
}

const game_rules bao_laps_rules = {
    .name = "bao-laps",
    .summary = "Bao, Kenyan with laps: 2 x 8 pits, relay sowing, one capture per move",
    .options = laps_options,
    .setup = laps_setup,
    .start = laps_start,
    .legal = laps_legal,
    .play = laps_play,
    .end_cycle = laps_end_cycle,
    .encode = laps_encode,
    .render = laps_render,
    .setboard = laps_setboard,
    .board_tokens = board_tokens,
};

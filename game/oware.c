/* Oware family (RULES.md section 1): Oware/Abapa, Warri, Wari and the
 * grand-slam variants, on a 2 x houses board without sowing into stores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"

enum {
  OPT_HOUSES,
  OPT_SEEDS,
  OPT_GRAND_SLAM,
  OPT_TARGET,
  OPT_REPETITION,
  OPT_NOCAP_LIMIT,
  OPT_MAX_PLIES,
  OPT_CYCLE_AWARD,
  OPT_FEED_CHECK,
  OPT_LEFTOVER,
  OPT_FIRST_PLAYER
};

enum { GS_CONTINUE, GS_END, GS_FORBIDDEN, GS_NO_CAPTURE, GS_LOSES, GS_PRIOR_ONLY, GS_STRIPPED };
enum { AWARD_OWN_SIDE, AWARD_SPLIT_EVEN, AWARD_DRAW };
enum { FEED_SOW, FEED_AFTER_CAPTURE };
enum { LEFT_OWN_ROW, LEFT_NONE };

static const char *const gs_names[] = {"capture_continue", "capture_end", "forbidden",
                                       "no_capture", "loses", "end_prior_only",
                                       "stripped_loses", NULL};
static const char *const award_names[] = {"own_side", "split_even", "draw", NULL};
static const char *const feed_names[] = {"sow", "after_capture", NULL};
static const char *const leftover_names[] = {"own_row", "none", NULL};

static const game_option oware_options[] = {
    {"houses", NULL, 2, 8, 6, "pits per player"},
    {"seeds", NULL, 1, 8, 4, "seeds per pit at the start"},
    {"grand_slam", gs_names, 0, 6, GS_NO_CAPTURE,
     "a move whose capture would empty the opponent's row (RULES 1.5)"},
    {"target", NULL, 0, 128, 0, "score that ends the game; 0 = more than half the seeds"},
    {"repetition", NULL, 0, 10, 1,
     "the N-th repeat of a position since the last capture ends the game; 0 = off"},
    {"nocap_limit", NULL, 0, GAME_MAX_PLIES_CAP, 0,
     "plies without a capture that end the game; 0 = off"},
    {"max_plies", NULL, 1, GAME_MAX_PLIES_CAP, 1000, "hard cap on the game length"},
    {"cycle_award", award_names, 0, 2, AWARD_OWN_SIDE,
     "who gets the board when a cycle or a cap ends the game"},
    {"feed_check", feed_names, 0, 1, FEED_SOW,
     "what counts as feeding: sowing into the row, or seeds left after the capture"},
    {"leftover", leftover_names, 0, 1, LEFT_OWN_ROW,
     "seeds on the board at the end: each row's owner adds them, or nobody"},
    {"first_player", NULL, 0, 1, 0, "who moves first: 0 = South, 1 = North"},
    {NULL, NULL, 0, 0, 0, NULL}};

static inline int row_sum(const game_pos *p, int side, int h) {
  int s = 0;
  for (int i = side * h; i < side * h + h; i++) s += p->pits[i];
  return s;
}

static int target_of(const game *g) {
  return g->opt[OPT_TARGET] ? g->opt[OPT_TARGET] : g->total_seeds / 2 + 1;
}

/* Sows the seeds of absolute pit `from` (non-empty) into b; returns the last
 * pit. Whole laps skip the origin, so each lap fills n-1 pits. */
static inline int sow(uint8_t *b, int n, int from) {
  int seeds = b[from];
  b[from] = 0;
  int laps = seeds / (n - 1), rem = seeds % (n - 1);
  if (laps)
    for (int i = 0; i < n; i++) b[i] = (uint8_t)(b[i] + laps);
  b[from] = 0;
  int pit = from;
  for (int k = 0; k < rem; k++) {
    if (++pit == n) pit = 0;
    b[pit]++;
  }
  return rem ? pit : (from + n - 1) % n;
}

/* Captures backwards from `last` in the opponent row [lo, hi); returns the
 * seeds taken and empties those pits in b. */
static inline int capture_chain(uint8_t *b, int last, int lo, int hi) {
  int taken = 0;
  for (int i = last; i >= lo && i < hi && (b[i] == 2 || b[i] == 3); i--) {
    taken += b[i];
    b[i] = 0;
  }
  return taken;
}

/* Result of trying a move on a copy of the board. */
typedef struct {
  uint8_t b[GAME_MAX_PITS]; /* board after sowing and capture */
  int captured;             /* seeds the capture chain would take */
  int grand_slam;           /* capture would leave the opponent row empty */
  int fed;                  /* sowing reached the opponent's row */
} trial;

static inline void try_move(const game_pos *p, int h, int pit, trial *t) {
  int n = 2 * h, me = p->mover, olo = (1 - me) * h, ohi = olo + h;
  int seeds = p->pits[pit], rel = pit - me * h;
  memcpy(t->b, p->pits, sizeof t->b);
  int last = sow(t->b, n, pit);
  t->fed = seeds > h - 1 - rel;
  t->captured = 0;
  t->grand_slam = 0;
  if (last >= olo && last < ohi) {
    t->captured = capture_chain(t->b, last, olo, ohi);
    int rest = 0;
    for (int i = olo; i < ohi; i++) rest += t->b[i];
    t->grand_slam = t->captured > 0 && rest == 0;
  }
}

static game_moves oware_legal(const game *g, const game_pos *p) {
  int h = g->opt[OPT_HOUSES], me = p->mover, base = me * h;
  int opp_empty = row_sum(p, 1 - me, h) == 0;
  int gs = g->opt[OPT_GRAND_SLAM];
  game_moves m = 0;
  if (!opp_empty && gs != GS_FORBIDDEN && g->opt[OPT_FEED_CHECK] == FEED_SOW) {
    for (int r = 0; r < h; r++)
      if (p->pits[base + r]) m |= 1u << r;
    return m;
  }
  /* Feeding and the forbidden grand slam need the move tried out. */
  game_moves non_gs = 0;
  for (int r = 0; r < h; r++) {
    if (!p->pits[base + r]) continue;
    trial t;
    try_move(p, h, base + r, &t);
    if (opp_empty) {
      int feeds = t.fed;
      if (g->opt[OPT_FEED_CHECK] == FEED_AFTER_CAPTURE) {
        int capture_applies = !t.grand_slam || gs == GS_CONTINUE || gs == GS_END ||
                              gs == GS_STRIPPED;
        feeds = feeds && !(t.grand_slam && capture_applies);
      }
      if (!feeds) continue;
    }
    m |= 1u << r;
    if (!t.grand_slam) non_gs |= 1u << r;
  }
  if (gs == GS_FORBIDDEN && non_gs) m = non_gs;
  return m;
}

/* Every ending that awards the board row by row (RULES 1.6). */
static void finish_rows(const game *g, game_pos *p, int reason) {
  int h = g->opt[OPT_HOUSES];
  int s0 = p->store[0], s1 = p->store[1];
  if (g->opt[OPT_LEFTOVER] == LEFT_OWN_ROW) {
    s0 += row_sum(p, 0, h);
    s1 += row_sum(p, 1, h);
  }
  game_finish(p, reason, s0, s1, -1);
}

static void end_by_award(const game *g, game_pos *p, int reason) {
  int h = g->opt[OPT_HOUSES];
  switch (g->opt[OPT_CYCLE_AWARD]) {
  case AWARD_SPLIT_EVEN: {
    int rest = row_sum(p, 0, h) + row_sum(p, 1, h);
    game_finish(p, reason, p->store[0] + rest / 2, p->store[1] + rest / 2, -1);
    p->half = (uint8_t)(rest & 1);
    break;
  }
  case AWARD_DRAW:
    game_finish(p, reason, p->store[0], p->store[1], GAME_DRAW);
    break;
  default:
    finish_rows(g, p, reason);
  }
}

static void oware_end_cycle(const game *g, game_pos *p) {
  end_by_award(g, p, GAME_END_REPETITION);
}

/* The checks at the start of a turn (RULES 1.7 step 1) and the caps. */
static void settle(const game *g, game_pos *p) {
  int h = g->opt[OPT_HOUSES], me = p->mover, target = target_of(g);
  if (p->store[0] >= target || p->store[1] >= target ||
      p->store[0] + p->store[1] >= g->total_seeds) {
    finish_rows(g, p, GAME_END_TARGET);
    return;
  }
  if (row_sum(p, me, h) == 0 || oware_legal(g, p) == 0) {
    /* The mover cannot move (no seeds, or no way to feed): famine, each row
     * to its owner, which gives the board to whoever still has seeds. */
    finish_rows(g, p, GAME_END_FAMINE);
    return;
  }
  if (g->opt[OPT_NOCAP_LIMIT] && p->nocap >= g->opt[OPT_NOCAP_LIMIT]) {
    end_by_award(g, p, GAME_END_NOCAPTURE);
    return;
  }
  if (p->ply >= g->opt[OPT_MAX_PLIES]) end_by_award(g, p, GAME_END_MAXPLIES);
}

static int oware_play(const game *g, game_pos *p, int action) {
  int h = g->opt[OPT_HOUSES], n = 2 * h, me = p->mover, opp = 1 - me;
  int olo = opp * h, ohi = olo + h;
  int gs_rule = g->opt[OPT_GRAND_SLAM];
  int flags = 0;
  int pit = me * h + action;

  int last = sow(p->pits, n, pit);
  p->ply++;
  p->nocap++;
  int captured = 0, grand_slam = 0;
  if (last >= olo && last < ohi && (p->pits[last] == 2 || p->pits[last] == 3)) {
    uint8_t b[GAME_MAX_PITS];
    memcpy(b, p->pits, sizeof b);
    captured = capture_chain(b, last, olo, ohi);
    int rest = 0;
    for (int i = olo; i < ohi; i++) rest += b[i];
    grand_slam = rest == 0;
    if (!grand_slam || gs_rule == GS_CONTINUE || gs_rule == GS_END || gs_rule == GS_STRIPPED) {
      memcpy(p->pits, b, sizeof b);
      p->store[me] = (uint16_t)(p->store[me] + captured);
      p->nocap = 0;
      flags |= GAME_PLAY_CAPTURE;
    } else {
      captured = 0;
    }
  }
  if (grand_slam) flags |= GAME_PLAY_GRANDSLAM;

  if (grand_slam) {
    switch (gs_rule) {
    case GS_END: {
      /* "Cutting the head": the mover also takes his own row. */
      p->store[me] = (uint16_t)(p->store[me] + row_sum(p, me, h));
      game_finish(p, GAME_END_GRANDSLAM, p->store[0], p->store[1], -1);
      memset(p->pits, 0, sizeof p->pits);
      p->hash = game_hash(p);
      return flags;
    }
    case GS_LOSES:
      game_finish(p, GAME_END_GRANDSLAM, p->store[0], p->store[1], opp);
      p->hash = game_hash(p);
      return flags;
    case GS_PRIOR_ONLY:
      game_finish(p, GAME_END_GRANDSLAM, p->store[0], p->store[1], -1);
      p->hash = game_hash(p);
      return flags;
    case GS_STRIPPED: {
      int s[2] = {p->store[0], p->store[1]};
      s[me] += row_sum(p, me, h);
      game_finish(p, GAME_END_GRANDSLAM, s[0], s[1], me);
      p->hash = game_hash(p);
      return flags;
    }
    case GS_CONTINUE:
      /* The opponent passes: the mover moves again and must feed. */
      break;
    default:
      break;
    }
  }
  if (!(grand_slam && gs_rule == GS_CONTINUE)) p->mover = (uint8_t)opp;
  p->hash = game_hash(p);
  settle(g, p);
  return flags;
}

static int oware_setup(game *g, char *err, size_t errlen) {
  int h = g->opt[OPT_HOUSES];
  g->n_pits = 2 * h;
  g->n_actions = h;
  g->n_features = 10 * h + 4;
  g->encoding_version = 1;
  g->total_seeds = 2 * h * g->opt[OPT_SEEDS];
  g->repetition = g->opt[OPT_REPETITION];
  if (g->opt[OPT_TARGET] > g->total_seeds) {
    errf(err, errlen, "target %d is more than the %d seeds in play", g->opt[OPT_TARGET],
         g->total_seeds);
    return -1;
  }
  return 0;
}

static void oware_start(const game *g, game_pos *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < 2 * g->opt[OPT_HOUSES]; i++) p->pits[i] = (uint8_t)g->opt[OPT_SEEDS];
  p->mover = (uint8_t)g->opt[OPT_FIRST_PLAYER];
  p->hash = game_hash(p);
}

/* Features from the mover's view: for each pit, mover's row first, the
 * count scaled plus indicators of the counts captures hinge on (0, 1, 2 make
 * a pit capturable when sown into) and of a lap (12+ seeds); then both
 * scores scaled by the target, and the two clocks the rules depend on. */
static void oware_encode(const game *g, const game_pos *p, float *out) {
  int h = g->opt[OPT_HOUSES], n = 2 * h, me = p->mover;
  float target = (float)target_of(g);
  for (int k = 0; k < n; k++) {
    int c = p->pits[(me * h + k) % n];
    float *f = out + 5 * k;
    f[0] = (float)c * 0.125f;
    f[1] = c == 0;
    f[2] = c == 1;
    f[3] = c == 2;
    f[4] = c >= n - 1;
  }
  float *f = out + 5 * n;
  f[0] = (float)p->store[me] / target;
  f[1] = (float)p->store[1 - me] / target;
  int lim = g->opt[OPT_NOCAP_LIMIT] ? g->opt[OPT_NOCAP_LIMIT] : 100;
  f[2] = p->nocap >= lim ? 1.0f : (float)p->nocap / (float)lim;
  f[3] = (float)p->ply / (float)g->opt[OPT_MAX_PLIES];
}

static void oware_render(const game *g, const game_pos *p, char *buf, size_t len) {
  int h = g->opt[OPT_HOUSES];
  size_t k = 0;
#define OUT(...) \
  do { \
    if (k < len) k += (size_t)snprintf(buf + k, len - k, __VA_ARGS__); \
  } while (0)
  OUT("      ");
  for (int i = 2 * h - 1; i >= h; i--) OUT("%4d", i);
  OUT("\nNorth [");
  for (int i = 2 * h - 1; i >= h; i--) OUT("%4d", p->pits[i]);
  OUT(" ]  captured %d%s\nSouth [", p->store[1], p->mover == 1 ? "  <- to move" : "");
  for (int i = 0; i < h; i++) OUT("%4d", p->pits[i]);
  OUT(" ]  captured %d%s\n      ", p->store[0], p->mover == 0 ? "  <- to move" : "");
  for (int i = 0; i < h; i++) OUT("%4d", i);
  OUT("\n");
  if (p->status == GAME_OVER) {
    OUT("Game over (%s): %d%s - %d%s, ", game_end_name(p->end_reason), p->final[0],
        p->half ? ".5" : "", p->final[1], p->half ? ".5" : "");
    if (p->winner == GAME_DRAW)
      OUT("draw\n");
    else
      OUT("%s wins\n", p->winner == 0 ? "South" : "North");
  }
#undef OUT
}

static int parse_count(const char *s, int max, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == 0 || *end != 0 || v < 0 || v > max) return -1;
  *out = (int)v;
  return 0;
}

static int oware_setboard(const game *g, game_pos *p, int argc, char *const *argv,
                          char *err, size_t errlen) {
  int h = g->opt[OPT_HOUSES], n = 2 * h;
  if (argc != n + 3) {
    errf(err, errlen, "setboard takes MOVER, %d pits and 2 stores (%d numbers), got %d", n,
         n + 3, argc);
    return -1;
  }
  game_pos q;
  memset(&q, 0, sizeof q);
  int v, total = 0;
  if (parse_count(argv[0], 1, &v) != 0) {
    errf(err, errlen, "bad mover '%s' (0 or 1)", argv[0]);
    return -1;
  }
  q.mover = (uint8_t)v;
  for (int i = 0; i < n + 2; i++) {
    if (parse_count(argv[i + 1], g->total_seeds, &v) != 0) {
      errf(err, errlen, "bad seed count '%s' (0..%d)", argv[i + 1], g->total_seeds);
      return -1;
    }
    if (i < n)
      q.pits[i] = (uint8_t)v;
    else
      q.store[i - n] = (uint16_t)v;
    total += v;
  }
  if (total != g->total_seeds) {
    errf(err, errlen, "pits and stores hold %d seeds, this game has %d", total,
         g->total_seeds);
    return -1;
  }
  q.hash = game_hash(&q);
  settle(g, &q);
  *p = q;
  return 0;
}

static int oware_board_tokens(const game *g, const game_pos *p, char *buf, size_t len) {
  int n = 2 * g->opt[OPT_HOUSES];
  size_t k = 0;
  for (int i = 0; i < n + 2; i++) {
    int v = i < n ? p->pits[i] : p->store[i - n];
    int w = snprintf(buf + k, len - k, "%s%d", i ? " " : "", v);
    if (w < 0 || (size_t)w >= len - k) return -1;
    k += (size_t)w;
  }
  return 0;
}

const game_rules oware_rules = {
    .name = "oware",
    .summary = "Oware/Awari family: 2 x 6 pits, captures of 2 and 3, grand-slam variants",
    .options = oware_options,
    .setup = oware_setup,
    .start = oware_start,
    .legal = oware_legal,
    .play = oware_play,
    .end_cycle = oware_end_cycle,
    .encode = oware_encode,
    .render = oware_render,
    .setboard = oware_setboard,
    .board_tokens = oware_board_tokens,
};

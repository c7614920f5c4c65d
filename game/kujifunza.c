/* Bao la Kujifunza (docs/games/kujifunza.md): 4 x 8 pits, each player sowing
 * around his own two rows in either direction; capture moves (mtaji) whose
 * captured kete are sown again from an end of the front row, and kutakata
 * moves without captures. Kete never leave the board.
 *
 * Pit numbering: pit = 16 * side + l, where l is the owner's loop index
 * (docs/games/kujifunza.md): l 0-7 his back row from his left to his right, l 8-15 his
 * front row from his right to his left. So South's pit l is (row 0, column
 * l) for l < 8 and (row 1, column 15-l) for l >= 8; North's pit 16+l is
 * (row 3, column 7-l) for l < 8 and (row 2, column l-8) for l >= 8 (columns
 * from South's left). Counter-clockwise is l+1, clockwise l-1 (mod 16); the
 * front pit l faces the opponent's front pit 23-l.
 *
 * Actions are mover-relative: action = l + 16 * d, d = 0 counter-clockwise,
 * d = 1 clockwise. */
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"
#include "game/sowing.h"

enum { OPT_MAX_PLIES, OPT_ADJUDICATE, OPT_ENDLESS, OPT_FIRST_PLAYER };
enum { ADJ_DRAW, ADJ_KETE };

#define LOOP 16
#define PITS 32
#define KETE 64
#define CCW  1
#define CW   15 /* -1 mod 16 */

static const char *const adjudicate_names[] = {"draw", "kete", NULL};

static const game_option kuji_options[] = {
    {"max_plies", NULL, 1, GAME_MAX_PLIES_CAP, 600, "hard cap on the game length", 0},
    {"adjudicate", adjudicate_names, 0, 1, ADJ_DRAW,
     "at the ply cap the game is a draw, or more kete on one's side wins", 1},
    RELAY_ENDLESS_OPTION,
    {"first_player", NULL, 0, 1, 0, "who moves first: 0 = South, 1 = North", 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static inline uint64_t kuji_hash(const game_pos *p) { return game_hash(p, 4); }

static inline int side_kete(const game_pos *p, int side) {
  int s = 0;
  for (int l = 0; l < LOOP; l++) s += p->pits[side * LOOP + l];
  return s;
}

static inline int front_empty(const uint8_t *b, int side) {
  for (int l = 8; l < LOOP; l++)
    if (b[side * LOOP + l]) return 0;
  return 1;
}

/* Is (l, dir) of side me a mtaji: 2-15 kete whose last lands in an
 * occupied front pit facing an occupied opponent pit (15 kete never reach
 * the origin, so the current board decides). */
static inline int is_mtaji(const uint8_t *b, int me, int l, int dir) {
  int n = b[me * LOOP + l];
  if (n < 2 || n > 15) return 0;
  int last = (l + (dir == CCW ? n : LOOP - n)) & (LOOP - 1);
  return last >= 8 && b[me * LOOP + last] && b[(1 - me) * LOOP + 23 - last];
}

/* ---- Sowing ------------------------------------------------------------------- */

typedef struct {
  uint8_t b[PITS];
  int me;
  int l;       /* last pit sown (mover's loop index); at a pick-up, the pit to pick up */
  int dir;     /* CCW or CW */
  int capture; /* a mtaji move: landings may capture */
  int captures;
  long drops;
} run;

static void run_init(run *m, const game_pos *p, int l, int dir, int capture) {
  memcpy(m->b, p->pits, PITS);
  m->me = p->mover;
  m->l = l;
  m->dir = dir;
  m->capture = capture;
  m->captures = 0;
  m->drops = 0;
}

/* Picks up m->l and sows; after each sowing's last kete: an empty pit ends
 * the move; in a capture move an occupied front pit facing an occupied
 * opponent pit captures, and the captured kete are sown from an end of the
 * front row by the column rule; anything else relays (RELAY_PICKUP). */
__attribute__((always_inline)) static inline int step(run *m) {
  uint8_t *own = m->b + m->me * LOOP, *opp = m->b + (1 - m->me) * LOOP;
  int l = m->l, dir = m->dir, hand = own[l];
  own[l] = 0;
  for (;;) {
    m->drops += hand;
    while (hand--) {
      l = (l + dir) & (LOOP - 1);
      own[l]++;
    }
    if (own[l] == 1) break;
    if (m->capture && l >= 8 && opp[23 - l]) {
      hand = opp[23 - l];
      opp[23 - l] = 0;
      m->captures++;
      /* The owner's column of the capturing pit is 15-l: columns 0-1 sow
       * from the left end clockwise, 6-7 from the right end counter-
       * clockwise, the centre follows the sowing that captured. */
      int col = LOOP - 1 - l;
      if (col <= 1) dir = CW;
      if (col >= 6) dir = CCW;
      l = ((dir == CW ? 15 : 8) - dir) & (LOOP - 1); /* the first kete goes into the end pit */
      continue;
    }
    m->l = l;
    m->dir = dir;
    return RELAY_PICKUP;
  }
  m->l = l;
  m->dir = dir;
  return RELAY_END;
}

/* run_move and relay_run's view of the engine (sowing.h). */
RELAY_ENGINE(run, step, PITS, x->l, x->dir)

static inline int move_ends(const game_pos *p, int l, int dir, int capture) {
  run m;
  run_init(&m, p, l, dir, capture);
  return !run_move(&m, 0);
}

/* ---- Legal moves ---------------------------------------------------------------- */

static inline int act(int l, int dir) { return l + (dir == CW ? LOOP : 0); }

/* The mtaji moves (capture regime; only those that end count; under
 * truncate every move ends), else the kutakata moves: pits of 2+, front pits
 * only when a front pit holds 2+ (by counts), endless ones removed. With
 * first_only, stops at the first legal move. *capture tells the regime. */
static game_moves legal_any(const game *g, const game_pos *p, int first_only, int *capture) {
  const uint8_t *own = p->pits + p->mover * LOOP;
  int check = g->opt[OPT_ENDLESS] == ENDLESS_ILLEGAL;
  game_moves m = 0;
  for (int l = 0; l < LOOP; l++)
    for (int d = 0; d < 2; d++) {
      int dir = d ? CW : CCW;
      if (!is_mtaji(p->pits, p->mover, l, dir)) continue;
      if (check && !move_ends(p, l, dir, 1)) continue;
      m |= 1u << act(l, dir);
      if (first_only) goto done;
    }
done:
  if (capture) *capture = m != 0;
  if (m) return m;
  int from = 0;
  for (int l = 8; l < LOOP; l++)
    if (own[l] >= 2) from = 8;
  for (int l = from; l < LOOP; l++) {
    if (own[l] < 2) continue;
    for (int d = 0; d < 2; d++) {
      int dir = d ? CW : CCW;
      if (check && !move_ends(p, l, dir, 0)) continue;
      m |= 1u << act(l, dir);
      if (first_only) return m;
    }
  }
  return m;
}

static game_moves kuji_legal(const game *g, const game_pos *p) { return legal_any(g, p, 0, NULL); }

/* ---- Playing -------------------------------------------------------------------- */

static void adjudicate(const game *g, game_pos *p, int reason) {
  int k0 = side_kete(p, 0), k1 = side_kete(p, 1);
  game_finish(p, reason, k0, k1, g->opt[OPT_ADJUDICATE] == ADJ_KETE ? -1 : GAME_DRAW);
}

/* The checks at the start of a turn: a player without a legal move loses;
 * then the ply cap. */
static void settle(const game *g, game_pos *p) {
  if (!legal_any(g, p, 1, NULL)) {
    game_finish(p, GAME_END_NOMOVES, side_kete(p, 0), side_kete(p, 1), 1 - p->mover);
    return;
  }
  if (p->ply >= g->opt[OPT_MAX_PLIES]) adjudicate(g, p, GAME_END_MAXPLIES);
}

static int kuji_play(const game *g, game_pos *p, int action) {
  int me = p->mover, l = action & (LOOP - 1), dir = action >= LOOP ? CW : CCW;
  int truncate = g->opt[OPT_ENDLESS] == ENDLESS_TRUNCATE;
  int capture = is_mtaji(p->pits, me, l, dir);
  run m;
  run_init(&m, p, l, dir, capture);
  if (run_move(&m, 0)) {
    /* Endless. Under illegal, an endless mtaji is played as a kutakata when
     * no mtaji ends (the regime of legal_any); anything else is cut. */
    if (capture && !truncate) legal_any(g, p, 1, &capture);
    run_init(&m, p, l, dir, capture);
    if (run_move(&m, 0)) {
      run_init(&m, p, l, dir, capture);
      run_move(&m, 1);
    }
  }
  memcpy(p->pits, m.b, PITS);
  p->ply++;
  p->nocap = m.captures ? 0 : (uint16_t)(p->nocap + 1);
  int flags = m.captures ? GAME_PLAY_CAPTURE : 0;
  p->mover = (uint8_t)(1 - me);
  if (front_empty(p->pits, 1 - me))
    game_finish(p, GAME_END_FRONTROW, side_kete(p, 0), side_kete(p, 1), me);
  else if (front_empty(p->pits, me))
    game_finish(p, GAME_END_FRONTROW, side_kete(p, 0), side_kete(p, 1), 1 - me);
  else
    settle(g, p);
  p->hash = kuji_hash(p);
  return flags;
}

/* Never called: the game has no repetition rule (the ply cap instead). */
static void kuji_end_cycle(const game *g, game_pos *p) { adjudicate(g, p, GAME_END_REPETITION); }

static int kuji_setup(game *g, char *err, size_t errlen) {
  (void)err, (void)errlen;
  g->n_pits = PITS;
  g->n_actions = 2 * LOOP;
  g->n_features = 4 * PITS + 3;
  g->encoding_version = 1;
  g->total_seeds = KETE;
  g->repetition = 0;
  return 0;
}

static void kuji_start(const game *g, game_pos *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < PITS; i++) p->pits[i] = 2;
  p->mover = (uint8_t)g->opt[OPT_FIRST_PLAYER];
  p->hash = kuji_hash(p);
}

/* Features from the mover's view: his 16 pits, then the opponent's 16, each
 * in its owner's loop order (so the encoding does not depend on the side):
 * count/8, count==0, count==1, and whether the pit is a mtaji of its owner
 * in some direction; then the mover's share of the kete, whether his own
 * front row holds a pit of 2+ (kutakata restriction), and the ply over
 * max_plies. */
static void kuji_encode(const game *g, const game_pos *p, float *out) {
  int me = p->mover, front2 = 0;
  for (int k = 0; k < PITS; k++) {
    int side = k < LOOP ? me : 1 - me, l = k & (LOOP - 1);
    int c = p->pits[side * LOOP + l];
    float *f = out + 4 * k;
    f[0] = (float)c * 0.125f;
    f[1] = c == 0;
    f[2] = c == 1;
    f[3] = is_mtaji(p->pits, side, l, CCW) || is_mtaji(p->pits, side, l, CW);
    if (side == me && l >= 8 && c >= 2) front2 = 1;
  }
  float *f = out + 4 * PITS;
  f[0] = (float)side_kete(p, me) / KETE;
  f[1] = (float)front2;
  f[2] = (float)p->ply / (float)g->opt[OPT_MAX_PLIES];
}

/* Absolute pit at (row, column), columns from South's left. */
static inline int pit_at(int row, int col) {
  switch (row) {
    case 0:
      return col;
    case 1:
      return 15 - col;
    case 2:
      return LOOP + 8 + col;
    default:
      return LOOP + 7 - col;
  }
}

static void kuji_render(const game *g, const game_pos *p, char *buf, size_t len) {
  (void)g;
  board_text t = {buf, len, 0};
  static const char *const rows[4] = {"South back ", "South front", "North front", "North back "};
  board_textf(&t, "     column  ");
  for (int c = 0; c < 8; c++) board_textf(&t, "%4d", c);
  board_textf(&t, "\n");
  for (int r = 3; r >= 0; r--) {
    board_textf(&t, "%d %s [", r, rows[r]);
    for (int c = 0; c < 8; c++) board_textf(&t, "%4d", p->pits[pit_at(r, c)]);
    board_textf(&t, " ]");
    if (r == 3 && p->mover == 1) board_textf(&t, "  <- to move");
    if (r == 0 && p->mover == 0) board_textf(&t, "  <- to move");
    if (r == 2) board_textf(&t, "  North %d kete", side_kete(p, 1));
    if (r == 1) board_textf(&t, "  South %d kete", side_kete(p, 0));
    board_textf(&t, "\n");
  }
  board_textf(&t, "Moves: b|f (back/front row), the column from the mover's own left, ccw|cw\n");
  board_render_result(&t, p, "", " kete");
}

/* MOVER P0..P31 [0 0]: pits in pit order; the two stores, if given, are 0
 * (kete never leave the board). */
static int kuji_setboard(const game *g, game_pos *p, int argc, char *const *argv, char *err,
                         size_t errlen) {
  if (argc != PITS + 1 && argc != PITS + 3) {
    errf(err, errlen,
         "setboard takes MOVER and 32 pits, optionally 2 stores of 0 (33 or 35 numbers), "
         "got %d",
         argc);
    return -1;
  }
  game_pos q;
  memset(&q, 0, sizeof q);
  if (board_read_mover(&q, argv[0], err, errlen) != 0) return -1;
  int v, total = 0;
  for (int i = 0; i < argc - 1; i++) {
    int max = i < PITS ? KETE : 0;
    if (board_parse_int(argv[i + 1], 0, max, &v) != 0) {
      errf(err, errlen, "bad %s '%s' (0..%d)", i < PITS ? "kete count" : "store", argv[i + 1], max);
      return -1;
    }
    if (i < PITS) q.pits[i] = (uint8_t)v;
    total += v;
  }
  if (total != KETE) {
    errf(err, errlen, "the pits hold %d kete, this game has %d", total, KETE);
    return -1;
  }
  /* A position with an empty front row is over: its owner has lost. */
  if (front_empty(q.pits, 0) || front_empty(q.pits, 1)) {
    int loser = front_empty(q.pits, q.mover) ? q.mover : 1 - q.mover;
    game_finish(&q, GAME_END_FRONTROW, side_kete(&q, 0), side_kete(&q, 1), 1 - loser);
  } else {
    settle(g, &q);
  }
  q.hash = kuji_hash(&q);
  *p = q;
  return 0;
}

/* The pits, then the two stores, always 0 here (kete never leave the board). */
static int kuji_board_tokens(const game *g, const game_pos *p, char *buf, size_t len) {
  (void)g;
  game_pos q = *p;
  q.store[0] = q.store[1] = 0;
  return board_write(&q, PITS, buf, len) < 0 ? -1 : 0;
}

/* b|f, the column from the mover's own left, ccw|cw: "b6ccw". */
static int kuji_move_name(const game *g, int action, char *buf, size_t len) {
  (void)g;
  int l = action & (LOOP - 1);
  int w = snprintf(buf, len, "%c%d%s", l < 8 ? 'b' : 'f', l < 8 ? l : LOOP - 1 - l,
                   action >= LOOP ? "cw" : "ccw");
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

const game_rules kujifunza_rules = {
    .name = "kujifunza",
    .summary = "Bao la Kujifunza: 4 x 8 pits, captures sown from the front row's ends, kutakata",
    .options = kuji_options,
    .setup = kuji_setup,
    .start = kuji_start,
    .legal = kuji_legal,
    .play = kuji_play,
    .end_cycle = kuji_end_cycle,
    .encode = kuji_encode,
    .render = kuji_render,
    .setboard = kuji_setboard,
    .board_tokens = kuji_board_tokens,
    .move_name = kuji_move_name,
};

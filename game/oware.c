/* Oware family (docs/games/oware.md): Oware/Abapa, Warri, Wari and the
 * grand-slam variants, on a 2 x houses board without sowing into stores. */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
                                       "no_capture",       "loses",       "end_prior_only",
                                       "stripped_loses",   NULL};
static const char *const award_names[] = {"own_side", "split_even", "draw", NULL};
static const char *const feed_names[] = {"sow", "after_capture", NULL};
static const char *const leftover_names[] = {"own_row", "none", NULL};

static const game_option oware_options[] = {
    {"houses", NULL, 2, 8, 6, "pits per player", 0},
    {"seeds", NULL, 1, 8, 4, "seeds per pit at the start", 0},
    {"grand_slam", gs_names, 0, 6, GS_NO_CAPTURE,
     "a move whose capture would empty the opponent's row (docs/games/oware.md, Grand slams)", 1},
    {"target", NULL, 0, 128, 0, "score that ends the game; 0 = more than half the seeds", 1},
    {"repetition", NULL, 0, 10, 1,
     "the N-th repeat of a position since the last capture ends the game; 0 = off", 1},
    {"nocap_limit", NULL, 0, GAME_MAX_PLIES_CAP, 0,
     "plies without a capture that end the game; 0 = off", 0},
    {"max_plies", NULL, 1, GAME_MAX_PLIES_CAP, 1000, "hard cap on the game length", 0},
    {"cycle_award", award_names, 0, 2, AWARD_OWN_SIDE,
     "who gets the board when a cycle or a cap ends the game", 1},
    {"feed_check", feed_names, 0, 1, FEED_SOW,
     "what counts as feeding: sowing into the row, or seeds left after the capture", 1},
    {"leftover", leftover_names, 0, 1, LEFT_OWN_ROW,
     "seeds on the board at the end: each row's owner adds them, or nobody", 1},
    {"first_player", NULL, 0, 1, 0, "who moves first: 0 = South, 1 = North", 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

/* ---- Board primitives ---------------------------------------------------------
 * An Oware board has at most 16 pits, a byte each, so the whole board fits
 * one 16-byte vector; sowing and the row tests are a handful of vector
 * operations without branches (random play mispredicts every branch that
 * depends on seed counts). No pit ever holds 128 seeds, so signed byte
 * compares are safe. */
_Static_assert(2 * 8 <= 16, "Oware boards fit one 16-byte vector");

#define ROW_BITS(side, h) ((((1u << (h)) - 1)) << ((side) * (h)))

/* Oware's own position hash (not game_internal.h's game_hash): only pits and
 * mover identify an Oware position, so the two pit words are multiplied in
 * parallel and mixed once, without the ownership and phase terms. */
static inline uint64_t oware_hash(const game_pos *p) {
  uint64_t w0, w1;
  memcpy(&w0, p->pits, 8);
  memcpy(&w1, p->pits + 8, 8);
  uint64_t h = (w0 ^ (w0 >> 29)) * 0x9e3779b97f4a7c15ULL;
  uint64_t m = (w1 ^ (w1 >> 29)) * 0xc2b2ae3d27d4eb4fULL;
  h ^= ((m << 23) | (m >> 41)) ^ (p->mover + 1) * 0x27d4eb2f165667c5ULL;
  h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}

/* Bit i set for each non-empty pit i (i < 16). */
static inline unsigned nonempty_pits(const uint8_t *pits) {
#ifdef __SSE2__
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)pits);
  return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) & 0xffffu;
#else
  unsigned m = 0;
  for (int i = 0; i < 16; i++) m |= (unsigned)(pits[i] != 0) << i;
  return m;
#endif
}

static inline int row_sum(const game_pos *p, int side, int h) {
  int s = 0;
  for (int i = side * h; i < side * h + h; i++) s += p->pits[i];
  return s;
}

static int target_of(const game *g) {
  return g->opt[OPT_TARGET] ? g->opt[OPT_TARGET] : g->total_seeds / 2 + 1;
}

/* Sows the seeds of pit `from` (non-empty) over the n pits of b and returns
 * the last pit. The origin never receives a seed, so a lap fills n-1 pits:
 * every pit but the origin gets `laps`, then the `rem` pits after the
 * origin (wrapping) get one more. */
__attribute__((always_inline)) static inline int sow(uint8_t *b, int n, int from) {
  int seeds = b[from], laps = 0, rem = seeds;
  if (seeds >= n - 1) {
    laps = seeds / (n - 1);
    rem = seeds % (n - 1);
  }
#ifdef __SSE2__
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)b);
  __m128i vn = _mm_set1_epi8((char)n);
  /* d: how far each pit lies after the origin, 0..n-1 (the origin is n-1);
   * pits past the board are masked out by on_board. */
  __m128i d = _mm_sub_epi8(iota, _mm_set1_epi8((char)(from + 1)));
  d = _mm_add_epi8(d, _mm_and_si128(_mm_cmplt_epi8(d, _mm_setzero_si128()), vn));
  __m128i on_board = _mm_cmplt_epi8(iota, vn);
  __m128i not_origin = _mm_cmplt_epi8(d, _mm_set1_epi8((char)(n - 1)));
  __m128i one_more = _mm_and_si128(_mm_cmplt_epi8(d, _mm_set1_epi8((char)rem)), on_board);
  __m128i add = _mm_and_si128(_mm_and_si128(on_board, not_origin), _mm_set1_epi8((char)laps));
  add = _mm_sub_epi8(add, one_more); /* one_more lanes are -1 */
  x = _mm_andnot_si128(_mm_cmpeq_epi8(iota, _mm_set1_epi8((char)from)), x);
  _mm_storeu_si128((__m128i *)(void *)b, _mm_add_epi8(x, add));
#else
  b[from] = 0;
  for (int i = 0; i < n; i++) {
    int d = (i - from - 1 + n) % n;
    if (d != n - 1) b[i] = (uint8_t)(b[i] + laps + (d < rem));
  }
#endif
  /* Wrapped without branches: which way it wraps is a coin flip. */
  int last = rem ? from + rem : from - 1;
  last -= n & -(last >= n);
  last += n & -(last < 0);
  return last;
}

/* The capture chain that ends at `last` on board b: the run of opponent
 * pits (row bits `opp_row`) holding 2 or 3 that ends at last. Returns the
 * bits of those pits (0: no capture) and their seeds in *taken; b is not
 * changed. Computed on bit masks, without a loop, since whether a chain
 * goes on is exactly what a branch predictor cannot guess. */
static inline unsigned chain(const uint8_t *b, int last, unsigned opp_row, int *taken) {
  unsigned m2, m3;
#ifdef __SSE2__
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)b);
  m2 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(2)));
  m3 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(3)));
#else
  m2 = m3 = 0;
  for (int i = 0; i < 16; i++) {
    m2 |= (unsigned)(b[i] == 2) << i;
    m3 |= (unsigned)(b[i] == 3) << i;
  }
#endif
  unsigned upto = (2u << last) - 1;
  unsigned v = (m2 | m3) & opp_row & upto;
  unsigned gap = ~v & upto;                    /* pits at or below last that stop a chain */
  int lo = 32 - __builtin_clz(gap | 1) - !gap; /* above the highest gap; 0 if none */
  unsigned span = (upto & ~((1u << lo) - 1)) & -(v >> last & 1);
  *taken = 2 * __builtin_popcount(span) + __builtin_popcount(span & m3);
  return span;
}

/* What a move would do, worked out on a copy (legality filters). */
typedef struct {
  int captured;   /* seeds the capture chain would take */
  int grand_slam; /* the capture would leave the opponent row empty */
  int fed;        /* the sowing reached the opponent's row */
} trial;

static inline trial try_move(const game_pos *p, int h, int pit) {
  uint8_t b[GAME_MAX_PITS];
  int me = p->mover;
  memcpy(b, p->pits, sizeof b);
  trial t = {0, 0, p->pits[pit] > h - 1 - (pit - me * h)};
  int last = sow(b, 2 * h, pit);
  unsigned span = chain(b, last, ROW_BITS(1 - me, h), &t.captured);
  if (span) t.grand_slam = (nonempty_pits(b) & ROW_BITS(1 - me, h) & ~span) == 0;
  return t;
}

/* Does the capture of a grand slam happen under this variant? */
static inline int gs_captures(int rule) {
  return rule == GS_CONTINUE || rule == GS_END || rule == GS_STRIPPED;
}

/* Feeding and the forbidden grand slam need each move tried out. */
__attribute__((noinline)) static game_moves legal_tried(const game *g, const game_pos *p, int h,
                                                        game_moves mine, int opp_empty) {
  int gs = g->opt[OPT_GRAND_SLAM], base = p->mover * h;
  game_moves m = 0, non_gs = 0;
  for (game_moves r = mine; r; r &= r - 1) {
    int a = __builtin_ctz(r);
    trial t = try_move(p, h, base + a);
    if (opp_empty) {
      int feeds = t.fed;
      /* after_capture: a grand slam that captures leaves nothing fed. */
      if (g->opt[OPT_FEED_CHECK] == FEED_AFTER_CAPTURE && t.grand_slam && gs_captures(gs))
        feeds = 0;
      if (!feeds) continue;
    }
    m |= 1u << a;
    if (!t.grand_slam) non_gs |= 1u << a;
  }
  if (gs == GS_FORBIDDEN && non_gs) m = non_gs;
  return m;
}

/* The common case inline and small: both rows hold seeds, so every
 * non-empty pit of the mover is legal. */
__attribute__((always_inline)) static inline game_moves legal_h(const game *g, const game_pos *p,
                                                                int h) {
  int me = p->mover;
  unsigned nz = nonempty_pits(p->pits);
  game_moves mine = (nz >> (me * h)) & ((1u << h) - 1);
  int opp_empty = (nz & ROW_BITS(1 - me, h)) == 0;
  if (__builtin_expect(!opp_empty && g->opt[OPT_GRAND_SLAM] != GS_FORBIDDEN, 1)) return mine;
  return legal_tried(g, p, h, mine, opp_empty);
}

/* ---- Endings (docs/games/oware.md) ---------------------------------------------- */

/* Each row's seeds to its owner (unless leftover=none). */
__attribute__((cold)) static void finish_rows(const game *g, game_pos *p, int reason) {
  int h = g->opt[OPT_HOUSES];
  int s0 = p->store[0], s1 = p->store[1];
  if (g->opt[OPT_LEFTOVER] == LEFT_OWN_ROW) {
    s0 += row_sum(p, 0, h);
    s1 += row_sum(p, 1, h);
  }
  game_finish(p, reason, s0, s1, -1);
}

/* Cycles and caps: cycle_award decides who gets the board. */
__attribute__((cold)) static void end_by_award(const game *g, game_pos *p, int reason) {
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

static void oware_end_cycle(const game *g, game_pos *p) { end_by_award(g, p, GAME_END_REPETITION); }

/* The checks at the start of a turn (target, famine) and the caps; nz is
 * the non-empty pits of p. Scores change only by captures, so the target
 * needs checking only after one (check_target). */
__attribute__((always_inline)) static inline void settle_nz(const game *g, game_pos *p, unsigned nz,
                                                            int h, int check_target) {
  int me = p->mover;
  if (check_target) {
    int target = target_of(g);
    if (p->store[0] >= target || p->store[1] >= target ||
        p->store[0] + p->store[1] >= g->total_seeds) {
      finish_rows(g, p, GAME_END_TARGET);
      return;
    }
  }
  /* The mover cannot move (no seeds, or no way to feed the empty row):
   * famine, each row to its owner, which gives the board to whoever still
   * has seeds. With both rows non-empty some move is always legal. */
  if ((nz & ROW_BITS(me, h)) == 0 || ((nz & ROW_BITS(1 - me, h)) == 0 && legal_h(g, p, h) == 0)) {
    finish_rows(g, p, GAME_END_FAMINE);
    return;
  }
  if (g->opt[OPT_NOCAP_LIMIT] && p->nocap >= g->opt[OPT_NOCAP_LIMIT]) {
    end_by_award(g, p, GAME_END_NOCAPTURE);
    return;
  }
  if (p->ply >= g->opt[OPT_MAX_PLIES]) end_by_award(g, p, GAME_END_MAXPLIES);
}

static void settle(const game *g, game_pos *p) {
  settle_nz(g, p, nonempty_pits(p->pits), g->opt[OPT_HOUSES], 1);
}

/* The grand-slam variants that end the game (docs/games/oware.md). */
__attribute__((cold)) static void end_by_grand_slam(const game *g, game_pos *p, int rule) {
  int h = g->opt[OPT_HOUSES], me = p->mover, s[2] = {p->store[0], p->store[1]};
  switch (rule) {
    case GS_END: /* "cutting the head": the mover also takes his own row */
      s[me] += row_sum(p, me, h);
      game_finish(p, GAME_END_GRANDSLAM, s[0], s[1], -1);
      break;
    case GS_LOSES:
      game_finish(p, GAME_END_GRANDSLAM, s[0], s[1], 1 - me);
      break;
    case GS_PRIOR_ONLY: /* board seeds go to nobody */
      game_finish(p, GAME_END_GRANDSLAM, s[0], s[1], -1);
      break;
    default: /* GS_STRIPPED: the opponent cannot move and loses */
      s[me] += row_sum(p, me, h);
      game_finish(p, GAME_END_GRANDSLAM, s[0], s[1], me);
  }
}

__attribute__((always_inline)) static inline int play_h(const game *g, game_pos *p, int action,
                                                        int h) {
  int me = p->mover, opp = 1 - me;
  int rule = g->opt[OPT_GRAND_SLAM], flags = 0, taken;
  int last = sow(p->pits, 2 * h, me * h + action);
  unsigned nz = nonempty_pits(p->pits);
  p->ply++;
  p->nocap++;
  unsigned span = chain(p->pits, last, ROW_BITS(opp, h), &taken);
  if (span) {
    int grand_slam = (nz & ROW_BITS(opp, h) & ~span) == 0;
    if (grand_slam) flags |= GAME_PLAY_GRANDSLAM;
    if (!grand_slam || gs_captures(rule)) {
      for (unsigned r = span; r; r &= r - 1) p->pits[__builtin_ctz(r)] = 0;
      nz &= ~span;
      p->store[me] = (uint16_t)(p->store[me] + taken);
      p->nocap = 0;
      flags |= GAME_PLAY_CAPTURE;
    }
    if (grand_slam && rule != GS_NO_CAPTURE && rule != GS_FORBIDDEN && rule != GS_CONTINUE) {
      end_by_grand_slam(g, p, rule);
      p->hash = oware_hash(p);
      return flags;
    }
    /* capture_continue: the opponent passes and the mover must feed. */
    if (grand_slam && rule == GS_CONTINUE)
      p->mover = (uint8_t)me;
    else
      p->mover = (uint8_t)opp;
  } else {
    p->mover = (uint8_t)opp;
  }
  p->hash = oware_hash(p);
  settle_nz(g, p, nz, h, span != 0);
  return flags;
}

/* The standard board gets its own copies of the hot functions, with the
 * board size a constant the compiler folds into every mask and shift. */
static int oware_play(const game *g, game_pos *p, int action) {
  return g->opt[OPT_HOUSES] == 6 ? play_h(g, p, action, 6)
                                 : play_h(g, p, action, g->opt[OPT_HOUSES]);
}

static game_moves oware_legal(const game *g, const game_pos *p) {
  return g->opt[OPT_HOUSES] == 6 ? legal_h(g, p, 6) : legal_h(g, p, g->opt[OPT_HOUSES]);
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
  p->hash = oware_hash(p);
}

/* Features from the mover's view: for each pit, mover's row first, the
 * count scaled plus indicators of the counts captures hinge on (0, 1, 2 make
 * a pit capturable when sown into) and of a sowing that reaches every other
 * pit (2 * houses - 1 seeds or more); then both
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
  board_text t = {buf, len, 0};
  board_render_rows(&t, p, g->opt[OPT_HOUSES], 0);
  board_render_result(&t, p, "", "");
}

static int oware_setboard(const game *g, game_pos *p, int argc, char *const *argv, char *err,
                          size_t errlen) {
  return board_setboard(g, p, argc, argv, oware_hash, settle, err, errlen);
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
    .board_tokens = board_tokens,
};

/* Oware Nam Nam (docs/games/namnam.md): relay sowing on the 2 x 6 Oware board,
 * captures of four, and a game of rounds in which pits change hands.
 *
 * State beyond the board: owner (bit i: North owns pit i), store = seeds
 * captured this round, round = the round number (1-based), phase = play or
 * claim, aux[0] = who started this round (bit 0) and claims left (bits 1-3),
 * aux[1..2] = plies played in this round (16 bits, little-endian). */
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"
#include "game/sowing.h"

enum {
  OPT_CLAIM,
  OPT_STARTER,
  OPT_MAX_ROUNDS,
  OPT_EMPTY,
  OPT_REPETITION,
  OPT_NOCAP_LIMIT,
  OPT_MAX_PLIES,
  OPT_GAME_PLIES,
  OPT_ENDLESS,
  OPT_FIRST_PLAYER
};

enum { CLAIM_CHOOSE, CLAIM_FIXED };
enum { STARTER_ALTERNATE, STARTER_LOSER, STARTER_WINNER };
enum { EMPTY_PASS, EMPTY_FEED };
enum { PHASE_PLAY = 0, PHASE_CLAIM = 1 };

#define PITS      12
#define SEEDS     48
#define ALL_PITS  0xfffu
#define NORTH_ROW 0xfc0u

static const char *const claim_names[] = {"choose", "fixed", NULL};
static const char *const starter_names[] = {"alternate", "loser", "winner", NULL};
static const char *const empty_names[] = {"pass", "feed", NULL};

static const game_option namnam_options[] = {
    {"namnam_claim", claim_names, 0, 1, CLAIM_CHOOSE,
     "between rounds the leader chooses his extra pits (claim moves), or takes them in order", 1},
    {"round_starter", starter_names, 0, 2, STARTER_ALTERNATE,
     "who starts the next round: alternate, the round's loser, or its winner", 1},
    {"max_rounds", NULL, 1, 50, 12, "round cap; then more pits wins, equal is a draw", 0},
    {"namnam_empty", empty_names, 0, 1, EMPTY_PASS,
     "a player owning no seeds passes, or the opponent must feed him (else the round ends)", 1},
    {"repetition", NULL, 0, 10, 2,
     "the N-th repeat of a position since the last capture ends the round "
     "(2 = threefold); 0 = off",
     1},
    {"nocap_limit", NULL, 0, GAME_MAX_PLIES_CAP, 100,
     "plies without a capture that end the round; 0 = off", 0},
    {"max_plies", NULL, 1, GAME_MAX_PLIES_CAP, 400, "plies in one round that end it (stalemate)",
     0},
    {"game_plies", NULL, 1, GAME_MAX_PLIES_CAP, GAME_MAX_PLIES_CAP,
     "plies in the whole game that end it, counted like max_rounds", 0},
    RELAY_ENDLESS_OPTION,
    {"first_player", NULL, 0, 1, 0, "who starts the first round: 0 = South, 1 = North", 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

/* ---- State accessors ------------------------------------------------------------ */

static inline int owner_of(const game_pos *p, int pit) { return (int)(p->owner >> pit & 1); }
static inline unsigned owned_by(const game_pos *p, int side) {
  return side ? p->owner & ALL_PITS : ~p->owner & ALL_PITS;
}
static inline int starter_of(const game_pos *p) { return p->aux[0] & 1; }
static inline int claims_of(const game_pos *p) { return p->aux[0] >> 1 & 7; }
static inline void set_round_state(game_pos *p, int starter, int claims) {
  p->aux[0] = (uint8_t)(starter | claims << 1);
}
static inline int round_plies(const game_pos *p) { return p->aux[1] | p->aux[2] << 8; }
static inline void set_round_plies(game_pos *p, int n) {
  p->aux[1] = (uint8_t)n;
  p->aux[2] = (uint8_t)(n >> 8);
}

static inline unsigned nonempty(const game_pos *p) {
  unsigned m = 0;
  for (int i = 0; i < PITS; i++) m |= (unsigned)(p->pits[i] != 0) << i;
  return m;
}

static inline int board_seeds(const uint8_t *b) {
  int s = 0;
  for (int i = 0; i < PITS; i++) s += b[i];
  return s;
}

/* Pits, owner, mover and phase (game_hash), plus the round and the claims
 * left, so that positions of different rounds never count as repeats. */
static inline uint64_t nn_hash(const game_pos *p) {
  return game_hash(p, 2) ^ (uint64_t)(p->round * 8 + claims_of(p) + 1) * 0xd6e8feb86659fd93ULL;
}

/* Actions are mover-relative: action a is pit (a + 6 * mover) mod 12. */
static inline int pit_of(int mover, int a) { return (a + 6 * mover) % PITS; }
static inline int action_of(int mover, int pit) { return (pit + PITS - 6 * mover) % PITS; }

/* ---- Relay sowing ------------------------------------------------------------ */

typedef struct {
  uint8_t b[16];  /* pits 0..11 */
  uint32_t owner; /* as game_pos.owner */
  int mover;
  int pos; /* last pit sown; at a pick-up, the pit to pick up */
  int hand;
  int u;          /* seeds not yet captured this round: board plus hand */
  int cap[2];     /* seeds each side captured during this move */
  int captures;   /* captures of four during this move */
  int round_over; /* the last-eight rule ended the round */
  long drops;
} run;

static void run_init(run *m, const game_pos *p, int pit) {
  memcpy(m->b, p->pits, sizeof m->b);
  m->owner = p->owner;
  m->mover = p->mover;
  m->pos = pit;
  m->hand = 0;
  m->u = board_seeds(p->pits);
  m->cap[0] = m->cap[1] = 0;
  m->captures = 0;
  m->round_over = 0;
  m->drops = 0;
}

/* Picks up the seeds at m->pos and sows until the move ends or the last
 * seed asks for a relay (then stops before picking up). */
__attribute__((always_inline)) static inline int step(run *m) {
  m->hand = m->b[m->pos];
  m->b[m->pos] = 0;
  for (;;) {
    m->pos = m->pos == PITS - 1 ? 0 : m->pos + 1;
    int c = ++m->b[m->pos];
    m->hand--;
    m->drops++;
    if (c == 4) {
      /* A four: the pit's owner takes it while seeds remain in hand, the
       * mover when it was the last seed. */
      int who = m->hand ? (int)(m->owner >> m->pos & 1) : m->mover;
      m->b[m->pos] = 0;
      m->captures++;
      if (m->u <= 8) {
        /* Last eight (u counted before the capture): the capturer takes
         * everything left, seeds in hand included, and the round ends. */
        m->cap[who] += m->u;
        memset(m->b, 0, sizeof m->b);
        m->u = 0;
        m->hand = 0;
        m->round_over = 1;
        return RELAY_END;
      }
      m->cap[who] += 4;
      m->u -= 4;
      if (!m->hand) return RELAY_END;
      continue;
    }
    if (!m->hand) return c == 1 ? RELAY_END : RELAY_PICKUP;
  }
}

/* run_move and relay_run's view of the engine (sowing.h). */
RELAY_ENGINE(run, step, PITS, x->pos, 0)

/* ---- Legal moves ---------------------------------------------------------------- */

/* Is sowing `pit` a legal move: it ends (unless truncate), and under
 * namnam_empty=feed, it leaves an opponent without seeds some seeds. */
static inline int move_ok(const game *g, const game_pos *p, int pit, int feed_needed) {
  run m;
  run_init(&m, p, pit);
  int endless = run_move(&m, 0);
  if (endless && g->opt[OPT_ENDLESS] == ENDLESS_ILLEGAL) return 0;
  if (!feed_needed || m.round_over) return 1;
  if (endless) { /* truncate: judge the cut move by its board */
    run_init(&m, p, pit);
    run_move(&m, 1);
  }
  unsigned opp = p->mover ? ~m.owner & ALL_PITS : m.owner & ALL_PITS;
  for (int i = 0; i < PITS; i++)
    if (opp >> i & 1 && m.b[i]) return 1;
  return 0;
}

/* The legal actions; with first_only, stops at the first one found. */
static game_moves legal_any(const game *g, const game_pos *p, int first_only) {
  int me = p->mover;
  game_moves res = 0;
  if (p->phase == PHASE_CLAIM) {
    for (int k = 0; k < 6; k++) {
      int pit = (1 - me) * 6 + k;
      if (owner_of(p, pit) != me) res |= 1u << action_of(me, pit);
    }
    return res;
  }
  unsigned ne = nonempty(p);
  unsigned mine = owned_by(p, me) & ne;
  int feed = g->opt[OPT_EMPTY] == EMPTY_FEED && (owned_by(p, 1 - me) & ne) == 0;
  for (unsigned r = mine; r; r &= r - 1) {
    int pit = __builtin_ctz(r);
    if (move_ok(g, p, pit, feed)) {
      res |= 1u << action_of(me, pit);
      if (first_only) break;
    }
  }
  return res;
}

static game_moves namnam_legal(const game *g, const game_pos *p) { return legal_any(g, p, 0); }

/* ---- Rounds ------------------------------------------------------------------ */

/* Pits each player gets for the next round from the round totals t[]: four
 * seeds a pit; a remainder of 3 earns one more; two remainders of 2 give the
 * extra pit to the larger total (docs/games/namnam.md). */
static void hollows_from_totals(const int t[2], int h[2]) {
  for (int s = 0; s < 2; s++) {
    h[s] = t[s] / 4;
    if (t[s] % 4 == 3) h[s]++;
  }
  if (t[0] % 4 == 2 && t[1] % 4 == 2) h[t[0] > t[1] ? 0 : 1]++;
  while (h[0] + h[1] > PITS) h[t[0] > t[1] ? 1 : 0]--;
  while (h[0] + h[1] < PITS) h[t[0] > t[1] ? 0 : 1]++;
}

static void finish_game(game_pos *p, int reason, const int h[2]) {
  game_finish(p, reason, h[0], h[1], -1);
}

/* Pits each side will own once the claims left are made. */
static void hollows_now(const game_pos *p, int h[2]) {
  h[1] = __builtin_popcount(p->owner & ALL_PITS);
  h[0] = PITS - h[1];
  if (p->phase == PHASE_CLAIM) {
    h[p->mover] += claims_of(p);
    h[1 - p->mover] -= claims_of(p);
  }
}

/* Ends the round: each player adds the seeds left in the pits he owns (a
 * stalemate; after the last eight the board is empty), so the stores hold
 * the round's totals; then the next round is set up, or the game ends (the
 * stores then keep the last round's totals). */
static void end_round(const game *g, game_pos *p) {
  for (int i = 0; i < PITS; i++) {
    p->store[owner_of(p, i)] = (uint16_t)(p->store[owner_of(p, i)] + p->pits[i]);
    p->pits[i] = 0;
  }
  int t[2] = {p->store[0], p->store[1]}, h[2];
  hollows_from_totals(t, h);
  if (h[0] == 0 || h[1] == 0) {
    finish_game(p, GAME_END_TARGET, h);
    return;
  }
  if (p->round >= g->opt[OPT_MAX_ROUNDS]) {
    finish_game(p, GAME_END_MAXROUNDS, h);
    return;
  }
  if (p->ply >= g->opt[OPT_GAME_PLIES]) {
    finish_game(p, GAME_END_MAXPLIES, h);
    return;
  }
  int leader = h[0] > h[1] ? 0 : h[1] > h[0] ? 1 : -1;
  int prev = starter_of(p), starter = 1 - prev;
  if (leader >= 0 && g->opt[OPT_STARTER] == STARTER_LOSER) starter = 1 - leader;
  if (leader >= 0 && g->opt[OPT_STARTER] == STARTER_WINNER) starter = leader;
  p->round++;
  for (int i = 0; i < PITS; i++) p->pits[i] = 4;
  p->store[0] = p->store[1] = 0;
  p->owner = NORTH_ROW;
  p->nocap = 0;
  set_round_plies(p, 0);
  int claims = leader >= 0 ? h[leader] - 6 : 0;
  if (claims && g->opt[OPT_CLAIM] == CLAIM_FIXED) {
    /* The opponent's pits in sowing order, from the one next to the
     * leader's row. */
    for (int k = 0; k < claims; k++) {
      int pit = (1 - leader) * 6 + k;
      p->owner = leader ? p->owner | 1u << pit : p->owner & ~(1u << pit);
    }
    claims = 0;
  }
  if (claims) {
    p->phase = PHASE_CLAIM;
    p->mover = (uint8_t)leader;
  } else {
    p->phase = PHASE_PLAY;
    p->mover = (uint8_t)starter;
  }
  set_round_state(p, starter, claims);
}

/* The checks at the start of a turn: caps, then a player without a legal
 * move passes; when neither side can move the round ends. */
static void settle(const game *g, game_pos *p) {
  for (int k = 0; k < 8 && p->status == GAME_ONGOING; k++) {
    if (p->phase == PHASE_CLAIM) {
      if (p->ply >= g->opt[OPT_GAME_PLIES]) {
        int h[2];
        hollows_now(p, h);
        finish_game(p, GAME_END_MAXPLIES, h);
      }
      break;
    }
    int lim = g->opt[OPT_NOCAP_LIMIT];
    if (p->ply >= g->opt[OPT_GAME_PLIES] || (lim && p->nocap >= lim) ||
        round_plies(p) >= g->opt[OPT_MAX_PLIES]) {
      end_round(g, p);
      continue;
    }
    if (legal_any(g, p, 1)) break;
    p->mover ^= 1; /* pass */
    if (legal_any(g, p, 1)) break;
    end_round(g, p);
  }
  p->hash = nn_hash(p);
}

static void namnam_end_cycle(const game *g, game_pos *p) {
  end_round(g, p);
  settle(g, p);
}

/* ---- Playing -------------------------------------------------------------------- */

static int namnam_play(const game *g, game_pos *p, int action) {
  int me = p->mover, pit = pit_of(me, action), round = p->round;
  p->ply++;
  if (p->phase == PHASE_CLAIM) {
    p->owner = me ? p->owner | 1u << pit : p->owner & ~(1u << pit);
    int claims = claims_of(p) - 1;
    set_round_state(p, starter_of(p), claims);
    if (claims == 0) {
      p->phase = PHASE_PLAY;
      p->mover = (uint8_t)starter_of(p);
    }
    settle(g, p);
    return 0;
  }
  run m;
  run_init(&m, p, pit);
  if (run_move(&m, 0)) { /* endless (legal under truncate): cut it */
    run_init(&m, p, pit);
    run_move(&m, 1);
  }
  memcpy(p->pits, m.b, PITS);
  p->store[0] = (uint16_t)(p->store[0] + m.cap[0]);
  p->store[1] = (uint16_t)(p->store[1] + m.cap[1]);
  set_round_plies(p, round_plies(p) + 1);
  p->nocap = m.captures ? 0 : (uint16_t)(p->nocap + 1);
  p->mover = (uint8_t)(1 - me);
  if (m.round_over) end_round(g, p);
  settle(g, p);
  /* A capture or a new round restarts the repetition history. */
  return m.captures || p->round != round || p->status != GAME_ONGOING ? GAME_PLAY_CAPTURE : 0;
}

static int namnam_setup(game *g, char *err, size_t errlen) {
  (void)err, (void)errlen;
  g->n_pits = PITS;
  g->n_actions = PITS;
  g->n_features = 6 * PITS + 13;
  g->encoding_version = 1;
  g->total_seeds = SEEDS;
  g->repetition = g->opt[OPT_REPETITION];
  return 0;
}

static void namnam_start(const game *g, game_pos *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < PITS; i++) p->pits[i] = 4;
  p->owner = NORTH_ROW;
  p->mover = (uint8_t)g->opt[OPT_FIRST_PLAYER];
  p->round = 1;
  set_round_state(p, p->mover, 0);
  settle(g, p);
}

/* Features from the mover's view, pits in the mover's sowing order from his
 * own leftmost pit: count/8, count==0..3 (a 3 becomes a four with the next
 * seed), owned by the mover; then the round: both captures and the seeds
 * left (/48), the last-eight flag, the mover's pits after the claims (/12),
 * the claim phase and the claims left (/6), the round (/max_rounds), who
 * started it, and the three clocks. */
static void namnam_encode(const game *g, const game_pos *p, float *out) {
  int me = p->mover;
  for (int k = 0; k < PITS; k++) {
    int pit = (6 * me + k) % PITS, c = p->pits[pit];
    float *f = out + 6 * k;
    f[0] = (float)c * 0.125f;
    f[1] = c == 0;
    f[2] = c == 1;
    f[3] = c == 2;
    f[4] = c == 3;
    f[5] = owner_of(p, pit) == me;
  }
  float *f = out + 6 * PITS;
  int u = board_seeds(p->pits), h[2];
  hollows_now(p, h);
  int lim = g->opt[OPT_NOCAP_LIMIT] ? g->opt[OPT_NOCAP_LIMIT] : 100;
  f[0] = (float)p->store[me] / SEEDS;
  f[1] = (float)p->store[1 - me] / SEEDS;
  f[2] = (float)u / SEEDS;
  f[3] = u <= 8;
  f[4] = (float)h[me] / PITS;
  f[5] = p->phase == PHASE_CLAIM;
  f[6] = (float)claims_of(p) / 6;
  f[7] = (float)p->round / (float)g->opt[OPT_MAX_ROUNDS];
  f[8] = starter_of(p) == me;
  f[9] = p->nocap >= lim ? 1.0f : (float)p->nocap / (float)lim;
  f[10] = (float)round_plies(p) / (float)g->opt[OPT_MAX_PLIES];
  f[11] = (float)p->ply / (float)g->opt[OPT_GAME_PLIES];
  f[12] = g->opt[OPT_MAX_ROUNDS] - p->round == 0; /* the last round */
}

static void namnam_render(const game *g, const game_pos *p, char *buf, size_t len) {
  board_text t = {buf, len, 0};
  int h[2];
  hollows_now(p, h);
  board_textf(&t, "Round %d of %d, started by %s; pits owned: South %d, North %d\n", p->round,
              g->opt[OPT_MAX_ROUNDS], starter_of(p) ? "North" : "South", h[0], h[1]);
  if (p->phase == PHASE_CLAIM && p->status == GAME_ONGOING)
    board_textf(&t, "Claims: %s takes %d more of the opponent's pits\n",
                p->mover ? "North" : "South", claims_of(p));
  board_textf(&t, "       ");
  for (int i = 11; i >= 6; i--) board_textf(&t, "%4d", i);
  board_textf(&t, "\nNorth [");
  for (int i = 11; i >= 6; i--) board_textf(&t, "%3d%c", p->pits[i], owner_of(p, i) ? 'n' : 's');
  board_textf(&t, " ]  captured %d%s\nSouth [", p->store[1], p->mover == 1 ? "  <- to move" : "");
  for (int i = 0; i < 6; i++) board_textf(&t, "%3d%c", p->pits[i], owner_of(p, i) ? 'n' : 's');
  board_textf(&t, " ]  captured %d%s\n       ", p->store[0], p->mover == 0 ? "  <- to move" : "");
  for (int i = 0; i < 6; i++) board_textf(&t, "%4d", i);
  board_textf(&t, "\n(s/n after a count: the pit belongs to South/North)\n");
  board_render_result(&t, p, "pits ", "");
}

/* MOVER P0..P11 STORE0 STORE1 [OWNER ROUND STARTER [CLAIMS]] */
static int namnam_setboard(const game *g, game_pos *p, int argc, char *const *argv, char *err,
                           size_t errlen) {
  if (argc != 15 && argc != 18 && argc != 19) {
    errf(err, errlen,
         "setboard takes MOVER, 12 pits, 2 stores, optionally OWNER ROUND STARTER [CLAIMS] "
         "(15, 18 or 19 tokens), got %d",
         argc);
    return -1;
  }
  game_pos q;
  int v;
  if (board_read(&q, PITS, SEEDS, argv, err, errlen) != 0) return -1;
  q.owner = NORTH_ROW;
  q.round = 1;
  int starter = q.mover, claims = 0;
  if (argc >= 18) {
    const char *o = argv[15];
    if (strcmp(o, "-") != 0) {
      if (strlen(o) != PITS || strspn(o, "sn") != PITS) {
        errf(err, errlen, "bad owner '%s' (12 letters s/n for pits 0..11, or -)", o);
        return -1;
      }
      q.owner = 0;
      for (int i = 0; i < PITS; i++) q.owner |= (uint32_t)(o[i] == 'n') << i;
    }
    if (board_parse_int(argv[16], 1, g->opt[OPT_MAX_ROUNDS], &v) != 0) {
      errf(err, errlen, "bad round '%s' (1..%d)", argv[16], g->opt[OPT_MAX_ROUNDS]);
      return -1;
    }
    q.round = (uint8_t)v;
    if (board_parse_int(argv[17], 0, 1, &starter) != 0) {
      errf(err, errlen, "bad starter '%s' (0 or 1)", argv[17]);
      return -1;
    }
  }
  if (argc == 19) {
    if (board_parse_int(argv[18], 0, 5, &claims) != 0) {
      errf(err, errlen, "bad claims '%s' (0..5)", argv[18]);
      return -1;
    }
    if (claims) {
      /* A claim phase is the start of a later round: the leader (to move)
       * owns his own row and has taken some of the other row. */
      int fresh = q.store[0] == 0 && q.store[1] == 0;
      for (int i = 0; i < PITS; i++) fresh &= q.pits[i] == 4;
      uint32_t mine = q.mover ? NORTH_ROW : 0x3fu, other = ALL_PITS & ~mine;
      int theirs = __builtin_popcount(owned_by(&q, 1 - q.mover) & other);
      int rule = g->opt[OPT_STARTER];
      if (g->opt[OPT_CLAIM] == CLAIM_FIXED) {
        errf(err, errlen, "no claim phase under namnam_claim=fixed (claims must be 0)");
        return -1;
      }
      if (!fresh || theirs < claims || q.round < 2 || (owned_by(&q, q.mover) & mine) != mine) {
        errf(err, errlen,
             "a claim position is the start of round 2 or later: 4 seeds in every pit, empty "
             "stores, the mover owning his whole row and at least CLAIMS pits of the other row "
             "left to claim");
        return -1;
      }
      if ((rule == STARTER_LOSER && starter != 1 - q.mover) ||
          (rule == STARTER_WINNER && starter != q.mover)) {
        errf(err, errlen, "starter %d: under round_starter=%s the %s starts, player %d", starter,
             starter_names[rule], rule == STARTER_LOSER ? "loser" : "winner",
             rule == STARTER_LOSER ? 1 - q.mover : q.mover);
        return -1;
      }
      q.phase = PHASE_CLAIM;
    }
  }
  int h[2];
  hollows_now(&q, h);
  if (h[0] == 0 || h[1] == 0) {
    errf(err, errlen, "each player must own at least one pit");
    return -1;
  }
  set_round_state(&q, starter, claims);
  settle(g, &q);
  *p = q;
  return 0;
}

static int namnam_board_tokens(const game *g, const game_pos *p, char *buf, size_t len) {
  (void)g;
  char own[PITS + 1];
  for (int i = 0; i < PITS; i++) own[i] = owner_of(p, i) ? 'n' : 's';
  own[PITS] = 0;
  int k = board_write(p, PITS, buf, len);
  if (k < 0) return -1;
  int w = snprintf(buf + k, len - (size_t)k, " %s %d %d %d", own, p->round, starter_of(p),
                   claims_of(p));
  return w < 0 || (size_t)w >= len - (size_t)k ? -1 : 0;
}

const game_rules namnam_rules = {
    .name = "namnam",
    .summary = "Oware Nam Nam: relay sowing, fours captured, rounds won and lost in pits",
    .options = namnam_options,
    .setup = namnam_setup,
    .start = namnam_start,
    .legal = namnam_legal,
    .play = namnam_play,
    .end_cycle = namnam_end_cycle,
    .encode = namnam_encode,
    .render = namnam_render,
    .setboard = namnam_setboard,
    .board_tokens = namnam_board_tokens,
};

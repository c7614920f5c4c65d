/* Bao la Kujifunza (docs/games/kujifunza.md): the worked examples J1-J3, each
 * rule sentence and option, a second implementation on (row, column)
 * coordinates that the engine must agree with on random games, perft
 * goldens and random stress. Grids list rows 3/2/1/0, columns 0-7 from
 * South's left, as the page's worked examples do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gametest.h"
#include "tests/relay_ref.h"

/* The engine's pit number of (row, column), as docs/games/kujifunza.md
 * documents it: 16*side + l, l the owner's loop index. */
static int pit_of(int row, int col) {
  switch (row) {
    case 0:
      return col;
    case 1:
      return 15 - col;
    case 2:
      return 16 + 8 + col;
    default:
      return 16 + 7 - col;
  }
}

/* A position from a grid "r3 / r2 / r1 / r0" (8 numbers a row, slashes
 * optional) and the side to move. */
static game_pos grid(int mover, const char *rows) {
  char buf[256], *v[32], tokens[256];
  snprintf(buf, sizeof buf, "%s", rows);
  ck_assert_int_eq(split_tokens(buf, " /", v, 32), 32);
  int at[32];
  for (int r = 3; r >= 0; r--)
    for (int c = 0; c < 8; c++) at[pit_of(r, c)] = atoi(v[(3 - r) * 8 + c]);
  size_t k = (size_t)snprintf(tokens, sizeof tokens, "%d", mover);
  for (int i = 0; i < 32; i++) k += (size_t)snprintf(tokens + k, sizeof tokens - k, " %d", at[i]);
  return pos(tokens);
}

static void expect_row(const game_pos *p, int row, const char *want) {
  char got[64];
  size_t k = 0;
  for (int c = 0; c < 8; c++)
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%d", c ? " " : "", p->pits[pit_of(row, c)]);
  ck_assert_msg(strcmp(got, want) == 0, "row %d: %s, expected %s", row, got, want);
}

static int kete(const game_pos *p, int side) {
  int s = 0;
  for (int i = 0; i < 16; i++) s += p->pits[16 * side + i];
  return s;
}

/* Action of (row, column) of the mover, counter-clockwise or clockwise. */
static int act(int row, int col, int cw) { return (pit_of(row, col) & 15) + (cw ? 16 : 0); }

/* ---- Worked examples, docs/games/kujifunza.md ----------------------------- */

START_TEST(j1_capture_chain) {
  configure(NULL);
  game_pos p = start_pos();
  /* 16 mtaji moves on 12 pits: counter-clockwise from l = 6..13, clockwise
   * from l = 10..15, 0, 1: a move is a pit and a direction. */
  game_moves m = game_legal(&G, &p);
  ck_assert_int_eq(game_count(m), 16);
  ck_assert_uint_eq(m, 0x3fc0u | 0xfc030000u);
  play_legal(&p, act(0, 6, 0));
  expect_row(&p, 3, "2 2 2 2 2 2 2 2");
  expect_row(&p, 2, "2 2 0 2 2 2 0 0");
  expect_row(&p, 1, "2 2 3 3 3 3 1 6");
  expect_row(&p, 0, "2 2 2 2 2 2 0 3");
  ck_assert_int_eq(kete(&p, 0), 38);
  ck_assert_int_eq(kete(&p, 1), 26);
  ck_assert_int_eq(p.mover, GAME_NORTH);
  ck_assert_int_eq(p.status, GAME_ONGOING);
}
END_TEST

START_TEST(j2_kutakata) {
  configure(NULL);
  const char *j2 = "7 7 7 7 7 7 7 6 / 1 0 0 0 0 0 0 0 / 1 0 1 1 0 3 0 0 / 0 0 2 0 0 0 0 0";
  game_pos p = grid(0, j2);
  /* No mtaji; a front pit holds 2+, so only (1,5), in both directions. */
  ck_assert_uint_eq(game_legal(&G, &p), (1u << act(1, 5, 0)) | (1u << act(1, 5, 1)));
  play_legal(&p, act(1, 5, 0));
  expect_row(&p, 1, "0 1 0 2 1 0 0 0");
  expect_row(&p, 0, "1 1 2 0 0 0 0 0");
  expect_row(&p, 2, "1 0 0 0 0 0 0 0"); /* no capture in kutakata */
  ck_assert_int_eq(p.mover, GAME_NORTH);
  p = grid(0, j2);
  play_legal(&p, act(1, 5, 1));
  expect_row(&p, 1, "1 0 1 1 0 0 1 1");
  expect_row(&p, 0, "0 0 2 0 0 0 0 1");
}
END_TEST

START_TEST(j3_front_row_emptied) {
  configure(NULL);
  game_pos p = grid(0, "7 7 7 7 7 7 7 6 / 0 0 0 2 0 0 0 0 / 0 0 0 1 0 2 0 0 / 4 0 0 0 0 0 0 0");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << act(1, 5, 0)) | (1u << act(0, 0, 1)));
  play_legal(&p, act(1, 5, 0));
  expect_row(&p, 1, "0 0 0 2 1 0 1 1");
  expect_row(&p, 2, "0 0 0 0 0 0 0 0");
  expect_end(&p, GAME_END_FRONTROW, -1, -1, GAME_SOUTH);
}
END_TEST

/* ---- Rule sentences ------------------------------------------------------------ */

/* The column rule, with one captured kete that lands in an empty pit. The
 * North kete elsewhere sit in his back row. */
START_TEST(column_rule) {
  static const struct {
    const char *grid;
    int row, col, cw;        /* South's move */
    const char *row1, *row2; /* rows 1 and 2 after it (row2 NULL: not checked) */
  } cases[] = {
      /* (1,3) counter-clockwise: (1,2), then (1,1) facing (2,1): own column
       * 1, so the kete starts at the left end (1,0), clockwise. */
      {"7 7 7 7 7 7 7 7 / 0 1 0 0 0 0 0 0 / 0 1 0 2 0 0 0 0 / 2 2 0 0 0 0 0 0", 1, 3, 0,
       "1 2 1 0 0 0 0 0", "0 0 0 0 0 0 0 0"},
      /* (1,4) clockwise: (1,5), then (1,6) facing (2,6): own column 6, so
       * the kete starts at the right end (1,7), counter-clockwise. */
      {"7 7 7 7 7 7 7 7 / 0 0 0 0 0 0 1 0 / 0 0 0 0 2 0 1 0 / 2 2 0 0 0 0 0 0", 1, 4, 1,
       "0 0 0 0 0 1 2 1", NULL},
      /* The centre follows the sowing. (1,1) clockwise: (1,2), (1,3)
       * facing (2,3): centre, clockwise: from the left end (1,0). */
      {"7 7 7 7 7 7 7 7 / 0 0 0 1 0 0 0 0 / 0 2 0 1 0 0 0 0 / 2 2 0 0 0 0 0 0", 1, 1, 1,
       "1 0 1 2 0 0 0 0", NULL},
      /* (1,5) counter-clockwise: (1,4), (1,3): centre, counter-clockwise:
       * from the right end (1,7). */
      {"7 7 7 7 7 7 7 7 / 0 0 0 1 0 0 0 0 / 0 0 0 1 0 2 0 0 / 2 2 0 0 0 0 0 0", 1, 5, 0,
       "0 0 0 2 1 0 0 1", NULL},
  };
  configure(NULL);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    game_pos p = grid(0, cases[i].grid);
    play_legal(&p, act(cases[i].row, cases[i].col, cases[i].cw));
    expect_row(&p, 1, cases[i].row1);
    if (cases[i].row2) expect_row(&p, 2, cases[i].row2);
  }
}
END_TEST

/* North's columns count from his own left (board column 7). The mirror
 * of column_rule_left_columns: (2,4) counter-clockwise for North goes to
 * (2,5), (2,6); (2,6) is North's column 1, so the captured kete starts at
 * (2,7), his left end. */
START_TEST(column_rule_mirrored_for_north) {
  configure(NULL);
  game_pos p = grid(1, "2 2 0 0 0 0 0 0 / 0 0 0 0 2 0 1 0 / 0 0 0 0 0 0 1 0 / 7 7 7 7 7 7 7 7");
  ck_assert_int_eq(pit_of(2, 4), 16 + 12);
  play_legal(&p, act(2, 4, 0));
  expect_row(&p, 2, "0 0 0 0 0 1 2 1");
  expect_row(&p, 1, "0 0 0 0 0 0 0 0");
}
END_TEST

/* Only front pits of 2+ may takata while one exists; otherwise the back
 * row; single kete never. */
START_TEST(kutakata_pit_choice) {
  configure(NULL);
  /* Front pits all singles: the back row's 2+ pits play. */
  game_pos p = grid(0, "7 7 7 7 7 7 7 6 / 1 0 0 0 0 0 0 0 / 1 0 1 0 0 0 0 1 / 0 3 0 0 0 0 2 0");
  ck_assert_uint_eq(game_legal(&G, &p), (1u << act(0, 1, 0)) | (1u << act(0, 1, 1)) |
                                            (1u << act(0, 6, 0)) | (1u << act(0, 6, 1)));
  /* Every pit a single or empty: no move, South loses. */
  p = grid(0, "7 7 7 7 7 7 7 7 / 3 0 0 0 0 0 0 0 / 1 0 1 0 0 0 0 1 / 0 1 0 0 0 0 1 0");
  expect_end(&p, GAME_END_NOMOVES, -1, -1, GAME_NORTH);
}
END_TEST

/* 16 kete: no origin skip; the last falls in the emptied origin. */
START_TEST(kutakata_sixteen_kete) {
  configure(NULL);
  game_pos p = grid(0, "5 5 5 5 5 5 5 5 / 1 1 1 1 1 1 1 0 / 16 0 0 0 0 0 0 1 / 0 0 0 0 0 0 0 0");
  ck_assert(game_legal(&G, &p) >> act(1, 0, 0) & 1);
  play_legal(&p, act(1, 0, 0));
  expect_row(&p, 1, "1 1 1 1 1 1 1 2");
  expect_row(&p, 0, "1 1 1 1 1 1 1 1");
  ck_assert_int_eq(p.mover, GAME_NORTH);
}
END_TEST

/* A kutakata that empties the mover's own front row loses. */
START_TEST(own_front_row_emptied_loses) {
  configure(NULL);
  const char *pos = "6 6 6 6 6 6 6 6 / 2 2 2 2 2 2 2 0 / 2 0 0 0 0 0 0 0 / 0 0 0 0 0 0 0 0";
  game_pos p = grid(0, pos);
  ck_assert_uint_eq(game_legal(&G, &p), (1u << act(1, 0, 0)) | (1u << act(1, 0, 1)));
  play_legal(&p, act(1, 0, 0)); /* to (0,0), (0,1) */
  expect_end(&p, GAME_END_FRONTROW, -1, -1, GAME_NORTH);
  p = grid(0, pos);
  play_legal(&p, act(1, 0, 1)); /* to (1,1), (1,2) */
  ck_assert_int_eq(p.status, GAME_ONGOING);
}
END_TEST

/* A position set up with an empty front row is over: its owner has lost,
 * whoever is to move, and each side's final score is its own kete. */
START_TEST(set_up_front_row_empty_is_over) {
  configure(NULL);
  for (int mover = 0; mover <= 1; mover++) {
    game_pos p =
        grid(mover, "1 1 1 1 1 1 1 1 / 2 2 2 2 2 2 2 2 / 0 0 0 0 0 0 0 0 / 5 5 5 5 5 5 5 5");
    expect_end(&p, GAME_END_FRONTROW, 40, 24, GAME_NORTH);
  }
}
END_TEST

START_TEST(ply_cap_and_adjudication) {
  configure("max_plies=1");
  game_pos p = start_pos();
  play_legal(&p, act(0, 6, 0));
  expect_end(&p, GAME_END_MAXPLIES, -1, -1, GAME_DRAW);
  configure("max_plies=1 adjudicate=kete");
  p = start_pos();
  play_legal(&p, act(0, 6, 0));
  ck_assert_int_eq(p.winner, GAME_SOUTH);
  ck_assert_int_eq(p.final[0], 38);
  ck_assert_int_eq(p.final[1], 26);
  configure("first_player=1");
  ck_assert_int_eq(start_pos().mover, GAME_NORTH);
}
END_TEST

START_TEST(move_names) {
  configure(NULL);
  char name[32], err[256];
  ck_assert_int_eq(game_move_name(&G, act(0, 6, 0), name, sizeof name), 0);
  ck_assert_str_eq(name, "b6ccw");
  game_move_name(&G, act(1, 5, 1), name, sizeof name);
  ck_assert_str_eq(name, "f5cw");
  ck_assert_int_eq(game_parse_action(&G, "f5ccw", err, sizeof err), act(1, 5, 0));
  ck_assert_int_eq(game_parse_action(&G, "b0cw", err, sizeof err), 16);
  ck_assert_int_eq(game_parse_action(&G, "31", err, sizeof err), 31);
  ck_assert_int_eq(game_parse_action(&G, "f8cw", err, sizeof err), -1);
  ck_assert_str_eq(err, "bad move 'f8cw' (an action number 0..31 or a move name such as b0ccw)");
  /* Every action has a distinct name that parses back. */
  for (int a = 0; a < 32; a++) {
    game_move_name(&G, a, name, sizeof name);
    ck_assert_int_eq(game_parse_action(&G, name, err, sizeof err), a);
  }
}
END_TEST

/* ---- Reference implementation ---------------------------------------------------
 * docs/games/kujifunza.md on a 4 x 8 grid. A player's track lists his 16 pits in
 * counter-clockwise order from his seat; columns in the column rule are
 * his own. Every relay pick-up state goes in a table (docs/games/README.md). */

typedef struct {
  int row, col;
} cell;

static cell track(int side, int t) {
  cell c;
  if (side == 0) {
    c.row = t < 8 ? 0 : 1;
    c.col = t < 8 ? t : 15 - t;
  } else {
    c.row = t < 8 ? 3 : 2;
    c.col = t < 8 ? 7 - t : t - 8;
  }
  return c;
}

/* Track index of the side's front pit in his own column oc (0 = his left). */
static int front_at(int side, int oc) {
  for (int t = 8; t < 16; t++) {
    cell c = track(side, t);
    if ((side == 0 ? c.col : 7 - c.col) == oc) return t;
  }
  return -1;
}

typedef struct {
  int g[4][8];
} board;

static board board_of(const game_pos *p) {
  board b;
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++) b.g[r][c] = p->pits[pit_of(r, c)];
  return b;
}

/* Does the first sowing of (t, dir) end in an occupied front pit facing an
 * occupied one (2-15 kete)? */
static int ref_mtaji(const board *b, int side, int t, int dir) {
  cell o = track(side, t);
  int n = b->g[o.row][o.col];
  if (n < 2 || n > 15) return 0;
  int last = ((t + dir * n) % 16 + 16) % 16;
  cell l = track(side, last);
  int front = side == 0 ? 1 : 2, opp_front = side == 0 ? 2 : 1;
  return l.row == front && b->g[l.row][l.col] > 0 && b->g[opp_front][l.col] > 0;
}

/* The events of the last reference move: 'c' a capture (the opponent's
 * pit and its kete), 'r' a relay (the pit and its kete), 'e' the end. */
static struct {
  int n;
  char kind[16];
  int row[16], col[16], kete[16];
} trace;

static void note(char kind, int row, int col, int k) {
  if (trace.n < 16) {
    trace.kind[trace.n] = kind;
    trace.row[trace.n] = row;
    trace.col[trace.n] = col;
    trace.kete[trace.n] = k;
  }
  trace.n++;
}

/* Plays (t, dir); returns 1 if endless (b then stands at the first repeat
 * or the cap, which is where truncate cuts). */
static int ref_move(board *b, int side, int t, int dir, int capture) {
  int front = side == 0 ? 1 : 2, opp_front = side == 0 ? 2 : 1;
  cell o = track(side, t);
  int hand = b->g[o.row][o.col];
  long dropped = 0;
  b->g[o.row][o.col] = 0;
  ref_set_clear();
  trace.n = 0;
  for (;;) {
    while (hand > 0) {
      t = ((t + dir) % 16 + 16) % 16;
      cell c = track(side, t);
      b->g[c.row][c.col]++;
      hand--;
      dropped++;
    }
    cell c = track(side, t);
    if (b->g[c.row][c.col] == 1) {
      note('e', c.row, c.col, 1);
      return 0;
    }
    if (capture && c.row == front && b->g[opp_front][c.col] > 0) {
      hand = b->g[opp_front][c.col];
      note('c', opp_front, c.col, hand);
      b->g[opp_front][c.col] = 0;
      int own_col = side == 0 ? c.col : 7 - c.col;
      if (own_col <= 1) dir = -1;
      if (own_col >= 6) dir = 1;
      t = front_at(side, dir < 0 ? 0 : 7) - dir;
      continue;
    }
    uint8_t s[34];
    for (int r = 0; r < 4; r++)
      for (int k = 0; k < 8; k++) s[r * 8 + k] = (uint8_t)b->g[r][k];
    s[32] = (uint8_t)t;
    s[33] = (uint8_t)(dir + 1);
    if (ref_set_add(s, sizeof s) || dropped >= 100000) return 1;
    note('r', c.row, c.col, b->g[c.row][c.col]);
    hand = b->g[c.row][c.col];
    b->g[c.row][c.col] = 0;
  }
}

/* Legal actions: mtaji moves that end, else kutakata moves (front pits
 * first, by counts) that end; under truncate nothing is endless. *capture
 * tells the regime. */
static game_moves ref_legal(const board *b, int side, int truncate, int *capture, long *endless) {
  game_moves m = 0;
  for (int t = 0; t < 16; t++)
    for (int d = 0; d < 2; d++) {
      int dir = d ? -1 : 1;
      if (!ref_mtaji(b, side, t, dir)) continue;
      board q = *b;
      int e = ref_move(&q, side, t, dir, 1);
      *endless += e;
      if (!e || truncate) m |= 1u << (t + 16 * d);
    }
  *capture = m != 0;
  if (m) return m;
  int front = side == 0 ? 1 : 2, any_front = 0;
  for (int c = 0; c < 8; c++) any_front |= b->g[front][c] >= 2;
  for (int t = 0; t < 16; t++) {
    cell c = track(side, t);
    if (b->g[c.row][c.col] < 2 || (any_front && c.row != front)) continue;
    for (int d = 0; d < 2; d++) {
      board q = *b;
      int e = ref_move(&q, side, t, d ? -1 : 1, 0);
      *endless += e;
      if (!e || truncate) m |= 1u << (t + 16 * d);
    }
  }
  return m;
}

static int front_empty(const board *b, int side) {
  int row = side == 0 ? 1 : 2, s = 0;
  for (int c = 0; c < 8; c++) s += b->g[row][c];
  return s == 0;
}

/* J1's steps, by the reference (the engine gives the same board): captures
 * of 2 at (2,7) and (2,6), a relay of 4 kete from (1,6), a capture of 2 at
 * (2,2), the end in (1,6). */
START_TEST(j1_steps_by_the_reference) {
  configure(NULL);
  game_pos p = start_pos();
  board b = board_of(&p);
  ck_assert_int_eq(ref_move(&b, 0, 6, 1, 1), 0);
  static const char kind[5] = {'c', 'c', 'r', 'c', 'e'};
  static const int row[5] = {2, 2, 1, 2, 1}, col[5] = {7, 6, 6, 2, 6}, k[5] = {2, 2, 4, 2, 1};
  ck_assert_int_eq(trace.n, 5);
  for (int i = 0; i < 5; i++) {
    ck_assert_int_eq(trace.kind[i], kind[i]);
    ck_assert_int_eq(trace.row[i], row[i]);
    ck_assert_int_eq(trace.col[i], col[i]);
    ck_assert_int_eq(trace.kete[i], k[i]);
  }
  game_play(&G, &p, act(0, 6, 0));
  board e = board_of(&p);
  ck_assert(!memcmp(&b, &e, sizeof b));
}
END_TEST

/* The regime (capture or kutakata) of the position whose legal moves were
 * compared last, which its move is then played under. */
static int ref_capture;

static int ref_legal_at(const game_pos *p, int truncate, game_moves *want, long *endless) {
  board b = board_of(p);
  *want = ref_legal(&b, p->mover, truncate, &ref_capture, endless);
  return 1;
}

static void ref_check_move(const game_pos *before, int a, const game_pos *p, int truncate) {
  board b = board_of(before);
  int me = before->mover;
  ref_move(&b, me, a & 15, a >= 16 ? -1 : 1, ref_capture);
  board e = board_of(p);
  CHECK(!memcmp(&b, &e, sizeof b), "board differs from the reference");
  /* Endings: the opponent's front row, then one's own, then moves. */
  int ref_winner = -1;
  if (front_empty(&b, 1 - me))
    ref_winner = me;
  else if (front_empty(&b, me))
    ref_winner = 1 - me;
  else {
    int cap2;
    long e2 = 0;
    if (ref_legal(&b, 1 - me, truncate, &cap2, &e2) == 0) ref_winner = me;
  }
  if (ref_winner >= 0) {
    CHECK(p->status == GAME_OVER && p->winner == ref_winner, "ending differs");
  } else {
    CHECK(p->status == GAME_ONGOING || p->end_reason == GAME_END_MAXPLIES, "ended early");
  }
}

/* ---- Perft ------------------------------------------------------------------ */

#include "tests/perft_goldens_kujifunza.h"

/* Depth 1 by hand: J1's 16 mtaji moves. Depth 2 from the reference: North's
 * legal moves after each of them. */
START_TEST(perft_start_by_hand) {
  configure(NULL);
  game_pos p = start_pos();
  ck_assert_uint_eq(perft(&p, 1), 16);
  board b = board_of(&p);
  int capture;
  long e = 0;
  game_moves m = ref_legal(&b, 0, 0, &capture, &e);
  ck_assert_int_eq(game_count(m), 16);
  uint64_t d2 = 0;
  for (game_moves r = m; r; r &= r - 1) {
    int a = __builtin_ctz(r);
    board q = b;
    ref_move(&q, 0, a & 15, a >= 16 ? -1 : 1, 1);
    d2 += (uint64_t)game_count(ref_legal(&q, 1, 0, &capture, &e));
  }
  ck_assert_uint_eq(perft(&p, 2), d2);
}
END_TEST

/* ---- Random stress ------------------------------------------------------------- */

static void stress_move(const game_pos *p, int flags, int mover) {
  (void)flags, (void)mover;
  CHECK(p->store[0] == 0 && p->store[1] == 0, "kete left the board");
}

/* ---- Other checks ------------------------------------------------------------- */

/* The same position with the sides swapped (pit l of one side becomes pit l
 * of the other) and the other side to move. */
START_TEST(encode_is_from_movers_view) {
  configure(NULL);
  game_pos a = grid(0, "1 2 3 4 0 0 1 1 / 2 2 0 5 1 0 3 2 / 0 3 1 2 2 0 4 1 / 6 0 2 2 1 3 0 10");
  game_pos b = a;
  for (int i = 0; i < 16; i++) {
    b.pits[i] = a.pits[16 + i];
    b.pits[16 + i] = a.pits[i];
  }
  b.mover = 1;
  /* South (0,0): 6 kete. */
  expect_mirror_encoding(&a, &b, 131, (const feature_value[]){{0, 0.75f}, {-1, 0}});
}
END_TEST

#define START "2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2"

static Suite *kujifunza_suite(void) {
  static const perft_case perft[] = {
      {"start", NULL, NULL, perft_kujifunza, PERFT_KUJIFUNZA_DEPTH, 7, 0}};
  static const stress_case stress[] = {{NULL,
                                        {.games = 100000,
                                         .seed = 7,
                                         .max_ply = 600,
                                         .seeds = 64,
                                         .check_move = stress_move,
                                         .common_ends = {GAME_END_FRONTROW, GAME_END_NOMOVES}}}};
  static const setboard_refusal refusals[] = {
      {"0 2",
       "setboard takes MOVER and 32 pits, optionally 2 stores of 0 (33 or 35 numbers), "
       "got 2"},
      {"1 " START " 1 0", "bad store '1' (0..0)"},
      {NULL, NULL}};
  static const render_case renders[] = {
      {NULL, "1 South front [   2   2"},
      {NULL, "     column     0   1   2   3   4   5   6   7\n"},
      /* Distinct counts drawn whole: each pit in its place. */
      {"0  0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 1 "
       "1 2 3 0 1 2 3 0 1 1 0 0 0 0 0 0  0 0",
       "3 North back  [   0   3   2   1   0   3   2   1 ]\n"
       "2 North front [   1   1   0   0   0   0   0   0 ]  North 14 kete\n"
       "1 South front [   1   6   5   4   3   2   1   0 ]  South 50 kete\n"
       "0 South back  [   0   1   2   3   4   5   6   7 ]  <- to move\n"},
      {NULL, NULL}};
  static const reference_impl reference = {ref_legal_at, ref_check_move};
  static const game_spec spec = {.suite = "kujifunza",
                                 .game = "kujifunza",
                                 .perft = perft,
                                 .n_perft = 1,
                                 .stress = stress,
                                 .n_stress = 1,
                                 .start_tokens = START " 0 0",
                                 .refusals = refusals,
                                 .renders = renders,
                                 .reference = {&reference, 20000, 0}};
  game_tests t = {.examples = {j1_capture_chain, j2_kutakata, j3_front_row_emptied},
                  .rules = {column_rule, column_rule_mirrored_for_north, kutakata_pit_choice,
                            kutakata_sixteen_kete, own_front_row_emptied_loses,
                            set_up_front_row_empty_is_over, ply_cap_and_adjudication, move_names},
                  .reference = {j1_steps_by_the_reference},
                  .perft = {perft_start_by_hand},
                  .other = {encode_is_from_movers_view}};
  return game_suite(&spec, &t);
}

#undef START

TEST_MAIN(kujifunza_suite)

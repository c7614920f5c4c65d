/* Oware engine: the reference traces, the worked examples of docs/games/oware.md,
 * perft goldens per grand-slam variant, and random stress. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gametest.h"

/* ---- Worked examples, docs/games/oware.md ---------------------------------- */

START_TEST(o1_opening) {
  configure(NULL);
  game_pos p = play_expect(NULL, 4, "4 4 4 4 0 5  5 5 5 4 4 4  0 0", NULL);
  ck_assert_int_eq(p.mover, 1);
}
END_TEST

/* O2-O6: one move each from the position before it. */
START_TEST(o2_to_o6_sowing_and_captures) {
  static const struct {
    const char *before;
    int action;
    const char *after;
  } cases[] = {
      /* O2: thirteen seeds skip the origin. */
      {"0  2 13 1 0 3 1  4 0 2 5 1 3  6 7", 1, "3 0 3 2 4 2  5 1 3 6 2 4  6 7"},
      /* O3: twelve seeds end next to the origin. */
      {"0  0 12 0 0 0 1  1 1 1 1 1 1  10 19", 1, "1 0 2 1 1 2  2 2 2 2 2 2  10 19"},
      /* O4: a single capture. */
      {"0  1 0 2 6 0 1  3 0 3 2 1 0  14 15", 3, "1 0 2 0 1 2  4 1 4 0 1 0  17 15"},
      /* O5: a double capture. */
      {"0  1 0 2 6 0 1  3 3 1 2 1 0  14 14", 3, "1 0 2 0 1 2  4 4 0 0 1 0  19 14"},
      /* O6: the chain stops at the mover's own row. */
      {"0  2 0 1 4 0 0  1 2 0 4 0 1  15 18", 3, "2 0 1 0 1 1  0 0 0 4 0 1  20 18"},
  };
  configure(NULL);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    play_expect(cases[i].before, cases[i].action, cases[i].after, NULL);
}
END_TEST

START_TEST(o7_forced_feed) {
  configure(NULL);
  const char *o7 = "0  1 1 0 0 2 0  0 0 0 0 0 0  22 22";
  ck_assert_uint_eq(game_legal(&G, (const game_pos[]){pos(o7)}), 1u << 4);
  play_expect(o7, 4, "1 1 0 0 0 1  1 0 0 0 0 0  22 22", NULL);
}
END_TEST

START_TEST(o8_famine) {
  configure(NULL);
  game_pos p = pos("0  3 2 1 1 0 0  0 0 0 0 0 0  20 21");
  expect_end(&p, GAME_END_FAMINE, 27, 21, GAME_SOUTH);
  ck_assert_uint_eq(game_legal(&G, &p), 0);
}
END_TEST

/* O9: the same grand slam under each variant. */
#define O9 "0  1 0 2 0 2 3  1 2 1 0 0 0  16 20"

START_TEST(o9_no_capture) {
  configure("grand_slam=no_capture");
  ck_assert_uint_eq(game_legal(&G, (const game_pos[]){pos(O9)}),
                    (1u << 0) | (1u << 2) | (1u << 4) | (1u << 5));
  int flags;
  game_pos p = play_expect(O9, 5, "1 0 2 0 2 0  2 3 2 0 0 0  16 20", &flags);
  ck_assert(flags & GAME_PLAY_GRANDSLAM);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_int_eq(p.mover, 1);
}
END_TEST

START_TEST(o9_forbidden) {
  configure("grand_slam=forbidden");
  ck_assert_uint_eq(game_legal(&G, (const game_pos[]){pos(O9)}), (1u << 0) | (1u << 2) | (1u << 4));
  /* E is no grand slam: it captures a only. */
  play_expect(O9, 4, "1 0 2 0 0 4  0 2 1 0 0 0  18 20", NULL);
}
END_TEST

START_TEST(o9_forbidden_only_move_stands_without_capture) {
  configure("grand_slam=forbidden");
  /* South's only move sows into North's row and would take every seed. */
  const char *only = "0  0 0 0 0 0 2  1 1 0 0 0 0  24 20";
  ck_assert_uint_eq(game_legal(&G, (const game_pos[]){pos(only)}), 1u << 5);
  int flags;
  play_expect(only, 5, "0 0 0 0 0 0  2 2 0 0 0 0  24 20", &flags);
  ck_assert(flags & GAME_PLAY_GRANDSLAM);
}
END_TEST

START_TEST(o9_capture_continue) {
  configure("grand_slam=capture_continue");
  game_pos p = play_expect(O9, 5, "1 0 2 0 2 0  0 0 0 0 0 0  23 20", NULL);
  ck_assert_int_eq(p.mover, 0);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  ck_assert_uint_eq(game_legal(&G, &p), 1u << 4);
  play_legal(&p, 4);
  expect_board(&p, "1 0 2 0 0 1  1 0 0 0 0 0  23 20");
}
END_TEST

/* The variants where the grand slam ends the game: the winner, and the
 * final scores where the page gives them (-1: not checked). */
START_TEST(o9_endings) {
  static const struct {
    const char *variant;
    int winner, final0, final1;
  } cases[] = {
      {"capture_end", GAME_SOUTH, 28, 20},
      {"loses", GAME_NORTH, -1, -1},
      {"end_prior_only", GAME_NORTH, 16, 20},
      {"stripped_loses", GAME_SOUTH, -1, -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char set[64];
    snprintf(set, sizeof set, "grand_slam=%s", cases[i].variant);
    configure(set);
    game_pos p = pos(O9);
    play_legal(&p, 5);
    ck_assert_msg(p.status == GAME_OVER, "%s: the game goes on", cases[i].variant);
    ck_assert_msg(p.winner == cases[i].winner, "%s: winner %d", cases[i].variant, p.winner);
    if (cases[i].final0 >= 0) {
      ck_assert_int_eq(p.final[0], cases[i].final0);
      ck_assert_int_eq(p.final[1], cases[i].final1);
    }
  }
}
END_TEST

START_TEST(w1_warri_lap_capture_then_feed) {
  configure_game("warri", NULL);
  game_pos p =
      play_expect("0  0 0 0 0 1 17  1 0 1 0 0 1  5 22", 5, "1 1 1 1 2 0  0 0 0 0 0 0  20 22", NULL);
  ck_assert_int_eq(p.mover, 0);
  ck_assert_uint_eq(game_legal(&G, &p), 1u << 4);
  play_legal(&p, 4);
  expect_board(&p, "1 1 1 1 0 1  1 0 0 0 0 0  20 22");
}
END_TEST

/* ---- Reference traces ---------------------------------------------------- */

static int ref_reason(const char *s) {
  if (!strcmp(s, "score")) return GAME_END_TARGET;
  if (!strcmp(s, "repetition")) return GAME_END_REPETITION;
  if (!strcmp(s, "nomoves")) return GAME_END_FAMINE;
  if (!strcmp(s, "maxlen")) return GAME_END_MAXPLIES;
  return -1;
}

static void legal_string(game_moves m, char *out) {
  int k = 0;
  for (int a = 0; a < 32; a++)
    if (m >> a & 1) out[k++] = (char)('0' + a);
  if (!k) out[k++] = '-';
  out[k] = 0;
}

/* Actions that are grand slams: played on a copy, the move reports one. */
static game_moves grand_slams(const game_pos *p, game_moves legal) {
  game_moves gs = 0;
  for (int a = 0; a < 6; a++)
    if (legal >> a & 1) {
      game_pos q = *p;
      if (game_play(&G, &q, a) & GAME_PLAY_GRANDSLAM) gs |= 1u << a;
    }
  return gs;
}

static void replay_file(const char *name, int expect_games) {
  char path[1024];
  snprintf(path, sizeof path, "%s/reference/%s", test_data_dir(), name);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot open %s (run from the repository root)", path);
  configure_game("oware", NULL);
  static game_hist hist;
  game_pos p;
  char line[512];
  int games = 0, lineno = 0, cur = -1, pending = -1;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == 'S') {
      int gidx, ply, player, h[12], sc[2], terminal, action;
      char legal[40], flags[40];
      int n =
          sscanf(line, "S %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %39s %d %d %39s",
                 &gidx, &ply, &player, &h[0], &h[1], &h[2], &h[3], &h[4], &h[5], &h[6], &h[7],
                 &h[8], &h[9], &h[10], &h[11], &sc[0], &sc[1], legal, &terminal, &action, flags);
      CHECK(n == 21, "%s:%d: unreadable state line", name, lineno);
      if (gidx != cur) {
        ck_assert_int_eq(ply, 0);
        cur = gidx;
        game_start(&G, &p);
        game_hist_reset(&hist, &p);
      } else {
        int fl = game_step(&G, &p, &hist, pending);
        (void)fl;
      }
      CHECK(p.mover == player || terminal, "%s:%d: mover %d, reference %d", name, lineno, p.mover,
            player);
      /* A terminal line shows the board after the end-of-game collection:
       * empty pits, final scores. */
      for (int i = 0; i < 12; i++)
        CHECK(terminal ? h[i] == 0 : p.pits[i] == h[i], "%s:%d: pit %d holds %d, reference %d",
              name, lineno, i, p.pits[i], h[i]);
      int s0 = terminal ? p.final[0] : p.store[0], s1 = terminal ? p.final[1] : p.store[1];
      CHECK(s0 == sc[0] && s1 == sc[1], "%s:%d: scores %d/%d, reference %d/%d", name, lineno, s0,
            s1, sc[0], sc[1]);
      CHECK((p.status == GAME_OVER) == terminal, "%s:%d: terminal %d, reference %d", name, lineno,
            p.status == GAME_OVER, terminal);
      game_moves m = game_legal(&G, &p);
      char mine[40];
      legal_string(m, mine);
      if (!terminal)
        CHECK(!strcmp(mine, legal), "%s:%d: legal %s, reference %s", name, lineno, mine, legal);
      if (terminal) continue;
      /* Flags: F, R, G<digits>, C<n>, X. */
      int opp_empty = 1;
      for (int i = 0; i < 6; i++) opp_empty &= p.pits[(1 - p.mover) * 6 + i] == 0;
      int nonempty = 0;
      for (int i = 0; i < 6; i++) nonempty += p.pits[p.mover * 6 + i] != 0;
      CHECK(opp_empty == (strchr(flags, 'F') != NULL), "%s:%d: feeding flag", name, lineno);
      CHECK((opp_empty && game_count(m) < nonempty) == (strchr(flags, 'R') != NULL),
            "%s:%d: feeding-removed flag", name, lineno);
      game_moves gs = grand_slams(&p, m), ref_gs = 0;
      const char *g = strchr(flags, 'G');
      for (g = g ? g + 1 : NULL; g && *g >= '0' && *g <= '9'; g++) ref_gs |= 1u << (*g - '0');
      CHECK(gs == ref_gs, "%s:%d: grand slams %x, reference %x", name, lineno, gs, ref_gs);
      CHECK(((gs >> action) & 1) == (strchr(flags, 'X') != NULL), "%s:%d: X flag", name, lineno);
      const char *c = strchr(flags, 'C');
      game_pos q = p;
      game_play(&G, &q, action);
      int took = q.store[p.mover] - p.store[p.mover];
      CHECK(took == (c ? atoi(c + 1) : 0), "%s:%d: captured %d, flags %s", name, lineno, took,
            flags);
      CHECK(m >> action & 1, "%s:%d: reference plays an illegal move", name, lineno);
      pending = action;
    } else if (line[0] == 'E') {
      int gidx, plies, f0, f1, r0, r1, raw0, raw1;
      char reason[32];
      int n = sscanf(line, "E %d %d %d %d %d %d %31s %d %d", &gidx, &plies, &f0, &f1, &r0, &r1,
                     reason, &raw0, &raw1);
      CHECK(n == 9, "%s:%d: unreadable end line", name, lineno);
      ck_assert_int_eq(gidx, cur);
      ck_assert_int_eq(p.status, GAME_OVER);
      ck_assert_int_eq(p.ply, plies);
      CHECK(p.final[0] == f0 && p.final[1] == f1, "%s:%d: final %d-%d, reference %d-%d", name,
            lineno, p.final[0], p.final[1], f0, f1);
      ck_assert_int_eq(game_outcome(&p, 0), r0);
      ck_assert_int_eq(game_outcome(&p, 1), r1);
      CHECK(p.end_reason == ref_reason(reason), "%s:%d: ended by %s, reference %s", name, lineno,
            game_end_name(p.end_reason), reason);
      ck_assert_int_eq(p.store[0], raw0);
      ck_assert_int_eq(p.store[1], raw1);
      games++;
    }
  }
  fclose(f);
  ck_assert_int_eq(games, expect_games);
}

START_TEST(reference_random) { replay_file("openspiel-oware-random-2000.txt", 2000); }
END_TEST

START_TEST(reference_capture_biased) { replay_file("openspiel-oware-capture-biased-200.txt", 200); }
END_TEST

/* ---- Perft and random stress, per grand-slam variant ------------------------------ */

static const char *const variants[7] = {"capture_continue", "capture_end", "forbidden",
                                        "no_capture",       "loses",       "end_prior_only",
                                        "stripped_loses"};

/* The positions: the start; O9's grand slam; a lap with a feeding fight;
 * an endgame where repetition and famine come into reach. */
static const struct {
  const char *name, *tokens;
  int depth;
} perft_positions[4] = {
    {"start", NULL, 9},
    {"grand-slam", O9, 8},
    {"lap", "1  0 1 0 2 1 0  0 13 1 2 0 3  12 13", 8},
    {"endgame", "0  1 0 1 0 0 2  0 1 0 1 0 0  21 21", 9},
};

/* Pinned goldens[position][variant][depth-1]; the header tells how each
 * was derived (depths 1-2 of the start by hand, the rest from this engine). */
#include "tests/perft_goldens.h"

/* Depths 1 and 2 from the start by hand: 6 moves, then 6 replies each. */
START_TEST(perft_start_by_hand) {
  configure(NULL);
  game_pos p = start_pos();
  ck_assert_uint_eq(perft_hist(&p, 1), 6);
  ck_assert_uint_eq(perft_hist(&p, 2), 36);
}
END_TEST

/* Random games under each variant: seeds are conserved after every move,
 * the mover changes unless a capture_continue grand slam says otherwise,
 * every game ends within max_plies, and final scores follow the award
 * rules. */
static void stress_move(const game_pos *p, int flags, int mover) {
  int gs = game_option_value(&G, "grand_slam"); /* an index into variants */
  CHECK(board_seeds(p) == 48 || (p->status == GAME_OVER && gs == 1 /* capture_end */),
        "seeds not conserved: %d", board_seeds(p));
  if (p->status == GAME_ONGOING)
    CHECK(p->mover == 1 - mover || ((flags & GAME_PLAY_GRANDSLAM) && gs == 0),
          "wrong side to move");
}

/* Awards that give out the whole board sum to 48. */
static void stress_game(const game_pos *p) {
  if (p->end_reason != GAME_END_GRANDSLAM)
    CHECK(p->final[0] + p->final[1] == 48, "final scores %d-%d do not sum to 48", p->final[0],
          p->final[1]);
}

/* ---- Other options -------------------------------------------------------------- */

START_TEST(nocap_limit_ends_with_award) {
  configure("nocap_limit=3 repetition=0");
  game_pos p = start_pos();
  game_play(&G, &p, 0);
  game_play(&G, &p, 0);
  ck_assert_int_eq(p.status, GAME_ONGOING);
  game_play(&G, &p, 1);
  ck_assert_int_eq(p.status, GAME_OVER);
  ck_assert_int_eq(p.end_reason, GAME_END_NOCAPTURE);
  ck_assert_int_eq(p.final[0] + p.final[1], 48);
}
END_TEST

START_TEST(max_plies_cap) {
  configure("max_plies=5 cycle_award=draw");
  game_pos p = start_pos();
  for (int i = 0; i < 5; i++) game_play(&G, &p, game_nth_action(game_legal(&G, &p), 0));
  expect_end(&p, GAME_END_MAXPLIES, -1, -1, GAME_DRAW);
}
END_TEST

/* The repetition rule against a plain record: random games are played with
 * repetition off while the test keeps every position (pits and mover, in
 * full) since the last capture; the ply where some position occurs for the
 * (N+1)-th time is where repetition=N must end the same game. */
static int first_nth_repeat(const uint8_t *moves, int nmoves, int n) {
  static game_pos seen[1100];
  int len = 0;
  configure("repetition=0");
  game_pos p = start_pos();
  seen[len++] = p;
  for (int i = 0; i < nmoves; i++) {
    int flags = game_play(&G, &p, moves[i]);
    if (p.status != GAME_ONGOING) return -1;
    if (flags & GAME_PLAY_CAPTURE) len = 0;
    int count = 0;
    for (int k = 0; k < len; k++)
      count += !memcmp(seen[k].pits, p.pits, sizeof p.pits) && seen[k].mover == p.mover;
    if (count >= n) return i + 1;
    seen[len++] = p;
  }
  return -1;
}

START_TEST(repetition_counts) {
  rng_t r;
  rng_seed(&r, 11, 0);
  game_hist *h = malloc(sizeof *h);
  int checked[3] = {0};
  for (int trial = 0; trial < 400; trial++) {
    /* A random game with repetition off, recorded. */
    uint8_t moves[1000];
    int n = 0;
    configure("repetition=0");
    game_pos p = start_pos();
    while (p.status == GAME_ONGOING && n < 1000) {
      moves[n] = (uint8_t)game_random_action(&r, game_legal(&G, &p));
      game_play(&G, &p, moves[n++]);
    }
    for (int rep = 1; rep <= 3; rep++) {
      int expect = first_nth_repeat(moves, n, rep);
      if (expect < 0) continue;
      char set[32];
      snprintf(set, sizeof set, "repetition=%d", rep);
      configure(set);
      p = start_pos();
      game_hist_reset(h, &p);
      int i = 0;
      while (p.status == GAME_ONGOING) game_step(&G, &p, h, moves[i++]);
      ck_assert_int_eq(p.end_reason, GAME_END_REPETITION);
      ck_assert_int_eq(i, expect);
      ck_assert_int_eq(p.final[0] + p.final[1], 48);
      checked[rep - 1]++;
    }
  }
  free(h);
  for (int rep = 0; rep < 3; rep++) ck_assert_int_gt(checked[rep], 10);
}
END_TEST

START_TEST(split_even_award_halves_odd_seed) {
  configure("cycle_award=split_even max_plies=1");
  game_pos p = pos("0  1 0 0 0 0 2  0 0 0 0 0 2  21 22");
  game_play(&G, &p, 0);
  /* 5 seeds left: 2 each and half of the odd one. */
  expect_end(&p, -1, 23, 24, GAME_NORTH);
  ck_assert_int_eq(p.half, 1);
}
END_TEST

/* Sowing against a plain count on every board size (2 to 8 houses a side,
 * the 16 pits of the last filling a whole vector): a move that captures
 * nothing and ends nothing leaves the board as one seed a pit, counter-
 * clockwise from the sown pit, skipping it, would. */
START_TEST(sowing_matches_a_plain_count_every_size) {
  rng_t r;
  rng_seed(&r, 5, 2);
  for (int h = 2; h <= 8; h++) {
    char set[32];
    snprintf(set, sizeof set, "houses=%d", h);
    configure(set);
    int n = 2 * h, compared = 0;
    for (int game = 0; game < 40; game++) {
      game_pos p = start_pos();
      while (p.status == GAME_ONGOING) {
        int a = game_random_action(&r, game_legal(&G, &p)), from = a + h * p.mover;
        int ref[16], seeds = p.pits[from], i = from;
        for (int k = 0; k < n; k++) ref[k] = p.pits[k];
        ref[from] = 0;
        while (seeds) {
          i = (i + 1) % n;
          if (i != from) ref[i]++, seeds--;
        }
        game_pos q = p;
        int flags = game_play(&G, &q, a);
        if (!(flags & GAME_PLAY_CAPTURE) && q.status == GAME_ONGOING) {
          for (int k = 0; k < n; k++)
            ck_assert_msg(q.pits[k] == ref[k], "%d houses, pit %d sowing from %d: %d, not %d", h, k,
                          from, q.pits[k], ref[k]);
          compared++;
        }
        p = q;
      }
    }
    ck_assert_int_gt(compared, 100);
  }
}
END_TEST

/* A drawn award leaves each side its own store as its final score, however
 * uneven the stores (the record and the margins read them). */
START_TEST(draw_award_keeps_each_store) {
  configure("cycle_award=draw max_plies=1");
  game_pos p = pos("0  1 0 0 0 0 2  0 0 0 0 0 2  21 22");
  game_play(&G, &p, 0);
  expect_end(&p, GAME_END_MAXPLIES, 21, 22, GAME_DRAW);
}
END_TEST

START_TEST(leftover_none_gives_board_to_nobody) {
  configure("leftover=none");
  game_pos p = pos("0  3 2 1 1 0 0  0 0 0 0 0 0  20 21");
  expect_end(&p, -1, 20, 21, -1);
}
END_TEST

START_TEST(feed_check_after_capture) {
  /* North's row is empty; South's 17 seeds lap the board and end in pit 11
   * with two seeds in every North pit: a grand slam that feeds by sowing
   * but, where it captures, leaves North nothing. */
  const char *lap = "0  0 0 0 0 1 17  0 0 0 0 0 0  15 15";
  configure("grand_slam=capture_continue");
  ck_assert_uint_eq(game_legal(&G, (const game_pos[]){pos(lap)}), 1u << 5);
  configure("grand_slam=capture_continue feed_check=after_capture");
  game_pos p = pos(lap);
  expect_end(&p, GAME_END_FAMINE, 33, -1, -1);
  configure("grand_slam=no_capture feed_check=after_capture");
  ck_assert_uint_eq(game_legal(&G, (const game_pos[]){pos(lap)}), 1u << 5);
}
END_TEST

START_TEST(small_boards) {
  configure("houses=3 seeds=2");
  ck_assert_int_eq(G.n_actions, 3);
  ck_assert_int_eq(G.total_seeds, 12);
  ck_assert_int_eq(G.n_features, 34);
  game_pos p = start_pos();
  ck_assert_uint_eq(game_legal(&G, &p), 7);
  game_play(&G, &p, 0); /* pit 0: 2 seeds into pits 1 and 2 */
  ck_assert_int_eq(p.pits[0], 0);
  ck_assert_int_eq(p.pits[1], 3);
  ck_assert_int_eq(p.pits[2], 3);
  ck_assert_int_eq(p.store[0], 0);
  game_play(&G, &p, 2); /* North's pit 5: into 0 and 1, which holds 4 */
  ck_assert_int_eq(p.pits[0], 1);
  ck_assert_int_eq(p.store[1], 0);
  game_play(&G, &p, 2); /* pit 2: 3 seeds to 3, 4, 5; the last makes 1: no capture */
  ck_assert_int_eq(p.pits[3], 3);
  ck_assert_int_eq(p.pits[4], 3);
  ck_assert_int_eq(p.pits[5], 1);
  ck_assert_int_eq(p.store[0], 0);
}
END_TEST

static Suite *oware_suite(void) {
  /* Every position under every variant; index 7 * position + variant. */
  static perft_case perft[4 * 7];
  static char what[4 * 7][48], settings[7][40];
  static stress_case stress[7];
  for (int v = 0; v < 7; v++) {
    snprintf(settings[v], sizeof settings[v], "grand_slam=%s", variants[v]);
    stress[v] =
        (stress_case){settings[v],
                      {.games = 100000,
                       .seed = 7,
                       .stream = (uint64_t)v,
                       .max_ply = 1000,
                       .check_move = stress_move,
                       .check_game = stress_game,
                       .common_ends = {GAME_END_TARGET, GAME_END_FAMINE, GAME_END_REPETITION}}};
    for (int i = 0; i < 4; i++) {
      snprintf(what[7 * i + v], sizeof what[0], "%s %s", perft_positions[i].name, variants[v]);
      /* Sanitizers: the shallower goldens. */
      perft[7 * i + v] = (perft_case){what[7 * i + v],
                                      settings[v],
                                      perft_positions[i].tokens,
                                      perft_golden[i][v],
                                      perft_positions[i].depth,
                                      perft_positions[i].depth - 2,
                                      1};
    }
  }
  static const setboard_refusal refusals[] = {
      {"0 4 4", "setboard takes MOVER, 12 pits and 2 stores (15 numbers), got 3"},
      {"0  4 4 4 4 4 4  4 4 4 4 4 4  0 1", "pits and stores hold 49 seeds, this game has 48"},
      {"2  4 4 4 4 4 4  4 4 4 4 4 4  0 0", "bad mover '2' (0 or 1)"},
      {"0  4 x 4 4 4 4  4 4 4 4 4 4  0 0", "bad seed count 'x' (0..48)"},
      {NULL, NULL}};
  /* A board of distinct counts drawn whole: each pit under its number. */
  static const render_case renders[] = {
      {"0  0 1 2 3 4 5 6 7 0 1 2 3  8 6",
       "        11  10   9   8   7   6\n"
       "North [   3   2   1   0   7   6 ]  captured 6\n"
       "South [   0   1   2   3   4   5 ]  captured 8  <- to move\n"
       "         0   1   2   3   4   5\n"},
      {NULL, NULL}};
  static const game_spec spec = {.suite = "oware",
                                 .game = "oware",
                                 .perft = perft,
                                 .n_perft = 4 * 7,
                                 .stress = stress,
                                 .n_stress = 7,
                                 .start_tokens = "4 4 4 4 4 4 4 4 4 4 4 4 0 0",
                                 .refusals = refusals,
                                 .renders = renders,
                                 /* own pit 0: 1 seed, which is a 1; own store 3 of 25 */
                                 .encode = {"0  1 2 3 0 0 0  5 6 7 8 9 2  3 2",
                                            "1  5 6 7 8 9 2  1 2 3 0 0 0  2 3",
                                            64,
                                            {{0, 0.125f}, {2, 1.0f}, {60, 3.0f / 25}, {-1, 0}}}};
  game_tests t = {
      .examples = {o1_opening, o2_to_o6_sowing_and_captures, o7_forced_feed, o8_famine,
                   o9_no_capture, o9_forbidden, o9_forbidden_only_move_stands_without_capture,
                   o9_capture_continue, o9_endings, w1_warri_lap_capture_then_feed},
      .rules = {nocap_limit_ends_with_award, max_plies_cap, repetition_counts,
                split_even_award_halves_odd_seed, draw_award_keeps_each_store,
                sowing_matches_a_plain_count_every_size, leftover_none_gives_board_to_nobody,
                feed_check_after_capture, small_boards},
      .reference = {reference_random, reference_capture_biased},
      .perft = {perft_start_by_hand}};
  return game_suite(&spec, &t);
}

TEST_MAIN(oware_suite)

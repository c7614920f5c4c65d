/* Openings: the level book (level, distinct, legal, fixed by its seed) and
 * the random openings of gating (fixed by seed and index, redrawn when they
 * end the game). The move lists pinned here are the streams matches have
 * always used: a change to them changes every match result of a seed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/openings.h"
#include "game/game.h"
#include "search/alphabeta.h"
#include "tests/gametest.h"
#include "tests/testutil.h"

/* Equal openings: the same plies (bytes past n are not part of it). */
static int same_line(const opening_line *a, const opening_line *b) {
  return a->n == b->n && memcmp(a->moves, b->moves, (size_t)a->n) == 0;
}

static void assert_moves(const opening_line *o, int n, const int *moves) {
  ck_assert_int_eq(o->n, n);
  for (int i = 0; i < n; i++) ck_assert_int_eq(o->moves[i], moves[i]);
}

/* ---- The level book ------------------------------------------------------------------------ */

START_TEST(opening_book_is_level_and_distinct) {
  configure_game("oware", NULL);
  opening_line book[12];
  char err[256];
  ck_assert_msg(opening_level_book(&G, 12, 4, 3, 150, 5, book, err, sizeof err) == 0, "%s", err);
  ab_params ap = ab_defaults();
  ap.depth = 3;
  ab_search *s = ab_create(&G, &ap, err, sizeof err);
  game_pos pos[12];
  for (int i = 0; i < 12; i++) {
    ck_assert(book[i].n >= 1 && book[i].n <= 4);
    game_hist h;
    game_start(&G, &pos[i]);
    game_hist_reset(&h, &pos[i]);
    for (int k = 0; k < book[i].n; k++) {
      ck_assert(game_legal(&G, &pos[i]) >> book[i].moves[k] & 1);
      game_step(&G, &pos[i], &h, book[i].moves[k]);
    }
    ck_assert_int_eq(pos[i].status, GAME_ONGOING);
    ab_result r;
    ab_clear(s);
    ab_run(s, &pos[i], &h, &r, err, sizeof err);
    ck_assert_int_le(abs(r.score), 150);
    for (int j = 0; j < i; j++)
      ck_assert(pos[i].hash != pos[j].hash || pos[i].ply != pos[j].ply ||
                memcmp(pos[i].store, pos[j].store, sizeof pos[i].store));
  }
  ab_free(s);
  /* An impossible request fails with a message. */
  ck_assert_int_eq(opening_level_book(&G, 50, 1, 2, 0, 5, book, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "openings"));
}
END_TEST

/* A book larger than the first hash table of the positions found (16):
 * every opening distinct, and filled without a long search. */
START_TEST(large_book_is_distinct) {
  configure_game("oware", NULL);
  enum { K = 200 };
  static opening_line book[K];
  static game_pos pos[K];
  char err[256];
  ck_assert_msg(opening_level_book(&G, K, 8, 1, AB_WIN, 9, book, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < K; i++) {
    game_hist h;
    game_start(&G, &pos[i]);
    game_hist_reset(&h, &pos[i]);
    for (int k = 0; k < book[i].n; k++) game_step(&G, &pos[i], &h, book[i].moves[k]);
    for (int j = 0; j < i; j++) ck_assert_msg(!game_pos_equal(&pos[i], &pos[j]), "%d = %d", i, j);
  }
}
END_TEST

START_TEST(opening_book_is_fixed_by_its_seed) {
  configure_game("oware", NULL);
  opening_line a[12], b[12];
  char err[256];
  ck_assert_int_eq(opening_level_book(&G, 12, 4, 3, 150, 5, a, err, sizeof err), 0);
  ck_assert_int_eq(opening_level_book(&G, 12, 4, 3, 150, 5, b, err, sizeof err), 0);
  for (int i = 0; i < 12; i++) ck_assert(same_line(&a[i], &b[i]));
  assert_moves(&a[0], 1, (const int[]){1});
  assert_moves(&a[1], 4, (const int[]){1, 0, 4, 1});
  assert_moves(&a[5], 3, (const int[]){4, 2, 0});
  assert_moves(&a[11], 2, (const int[]){3, 3});
  /* Another seed, another book. */
  ck_assert_int_eq(opening_level_book(&G, 12, 4, 3, 150, 6, b, err, sizeof err), 0);
  int differ = 0;
  for (int i = 0; i < 12; i++) differ += !same_line(&a[i], &b[i]);
  ck_assert_int_gt(differ, 0);
}
END_TEST

START_TEST(bad_book_requests) {
  configure_game("oware", NULL);
  opening_line book[4];
  char err[256];
  ck_assert_int_eq(opening_level_book(&G, 0, 4, 2, 150, 1, book, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "opening book"));
  ck_assert_int_eq(opening_level_book(&G, 4, 0, 2, 150, 1, book, err, sizeof err), -1);
  ck_assert_int_eq(
      opening_level_book(&G, 4, OPENING_MAX_PLIES + 1, 2, 150, 1, book, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "32"));
}
END_TEST

/* ---- Random openings ------------------------------------------------------------------------- */

START_TEST(random_openings_are_fixed_by_seed_and_index) {
  configure_game("oware", NULL);
  static const int want[4][6] = {
      {4, 3, 2, 1, 5, 3}, {3, 2, 5, 4, 0, 0}, {3, 4, 4, 3, 1, 0}, {3, 0, 5, 0, 0, 5}};
  for (int i = 0; i < 4; i++) {
    opening_line o, again;
    game_pos p, q;
    game_hist h, h2;
    opening_random(&G, 6, 1, i, &o, &p, &h);
    assert_moves(&o, 6, want[i]);
    ck_assert_int_eq(p.status, GAME_ONGOING);
    ck_assert_int_eq(p.ply, 6);
    opening_random(&G, 6, 1, i, &again, &q, &h2);
    ck_assert(same_line(&o, &again));
    ck_assert(game_pos_equal(&p, &q));
    /* The position is the one the plies reach, with its history. */
    game_pos r;
    game_hist hr;
    game_start(&G, &r);
    game_hist_reset(&hr, &r);
    for (int k = 0; k < o.n; k++) game_step(&G, &r, &hr, o.moves[k]);
    ck_assert(game_pos_equal(&p, &r));
    ck_assert_int_eq(h.len, hr.len);
  }
  /* Another seed, other openings. */
  opening_line o, first;
  game_pos p;
  game_hist h;
  opening_random(&G, 6, 1, 0, &first, &p, &h);
  opening_random(&G, 6, 2, 0, &o, &p, &h);
  ck_assert(!same_line(&o, &first));
  /* Longer than the buffer: cut to OPENING_MAX_PLIES. */
  opening_random(&G, 1000, 1, 0, &o, &p, &h);
  ck_assert_int_le(o.n, OPENING_MAX_PLIES);
  ck_assert_int_eq(p.ply, o.n);
}
END_TEST

START_TEST(random_openings_are_redrawn_when_the_game_ends) {
  /* Three pits of one seed: the first draw of 4 plies ends the game for
   * some indices (index 9 among them); what comes back never does. */
  configure_game("oware", "houses=3 seeds=1");
  for (int i = 0; i < 20; i++) {
    opening_line o;
    game_pos p;
    game_hist h;
    opening_random(&G, 4, 1, i, &o, &p, &h);
    ck_assert_int_eq(p.status, GAME_ONGOING);
    ck_assert_int_eq(o.n, 4);
    if (i == 9) assert_moves(&o, 4, (const int[]){2, 2, 1, 1});
  }
  /* Two plies end every game: after the redraws the last draw is kept,
   * and the caller sees that it ended. */
  configure_game("oware", "max_plies=2");
  opening_line o;
  game_pos p;
  game_hist h;
  opening_random(&G, 4, 1, 0, &o, &p, &h);
  ck_assert_int_ne(p.status, GAME_ONGOING);
  assert_moves(&o, 2, (const int[]){1, 5});
}
END_TEST

static Suite *openings_suite(void) {
  Suite *s = suite_create("openings");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, opening_book_is_level_and_distinct);
  tcase_add_test(t, large_book_is_distinct);
  tcase_add_test(t, opening_book_is_fixed_by_its_seed);
  tcase_add_test(t, bad_book_requests);
  tcase_add_test(t, random_openings_are_fixed_by_seed_and_index);
  tcase_add_test(t, random_openings_are_redrawn_when_the_game_ends);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(openings_suite)

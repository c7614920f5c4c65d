/* The game session behind the protocol and `play`: after any mix of moves
 * and undos it is exactly a replay of the moves that remain. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "game/session.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

/* The hashes the history holds (the filter in front of them included). */
static void assert_hist_eq(const game_hist *a, const game_hist *b) {
  ck_assert_int_eq(a->len, b->len);
  ck_assert_int_eq(memcmp(a->hash, b->hash, (size_t)a->len * sizeof a->hash[0]), 0);
  ck_assert_int_eq(memcmp(a->seen, b->seen, sizeof a->seen), 0);
}

/* s against a fresh session of the same start that plays s's moves. */
static void assert_is_replay(const session *s, session *r) {
  const game *g = session_game(s);
  session_reset(r, g, session_pos_at(s, 0));
  char err[256] = "";
  int bad = -1; /* one assertion for the loops: Check's are costly */
  for (int i = 0; i < session_plies(s) && bad < 0; i++)
    if (session_play(r, session_move_at(s, i), err, sizeof err) != 0) bad = i;
  ck_assert_msg(bad < 0, "move %d: %s", bad, err);
  ck_assert_int_eq(session_plies(s), session_plies(r));
  for (int k = 0; k <= session_plies(s) && bad < 0; k++)
    if (memcmp(session_pos_at(s, k), session_pos_at(r, k), sizeof(game_pos))) bad = k;
  ck_assert_msg(bad < 0, "position after %d moves differs", bad);
  const game_pos *p = session_pos(s), *q = session_pos(r);
  ck_assert_int_eq(p->ply, q->ply);
  ck_assert_int_eq(p->status, q->status);
  ck_assert_int_eq(p->winner, q->winner);
  ck_assert_int_eq(p->final[0], q->final[0]);
  ck_assert_int_eq(p->final[1], q->final[1]);
  ck_assert_int_eq(memcmp(p, q, sizeof *p), 0); /* counters, hash, result */
  ck_assert_uint_eq(session_legal(s), session_legal(r));
  ck_assert_uint_eq(session_legal(s), game_legal(g, p));
  assert_hist_eq(session_hist(s), session_hist(r));
}

/* Random moves with random undos of 1..4 moves (and every undo of a finished game), now and then an illegal
 * move, checked against a replay after every step. Returns the games that
 * ended on the way (so the caller knows results were undone too). */
static int random_walk(const game *g, const game_pos *start, uint64_t seed, int steps) {
  session *s = session_create(g, start), *r = session_create(g, NULL);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(r);
  rng_t rng;
  rng_seed(&rng, seed, 0);
  char err[256];
  int ended = 0;
  for (int i = 0; i < steps; i++) {
    int n = session_plies(s), over = session_pos(s)->status != GAME_ONGOING;
    uint32_t roll = rng_below(&rng, 100);
    if (n > 0 && (over || roll < 10)) {
      int k = 1 + (int)rng_below(&rng, (uint32_t)(n < 4 ? n : 4));
      ck_assert_int_eq(session_undo(s, k), 0);
      ck_assert_int_eq(session_plies(s), n - k);
    } else if (roll < 15 || over) {
      /* An illegal move changes nothing. */
      game_pos before = *session_pos(s);
      game_moves illegal =
          ~session_legal(s) & (g->n_actions == 32 ? ~0u : (1u << g->n_actions) - 1);
      int a = illegal ? game_random_action(&rng, illegal) : g->n_actions;
      ck_assert_int_eq(session_play(s, a, err, sizeof err), -1);
      ck_assert_msg(strstr(err, "illegal move") != NULL, "%s", err);
      ck_assert_int_eq(session_plies(s), n);
      ck_assert_int_eq(memcmp(&before, session_pos(s), sizeof before), 0);
      if (over) break; /* a finished game at the start: nothing to undo */
    } else {
      int a = game_random_action(&rng, session_legal(s));
      ck_assert_msg(session_play(s, a, err, sizeof err) == 0, "%s", err);
      ck_assert_int_eq(session_move_at(s, n), a);
      ended += session_pos(s)->status != GAME_ONGOING;
    }
    assert_is_replay(s, r);
  }
  ck_assert_int_eq(session_undo(s, session_plies(s) + 1), -1);
  ck_assert_int_eq(session_undo(s, session_plies(s)), 0);
  ck_assert_int_eq(memcmp(session_pos(s), start ? start : session_pos_at(r, 0), sizeof(game_pos)),
                   0);
  session_free(s);
  session_free(r);
  return ended;
}

START_TEST(undo_equals_replay_in_every_game) {
  const char *names[] = {"oware", "abapa", "wari", "namnam", "bao-kenya", "bao-laps", "kujifunza"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    game g;
    char err[256];
    ck_assert_msg(game_configure(&g, names[i], 0, NULL, err, sizeof err) == 0, "%s", err);
    int ended = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) ended += random_walk(&g, NULL, seed, 1000);
    ck_assert_msg(ended > 0, "%s: no game ended, so no result was undone", names[i]);
  }
}
END_TEST

/* Two seeds on each side go round and round: repetition ends these games,
 * so the history behind the rule is what undo must restore. */
START_TEST(undo_restores_repetition_history) {
  game g;
  char err[256];
  ck_assert_int_eq(game_configure(&g, "oware", 0, NULL, err, sizeof err), 0);
  char *tok[] = {"0", "1", "0", "0", "0", "1", "0", "1", "0", "0", "0", "1", "0", "22", "22"};
  game_pos start;
  ck_assert_msg(g.rules->setboard(&g, &start, 15, tok, err, sizeof err) == 0, "%s", err);
  int ended = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) ended += random_walk(&g, &start, seed, 1500);
  ck_assert_int_gt(ended, 0);
}
END_TEST

START_TEST(text_moves_and_labels) {
  game g;
  char err[256], legal[128];
  ck_assert_int_eq(game_configure(&g, "oware", 0, NULL, err, sizeof err), 0);
  session *s = session_create(&g, NULL);
  ck_assert_int_eq(session_play_text(s, "2", err, sizeof err), 0);
  /* North's action 2 is the pit the board labels 8. */
  session_legal_text(s, 0, ",", legal, sizeof legal);
  ck_assert_str_eq(legal, "0,1,2,3,4,5");
  session_legal_text(s, 1, " ", legal, sizeof legal);
  ck_assert_str_eq(legal, "6 7 8 9 10 11");
  ck_assert_int_eq(session_find_label(s, "8"), 2);
  ck_assert_int_eq(session_find_label(s, "2"), -1);
  ck_assert_int_eq(session_play_text(s, "x", err, sizeof err), -1);
  ck_assert_int_eq(session_play(s, 31, err, sizeof err), -1);
  ck_assert_str_eq(err, "illegal move 31 (legal: 0 1 2 3 4 5)");
  ck_assert_int_eq(session_plies(s), 1);
  session_free(s);
}
END_TEST

static Suite *session_suite(void) {
  Suite *s = suite_create("session");
  add_tests(s, "undo", 60,
            (const TTest *[]){undo_equals_replay_in_every_game, undo_restores_repetition_history,
                              text_moves_and_labels, NULL});
  return s;
}

TEST_MAIN(session_suite)

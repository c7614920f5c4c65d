/* The shipped networks (models/): each loads under its game's own rules
 * when `zero` and `net` are given no weights, and plays sound games, beating
 * greedy clearly from random openings. A sanity check, not a strength test:
 * the ladders in BENCHMARKS.md measure strength. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "game/game.h"
#include "search/agent.h"
#include "tests/searchtest.h"
#include "tests/testutil.h"

#define PAIRS 8 /* openings, each played with both colours */

/* The score of `spec` against greedy over PAIRS random openings of 2 to 5
 * plies, both colours. */
static double score_against_greedy(const char *spec) {
  char err[256];
  agent *zero = agent_create(&G, spec, 1, err, sizeof err);
  ck_assert_msg(zero != NULL, "%s: %s", spec, err);
  agent *greedy = agent_create(&G, "greedy", 2, err, sizeof err);
  ck_assert_msg(greedy != NULL, "%s", err);
  rng_t r;
  rng_seed(&r, 7, 0);
  double points = 0;
  for (int i = 0; i < PAIRS; i++) {
    game_pos open = start_pos();
    game_hist open_h;
    game_hist_reset(&open_h, &open);
    random_moves(&open, &open_h, &r, 2 + (int)rng_below(&r, 4));
    for (int zero_side = 0; zero_side < 2; zero_side++) {
      game_pos p = open;
      game_hist h;
      game_hist_copy(&h, &open_h);
      agent_reset(zero);
      agent_reset(greedy);
      while (p.status == GAME_ONGOING) {
        agent *a = p.mover == zero_side ? zero : greedy;
        int action = agent_choose(a, &p, &h);
        ck_assert_msg(game_legal(&G, &p) >> action & 1, "%s played the illegal %d", spec, action);
        game_step(&G, &p, &h, action);
      }
      points += (game_outcome(&p, zero_side) + 1) / 2.0;
    }
  }
  agent_free(zero);
  agent_free(greedy);
  return points / (2 * PAIRS);
}

START_TEST(shipped_networks_play_their_games) {
  int shipped = 0;
  for (int i = 0; game_rules_at(i); i++) {
    const char *name = game_rules_at(i)->name;
    char path[256];
    snprintf(path, sizeof path, "models/%s.weights", name);
    if (access(path, R_OK) != 0) continue;
    shipped++;
    configure_game(name, NULL);
    /* The policy alone, then a small search: both find the network. */
    double net = score_against_greedy("net");
    double zero = score_against_greedy("zero sims=32");
    ck_assert_msg(zero >= 0.75, "%s: zero sims=32 scored only %.2f against greedy", name, zero);
    ck_assert_msg(net >= 0.5, "%s: net scored only %.2f against greedy", name, net);
  }
  /* Oware's network ships; a checkout without it is broken. */
  ck_assert_int_ge(shipped, 1);
}
END_TEST

static Suite *models_suite(void) {
  Suite *s = suite_create("models");
  TCase *t = tcase_create("shipped");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, shipped_networks_play_their_games);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(models_suite)

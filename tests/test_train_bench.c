/* The throughput benchmarks of a config (trainer/train.h): train_bench's
 * schedule feeds its learner the workers' games, and train_bench_learner's
 * figures follow its stated formula and clocks. Each runs configs/tiny.ini
 * (one worker, short searches and games) for a second or two. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/testkit.h"
#include "trainer/config.h"
#include "trainer/train.h"

static train_config tiny(const char *threads) {
  char err[1024];
  train_config c;
  /* Games capped at 30 plies: the first ones end within the time even on
   * a loaded machine. */
  char *over[] = {"selfplay.threads=1", "selfplay.games_per_thread=8", "search.sims=8",
                  "learner.batch=64",   "game.max_plies=30",           (char *)threads};
  ck_assert_msg(config_load(&c, "configs/tiny.ini", 6, over, err, sizeof err) == 0, "%s", err);
  return c;
}

/* The workers' games reach the learner, which trains on them: games,
 * samples and steps all counted in the time measured, and the time's
 * shares. */
START_TEST(the_schedule_trains_on_its_games) {
  train_config c = tiny("learner.threads=1");
  train_bench_result r;
  char err[1024];
  ck_assert_msg(train_bench(&c, NULL, 1.5, &r, err, sizeof err) == 0, "%s", err);
  ck_assert_double_ge(r.seconds, 1.5);
  ck_assert_uint_gt(r.games, 0);
  ck_assert_uint_ge(r.samples, r.games);
  ck_assert_uint_ge(r.evals, r.samples);
  ck_assert_msg(r.steps > 0, "no training step on %llu samples", (unsigned long long)r.samples);
  /* The CPU time's shares (network, search, learner, gating) add up. */
  double sum = 0;
  for (int i = 0; i < 4; i++) {
    ck_assert(r.share[i] >= 0 && r.share[i] <= 1);
    sum += r.share[i];
  }
  ck_assert_double_eq_tol(sum, 1, 1e-9);
  ck_assert(r.share[0] > 0 && r.share[1] > 0 && r.share[2] > 0);
  ck_assert_double_gt(r.cores_used, 0);
}
END_TEST

static int same(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

/* The capacity is 1 / (1 / intake + train_ratio / (batch x steps)), by
 * each clock; one learner thread times its steps by its CPU clock, two by
 * the wall clock. */
START_TEST(learner_capacity_follows_its_formula) {
  for (int threads = 1; threads <= 2; threads++) {
    train_config c = tiny(threads == 1 ? "learner.threads=1" : "learner.threads=2");
    train_learner_result r;
    char err[1024];
    ck_assert_msg(train_bench_learner(&c, 0.4, &r, err, sizeof err) == 0, "%s", err);
    ck_assert(r.intake_per_s > 0 && r.steps_per_s > 0 && r.steps_per_s_wall > 0 &&
              r.steps_per_s_thread > 0);
    double ratio = c.train_ratio, batch = c.batch;
    ck_assert_msg(
        same(r.capacity_per_s, 1 / (1 / r.intake_per_s + ratio / (batch * r.steps_per_s))),
        "capacity %g from intake %g and steps %g", r.capacity_per_s, r.intake_per_s, r.steps_per_s);
    ck_assert(same(r.capacity_per_s_wall,
                   1 / (1 / r.intake_per_s + ratio / (batch * r.steps_per_s_wall))));
    ck_assert(r.capacity_per_s < r.intake_per_s);
    if (threads == 1)
      ck_assert_double_eq(r.steps_per_s, r.steps_per_s_thread);
    else
      ck_assert_double_eq(r.steps_per_s, r.steps_per_s_wall);
  }
}
END_TEST

static Suite *train_bench_suite(void) {
  Suite *s = suite_create("train_bench");
  add_tests(s, "bench", 120,
            (const TTest *const[]){the_schedule_trains_on_its_games,
                                   learner_capacity_follows_its_formula, NULL});
  return s;
}

TEST_MAIN(train_bench_suite)

/* `sowzero bench engine`: random playouts through the full rules, including
 * the repetition history, on one thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cli/cli.h"
#include "game/game.h"

/* Plays `games` random games from seed; returns the total plies (the
 * signature: any change to the rules or the RNG changes it). */
static long long playouts(const game *g, game_hist *h, uint64_t seed, long games) {
  rng_t r;
  rng_seed(&r, seed, 0);
  long long plies = 0;
  for (long i = 0; i < games; i++) {
    game_pos p;
    game_start(g, &p);
    game_hist_reset(h, &p);
    while (p.status == GAME_ONGOING) {
      game_moves m = g->rules->legal(g, &p);
      game_step(g, &p, h, game_random_action(&r, m));
    }
    plies += p.ply;
  }
  return plies;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int bench_engine(bench_out *b, int argc, char **argv) {
  const char *name = "oware";
  long sig_games = 10000;
  double seconds = 1.0;
  int reps = 5;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--game") && i + 1 < argc)
      name = argv[++i];
    else if (!strcmp(argv[i], "--games") && i + 1 < argc)
      sig_games = atol(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "sowzero bench engine: unknown option '%s'\n", argv[i]);
      return 1;
    }
  }
  if (sig_games < 1 || seconds <= 0 || reps < 1 || reps > 99) {
    fprintf(stderr, "sowzero bench engine: --games, --seconds and --reps must be positive\n");
    return 1;
  }
  game g;
  char err[256];
  if (game_configure(&g, name, 0, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero bench engine: %s\n", err);
    return 1;
  }
  game_hist *h = malloc(sizeof *h);
  if (!h) return 1;

  double t0 = clock_thread_cpu();
  long long sig = playouts(&g, h, 1, sig_games);
  double sig_time = clock_thread_cpu() - t0;

  /* Size one repetition from the signature run, then take medians. */
  long per_rep = (long)(seconds * (double)sig_games / (sig_time > 1e-6 ? sig_time : 1e-6));
  if (per_rep < 1) per_rep = 1;
  double games_s[99], plies_s[99], wall_s[99];
  for (int r = 0; r < reps; r++) {
    double w0 = clock_wall(), c0 = clock_thread_cpu();
    long long plies = playouts(&g, h, 1000 + (uint64_t)r, per_rep);
    double cpu = clock_thread_cpu() - c0, wall = clock_wall() - w0;
    games_s[r] = (double)per_rep / cpu;
    plies_s[r] = (double)plies / cpu;
    wall_s[r] = (double)per_rep / wall;
  }
  qsort(games_s, (size_t)reps, sizeof(double), cmp_double);
  qsort(plies_s, (size_t)reps, sizeof(double), cmp_double);
  qsort(wall_s, (size_t)reps, sizeof(double), cmp_double);
  free(h);

  char extra[128];
  snprintf(extra, sizeof extra, "\"game\": \"%s\", \"threads\": 1", name);
  bench_note(b, "engine: %s, random playouts with repetition tracking, one thread, "
                "median of %d x %ld games (thread CPU time)", name, reps, per_rep);
  bench_figure(b, "engine", "playouts_per_s", games_s[reps / 2], "1/s", extra);
  bench_figure(b, "engine", "plies_per_s", plies_s[reps / 2], "1/s", extra);
  bench_figure(b, "engine", "playouts_per_s_wall", wall_s[reps / 2], "1/s", extra);
  snprintf(extra, sizeof extra, "\"game\": \"%s\", \"games\": %ld, \"seed\": 1", name, sig_games);
  bench_figure(b, "engine", "signature_plies", (double)sig, "plies", extra);
  return 0;
}

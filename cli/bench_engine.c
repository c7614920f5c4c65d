/* `sowzero bench engine`: random playouts through the full rules, including
 * the repetition history, on one thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
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

typedef struct {
  char game[64];
  int games;
  double seconds;
  int reps, json;
} engine_opts;

#define O_(kind, name, F, ...) kind(name, engine_opts, F, __VA_ARGS__)
static const kv_key engine_keys[] = {
    O_(KV_S, "game", game, NULL, "NAME  the game or preset ('sowzero rules' lists them)"),
    O_(KV_I, "games", games, 1, 1000000000, NULL, "random games of the signature"),
    O_(KV_D, "seconds", seconds, 0.001, 3600, NULL, "S  thread CPU seconds per repetition"),
    O_(KV_I, "reps", reps, 1, 99, NULL, "repetitions (the median is reported)"),
    O_(KV_B, "json", json, NULL, "one JSON object per figure and line"),
};
#undef O_
static const kv_table engine_table = KV_TABLE(engine_keys);

int bench_engine(bench_out *b, int argc, char **argv) {
  engine_opts o = {"oware", 10000, 1.0, 5, b->json};
  cli_cmd c = {.name = "bench engine",
               .synopsis = "bench engine [--game G] [--games N] [--seconds S] [--reps R] [--json]",
               .about =
                   "  Random playouts through the full rules, with repetition tracking, on "
                   "one thread,\n  and a signature: the plies of N seeded random games.\n",
               .opts = &engine_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  b->json = o.json;
  const char *name = o.game;
  long sig_games = o.games;
  double seconds = o.seconds;
  int reps = o.reps;
  game g;
  char err[256];
  if (game_configure(&g, name, 0, NULL, err, sizeof err) != 0) return cli_fail(&c, 2, "%s", err);
  game_hist *h = malloc(sizeof *h);
  if (!h) return cli_fail(&c, 1, "out of memory");

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
  json_writer w;
  json_writer_init(&w, extra, sizeof extra);
  json_put_string(&w, "game", name);
  json_put_int(&w, "threads", 1);
  bench_note(b,
             "engine: %s, random playouts with repetition tracking, one thread, "
             "median of %d x %ld games (thread CPU time)",
             name, reps, per_rep);
  bench_figure(b, "engine", "playouts_per_s", games_s[reps / 2], "1/s", extra);
  bench_figure(b, "engine", "plies_per_s", plies_s[reps / 2], "1/s", extra);
  bench_figure(b, "engine", "playouts_per_s_wall", wall_s[reps / 2], "1/s", extra);
  json_writer_init(&w, extra, sizeof extra);
  json_put_string(&w, "game", name);
  json_put_int(&w, "games", sig_games);
  json_put_int(&w, "seed", 1);
  bench_figure(b, "engine", "signature_plies", (double)sig, "plies", extra);
  return 0;
}

/* `sowzero stats`: how a rule variant plays — first-player results, game
 * lengths and endings over many games between two agents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/stats.h"
#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "game/game.h"
#include "search/agent.h"

void cli_json_rate(json_writer *w, const char *key, const stats_rate *r) {
  json_begin_object(w, key);
  json_put_int(w, "count", r->count);
  json_put_fixed(w, "rate", r->rate, 6);
  json_put_fixed(w, "lo", r->lo, 6);
  json_put_fixed(w, "hi", r->hi, 6);
  json_end_object(w);
}

void cli_json_first_score(json_writer *w, const stats_result *r) {
  json_begin_object(w, "first_score");
  json_put_fixed(w, "score", r->first_score, 6);
  json_put_fixed(w, "lo", r->first_score_lo, 6);
  json_put_fixed(w, "hi", r->first_score_hi, 6);
  json_end_object(w);
}

void cli_json_length(json_writer *w, const stats_result *r) {
  json_begin_object(w, "length");
  json_put_fixed(w, "mean", r->len_mean, 3);
  json_put_fixed(w, "sd", r->len_sd, 3);
  json_put_int(w, "min", r->len_min);
  json_put_int(w, "p10", r->len_p10);
  json_put_int(w, "p25", r->len_p25);
  json_put_int(w, "median", r->len_median);
  json_put_int(w, "p75", r->len_p75);
  json_put_int(w, "p90", r->len_p90);
  json_put_int(w, "max", r->len_max);
  json_end_object(w);
}

void cli_json_endings(json_writer *w, const stats_result *r) {
  json_begin_object(w, "endings");
  for (int e = 1; e < GAME_END_COUNT; e++) json_put_int(w, game_end_name(e), r->end_reason[e]);
  json_end_object(w);
}

int cli_json_commit(afile *a, json_writer *w, char *err, size_t errlen) {
  fputc('\n', a->f);
  if (json_writer_done(w) != 0 || ferror(a->f)) return afile_fail(a, err, errlen);
  return afile_commit(a, err, errlen);
}

static int write_json(const char *path, const game *g, const char *first, const char *second,
                      const stats_params *p, const stats_result *r, char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  char opts[512];
  game_options_string(g, opts, sizeof opts);
  json_writer w;
  json_writer_init_file(&w, a.f);
  json_begin_object(&w, NULL);
  json_lines(&w, "\n  ", "\n"); /* one member a line */
  json_put_string(&w, "game", g->rules->name);
  json_put_string(&w, "preset", g->preset);
  json_put_string(&w, "rules", opts);
  json_put_string(&w, "first", first);
  json_put_string(&w, "second", second);
  json_put_int(&w, "first_side", r->first_side);
  json_put_int(&w, "games", r->games);
  json_put_uint(&w, "seed", (unsigned long long)p->seed);
  json_put_fixed(&w, "seconds", r->seconds, 3);
  cli_json_rate(&w, "first_win", &r->first_win);
  cli_json_rate(&w, "draw", &r->draw);
  cli_json_rate(&w, "first_loss", &r->first_loss);
  cli_json_first_score(&w, r);
  json_put_fixed(&w, "mean_margin", r->mean_margin, 4);
  cli_json_length(&w, r);
  json_put_int(&w, "grand_slams", r->grand_slams);
  json_put_int(&w, "captures", r->captures);
  json_put_int(&w, "distinct_games", r->distinct_games);
  cli_json_endings(&w, r);
  json_end_object(&w);
  return cli_json_commit(&a, &w, err, errlen);
}

typedef struct {
  stats_params p;
  char game[64], json[CLI_PATH_MAX];
} stats_opts;

#define O_(kind, name, F, ...) kind(name, stats_opts, F, __VA_ARGS__)
static const kv_key stats_keys[] = {
    O_(KV_S, "game", game, NULL, "NAME  the game or preset ('sowzero rules' lists them)"),
    O_(KV_I, "games", p.games, 1, 100000000, NULL, "games to play"),
    O_(KV_I, "threads", p.threads, 1, 256, NULL, "worker threads"),
    O_(KV_U, "seed", p.seed, NULL, "seed of the agents"),
    O_(KV_S, "json", json, NULL, "FILE  the statistics as JSON"),
};
#undef O_
static const kv_table stats_table = KV_TABLE(stats_keys);

int cmd_stats(int argc, char **argv) {
  stats_opts o;
  memset(&o, 0, sizeof o);
  o.p = stats_defaults();
  snprintf(o.game, sizeof o.game, "oware");
  char *sets[64], *pos[2];
  cli_list set = {"set", "KEY=VALUE", "a rule option of the game ('sowzero rules')", 1, 64, sets,
                  0};
  cli_cmd c = {.name = "stats",
               .synopsis = "stats [options] [FIRST [SECOND]]",
               .about =
                   "  How a rule variant plays: first-player results, game lengths, endings.\n"
                   "  FIRST, SECOND  agent specs for the player who moves first and the other\n"
                   "                 (default: random random; one spec plays both sides)\n",
               .opts = &stats_table,
               .base = &o,
               .lists = &set,
               .n_lists = 1,
               .pos_name = "agent",
               .max_pos = 2,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  stats_params p = o.p;
  const char *json = o.json[0] ? o.json : NULL, *spec[2] = {"random", "random"};
  for (int i = 0; i < c.n_pos; i++) spec[i] = pos[i];
  if (c.n_pos == 1) spec[1] = spec[0];
  char err[1024];
  game g;
  if (game_configure(&g, o.game, set.n, sets, err, sizeof err)) return cli_fail(&c, 2, "%s", err);
  for (int i = 0; i < c.n_pos; i++) {
    agent *a = agent_create(&g, pos[i], 1, err, sizeof err);
    if (!a) return cli_fail(&c, 2, "agent '%s': %s", pos[i], err);
    agent_free(a);
  }
  stats_result r;
  if (stats_run(&g, spec[0], spec[1], &p, &r, err, sizeof err)) return cli_fail(&c, 1, "%s", err);
  char opts[512];
  game_options_string(&g, opts, sizeof opts);
  printf("stats: %s (%s)\n", g.preset, opts);
  printf("%d games, %s (first, %s) vs %s, %d thread%s, %.1f s\n\n", r.games, spec[0],
         r.first_side == GAME_SOUTH ? "South" : "North", spec[1], p.threads,
         p.threads > 1 ? "s" : "", r.seconds);
  printf("first player   win  %5.1f%% [%5.1f, %5.1f]\n", 100 * r.first_win.rate,
         100 * r.first_win.lo, 100 * r.first_win.hi);
  printf("               draw %5.1f%% [%5.1f, %5.1f]\n", 100 * r.draw.rate, 100 * r.draw.lo,
         100 * r.draw.hi);
  printf("               loss %5.1f%% [%5.1f, %5.1f]\n", 100 * r.first_loss.rate,
         100 * r.first_loss.lo, 100 * r.first_loss.hi);
  printf("               score %4.1f%% [%5.1f, %5.1f], mean margin %+.2f seeds\n\n",
         100 * r.first_score, 100 * r.first_score_lo, 100 * r.first_score_hi, r.mean_margin);
  printf(
      "length (plies) mean %.1f (sd %.1f), min %d, p10 %d, p25 %d, median %d, p75 %d, "
      "p90 %d, max %d\n\n",
      r.len_mean, r.len_sd, r.len_min, r.len_p10, r.len_p25, r.len_median, r.len_p75, r.len_p90,
      r.len_max);
  printf("endings\n");
  for (int e = 1; e < GAME_END_COUNT; e++)
    if (r.end_reason[e])
      printf("  %-12s %7d  %5.1f%%\n", game_end_name(e), r.end_reason[e],
             100.0 * r.end_reason[e] / r.games);
  printf("grand-slam moves: %d (%.3f per game)\n", r.grand_slams, (double)r.grand_slams / r.games);
  printf("capturing moves: %d (%.2f per game)\n", r.captures, (double)r.captures / r.games);
  printf("distinct games: %d of %d\n", r.distinct_games, r.games);
  if (json && write_json(json, &g, spec[0], spec[1], &p, &r, err, sizeof err))
    return cli_fail(&c, 1, "%s", err);
  return 0;
}

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

static void usage(FILE *f) {
  fprintf(f,
          "usage: sowzero stats [--game G] [--set key=value ...] [FIRST [SECOND]]\n"
          "                     [--games N] [--threads T] [--seed S] [--json FILE]\n"
          "  FIRST, SECOND  agent specs for the player who moves first and the other\n"
          "                 (default: random random)\n"
          "  --games N      games to play (1000)\n");
}

static void rate_json(FILE *f, const char *name, const stats_rate *r, int last) {
  fprintf(f, "  \"%s\": {\"count\": %d, \"rate\": %.6f, \"lo\": %.6f, \"hi\": %.6f}%s\n", name,
          r->count, r->rate, r->lo, r->hi, last ? "" : ",");
}

static int write_json(const char *path, const game *g, const char *first, const char *second,
                      const stats_params *p, const stats_result *r, char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  FILE *f = a.f;
  char opts[512];
  game_options_string(g, opts, sizeof opts);
  const char *names[5] = {"game", "preset", "rules", "first", "second"};
  const char *vals[5] = {g->rules->name, g->preset, opts, first, second};
  fputs("{\n", f);
  for (int i = 0; i < 5; i++) {
    fprintf(f, "  \"%s\": ", names[i]);
    json_fput_string(f, vals[i]);
    fputs(",\n", f);
  }
  fprintf(f, "  \"first_side\": %d,\n  \"games\": %d,\n  \"seed\": %llu,\n  \"seconds\": %.3f,\n",
          r->first_side, r->games, (unsigned long long)p->seed, r->seconds);
  rate_json(f, "first_win", &r->first_win, 0);
  rate_json(f, "draw", &r->draw, 0);
  rate_json(f, "first_loss", &r->first_loss, 0);
  fprintf(f, "  \"first_score\": {\"score\": %.6f, \"lo\": %.6f, \"hi\": %.6f},\n",
          r->first_score, r->first_score_lo, r->first_score_hi);
  fprintf(f, "  \"mean_margin\": %.4f,\n", r->mean_margin);
  fprintf(f, "  \"length\": {\"mean\": %.3f, \"sd\": %.3f, \"min\": %d, \"p10\": %d, "
             "\"p25\": %d, \"median\": %d, \"p75\": %d, \"p90\": %d, \"max\": %d},\n",
          r->len_mean, r->len_sd, r->len_min, r->len_p10, r->len_p25, r->len_median, r->len_p75,
          r->len_p90, r->len_max);
  fprintf(f, "  \"grand_slams\": %d,\n  \"endings\": {", r->grand_slams);
  for (int e = 1; e < GAME_END_COUNT; e++)
    fprintf(f, "%s\"%s\": %d", e > 1 ? ", " : "", game_end_name(e), r->end_reason[e]);
  fprintf(f, "}\n}\n");
  return afile_commit(&a, err, errlen);
}

int cmd_stats(int argc, char **argv) {
  const char *game_name = "oware", *json = NULL, *spec[2] = {"random", "random"};
  char *sets[64];
  int nsets = 0, nspecs = 0;
  stats_params p = stats_defaults();
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      usage(stdout);
      return 0;
    }
    if (o[0] != '-') {
      if (nspecs == 2) {
        fprintf(stderr, "sowzero stats: at most two agents\n");
        return 2;
      }
      spec[nspecs++] = o;
      continue;
    }
    if (!v) {
      fprintf(stderr, "sowzero stats: %s needs a value\n", o);
      return 2;
    }
    i++;
    char *end = NULL;
    if (!strcmp(o, "--game")) {
      game_name = v;
    } else if (!strcmp(o, "--set")) {
      if (nsets == 64) return 2;
      sets[nsets++] = argv[i];
    } else if (!strcmp(o, "--games") || !strcmp(o, "--threads")) {
      long x = strtol(v, &end, 10);
      long hi = !strcmp(o, "--games") ? 100000000 : 256;
      if (!*v || *end || x < 1 || x > hi) {
        fprintf(stderr, "sowzero stats: bad value '%s' for %s (1..%ld)\n", v, o, hi);
        return 2;
      }
      if (!strcmp(o, "--games"))
        p.games = (int)x;
      else
        p.threads = (int)x;
    } else if (!strcmp(o, "--seed")) {
      p.seed = strtoull(v, &end, 10);
      if (!*v || *end) {
        fprintf(stderr, "sowzero stats: bad seed '%s'\n", v);
        return 2;
      }
    } else if (!strcmp(o, "--json")) {
      json = v;
    } else {
      fprintf(stderr, "sowzero stats: unknown option '%s'\n", o);
      usage(stderr);
      return 2;
    }
  }
  if (nspecs == 1) spec[1] = spec[0];
  char err[1024];
  game g;
  if (game_configure(&g, game_name, nsets, sets, err, sizeof err)) {
    fprintf(stderr, "sowzero stats: %s\n", err);
    return 2;
  }
  stats_result r;
  if (stats_run(&g, spec[0], spec[1], &p, &r, err, sizeof err)) {
    fprintf(stderr, "sowzero stats: %s\n", err);
    return 1;
  }
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
  printf("length (plies) mean %.1f (sd %.1f), min %d, p10 %d, p25 %d, median %d, p75 %d, "
         "p90 %d, max %d\n\n",
         r.len_mean, r.len_sd, r.len_min, r.len_p10, r.len_p25, r.len_median, r.len_p75,
         r.len_p90, r.len_max);
  printf("endings\n");
  for (int e = 1; e < GAME_END_COUNT; e++)
    if (r.end_reason[e])
      printf("  %-12s %7d  %5.1f%%\n", game_end_name(e), r.end_reason[e],
             100.0 * r.end_reason[e] / r.games);
  printf("grand-slam moves: %d (%.3f per game)\n", r.grand_slams, (double)r.grand_slams / r.games);
  if (json && write_json(json, &g, spec[0], spec[1], &p, &r, err, sizeof err)) {
    fprintf(stderr, "sowzero stats: %s\n", err);
    return 1;
  }
  return 0;
}

/* `sowzero arena`: a round robin or gauntlet between agents, with scores,
 * confidence intervals, Elo ratings, JSON/CSV results and game records. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/ratings.h"
#include "arena/record.h"
#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "game/game.h"
#include "search/agent.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: sowzero arena [--game G] [--set key=value ...] AGENT AGENT [AGENT ...]\n"
          "                     [--games N] [--threads T] [--gauntlet] [--openings K]\n"
          "                     [--opening-plies P] [--book-depth D] [--book-margin M]\n"
          "                     [--seed S] [--prior-draws X] [--json FILE] [--csv FILE]\n"
          "                     [--anchor N|SPEC] [--records FILE] [--quiet]\n"
          "  AGENT          an agent spec, quoted: \"alphabeta depth=6\", \"mcts sims=1000\"\n"
          "  --games N      games per pairing (even: each opening with both colours; 100)\n"
          "  --gauntlet     the first agent against each of the others only\n"
          "  --openings K   a book of K random openings kept when a depth-D alphabeta\n"
          "                 scores them within M (100 = one seed); default: start position\n"
          "  --prior-draws  virtual draws per pairing in the Elo fit (1)\n"
          "  --anchor       the agent rated 0: its place in the list (1 = the first) or\n"
          "                 its spec; default: the first 'random' agent, else the first\n"
          "agents:\n");
  for (int i = 0; agent_usage(i); i++) fprintf(f, "  %s\n", agent_usage(i));
}

typedef struct {
  FILE *records;
  const game *g;
  const arena_result *res;
  int total, tty, quiet, last_pct;
  double t0;
  int failed_write;
} progress;

static void on_game(const arena_game *rec, const arena_result *so_far, void *ud) {
  progress *pr = ud;
  if (pr->records && record_write(pr->records, pr->g, rec, so_far->specs[rec->south],
                                  so_far->specs[rec->north]))
    pr->failed_write = 1;
  if (pr->quiet) return;
  int done = so_far->games;
  double el = clock_wall() - pr->t0, rate = el > 0 ? done / el : 0;
  if (pr->tty) {
    fprintf(stderr, "\rarena: %d/%d games (%d%%), %.1f games/s, %d-%d-%d S/D/N, eta %.0f s   ",
            done, pr->total, 100 * done / pr->total, rate, so_far->south_wins, so_far->draws,
            so_far->north_wins, rate > 0 ? (pr->total - done) / rate : 0.0);
    if (done == pr->total) fputc('\n', stderr);
  } else {
    int pct = 100 * done / pr->total;
    if (pct / 10 > pr->last_pct / 10 || done == pr->total) {
      fprintf(stderr, "arena: %d/%d games, %.1f games/s\n", done, pr->total, rate);
      pr->last_pct = pct;
    }
  }
}

/* JSON numbers: NaN (unrated) becomes null. */
static void json_num(FILE *f, double v) {
  if (isnan(v) || isinf(v))
    fputs("null", f);
  else
    fprintf(f, "%.6g", v);
}

static void agent_totals(const arena_result *r, int i, int *w, int *d, int *l) {
  *w = *d = *l = 0;
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *q = &r->pairings[k];
    if (q->a == i) {
      *w += q->wins;
      *d += q->draws;
      *l += q->losses;
    } else if (q->b == i) {
      *w += q->losses;
      *d += q->draws;
      *l += q->wins;
    }
  }
}

static int write_json(const char *path, const game *g, const arena_params *p,
                      const arena_result *r, char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  FILE *f = a.f;
  char opts[512];
  game_options_string(g, opts, sizeof opts);
  fprintf(f, "{\n  \"game\": ");
  json_fput_string(f, g->rules->name);
  fprintf(f, ",\n  \"preset\": ");
  json_fput_string(f, g->preset);
  fprintf(f, ",\n  \"rules\": ");
  json_fput_string(f, opts);
  fprintf(f, ",\n  \"games_per_pairing\": %d,\n  \"games\": %d,\n  \"threads\": %d,\n"
             "  \"gauntlet\": %s,\n  \"openings\": %d,\n  \"seed\": %llu,\n"
             "  \"seconds\": %.3f,\n  \"south_wins\": %d,\n  \"draws\": %d,\n"
             "  \"north_wins\": %d,\n  \"anchor\": %d,\n  \"agents\": [\n",
          p->games, r->games, p->threads, p->gauntlet ? "true" : "false", p->openings,
          (unsigned long long)p->seed, r->seconds, r->south_wins, r->draws, r->north_wins,
          r->anchor);
  for (int i = 0; i < r->n_agents; i++) {
    int w, d, l;
    double s, lo, hi;
    agent_totals(r, i, &w, &d, &l);
    rating_score_ci(w, d, l, &s, &lo, &hi);
    fprintf(f, "    {\"spec\": ");
    json_fput_string(f, r->specs[i]);
    fprintf(f, ", \"games\": %d, \"wins\": %d, \"draws\": %d, \"losses\": %d, \"score\": ",
            w + d + l, w, d, l);
    json_num(f, s);
    fprintf(f, ", \"elo\": ");
    json_num(f, r->elo[i]);
    fprintf(f, ", \"elo_ci95\": ");
    json_num(f, 1.96 * r->elo_se[i]);
    fprintf(f, "}%s\n", i + 1 < r->n_agents ? "," : "");
  }
  fprintf(f, "  ],\n  \"pairings\": [\n");
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *q = &r->pairings[k];
    rating_summary m = rating_summarize(q->wins, q->draws, q->losses);
    fprintf(f, "    {\"a\": %d, \"b\": %d, \"wins\": %d, \"draws\": %d, \"losses\": %d, "
               "\"a_south\": [%d, %d, %d], \"score\": ",
            q->a, q->b, q->wins, q->draws, q->losses, q->a_south_wins, q->a_south_draws,
            q->a_south_losses);
    json_num(f, m.score);
    fprintf(f, ", \"score_lo\": ");
    json_num(f, m.score_lo);
    fprintf(f, ", \"score_hi\": ");
    json_num(f, m.score_hi);
    fprintf(f, ", \"elo\": ");
    json_num(f, m.elo);
    fprintf(f, ", \"elo_lo\": ");
    json_num(f, m.elo_lo);
    fprintf(f, ", \"elo_hi\": ");
    json_num(f, m.elo_hi);
    fprintf(f, "}%s\n", k + 1 < r->n_pairings ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  return afile_commit(&a, err, errlen);
}

static void csv_field(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static int write_csv(const char *path, const arena_result *r, char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  FILE *f = a.f;
  fprintf(f, "agent_a,agent_b,games,wins,draws,losses,score,score_lo,score_hi,elo,elo_lo,elo_hi,"
             "rating_a,rating_b\n");
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *q = &r->pairings[k];
    rating_summary m = rating_summarize(q->wins, q->draws, q->losses);
    csv_field(f, r->specs[q->a]);
    fputc(',', f);
    csv_field(f, r->specs[q->b]);
    fprintf(f, ",%d,%d,%d,%d,%.6f,%.6f,%.6f,%.1f,%.1f,%.1f,%.1f,%.1f\n", m.games, q->wins,
            q->draws, q->losses, m.score, m.score_lo, m.score_hi, m.elo, m.elo_lo, m.elo_hi,
            r->elo[q->a], r->elo[q->b]);
  }
  return afile_commit(&a, err, errlen);
}

static void print_table(const game *g, const arena_params *p, const arena_result *r) {
  char opts[512];
  game_options_string(g, opts, sizeof opts);
  printf("arena: %s (%s)\n", g->preset, opts);
  printf("%d games, %d per pairing, %d thread%s, %s, %.1f s; South %d, draws %d, North %d\n\n",
         r->games, p->games, p->threads, p->threads > 1 ? "s" : "",
         p->openings ? "book openings" : "start position", r->seconds, r->south_wins, r->draws,
         r->north_wins);
  printf("%-30s %-30s %5s %5s %5s  %-22s %s\n", "agent A", "agent B", "W", "D", "L",
         "A's score [95% CI]", "Elo diff [95% CI]");
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *q = &r->pairings[k];
    rating_summary m = rating_summarize(q->wins, q->draws, q->losses);
    printf("%-30.30s %-30.30s %5d %5d %5d  %5.1f%% [%5.1f, %5.1f]  %+5.0f [%+.0f, %+.0f]\n",
           r->specs[q->a], r->specs[q->b], q->wins, q->draws, q->losses, 100 * m.score,
           100 * m.score_lo, 100 * m.score_hi, m.elo, m.elo_lo, m.elo_hi);
  }
  printf("\nratings (maximum likelihood, %s = 0)\n", r->specs[r->anchor]);
  printf("%-40s %6s %7s %7s %7s\n", "agent", "games", "score", "Elo", "+-95%");
  for (int i = 0; i < r->n_agents; i++) {
    int w, d, l;
    double s, lo, hi;
    agent_totals(r, i, &w, &d, &l);
    rating_score_ci(w, d, l, &s, &lo, &hi);
    printf("%-40.40s %6d %6.1f%% %+7.0f %7.0f\n", r->specs[i], w + d + l, 100 * s, r->elo[i],
           1.96 * r->elo_se[i]);
  }
}

static int parse_int(const char *opt, const char *v, long lo, long hi, long *out) {
  char *end;
  long x = strtol(v, &end, 10);
  if (!*v || *end || x < lo || x > hi) {
    fprintf(stderr, "sowzero arena: bad value '%s' for %s (an integer %ld..%ld)\n", v, opt, lo,
            hi);
    return -1;
  }
  *out = x;
  return 0;
}

/* The agent rated 0: `--anchor` as a place in the list (from 1) or an
 * agent's spec; without it the first agent of kind random (a fixed
 * yardstick whatever else plays), else the first. -1 if it names none. */
static int find_anchor(const char *opt, int n, const char *const *specs) {
  if (opt) {
    char *end;
    long x = strtol(opt, &end, 10);
    if (*opt && !*end) return x >= 1 && x <= n ? (int)x - 1 : -1;
    for (int i = 0; i < n; i++)
      if (!strcmp(specs[i], opt)) return i;
    return -1;
  }
  for (int i = 0; i < n; i++) {
    const char *s = specs[i] + strspn(specs[i], " \t");
    size_t k = strcspn(s, " \t");
    if (k == 6 && !strncmp(s, "random", 6)) return i;
  }
  return 0;
}

int cmd_arena(int argc, char **argv) {
  const char *game_name = "oware", *json = NULL, *csv = NULL, *records = NULL, *anchor = NULL;
  char *sets[64];
  const char *specs[ARENA_MAX_AGENTS];
  int nsets = 0, nspecs = 0, quiet = 0;
  arena_params p = arena_defaults();
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long x;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(o, "--gauntlet")) {
      p.gauntlet = 1;
    } else if (!strcmp(o, "--quiet")) {
      quiet = 1;
    } else if (o[0] == '-' && o[1] == '-') {
      if (!v) {
        fprintf(stderr, "sowzero arena: %s needs a value\n", o);
        return 2;
      }
      i++;
      if (!strcmp(o, "--game")) {
        game_name = v;
      } else if (!strcmp(o, "--set")) {
        if (nsets == 64) {
          fprintf(stderr, "sowzero arena: too many --set\n");
          return 2;
        }
        sets[nsets++] = argv[i];
      } else if (!strcmp(o, "--games")) {
        if (parse_int(o, v, 2, 100000000, &x)) return 2;
        p.games = (int)x;
      } else if (!strcmp(o, "--threads")) {
        if (parse_int(o, v, 1, 256, &x)) return 2;
        p.threads = (int)x;
      } else if (!strcmp(o, "--openings")) {
        if (parse_int(o, v, 0, 100000, &x)) return 2;
        p.openings = (int)x;
      } else if (!strcmp(o, "--opening-plies")) {
        if (parse_int(o, v, 1, OPENING_MAX_PLIES, &x)) return 2;
        p.opening_plies = (int)x;
      } else if (!strcmp(o, "--book-depth")) {
        if (parse_int(o, v, 1, 20, &x)) return 2;
        p.book_depth = (int)x;
      } else if (!strcmp(o, "--book-margin")) {
        if (parse_int(o, v, 0, 100000000, &x)) return 2;
        p.book_margin = (int)x;
      } else if (!strcmp(o, "--seed")) {
        char *end;
        p.seed = strtoull(v, &end, 10);
        if (!*v || *end) {
          fprintf(stderr, "sowzero arena: bad seed '%s'\n", v);
          return 2;
        }
      } else if (!strcmp(o, "--prior-draws")) {
        char *end;
        p.prior_draws = strtod(v, &end);
        if (!*v || *end || !(p.prior_draws >= 0)) {
          fprintf(stderr, "sowzero arena: bad value '%s' for --prior-draws\n", v);
          return 2;
        }
      } else if (!strcmp(o, "--anchor")) {
        anchor = v;
      } else if (!strcmp(o, "--json")) {
        json = v;
      } else if (!strcmp(o, "--csv")) {
        csv = v;
      } else if (!strcmp(o, "--records")) {
        records = v;
      } else {
        fprintf(stderr, "sowzero arena: unknown option '%s'\n", o);
        usage(stderr);
        return 2;
      }
    } else {
      if (nspecs == ARENA_MAX_AGENTS) {
        fprintf(stderr, "sowzero arena: at most %d agents\n", ARENA_MAX_AGENTS);
        return 2;
      }
      specs[nspecs++] = o;
    }
  }
  if (nspecs < 2) {
    fprintf(stderr, "sowzero arena: name at least two agents\n");
    usage(stderr);
    return 2;
  }
  if ((p.anchor = find_anchor(anchor, nspecs, specs)) < 0) {
    fprintf(stderr, "sowzero arena: --anchor '%s' is neither 1..%d nor one of the agents\n",
            anchor, nspecs);
    return 2;
  }
  char err[1024];
  game g;
  if (game_configure(&g, game_name, nsets, sets, err, sizeof err)) {
    fprintf(stderr, "sowzero arena: %s\n", err);
    return 2;
  }
  progress pr;
  memset(&pr, 0, sizeof pr);
  pr.g = &g;
  pr.tty = isatty(2);
  pr.quiet = quiet;
  pr.t0 = clock_wall();
  pr.total = (p.gauntlet ? nspecs - 1 : nspecs * (nspecs - 1) / 2) * p.games;
  afile rec_file;
  if (records) {
    if (afile_open(&rec_file, records, err, sizeof err)) {
      fprintf(stderr, "sowzero arena: %s\n", err);
      return 1;
    }
    pr.records = rec_file.f;
    record_write_header(pr.records, NULL);
  }
  arena_result *r = malloc(sizeof *r);
  if (!r) return 1;
  int rc = arena_run(&g, nspecs, specs, &p, on_game, &pr, r, err, sizeof err);
  if (rc) {
    if (pr.tty && !quiet) fputc('\n', stderr);
    fprintf(stderr, "sowzero arena: %s\n", err);
    if (records) afile_abort(&rec_file);
    free(r);
    return 1;
  }
  int status = 0;
  if (records) {
    if (pr.failed_write || afile_commit(&rec_file, err, sizeof err)) {
      fprintf(stderr, "sowzero arena: writing %s: %s\n", records,
              pr.failed_write ? "write error" : err);
      if (pr.failed_write) afile_abort(&rec_file);
      status = 1;
    }
  }
  print_table(&g, &p, r);
  if (json && write_json(json, &g, &p, r, err, sizeof err)) {
    fprintf(stderr, "sowzero arena: %s\n", err);
    status = 1;
  }
  if (csv && write_csv(csv, r, err, sizeof err)) {
    fprintf(stderr, "sowzero arena: %s\n", err);
    status = 1;
  }
  free(r);
  return status;
}

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
#include "egdb/egdb.h"
#include "game/game.h"
#include "search/agent.h"

static void list_agents(FILE *f) {
  fprintf(f, "agents:\n");
  for (int i = 0; agent_usage(i); i++) fprintf(f, "  %s\n", agent_usage(i));
}

typedef struct {
  FILE *records;
  const game *g;
  const arena_result *res;
  int total, tty, quiet, last_pct;
  double t0, book_shown;
  int failed_write;
} progress;

static void on_game(const arena_game *rec, const arena_result *so_far, void *ud) {
  progress *pr = ud;
  if (pr->records &&
      record_write(pr->records, pr->g, rec, so_far->specs[rec->south], so_far->specs[rec->north]))
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

/* While a deep book is made (each opening an alphabeta search): in place
 * on a terminal, else a line every 10 s. */
static void on_book(void *ctx, int found, int k, int draws) {
  progress *pr = ctx;
  double el = clock_wall() - pr->t0;
  if (pr->quiet || el - pr->book_shown < (pr->tty ? 0.25 : 10)) return;
  pr->book_shown = el;
  fprintf(stderr, "%sarena: opening book %d/%d, %d draws judged, %.0f s%s", pr->tty ? "\r" : "",
          found, k, draws, el, pr->tty ? "   " : "\n");
}

/* JSON numbers: NaN (unrated) becomes null. */
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

/* One member a line, agents and pairings one a line. */
#define NL2 "\n  "
#define NL4 "\n    "

static int write_json(const char *path, const game *g, const arena_params *p, const arena_result *r,
                      char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen)) return -1;
  char opts[512];
  game_options_string(g, opts, sizeof opts);
  json_writer w;
  json_writer_init_file(&w, a.f);
  json_begin_object(&w, NULL);
  json_lines(&w, NL2, "\n");
  json_put_string(&w, "game", g->rules->name);
  json_put_string(&w, "preset", g->preset);
  json_put_string(&w, "rules", opts);
  json_put_int(&w, "games_per_pairing", p->games);
  json_put_int(&w, "games", r->games);
  json_put_int(&w, "threads", p->threads);
  json_put_int(&w, "distinct_games", r->distinct_games);
  json_put_bool(&w, "gauntlet", p->gauntlet);
  json_put_int(&w, "openings", p->openings);
  json_put_uint(&w, "seed", (unsigned long long)p->seed);
  json_put_fixed(&w, "seconds", r->seconds, 3);
  json_put_int(&w, "south_wins", r->south_wins);
  json_put_int(&w, "draws", r->draws);
  json_put_int(&w, "north_wins", r->north_wins);
  json_put_int(&w, "anchor", r->anchor);
  json_put_real(&w, "time_per_move", p->time.per_move, 6);
  json_put_real(&w, "clock_main", p->time.main, 6);
  json_put_real(&w, "clock_inc", p->time.inc, 6);
  json_begin_array(&w, "agents");
  json_lines(&w, NL4, NL2);
  for (int i = 0; i < r->n_agents; i++) {
    int wi, d, l;
    double s, lo, hi;
    agent_totals(r, i, &wi, &d, &l);
    rating_score_ci(wi, d, l, &s, &lo, &hi);
    json_begin_object(&w, NULL);
    json_put_string(&w, "spec", r->specs[i]);
    json_put_int(&w, "games", wi + d + l);
    json_put_int(&w, "wins", wi);
    json_put_int(&w, "draws", d);
    json_put_int(&w, "losses", l);
    json_put_real(&w, "score", s, 6);
    json_put_real(&w, "elo", r->elo[i], 6);
    json_put_real(&w, "elo_ci95", 1.96 * r->elo_se[i], 6);
    json_put_int(&w, "time_losses", r->time_losses[i]);
    json_put_real(&w, "longest_move", r->longest_move[i], 6);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_begin_array(&w, "pairings");
  json_lines(&w, NL4, NL2);
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *q = &r->pairings[k];
    rating_summary m = rating_summarize(q->wins, q->draws, q->losses);
    json_begin_object(&w, NULL);
    json_put_int(&w, "a", q->a);
    json_put_int(&w, "b", q->b);
    json_put_int(&w, "wins", q->wins);
    json_put_int(&w, "draws", q->draws);
    json_put_int(&w, "losses", q->losses);
    json_begin_array(&w, "a_south");
    json_put_int(&w, NULL, q->a_south_wins);
    json_put_int(&w, NULL, q->a_south_draws);
    json_put_int(&w, NULL, q->a_south_losses);
    json_end_array(&w);
    json_put_real(&w, "score", m.score, 6);
    json_put_real(&w, "score_lo", m.score_lo, 6);
    json_put_real(&w, "score_hi", m.score_hi, 6);
    json_put_real(&w, "elo", m.elo, 6);
    json_put_real(&w, "elo_lo", m.elo_lo, 6);
    json_put_real(&w, "elo_hi", m.elo_hi, 6);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_end_object(&w);
  return cli_json_commit(&a, &w, err, errlen);
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
  fprintf(f,
          "agent_a,agent_b,games,wins,draws,losses,score,score_lo,score_hi,elo,elo_lo,elo_hi,"
          "rating_a,rating_b\n");
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *q = &r->pairings[k];
    rating_summary m = rating_summarize(q->wins, q->draws, q->losses);
    csv_field(f, r->specs[q->a]);
    fputc(',', f);
    csv_field(f, r->specs[q->b]);
    fprintf(f, ",%d,%d,%d,%d,%.6f,%.6f,%.6f,%.1f,%.1f,%.1f,%.1f,%.1f\n", m.games, q->wins, q->draws,
            q->losses, m.score, m.score_lo, m.score_hi, m.elo, m.elo_lo, m.elo_hi, r->elo[q->a],
            r->elo[q->b]);
  }
  return afile_commit(&a, err, errlen);
}

static void print_table(const game *g, const arena_params *p, const arena_result *r) {
  char opts[512];
  game_options_string(g, opts, sizeof opts);
  printf("arena: %s (%s)\n", g->preset, opts);
  printf(
      "%d games (%d distinct), %d per pairing, %d thread%s, %s, %.1f s; South %d, draws %d, "
      "North %d\n\n",
      r->games, r->distinct_games, p->games, p->threads, p->threads > 1 ? "s" : "",
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
  if (p->time.per_move > 0 || p->time.main > 0) {
    printf("\nlosses on time (");
    if (p->time.per_move > 0)
      printf("%g s a move, %g s grace):", p->time.per_move, p->time.grace);
    else
      printf("clock %g+%g s):", p->time.main, p->time.inc);
    for (int i = 0; i < r->n_agents; i++)
      printf("%s %s %d", i ? "," : "", r->specs[i], r->time_losses[i]);
    printf("\nlongest move:");
    for (int i = 0; i < r->n_agents; i++)
      printf("%s %s %.3f s", i ? "," : "", r->specs[i], r->longest_move[i]);
    printf("\n");
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

/* The agent rated 0: `--anchor` as a place in the list (from 1) or an
 * agent's spec; without it the first agent of kind random (a fixed
 * yardstick whatever else plays), else the first. -1 if it names none. */
static int find_anchor(const char *opt, int n, const char *const *specs) {
  if (opt) {
    /* Whole decimal digits only: " 3" or "3x" is not a place. */
    if (strspn(opt, "0123456789") == strlen(opt)) {
      long x = strlen(opt) <= 4 ? strtol(opt, NULL, 10) : 0;
      return x >= 1 && x <= n ? (int)x - 1 : -1;
    }
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

typedef struct {
  arena_params p;
  char game[64], anchor[256];
  char json[CLI_PATH_MAX], csv[CLI_PATH_MAX], records[CLI_PATH_MAX], egdb[CLI_EGDB_MAX];
  char clock[64];
  int quiet;
} arena_opts;

#define O_(kind, name, F, ...) kind(name, arena_opts, F, __VA_ARGS__)
static const kv_key arena_keys[] = {
    O_(KV_S, "game", game, NULL, "NAME  the game or preset ('sowzero rules' lists them)"),
    O_(KV_I, "games", p.games, 2, 100000000, NULL,
       "games per pairing, even: each opening is played with both colours"),
    O_(KV_I, "threads", p.threads, 1, 256, NULL, "worker threads"),
    O_(KV_B, "gauntlet", p.gauntlet, NULL, "the first agent against each of the others only"),
    O_(KV_I, "openings", p.openings, 0, 100000, NULL,
       "K  a book of K random openings kept when a depth-D alphabeta scores them within M "
       "(0: every game from the start position)"),
    O_(KV_I, "opening-plies", p.opening_plies, 1, OPENING_MAX_PLIES, NULL,
       "P  an opening is 1..P random plies (with --openings)"),
    O_(KV_I, "book-depth", p.book_depth, 1, 20, NULL,
       "D  the alphabeta depth that judges an opening (with --openings)"),
    O_(KV_I, "book-margin", p.book_margin, 0, 100000000, NULL,
       "M  an opening is kept if it scores within M, 100 = one seed (with --openings)"),
    O_(KV_U, "seed", p.seed, NULL, "seed of the openings and the agents"),
    O_(KV_D, "prior-draws", p.prior_draws, 0, 1e6, NULL,
       "virtual draws per pairing in the Elo fit"),
    O_(KV_S, "anchor", anchor, NULL,
       "N|SPEC  the agent rated 0: its place in the list (1 = the first) or its spec; "
       "default: the first 'random' agent, else the first"),
    O_(KV_S, "json", json, NULL, "FILE  the results as JSON"),
    O_(KV_S, "csv", csv, NULL, "FILE  the pairings as CSV"),
    O_(KV_S, "records", records, NULL, "FILE  every game as a record (docs/FORMATS.md)"),
    O_(KV_B, "quiet", quiet, NULL, "no progress lines"),
    O_(KV_D, "time-per-move", p.time.per_move, 0.001, 1e6, NULL,
       "S  every agent has S seconds a move (searching agents plan by it); a slower move loses "
       "on time"),
    O_(KV_D, "time-grace", p.time.grace, 0, 1e6, NULL,
       "S  with --time-per-move: a move over the limit by at most S does not lose (the agents "
       "still plan within the limit; default 0.1, for a busy machine's scheduling)"),
    O_(KV_S, "clock", clock, NULL,
       "MAIN+INC  every agent has MAIN seconds a game, INC added after each move; out of time "
       "loses"),
    CLI_EGDB_KEY(arena_opts, egdb, "for agents' egdb=on"),
};
#undef O_
static const kv_table arena_table = KV_TABLE(arena_keys);

int cmd_arena(int argc, char **argv) {
  arena_opts o;
  memset(&o, 0, sizeof o);
  o.p = arena_defaults();
  snprintf(o.game, sizeof o.game, "oware");
  char *sets[64], *pos[ARENA_MAX_AGENTS];
  cli_list set = {"set", "KEY=VALUE", "a rule option of the game ('sowzero rules')", 1, 64, sets,
                  0};
  cli_cmd c = {.name = "arena",
               .synopsis = "arena [options] AGENT AGENT [AGENT ...]",
               .about =
                   "  A round robin (or a gauntlet) between agents: scores, confidence "
                   "intervals,\n  Elo ratings, results as JSON or CSV, game records.\n"
                   "  AGENT  an agent spec, quoted: \"alphabeta depth=6\", "
                   "\"mcts sims=1000\"\n",
               .more = list_agents,
               .opts = &arena_table,
               .base = &o,
               .lists = &set,
               .n_lists = 1,
               .pos_name = "AGENT",
               .min_pos = 2,
               .max_pos = ARENA_MAX_AGENTS,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  cli_precision_to_stderr();
  arena_params p = o.p;
  p.egdb_dir = o.egdb;
  const char *const *specs = (const char *const *)pos;
  int nspecs = c.n_pos, quiet = o.quiet;
  const char *json = o.json[0] ? o.json : NULL, *csv = o.csv[0] ? o.csv : NULL,
             *records = o.records[0] ? o.records : NULL;
  if (p.games % 2)
    return cli_fail(&c, 2,
                    "bad value '%d' for --games (an even number: each opening is played "
                    "with both colours)",
                    p.games);
  if (!p.openings) {
    static const char *const book[] = {"opening-plies", "book-depth", "book-margin"};
    for (int i = 0; i < 3; i++)
      if (cli_given(&c, book[i]))
        return cli_fail(&c, 2, "--%s shapes the opening book: it needs --openings K (K > 0)",
                        book[i]);
  }
  if (cli_given(&c, "clock")) {
    char *end;
    double main_s = strtod(o.clock, &end), inc = 0;
    if (end != o.clock && *end == '+') {
      const char *t = end + 1;
      inc = strtod(t, &end);
      if (end == t) end = (char *)"x";
    }
    if (end == o.clock || *end || !(main_s > 0 && main_s <= 1e6 && inc >= 0 && inc <= 1e6))
      return cli_fail(&c, 2,
                      "bad value '%s' for --clock (MAIN+INC in seconds, e.g. 60+0.5: MAIN "
                      "above 0, INC 0 or more, both at most 1e6)",
                      o.clock);
    if (cli_given(&c, "time-per-move"))
      return cli_fail(&c, 2, "--clock and --time-per-move are two time controls: give one");
    p.time.main = main_s;
    p.time.inc = inc;
  }
  if (cli_given(&c, "time-grace") && !cli_given(&c, "time-per-move"))
    return cli_fail(&c, 2, "--time-grace goes with --time-per-move");
  if (!cli_given(&c, "time-grace")) p.time.grace = 0.1;
  if ((json && csv && !strcmp(json, csv)) || (json && records && !strcmp(json, records)) ||
      (csv && records && !strcmp(csv, records)))
    return cli_fail(&c, 2, "--json, --csv and --records need different files");
  if ((p.anchor = find_anchor(cli_given(&c, "anchor") ? o.anchor : NULL, nspecs, specs)) < 0)
    return cli_fail(&c, 2,
                    "bad value '%s' for --anchor (a place 1..%d, or one of the agents' "
                    "specs as given)",
                    o.anchor, nspecs);
  char err[1024];
  game g;
  if (game_configure(&g, o.game, set.n, sets, err, sizeof err)) return cli_fail(&c, 2, "%s", err);
  /* Bad specs are usage errors, found before any game is played. */
  for (int i = 0; i < nspecs; i++) {
    agent *a = agent_make(&g, specs[i], &(agent_params){1, p.egdb_dir}, err, sizeof err);
    if (!a) return cli_fail(&c, 2, "agent '%s': %s", specs[i], err);
    agent_free(a);
  }
  /* Agents that ignore their random stream replay one game per colour from
   * the start position: a score of 0% or 100% where the truth lies between.
   * Unless openings were asked for (--openings 0 included), such a match
   * gets a book, one opening for each pair of games. */
  if (!cli_given(&c, "openings")) {
    int all = 1;
    for (int i = 0; i < nspecs && all; i++) {
      int d = arena_agent_deterministic(&g, specs[i], &(agent_params){p.seed, p.egdb_dir}, err,
                                        sizeof err);
      if (d < 0) return cli_fail(&c, 1, "%s", err);
      all = d;
    }
    if (all) {
      p.openings = p.games / 2 < 1000 ? p.games / 2 : 1000;
      fprintf(stderr,
              "sowzero arena: every agent plays deterministically, so games from the start "
              "position would repeat;\n  using a book of %d level openings (--openings K sets "
              "another, --openings 0 none)\n",
              p.openings);
    }
  }
  progress pr;
  memset(&pr, 0, sizeof pr);
  pr.g = &g;
  pr.tty = isatty(2);
  pr.quiet = quiet;
  pr.t0 = clock_wall();
  pr.total = (p.gauntlet ? nspecs - 1 : nspecs * (nspecs - 1) / 2) * p.games;
  p.book_progress = on_book;
  p.book_ctx = &pr;
  afile rec_file;
  if (records) {
    if (afile_open(&rec_file, records, err, sizeof err)) return cli_fail(&c, 1, "%s", err);
    pr.records = rec_file.f;
    record_write_header(pr.records, NULL);
  }
  arena_result *r = malloc(sizeof *r);
  if (!r) {
    if (records) afile_abort(&rec_file);
    return cli_fail(&c, 1, "out of memory");
  }
  int rc = arena_run(&g, nspecs, specs, &p, on_game, &pr, r, err, sizeof err);
  if (rc) {
    if (pr.tty && !quiet) fputc('\n', stderr);
    cli_fail(&c, 1, "%s", err);
    if (records) afile_abort(&rec_file);
    free(r);
    return 1;
  }
  status = 0;
  if (records) {
    if (pr.failed_write ? afile_fail(&rec_file, err, sizeof err)
                        : afile_commit(&rec_file, err, sizeof err)) {
      cli_fail(&c, 1, "%s", err);
      status = 1;
    }
  }
  print_table(&g, &p, r);
  if (json && write_json(json, &g, &p, r, err, sizeof err)) status = cli_fail(&c, 1, "%s", err);
  if (csv && write_csv(csv, r, err, sizeof err)) status = cli_fail(&c, 1, "%s", err);
  free(r);
  return status;
}

/* `sowzero egdb`: build, describe, verify and probe the Oware endgame
 * database (docs/EGDB.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli/cli.h"
#include "egdb/egdb.h"
#include "game/game.h"

typedef struct {
  int seeds, threads, brute, force;
  char dir[CLI_PATH_MAX];
} egdb_opts;

#define O_(kind, name, F, ...) kind(name, egdb_opts, F, __VA_ARGS__)
static const kv_key build_keys[] = {
    O_(KV_I, "seeds", seeds, 0, EGDB_MAX_SEEDS, NULL, "N  the largest seed count (levels 0..N)"),
    O_(KV_S, "dir", dir, NULL, "D  the database folder (default: see below)"),
    O_(KV_I, "threads", threads, 1, 256, NULL, "worker threads"),
    O_(KV_B, "force", force, NULL,
       "build even where the disk or the memory the build needs is not free"),
};
static const kv_key verify_keys[] = {
    O_(KV_S, "dir", dir, NULL, "D  the database folder (default: see below)"),
    O_(KV_I, "threads", threads, 1, 256, NULL, "worker threads"),
    O_(KV_I, "brute", brute, 0, 12, NULL, "N  compare with brute force up to N seeds"),
};
static const kv_key dir_keys[] = {
    O_(KV_S, "dir", dir, NULL, "D  the database folder (default: see below)"),
};
#undef O_
static const kv_table build_table = KV_TABLE(build_keys);
static const kv_table verify_table = KV_TABLE(verify_keys);
static const kv_table dir_table = KV_TABLE(dir_keys);

static void where_more(FILE *f) {
  fprintf(f,
          "\nThe folder: --dir, else $SOWZERO_EGDB, else $XDG_DATA_HOME/sowzero/egdb, else\n"
          "~/.local/share/sowzero/egdb.\n");
}

static int cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* The folder from --dir or the default; -1 after reporting. */
static int pick_dir(const cli_cmd *c, egdb_opts *o) {
  char err[256];
  if (o->dir[0]) return 0;
  if (egdb_default_dir(NULL, o->dir, sizeof o->dir, err, sizeof err))
    return cli_fail(c, 1, "%s", err), -1;
  return 0;
}

static void clock_text(double s, char *buf, size_t len) {
  long t = s < 0 ? 0 : (long)(s + 0.5);
  snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* The progress bar on stderr: redrawn in place on a terminal, one line a
 * level (and at the end) otherwise. */
typedef struct {
  int tty, last_level;
} bar;

static void progress(void *ctx, const egdb_progress *p) {
  bar *b = ctx;
  double frac = p->total ? (double)p->done / (double)p->total : 1;
  /* Levels read back from their files took no solving: not in the rate. */
  double rate = p->seconds > 0 ? (double)(p->done - p->reused) / p->seconds : 0;
  char eta[32], el[32];
  clock_text(rate > 0 ? (double)(p->total - p->done) / rate : 0, eta, sizeof eta);
  clock_text(p->seconds, el, sizeof el);
  int done = !strcmp(p->phase, "done");
  if (!b->tty && !done && (p->level == b->last_level || strcmp(p->phase, "levels"))) return;
  b->last_level = p->level;
  char fill[31];
  int w = (int)(frac * 30);
  for (int i = 0; i < 30; i++) fill[i] = i < w ? '#' : '.';
  fill[30] = 0;
  fprintf(stderr, "%s[%s] %5.1f%%  level %2d/%d %-7s %6.2fM boards/s  %s elapsed  ETA %s%s",
          b->tty ? "\r" : "", fill, 100 * frac, p->level, p->max_level, p->phase, rate / 1e6, el,
          eta, b->tty && !done ? "" : "\n");
  fflush(stderr);
}

static int egdb_build_cmd(int argc, char **argv) {
  egdb_opts o = {.seeds = 20, .threads = cores()};
  cli_cmd c = {.name = "egdb build",
               .synopsis = "egdb build [--seeds N] [--dir D] [--threads T] [--force]",
               .about =
                   "  Solves every board of default Oware with at most N seeds and writes one\n"
                   "  file per seed count; levels already built are kept. Threads: every\n"
                   "  core unless told. The disk and memory it needs are checked first.\n",
               .more = where_more,
               .opts = &build_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  if (pick_dir(&c, &o)) return 1;
  egdb_plan plan = egdb_plan_dir(o.dir, o.seeds, o.threads);
  char disk[32], mem[32], est[32];
  bytes_text((double)plan.disk, disk, sizeof disk);
  bytes_text((double)plan.memory, mem, sizeof mem);
  clock_text(plan.est_seconds, est, sizeof est);
  fprintf(stderr,
          "egdb build: levels 0..%d, %llu boards, %s on disk, about %s of memory, roughly %s "
          "on %d thread%s, into %s\n",
          o.seeds, (unsigned long long)plan.boards, disk, mem, est, o.threads,
          o.threads > 1 ? "s" : "", o.dir);
  /* What it said it needs, against what the machine has: refused now
   * rather than failing hours later. */
  char what[CLI_PATH_MAX + 64], err[1024];
  snprintf(what, sizeof what, "the files still to write in %s", o.dir);
  if (need_check(what, (double)plan.disk_new, disk_free_bytes(o.dir), err, sizeof err) ||
      need_check("the build's memory", (double)plan.memory, mem_available_bytes(), err,
                 sizeof err)) {
    if (!o.force) return cli_fail(&c, 1, "%s (--force builds anyway)", err);
    cli_fail(&c, 0, "%s; building anyway (--force)", err);
  }
  bar b = {isatty(2), -1};
  egdb_build_params p = {o.seeds, o.threads, progress, &b};
  double t0 = clock_wall();
  if (egdb_build(o.dir, &p, err, sizeof err)) {
    if (b.tty) fputc('\n', stderr);
    return cli_fail(&c, 1, "%s", err);
  }
  double s = clock_wall() - t0;
  printf("built %s: levels 0..%d, %llu boards in %.1f s (%.2fM boards/s)\n", o.dir, o.seeds,
         (unsigned long long)plan.boards, s, s > 0 ? (double)plan.boards / s / 1e6 : 0);
  return 0;
}

static egdb *open_db(const cli_cmd *c, egdb_opts *o) {
  if (pick_dir(c, o)) return NULL;
  char err[1024];
  egdb *db = egdb_open(o->dir, err, sizeof err);
  if (!db) cli_fail(c, 1, "%s", err);
  return db;
}

static int egdb_info_cmd(int argc, char **argv) {
  egdb_opts o = {0};
  cli_cmd c = {.name = "egdb info",
               .synopsis = "egdb info [--dir D]",
               .about =
                   "  The levels of the database, each checked, with the share of boards\n"
                   "  the mover wins (value > 0), draws (0) and loses (< 0).\n",
               .more = where_more,
               .opts = &dir_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  egdb *db = open_db(&c, &o);
  if (!db) return 1;
  printf("database %s\nrules    oware %s\nseeds    0..%d\n\n", egdb_dir(db), egdb_rules(db),
         egdb_max_seeds(db));
  printf("%5s %12s %8s %8s %8s\n", "seeds", "boards", "win", "draw", "loss");
  uint64_t all = 0;
  for (int n = 0; n <= egdb_max_seeds(db); n++) {
    uint64_t size = egdb_level_size(n), cnt[3] = {0, 0, 0};
    const int8_t *v = egdb_level_values(db, n);
    for (uint64_t r = 0; r < size; r++) cnt[v[r] > 0 ? 0 : v[r] == 0 ? 1 : 2]++;
    printf("%5d %12llu %7.2f%% %7.2f%% %7.2f%%\n", n, (unsigned long long)size,
           100.0 * (double)cnt[0] / (double)size, 100.0 * (double)cnt[1] / (double)size,
           100.0 * (double)cnt[2] / (double)size);
    all += size;
  }
  printf("%5s %12llu\n", "all", (unsigned long long)all);
  egdb_close(db);
  return 0;
}

static int egdb_verify_cmd(int argc, char **argv) {
  egdb_opts o = {.threads = cores(), .brute = 8};
  cli_cmd c = {.name = "egdb verify",
               .synopsis = "egdb verify [--dir D] [--brute N] [--threads T]",
               .about =
                   "  Checks every board against its children (the best move gives the\n"
                   "  value; famine awards as the engine gives them) and compares every\n"
                   "  board of at most N seeds (default 8) with a brute-force solution.\n",
               .more = where_more,
               .opts = &verify_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  egdb *db = open_db(&c, &o);
  if (!db) return 1;
  bar b = {isatty(2), -1};
  egdb_check ck;
  char err[1024];
  double t0 = clock_wall();
  int rc = egdb_verify(db, o.threads, o.brute, progress, &b, &ck, err, sizeof err);
  egdb_close(db);
  if (rc) return cli_fail(&c, 1, "%s", err);
  printf("bellman: %llu boards, %llu wrong\n", (unsigned long long)ck.boards,
         (unsigned long long)ck.bad_bellman);
  printf("brute force: %llu boards, %llu wrong\n", (unsigned long long)ck.brute,
         (unsigned long long)ck.bad_brute);
  printf("%.1f s\n", clock_wall() - t0);
  if (ck.bad_bellman || ck.bad_brute)
    return cli_fail(&c, 1, "the database is wrong: %s", ck.first_bad);
  return 0;
}

static int egdb_probe_cmd(int argc, char **argv) {
  egdb_opts o = {0};
  char *pos[16];
  cli_cmd c = {.name = "egdb probe",
               .synopsis = "egdb probe [--dir D] MOVER P0 .. P11 [STORE0 STORE1]",
               .about =
                   "  The value of a position for the mover and of each legal move, as\n"
                   "  setboard takes it (docs/PROTOCOL.md): the side to move (0 South,\n"
                   "  1 North), the 12 pits in absolute order, and the stores; without\n"
                   "  stores the captured seeds are split evenly.\n",
               .more = where_more,
               .opts = &dir_table,
               .base = &o,
               .pos_name = "number",
               .min_pos = 13,
               .max_pos = 15,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  if (c.n_pos == 14) return cli_fail(&c, 2, "give both stores or neither (got 14 numbers)");
  game g;
  char err[1024];
  if (game_configure(&g, "oware", 0, NULL, err, sizeof err)) return cli_fail(&c, 1, "%s", err);
  char *tok[15], stores[2][24];
  for (int i = 0; i < c.n_pos; i++) tok[i] = pos[i];
  if (c.n_pos == 13) {
    long n = 0;
    for (int i = 1; i < 13; i++) n += strtol(pos[i], NULL, 10);
    long cap = g.total_seeds - n, s0 = cap < 0 ? 0 : cap / 2;
    snprintf(stores[0], sizeof stores[0], "%ld", s0);
    snprintf(stores[1], sizeof stores[1], "%ld", cap < 0 ? 0 : cap - s0);
    tok[13] = stores[0];
    tok[14] = stores[1];
  }
  game_pos p;
  if (g.rules->setboard(&g, &p, 15, tok, err, sizeof err))
    return cli_fail(&c, 2, "bad board: %s", err);
  if (p.status != GAME_ONGOING)
    return printf("the game is over (%s): %d-%d\n", game_end_name(p.end_reason), p.final[0],
                  p.final[1]),
           0;
  egdb *db = open_db(&c, &o);
  if (!db) return 1;
  int v = egdb_probe(db, &g, &p), vals[GAME_MAX_ACTIONS];
  if (v == EGDB_NONE) {
    int n = 0;
    for (int i = 0; i < 12; i++) n += p.pits[i];
    int max = egdb_max_seeds(db);
    egdb_close(db);
    return cli_fail(&c, 1, "not in the database: %d seeds on the board, it holds 0..%d", n, max);
  }
  game_moves m = egdb_probe_moves(db, &g, &p, vals);
  const char *side[2] = {"South", "North"};
  printf("value %+d for %s (to move)\nmoves", v, side[p.mover]);
  for (game_moves r = m; r; r &= r - 1) {
    int a = __builtin_ctz(r);
    printf(" %d:%+d%s", a, vals[a], vals[a] == v ? "*" : "");
  }
  double fin[2];
  egdb_outcome(&p, v, fin);
  printf("\nperfect play ends %s %g, %s %g (stores %d, %d)\n", side[0], fin[0], side[1], fin[1],
         p.store[0], p.store[1]);
  egdb_close(db);
  return 0;
}

int cmd_egdb(int argc, char **argv) {
  static const struct {
    const char *name;
    int (*fn)(int, char **);
  } sub[] = {{"build", egdb_build_cmd},
             {"info", egdb_info_cmd},
             {"verify", egdb_verify_cmd},
             {"probe", egdb_probe_cmd}};
  cli_cmd c = {.name = "egdb",
               .synopsis = "egdb build|info|verify|probe [options]",
               .about =
                   "  build   solve the boards of at most N seeds into the database folder\n"
                   "  info    the levels of the database and their results\n"
                   "  verify  check the database against itself and brute force\n"
                   "  probe   the value of a position and of its moves\n"
                   "  'sowzero egdb COMMAND --help' tells more (docs/EGDB.md).\n"};
  if (argc > 0 && argv[0][0] != '-') {
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++)
      if (!strcmp(argv[0], sub[i].name)) return sub[i].fn(argc - 1, argv + 1);
    return cli_fail(&c, 2, "unknown command '%s' (build, info, verify or probe)", argv[0]);
  }
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  return cli_fail(&c, 2, "missing command (build, info, verify or probe)");
}

/* `sowzero bench egdb`: how fast the endgame database builds (boards a
 * second on the given threads) and how long a probe takes. The database is
 * built into a scratch folder and removed afterwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"
#include "egdb/egdb.h"
#include "game/game.h"

typedef struct {
  int seeds, threads, probes, json;
} egdb_bench_opts;

#define O_(kind, name, F, ...) kind(name, egdb_bench_opts, F, __VA_ARGS__)
static const kv_key egdb_bench_keys[] = {
    O_(KV_I, "seeds", seeds, 1, 22, NULL, "N  levels 0..N to build"),
    O_(KV_I, "threads", threads, 1, 256, NULL, "worker threads of the build"),
    O_(KV_I, "probes", probes, 1000, 100000000, NULL, "random positions probed"),
    O_(KV_B, "json", json, NULL, "one JSON object per figure and line"),
};
#undef O_
static const kv_table egdb_bench_table = KV_TABLE(egdb_bench_keys);

static double process_cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
         1e-6 * ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec);
}

static void remove_db(const char *dir, int seeds) {
  for (int n = 0; n <= seeds; n++) {
    char path[CLI_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s%02d%s", dir, EGDB_FILE_PREFIX, n, EGDB_FILE_SUFFIX);
    unlink(path);
  }
  rmdir(dir);
}

int bench_egdb(bench_out *b, int argc, char **argv) {
  egdb_bench_opts o = {18, 2, 2000000, b->json};
  cli_cmd c = {.name = "bench egdb",
               .synopsis = "bench egdb [--seeds N] [--threads T] [--probes P] [--json]",
               .about =
                   "  Builds the endgame database of levels 0..N (default 18, about a\n"
                   "  minute on 2 threads) in a scratch folder, then probes P random\n"
                   "  positions of it; the folder is removed at the end.\n",
               .opts = &egdb_bench_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  b->json = o.json;
  const char *tmp = getenv("TMPDIR");
  char dir[CLI_PATH_MAX], err[1024];
  snprintf(dir, sizeof dir, "%s/sowzero-bench-egdb-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return cli_fail(&c, 1, "cannot make a scratch folder %s", dir);
  egdb_plan plan = egdb_plan_for(o.seeds, o.threads);
  egdb_build_params p = {o.seeds, o.threads, NULL, NULL};
  double w0 = clock_wall(), c0 = process_cpu();
  if (egdb_build(dir, &p, err, sizeof err)) {
    remove_db(dir, o.seeds);
    return cli_fail(&c, 1, "%s", err);
  }
  double wall = clock_wall() - w0, cpu = process_cpu() - c0;
  char extra[128];
  json_writer w;
  json_writer_init(&w, extra, sizeof extra);
  json_put_int(&w, "seeds", o.seeds);
  json_put_int(&w, "threads", o.threads);
  json_put_uint(&w, "boards", (unsigned long long)plan.boards);
  bench_note(b, "egdb: build of levels 0..%d (%llu boards) on %d threads, files included", o.seeds,
             (unsigned long long)plan.boards, o.threads);
  bench_figure(b, "egdb", "build_boards_per_s", (double)plan.boards / wall, "1/s", extra);
  bench_figure(b, "egdb", "build_boards_per_cpu_s", (double)plan.boards / cpu, "1/s", extra);
  bench_figure(b, "egdb", "build_seconds", wall, "s", extra);

  egdb *db = egdb_open(dir, err, sizeof err);
  if (!db) {
    remove_db(dir, o.seeds);
    return cli_fail(&c, 1, "%s", err);
  }
  /* Random positions of random levels, made before the clock starts. */
  game g;
  game_configure(&g, "oware", 0, NULL, err, sizeof err);
  enum { POOL = 1 << 16 };
  game_pos *pos = malloc(POOL * sizeof *pos);
  if (!pos) {
    egdb_close(db);
    remove_db(dir, o.seeds);
    return cli_fail(&c, 1, "out of memory");
  }
  rng_t r;
  rng_seed(&r, 1, 0);
  for (int i = 0; i < POOL; i++) {
    int n = (int)rng_below(&r, (uint32_t)o.seeds + 1);
    uint8_t bd[EGDB_PITS];
    egdb_unrank(n, rng_u64(&r) % egdb_level_size(n), bd);
    memset(&pos[i], 0, sizeof pos[i]);
    memcpy(pos[i].pits, bd, sizeof bd);
  }
  long sum = 0;
  double t0 = clock_thread_cpu();
  for (int i = 0; i < o.probes; i++) sum += egdb_probe(db, &g, &pos[i & (POOL - 1)]);
  double probe_ns = 1e9 * (clock_thread_cpu() - t0) / o.probes;
  int vals[GAME_MAX_ACTIONS], nm = o.probes / 10 > 0 ? o.probes / 10 : 1;
  t0 = clock_thread_cpu();
  for (int i = 0; i < nm; i++) sum += (long)egdb_probe_moves(db, &g, &pos[i & (POOL - 1)], vals);
  double moves_ns = 1e9 * (clock_thread_cpu() - t0) / nm;
  free(pos);
  egdb_close(db);
  remove_db(dir, o.seeds);
  json_writer_init(&w, extra, sizeof extra);
  json_put_int(&w, "seeds", o.seeds);
  json_put_int(&w, "positions", POOL);
  json_put_int(&w, "check", (long long)(sum & 0xffff));
  bench_note(b, "egdb: probes of %d random positions of levels 0..%d, one thread", POOL, o.seeds);
  bench_figure(b, "egdb", "probe_ns", probe_ns, "ns", extra);
  bench_figure(b, "egdb", "probe_moves_ns", moves_ns, "ns", extra);
  return 0;
}

/* `sowzero bench`: dispatch and the shared output format. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "base/json.h"
#include "cli/cli.h"
#include "nn/blas_core.h"

/* The human table's header, once, before its first line. */
static void start(bench_out *b) {
  if (b->started || b->json) return;
  fprintf(b->out, "  %-8s %-34s %14s %-8s\n", "bench", "figure", "value", "unit");
  b->started = 1;
}

void bench_figure(bench_out *b, const char *bench, const char *figure, double value,
                  const char *unit, const char *extra) {
  start(b);
  if (b->json) {
    json_writer w;
    json_writer_init_file(&w, b->out);
    json_begin_object(&w, NULL);
    json_put_string(&w, "bench", bench);
    json_put_string(&w, "figure", figure);
    json_put_real(&w, "value", value, 10);
    json_put_string(&w, "unit", unit);
    if (extra && extra[0]) json_put_raw(&w, NULL, extra);
    json_end_object(&w);
    fputc('\n', b->out);
  } else
    fprintf(b->out,
            fabs(value) >= 1000 ? "  %-8s %-34s %14.0f %-8s %s\n" : "  %-8s %-34s %14.4g %-8s %s\n",
            bench, figure, value, unit, extra ? extra : "");
  fflush(b->out);
}

void bench_note(bench_out *b, const char *fmt, ...) {
  if (b->json) return;
  start(b);
  va_list ap;
  va_start(ap, fmt);
  fputs("  # ", b->out);
  vfprintf(b->out, fmt, ap);
  fputc('\n', b->out);
  va_end(ap);
  fflush(b->out);
}

/* The CPU from /proc/cpuinfo: "AMD EPYC (family 26 model 2)", or "unknown
 * CPU". Virtual machines often report a bare brand name, so family and
 * model say which generation ran the figures. */
void bench_cpu_name(char *buf, size_t len) {
  char name[128] = "unknown CPU", fam[16] = "?", model[16] = "?", line[256];
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    char *v = strchr(line, ':');
    if (!v) continue;
    v += 1 + (v[1] == ' ');
    v[strcspn(v, "\n")] = '\0';
    if (!strncmp(line, "model name", 10)) snprintf(name, sizeof name, "%s", v);
    if (!strncmp(line, "cpu family", 10)) snprintf(fam, sizeof fam, "%s", v);
    if (!strncmp(line, "model\t", 6)) snprintf(model, sizeof model, "%s", v);
    if (line[0] == '\n' || !line[0]) break; /* the first processor is enough */
  }
  if (f) fclose(f);
  snprintf(buf, len, "%s (family %s model %s)", name, fam, model);
}

void bench_system(bench_out *b, const char *bench) {
  char line[1024], sys[4096];
  blas_system_line(line, sizeof line);
  bench_note(b, "%s", line);
  if (!b->json || blas_system_json(sys, sizeof sys) != 0) return;
  blas_state s;
  blas_state_get(&s);
  bench_figure(b, bench, "blas_core_level", s.core_level, "level", sys);
}

typedef struct {
  int json;
} all_opts;

static const kv_key all_keys[] = {
    KV_B("json", all_opts, json, NULL, "one JSON object per figure and line"),
};
static const kv_table all_table = KV_TABLE(all_keys);

int cmd_bench(int argc, char **argv) {
  bench_out b = {0, stdout, 0};
  all_opts o = {0};
  cli_cmd c = {.name = "bench",
               .synopsis = "bench [engine|nn|search|egdb|selfplay|learner|all] [--json] [options]",
               .about =
                   "  engine  random playouts/s and plies/s, with a deterministic signature\n"
                   "  nn      network forward/training throughput against plain sgemm\n"
                   "  search  simulations/s of the searching agents\n"
                   "  egdb    endgame database build rate and probe latency (about a minute;\n"
                   "          not part of all)\n"
                   "  selfplay  self-play and the learner of a config: games/h, evaluations/s,\n"
                   "          cores used (fp32 and bf16 side by side; not part of all)\n"
                   "  learner   one learner's steps/s and intake of actors' games: the samples/s\n"
                   "          it can take in (a distributed run's rank 0; not part of all)\n"
                   "  all     engine, nn and search with their defaults (the default)\n"
                   "  'sowzero bench BENCHMARK --help' lists a benchmark's options.\n",
               .opts = &all_table,
               .base = &o};
  static const char *const names[] = {"engine",   "nn",      "search", "egdb",
                                      "selfplay", "learner", "all"};
  int which = 6;
  if (argc > 0 && argv[0][0] != '-') {
    for (which = 0; which < 7 && strcmp(argv[0], names[which]); which++) {}
    if (which == 7)
      return cli_fail(&c, 2,
                      "unknown benchmark '%s' (engine, nn, search, egdb, selfplay, learner or all)",
                      argv[0]);
    argc--, argv++;
  }
  int rc = 0, status;
  switch (which) {
    case 0:
      return bench_engine(&b, argc, argv);
    case 1:
      return bench_nn(&b, argc, argv);
    case 2:
      return bench_search(&b, argc, argv);
    case 3:
      return bench_egdb(&b, argc, argv);
    case 4:
      return bench_selfplay(&b, argc, argv);
    case 5:
      return bench_learner(&b, argc, argv);
    default:
      /* `all` takes --json alone: the benchmarks' options differ. */
      for (int i = 0; i < argc; i++)
        if (argv[i][0] == '-' && strcmp(argv[i], "--json") && strcmp(argv[i], "-h") &&
            strcmp(argv[i], "--help"))
          return cli_fail(&c, 2,
                          "'%s': options other than --json go with one benchmark "
                          "('sowzero bench engine %s ...'); all runs each with its defaults",
                          argv[i], argv[i]);
      for (int i = 0; i < argc; i++)
        for (int k = 0; k < 7; k++)
          if (!strcmp(argv[i], names[k]))
            return cli_fail(&c, 2, "'%s': the benchmark comes first: sowzero bench %s [options]",
                            argv[i], argv[i]);
      if (cli_parse(&c, argc, argv, &status)) return status;
      b.json = o.json;
      char *none[] = {NULL};
      if (b.json) none[0] = "--json";
      int n = b.json ? 1 : 0;
      int r[3] = {bench_engine(&b, n, none), bench_nn(&b, n, none), bench_search(&b, n, none)};
      for (int i = 0; i < 3; i++)
        if (r[i] > rc) rc = r[i];
      return rc;
  }
}

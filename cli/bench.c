/* `sowzero bench`: dispatch and the shared output format. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cli/cli.h"

void bench_figure(bench_out *b, const char *bench, const char *figure, double value,
                  const char *unit, const char *extra) {
  if (b->json)
    fprintf(b->out, "{\"bench\": \"%s\", \"figure\": \"%s\", \"value\": %.10g, \"unit\": \"%s\"%s%s}\n",
            bench, figure, value, unit, extra ? ", " : "", extra ? extra : "");
  else
    fprintf(b->out, fabs(value) >= 1000 ? "  %-8s %-34s %14.0f %-8s %s\n"
                                         : "  %-8s %-34s %14.4g %-8s %s\n",
            bench, figure, value, unit, extra ? extra : "");
  fflush(b->out);
}

void bench_note(bench_out *b, const char *fmt, ...) {
  if (b->json) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("  # ", b->out);
  vfprintf(b->out, fmt, ap);
  fputc('\n', b->out);
  va_end(ap);
  fflush(b->out);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sowzero bench [engine|nn|search|all] [--json] [options]\n"
          "  engine  random playouts/s and plies/s, with a deterministic signature\n"
          "          (--game G, --games N for the signature, --seconds S per repetition)\n"
          "  nn      network forward/training throughput against plain sgemm\n"
          "  search  simulations/s of the searching agents\n"
          "  --json  one JSON object per figure and line\n");
}

int cmd_bench(int argc, char **argv) {
  bench_out b = {0, stdout};
  const char *which = "all";
  char *rest[64];
  int nrest = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      b.json = 1;
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else if (i == 0 && argv[i][0] != '-')
      which = argv[i];
    else if (nrest < 64)
      rest[nrest++] = argv[i];
  }
  int run_engine = !strcmp(which, "engine"), run_nn = !strcmp(which, "nn"),
      run_search = !strcmp(which, "search"), all = !strcmp(which, "all");
  if (!run_engine && !run_nn && !run_search && !all) {
    fprintf(stderr, "sowzero bench: unknown benchmark '%s'\n", which);
    usage(stderr);
    return 2;
  }
  if (!b.json) fprintf(b.out, "  %-8s %-34s %14s %-8s\n", "bench", "figure", "value", "unit");
  int rc = 0;
  if (run_engine || all) rc |= bench_engine(&b, nrest, rest);
  if (run_nn || all) rc |= bench_nn(&b, all ? 0 : nrest, rest);
  if (run_search || all) rc |= bench_search(&b, all ? 0 : nrest, rest);
  return rc ? 1 : 0;
}

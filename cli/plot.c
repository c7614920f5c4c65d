/* `sowzero plot RUN`: loss, gating and Elo curves of a run, drawn to PNG
 * by gnuplot from metrics.jsonl. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cli/cli.h"

/* The number after "key": inside [from, to); NAN-like -1e300 if absent. */
static double field(const char *from, const char *to, const char *key) {
  char pat[96];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(from, pat);
  if (!p || (to && p >= to)) return -1e300;
  char *end;
  double v = strtod(p + strlen(pat), &end);
  return end == p + strlen(pat) ? -1e300 : v;
}

static const char *object_end(const char *p) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == '{') depth++;
    if (*p == '}' && --depth == 0) return p;
  }
  return p;
}

int cmd_plot(int argc, char **argv) {
  const char *run = NULL, *out = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] != '-' && !run)
      run = argv[i];
    else {
      fprintf(stderr, "usage: sowzero plot RUN [--out FILE.png]\n");
      return 2;
    }
  }
  if (!run) {
    fprintf(stderr, "usage: sowzero plot RUN [--out FILE.png]\n");
    return 2;
  }
  char path[1024], data[1100], png[1100], script[1100];
  snprintf(path, sizeof path, "%s/metrics.jsonl", run);
  snprintf(data, sizeof data, "%s/plot.dat", run);
  snprintf(png, sizeof png, "%s", out ? out : "");
  if (!out) snprintf(png, sizeof png, "%s/progress.png", run);
  FILE *in = fopen(path, "r");
  if (!in) {
    fprintf(stderr, "sowzero plot: %s: %s\n", path, strerror(errno));
    return 1;
  }
  afile a;
  char err[512];
  if (afile_open(&a, data, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero plot: %s\n", err);
    fclose(in);
    return 1;
  }
  /* Columns: time_min total policy value gate_score elo_vs_last_anchor */
  static char line[65536];
  int rows = 0;
  char anchor[128] = "";
  while (fgets(line, sizeof line, in)) {
    double t = field(line, NULL, "time_min");
    if (t == -1e300) continue;
    const char *loss = strstr(line, "\"loss\": {");
    const char *lend = loss ? object_end(loss + 8) : NULL;
    double tot = loss ? field(loss, lend, "total") : -1e300;
    double pol = loss ? field(loss, lend, "policy") : -1e300;
    double val = loss ? field(loss, lend, "value") : -1e300;
    const char *gate = strstr(line, "\"gating\": {");
    double gs = gate ? field(gate, object_end(gate + 10), "score") : -1e300;
    double elo = -1e300;
    const char *ev = strstr(line, "\"eval\": {");
    if (ev) {
      /* The last anchor listed is the strongest by convention. */
      const char *q = ev + 9, *last = NULL;
      for (const char *p = strstr(q, ": {\"score\""); p; p = strstr(p + 1, ": {\"score\"")) last = p;
      if (last) {
        const char *nb = last - 1;
        while (nb > ev && *nb != '"') nb--;
        const char *na = nb - 1;
        while (na > ev && *na != '"') na--;
        snprintf(anchor, sizeof anchor, "%.*s", (int)(nb - na - 1), na + 1);
        elo = field(last, object_end(last + 2), "elo");
      }
    }
    fprintf(a.f, "%.4f", t);
    double v[5] = {tot, pol, val, gs, elo};
    for (int k = 0; k < 5; k++) {
      if (v[k] == -1e300)
        fprintf(a.f, " NaN");
      else
        fprintf(a.f, " %.6g", v[k]);
    }
    fputc('\n', a.f);
    rows++;
  }
  fclose(in);
  if (afile_commit(&a, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero plot: %s\n", err);
    return 1;
  }
  if (rows == 0) {
    fprintf(stderr, "sowzero plot: %s has no iterations yet\n", path);
    return 1;
  }
  snprintf(script, sizeof script, "%s/plot.gp", run);
  FILE *gp = fopen(script, "w");
  if (!gp) {
    fprintf(stderr, "sowzero plot: %s: %s\n", script, strerror(errno));
    return 1;
  }
  fprintf(gp,
          "set terminal pngcairo size 1200,900 noenhanced\nset output '%s'\n"
          "set multiplot layout 3,1 title '%s'\nset grid\nset key outside right\n"
          "set xlabel 'training minutes'\nset ylabel 'loss'\n"
          "plot '%s' using 1:2 with lines title 'total', '' using 1:3 with lines title 'policy',"
          " '' using 1:4 with lines title 'value'\n"
          "set ylabel 'candidate score'\nset yrange [0:1]\n"
          "plot '%s' using 1:5 with linespoints title 'gating score', 0.55 with lines dt 2 "
          "title 'threshold'\nset autoscale y\n"
          "set ylabel 'Elo'\nplot '%s' using 1:6 with linespoints title 'best vs %s'\n"
          "unset multiplot\n",
          png, run, data, data, data, anchor[0] ? anchor : "anchor");
  fclose(gp);
  char cmd[3400];
  snprintf(cmd, sizeof cmd, "gnuplot '%s'", script);
  int rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "sowzero plot: gnuplot failed (is gnuplot installed? 'make deps')\n");
    return 1;
  }
  printf("%s\n", png);
  return 0;
}

/* `sowzero plot RUN`: loss, gating and Elo curves of a run, drawn to PNG
 * by gnuplot from metrics.jsonl. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"

/* Member key of object obj as a number; NAN if absent or not a number. */
static double number_at(const json_doc *d, int obj, const char *key) {
  double v;
  return json_get_number(d, obj, key, &v) == 0 ? v : NAN;
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
  char *line = NULL;
  size_t cap = 0;
  int rows = 0;
  char anchor[128] = "";
  while (getline(&line, &cap, in) > 0) {
    json_doc *d = json_parse(line, NULL, 0);
    double t = d ? number_at(d, 0, "time_min") : NAN;
    if (isnan(t)) {
      json_free(d);
      continue;
    }
    int loss = json_get(d, 0, "loss"), gate = json_get(d, 0, "gating");
    double v[5] = {number_at(d, loss, "total"), number_at(d, loss, "policy"),
                   number_at(d, loss, "value"), number_at(d, gate, "score"), NAN};
    /* The last anchor listed is the strongest by convention. */
    int last = -1;
    for (int e = json_first(d, json_get(d, 0, "eval")); e >= 0; e = json_next(d, e)) last = e;
    if (last >= 0) {
      snprintf(anchor, sizeof anchor, "%s", json_key(d, last));
      v[4] = number_at(d, last, "elo");
    }
    json_free(d);
    fprintf(a.f, "%.4f", t);
    for (int k = 0; k < 5; k++) {
      if (isnan(v[k]))
        fprintf(a.f, " NaN");
      else
        fprintf(a.f, " %.6g", v[k]);
    }
    fputc('\n', a.f);
    rows++;
  }
  free(line);
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
  /* The picture, like every file, goes to a temporary (gnuplot writes
   * that) renamed over the destination only if it is a regular file. */
  afile img, gpf;
  if (afile_open(&img, png, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero plot: %s\n", err);
    return 1;
  }
  if (afile_open(&gpf, script, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero plot: %s\n", err);
    afile_abort(&img);
    return 1;
  }
  FILE *gp = gpf.f;
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
          img.tmp, run, data, data, data, anchor[0] ? anchor : "anchor");
  if (afile_commit(&gpf, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero plot: %s\n", err);
    afile_abort(&img);
    return 1;
  }
  char cmd[3400];
  snprintf(cmd, sizeof cmd, "gnuplot '%s'", script);
  int rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "sowzero plot: gnuplot failed (is gnuplot installed? 'make deps')\n");
    afile_abort(&img);
    return 1;
  }
  if (afile_commit(&img, err, sizeof err) != 0) {
    fprintf(stderr, "sowzero plot: %s\n", err);
    return 1;
  }
  printf("%s\n", png);
  return 0;
}

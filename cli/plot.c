/* `sowzero plot RUN`: loss, gating and Elo curves of a run, drawn to PNG
 * by gnuplot from metrics.jsonl.
 *
 * No shell and no names in the script: gnuplot is started with an argument
 * vector (posix_spawnp), and the script, the same text for every run, gets
 * the file names, the title and the anchor's spec as its arguments (ARG1 ..
 * ARG6 of `gnuplot -c`), which gnuplot keeps as strings and never parses, so
 * no quote, newline or backquote in them can change what it runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"
#include "base/json.h"
#include "cli/cli.h"

/* ARG1 the PNG, ARG2 the data, ARG3 the title, ARG4 the anchor's spec, ARG5,
 * ARG6 and ARG7 "1" to draw the gating, the Elo and the endgame panel. */
static const char script_text[] =
    "# Written by 'sowzero plot'; run as: gnuplot -c plot.gp OUT.png DATA TITLE ANCHOR GATING "
    "ELO EGDB\n"
    "gating = (ARG5 eq \"1\")\n"
    "elo = (ARG6 eq \"1\")\n"
    "exact = (ARG7 eq \"1\")\n"
    "panels = 1 + gating + elo + exact\n"
    "set terminal pngcairo size 1200,300*panels+60 noenhanced\n"
    "set output ARG1\n"
    "set multiplot layout panels,1 title ARG3\n"
    "set grid\n"
    "set key outside right\n"
    "set xlabel 'training minutes'\n"
    "set ylabel 'loss'\n"
    "plot ARG2 using 1:2 with lines title 'total', '' using 1:3 with lines title 'policy', "
    "'' using 1:4 with lines title 'value'\n"
    "if (gating) {\n"
    "  set ylabel 'candidate score'\n"
    "  set yrange [0:1]\n"
    "  plot ARG2 using 1:5 with linespoints title 'gating score', 0.55 with lines dt 2 "
    "title 'threshold'\n"
    "  set autoscale y\n"
    "}\n"
    "if (elo) {\n"
    "  set ylabel 'Elo'\n"
    "  plot ARG2 using 1:6 with linespoints title 'best vs '.ARG4\n"
    "}\n"
    "if (exact) {\n"
    "  set ylabel 'against the endgame database'\n"
    "  set yrange [0:1]\n"
    "  plot ARG2 using 1:7 with linespoints title 'value error', '' using 1:8 with linespoints "
    "title 'policy: best margin', '' using 1:9 with linespoints title 'search: best margin'\n"
    "}\n"
    "unset multiplot\n";

/* Member key of object obj as a number; NAN if absent or not a number. */
static double number_at(const json_doc *d, int obj, const char *key) {
  double v;
  return json_get_number(d, obj, key, &v) == 0 ? v : NAN;
}

typedef struct {
  char out[CLI_PATH_MAX];
} plot_opts;

static const kv_key plot_keys[] = {
    KV_S("out", plot_opts, out, NULL, "FILE  the PNG to write (default RUN/progress.png)"),
};
static const kv_table plot_table = KV_TABLE(plot_keys);

/* metrics.jsonl to the data file. Columns: time_min total policy value
 * gate_score elo_vs_last_anchor, then egdb's value_mae policy_margin
 * search_margin. Counts the rows and those with a gating score, an Elo and
 * an endgame measurement; the last anchor's spec goes to anchor. */
static int write_data(FILE *in, FILE *out, int *rows, int *gated, int *rated, int *exact,
                      char *anchor, size_t len) {
  char *line = NULL;
  size_t cap = 0;
  *rows = *gated = *rated = *exact = 0;
  while (getline(&line, &cap, in) > 0) {
    json_doc *d = json_parse(line, NULL, 0);
    double t = d ? number_at(d, 0, "time_min") : NAN;
    if (isnan(t)) {
      json_free(d);
      continue;
    }
    int loss = json_get(d, 0, "loss"), gate = json_get(d, 0, "gating");
    int eg = json_get(d, 0, "egdb");
    double v[8] = {number_at(d, loss, "total"),
                   number_at(d, loss, "policy"),
                   number_at(d, loss, "value"),
                   number_at(d, gate, "score"),
                   NAN,
                   number_at(d, eg, "value_mae"),
                   number_at(d, eg, "policy_margin"),
                   number_at(d, eg, "search_margin")};
    /* The last anchor listed is the strongest by convention. */
    int last = -1;
    for (int e = json_first(d, json_get(d, 0, "eval")); e >= 0; e = json_next(d, e)) last = e;
    if (last >= 0) {
      snprintf(anchor, len, "%s", json_key(d, last));
      v[4] = number_at(d, last, "elo");
    }
    json_free(d);
    fprintf(out, "%.4f", t);
    for (int k = 0; k < 8; k++) {
      if (isnan(v[k]) || isinf(v[k]))
        fprintf(out, " NaN");
      else
        fprintf(out, " %.6g", v[k]);
    }
    fputc('\n', out);
    (*rows)++;
    *gated += !isnan(v[3]);
    *rated += !isnan(v[4]);
    *exact += !isnan(v[5]);
  }
  free(line);
  return ferror(in) ? -1 : 0;
}

int cmd_plot(int argc, char **argv) {
  plot_opts o = {""};
  char *pos[1];
  cli_cmd c = {.name = "plot",
               .synopsis = "plot RUN [--out FILE.png]",
               .about =
                   "  Draws a run's loss, gating and Elo curves with gnuplot (RUN/plot.gp, "
                   "RUN/plot.dat).\n",
               .opts = &plot_table,
               .base = &o,
               .pos_name = "RUN",
               .min_pos = 1,
               .max_pos = 1,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  const char *run = pos[0];
  char path[CLI_PATH_MAX], data[CLI_PATH_MAX], script[CLI_PATH_MAX], png[CLI_PATH_MAX];
  if (cli_path(path, sizeof path, run, "metrics.jsonl") ||
      cli_path(data, sizeof data, run, "plot.dat") ||
      cli_path(script, sizeof script, run, "plot.gp") ||
      (!o.out[0] && cli_path(png, sizeof png, run, "progress.png")))
    return cli_fail(&c, 2, "the run directory's name is too long (%zu characters)", strlen(run));
  if (o.out[0]) snprintf(png, sizeof png, "%s", o.out);
  struct stat st;
  if (stat(run, &st) != 0)
    return cli_fail(&c, 1, "run directory '%s': %s", run,
                    errno == ENOENT ? "does not exist" : strerror(errno));
  if (!S_ISDIR(st.st_mode)) return cli_fail(&c, 1, "'%s' is not a run directory", run);
  FILE *in = fopen(path, "r");
  if (!in) {
    if (errno == ENOENT)
      return cli_fail(&c, 1,
                      "'%s' has no metrics.jsonl: not a run directory, or its first "
                      "iteration has not finished",
                      run);
    return cli_fail(&c, 1, "%s: %s", path, strerror(errno));
  }
  afile a;
  char err[1024], anchor[256] = "";
  if (afile_open(&a, data, err, sizeof err) != 0) {
    fclose(in);
    return cli_fail(&c, 1, "%s", err);
  }
  int rows, gated, rated, exact;
  int rd = write_data(in, a.f, &rows, &gated, &rated, &exact, anchor, sizeof anchor);
  fclose(in);
  if (rd != 0) {
    afile_abort(&a);
    return cli_fail(&c, 1, "%s: read error", path);
  }
  if (rows == 0) {
    afile_abort(&a);
    return cli_fail(&c, 1, "%s has no iterations yet: nothing to plot", path);
  }
  if (afile_commit(&a, err, sizeof err) != 0) return cli_fail(&c, 1, "%s", err);
  if (afile_open(&a, script, err, sizeof err) != 0) return cli_fail(&c, 1, "%s", err);
  fputs(script_text, a.f);
  if (afile_commit(&a, err, sizeof err) != 0) return cli_fail(&c, 1, "%s", err);
  if (!rated || !gated)
    cli_fail(&c, 0, "%s has no %s yet; plotting %s only", path,
             !rated && !gated ? "gating results or evaluations"
             : !rated         ? "evaluations"
                              : "gating results",
             !rated && !gated ? "the losses"
             : !rated         ? "the losses and gating"
                              : "the losses and Elo");
  /* The picture, like every file, goes to a temporary (gnuplot writes that)
   * renamed over the destination only if that is a regular file. */
  afile img;
  if (afile_open(&img, png, err, sizeof err) != 0) return cli_fail(&c, 1, "%s", err);
  char *gv[] = {"gnuplot",
                "-c",
                script,
                img.tmp,
                data,
                (char *)run,
                anchor[0] ? anchor : "anchor",
                gated ? "1" : "0",
                rated ? "1" : "0",
                exact ? "1" : "0",
                NULL};
  if (cli_gnuplot_png(gv, &img, err, sizeof err) != 0)
    return cli_fail(&c, 1, "drawing %s: %s", png, err);
  printf("%s\n", png);
  return 0;
}

/* The study's plots: for each, a data file and a gnuplot script in the
 * output folder, then the PNG drawn by cli_gnuplot. The scripts are the
 * same text for every study; file names, titles and counts reach them as
 * arguments (ARG1 ..), which gnuplot keeps as strings, and variant labels
 * only through the data files, so nothing a user names is run. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli/cli.h"
#include "cli/study_internal.h"

enum { PLOT_SCORE, PLOT_LENGTHS, PLOT_ENDINGS, PLOT_OPENINGS, N_PLOTS };

const char *const study_plot_png[N_PLOTS] = {"score.png", "lengths.png", "endings.png",
                                             "openings.png"};
const char *const study_plot_about[N_PLOTS] = {
    "the first player's score per variant with its 95% interval",
    "the distribution of game lengths per variant", "how games ended, per variant",
    "the first player's first move per variant"};
const int study_n_plots = N_PLOTS;

static const char *const data_name[N_PLOTS] = {"score.dat", "lengths.dat", "endings.dat",
                                               "openings.dat"};
static const char *const script_name[N_PLOTS] = {"score.gp", "lengths.gp", "endings.gp",
                                                 "openings.gp"};

/* ARG1 the PNG, ARG2 the data, ARG3 the title, ARG4 a count (variants,
 * or kinds of ending). */
#define HEAD(name)                                         \
  "# Written by 'sowzero study'; run as: gnuplot -c " name \
  " OUT.png DATA TITLE COUNT\n"                            \
  "set terminal pngcairo size 1000,560 noenhanced\n"       \
  "set output ARG1\n"                                      \
  "set title ARG3\n"                                       \
  "n = ARG4 + 0\n"                                         \
  "set grid y\n"                                           \
  "set key outside right\n"

static const char *const script_text[N_PLOTS] = {
    HEAD("score.gp") "set yrange [0:1]\n"
                     "set xrange [-0.5:n-0.5]\n"
                     "set xtics rotate by -25\n"
                     "set ylabel \"first player's score (95% interval)\"\n"
                     "plot ARG2 using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.5 lw 2 "
                     "title 'first player', 0.5 with lines dt 2 lc rgb 'gray40' title 'even'\n",
    HEAD("lengths.gp") "set terminal pngcairo size 1000,900 noenhanced\n"
                       "set output ARG1\n"
                       "set multiplot layout 2,1 title ARG3\n"
                       "unset title\n"
                       "set xlabel 'game length (plies)'\n"
                       "set ylabel 'share of games'\n"
                       "plot for [i=3:n+2] ARG2 using 1:i with histeps lw 2 "
                       "title columnheader(i)\n"
                       "set ylabel 'share of games at most this long'\n"
                       "set yrange [0:1]\n"
                       "plot for [i=n+3:2*n+2] ARG2 using 2:i with lines lw 2 "
                       "title columnheader(i)\n"
                       "unset multiplot\n",
    HEAD("endings.gp") "set style data histograms\n"
                       "set style histogram rowstacked\n"
                       "set style fill solid 0.8 border -1\n"
                       "set boxwidth 0.6\n"
                       "set yrange [0:1]\n"
                       "set xtics rotate by -25\n"
                       "set ylabel 'share of games'\n"
                       "plot for [i=2:n+1] ARG2 using i:xtic(1) title columnheader(i)\n",
    HEAD("openings.gp") "set style data histograms\n"
                        "set style histogram clustered gap 1\n"
                        "set style fill solid 0.8 border -1\n"
                        "set yrange [0:*]\n"
                        "set xlabel \"the first player's first move\"\n"
                        "set ylabel 'share of games'\n"
                        "plot for [i=2:n+1] ARG2 using i:xtic(1) title columnheader(i)\n",
};
#undef HEAD

/* A quoted string of a data file: gnuplot reads "..." as one column and
 * has no escape inside it, so a double quote becomes a single one. */
static void put_quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) fputc(*s == '"' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s, f);
  fputc('"', f);
}

/* A column of a data row or header: a space, then the quoted string. */
static void put_col(FILE *f, const char *s) {
  fputc(' ', f);
  put_quoted(f, s);
}

void study_move_name(const game *g, int mover, int action, char *buf, size_t len) {
  if (game_move_label(g, mover, action, buf, len)) snprintf(buf, len, "%d", action);
}

/* Bins of one width over every variant's lengths, about 30 of them. */
static void length_bins(const study_result *r, int *lo, int *width, int *bins) {
  int mn = r->v[0].s.len_min, mx = r->v[0].s.len_max;
  for (int i = 1; i < r->n_variants; i++) {
    if (r->v[i].s.len_min < mn) mn = r->v[i].s.len_min;
    if (r->v[i].s.len_max > mx) mx = r->v[i].s.len_max;
  }
  *width = (mx - mn + 1 + 29) / 30;
  if (*width < 1) *width = 1;
  *lo = mn / *width * *width;
  *bins = (mx - *lo) / *width + 1;
}

/* Writes plot k's data into f; *count gets ARG4. */
static int write_data(const study_doc *d, int k, FILE *f, int *count) {
  const study_result *r = d->r;
  int n = r->n_variants;
  *count = n;
  if (k == PLOT_SCORE) {
    fputs("# index variant score lo hi\n", f);
    for (int i = 0; i < n; i++) {
      const stats_result *s = &r->v[i].s;
      fprintf(f, "%d ", i);
      put_quoted(f, d->variants[i].label);
      fprintf(f, " %.6f %.6f %.6f\n", s->first_score, s->first_score_lo, s->first_score_hi);
    }
  } else if (k == PLOT_LENGTHS) {
    int lo, width, bins;
    length_bins(r, &lo, &width, &bins);
    fprintf(f,
            "# per bin of %d plies: its centre and its last length, the share of games in it "
            "for each variant, then the share of games at most its last length\n",
            width);
    put_quoted(f, "centre");
    put_col(f, "last");
    for (int c = 0; c < 2; c++)
      for (int i = 0; i < n; i++) put_col(f, d->variants[i].label);
    fputc('\n', f);
    for (int b = 0; b < bins; b++) {
      fprintf(f, "%.1f %d", lo + b * width + (width - 1) / 2.0, lo + (b + 1) * width - 1);
      for (int c = 0; c < 2; c++)
        for (int i = 0; i < n; i++) {
          int in = 0;
          for (int g = 0; g < r->v[i].s.games; g++) {
            int at = (r->v[i].games[g].plies - lo) / width;
            in += c ? at <= b : at == b;
          }
          fprintf(f, " %.6f", (double)in / r->v[i].s.games);
        }
      fputc('\n', f);
    }
  } else if (k == PLOT_ENDINGS) {
    int used[GAME_END_COUNT] = {0};
    *count = 0;
    for (int e = 0; e < GAME_END_COUNT; e++)
      for (int i = 0; i < n; i++) used[e] |= r->v[i].s.end_reason[e] > 0;
    fputs("# share of games per way of ending\n", f);
    put_quoted(f, "variant");
    for (int e = 0; e < GAME_END_COUNT; e++)
      if (used[e]) {
        put_col(f, game_end_name(e));
        (*count)++;
      }
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
      put_quoted(f, d->variants[i].label);
      for (int e = 0; e < GAME_END_COUNT; e++)
        if (used[e]) fprintf(f, " %.6f", (double)r->v[i].s.end_reason[e] / r->v[i].s.games);
      fputc('\n', f);
    }
  } else {
    const game *g = &d->variants[0].g;
    int first = game_first_mover(g);
    fputs("# share of games per first move of the first player\n", f);
    put_quoted(f, "move");
    for (int i = 0; i < n; i++) put_col(f, d->variants[i].label);
    fputc('\n', f);
    for (int a = 0; a < GAME_MAX_ACTIONS; a++) {
      int any = 0;
      for (int i = 0; i < n; i++) any |= r->v[i].first[a] > 0;
      if (!any) continue;
      char name[32];
      study_move_name(g, first, a, name, sizeof name);
      put_quoted(f, name);
      for (int i = 0; i < n; i++) fprintf(f, " %.6f", (double)r->v[i].first[a] / r->v[i].s.games);
      fputc('\n', f);
    }
  }
  return ferror(f) ? -1 : 0;
}

int study_plots(study_doc *d, char *err, size_t errlen) {
  char data[N_PLOTS][CLI_PATH_MAX], script[N_PLOTS][CLI_PATH_MAX], png[CLI_PATH_MAX];
  char counts[N_PLOTS][16], title[N_PLOTS][256];
  const study_result *r = d->r;
  const char *what[N_PLOTS] = {"first player's score", "game length", "how games ended",
                               "first moves"};
  for (int k = 0; k < N_PLOTS; k++) {
    if (cli_path(data[k], sizeof data[k], d->out, data_name[k]) ||
        cli_path(script[k], sizeof script[k], d->out, script_name[k])) {
      errf(err, errlen, "%s: folder name too long", d->out);
      return -1;
    }
    afile a;
    int count;
    if (afile_open(&a, data[k], err, errlen)) return -1;
    if (write_data(d, k, a.f, &count)) return afile_fail(&a, err, errlen);
    if (afile_commit(&a, err, errlen)) return -1;
    if (afile_write(script[k], script_text[k], strlen(script_text[k]), err, errlen)) return -1;
    snprintf(counts[k], sizeof counts[k], "%d", count);
    snprintf(title[k], sizeof title[k], "%s: %s, %d self-play games per variant",
             d->variants[0].g.rules->name, what[k], r->params.games);
  }
  d->plotted = 1;
  for (int k = 0; k < N_PLOTS; k++) {
    afile img;
    if (cli_path(png, sizeof png, d->out, study_plot_png[k]) || afile_open(&img, png, err, errlen))
      return -1;
    char *gv[] = {"gnuplot", "-c", script[k], img.tmp, data[k], title[k], counts[k], NULL};
    if (cli_gnuplot_png(gv, &img, d->plot_note, sizeof d->plot_note)) {
      d->plotted = 0;
      /* A picture of an earlier study would pass for this one's. */
      for (int j = 0; j < N_PLOTS; j++)
        if (!cli_path(png, sizeof png, d->out, study_plot_png[j])) unlink(png);
      return 0;
    }
  }
  return 0;
}

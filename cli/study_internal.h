/* Shared by the files of `sowzero study` only: study.c runs it,
 * study_report.c writes report.md, study_json.c study.json, study_plot.c
 * the plots. */
#ifndef SOWZERO_CLI_STUDY_INTERNAL_H
#define SOWZERO_CLI_STUDY_INTERNAL_H

#include <stddef.h>

#include "arena/study.h"

/* Everything the outputs say, the study's result included (borrowed). */
typedef struct {
  const char *source; /* CONFIG_OR_RUN as given */
  const char *out;    /* the output folder */
  const study_variant *variants;
  const study_agent *cross;
  const study_result *r;
  const char *agent_origin; /* where the main agent came from: "--agent", "RUN/best.weights" */
  char date[40];            /* when the study finished, UTC, ISO 8601 */
  int plotted;              /* 1: the PNGs were drawn */
  char plot_note[512];      /* otherwise why not */
} study_doc;

/* The files the outputs are made of, in the output folder. */
#define STUDY_REPORT "report.md"
#define STUDY_JSON   "study.json"

/* The data and script files of each plot, then the PNGs by gnuplot.
 * -1 with a message only when a data or script file cannot be written;
 * gnuplot missing or failing sets d->plot_note and returns 0. */
int study_plots(study_doc *d, char *err, size_t errlen);
/* The plots' PNG names and what each shows, n_plots of them. */
extern const char *const study_plot_png[];
extern const char *const study_plot_about[];
extern const int study_n_plots;

int study_write_report(const study_doc *d, char *err, size_t errlen);
int study_write_json(const study_doc *d, char *err, size_t errlen);

/* The name the board gives `action` played by `mover` ("3", "b6ccw"). */
void study_move_name(const game *g, int mover, int action, char *buf, size_t len);

#endif

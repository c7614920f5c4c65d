/* metrics: metrics.jsonl, one JSON object per iteration (docs/TRAINING.md
 * lists the keys) — the iteration's progress members, and the file kept in
 * step with the checkpoint.
 *
 * The file is rewritten whole (atomically) with each new line, keeping
 * only the lines of iterations up to the checkpoint's: a line written by a
 * run killed before its checkpoint is dropped when the iteration is redone. */
#ifndef SOWZERO_METRICS_H
#define SOWZERO_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "nn/nn.h"

/* The members every line starts with, in their order. */
typedef struct {
  unsigned iteration;
  double time_min;                 /* training time over all resumes */
  uint64_t steps, games, samples;  /* over all resumes */
  int buffer;                      /* samples in the buffer */
  double buffer_mb;                /* its memory */
  double lr;                       /* the learning rate of the next step */
  nn_losses loss;                  /* means over the iteration's steps */
  double games_per_h, evals_per_s; /* this session's self-play speed */
  double cores_used;               /* process CPU time / wall time, this session */
  long cores;                      /* cores online */
  double share[4];                 /* CPU time: network, search, learner, gating */
  unsigned promotions;
  int reject_streak; /* candidates rejected in a row */
} metrics_progress;

/* Puts the progress members into an open object. */
void metrics_put_progress(json_writer *w, const metrics_progress *m);

/* Rewrites path with its lines of iterations up to keep_upto, then line
 * (one JSON object, no newline) when it is not NULL. Without a line (a
 * resume), *reject_streak is counted over the lines kept (their "gating"
 * members); with one, it is left alone. A file of another kind than
 * regular is refused, and so is a file that cannot be read whole (out of
 * memory, a read error): its lines are never dropped. */
int metrics_append(const char *path, unsigned keep_upto, const char *line, int *reject_streak,
                   char *err, size_t errlen);

#endif

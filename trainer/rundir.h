/* rundir: a run's directory (train.h lists its files) — the configuration
 * it was made with, what it holds, and its lock.
 *
 * What the directory holds decides, and what does not fit is refused with
 * nothing written: a config that differs from the run's on any key but the
 * resumable ones (config_resumable), a run's work without its checkpoint, a
 * run's files without config.ini, a run file that is not a regular file.
 * One trainer per run: the lock (flock on DIR/.lock) goes with the process,
 * even on SIGKILL. */
#ifndef SOWZERO_RUNDIR_H
#define SOWZERO_RUNDIR_H

#include <stddef.h>

#include "trainer/config.h"
#include "trainer/train.h"

#define RUNDIR_PATH_MAX 1024

typedef struct {
  char dir[RUNDIR_PATH_MAX / 2];
  int lock_fd;  /* -1: not locked */
  int existed;  /* config.ini was there: a resume */
  int has_ckpt; /* checkpoint/learner.ckpt was there */
} rundir;

/* Resolves the configuration (a->config_path, or the run's own config.ini,
 * with a's overrides; for a run that exists, checked against its config)
 * into *cfg, makes the directory of a new run, takes the lock and checks
 * what the directory holds. On -1 the caller still calls rundir_close. */
int rundir_open(rundir *d, const train_args *a, train_config *cfg, char *err, size_t errlen);
void rundir_close(rundir *d);
/* DIR/name into out (RUNDIR_PATH_MAX bytes). */
void rundir_path(const rundir *d, const char *name, char *out);
/* Something is at DIR/name (a dangling link too). */
int rundir_has(const rundir *d, const char *name);
/* The first writes of a session: checkpoint/ and games/, this library's
 * stale temporaries removed (afile_remove_stale), config.ini. */
int rundir_prepare(const rundir *d, const train_config *c, char *err, size_t errlen);

#endif

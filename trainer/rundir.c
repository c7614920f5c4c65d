#include "trainer/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "trainer/machine.h"

void rundir_path(const rundir *d, const char *name, char *out) {
  snprintf(out, RUNDIR_PATH_MAX, "%s/%s", d->dir, name);
}

static int present(const char *p) {
  struct stat s;
  return lstat(p, &s) == 0;
}

int rundir_has(const rundir *d, const char *name) {
  char path[RUNDIR_PATH_MAX];
  rundir_path(d, name, path);
  return present(path);
}

static int make_dir(const char *p, char *err, size_t errlen) {
  if (mkdir(p, 0755) == 0 || errno == EEXIST) return 0;
  errf(err, errlen, "%s: cannot create directory: %s", p, strerror(errno));
  return -1;
}

/* ---- What a run directory holds ------------------------------------------------------
 * A run is made in this order: config.ini, the checkpoint of iteration 0,
 * an empty metrics.jsonl, best.weights; so config.ini exists whenever
 * anything else of the run does, and the checkpoint whenever the run has
 * done any work. What does not fit is refused rather than guessed at: a
 * run's files without its config.ini, a run's work without its checkpoint
 * (and promotions in the checkpoint without best.weights, which train.c
 * checks once it has read the checkpoint). */

/* The files of a run; all but config.ini hold its work. */
static const char *const run_files[] = {"config.ini",
                                        "checkpoint/learner.ckpt",
                                        "best.weights",
                                        "candidate.weights",
                                        "replay.bin",
                                        "metrics.jsonl",
                                        NULL};

/* Lists in out (", "-separated) the run's work present in the directory,
 * besides the checkpoint when with_ckpt is 0; -1 with a message if one of
 * the run's files is not a regular file (it could be neither read safely
 * nor replaced). */
static int run_work(const rundir *r, int with_ckpt, char *out, size_t len, char *err,
                    size_t errlen) {
  char path[RUNDIR_PATH_MAX];
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; run_files[i]; i++) {
    struct stat st;
    rundir_path(r, run_files[i], path);
    if (lstat(path, &st) != 0) continue;
    if (!S_ISREG(st.st_mode)) {
      errf(err, errlen,
           "%s: not a regular file; a run reads and replaces only regular files (put the "
           "file itself there)",
           path);
      return -1;
    }
    if (i == 0 || (i == 1 && !with_ckpt)) continue;
    k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%s%s", k ? ", " : "", run_files[i]);
  }
  rundir_path(r, "games", path);
  DIR *d = opendir(path);
  for (struct dirent *e; d && (e = readdir(d));)
    if (!strncmp(e->d_name, "iter-", 5) && !afile_is_temporary(e->d_name, NULL)) {
      k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%sgames/", k ? ", " : "");
      break;
    }
  if (d) closedir(d);
  return 0;
}

/* The configuration of a run that exists: the one asked for (CONFIG, or
 * the run's own config.ini, with the overrides) must agree with the run's
 * on every key but the resumable ones. */
static int resume_config(const rundir *r, const train_args *a, train_config *cfg, const char *own,
                         char *err, size_t errlen) {
  train_config *was = malloc(sizeof *was);
  if (!was) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  int rc = -1;
  const char *asked = a->config_path ? a->config_path : own;
  config_diff d;
  if (config_load(was, own, 0, NULL, err, errlen) != 0) goto done;
  if (config_load(cfg, asked, a->n_over, a->over, err, errlen) != 0) goto done;
  if (config_compare(was, cfg, &d)) {
    errf(err, errlen,
         "%s: this run was made with %s = %s, but %s%s gives %s, which makes another run: train "
         "that under another name (--run NEWDIR), or resume this run as it was with 'sowzero "
         "train --run %s'",
         r->dir, d.key, d.a, a->config_path ? a->config_path : "--set",
         a->config_path && a->n_over ? " with the overrides" : "", d.b, r->dir);
    goto done;
  }
  rc = 0;
done:
  free(was);
  return rc;
}

int rundir_open(rundir *r, const train_args *a, train_config *cfg, char *err, size_t errlen) {
  char path[RUNDIR_PATH_MAX], work[256];
  memset(r, 0, sizeof *r);
  r->lock_fd = -1;
  snprintf(r->dir, sizeof r->dir, "%s", a->run_dir);
  rundir_path(r, "config.ini", path);
  /* The configuration first: a bad one fails before anything is written. */
  r->existed = present(path);
  if (r->existed) {
    if (resume_config(r, a, cfg, path, err, errlen) != 0 || machine_check(cfg, err, errlen) != 0)
      return -1;
  } else {
    if (!a->config_path) {
      if (run_work(r, 1, work, sizeof work, err, errlen) != 0) return -1;
      if (work[0])
        errf(err, errlen, "%s: holds a run's files (%s) but no config.ini: restore its config.ini",
             r->dir, work);
      else
        errf(err, errlen, "%s: no run here (no config.ini); give a config to start one", r->dir);
      return -1;
    }
    if (config_load(cfg, a->config_path, a->n_over, a->over, err, errlen) != 0 ||
        machine_check(cfg, err, errlen) != 0)
      return -1;
    if (make_dir(r->dir, err, errlen) != 0) return -1;
  }
  rundir_path(r, ".lock", path);
  r->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (r->lock_fd < 0) {
    errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
    errf(err, errlen, "%s is in use by another 'sowzero train'", r->dir);
    return -1;
  }
  /* Under the lock, what the directory holds. */
  if (rundir_has(r, "config.ini") != r->existed) {
    errf(err, errlen, "%s changed while this trainer started; run the command again", r->dir);
    return -1;
  }
  r->has_ckpt = rundir_has(r, "checkpoint/learner.ckpt");
  if (run_work(r, !r->existed, work, sizeof work, err, errlen) != 0) return -1;
  if (!r->existed && work[0]) {
    errf(err, errlen,
         "%s: holds a run's files (%s) but no config.ini, so it is not taken for a new run: "
         "restore its config.ini, or move the directory away",
         r->dir, work);
    return -1;
  }
  if (r->existed && !r->has_ckpt && work[0]) {
    errf(err, errlen,
         "%s: checkpoint/learner.ckpt is missing but the run has %s; resuming would start again "
         "at iteration 0 over them: restore the checkpoint, or move the directory away and start "
         "a new run",
         r->dir, work);
    return -1;
  }
  return 0;
}

void rundir_close(rundir *r) {
  if (r->lock_fd >= 0) close(r->lock_fd);
  r->lock_fd = -1;
}

int rundir_prepare(const rundir *r, const train_config *c, char *err, size_t errlen) {
  char path[RUNDIR_PATH_MAX];
  static const char *const dirs[] = {"checkpoint", "games"};
  for (int i = 0; i < 2; i++) {
    rundir_path(r, dirs[i], path);
    if (make_dir(path, err, errlen) != 0) return -1;
    afile_remove_stale(path, NULL, 0);
  }
  afile_remove_stale(r->dir, NULL, 0);
  rundir_path(r, "config.ini", path);
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1;
  if (config_write(c, a.f) != 0) {
    if (ferror(a.f)) return afile_fail(&a, err, errlen); /* names the system's reason */
    afile_abort(&a);
    errf(err, errlen, "%s: cannot write the configuration", path);
    return -1;
  }
  return afile_commit(&a, err, errlen);
}

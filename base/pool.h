/* pool: numbered jobs 0..jobs-1 run by a fixed set of workers, each job
 * once, handed out in increasing order from one counter under a mutex.
 *
 * pool_run blocks until every worker has returned. Worker 0 is the calling
 * thread and workers 1..threads-1 are pthreads; if the system refuses some
 * threads, the workers that did start take all the jobs (so callers whose
 * results must not depend on the thread count need nothing special here:
 * only which worker runs a job changes).
 *
 * Per-worker state lives in the caller's ctx, indexed by the worker number
 * that every callback receives; ctx is shared by all workers, so the
 * callbacks lock whatever else they share. The pool itself keeps no state
 * between calls. */
#ifndef SOWZERO_POOL_H
#define SOWZERO_POOL_H

#include <stddef.h>

typedef struct {
  /* Before any job, on the worker's own thread; NULL for none. A non-zero
   * return is an error (message in err) that stops the pool. */
  int (*start)(void *ctx, int worker, char *err, size_t errlen);
  /* Runs job number `job`; non-zero is an error that stops the pool. */
  int (*run)(void *ctx, int worker, int job, char *err, size_t errlen);
  /* After the last job, for every worker whose start was called (even if
   * it failed); NULL for none. */
  void (*finish)(void *ctx, int worker);
  void *ctx;
} pool_work;

/* Runs jobs 0..jobs-1 on `threads` workers (threads >= 1, jobs >= 0).
 * Returns 0 when every job ran; -1 with the first error's message when a
 * start or a job failed: no job is handed out after that (those already
 * running finish), so some jobs never run. */
int pool_run(int threads, int jobs, const pool_work *w, char *err, size_t errlen);

#endif

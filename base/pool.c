/* A counter under a mutex hands out job numbers; the first error stops it. */
#include "base/pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/base.h"

typedef struct {
  const pool_work *w;
  int jobs;
  pthread_mutex_t lock;
  int next, stop;
  char err[512];
} pool;

typedef struct {
  pool *p;
  int worker;
} worker_arg;

static void fail(pool *p, const char *msg) {
  pthread_mutex_lock(&p->lock);
  if (!p->stop) errf(p->err, sizeof p->err, "%s", msg);
  p->stop = 1;
  pthread_mutex_unlock(&p->lock);
}

static void work(pool *p, int worker) {
  const pool_work *w = p->w;
  char err[512] = "";
  if (w->start && w->start(w->ctx, worker, err, sizeof err) != 0) {
    fail(p, err);
  } else {
    for (;;) {
      pthread_mutex_lock(&p->lock);
      int job = p->stop || p->next >= p->jobs ? -1 : p->next++;
      pthread_mutex_unlock(&p->lock);
      if (job < 0) break;
      if (w->run(w->ctx, worker, job, err, sizeof err) != 0) {
        fail(p, err);
        break;
      }
    }
  }
  if (w->finish) w->finish(w->ctx, worker);
}

static void *thread_main(void *arg) {
  worker_arg *a = arg;
  work(a->p, a->worker);
  return NULL;
}

int pool_run(int threads, int jobs, const pool_work *w, char *err, size_t errlen) {
  if (threads < 1 || jobs < 0 || !w || !w->run) {
    errf(err, errlen, "bad pool request: %d threads, %d jobs", threads, jobs);
    return -1;
  }
  pool p = {.w = w, .jobs = jobs};
  pthread_t *th = NULL;
  worker_arg *args = NULL;
  if (threads > 1) {
    th = malloc((size_t)(threads - 1) * sizeof *th);
    args = malloc((size_t)(threads - 1) * sizeof *args);
    if (!th || !args) {
      free(th);
      free(args);
      errf(err, errlen, "out of memory");
      return -1;
    }
  }
  pthread_mutex_init(&p.lock, NULL);
  int started = 0;
  for (int t = 1; t < threads; t++) {
    args[started] = (worker_arg){&p, t};
    /* A refused thread only means fewer workers; the caller is one. */
    if (pthread_create(&th[started], NULL, thread_main, &args[started]) != 0) break;
    started++;
  }
  work(&p, 0);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
  pthread_mutex_destroy(&p.lock);
  free(th);
  free(args);
  if (p.stop) {
    errf(err, errlen, "%s", p.err);
    return -1;
  }
  return 0;
}

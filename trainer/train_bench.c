/* train_bench: the overlapped schedule of a config, in memory, for a
 * fixed time. The workers, the hosted worker and the learner are the run's
 * own (selfplay.c, train_loop.c); only the files, gating and evaluation
 * are left out. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/train_internal.h"

int train_bench(const train_config *c, double seconds, train_bench_result *out, char *err,
                size_t errlen) {
  memset(out, 0, sizeof *out);
  run *r = calloc(1, sizeof *r);
  train_args *a = calloc(1, sizeof *a);
  if (!r || !a) {
    free(r);
    free(a);
    errf(err, errlen, "out of memory");
    return -1;
  }
  r->a = a;
  r->lock_fd = -1;
  pthread_mutex_init(&r->rec_lock, NULL);
  r->cfg = *c;
  r->cfg.deterministic = 0;
  r->cfg.minutes = 0;
  r->cfg.iterations = 0;
  /* Train from the first batch: the benchmark measures the steady state. */
  r->cfg.min_samples = c->batch;
  c = &r->cfg;
  int rc = -1;
  nn_config nc = {c->g.n_features, c->hidden, c->blocks, c->g.n_actions};
  if (train_learner_init(r, err, errlen) != 0) goto out;
  if (!(r->best = nn_create(&nc, c->seed, err, errlen))) goto out;
  if (nn_set_precision(r->best, (nn_precision)c->precision, err, errlen) != 0) goto out;
  if (!(r->buf = replay_create(&c->g, c->window, err, errlen))) goto out;
  if (!(r->slot = netslot_create(r->best, err, errlen))) goto out;
  selfplay_params sp = {.g = &c->g,
                        .search = c->search,
                        .games = c->games_per_thread,
                        .cap_sims = c->cap_sims,
                        .full_frac = c->full_frac,
                        .seed = c->seed,
                        .precision = c->precision,
                        .hosted = c->learner_plays};
  if (!(r->sp = selfplay_start(&sp, c->threads, r->slot, r->buf, &r->counters, NULL, NULL, err,
                               errlen)))
    goto out;
  r->t_start = clock_wall();
  r->cpu_start = clock_process_cpu();
  r->bench_until = r->t_start + seconds;
  /* What the threads would use on an idle machine, whatever else runs. */
  double run0 = clock_process_runnable();
  rc = train_loop_overlapped(r, r->t_start, err, errlen);
  if (rc == 0) {
    double run1 = clock_process_runnable();
    /* Read before the workers stop: their last rounds would count
     * without their wall time. */
    out->seconds = clock_wall() - r->t_start;
    train_time_shares(r, out->share, &out->cores_used);
    out->games = atomic_load(&r->counters.games);
    out->samples = atomic_load(&r->counters.samples);
    out->evals = atomic_load(&r->counters.evals);
    out->steps = r->rc.steps;
    out->threads_runnable = run0 >= 0 && run1 >= 0 ? (run1 - run0) / out->seconds : -1;
  }
  char e[256];
  if (r->sp && selfplay_stop(r->sp, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  r->sp = NULL;
out:
  train_teardown(r);
  free(r);
  free(a);
  return rc;
}

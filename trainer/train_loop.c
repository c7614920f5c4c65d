#include "trainer/train_loop.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

double train_loop_elapsed(const train_loop *L) {
  return L->rc->elapsed + (clock_wall() - L->t_start);
}

void train_loop_shares(const train_loop *L, double share[4], double *cores_used) {
  /* The workers' counters of this session are folded into rc only at a
   * commit; the learner's and gating's go there at once. */
  const run_counters *rc = L->rc;
  double t[4] = {(double)(rc->net_ns + atomic_load(&L->counters->net_ns)),
                 (double)(rc->search_ns + atomic_load(&L->counters->search_ns)),
                 (double)rc->learner_ns, (double)rc->gate_ns};
  double sum = t[0] + t[1] + t[2] + t[3];
  for (int i = 0; i < 4; i++) share[i] = sum > 0 ? t[i] / sum : 0;
  double wall = clock_wall() - L->t_start;
  *cores_used = wall > 0 ? (clock_process_cpu() - L->cpu_start) / wall : 0;
}

/* The budget spent or a stop asked for. */
static int finished(const train_loop *L) {
  const train_config *c = L->c;
  if (L->stop && *L->stop) return 1;
  if (L->bench_until > 0) return clock_wall() >= L->bench_until;
  if (c->minutes > 0 && train_loop_elapsed(L) >= c->minutes * 60) return 1;
  return c->iterations > 0 && L->rc->iteration >= (uint32_t)c->iterations;
}

static int workers_failed(train_loop *L, char *err, size_t errlen) {
  selfplay_stop(L->sp, err, errlen);
  L->sp = NULL;
  return -1;
}

static void status(train_loop *L, const char *phase) {
  if (L->status) L->status(L->ctx, phase);
  machine_tick(&L->machine, L->c, L->say, L->ctx); /* a run's banner lines, the idle watch */
}

static int step(train_loop *L, char *err, size_t errlen) {
  double elapsed = train_loop_elapsed(L);
  float lr = learner_rate(L->c, L->rc, elapsed);
  return learner_step(L->l, L->buf, lr, L->rc, &L->last, &L->avg, err, errlen);
}

static int overlapped(train_loop *L, char *err, size_t errlen) {
  const train_config *c = L->c;
  double last_emit = 0;
  replay_stats rs;
  if (!L->started) {
    replay_get_stats(L->buf, &rs);
    L->added0 = rs.added;
    L->steps0 = L->rc->steps;
    L->started = 1;
  }
  while (!finished(L)) {
    if (L->ld) {
      if (dist_learner_poll(L->ld, err, errlen) != 0) return -1;
      if (dist_learner_orphaned(L->ld)) {
        if (L->say) L->say(L->ctx, "distributed: every actor has left; the run stops here");
        return 0;
      }
    } else if (selfplay_failed(L->sp)) {
      return workers_failed(L, err, errlen);
    }
    replay_get_stats(L->buf, &rs);
    /* Training keeps pace with self-play: samples trained per new sample. */
    double allowed = (double)(rs.added - L->added0) * c->train_ratio / c->batch;
    int ready = rs.count >= c->min_samples &&
                (double)(L->rc->steps - L->steps0) < allowed + (rs.added > L->added0 ? 1 : 0);
    if (clock_wall() - last_emit > 0.5) {
      status(L, ready ? "training" : "self-play");
      last_emit = clock_wall();
    }
    if (!ready && c->learner_plays && !L->ld) {
      if (selfplay_host_round(L->sp) != 0) return workers_failed(L, err, errlen);
      continue;
    }
    if (!ready) {
      struct timespec ts = {0, 20 * 1000000};
      nanosleep(&ts, NULL);
      continue;
    }
    if (step(L, err, errlen) != 0) return -1;
    if (++L->nsteps >= c->steps_per_iter && L->bench_until > 0) {
      memset(&L->avg, 0, sizeof L->avg); /* a benchmark keeps its network */
      L->nsteps = 0;
    } else if (L->nsteps >= c->steps_per_iter) {
      return 1;
    }
  }
  return 0;
}

static int phased(train_loop *L, char *err, size_t errlen) {
  const train_config *c = L->c;
  if (finished(L)) return 0;
  /* The samples steps_per_iter steps consume at train_ratio. */
  uint64_t need = (uint64_t)ceil((double)c->steps_per_iter * c->batch / c->train_ratio);
  replay_stats rs;
  replay_get_stats(L->buf, &rs);
  if ((uint64_t)rs.count + need < (uint64_t)c->min_samples)
    need = (uint64_t)c->min_samples - (uint64_t)rs.count;
  status(L, "self-play");
  int sp = selfplay_phase(L->sp, need, L->stop);
  if (sp < 0) return workers_failed(L, err, errlen);
  if (sp > 0) return 0;            /* stopped */
  double last_emit = clock_wall(); /* the display only */
  status(L, "training");
  for (int k = 0; k < c->steps_per_iter; k++) {
    if (L->stop && *L->stop) return 0;
    if (step(L, err, errlen) != 0) return -1;
    L->nsteps++;
    if (clock_wall() - last_emit > 0.5) {
      status(L, "training");
      last_emit = clock_wall();
    }
  }
  return 1;
}

int train_loop_next(train_loop *L, char *err, size_t errlen) {
  return L->c->deterministic ? phased(L, err, errlen) : overlapped(L, err, errlen);
}

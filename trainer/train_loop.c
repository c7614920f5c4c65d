/* The learner's two schedules.
 *
 * Overlapped (the default): self-play never stops, and the learner trains
 * whenever the buffer has grown enough (learner.train_ratio). With
 * selfplay.learner_plays the learner's thread plays a round of its own
 * self-play worker whenever it would otherwise wait for samples, so that
 * every core works; training and gating come first, since the learner
 * looks for a step to take after every round. Which samples a step draws,
 * and how many games come between two candidates, depend on timing.
 *
 * Phased (run.deterministic = 1): self-play, training and gating take
 * turns. An iteration plays until its games hold the samples that
 * steps_per_iter steps consume at train_ratio (selfplay_phase: games enter
 * the buffer in game-number order), then trains exactly steps_per_iter
 * steps with the learner's seeded RNG, then gates with seeded games. The
 * learning rate follows iterations, never the clock, and the time budget
 * is looked at only between iterations. So the same config, seed and
 * thread count give the same run, at the price of the overlap. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "trainer/train_internal.h"

/* Learning rate: linear warm-up, then cosine from lr to lr_final over the
 * budget (time, else iterations; constant without either). A phased run
 * follows iterations only, so that the clock decides nothing. */
float train_learning_rate(const run *r, double elapsed) {
  const train_config *c = &r->cfg;
  double frac = 0;
  if (c->minutes > 0 && !c->deterministic)
    frac = elapsed / (c->minutes * 60);
  else if (c->iterations > 0)
    frac = (double)r->rc.iteration / c->iterations;
  if (frac > 1) frac = 1;
  double lr = c->lr_final + 0.5 * (c->lr - c->lr_final) * (1 + cos(M_PI * frac));
  if (c->warmup_steps > 0 && r->rc.steps < (uint64_t)c->warmup_steps)
    lr *= (double)(r->rc.steps + 1) / c->warmup_steps;
  return (float)lr;
}

int train_learner_step(run *r, double elapsed, nn_losses *avg, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  const game *g = &c->g;
  int b = c->batch, nf = g->n_features, na = g->n_actions;
  double t0 = clock_thread_cpu();
  nn_losses l;
  int rc = replay_sample_batch(r->buf, &r->rng, r->batch, b);
  for (int i = 0; rc == 0 && i < b; i++) {
    const replay_sample *s = &r->batch[i];
    const game *v = c->n_variants > 1 && s->variant < c->n_variants ? &c->variant[s->variant] : g;
    game_encode(v, &s->pos, r->x + (size_t)i * (size_t)nf); /* row i: n_features */
    r->legal[i] = game_legal(v, &s->pos);
    replay_get_policy(s, r->pi + (size_t)i * (size_t)na, na);
    r->z[i] = s->z;
    r->score[i] = (float)s->margin / c->score_scale;
  }
  if (rc != 0 || nn_train_step(r->cand, r->trainer, r->ws, r->x, r->legal, r->pi, r->z, r->score, b,
                               train_learning_rate(r, elapsed), &l) != 0) {
    errf(err, errlen, "training step failed");
    return -1;
  }
  r->rc.learner_ns += (uint64_t)((clock_thread_cpu() - t0) * 1e9);
  r->rc.steps++;
  r->st.loss = l.total;
  r->st.entropy = l.entropy;
  r->st.elapsed_min = elapsed / 60;
  avg->total += l.total, avg->policy += l.policy, avg->value += l.value, avg->score += l.score;
  avg->entropy += l.entropy, avg->value_sign_acc += l.value_sign_acc > 0 ? l.value_sign_acc : 0;
  return 0;
}

/* The budget spent or a stop asked for. */
static int finished(const run *r, double t_start) {
  const train_config *c = &r->cfg;
  if (r->a->stop && *r->a->stop) return 1;
  if (r->bench_until > 0) return clock_wall() >= r->bench_until;
  if (c->minutes > 0 && train_elapsed(r, t_start) >= c->minutes * 60) return 1;
  return c->iterations > 0 && r->rc.iteration >= (uint32_t)c->iterations;
}

static int workers_failed(run *r, char *err, size_t errlen) {
  selfplay_stop(r->sp, err, errlen);
  r->sp = NULL;
  return -1;
}

int train_loop_overlapped(run *r, double t_start, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  double last_emit = 0;
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  uint64_t added0 = rs.added, steps_at_start = r->rc.steps;
  nn_losses avg = {0};
  int nsteps = 0;
  while (!finished(r, t_start)) {
    if (r->ld) {
      if (train_dist_poll(r, err, errlen) != 0) return -1;
      if (train_dist_orphaned(r)) {
        train_emit(r, 1, "distributed: every actor has left; the run stops here");
        return 0;
      }
    } else if (selfplay_failed(r->sp)) {
      return workers_failed(r, err, errlen);
    }
    replay_get_stats(r->buf, &rs);
    /* Training keeps pace with self-play: samples trained per new sample. */
    double allowed = (double)(rs.added - added0) * c->train_ratio / c->batch;
    int ready = rs.count >= c->min_samples &&
                (double)(r->rc.steps - steps_at_start) < allowed + (rs.added > added0 ? 1 : 0);
    if (clock_wall() - last_emit > 0.5) {
      r->st.phase = ready ? "training" : "self-play";
      train_emit(r, 0, NULL);
      last_emit = clock_wall();
    }
    if (!ready && c->learner_plays && !r->ld) {
      if (selfplay_host_round(r->sp) != 0) return workers_failed(r, err, errlen);
      continue;
    }
    if (!ready) {
      struct timespec ts = {0, 20 * 1000000};
      nanosleep(&ts, NULL);
      continue;
    }
    if (train_learner_step(r, train_elapsed(r, t_start), &avg, err, errlen) != 0) return -1;
    if (++nsteps >= c->steps_per_iter && r->bench_until > 0) {
      memset(&avg, 0, sizeof avg); /* a benchmark keeps its network */
      nsteps = 0;
    } else if (nsteps >= c->steps_per_iter) {
      if (train_end_iteration(r, t_start, &avg, nsteps, err, errlen) != 0) return -1;
      memset(&avg, 0, sizeof avg);
      nsteps = 0;
    }
  }
  return 0;
}

int train_loop_phased(run *r, double t_start, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  /* The samples steps_per_iter steps consume at train_ratio. */
  uint64_t per_iter = (uint64_t)ceil((double)c->steps_per_iter * c->batch / c->train_ratio);
  while (!finished(r, t_start)) {
    replay_stats rs;
    replay_get_stats(r->buf, &rs);
    uint64_t need = per_iter;
    if ((uint64_t)rs.count + need < (uint64_t)c->min_samples)
      need = (uint64_t)c->min_samples - (uint64_t)rs.count;
    r->st.phase = "self-play";
    train_emit(r, 0, NULL);
    int sp = selfplay_phase(r->sp, need, r->a->stop);
    if (sp < 0) return workers_failed(r, err, errlen);
    if (sp > 0) break; /* stopped */
    r->st.phase = "training";
    nn_losses avg = {0};
    double last_emit = clock_wall(); /* the display only */
    for (int k = 0; k < c->steps_per_iter; k++) {
      if (r->a->stop && *r->a->stop) return 0;
      if (train_learner_step(r, train_elapsed(r, t_start), &avg, err, errlen) != 0) return -1;
      if (clock_wall() - last_emit > 0.5) {
        train_emit(r, 0, NULL);
        last_emit = clock_wall();
      }
    }
    if (train_end_iteration(r, t_start, &avg, c->steps_per_iter, err, errlen) != 0) return -1;
  }
  return 0;
}

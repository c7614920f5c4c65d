#include "trainer/learner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int learner_init(learner *l, const train_config *c, char *err, size_t errlen) {
  memset(l, 0, sizeof *l);
  l->c = c;
  nn_config nc = {c->g.n_features, c->hidden, c->blocks, c->g.n_actions};
  if (!(l->cand = nn_create(&nc, c->seed, err, errlen))) return -1;
  nn_train_params tp = nn_train_defaults();
  tp.w.policy = c->policy_w;
  tp.w.value = c->value_w;
  tp.w.score = c->score_w;
  tp.weight_decay = c->weight_decay;
  tp.clip_norm = c->clip_norm;
  if (!(l->trainer = nn_trainer_create(l->cand, &tp, err, errlen))) return -1;
  if (!(l->ws = nn_ws_create(l->cand, c->batch, err, errlen))) return -1;
  if (c->learner_threads > 1 &&
      nn_trainer_set_threads(l->trainer, l->cand, c->learner_threads, c->batch, err, errlen) != 0)
    return -1;
  rng_seed(&l->rng, c->seed, 0x6c6561726eULL);
  int b = c->batch, nf = c->g.n_features, na = c->g.n_actions;
  l->batch = malloc(sizeof *l->batch * (size_t)b);
  l->x = malloc(sizeof *l->x * (size_t)b * (size_t)nf);
  l->pi = malloc(sizeof *l->pi * (size_t)b * (size_t)na);
  l->z = malloc(sizeof *l->z * (size_t)b);
  l->score = malloc(sizeof *l->score * (size_t)b);
  l->legal = malloc(sizeof *l->legal * (size_t)b);
  if (!l->batch || !l->x || !l->pi || !l->z || !l->score || !l->legal) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

void learner_free(learner *l) {
  nn_free(l->cand);
  nn_trainer_free(l->trainer);
  nn_ws_free(l->ws);
  free(l->batch);
  free(l->x);
  free(l->pi);
  free(l->z);
  free(l->score);
  free(l->legal);
  memset(l, 0, sizeof *l);
}

float learner_rate(const train_config *c, const run_counters *rc, double elapsed) {
  double frac = 0;
  if (c->minutes > 0 && !c->deterministic)
    frac = elapsed / (c->minutes * 60);
  else if (c->iterations > 0)
    frac = (double)rc->iteration / c->iterations;
  if (frac > 1) frac = 1;
  double lr = c->lr_final + 0.5 * (c->lr - c->lr_final) * (1 + cos(M_PI * frac));
  if (c->warmup_steps > 0 && rc->steps < (uint64_t)c->warmup_steps)
    lr *= (double)(rc->steps + 1) / c->warmup_steps;
  return (float)lr;
}

int learner_step(learner *l, replay *buf, float lr, run_counters *rc, nn_losses *last,
                 nn_losses *avg, char *err, size_t errlen) {
  const train_config *c = l->c;
  const game *g = &c->g;
  int b = c->batch, nf = g->n_features, na = g->n_actions;
  double t0 = clock_thread_cpu();
  nn_losses x;
  int bad = replay_sample_batch(buf, &l->rng, l->batch, b);
  for (int i = 0; !bad && i < b; i++) {
    const replay_sample *s = &l->batch[i];
    const game *v = c->n_variants > 1 && s->variant < c->n_variants ? &c->variant[s->variant] : g;
    game_encode(v, &s->pos, l->x + (size_t)i * (size_t)nf); /* row i: n_features */
    l->legal[i] = game_legal(v, &s->pos);
    replay_get_policy(s, l->pi + (size_t)i * (size_t)na, na);
    l->z[i] = s->z;
    l->score[i] = (float)s->margin / c->score_scale;
  }
  if (bad || nn_train_step(l->cand, l->trainer, l->ws, l->x, l->legal, l->pi, l->z, l->score, b, lr,
                           &x) != 0) {
    errf(err, errlen, "training step failed");
    return -1;
  }
  rc->learner_ns += (uint64_t)((clock_thread_cpu() - t0) * 1e9);
  rc->steps++;
  *last = x;
  avg->total += x.total, avg->policy += x.policy, avg->value += x.value, avg->score += x.score;
  avg->entropy += x.entropy, avg->value_sign_acc += x.value_sign_acc > 0 ? x.value_sign_acc : 0;
  return 0;
}

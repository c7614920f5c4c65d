/* Gumbel root search (Danihelka, Guez, Schrittwieser, Silver: "Policy
 * improvement by planning with Gumbel", ICLR 2022).
 *
 * At the root, m actions are drawn without replacement by Gumbel-top-k over
 * the prior logits, and the simulation budget is split among them by
 * sequential halving: each phase gives every remaining action the same
 * number of visits, then keeps the better half by g + logits + sigma(q).
 * The visit schedule is produced one simulation at a time, so it fits the
 * one-leaf-per-search batched driver: each simulation takes the best-scoring
 * action whose visit count (in this search) equals the current level.
 *
 * Below the root the deterministic rule of the paper picks
 * argmax_a pi'(a) - N(a) / (1 + sum_b N(b)), where pi' = softmax(logits +
 * sigma(completed Q)) is the improved policy at that node. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "search/mcts_internal.h"

/* Completed Q at node x, rescaled to [0, 1] and mapped through sigma:
 * visited (or proven) children keep their mean value for x's mover; the
 * others get the mixed value estimate v_mix of the paper (its eq. 33). */
void mcts_completed_q(const mcts *m, uint32_t x, float *sigma) {
  const mcts_node *nx = &m->nodes[x];
  const mcts_node *c = &m->nodes[nx->child];
  int k = nx->nchild;
  float q[GAME_MAX_ACTIONS];
  double sum_n = 0, sum_pq = 0, sum_p = 0;
  uint32_t max_n = 0;
  for (int i = 0; i < k; i++) {
    float pr = (x == 0 && m->root_noised) ? m->clean_prior[i] : c[i].prior;
    if (c[i].n > max_n) max_n = c[i].n;
    if (c[i].n || node_proof(&c[i])) {
      q[i] = node_q(&c[i]);
      if (c[i].n) {
        sum_n += c[i].n;
        sum_pq += pr * q[i];
        sum_p += pr;
      }
    }
  }
  double v_hat = nx->v;
  double v_mix = sum_p > 0 ? (v_hat + sum_n * sum_pq / sum_p) / (1.0 + sum_n) : v_hat;
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (int i = 0; i < k; i++) {
    if (!(c[i].n || node_proof(&c[i]))) q[i] = (float)v_mix;
    if (q[i] < lo) lo = q[i];
    if (q[i] > hi) hi = q[i];
  }
  float scale = (m->p.gumbel_c_visit + (float)max_n) * m->p.gumbel_c_scale;
  /* The paper's min-max rescaling turns any spread of values, however
   * small, into the full scale: in a decided position, where every action
   * wins (or loses), that is noise made into a one-hot target. A span floor
   * keeps differences smaller than it small. */
  float span = hi - lo;
  if (span < m->p.gumbel_q_span) span = m->p.gumbel_q_span;
  if (span < 1e-8f) span = 1e-8f;
  for (int i = 0; i < k; i++) sigma[i] = scale * (q[i] - lo) / span;
}

static float logit_of(const mcts *m, uint32_t x, int i) {
  const mcts_node *c = &m->nodes[m->nodes[x].child + i];
  float pr = (x == 0 && m->root_noised) ? m->clean_prior[i] : c->prior;
  return logf(pr > 1e-30f ? pr : 1e-30f);
}

void mcts_gumbel_begin(mcts *m) {
  memset(&m->gs, 0, sizeof m->gs);
  m->gs.active = m->p.gumbel;
}

/* Draws the Gumbel noise and sets up the halving schedule; needs the root
 * expanded. The budget is what is left of the search's simulations. */
static void gumbel_start(mcts *m) {
  mcts_gumbel_state *s = &m->gs;
  const mcts_node *root = &m->nodes[0];
  int k = root->nchild;
  for (int i = 0; i < k; i++) {
    double u = rng_double(&m->rng);
    s->g[i] = m->p.noise ? (float)-log(-log(u > 1e-300 ? u : 1e-300)) : 0.0f;
    s->local[i] = 0;
  }
  s->considered = m->p.gumbel_m < k ? m->p.gumbel_m : k;
  s->budget = m->budget - m->done_sims;
  if (s->budget < 1) s->budget = 1;
  int phases = 0;
  while ((1 << phases) < s->considered) phases++;
  s->phases = phases;
  s->level = 0;
  s->width = s->considered;
  if (s->considered <= 1) {
    s->rounds_left = 1 << 30;
  } else {
    int r = s->budget / (phases * s->width);
    s->rounds_left = r > 1 ? r : 1;
  }
  s->left_in_round = s->width;
}

/* One step of the visit schedule: `width` simulations per level, then the
 * level rises; after a phase's rounds the width halves (down to 2). */
static void schedule_step(mcts_gumbel_state *s) {
  if (--s->left_in_round > 0) return;
  s->level++;
  if (--s->rounds_left <= 0 && s->considered > 1) {
    s->width = s->width / 2 > 2 ? s->width / 2 : 2;
    int r = s->budget / (s->phases * s->width);
    s->rounds_left = r > 1 ? r : 1;
  }
  s->left_in_round = s->width;
}

int mcts_gumbel_root_select(mcts *m) {
  mcts_gumbel_state *s = &m->gs;
  if (s->considered == 0) gumbel_start(m);
  const mcts_node *root = &m->nodes[0];
  float sigma[GAME_MAX_ACTIONS];
  mcts_completed_q(m, 0, sigma);
  int best = -1;
  float best_score = -FLT_MAX;
  for (int i = 0; i < root->nchild; i++) {
    if (s->local[i] != (uint32_t)s->level) continue;
    float score = s->g[i] + logit_of(m, 0, i) + sigma[i];
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  if (best < 0) {
    /* No action at this level (the schedule ran past the considered set):
     * the least visited of the best-scoring ones. */
    for (int i = 0; i < root->nchild; i++) {
      float score = s->g[i] + logit_of(m, 0, i) + sigma[i];
      if (best < 0 || s->local[i] < s->local[best] ||
          (s->local[i] == s->local[best] && score > best_score)) {
        best = i;
        best_score = score;
      }
    }
  }
  s->local[best]++;
  schedule_step(s);
  return best;
}

int mcts_gumbel_nonroot_select(const mcts *m, uint32_t x) {
  const mcts_node *nx = &m->nodes[x];
  const mcts_node *c = &m->nodes[nx->child];
  int k = nx->nchild;
  float sigma[GAME_MAX_ACTIONS], z[GAME_MAX_ACTIONS], zmax = -FLT_MAX, sum = 0;
  mcts_completed_q(m, x, sigma);
  for (int i = 0; i < k; i++) {
    if (node_proof(&c[i]) == MCTS_PROVEN_WIN) return i;
    z[i] = logit_of(m, x, i) + sigma[i];
    if (z[i] > zmax) zmax = z[i];
  }
  for (int i = 0; i < k; i++) {
    z[i] = expf(z[i] - zmax);
    sum += z[i];
  }
  float total = 0;
  for (int i = 0; i < k; i++) total += (float)c[i].n;
  int best = 0;
  float best_score = -FLT_MAX;
  for (int i = 0; i < k; i++) {
    float score = z[i] / sum - (float)c[i].n / (1.0f + total);
    if (m->p.solver && node_proof(&c[i]) == MCTS_PROVEN_LOSS) score -= 10.0f;
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

/* The halving winner: among the most visited actions of this search, the
 * best g + logits + sigma(q); proven losses only if nothing else is left. */
int mcts_gumbel_best(const mcts *m) {
  const mcts_gumbel_state *s = &m->gs;
  const mcts_node *root = &m->nodes[0];
  if (!root->child || s->considered == 0) return -1;
  const mcts_node *c = &m->nodes[root->child];
  float sigma[GAME_MAX_ACTIONS];
  mcts_completed_q(m, 0, sigma);
  int best = -1;
  for (int pass = 0; pass < 2 && best < 0; pass++) {
    uint32_t max_local = 0;
    for (int i = 0; i < root->nchild; i++)
      if ((pass || node_proof(&c[i]) != MCTS_PROVEN_LOSS) && s->local[i] > max_local)
        max_local = s->local[i];
    float best_score = -FLT_MAX;
    for (int i = 0; i < root->nchild; i++) {
      if (s->local[i] != max_local) continue;
      if (!pass && node_proof(&c[i]) == MCTS_PROVEN_LOSS) continue;
      float score = s->g[i] + logit_of(m, 0, i) + sigma[i];
      if (best < 0 || score > best_score) {
        best_score = score;
        best = i;
      }
    }
  }
  return best;
}

#include "trainer/gating.h"

#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/openings.h"
#include "arena/ratings.h"
#include "base/base.h"
#include "search/agent.h"
#include "search/evaluator_nn.h"

/* Score, interval and Elo as the arena reports them. */
static void summarize(match_result *r) {
  rating_summary m = rating_summarize(r->wins, r->draws, r->losses);
  r->games = m.games;
  r->score = m.score;
  r->score_lo = m.score_lo;
  r->score_hi = m.score_hi;
  r->elo = m.elo;
  r->elo_lo = m.elo_lo;
  r->elo_hi = m.elo_hi;
}

static void tally(match_result *r, int outcome) {
  if (outcome > 0)
    r->wins++;
  else if (outcome == 0)
    r->draws++;
  else
    r->losses++;
}

/* The game pair k plays. */
static const game *pair_game(const game *g, const match_params *p, int pair) {
  return p->n_variants > 1 ? &p->variants[pair % p->n_variants] : g;
}

/* ---- Network against network, batched ---------------------------------------------
 * Game 2k and 2k+1 share opening k; in game 2k the candidate moves first.
 * Each net has a batched search over all games; both searches follow every
 * move (mcts_advance), and in a round each game is searched only by the
 * side to move. */

typedef struct {
  game_pos pos;
  game_hist *hist;
  int cand_side; /* which player the candidate is */
  int done;
} gate_game;

int gate_match(const game *g, const nn_net *cand, const nn_net *best, const mcts_params *search,
               const match_params *p, match_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  int pairs = (p->games + 1) / 2, n = 2 * pairs;
  mcts_params sp = *search;
  sp.noise = 0;
  sp.temp_plies = 0;
  sp.temp_final = 0;
  sp.sims = p->sims;
  sp.batch = n;
  sp.gumbel = 0;
  mcts_nn *ev[2] = {NULL, NULL};
  mcts_batch *b[2] = {NULL, NULL};
  gate_game *gg = calloc((size_t)n, sizeof *gg);
  uint8_t *active = calloc((size_t)n, 1);
  int rc = -1;
  if (!gg || !active) {
    errf(err, errlen, "out of memory");
    goto done;
  }
  const nn_net *nets[2] = {cand, best};
  for (int k = 0; k < 2; k++) {
    if (!(ev[k] = mcts_nn_create(g, nets[k], n, err, errlen))) goto done;
    mcts_eval e = mcts_nn_eval(ev[k]);
    if (!(b[k] = mcts_batch_create(g, &sp, &e, n, p->seed + (uint64_t)k, err, errlen))) goto done;
  }
  for (int i = 0; i < n; i++) {
    gate_game *x = &gg[i];
    if (!(x->hist = malloc(sizeof *x->hist))) {
      errf(err, errlen, "out of memory");
      goto done;
    }
    const game *vg = pair_game(g, p, i / 2);
    opening_line op;
    opening_random(vg, p->opening_plies, p->seed, i / 2, &op, &x->pos, x->hist);
    /* The candidate plays the side to move after the opening in even games. */
    x->cand_side = (i % 2 == 0) ? x->pos.mover : 1 - x->pos.mover;
    x->done = x->pos.status != GAME_ONGOING;
    for (int k = 0; k < 2 && !x->done; k++) {
      mcts *m = mcts_batch_search(b[k], i);
      if (p->n_variants > 1 && mcts_batch_set_game(b[k], i, vg, err, errlen) != 0) goto done;
      mcts_reset(m);
      if (mcts_set_root(m, &x->pos, x->hist, err, errlen) != 0) goto done;
    }
  }
  int pairs_done = 0;
  for (;;) {
    int live = 0;
    for (int k = 0; k < 2; k++) {
      /* k = 0: the candidate's turns; k = 1: the best's. */
      int any = 0;
      for (int i = 0; i < n; i++) {
        active[i] = !gg[i].done && ((gg[i].pos.mover == gg[i].cand_side) == (k == 0));
        any |= active[i];
      }
      if (any && mcts_batch_run(b[k], active, p->sims, err, errlen) < 0) goto done;
      for (int i = 0; i < n; i++) {
        if (!active[i]) continue;
        gate_game *x = &gg[i];
        int a = mcts_choose_action(mcts_batch_search(b[k], i));
        game_step(pair_game(g, p, i / 2), &x->pos, x->hist, a);
        for (int j = 0; j < 2; j++) {
          int r = mcts_advance(mcts_batch_search(b[j], i), a, err, errlen);
          if (r < 0) goto done;
        }
        if (x->pos.status != GAME_ONGOING) x->done = 1;
      }
    }
    /* Results of finished pairs, in order, feed the SPRT. */
    while (pairs_done < pairs && gg[2 * pairs_done].done && gg[2 * pairs_done + 1].done) {
      for (int j = 0; j < 2; j++) {
        gate_game *x = &gg[2 * pairs_done + j];
        tally(out, game_outcome(&x->pos, x->cand_side));
      }
      pairs_done++;
      out->llr = rating_sprt_llr(out->wins, out->draws, out->losses, p->elo0, p->elo1);
      out->sprt_verdict = rating_sprt_verdict(out->llr, p->alpha, p->beta);
      if (p->sprt && out->sprt_verdict != 0) break;
    }
    if (p->sprt && out->sprt_verdict != 0) break;
    for (int i = 0; i < n; i++) live |= !gg[i].done;
    if (!live) break;
  }
  summarize(out);
  rc = 0;
done:
  for (int k = 0; k < 2; k++) {
    mcts_batch_free(b[k]);
    mcts_nn_free(ev[k]);
  }
  if (gg)
    for (int i = 0; i < n; i++) free(gg[i].hist);
  free(gg);
  free(active);
  return rc;
}

/* ---- Agents by spec -----------------------------------------------------------------
 * The games themselves are the arena's (arena_play); only the pairing of
 * openings and seats is done here: in each pair, spec_a plays South once
 * and North once. */

int anchor_match(const game *g, const char *spec_a, const char *spec_b, const match_params *p,
                 match_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  /* One pair of agents per variant, made for its rules. */
  int nv = p->n_variants > 1 ? p->n_variants : 1;
  agent *a[GAME_MAX_VARIANTS] = {NULL}, *b[GAME_MAX_VARIANTS] = {NULL};
  game_hist *h = malloc(sizeof *h);
  arena_game *rec = malloc(sizeof *rec);
  int rc = -1;
  if (!h || !rec) {
    errf(err, errlen, "out of memory");
    goto done;
  }
  for (int v = 0; v < nv; v++)
    if (!(a[v] = agent_create(pair_game(g, p, v), spec_a, p->seed, err, errlen)) ||
        !(b[v] = agent_create(pair_game(g, p, v), spec_b, p->seed + 1, err, errlen)))
      goto done;
  for (int pair = 0; pair < (p->games + 1) / 2; pair++) {
    const game *vg = pair_game(g, p, pair);
    agent *pa = a[pair % nv], *pb = b[pair % nv];
    opening_line op;
    game_pos pos;
    opening_random(vg, p->opening_plies, p->seed, pair, &op, &pos, h);
    for (int a_south = 1; a_south >= 0; a_south--) {
      agent_reset(pa);
      agent_reset(pb);
      if (arena_play(vg, a_south ? pa : pb, a_south ? pb : pa, &op, rec, err, errlen) != 0)
        goto done;
      tally(out, game_outcome(&rec->final, a_south ? GAME_SOUTH : GAME_NORTH));
    }
  }
  summarize(out);
  out->llr = rating_sprt_llr(out->wins, out->draws, out->losses, p->elo0, p->elo1);
  rc = 0;
done:
  for (int v = 0; v < nv; v++) {
    agent_free(a[v]);
    agent_free(b[v]);
  }
  free(h);
  free(rec);
  return rc;
}

int gate_promotes(const match_result *m, int sprt, double threshold) {
  if (sprt && m->sprt_verdict != 0) return m->sprt_verdict > 0;
  return m->score >= threshold;
}

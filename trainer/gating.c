#include "trainer/gating.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "search/evaluator_nn.h"

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
    const game *vg = match_pair_game(g, p, i / 2);
    opening_line op;
    match_pair_start(g, p, i / 2, &op, &x->pos, x->hist);
    /* The candidate plays the side to move after the opening in even games. */
    x->cand_side = match_a_south(i) ? x->pos.mover : 1 - x->pos.mover;
    x->done = x->pos.status != GAME_ONGOING;
    for (int k = 0; k < 2 && !x->done; k++) {
      mcts *m = mcts_batch_search(b[k], i);
      if (p->n_variants > 1 && mcts_batch_set_game(b[k], i, vg, err, errlen) != 0) goto done;
      mcts_reset(m);
      if (mcts_set_root(m, &x->pos, x->hist, err, errlen) != 0) goto done;
    }
  }
  int pairs_done = 0, stopped = 0;
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
        game_step(match_pair_game(g, p, i / 2), &x->pos, x->hist, a);
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
        match_count(&out->wins, &out->draws, &out->losses, game_outcome(&x->pos, x->cand_side));
      }
      pairs_done++;
      if ((stopped = match_pair_end(out, p))) break;
    }
    if (stopped) break;
    for (int i = 0; i < n; i++) live |= !gg[i].done;
    if (!live) break;
  }
  match_summarize(out);
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

int gate_promotes(const match_result *m, int sprt, double threshold) {
  if (sprt && m->sprt_verdict != 0) return m->sprt_verdict > 0;
  return m->score >= threshold;
}

/* ---- The gate ------------------------------------------------------------------------ */

int gate_decide(const train_config *c, unsigned iteration, nn_net *cand, const nn_net *best,
                gate_outcome *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->mode = c->gating;
  if (c->gating == GATE_OFF) {
    out->promoted = 1;
    snprintf(out->summary, sizeof out->summary, "latest (gating off)");
    return 0;
  }
  match_params mp = {.games = c->gate_games,
                     .sims = c->gate_sims,
                     .opening_plies = 4,
                     .seed = c->seed ^ (0x67617465ULL + iteration),
                     .sprt = c->gating == GATE_SPRT,
                     .elo0 = 0,
                     .elo1 = c->sprt_elo1,
                     .alpha = c->sprt_alpha,
                     .beta = c->sprt_beta,
                     .variants = c->variant,
                     .n_variants = c->n_variants};
  double t0 = clock_thread_cpu();
  if (nn_set_precision(cand, (nn_precision)c->precision, err, errlen) != 0) return -1;
  if (gate_match(&c->g, cand, best, &c->search, &mp, &out->m, err, errlen) != 0) return -1;
  out->ns = (uint64_t)((clock_thread_cpu() - t0) * 1e9);
  out->promoted = gate_promotes(&out->m, c->gating == GATE_SPRT, c->gate_threshold);
  snprintf(out->summary, sizeof out->summary, "%s %.1f%% (%+.0f Elo, %d games)",
           out->promoted ? "promoted" : "rejected", 100 * out->m.score, out->m.elo, out->m.games);
  return 0;
}

int gate_promote(nn_net *best, const nn_net *cand, const nn_meta *meta, const char *best_path,
                 netslot *slot, char *err, size_t errlen) {
  nn_copy(best, cand);
  if (nn_save(best, meta, best_path, err, errlen) != 0) return -1;
  if (slot) netslot_publish(slot, best);
  return 0;
}

void gate_json(json_writer *w, const gate_outcome *g) {
  json_begin_object(w, "gating");
  if (g->mode == GATE_OFF) {
    json_put_string(w, "mode", "off");
    json_put_bool(w, "promoted", 1);
  } else {
    const match_result *m = &g->m;
    json_put_string(w, "mode", g->mode == GATE_SPRT ? "sprt" : "threshold");
    json_put_int(w, "games", m->games);
    json_put_int(w, "wins", m->wins);
    json_put_int(w, "draws", m->draws);
    json_put_int(w, "losses", m->losses);
    json_put_fixed(w, "score", m->score, 4);
    json_put_fixed(w, "elo", m->elo, 1);
    json_put_fixed(w, "llr", m->llr, 3);
    json_put_bool(w, "promoted", g->promoted);
  }
  json_end_object(w);
}

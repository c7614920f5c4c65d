/* gating: the gatekeeper — whether a candidate replaces the best network,
 * and the promotion when it does.
 *
 * gate_decide plays the candidate against the best per the config's
 * [gating] (or promotes at once with gating off) and decides
 * (gate_promotes); gate_promote makes a promoted network the best:
 * best.weights rewritten and the self-play workers' slot published.
 *
 * gate_match is the match itself: paired games (arena/match.h: each
 * opening with both colours, variants, tally, SPRT), both sides searching
 * with the same settings and no noise, all games advanced together with
 * batched evaluation; it stops early when the SPRT decides. Nothing here
 * keeps state between calls; the caller's thread does all the work. */
#ifndef SOWZERO_GATING_H
#define SOWZERO_GATING_H

#include <stddef.h>
#include <stdint.h>

#include "arena/match.h"
#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"
#include "trainer/config.h"
#include "trainer/netslot.h"

/* Candidate against best. search gives the search settings (noise is
 * switched off; temperature 0 after the opening). */
int gate_match(const game *g, const nn_net *cand, const nn_net *best, const mcts_params *search,
               const match_params *p, match_result *out, char *err, size_t errlen);

/* Whether a gating result promotes the candidate: with the SPRT (sprt = 1)
 * its verdict when it decided; otherwise, and when the SPRT is still
 * undecided after all the games (as Leela Zero's gating did), the score
 * against the threshold. */
int gate_promotes(const match_result *m, int sprt, double threshold);

/* A streak of this many rejections is reported as a run that has stopped
 * improving (docs/TRAINING.md, "When gating stops promoting"). */
#define GATE_STUCK_STREAK 20

/* One iteration's gate. */
typedef struct {
  int mode;         /* the config's GATE_* */
  int promoted;     /* 1: the candidate is to become the best */
  match_result m;   /* the match (gating on) */
  uint64_t ns;      /* the thread's CPU time it took */
  char summary[96]; /* "promoted 58.0% (+56 Elo, 40 games)" */
} gate_outcome;

/* The decision for candidate cand of iteration `iteration` against best,
 * by c's [gating] and seed. cand is converted to c's precision first
 * (training leaves its bf16 copy stale). */
int gate_decide(const train_config *c, unsigned iteration, nn_net *cand, const nn_net *best,
                gate_outcome *out, char *err, size_t errlen);
/* The promotion: cand copied into best, best written to best_path
 * (atomically, with meta) and published to slot. */
int gate_promote(nn_net *best, const nn_net *cand, const nn_meta *meta, const char *best_path,
                 netslot *slot, char *err, size_t errlen);
/* metrics.jsonl's "gating" member of an outcome (docs/TRAINING.md). */
void gate_json(json_writer *w, const gate_outcome *g);

#endif

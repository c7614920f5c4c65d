#include "arena/match.h"

#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/ratings.h"
#include "base/base.h"

const game *match_pair_game(const game *g, const match_params *p, int pair) {
  return p->n_variants > 1 ? &p->variants[pair % p->n_variants] : g;
}

void match_pair_start(const game *g, const match_params *p, int pair, opening_line *op,
                      game_pos *pos, game_hist *h) {
  opening_random(match_pair_game(g, p, pair), p->opening_plies, p->seed, pair, op, pos, h);
}

int match_a_south(int k) { return k % 2 == 0; }

void match_count(int *wins, int *draws, int *losses, int outcome) {
  *wins += outcome > 0;
  *draws += outcome == 0;
  *losses += outcome < 0;
}

int match_pair_end(match_result *r, const match_params *p) {
  r->llr = rating_sprt_llr(r->wins, r->draws, r->losses, p->elo0, p->elo1);
  r->sprt_verdict = rating_sprt_verdict(r->llr, p->alpha, p->beta);
  return p->sprt && r->sprt_verdict != 0;
}

void match_summarize(match_result *r) {
  rating_summary m = rating_summarize(r->wins, r->draws, r->losses);
  r->games = m.games;
  r->score = m.score;
  r->score_lo = m.score_lo;
  r->score_hi = m.score_hi;
  r->elo = m.elo;
  r->elo_lo = m.elo_lo;
  r->elo_hi = m.elo_hi;
}

int match_agents(const game *g, agent *const *a, agent *const *b, const match_params *p,
                 match_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  int nv = p->n_variants > 1 ? p->n_variants : 1;
  game_hist *h = malloc(sizeof *h);
  arena_game *rec = malloc(sizeof *rec);
  int rc = -1;
  if (!h || !rec) {
    errf(err, errlen, "out of memory");
    goto done;
  }
  for (int pair = 0; pair < (p->games + 1) / 2; pair++) {
    const game *vg = match_pair_game(g, p, pair);
    agent *pa = a[pair % nv], *pb = b[pair % nv];
    opening_line op;
    game_pos pos;
    match_pair_start(g, p, pair, &op, &pos, h);
    for (int k = 2 * pair; k < 2 * pair + 2; k++) {
      int a_south = match_a_south(k);
      agent_reset(pa);
      agent_reset(pb);
      if (arena_play(vg, a_south ? pa : pb, a_south ? pb : pa, &op, rec, err, errlen) != 0)
        goto done;
      match_count(&out->wins, &out->draws, &out->losses,
                  game_outcome(&rec->final, a_south ? GAME_SOUTH : GAME_NORTH));
    }
    if (match_pair_end(out, p)) break;
  }
  match_summarize(out);
  rc = 0;
done:
  free(h);
  free(rec);
  return rc;
}

int match_specs(const game *g, const char *spec_a, const char *spec_b, const match_params *p,
                match_result *out, char *err, size_t errlen) {
  int nv = p->n_variants > 1 ? p->n_variants : 1, rc = -1;
  agent *a[GAME_MAX_VARIANTS] = {NULL}, *b[GAME_MAX_VARIANTS] = {NULL};
  for (int v = 0; v < nv; v++)
    if (!(a[v] = agent_make(match_pair_game(g, p, v), spec_a, &(agent_params){p->seed, p->egdb_dir},
                            err, errlen)) ||
        !(b[v] = agent_make(match_pair_game(g, p, v), spec_b,
                            &(agent_params){p->seed + 1, p->egdb_dir}, err, errlen)))
      goto done;
  rc = match_agents(g, a, b, p, out, err, errlen);
done:
  for (int v = 0; v < nv; v++) {
    agent_free(a[v]);
    agent_free(b[v]);
  }
  return rc;
}

/* Openings: the arena's level book and gating's random openings. */
#include "arena/openings.h"

#include <stdlib.h>

#include "base/base.h"
#include "search/alphabeta.h"

/* Plays up to n uniformly random plies from the start into o, p and h;
 * fewer if the game ends. */
static void random_plies(const game *g, rng_t *r, int n, opening_line *o, game_pos *p,
                         game_hist *h) {
  game_start(g, p);
  game_hist_reset(h, p);
  o->n = 0;
  while (o->n < n && p->status == GAME_ONGOING) {
    int a = game_random_action(r, game_legal(g, p));
    game_step(g, p, h, a);
    o->moves[o->n++] = (uint8_t)a;
  }
}

int opening_level_book(const game *g, int k, int plies, int depth, int margin, uint64_t seed,
                       opening_line *out, char *err, size_t errlen) {
  return opening_level_book_report(g, k, plies, depth, margin, seed, out, NULL, NULL, err, errlen);
}

int opening_level_book_report(const game *g, int k, int plies, int depth, int margin, uint64_t seed,
                              opening_line *out, opening_progress_fn fn, void *ctx, char *err,
                              size_t errlen) {
  if (k < 1 || plies < 1 || plies > OPENING_MAX_PLIES) {
    errf(err, errlen, "bad opening book request: %d openings of up to %d plies (1..%d)", k, plies,
         OPENING_MAX_PLIES);
    return -1;
  }
  ab_params ap = ab_defaults();
  ap.depth = depth;
  ap.tt_mb = 4;
  ab_search *s = ab_create(g, &ap, err, errlen);
  game_hist *h = malloc(sizeof *h);
  game_pos *seen = malloc((size_t)k * sizeof *seen);
  /* The positions found, by their hash: a large book stays linear. */
  size_t cap = 16;
  while (cap < 2 * (size_t)k) cap *= 2;
  int *slot = calloc(cap, sizeof *slot); /* index + 1 into seen; 0 empty */
  if (!s || !h || !seen || !slot) {
    ab_free(s);
    free(h);
    free(seen);
    free(slot);
    if (s) errf(err, errlen, "out of memory");
    return -1;
  }
  rng_t r;
  rng_seed(&r, seed, 0x626f6f6b);
  /* Gives up when the draws stop finding new openings (the plies reach
   * fewer distinct level positions than asked), not after hours. */
  int found = 0, tries = 0, since_new = 0, stall = 20000;
  while (found < k && tries++ < 200 * k + 1000 && since_new++ < stall) {
    opening_line o;
    game_pos p;
    random_plies(g, &r, 1 + (int)rng_below(&r, (uint32_t)plies), &o, &p, h);
    if (p.status != GAME_ONGOING) continue;
    size_t at = (size_t)(p.hash ^ p.hash >> 29) & (cap - 1);
    int dup = 0;
    for (; slot[at] && !dup; at = (at + 1) & (cap - 1))
      dup = game_pos_equal(&seen[slot[at] - 1], &p);
    if (dup) continue;
    ab_result res;
    ab_clear(s);
    if (ab_run(s, &p, h, &res, err, errlen)) break;
    int keep = abs(res.score) <= margin;
    if (keep) {
      seen[found] = p;
      slot[at] = found + 1;
      out[found++] = o;
      since_new = 0;
    }
    if (fn) fn(ctx, found, k, tries);
  }
  ab_free(s);
  free(h);
  free(seen);
  free(slot);
  if (found < k) {
    errf(err, errlen,
         "found only %d of %d openings within %d of level in %d draws%s (try fewer openings, "
         "more plies or a wider margin)",
         found, k, margin, tries - 1,
         since_new > stall ? ", the last 20000 without a new one" : "");
    return -1;
  }
  return 0;
}

void opening_random(const game *g, int plies, uint64_t seed, int index, opening_line *out,
                    game_pos *p, game_hist *h) {
  rng_t r;
  rng_seed(&r, seed, 0x6f70656eULL + (uint64_t)index);
  if (plies > OPENING_MAX_PLIES) plies = OPENING_MAX_PLIES; /* out->moves holds that many */
  for (int attempt = 0;; attempt++) {
    random_plies(g, &r, plies, out, p, h);
    if (p->status == GAME_ONGOING || attempt > 100) return;
  }
}

/* Where a finished game goes: counted (the counters and their metrics
 * member), then handed to the sink; the sink of a run in one process. */
#include <stdio.h>

#include "base/json.h"
#include "trainer/records.h"
#include "trainer/selfplay_internal.h"

void selfplay_count_game(selfplay_counters *c, const game_pos *end, int first_mover,
                         uint64_t samples) {
  atomic_fetch_add(&c->plies, (uint64_t)end->ply);
  atomic_fetch_add(&c->samples, samples);
  int r = game_outcome(end, first_mover);
  atomic_fetch_add(&c->wins[r > 0 ? 0 : r == 0 ? 1 : 2], 1);
  atomic_fetch_add(&c->ends[end->end_reason < GAME_END_COUNT ? end->end_reason : 0], 1);
  /* Last: a reader that sees the game counted sees all of it. */
  atomic_fetch_add(&c->games, 1);
}

void selfplay_json(const selfplay_counters *c, uint64_t games, selfplay_tally *seen,
                   json_writer *jw) {
  uint64_t plies = atomic_load(&c->plies), w[3], e[GAME_END_COUNT], nw = 0, ne = 0;
  for (int i = 0; i < 3; i++) nw += w[i] = atomic_load(&c->wins[i]) - seen->wins[i];
  for (int i = 0; i < GAME_END_COUNT; i++) ne += e[i] = atomic_load(&c->ends[i]) - seen->ends[i];
  uint64_t n = games - seen->games;
  json_begin_object(jw, "selfplay");
  json_put_uint(jw, "games", (unsigned long long)n);
  json_put_fixed(jw, "plies_mean", n ? (double)(plies - seen->plies) / (double)n : 0, 1);
  json_begin_object(jw, "first_mover");
  static const char *const result[3] = {"win", "draw", "loss"};
  for (int i = 0; i < 3; i++) json_put_fixed(jw, result[i], nw ? (double)w[i] / (double)nw : 0, 4);
  json_end_object(jw);
  json_begin_object(jw, "ends");
  for (int i = 0; i < GAME_END_COUNT; i++)
    if (e[i]) json_put_fixed(jw, game_end_name(i), (double)e[i] / (double)ne, 4);
  json_end_object(jw);
  json_end_object(jw);
  seen->games = games;
  seen->plies = plies;
  for (int i = 0; i < 3; i++) seen->wins[i] += w[i];
  for (int i = 0; i < GAME_END_COUNT; i++) seen->ends[i] += e[i];
}

/* The one way out of a finished game: counted, then to the sink. */
int selfplay_hand_on(selfplay *s, const selfplay_game *gm) {
  if (s->p.sink(s->p.sink_ctx, gm) != 0) return -1;
  selfplay_count_game(s->counters, gm->final, game_first_mover(gm->g), (uint64_t)gm->n);
  return 0;
}

int selfplay_store_game(void *ctx, const selfplay_game *gm) {
  selfplay_store *st = ctx;
  if (gm->n) replay_add(st->buffer, gm->samples, gm->n);
  if (gm->keep && st->records) records_add(st->records, gm->g, gm->moves, gm->nmoves, gm->final);
  return 0;
}

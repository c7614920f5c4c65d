#include "trainer/evaluate.h"

#include <stdarg.h>
#include <stdio.h>

#include "arena/match.h"
#include "base/base.h"
#include "search/agent.h"

static void say(const eval_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const eval_job *j, const char *fmt, ...) {
  if (!j->say) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  j->say(j->say_ctx, line);
}

/* The best against one anchor: one pair of agents per variant, made for
 * its rules. */
static int against(const eval_job *j, const char *anchor, match_result *m, char *err,
                   size_t errlen) {
  const train_config *c = j->c;
  match_params mp = {.games = c->eval_games,
                     .opening_plies = 2,
                     .seed = c->seed ^ (0x6576616cULL + j->iteration),
                     .elo1 = 35,
                     .alpha = 0.05,
                     .beta = 0.05,
                     .variants = c->variant,
                     .n_variants = c->n_variants,
                     .egdb_dir = c->egdb_dir};
  agent_zero_params me = {j->best_path, c->eval_sims, c->precision};
  int nv = c->n_variants > 1 ? c->n_variants : 1, rc = -1;
  agent *a[GAME_MAX_VARIANTS] = {NULL}, *b[GAME_MAX_VARIANTS] = {NULL};
  for (int v = 0; v < nv; v++) {
    const game *vg = match_pair_game(&c->g, &mp, v);
    if (!(a[v] = agent_zero_create(vg, &me, mp.seed, err, errlen)) ||
        !(b[v] = agent_make(vg, anchor, &(agent_params){mp.seed + 1, mp.egdb_dir}, err, errlen)))
      goto done;
  }
  rc = match_agents(&c->g, a, b, &mp, m, err, errlen);
done:
  for (int v = 0; v < nv; v++) {
    agent_free(a[v]);
    agent_free(b[v]);
  }
  return rc;
}

int eval_run(const eval_job *j, json_writer *w, char *err, size_t errlen) {
  const train_config *c = j->c;
  config_anchor_list anchors;
  config_anchors(c, &anchors);
  json_begin_object(w, "eval");
  for (int i = 0; i < anchors.n; i++) {
    const char *t = anchors.name[i];
    match_result m;
    if (against(j, t, &m, err, errlen) != 0) return -1;
    json_begin_object(w, t);
    json_put_fixed(w, "score", m.score, 4);
    json_put_fixed(w, "elo", m.elo, 1);
    json_put_fixed(w, "elo_lo", m.elo_lo, 1);
    json_put_fixed(w, "elo_hi", m.elo_hi, 1);
    json_put_int(w, "games", m.games);
    json_end_object(w);
    say(j, "  best vs %s: %.1f%% (%+.0f Elo, %d games)", t, 100 * m.score, m.elo, m.games);
  }
  json_end_object(w);
  if (j->endgame) {
    double t0 = clock_wall();
    if (endgame_measure(j->endgame, j->best, c->score_scale, c->eval_sims, w, err, errlen))
      return -1;
    say(j, "  best against the endgame database: %d positions in %.1f s", endgame_count(j->endgame),
        clock_wall() - t0);
  }
  return 0;
}

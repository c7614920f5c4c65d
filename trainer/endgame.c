/* The network against the endgame database (trainer/endgame.h). */
#include "trainer/endgame.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "search/evaluator_nn.h"
#include "search/mcts.h"

#define MAX_LEVELS 31

struct endgame_set {
  const egdb *db;
  game g;
  int n, levels, top;    /* positions; seed counts top-levels+1 .. top */
  game_pos *pos;         /* n */
  int count[MAX_LEVELS]; /* positions per seed count */
};

/* Random games keep every position whose seed count still needs some, one
 * per seed count a game so that positions come from many games. */
endgame_set *endgame_sample(const egdb *db, const game *g, int per_level, int levels, uint64_t seed,
                            char *err, size_t errlen) {
  endgame_set *e = calloc(1, sizeof *e);
  int top = egdb_max_seeds(db);
  /* Seed counts top down to 1: no game goes on with an empty board. */
  if (levels > top) levels = top;
  if (levels > MAX_LEVELS) levels = MAX_LEVELS;
  game_hist *h = malloc(sizeof *h);
  if (e) e->pos = malloc(sizeof *e->pos * (size_t)(per_level * levels + 1));
  if (!e || !h || !e->pos) {
    free(h);
    endgame_free(e);
    errf(err, errlen, "out of memory");
    return NULL;
  }
  e->db = db;
  e->g = *g;
  e->levels = levels;
  e->top = top;
  rng_t rng;
  rng_seed(&rng, seed, 0x65676462);
  int want = per_level * levels;
  /* A cap on the games: a seed count random play hardly reaches stays short. */
  for (int games = 0; e->n < want && games < 20000; games++) {
    game_pos p;
    game_start(g, &p);
    game_hist_reset(h, &p);
    int taken = 0; /* bit per seed count, this game */
    while (p.status == GAME_ONGOING) {
      int s = egdb_seeds(&p), lv = top - s;
      if (lv >= 0 && lv < levels && !(taken >> lv & 1) && e->count[lv] < per_level &&
          game_legal(g, &p) && egdb_probe(db, g, &p) != EGDB_NONE) {
        e->pos[e->n++] = p;
        e->count[lv]++;
        taken |= 1 << lv;
      }
      game_moves m = game_legal(g, &p);
      if (!m) break;
      game_step(g, &p, h, game_random_action(&rng, m));
    }
  }
  free(h);
  return e;
}

void endgame_free(endgame_set *e) {
  if (!e) return;
  free(e->pos);
  free(e);
}

int endgame_count(const endgame_set *e) { return e->n; }

typedef struct {
  int n;
  double value_err, margin_err;
  int policy_result, policy_margin, search_result, search_margin;
} tally;

/* Whether move a keeps the best result and the best margin (values:
 * egdb_probe_moves' for the mover). */
static void judge(const game_pos *p, const int *values, game_moves legal, int a, int *result,
                  int *margin) {
  int best = -1000, me = p->mover, diff = p->store[me] - p->store[1 - me];
  for (game_moves r = legal; r; r &= r - 1) {
    int v = values[__builtin_ctz(r)];
    if (v > best) best = v;
  }
  int ma = diff + values[a], mb = diff + best;
  int oa = ma > 0 ? 1 : ma < 0 ? -1 : 0, ob = mb > 0 ? 1 : mb < 0 ? -1 : 0;
  *result = oa == ob;
  *margin = values[a] == best;
}

int endgame_measure(const endgame_set *e, const nn_net *net, float score_scale, int sims,
                    json_writer *w, char *err, size_t errlen) {
  mcts_nn *ev = mcts_nn_create(&e->g, net, 1, err, errlen);
  if (!ev) return -1;
  mcts_params sp = mcts_defaults();
  sp.sims = sims;
  sp.node_cap = sims * GAME_MAX_ACTIONS + GAME_MAX_ACTIONS + 1;
  sp.reuse = 0;
  mcts_eval me = mcts_nn_eval(ev);
  mcts *m = mcts_create(&e->g, &sp, &me, 1, err, errlen);
  float *policy = malloc(sizeof(float) * (size_t)e->g.n_actions);
  if (!m || !policy) {
    if (m) errf(err, errlen, "out of memory");
    mcts_free(m);
    mcts_nn_free(ev);
    free(policy);
    return -1;
  }
  tally t[MAX_LEVELS], all;
  memset(t, 0, sizeof t);
  memset(&all, 0, sizeof all);
  int rc = 0;
  for (int i = 0; i < e->n && rc == 0; i++) {
    const game_pos *p = &e->pos[i];
    egdb_result ex;
    int values[GAME_MAX_ACTIONS];
    game_moves legal = egdb_probe_moves(e->db, &e->g, p, values);
    if (!legal || !egdb_exact(e->db, &e->g, p, 0, &ex)) continue;
    float v, score;
    const game_pos *pp = p;
    if (me.evaluate(me.ctx, &e->g, &pp, 1, policy, &v) || mcts_nn_score(ev, p, &score)) {
      errf(err, errlen, "the network failed on an endgame position");
      rc = -1;
      break;
    }
    int top = -1;
    for (game_moves r = legal; r; r &= r - 1) {
      int a = __builtin_ctz(r);
      if (top < 0 || policy[a] > policy[top]) top = a;
    }
    tally *x = &t[e->top - egdb_seeds(p)];
    int res, mar, sres, smar;
    judge(p, values, legal, top, &res, &mar);
    if (mcts_set_root(m, p, NULL, err, errlen) || mcts_run(m, sims, err, errlen) < 0) {
      rc = -1;
      break;
    }
    judge(p, values, legal, mcts_best_action(m), &sres, &smar);
    for (tally *y = x; y; y = y == x ? &all : NULL) {
      y->n++;
      y->value_err += fabs((double)v - ex.outcome);
      y->margin_err += fabs((double)score * score_scale - ex.margin);
      y->policy_result += res;
      y->policy_margin += mar;
      y->search_result += sres;
      y->search_margin += smar;
    }
  }
  mcts_free(m);
  mcts_nn_free(ev);
  free(policy);
  if (rc) return -1;
  /* Overall, then per seed count (keys: the seed counts). */
  json_begin_object(w, "egdb");
  for (int lv = -1; lv < e->levels; lv++) {
    const tally *x = lv < 0 ? &all : &t[lv];
    double n = x->n ? x->n : 1;
    char key[16];
    snprintf(key, sizeof key, "%d", e->top - lv);
    if (lv == 0) json_begin_object(w, "seeds");
    if (lv >= 0) json_begin_object(w, key);
    json_put_int(w, "positions", x->n);
    json_put_fixed(w, "value_mae", x->value_err / n, 4);
    json_put_fixed(w, "margin_mae", x->margin_err / n, 3);
    json_put_fixed(w, "policy_result", x->policy_result / n, 4);
    json_put_fixed(w, "policy_margin", x->policy_margin / n, 4);
    json_put_fixed(w, "search_result", x->search_result / n, 4);
    json_put_fixed(w, "search_margin", x->search_margin / n, 4);
    if (lv >= 0) json_end_object(w);
  }
  if (e->levels > 0) json_end_object(w);
  json_end_object(w);
  return 0;
}

/* [egdb]: the database (one shared copy) and its folder. */
int endgame_acquire_db(const train_config *c, egdb **db, char *dir, size_t dlen, char *err,
                       size_t errlen) {
  char e[1024];
  *db = NULL;
  if (!c->egdb_enabled) return 0;
  if (egdb_default_dir(c->egdb_dir, dir, dlen, e, sizeof e)) {
    errf(err, errlen, "egdb.dir: %s", e);
    return -1;
  }
  if (!(*db = egdb_acquire(dir, e, sizeof e))) {
    errf(err, errlen, "egdb.dir%s: %s", c->egdb_dir[0] ? "" : " (default)", e);
    return -1;
  }
  if (!egdb_serves(*db, &c->g)) {
    errf(err, errlen, "egdb: the database in %s is for oware %s, not this run's %s", dir,
         egdb_rules(*db), c->g.preset);
    return -1;
  }
  return 0;
}

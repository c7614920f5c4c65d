/* The endgame database for agents: the egdb= setting of the searching
 * kinds, and the `egdb` agent, perfect within the database and another
 * agent's move outside it (docs/SEARCH.md). */
#include <stdlib.h>
#include <string.h>

#include "egdb/egdb.h"
#include "search/agent_internal.h"

static const kv_key egdb_keys[] = {
    KV_S("egdb", agent_egdb_opts, egdb, "",
         "endgame database: a folder, 'on' for the default one, '' or 'off' for none"),
    KV_I("egdb_seeds", agent_egdb_opts, seeds, 0, EGDB_MAX_SEEDS, "0",
         "use the database for positions of at most this many seeds; 0 = all it holds"),
};
static const kv_table egdb_table = KV_TABLE(egdb_keys);

const kv_table *agent_egdb_table(void) { return &egdb_table; }

void agent_egdb_defaults(agent_egdb_opts *o) {
  memset(o, 0, sizeof *o);
  kv_defaults(&egdb_table, o, NULL, 0);
}

int agent_egdb_open(agent_egdb *d, const agent *a, const agent_egdb_opts *o, char *err,
                    size_t errlen) {
  char dir[1024], e[1200];
  memset(d, 0, sizeof *d);
  d->max_seeds = o->seeds;
  if (!o->egdb[0] || !strcmp(o->egdb, "off")) return 0;
  if (!strcmp(o->egdb, "on")) {
    if (egdb_default_dir(a->egdb_dir, dir, sizeof dir, e, sizeof e)) {
      errf(err, errlen, "agent %s: egdb=on: %s", a->kind->kind, e);
      return -1;
    }
  } else {
    snprintf(dir, sizeof dir, "%s", o->egdb);
  }
  /* egdb_open's messages name the folder; "on" says which one it meant. */
  int on = !strcmp(o->egdb, "on");
  if (!(d->db = egdb_acquire(dir, e, sizeof e))) {
    errf(err, errlen, "agent %s: egdb=%s%s%s%s: %s", a->kind->kind, o->egdb, on ? " (" : "",
         on ? dir : "", on ? ")" : "", e);
    return -1;
  }
  if (!egdb_serves(d->db, &a->g)) {
    errf(err, errlen, "agent %s: egdb=%s: the database in %s is for oware %s, not %s",
         a->kind->kind, o->egdb, dir, egdb_rules(d->db), a->g.preset);
    agent_egdb_close(d);
    return -1;
  }
  return 0;
}

void agent_egdb_close(agent_egdb *d) {
  egdb_release(d->db);
  d->db = NULL;
}

/* ---- The `egdb` agent -----------------------------------------------------------------
 * Spec: egdb [dir=DIR|on] [egdb_seeds=N] [else=KIND,KEY=VALUE,...]. The
 * delegate's spec is one token (the spec parser splits at spaces), commas
 * standing for its spaces: else=alphabeta,depth=8. */

typedef struct {
  char dir[256];
  char other[256];
  int seeds;
} egdb_agent_opts;

static const kv_key egdb_agent_keys[] = {
    KV_S("dir", egdb_agent_opts, dir, "on",
         "the database's folder; on = the default location (--egdb, $SOWZERO_EGDB, ...)"),
    KV_I("egdb_seeds", egdb_agent_opts, seeds, 0, EGDB_MAX_SEEDS, "0",
         "answer positions of at most this many seeds; 0 = all it holds"),
    KV_S("else", egdb_agent_opts, other, "alphabeta",
         "the agent outside the database, spaces written as commas"),
};
static const kv_table egdb_agent_table = KV_TABLE(egdb_agent_keys);

typedef struct {
  agent_egdb db;
  agent *other;
} egdb_agent;

static void egdb_agent_free(agent *a) {
  egdb_agent *x = a->impl;
  if (!x) return;
  agent_free(x->other);
  agent_egdb_close(&x->db);
  free(x);
  a->impl = NULL;
}

static int egdb_agent_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  egdb_agent_opts o;
  memset(&o, 0, sizeof o);
  kv_defaults(&egdb_agent_table, &o, NULL, 0);
  kv_target tg = {&egdb_agent_table, &o, 0};
  if (agent_settings(a, &tg, 1, argc, argv, err, errlen)) return -1;
  char spec[256], e[512];
  snprintf(spec, sizeof spec, "%s", o.other);
  for (char *c = spec; *c; c++)
    if (*c == ',') *c = ' ';
  if (!strncmp(spec, "egdb", 4) && (spec[4] == ' ' || !spec[4])) {
    errf(err, errlen, "agent egdb: else=%s: the agent outside the database cannot be egdb",
         o.other);
    return -1;
  }
  egdb_agent *x = calloc(1, sizeof *x);
  if (!x) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  a->impl = x;
  agent_egdb_opts eo;
  agent_egdb_defaults(&eo);
  snprintf(eo.egdb, sizeof eo.egdb, "%s", o.dir);
  eo.seeds = o.seeds;
  if (!strcmp(o.dir, "") || !strcmp(o.dir, "off")) {
    errf(err, errlen, "agent egdb: dir=%s: the egdb agent needs a database", o.dir);
    egdb_agent_free(a);
    return -1;
  }
  /* The setting is called dir here: its messages say so. */
  if (agent_egdb_open(&x->db, a, &eo, e, sizeof e)) {
    const char *tail = strstr(e, ": egdb=");
    errf(err, errlen, "agent egdb: dir=%s", tail ? tail + 7 : e);
    egdb_agent_free(a);
    return -1;
  }
  agent_params op = {rng_u64(&a->rng), a->egdb_dir};
  if (!(x->other = agent_make(&a->g, spec, &op, e, sizeof e))) {
    errf(err, errlen, "agent egdb: else=%s: %s", o.other, e);
    egdb_agent_free(a);
    return -1;
  }
  return 0;
}

/* Exact results of p's moves for its mover: n moves into act/res; 0 when
 * p is outside the database. A move that ends the game is scored by the
 * game's own result. */
static int egdb_agent_moves(const agent *a, const game_pos *p, int *act, egdb_result *res,
                            int *captured) {
  egdb_agent *x = a->impl;
  egdb_result root;
  if (!egdb_exact(x->db.db, &a->g, p, x->db.max_seeds, &root)) return 0;
  int n = 0, me = p->mover;
  for (game_moves m = game_legal(&a->g, p); m; m &= m - 1) {
    int k = __builtin_ctz(m);
    game_pos q = *p;
    game_play(&a->g, &q, k);
    egdb_result r = {0, 0, 0};
    if (q.status != GAME_ONGOING) {
      r.outcome = game_outcome(&q, me);
      r.margin = game_margin(&q, me);
    } else if (egdb_exact(x->db.db, &a->g, &q, 0, &r)) {
      if (q.mover != me) r.outcome = -r.outcome, r.margin = -r.margin;
    } else {
      return 0; /* cannot happen: sowing never adds seeds */
    }
    act[n] = k;
    captured[n] = q.store[me] - p->store[me];
    res[n++] = r;
  }
  return n;
}

/* The best outcome, then the best final margin; among equals, the largest
 * capture now (progress: a value kept by non-capturing moves alone could
 * cycle), then a move to a position not seen since the last capture, then
 * the lowest action. */
static int egdb_agent_pick(const game *g, const game_pos *p, const game_hist *h, int n,
                           const int *act, const egdb_result *res, const int *captured) {
  int best = -1;
  long best_key = 0;
  for (int i = 0; i < n; i++) {
    game_pos q = *p;
    game_play(g, &q, act[i]);
    int fresh = !h || captured[i] > 0 || game_hist_count(h, q.hash) == 0;
    long key = ((long)res[i].outcome * 1000 + res[i].margin) * 1000 + captured[i] * 2 + fresh;
    if (best < 0 || key > best_key) {
      best = i;
      best_key = key;
    }
  }
  return act[best];
}

static int egdb_agent_choose(agent *a, const game_pos *p, const game_hist *h) {
  egdb_agent *x = a->impl;
  int act[GAME_MAX_ACTIONS], cap[GAME_MAX_ACTIONS];
  egdb_result res[GAME_MAX_ACTIONS];
  int n = egdb_agent_moves(a, p, act, res, cap);
  if (n == 0) {
    agent_set_time(x->other, &a->time); /* the clock is the outer agent's */
    int k = agent_choose(x->other, p, h);
    if (k < 0) snprintf(a->err, sizeof a->err, "%s", agent_error(x->other));
    return k;
  }
  return egdb_agent_pick(&a->g, p, h, n, act, res, cap);
}

static int egdb_agent_analyze(agent *a, const game_pos *p, const game_hist *h,
                              agent_analysis *out) {
  egdb_agent *x = a->impl;
  int act[GAME_MAX_ACTIONS], cap[GAME_MAX_ACTIONS];
  egdb_result res[GAME_MAX_ACTIONS];
  int n = egdb_agent_moves(a, p, act, res, cap);
  if (n == 0) {
    if (agent_analyze(x->other, p, h, out) == 0) return 0;
    snprintf(a->err, sizeof a->err, "%s", agent_error(x->other));
    return -1;
  }
  memset(out, 0, sizeof *out);
  out->n = n;
  out->best = egdb_agent_pick(&a->g, p, h, n, act, res, cap);
  for (int i = 0; i < n; i++) {
    out->action[i] = act[i];
    out->prior[i] = 1.0f / (float)n;
    out->value[i] = (float)res[i].outcome;
    out->move_margin[i] = (float)res[i].margin;
    if (act[i] == out->best) {
      out->root_value = (float)res[i].outcome;
      out->margin = (float)res[i].margin;
    }
  }
  out->has_margin = 1;
  return 0;
}

static void egdb_agent_reset(agent *a) {
  egdb_agent *x = a->impl;
  /* The delegate's stream follows this agent's, so a game depends on
   * (seed, stream) alone. */
  agent_reseed(x->other, rng_u64(&a->rng), 0x656c7365);
  agent_reset(x->other);
}

const agent_kind agent_egdb_kind = {
    "egdb",
    "egdb dir=DIR|on egdb_seeds=N else=KIND,KEY=VALUE,... (docs/SEARCH.md)",
    egdb_agent_create,
    egdb_agent_choose,
    egdb_agent_analyze,
    egdb_agent_reset,
    egdb_agent_free};

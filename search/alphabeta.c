/* Negamax alpha-beta with iterative deepening and a transposition table,
 * and the `alphabeta` agent kind built on it. */
#include "search/alphabeta.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/kv.h"
#include "egdb/egdb.h"
#include "search/agent_internal.h"
#include "search/mcts_internal.h"

enum { TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct {
  uint64_t key;
  int32_t score; /* for the mover; win scores relative to this node */
  int8_t depth;
  uint8_t flag;
  uint8_t move;
  uint8_t heur; /* 1: a horizon evaluation lies below this value */
} tt_entry;

struct ab_search {
  game g;
  ab_params p;
  tt_entry *tt;
  size_t tt_mask;
  uint64_t tt_salt; /* XORed into stored keys: a new salt empties the table at once */
  game_path path;
  game_hist *own_hist; /* for ab_run without a history */
  uint64_t hsum;       /* hash of the positions since the last capture */
  uint64_t nodes;
  double deadline;
  int can_abort, abort;
  int half;       /* pits per row: South owns [0, half) */
  const egdb *db; /* the endgame database, borrowed; NULL: none */
  int db_max;
};

/* Weights from arena runs at depth 4 on Oware (docs/SEARCH.md): seeds kept
 * and pits in play each matter about a tenth of a captured seed. */
static const kv_key ab_keys[] = {
    KV_I("depth", ab_params, depth, 1, AB_MAX_DEPTH, "6", "deepest iteration, plies"),
    KV_D("time", ab_params, time, 0, 1e6, "0", "seconds per search; 0: no time limit"),
    KV_I("tt", ab_params, tt_mb, 0, 65536, "16", "transposition table, MiB (0: none)"),
    KV_I("w_store", ab_params, w_store, -100000, 100000, "100", "weight of the store difference"),
    KV_I("w_seeds", ab_params, w_seeds, -100000, 100000, "10",
         "weight of the seeds on the own row minus the opponent's"),
    KV_I("w_mobility", ab_params, w_mobility, -100000, 100000, "10",
         "weight of the non-empty own pits minus the opponent's"),
    KV_B("margins", ab_params, margins, "0",
         "1: database positions score w_store * final margin, not as finished games"),
};
static const kv_table ab_table = KV_TABLE(ab_keys);

const kv_table *ab_params_table(void) { return &ab_table; }

ab_params ab_defaults(void) {
  ab_params p;
  memset(&p, 0, sizeof p);
  kv_defaults(&ab_table, &p, NULL, 0); /* the table's defaults parse (tests) */
  return p;
}

int ab_params_set(ab_params *p, const char *key, const char *value, char *err, size_t errlen) {
  return kv_set(&ab_table, p, key, value, err, errlen);
}

ab_search *ab_create(const game *g, const ab_params *p, char *err, size_t errlen) {
  if (kv_check(&ab_table, p, err, errlen) != 0) return NULL;
  ab_search *s = calloc(1, sizeof *s);
  if (!s) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  s->g = *g;
  s->p = *p;
  s->half = g->n_pits / 2;
  s->own_hist = malloc(sizeof *s->own_hist);
  /* A table beyond the machine's memory would be paged in as the search
   * touches it, and the process killed; refuse it while we can say why. */
  double phys_mb = mem_physical_mb();
  if (phys_mb > 0 && p->tt_mb > phys_mb / 2) {
    ab_free(s);
    errf(err, errlen, "tt=%d MiB is more than half of this machine's memory (%.0f MiB)", p->tt_mb,
         phys_mb);
    return NULL;
  }
  if (p->tt_mb > 0) {
    size_t n = 1;
    while (n * 2 * sizeof(tt_entry) <= (size_t)p->tt_mb << 20) n *= 2;
    s->tt = calloc(n, sizeof *s->tt);
    s->tt_mask = n - 1;
  }
  if (!s->own_hist || (p->tt_mb > 0 && !s->tt)) {
    ab_free(s);
    errf(err, errlen, "out of memory for a %d MiB table", p->tt_mb);
    return NULL;
  }
  return s;
}

size_t ab_table_bytes(const ab_search *s) { return s->tt ? (s->tt_mask + 1) * sizeof *s->tt : 0; }

void ab_attach_egdb(ab_search *s, const egdb *db, int max_seeds) {
  s->db = db && egdb_serves(db, &s->g) ? db : NULL;
  s->db_max = max_seeds;
}

void ab_free(ab_search *s) {
  if (!s) return;
  free(s->tt);
  free(s->own_hist);
  free(s);
}

/* O(1) whatever the table's size: entries stored under another salt no
 * longer match any key (as likely as any 64-bit key collision). */
void ab_clear(ab_search *s) { s->tt_salt += 0x9e3779b97f4a7c15ull; }

void ab_set_time(ab_search *s, double seconds) { s->p.time = seconds > 0 ? seconds : 0; }

int ab_evaluate(const ab_search *s, const game_pos *p) {
  int me = p->mover, seeds[2] = {0, 0}, busy[2] = {0, 0};
  for (int i = 0; i < s->g.n_pits; i++) {
    int side = p->owner ? (int)(p->owner >> i & 1) : i >= s->half;
    seeds[side] += p->pits[i];
    busy[side] += p->pits[i] != 0;
  }
  return s->p.w_store * ((int)p->store[me] - (int)p->store[1 - me]) +
         s->p.w_seeds * (seeds[me] - seeds[1 - me]) + s->p.w_mobility * (busy[me] - busy[1 - me]);
}

static inline uint64_t mixh(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dULL;
  return x ^ (x >> 33);
}

static uint64_t tt_key(const ab_search *s, const game_pos *p) {
  uint64_t k = mixh(p->hash ^ ((uint64_t)p->store[0] << 1 | (uint64_t)p->store[1] << 17 |
                               (uint64_t)p->ply << 33 | (uint64_t)p->nocap << 49));
  k ^= mixh(k + s->hsum + ((uint64_t)p->round << 8 | p->aux[0] | (uint64_t)p->aux[1] << 16));
  return k ? k : 1;
}

/* Win scores are stored relative to the node, so they stay right when the
 * same position is met at another distance from the root. */
static inline int to_tt(int v, int ply) {
  return v > AB_WIN / 2 ? v + ply : v < -AB_WIN / 2 ? v - ply : v;
}
static inline int from_tt(int v, int ply) {
  return v > AB_WIN / 2 ? v - ply : v < -AB_WIN / 2 ? v + ply : v;
}

static inline int terminal_score(const game_pos *q, int side, int ply) {
  return game_outcome(q, side) * (AB_WIN - ply) + game_margin(q, side);
}

/* A finished game's score for side. With margins on the margins' scale:
 * where the database holds the board, as it values it played on (it knows
 * no target and no repetition), else the game's own final margin. */
static int end_score(const ab_search *s, const game_pos *q, int side, int ply) {
  if (!s->p.margins) return terminal_score(q, side, ply);
  egdb_result ex;
  game_pos on = *q;
  on.status = GAME_ONGOING;
  if (s->db && egdb_exact(s->db, &s->g, &on, s->db_max, &ex))
    return s->p.w_store * (on.mover == side ? ex.margin : -ex.margin);
  return s->p.w_store * game_margin(q, side);
}

/* Orders the legal actions: the table's move, then immediate wins, then
 * captures by size, then the rest in action order. */
static int order_moves(const ab_search *s, const game_pos *p, int tt_move, int *moves) {
  int key[GAME_MAX_ACTIONS], n = 0, me = p->mover;
  for (game_moves r = game_legal(&s->g, p); r; r &= r - 1) {
    int a = __builtin_ctz(r);
    game_pos q = *p;
    game_play(&s->g, &q, a);
    int k = q.store[me] - p->store[me];
    if (q.status != GAME_ONGOING) k += 1000 * game_outcome(&q, me);
    if (a == tt_move) k = 1 << 20;
    int i = n++;
    while (i > 0 && key[i - 1] < k) {
      key[i] = key[i - 1];
      moves[i] = moves[i - 1];
      i--;
    }
    key[i] = k;
    moves[i] = a;
  }
  return n;
}

/* Plays action a from p into q along the search path; state to restore in
 * *save_*. */
typedef struct {
  int root_live, base, len;
  uint64_t hsum;
} path_save;

static inline void step(ab_search *s, const game_pos *p, game_pos *q, int a, path_save *sv) {
  sv->root_live = s->path.root_live;
  sv->base = s->path.base;
  sv->len = s->path.len;
  sv->hsum = s->hsum;
  *q = *p;
  int fl = game_path_step(&s->g, q, &s->path, a);
  if (s->g.repetition > 0) {
    if (fl & GAME_PLAY_CAPTURE) s->hsum = 0;
    if (s->path.len > sv->len) s->hsum += mixh(q->hash);
  }
}

static inline void unstep(ab_search *s, const path_save *sv) {
  s->path.root_live = sv->root_live;
  s->path.base = sv->base;
  s->path.len = sv->len;
  s->hsum = sv->hsum;
}

static int negamax(ab_search *s, const game_pos *p, int depth, int alpha, int beta, int ply,
                   int *heur);

/* The value for p's mover of playing a at p (ply plies below the root),
 * searched depth more plies within (alpha, beta): a move that keeps the
 * mover is not negated. *heur is set when a horizon lies below. */
static inline int child_value(ab_search *s, const game_pos *p, int a, int depth, int alpha,
                              int beta, int ply, int *heur) {
  game_pos q;
  path_save sv;
  step(s, p, &q, a, &sv);
  int v;
  if (q.status != GAME_ONGOING)
    v = end_score(s, &q, p->mover, ply + 1);
  else if (q.mover == p->mover)
    v = negamax(s, &q, depth, alpha, beta, ply + 1, heur);
  else
    v = -negamax(s, &q, depth, -beta, -alpha, ply + 1, heur);
  unstep(s, &sv);
  return v;
}

static int negamax(ab_search *s, const game_pos *p, int depth, int alpha, int beta, int ply,
                   int *heur) {
  s->nodes++;
  if (s->can_abort && (s->nodes & 1023) == 0 && clock_wall() > s->deadline) s->abort = 1;
  if (s->abort) return 0;
  egdb_result ex;
  if (s->db && egdb_exact(s->db, &s->g, p, s->db_max, &ex))
    return s->p.margins ? s->p.w_store * ex.margin : ex.outcome * (AB_WIN - ply) + ex.margin;
  if (depth <= 0) {
    *heur = 1;
    return ab_evaluate(s, p);
  }
  uint64_t key = 0;
  tt_entry *e = NULL;
  int tt_move = -1;
  if (s->tt) {
    key = tt_key(s, p) ^ s->tt_salt;
    e = &s->tt[key & s->tt_mask];
    if (e->key == key) {
      tt_move = e->move;
      if (e->depth >= depth) {
        int v = from_tt(e->score, ply);
        if (e->flag == TT_EXACT || (e->flag == TT_LOWER && v >= beta) ||
            (e->flag == TT_UPPER && v <= alpha)) {
          *heur |= e->heur;
          return v;
        }
      }
    }
  }
  int moves[GAME_MAX_ACTIONS];
  int n = order_moves(s, p, tt_move, moves);
  int best = -AB_INF, best_move = moves[0], alpha0 = alpha, h_all = 0;
  for (int i = 0; i < n; i++) {
    int h = 0, v = child_value(s, p, moves[i], depth - 1, alpha, beta, ply, &h);
    if (s->abort) return 0;
    h_all |= h;
    if (v > best) {
      best = v;
      best_move = moves[i];
    }
    if (v > alpha) alpha = v;
    if (alpha >= beta) break;
  }
  if (e) {
    e->key = key;
    e->score = to_tt(best, ply);
    e->depth = (int8_t)depth;
    e->flag = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT;
    e->move = (uint8_t)best_move;
    e->heur = (uint8_t)h_all;
  }
  *heur |= h_all;
  return best;
}

int ab_run(ab_search *s, const game_pos *p, const game_hist *h, ab_result *out, char *err,
           size_t errlen) {
  memset(out, 0, sizeof *out);
  out->best = -1;
  h = search_root_hist(&s->g, p, h, s->own_hist, err, errlen);
  if (!h) return -1;
  double t0 = clock_wall();
  s->deadline = t0 + s->p.time;
  s->nodes = 0;
  s->abort = 0;
  game_path_reset(&s->path, h);
  uint64_t root_sum = 0;
  if (s->g.repetition > 0)
    for (int i = 0; i < h->len; i++) root_sum += mixh(h->hash[i]);
  int max_depth = s->p.depth, prev_best = -1;
  for (int d = 1; d <= max_depth; d++) {
    s->can_abort = s->p.time > 0 && d > 1;
    s->hsum = root_sum;
    int moves[GAME_MAX_ACTIONS], scores[GAME_MAX_ACTIONS];
    int n = order_moves(s, p, prev_best, moves);
    int alpha = -AB_INF, best = -AB_INF, best_move = moves[0], heur = 0;
    for (int i = 0; i < n; i++) {
      int hh = 0, v = child_value(s, p, moves[i], d - 1, alpha, AB_INF, 0, &hh);
      if (s->abort) break;
      heur |= hh;
      scores[i] = v;
      if (v > best) {
        best = v;
        best_move = moves[i];
      }
      if (v > alpha) alpha = v;
    }
    if (s->abort) break;
    out->best = best_move;
    out->score = best;
    out->depth = d;
    out->exact = !heur;
    out->n = n;
    memcpy(out->action, moves, (size_t)n * sizeof *moves);
    memcpy(out->scores, scores, (size_t)n * sizeof *scores);
    prev_best = best_move;
    if (!heur) break; /* solved: deeper iterations cannot change it */
    /* The next iteration costs several times this one: do not start what
     * cannot finish. */
    if (s->p.time > 0 && clock_wall() - t0 > 0.4 * s->p.time) break;
  }
  out->nodes = s->nodes;
  out->seconds = clock_wall() - t0;
  return 0;
}

/* ---- The `alphabeta` agent ------------------------------------------------------------- */

typedef struct {
  ab_search *s;
  agent_egdb db;
  int depth_given; /* depth= set: a caller's clock limits time, not depth */
} ab_agent;

static int ab_agent_create(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  ab_params p = ab_defaults();
  agent_egdb_opts eo;
  agent_egdb_defaults(&eo);
  kv_target tg[2] = {{&ab_table, &p, 0}, {agent_egdb_table(), &eo, 0}};
  if (agent_settings(a, tg, 2, argc, argv, err, errlen)) return -1;
  /* A time limit alone means: as deep as the time allows; so a limit of
   * zero would mean no limit at all, and the search would never end. */
  if (kv_given(&tg[0], "time") && !(p.time > 0)) {
    errf(err, errlen, "agent alphabeta: bad value '%g' for time (seconds, more than 0)", p.time);
    return -1;
  }
  if (kv_given(&tg[0], "time") && !kv_given(&tg[0], "depth")) p.depth = AB_MAX_DEPTH;
  ab_agent *x = calloc(1, sizeof *x);
  if (!x) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  if (agent_egdb_open(&x->db, a, &eo, err, errlen) || !(x->s = ab_create(&a->g, &p, err, errlen))) {
    agent_egdb_close(&x->db);
    free(x);
    return -1;
  }
  ab_attach_egdb(x->s, x->db.db, x->db.max_seeds);
  x->depth_given = kv_given(&tg[0], "depth");
  a->impl = x;
  return 0;
}

static int ab_agent_choose(agent *a, const game_pos *p, const game_hist *h) {
  ab_search *s = ((ab_agent *)a->impl)->s;
  ab_result r;
  /* A caller's clock: this move's soft budget is the time limit (iterative
   * deepening stops well inside it); the agent's own time= caps it. */
  double own = s->p.time;
  int own_depth = s->p.depth;
  if (a->time.per_move > 0 || a->time.remaining > 0) {
    timectl_budget b = agent_budget(a, p, own);
    s->p.time = b.soft;
    if (!((ab_agent *)a->impl)->depth_given) s->p.depth = AB_MAX_DEPTH;
  }
  int rc = ab_run(s, p, h, &r, a->err, sizeof a->err);
  s->p.time = own;
  s->p.depth = own_depth;
  return rc ? -1 : r.best;
}

static int ab_agent_analyze(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out) {
  ab_result r;
  if (ab_run(((ab_agent *)a->impl)->s, p, h, &r, a->err, sizeof a->err)) return -1;
  memset(out, 0, sizeof *out);
  out->n = r.n;
  for (int i = 0; i < r.n; i++) {
    out->action[i] = r.action[i];
    /* Scores in [-1, 1]: wins and losses exactly, else the store-difference
     * scale squashed. */
    int v = r.scores[i];
    out->value[i] = v > AB_WIN / 2    ? 1.0f
                    : v < -AB_WIN / 2 ? -1.0f
                                      : (float)v / (float)(abs(v) + 1000);
  }
  out->best = r.best;
  int v = r.score;
  out->root_value = v > AB_WIN / 2    ? 1.0f
                    : v < -AB_WIN / 2 ? -1.0f
                                      : (float)v / (float)(abs(v) + 1000);
  return 0;
}

static void ab_agent_reset(agent *a) { ab_clear(((ab_agent *)a->impl)->s); }
static void ab_agent_free(agent *a) {
  ab_agent *x = a->impl;
  ab_free(x->s);
  agent_egdb_close(&x->db);
  free(x);
}

const agent_kind agent_alphabeta = {
    "alphabeta",
    "alphabeta depth=N time=SECONDS tt=MIB w_store=100 w_seeds=10 w_mobility=10 egdb=DIR|on",
    ab_agent_create,
    ab_agent_choose,
    ab_agent_analyze,
    ab_agent_reset,
    ab_agent_free};

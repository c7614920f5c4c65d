/* Matches between agents: one game, and round robins or gauntlets played
 * by a pool of workers with paired colours, then rated. */
#include "arena/arena.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena_internal.h"
#include "arena/match.h"
#include "base/base.h"
#include "base/pool.h"

arena_params arena_defaults(void) {
  arena_params p;
  memset(&p, 0, sizeof p);
  p.games = 100;
  p.threads = 1;
  p.openings = 0;
  p.opening_plies = 4;
  p.book_depth = 4;
  p.book_margin = 150;
  p.seed = 1;
  p.prior_draws = 1.0;
  p.anchor = 0;
  return p;
}

/* ---- One game -------------------------------------------------------------------------- */

int arena_game_outcome(const arena_game *rec) {
  if (rec->lost_on_time) return rec->final.mover == GAME_SOUTH ? -1 : 1;
  return game_outcome(&rec->final, GAME_SOUTH);
}

int arena_play(const game *g, agent *south, agent *north, const opening_line *opening,
               arena_game *rec, char *err, size_t errlen) {
  return arena_play_timed(g, south, north, opening, NULL, rec, err, errlen);
}

int arena_play_timed(const game *g, agent *south, agent *north, const opening_line *opening,
                     const arena_clock *tc, arena_game *rec, char *err, size_t errlen) {
  game_hist *h = malloc(sizeof *h);
  if (!h) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  game_pos p;
  game_start(g, &p);
  game_hist_reset(h, &p);
  rec->open.n = 0;
  rec->n_moves = 0;
  rec->lost_on_time = 0;
  rec->longest[0] = rec->longest[1] = 0;
  int rc = 0;
  int timed = tc && (tc->per_move > 0 || tc->main > 0);
  double left[2] = {timed ? tc->main : 0, timed ? tc->main : 0};
  for (int i = 0; opening && i < opening->n; i++) {
    int a = opening->moves[i];
    if (p.status != GAME_ONGOING || !(game_legal(g, &p) >> a & 1)) {
      errf(err, errlen, "opening move %d (ply %d) is not legal", a, i + 1);
      rc = -1;
      goto done;
    }
    rec->open.moves[rec->open.n++] = (uint8_t)a;
    game_step(g, &p, h, a);
  }
  if (p.status != GAME_ONGOING) {
    errf(err, errlen, "the opening ends the game");
    rc = -1;
    goto done;
  }
  while (p.status == GAME_ONGOING) {
    agent *x = p.mover == GAME_SOUTH ? south : north;
    double t0 = 0;
    if (timed) {
      agent_time t = {tc->per_move, tc->per_move > 0 ? 0 : left[p.mover], tc->inc};
      agent_set_time(x, &t);
      t0 = timectl_now(tc->clock);
    }
    int a = agent_choose(x, &p, h);
    if (timed && a >= 0) {
      double used = timectl_now(tc->clock) - t0;
      left[p.mover] -= used;
      if (used > rec->longest[p.mover]) rec->longest[p.mover] = used;
      if (tc->per_move > 0 ? used > tc->per_move + tc->grace : left[p.mover] < 0) {
        rec->lost_on_time = 1;
        break;
      }
      left[p.mover] += tc->inc;
    }
    if (a < 0 || a >= g->n_actions || !(game_legal(g, &p) >> a & 1)) {
      errf(err, errlen, "agent '%s' failed at ply %d: %s", agent_spec(x), p.ply + 1,
           a < 0 ? agent_error(x) : "illegal move");
      rc = -1;
      goto done;
    }
    if (rec->n_moves >= GAME_MAX_PLIES_CAP) {
      errf(err, errlen, "game longer than %d plies", GAME_MAX_PLIES_CAP);
      rc = -1;
      goto done;
    }
    rec->moves[rec->n_moves++] = (uint8_t)a;
    game_step(g, &p, h, a);
  }
  rec->final = p;
done:
  free(h);
  return rc;
}

/* ---- A worker's agents --------------------------------------------------------------------- */

int arena_seats_create(arena_seats *s, const game *g, int n, const char *const *specs,
                       const agent_params *ap, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  if (!(s->rec = malloc(sizeof *s->rec))) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  for (; s->n < n; s->n++)
    if (!(s->ag[s->n] = agent_make(g, specs[s->n], ap, err, errlen))) return -1;
  return 0;
}

void arena_seats_free(arena_seats *s) {
  for (int i = 0; i < s->n; i++) agent_free(s->ag[i]);
  free(s->rec);
  memset(s, 0, sizeof *s);
}

void arena_seat_for_game(agent *a, uint64_t seed, int k, int seat) {
  agent_reseed(a, seed, 2 * (uint64_t)k + (uint64_t)seat);
  agent_reset(a);
}

/* ---- Determinism probe ------------------------------------------------------------------- */

int arena_agent_deterministic(const game *g, const char *spec, const agent_params *ap, char *err,
                              size_t errlen) {
  enum { PROBES = 6, STREAMS = 2 };
  const uint64_t seed = ap->seed;
  agent *a = agent_make(g, spec, ap, err, errlen);
  game_hist *h = malloc(sizeof *h);
  if (!a || !h) {
    if (a) errf(err, errlen, "out of memory");
    agent_free(a);
    free(h);
    return -1;
  }
  int same = 1;
  for (int i = 0; i < PROBES && same; i++) {
    /* The start, then positions 2, 4, ... random plies deep. */
    opening_line line;
    game_pos p;
    opening_random(g, 2 * i, seed, i, &line, &p, h);
    if (p.status != GAME_ONGOING) continue;
    int first = -1;
    for (int s = 0; s < STREAMS && same; s++) {
      agent_reseed(a, seed, 1000003 * (uint64_t)i + (uint64_t)s);
      agent_reset(a);
      int c = agent_choose(a, &p, h);
      if (c < 0) {
        errf(err, errlen, "agent '%s': %s", spec, agent_error(a));
        agent_free(a);
        free(h);
        return -1;
      }
      if (s == 0) first = c;
      same = c == first;
    }
  }
  agent_free(a);
  free(h);
  return same;
}

/* ---- Ratings ------------------------------------------------------------------------------ */

void arena_rate(arena_result *r, double prior_draws) {
  rating_pairing q[ARENA_MAX_AGENTS * (ARENA_MAX_AGENTS - 1) / 2];
  for (int k = 0; k < r->n_pairings; k++) {
    const arena_pairing *x = &r->pairings[k];
    q[k] = (rating_pairing){x->a, x->b, x->wins, x->draws, x->losses};
  }
  if (rating_fit(r->n_agents, q, r->n_pairings, r->anchor, prior_draws, r->elo, r->elo_se) != 0)
    for (int i = 0; i < r->n_agents; i++) r->elo[i] = r->elo_se[i] = NAN;
}

/* ---- The match ------------------------------------------------------------------------------
 * Job k is game k: pairing k % n_pairings, round k / n_pairings. Each
 * worker owns a set of agents and a game buffer; the results are the
 * match's, under its lock. */

typedef struct {
  const game *g;
  const arena_params *p;
  int n_agents;
  const char *const *specs;
  const opening_line *book;
  arena_result *res;
  arena_game_fn on_game;
  void *ud;
  arena_seats *workers; /* one per pool worker */
  uint64_t *game_hash;  /* per game number: who played what (distinct_games) */
  pthread_mutex_t lock; /* res and the on_game calls */
} match;

/* Two games are the same when the same agents played the same plies. */
static uint64_t game_hash(const arena_game *rec) {
  uint64_t h = checksum64(&rec->south, sizeof rec->south, CHECKSUM64_INIT);
  h = checksum64(&rec->north, sizeof rec->north, h);
  h = checksum64(rec->open.moves, (size_t)rec->open.n, h);
  h = checksum64(&rec->open.n, sizeof rec->open.n, h);
  return checksum64(rec->moves, (size_t)rec->n_moves, h);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int count_distinct(uint64_t *h, int n) {
  qsort(h, (size_t)n, sizeof *h, cmp_u64);
  int d = n > 0;
  for (int i = 1; i < n; i++) d += h[i] != h[i - 1];
  return d;
}

static int match_start(void *ctx, int worker, char *err, size_t errlen) {
  match *m = ctx;
  agent_params ap = {m->p->seed, m->p->egdb_dir};
  return arena_seats_create(&m->workers[worker], m->g, m->n_agents, m->specs, &ap, err, errlen);
}

static void match_finish(void *ctx, int worker) {
  match *m = ctx;
  arena_seats_free(&m->workers[worker]);
}

static int match_game(void *ctx, int worker, int k, char *err, size_t errlen) {
  match *m = ctx;
  arena_seats *w = &m->workers[worker];
  arena_game *rec = w->rec;
  int np = m->res->n_pairings, pi = k % np, i = k / np;
  const arena_pairing *q = &m->res->pairings[pi];
  int a_south = match_a_south(i);
  int south = a_south ? q->a : q->b, north = a_south ? q->b : q->a;
  int o = m->p->openings > 0 ? (i / 2) % m->p->openings : -1;
  agent *as = w->ag[south], *an = w->ag[north];
  arena_seat_for_game(as, m->p->seed, k, 0);
  arena_seat_for_game(an, m->p->seed, k, 1);
  rec->number = k;
  rec->pairing = pi;
  rec->south = south;
  rec->north = north;
  rec->opening = o;
  if (arena_play_timed(m->g, as, an, o >= 0 ? &m->book[o] : NULL, &m->p->time, rec, err, errlen))
    return -1;
  int so = arena_game_outcome(rec);
  int sa = a_south ? so : -so; /* for agent a */
  pthread_mutex_lock(&m->lock);
  arena_pairing *x = &m->res->pairings[pi];
  match_count(&x->wins, &x->draws, &x->losses, sa);
  if (a_south) match_count(&x->a_south_wins, &x->a_south_draws, &x->a_south_losses, sa);
  m->game_hash[k] = game_hash(rec);
  m->res->games++;
  match_count(&m->res->south_wins, &m->res->draws, &m->res->north_wins, so);
  if (rec->lost_on_time) m->res->time_losses[rec->final.mover == GAME_SOUTH ? south : north]++;
  for (int side = 0; side < 2; side++) {
    int who = side == GAME_SOUTH ? south : north;
    if (rec->longest[side] > m->res->longest_move[who])
      m->res->longest_move[who] = rec->longest[side];
  }
  if (m->on_game) m->on_game(rec, m->res, m->ud);
  pthread_mutex_unlock(&m->lock);
  return 0;
}

int arena_run(const game *g, int n_agents, const char *const *specs, const arena_params *p,
              arena_game_fn on_game, void *ud, arena_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (n_agents < 2 || n_agents > ARENA_MAX_AGENTS) {
    errf(err, errlen, "an arena needs 2..%d agents (got %d)", ARENA_MAX_AGENTS, n_agents);
    return -1;
  }
  if (p->games < 2 || p->games % 2) {
    errf(err, errlen,
         "games per pairing must be even and at least 2 (each opening is played "
         "with both colours); got %d",
         p->games);
    return -1;
  }
  if (p->threads < 1 || p->threads > 256) {
    errf(err, errlen, "threads must be 1..256 (got %d)", p->threads);
    return -1;
  }
  if (p->openings < 0 || p->openings > 100000) {
    errf(err, errlen, "openings must be 0..100000 (got %d)", p->openings);
    return -1;
  }
  const arena_clock *tc = &p->time;
  if (!(tc->per_move >= 0 && tc->per_move <= 1e6 && tc->main >= 0 && tc->main <= 1e6 &&
        tc->inc >= 0 && tc->inc <= 1e6 && tc->grace >= 0 && tc->grace <= 1e6) ||
      (tc->per_move > 0 && (tc->main > 0 || tc->inc > 0)) || (tc->main == 0 && tc->inc > 0)) {
    errf(err, errlen,
         "bad time control: a time per move (%g s) or a clock of main time and increment "
         "(%g+%g s), seconds 0..1e6, not both",
         tc->per_move, tc->main, tc->inc);
    return -1;
  }
  if (p->anchor < 0 || p->anchor >= n_agents) {
    errf(err, errlen, "the anchor must be an agent: 0..%d (got %d)", n_agents - 1, p->anchor);
    return -1;
  }
  /* Bad specs fail here, before any thread starts. */
  out->n_agents = n_agents;
  out->anchor = p->anchor;
  for (int i = 0; i < n_agents; i++) {
    agent *a = agent_make(g, specs[i], &(agent_params){1, p->egdb_dir}, err, errlen);
    if (!a) return -1;
    agent_free(a);
    if (strlen(specs[i]) >= sizeof out->specs[i]) {
      errf(err, errlen, "agent spec too long: %s", specs[i]);
      return -1;
    }
    snprintf(out->specs[i], sizeof out->specs[i], "%s", specs[i]);
  }
  for (int a = 0; a < n_agents; a++)
    for (int b = a + 1; b < n_agents; b++) {
      if (p->gauntlet && a != 0) continue;
      arena_pairing *q = &out->pairings[out->n_pairings++];
      memset(q, 0, sizeof *q);
      q->a = a;
      q->b = b;
    }
  match m = {.g = g,
             .p = p,
             .n_agents = n_agents,
             .specs = specs,
             .res = out,
             .on_game = on_game,
             .ud = ud};
  opening_line *book = NULL;
  if (p->openings > 0) {
    /* A pairing plays opening (i / 2) % K in its game i: only the first
     * games / 2 of a larger book are ever played, and they are the same
     * whatever K (the book is drawn in order), so only they are made. */
    int used = p->openings < (p->games + 1) / 2 ? p->openings : (p->games + 1) / 2;
    book = malloc((size_t)used * sizeof *book);
    if (!book) {
      errf(err, errlen, "out of memory");
      return -1;
    }
    if (opening_level_book_report(g, used, p->opening_plies, p->book_depth, p->book_margin, p->seed,
                                  book, p->book_progress, p->book_ctx, err, errlen)) {
      free(book);
      return -1;
    }
  }
  m.book = book;
  int total = out->n_pairings * p->games;
  m.workers = calloc((size_t)p->threads, sizeof *m.workers);
  m.game_hash = calloc((size_t)total, sizeof *m.game_hash);
  if (!m.workers || !m.game_hash) {
    free(m.workers);
    free(m.game_hash);
    free(book);
    errf(err, errlen, "out of memory");
    return -1;
  }
  pthread_mutex_init(&m.lock, NULL);
  double t0 = clock_wall();
  pool_work work = {match_start, match_game, match_finish, &m};
  int rc = pool_run(p->threads, total, &work, err, errlen);
  out->seconds = clock_wall() - t0;
  pthread_mutex_destroy(&m.lock);
  if (!rc) out->distinct_games = count_distinct(m.game_hash, total);
  free(m.game_hash);
  free(m.workers);
  free(book);
  if (rc) return -1;
  arena_rate(out, p->prior_draws);
  return 0;
}

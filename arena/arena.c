/* Matches between agents: threaded play with paired colours from a book of
 * openings (openings.c), then Elo fits (ratings.c). */
#include "arena/arena.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

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
  return p;
}

/* ---- One game -------------------------------------------------------------------------- */

int arena_play(const game *g, agent *south, agent *north, const opening_line *opening,
               arena_game *rec, char *err, size_t errlen) {
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
  int rc = 0;
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
    int a = agent_choose(x, &p, h);
    if (a < 0 || a >= g->n_actions || !(game_legal(g, &p) >> a & 1)) {
      errf(err, errlen, "agent '%s' failed at ply %d: %s", x->spec, p.ply + 1,
           a < 0 ? x->err : "illegal move");
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

/* ---- The match ------------------------------------------------------------------------------ */

typedef struct {
  const game *g;
  const arena_params *p;
  int n_agents;
  const char *const *specs;
  const opening_line *book;
  int total;
  arena_result *res;
  arena_game_fn on_game;
  void *ud;
  pthread_mutex_t lock;
  int next, stop;
  char err[512];
} match;

static void match_fail(match *m, const char *msg) {
  pthread_mutex_lock(&m->lock);
  if (!m->stop) snprintf(m->err, sizeof m->err, "%s", msg);
  m->stop = 1;
  pthread_mutex_unlock(&m->lock);
}

static void *match_worker(void *arg) {
  match *m = arg;
  char err[512];
  agent *ag[ARENA_MAX_AGENTS] = {0};
  arena_game *rec = malloc(sizeof *rec);
  if (!rec) {
    match_fail(m, "out of memory");
    return NULL;
  }
  for (int i = 0; i < m->n_agents; i++) {
    ag[i] = agent_create(m->g, m->specs[i], m->p->seed, err, sizeof err);
    if (!ag[i]) {
      match_fail(m, err);
      goto done;
    }
  }
  for (;;) {
    pthread_mutex_lock(&m->lock);
    int k = m->stop || m->next >= m->total ? -1 : m->next++;
    pthread_mutex_unlock(&m->lock);
    if (k < 0) break;
    int np = m->res->n_pairings, pi = k % np, i = k / np;
    const arena_pairing *q = &m->res->pairings[pi];
    int south = i % 2 == 0 ? q->a : q->b, north = i % 2 == 0 ? q->b : q->a;
    int o = m->p->openings > 0 ? (i / 2) % m->p->openings : -1;
    agent *as = ag[south], *an = ag[north];
    /* Fresh streams per game and seat: results do not depend on threads. */
    rng_seed(&as->rng, m->p->seed, 2 * (uint64_t)k);
    agent_reset(as);
    if (an != as) {
      rng_seed(&an->rng, m->p->seed, 2 * (uint64_t)k + 1);
      agent_reset(an);
    }
    rec->number = k;
    rec->pairing = pi;
    rec->south = south;
    rec->north = north;
    rec->opening = o;
    if (arena_play(m->g, as, an, o >= 0 ? &m->book[o] : NULL, rec, err, sizeof err)) {
      match_fail(m, err);
      break;
    }
    int so = game_outcome(&rec->final, GAME_SOUTH);
    int sa = south == q->a ? so : -so; /* for agent a */
    pthread_mutex_lock(&m->lock);
    arena_pairing *w = &m->res->pairings[pi];
    w->wins += sa > 0;
    w->draws += sa == 0;
    w->losses += sa < 0;
    if (south == q->a) {
      w->a_south_wins += sa > 0;
      w->a_south_draws += sa == 0;
      w->a_south_losses += sa < 0;
    }
    m->res->games++;
    m->res->south_wins += so > 0;
    m->res->draws += so == 0;
    m->res->north_wins += so < 0;
    if (m->on_game) m->on_game(rec, m->res, m->ud);
    pthread_mutex_unlock(&m->lock);
  }
done:
  for (int i = 0; i < m->n_agents; i++) agent_free(ag[i]);
  free(rec);
  return NULL;
}

int arena_run(const game *g, int n_agents, const char *const *specs, const arena_params *p,
              arena_game_fn on_game, void *ud, arena_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (n_agents < 2 || n_agents > ARENA_MAX_AGENTS) {
    errf(err, errlen, "an arena needs 2..%d agents (got %d)", ARENA_MAX_AGENTS, n_agents);
    return -1;
  }
  if (p->games < 2 || p->games % 2) {
    errf(err, errlen, "games per pairing must be even and at least 2 (each opening is played "
         "with both colours); got %d", p->games);
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
  /* Bad specs fail here, before any thread starts. */
  out->n_agents = n_agents;
  out->anchor = -1;
  for (int i = 0; i < n_agents; i++) {
    agent *a = agent_create(g, specs[i], 1, err, errlen);
    if (!a) return -1;
    if (out->anchor < 0 && !strcmp(a->kind->kind, "random")) out->anchor = i;
    agent_free(a);
    if (strlen(specs[i]) >= sizeof out->specs[i]) {
      errf(err, errlen, "agent spec too long: %s", specs[i]);
      return -1;
    }
    snprintf(out->specs[i], sizeof out->specs[i], "%s", specs[i]);
  }
  if (out->anchor < 0) out->anchor = 0;
  for (int a = 0; a < n_agents; a++)
    for (int b = a + 1; b < n_agents; b++) {
      if (p->gauntlet && a != 0) continue;
      arena_pairing *q = &out->pairings[out->n_pairings++];
      memset(q, 0, sizeof *q);
      q->a = a;
      q->b = b;
    }
  opening_line *book = NULL;
  if (p->openings > 0) {
    book = malloc((size_t)p->openings * sizeof *book);
    if (!book) {
      errf(err, errlen, "out of memory");
      return -1;
    }
    if (opening_level_book(g, p->openings, p->opening_plies, p->book_depth, p->book_margin,
                           p->seed, book, err, errlen)) {
      free(book);
      return -1;
    }
  }
  match m;
  memset(&m, 0, sizeof m);
  m.g = g;
  m.p = p;
  m.n_agents = n_agents;
  m.specs = specs;
  m.book = book;
  m.total = out->n_pairings * p->games;
  m.res = out;
  m.on_game = on_game;
  m.ud = ud;
  pthread_mutex_init(&m.lock, NULL);
  double t0 = clock_wall();
  pthread_t th[256];
  int started = 0;
  for (int t = 0; t < p->threads; t++) {
    if (pthread_create(&th[t], NULL, match_worker, &m) != 0) {
      match_fail(&m, "cannot start a thread");
      break;
    }
    started++;
  }
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
  pthread_mutex_destroy(&m.lock);
  free(book);
  out->seconds = clock_wall() - t0;
  if (m.stop && m.err[0]) {
    errf(err, errlen, "%s", m.err);
    return -1;
  }
  arena_rate(out, p->prior_draws);
  return 0;
}

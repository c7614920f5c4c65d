/* Matches between agents: threaded play with paired colours from a book of
 * openings (openings.c), Elo fits (ratings.c) and game records. */
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

/* ---- Records ------------------------------------------------------------------------------ */

static const char *result_text(const game_pos *p) {
  return p->winner == GAME_DRAW ? "1/2-1/2" : p->winner == GAME_SOUTH ? "1-0" : "0-1";
}

static void score_text(const game_pos *p, char *buf, size_t len) {
  if (p->half)
    snprintf(buf, len, "%d.5 %d.5", p->final[0], p->final[1]);
  else
    snprintf(buf, len, "%d %d", p->final[0], p->final[1]);
}

int arena_write_record(FILE *f, const game *g, const arena_game *rec, const char *south_spec,
                       const char *north_spec) {
  char opts[512], score[32];
  if (game_options_string(g, opts, sizeof opts)) return -1;
  fprintf(f, "game %d\nrules %s %s\nsouth %s\nnorth %s\nopening", rec->number, g->rules->name,
          opts, south_spec, north_spec);
  if (rec->open.n == 0) fputs(" -", f);
  for (int i = 0; i < rec->open.n; i++) fprintf(f, " %d", rec->open.moves[i]);
  fputs("\nmoves", f);
  if (rec->n_moves == 0) fputs(" -", f);
  for (int i = 0; i < rec->n_moves; i++) fprintf(f, " %d", rec->moves[i]);
  score_text(&rec->final, score, sizeof score);
  fprintf(f, "\nresult %s\nscore %s\nend %s\nplies %d\n\n", result_text(&rec->final), score,
          game_end_name(rec->final.end_reason), rec->final.ply);
  return ferror(f) ? -1 : 0;
}

/* Reads one line without its newline; 0 at EOF. Long lines are an error. */
static int read_line(FILE *f, char *buf, size_t len, int *line, int *too_long) {
  *too_long = 0;
  if (!fgets(buf, (int)len, f)) return 0;
  ++*line;
  size_t n = strlen(buf);
  if (n && buf[n - 1] == '\n')
    buf[--n] = 0;
  else if (!feof(f))
    *too_long = 1;
  if (n && buf[n - 1] == '\r') buf[--n] = 0;
  return 1;
}

static int parse_moves(const char *s, uint8_t *out, int cap, int *n) {
  *n = 0;
  while (*s == ' ') s++;
  if (!strcmp(s, "-")) return 0;
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v >= GAME_MAX_ACTIONS || *n >= cap) return -1;
    out[(*n)++] = (uint8_t)v;
    s = end;
    while (*s == ' ') s++;
  }
  return 0;
}

int arena_read_record(FILE *f, arena_record *r, int *line, char *err, size_t errlen) {
  static const char *const keys[] = {"game", "rules", "south", "north", "opening",
                                     "moves", "result", "score", "end", "plies"};
  char *buf = malloc(16384);
  if (!buf) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  memset(r, 0, sizeof *r);
  int k = 0, rc = 0, too_long;
  while (k < 10) {
    if (!read_line(f, buf, 16384, line, &too_long)) {
      if (k == 0) goto out; /* clean end */
      errf(err, errlen, "line %d: record ends early (expected '%s')", *line, keys[k]);
      rc = -1;
      goto out;
    }
    if (too_long) {
      errf(err, errlen, "line %d: line too long", *line);
      rc = -1;
      goto out;
    }
    if ((buf[0] == 0 || buf[0] == '#') && k == 0) continue;
    size_t kl = strlen(keys[k]);
    if (strncmp(buf, keys[k], kl) != 0 || (buf[kl] != ' ' && buf[kl] != 0)) {
      errf(err, errlen, "line %d: expected '%s', got '%.40s'", *line, keys[k], buf);
      rc = -1;
      goto out;
    }
    const char *v = buf[kl] ? buf + kl + 1 : "";
    int bad = 0;
    switch (k) {
    case 0: r->number = atoi(v); break;
    case 1: bad = snprintf(r->rules, sizeof r->rules, "%s", v) >= (int)sizeof r->rules; break;
    case 2: snprintf(r->south, sizeof r->south, "%s", v); break;
    case 3: snprintf(r->north, sizeof r->north, "%s", v); break;
    case 4: bad = parse_moves(v, r->open.moves, OPENING_MAX_PLIES, &r->open.n); break;
    case 5: bad = parse_moves(v, r->moves, GAME_MAX_PLIES_CAP, &r->n_moves); break;
    case 6:
      bad = strcmp(v, "1-0") && strcmp(v, "0-1") && strcmp(v, "1/2-1/2");
      snprintf(r->result, sizeof r->result, "%s", v);
      break;
    case 7: snprintf(r->score, sizeof r->score, "%s", v); break;
    case 8: snprintf(r->end, sizeof r->end, "%s", v); break;
    case 9: r->plies = atoi(v); break;
    }
    if (bad) {
      errf(err, errlen, "line %d: bad value for '%s': '%.60s'", *line, keys[k], v);
      rc = -1;
      goto out;
    }
    k++;
  }
  rc = 1;
out:
  free(buf);
  return rc;
}

int arena_replay_record(const arena_record *r, game *g, game_pos *end, char *err,
                        size_t errlen) {
  char buf[512], *argv[GAME_MAX_OPTIONS + 2], *save = NULL;
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", r->rules);
  for (char *t = strtok_r(buf, " ", &save); t && argc < GAME_MAX_OPTIONS + 2;
       t = strtok_r(NULL, " ", &save))
    argv[argc++] = t;
  if (argc == 0) {
    errf(err, errlen, "game %d: empty rules", r->number);
    return -1;
  }
  if (game_configure(g, argv[0], argc - 1, argv + 1, err, errlen)) return -1;
  game_hist *h = malloc(sizeof *h);
  if (!h) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  game_pos p;
  game_start(g, &p);
  game_hist_reset(h, &p);
  int rc = 0, total = r->open.n + r->n_moves;
  for (int i = 0; i < total; i++) {
    int a = i < r->open.n ? r->open.moves[i] : r->moves[i - r->open.n];
    if (p.status != GAME_ONGOING || a >= g->n_actions || !(game_legal(g, &p) >> a & 1)) {
      errf(err, errlen, "game %d: move %d at ply %d is not legal", r->number, a, i + 1);
      rc = -1;
      goto out;
    }
    game_step(g, &p, h, a);
  }
  char score[32];
  score_text(&p, score, sizeof score);
  if (p.status != GAME_OVER || strcmp(result_text(&p), r->result) || strcmp(score, r->score) ||
      strcmp(game_end_name(p.end_reason), r->end) || p.ply != r->plies) {
    errf(err, errlen, "game %d: the moves give %s %s (%s, %d plies), the record says %s %s "
         "(%s, %d plies)", r->number, p.status == GAME_OVER ? result_text(&p) : "unfinished",
         score, game_end_name(p.end_reason), p.ply, r->result, r->score, r->end, r->plies);
    rc = -1;
  }
  *end = p;
out:
  free(h);
  return rc;
}

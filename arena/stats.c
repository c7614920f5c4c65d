/* Variant statistics: games played by a pool of workers, then summaries. */
#include "arena/stats.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/arena_internal.h"
#include "arena/ratings.h"
#include "base/base.h"
#include "base/pool.h"
#include "search/agent.h"

stats_params stats_defaults(void) {
  stats_params p = {1000, 1, 1, NULL, 0, NULL};
  return p;
}

/* A count of n games with its Wilson interval. */
static stats_rate rate_of(int k, int n) {
  stats_rate r = {k, n > 0 ? (double)k / n : 0, 0, 1};
  rating_wilson(r.rate, n, &r.lo, &r.hi);
  return r;
}

typedef struct {
  const game *g;
  const char *spec[2]; /* first, second */
  const stats_params *p;
  int first_side;
  stats_game *games;    /* job k writes games[k] only */
  arena_seats *workers; /* seat 0 moves first */
  stats_game_fn on_game;
  void *ud;
  int done;             /* under lock */
  pthread_mutex_t lock; /* done and the on_game calls */
} job;

static int stats_start(void *ctx, int worker, char *err, size_t errlen) {
  job *j = ctx;
  agent_params ap = {j->p->seed, j->p->egdb_dir};
  return arena_seats_create(&j->workers[worker], j->g, 2, j->spec, &ap, err, errlen);
}

static void stats_finish(void *ctx, int worker) {
  job *j = ctx;
  arena_seats_free(&j->workers[worker]);
}

static uint16_t clamp16(int v) { return (uint16_t)(v > 65535 ? 65535 : v); }

/* The record of a finished game: its plies replayed for the flags of each
 * move (captures, grand slams), which the game loop does not keep. */
static void summarize_game(const game *g, const arena_game *rec, int first_side, stats_game *s) {
  memset(s, 0, sizeof *s);
  game_pos p;
  game_start(g, &p);
  int caps = 0, gs = 0, n = rec->open.n + rec->n_moves;
  uint64_t h = checksum64(&n, sizeof n, CHECKSUM64_INIT);
  for (int i = 0; i < n; i++) {
    int a = i < rec->open.n ? rec->open.moves[i] : rec->moves[i - rec->open.n];
    if (i < 2) {
      s->open[i] = (uint8_t)a;
      s->open_mover[i] = p.mover;
      s->n_open = (uint8_t)(i + 1);
    }
    uint8_t b = (uint8_t)a;
    h = checksum64(&b, 1, h);
    int flags = game_play(g, &p, a);
    caps += (flags & GAME_PLAY_CAPTURE) != 0;
    gs += (flags & GAME_PLAY_GRANDSLAM) != 0;
  }
  s->outcome = (int8_t)game_outcome(&rec->final, first_side);
  s->margin = (int16_t)game_margin(&rec->final, first_side);
  s->plies = rec->final.ply;
  s->end = rec->final.end_reason;
  s->captures = clamp16(caps);
  s->grand_slams = clamp16(gs);
  s->hash = h;
}

static int stats_game_job(void *ctx, int worker, int k, char *err, size_t errlen) {
  job *j = ctx;
  arena_seats *w = &j->workers[worker];
  arena_game *rec = w->rec;
  for (int s = 0; s < 2; s++) arena_seat_for_game(w->ag[s], j->p->seed, k, s);
  agent *south = w->ag[j->first_side == GAME_SOUTH ? 0 : 1];
  agent *north = w->ag[j->first_side == GAME_SOUTH ? 1 : 0];
  const opening_line *o = j->p->n_book > 0 ? &j->p->book[k % j->p->n_book] : NULL;
  if (arena_play(j->g, south, north, o, rec, err, errlen)) return -1;
  summarize_game(j->g, rec, j->first_side, &j->games[k]);
  pthread_mutex_lock(&j->lock);
  j->done++;
  if (j->on_game) j->on_game(j->done, j->p->games, j->ud);
  pthread_mutex_unlock(&j->lock);
  return 0;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n). */
static int percentile(const int *v, int n, double q) {
  int i = (int)ceil(q * n) - 1;
  return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

int stats_play(const game *g, const char *first, const char *second, const stats_params *p,
               stats_game_fn on_game, void *ud, stats_game *games, char *err, size_t errlen) {
  if (p->games < 1 || p->threads < 1 || p->threads > 256) {
    errf(err, errlen, "stats needs games >= 1 and threads 1..256");
    return -1;
  }
  if (p->n_book < 0 || (p->n_book > 0 && !p->book)) {
    errf(err, errlen, "stats: a book of %d openings without its openings", p->n_book);
    return -1;
  }
  for (int i = 0; i < 2; i++) { /* bad specs fail before threads start */
    agent *a = agent_make(g, i ? second : first, &(agent_params){1, p->egdb_dir}, err, errlen);
    if (!a) return -1;
    agent_free(a);
  }
  job j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.spec[0] = first;
  j.spec[1] = second;
  j.p = p;
  j.games = games;
  j.on_game = on_game;
  j.ud = ud;
  game_pos start;
  game_start(g, &start);
  j.first_side = start.mover;
  j.workers = calloc((size_t)p->threads, sizeof *j.workers);
  if (!j.workers) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  pthread_mutex_init(&j.lock, NULL);
  pool_work work = {stats_start, stats_game_job, stats_finish, &j};
  int rc = pool_run(p->threads, p->games, &work, err, errlen);
  pthread_mutex_destroy(&j.lock);
  free(j.workers);
  return rc ? -1 : 0;
}

int stats_summarize(const stats_game *games, int n, int first_side, stats_result *out, char *err,
                    size_t errlen) {
  memset(out, 0, sizeof *out);
  out->games = n;
  out->first_side = first_side;
  if (n < 1) {
    errf(err, errlen, "no games to summarize");
    return -1;
  }
  int *len = malloc((size_t)n * sizeof *len);
  uint64_t *hash = malloc((size_t)n * sizeof *hash);
  if (!len || !hash) {
    free(len);
    free(hash);
    errf(err, errlen, "out of memory");
    return -1;
  }
  int w = 0, d = 0, l = 0;
  double sum = 0, sum2 = 0, margin = 0;
  for (int k = 0; k < n; k++) {
    const stats_game *s = &games[k];
    w += s->outcome > 0;
    d += s->outcome == 0;
    l += s->outcome < 0;
    margin += s->margin;
    len[k] = s->plies;
    hash[k] = s->hash;
    sum += s->plies;
    sum2 += (double)s->plies * s->plies;
    if (s->end < GAME_END_COUNT) out->end_reason[s->end]++;
    out->grand_slams += s->grand_slams;
    out->captures += s->captures;
  }
  out->first_win = rate_of(w, n);
  out->draw = rate_of(d, n);
  out->first_loss = rate_of(l, n);
  rating_score_ci(w, d, l, &out->first_score, &out->first_score_lo, &out->first_score_hi);
  out->mean_margin = margin / n;
  out->len_mean = sum / n;
  out->len_sd = n > 1 ? sqrt(fmax(0, (sum2 - sum * sum / n) / (n - 1))) : 0;
  qsort(len, (size_t)n, sizeof *len, cmp_int);
  out->len_min = len[0];
  out->len_max = len[n - 1];
  out->len_p10 = percentile(len, n, 0.10);
  out->len_p25 = percentile(len, n, 0.25);
  out->len_median = percentile(len, n, 0.50);
  out->len_p75 = percentile(len, n, 0.75);
  out->len_p90 = percentile(len, n, 0.90);
  qsort(hash, (size_t)n, sizeof *hash, cmp_u64);
  out->distinct_games = 1;
  for (int k = 1; k < n; k++) out->distinct_games += hash[k] != hash[k - 1];
  free(len);
  free(hash);
  return 0;
}

int stats_run(const game *g, const char *first, const char *second, const stats_params *p,
              stats_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (p->games < 1) {
    errf(err, errlen, "stats needs games >= 1 and threads 1..256");
    return -1;
  }
  stats_game *games = calloc((size_t)p->games, sizeof *games);
  if (!games) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  double t0 = clock_wall();
  if (stats_play(g, first, second, p, NULL, NULL, games, err, errlen)) {
    free(games);
    return -1;
  }
  game_pos start;
  game_start(g, &start);
  int rc = stats_summarize(games, p->games, start.mover, out, err, errlen);
  out->seconds = clock_wall() - t0;
  free(games);
  return rc;
}

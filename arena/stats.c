/* Variant statistics: games played by a pool of workers, then summaries. */
#include "arena/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/arena_internal.h"
#include "arena/ratings.h"
#include "base/base.h"
#include "base/pool.h"
#include "search/agent.h"

stats_params stats_defaults(void) {
  stats_params p = {1000, 1, 1};
  return p;
}

/* A count of n games with its Wilson interval. */
static stats_rate rate_of(int k, int n) {
  stats_rate r = {k, n > 0 ? (double)k / n : 0, 0, 1};
  rating_wilson(r.rate, n, &r.lo, &r.hi);
  return r;
}

/* What a worker keeps per game. */
typedef struct {
  int16_t outcome; /* for the first player */
  int16_t margin;
  uint16_t plies;
  uint8_t end;
  uint8_t grand_slams;
} game_sum;

typedef struct {
  const game *g;
  const char *spec[2]; /* first, second */
  const stats_params *p;
  int first_side;
  game_sum *sums;       /* job k writes sums[k] only */
  arena_seats *workers; /* seat 0 moves first */
} job;

static int stats_start(void *ctx, int worker, char *err, size_t errlen) {
  job *j = ctx;
  return arena_seats_create(&j->workers[worker], j->g, 2, j->spec, j->p->seed, err, errlen);
}

static void stats_finish(void *ctx, int worker) {
  job *j = ctx;
  arena_seats_free(&j->workers[worker]);
}

static int stats_game(void *ctx, int worker, int k, char *err, size_t errlen) {
  job *j = ctx;
  arena_seats *w = &j->workers[worker];
  arena_game *rec = w->rec;
  for (int s = 0; s < 2; s++) arena_seat_for_game(w->ag[s], j->p->seed, k, s);
  agent *south = w->ag[j->first_side == GAME_SOUTH ? 0 : 1];
  agent *north = w->ag[j->first_side == GAME_SOUTH ? 1 : 0];
  if (arena_play(j->g, south, north, NULL, rec, err, errlen)) return -1;
  /* Grand slams: replay and look at the flags of each move. */
  game_pos p;
  game_start(j->g, &p);
  int gs = 0;
  for (int i = 0; i < rec->n_moves; i++)
    gs += (game_play(j->g, &p, rec->moves[i]) & GAME_PLAY_GRANDSLAM) != 0;
  game_sum *s = &j->sums[k];
  s->outcome = (int16_t)game_outcome(&rec->final, j->first_side);
  s->margin = (int16_t)game_margin(&rec->final, j->first_side);
  s->plies = rec->final.ply;
  s->end = rec->final.end_reason;
  s->grand_slams = (uint8_t)(gs > 255 ? 255 : gs);
  return 0;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Nearest-rank percentile of sorted v[0..n). */
static int percentile(const int *v, int n, double q) {
  int i = (int)ceil(q * n) - 1;
  return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

int stats_run(const game *g, const char *first, const char *second, const stats_params *p,
              stats_result *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (p->games < 1 || p->threads < 1 || p->threads > 256) {
    errf(err, errlen, "stats needs games >= 1 and threads 1..256");
    return -1;
  }
  for (int i = 0; i < 2; i++) { /* bad specs fail before threads start */
    agent *a = agent_create(g, i ? second : first, 1, err, errlen);
    if (!a) return -1;
    agent_free(a);
  }
  job j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.spec[0] = first;
  j.spec[1] = second;
  j.p = p;
  game_pos start;
  game_start(g, &start);
  j.first_side = start.mover;
  j.sums = calloc((size_t)p->games, sizeof *j.sums);
  j.workers = calloc((size_t)p->threads, sizeof *j.workers);
  int *len = malloc((size_t)p->games * sizeof *len);
  if (!j.sums || !j.workers || !len) {
    free(j.sums);
    free(j.workers);
    free(len);
    errf(err, errlen, "out of memory");
    return -1;
  }
  double t0 = clock_wall();
  pool_work work = {stats_start, stats_game, stats_finish, &j};
  int rc = pool_run(p->threads, p->games, &work, err, errlen);
  free(j.workers);
  if (rc) {
    free(j.sums);
    free(len);
    return -1;
  }
  int n = p->games, w = 0, d = 0, l = 0;
  double sum = 0, sum2 = 0, margin = 0;
  for (int k = 0; k < n; k++) {
    const game_sum *s = &j.sums[k];
    w += s->outcome > 0;
    d += s->outcome == 0;
    l += s->outcome < 0;
    margin += s->margin;
    len[k] = s->plies;
    sum += s->plies;
    sum2 += (double)s->plies * s->plies;
    if (s->end < GAME_END_COUNT) out->end_reason[s->end]++;
    out->grand_slams += s->grand_slams;
  }
  qsort(len, (size_t)n, sizeof *len, cmp_int);
  out->games = n;
  out->first_side = j.first_side;
  out->first_win = rate_of(w, n);
  out->draw = rate_of(d, n);
  out->first_loss = rate_of(l, n);
  rating_score_ci(w, d, l, &out->first_score, &out->first_score_lo, &out->first_score_hi);
  out->mean_margin = margin / n;
  out->len_mean = sum / n;
  out->len_sd = n > 1 ? sqrt(fmax(0, (sum2 - sum * sum / n) / (n - 1))) : 0;
  out->len_min = len[0];
  out->len_max = len[n - 1];
  out->len_p10 = percentile(len, n, 0.10);
  out->len_p25 = percentile(len, n, 0.25);
  out->len_median = percentile(len, n, 0.50);
  out->len_p75 = percentile(len, n, 0.75);
  out->len_p90 = percentile(len, n, 0.90);
  out->seconds = clock_wall() - t0;
  free(j.sums);
  free(len);
  return 0;
}

/* The retrograde solver (docs/EGDB.md, "How it is computed").
 *
 * Levels are solved in increasing seed count. In a level, a capture leaves
 * for a solved lower level, so each board first gets best_exit (the best of
 * its capturing moves, or its famine award) and a counter of its
 * non-capturing moves, the only ones that stay in the level and can cycle.
 * Then for k = n .. 1 the sets A = {V >= k} and B = {V <= -k} grow from the
 * boards whose exit decides them, through predecessors found by un-sowing:
 * a board with a move into B joins A (value k); a board whose every
 * non-capturing move leads into A and whose exits are worth at most -k
 * joins B (value -k). What is left after k = 1 is worth 0. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"
#include "base/pool.h"
#include "egdb/egdb_internal.h"

#define UNDECIDED  ((int8_t)-128)
#define NO_EXIT    ((int8_t)-127) /* below every value: no capture, no famine */
#define SCAN_CHUNK 65536
#define WAVE_CHUNK 4096
#define OUT_BUF    8192
#define MAX_PREDS  (6 * EGDB_MAX_SEEDS)
/* Boards a second one thread solves, for the plan's estimate (measured on
 * the reference machine of BENCHMARKS.md). */
#define REF_RATE   1.2e6

typedef struct {
  const game *g;
  const egdb_level *lv; /* levels below n */
  int n, k, threads;
  uint64_t size;
  int8_t *val, *best;
  uint8_t *cnt;
  uint32_t *queue;
  uint64_t head, tail; /* the wave being processed: queue[head .. tail) */
  uint64_t qend;       /* next free slot of the queue (atomic) */
  uint32_t *outbuf;    /* OUT_BUF a worker */
  int *outlen;
  uint64_t scanned; /* boards of the move scan done (atomic) */
  /* progress */
  const egdb_build_params *bp;
  uint64_t base, total, reused;
  double t0, last;
} solver;

static void report(solver *s, const char *phase, uint64_t done, int force) {
  if (!s->bp->progress) return;
  double now = clock_wall();
  if (!force && now - s->last < 0.25) return;
  s->last = now;
  egdb_progress p = {s->n, s->bp->seeds, phase, done, s->total, s->reused, now - s->t0};
  s->bp->progress(s->bp->ctx, &p);
}

/* ---- The moves of every board ------------------------------------------------------ */

static int scan_job(void *ctx, int worker, int job, char *err, size_t errlen) {
  (void)err, (void)errlen;
  solver *s = ctx;
  uint64_t lo = (uint64_t)job * SCAN_CHUNK, hi = lo + SCAN_CHUNK;
  if (hi > s->size) hi = s->size;
  int c[11];
  uint8_t b[EGDB_PITS], cb[EGDB_PITS];
  ix_unrank_bars(s->n, lo, c);
  for (uint64_t r = lo; r < hi; r++) {
    if (r > lo) ix_next_bars(s->n, c);
    ix_bars_board(s->n, c, b);
    game_pos p;
    board_pos(b, &p);
    game_moves m = game_legal(s->g, &p);
    int best = m ? NO_EXIT : board_terminal(b), count = 0;
    for (; m; m &= m - 1) {
      game_pos q = p;
      if (!(game_play(s->g, &q, __builtin_ctz(m)) & GAME_PLAY_CAPTURE)) {
        count++;
        continue;
      }
      pos_board(&q, cb);
      int v = q.store[0] - lv_value(s->lv, cb);
      if (v > best) best = v;
    }
    s->best[r] = (int8_t)best;
    s->cnt[r] = (uint8_t)count;
    s->val[r] = UNDECIDED;
  }
  __atomic_fetch_add(&s->scanned, hi - lo, __ATOMIC_RELAXED);
  if (worker == 0)
    report(s, "moves", s->base + __atomic_load_n(&s->scanned, __ATOMIC_RELAXED) / 2, 0);
  return 0;
}

/* ---- Predecessors ------------------------------------------------------------------
 * In q's frame the previous mover owns pits 6..11. His move emptied its
 * origin (laps pass over it), so the origin is an empty pit of his row;
 * taking back s seeds along the sowing path and putting them in the origin
 * gives a candidate, which the engine must confirm: legal there, not a
 * capture, and leading to q. The confirmation keeps feeding and grand-slam
 * subtleties exact. */
static int predecessors(const game *g, const uint8_t *q, int n, uint64_t *out) {
  int np = 0;
  for (int o = 6; o < 12; o++) {
    if (q[o]) continue;
    int t[EGDB_PITS];
    for (int i = 0; i < EGDB_PITS; i++) t[i] = q[i];
    for (int s = 1; s <= n; s++) {
      int pit = (o + (s - 1) % 11 + 1) % EGDB_PITS;
      if (--t[pit] < 0) break; /* the path needs more seeds here: so does every longer one */
      uint8_t pb[EGDB_PITS], cb[EGDB_PITS];
      for (int i = 0; i < EGDB_PITS; i++) pb[i] = (uint8_t)t[(i + 6) % EGDB_PITS];
      pb[o - 6] = (uint8_t)s;
      game_pos p;
      board_pos(pb, &p);
      if (!(game_legal(g, &p) >> (o - 6) & 1)) continue;
      if (game_play(g, &p, o - 6) & GAME_PLAY_CAPTURE) continue;
      pos_board(&p, cb);
      if (memcmp(cb, q, EGDB_PITS)) continue;
      out[np++] = ix_rank(pb);
    }
  }
  return np;
}

static void push(solver *s, int worker, uint32_t r) {
  uint32_t *buf = s->outbuf + (size_t)worker * OUT_BUF;
  int *len = &s->outlen[worker];
  if (*len == OUT_BUF) {
    uint64_t at = __atomic_fetch_add(&s->qend, (uint64_t)*len, __ATOMIC_RELAXED);
    memcpy(s->queue + at, buf, (size_t)*len * sizeof *buf);
    *len = 0;
  }
  buf[(*len)++] = r;
}

static void flush(solver *s, int worker) {
  int *len = &s->outlen[worker];
  if (!*len) return;
  uint64_t at = __atomic_fetch_add(&s->qend, (uint64_t)*len, __ATOMIC_RELAXED);
  memcpy(s->queue + at, s->outbuf + (size_t)worker * OUT_BUF, (size_t)*len * sizeof(uint32_t));
  *len = 0;
}

static int decide(solver *s, uint64_t r, int v) {
  int8_t expect = UNDECIDED;
  return __atomic_compare_exchange_n(&s->val[r], &expect, (int8_t)v, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED);
}

/* q has just joined A (value > 0) or B (< 0): its predecessors follow. */
static void propagate(solver *s, int worker, uint32_t qr) {
  uint8_t q[EGDB_PITS];
  int c[11];
  ix_unrank_bars(s->n, qr, c);
  ix_bars_board(s->n, c, q);
  uint64_t pr[MAX_PREDS];
  int np = predecessors(s->g, q, s->n, pr);
  /* Predecessors lie anywhere in the level: start every load at once. */
  for (int i = 0; i < np; i++) {
    __builtin_prefetch(&s->val[pr[i]]);
    __builtin_prefetch(&s->cnt[pr[i]]);
    __builtin_prefetch(&s->best[pr[i]]);
  }
  int into_b = s->val[qr] < 0;
  for (int i = 0; i < np; i++) {
    uint64_t r = pr[i];
    if (__atomic_load_n(&s->val[r], __ATOMIC_RELAXED) != UNDECIDED) continue;
    if (into_b) {
      if (decide(s, r, s->k)) push(s, worker, (uint32_t)r);
    } else if (__atomic_sub_fetch(&s->cnt[r], 1, __ATOMIC_RELAXED) == 0 && s->best[r] <= -s->k) {
      if (decide(s, r, -s->k)) push(s, worker, (uint32_t)r);
    }
  }
}

static int wave_job(void *ctx, int worker, int job, char *err, size_t errlen) {
  (void)err, (void)errlen;
  solver *s = ctx;
  uint64_t lo = s->head + (uint64_t)job * WAVE_CHUNK, hi = lo + WAVE_CHUNK;
  if (hi > s->tail) hi = s->tail;
  for (uint64_t i = lo; i < hi; i++) {
    if (i + 16 < hi) __builtin_prefetch(&s->val[s->queue[i + 16]]);
    propagate(s, worker, s->queue[i]);
  }
  flush(s, worker);
  return 0;
}

/* Runs waves until no board joins; small waves stay on this thread. */
static int run_waves(solver *s, char *err, size_t errlen) {
  while (s->head < s->qend) {
    s->tail = s->qend;
    uint64_t len = s->tail - s->head;
    if (len < 2 * WAVE_CHUNK || s->threads == 1) {
      for (uint64_t i = s->head; i < s->tail; i++) {
        if (i + 16 < s->tail) __builtin_prefetch(&s->val[s->queue[i + 16]]);
        propagate(s, 0, s->queue[i]);
      }
      flush(s, 0);
    } else {
      pool_work w = {NULL, wave_job, NULL, s};
      if (pool_run(s->threads, (int)((len + WAVE_CHUNK - 1) / WAVE_CHUNK), &w, err, errlen))
        return -1;
    }
    s->head = s->tail;
    report(s, "cycles", s->base + s->size / 2 + (s->size / 2) * (uint64_t)(s->n - s->k) / s->n, 0);
  }
  return 0;
}

/* ---- One level ----------------------------------------------------------------------- */

static int solve_level(solver *s, char *err, size_t errlen) {
  uint64_t size = s->size;
  int n = s->n;
  s->scanned = 0;
  pool_work w = {NULL, scan_job, NULL, s};
  if (pool_run(s->threads, (int)((size + SCAN_CHUNK - 1) / SCAN_CHUNK), &w, err, errlen)) return -1;
  /* Boards by best_exit (values -n..n; 0 and none never seed a stage). */
  uint64_t start[2 * EGDB_MAX_SEEDS + 2] = {0};
  for (uint64_t r = 0; r < size; r++)
    if (s->best[r] != 0 && s->best[r] != NO_EXIT) start[s->best[r] + n + 1]++;
  for (int i = 1; i < 2 * n + 2; i++) start[i] += start[i - 1];
  uint32_t *bucket = malloc((start[2 * n + 1] + 1) * sizeof *bucket);
  if (!bucket) {
    errf(err, errlen, "out of memory (level %d)", n);
    return -1;
  }
  uint64_t fill[2 * EGDB_MAX_SEEDS + 2];
  memcpy(fill, start, sizeof fill);
  for (uint64_t r = 0; r < size; r++)
    if (s->best[r] != 0 && s->best[r] != NO_EXIT) bucket[fill[s->best[r] + n]++] = (uint32_t)r;
  s->head = s->qend = 0;
  int rc = 0;
  for (s->k = n; s->k >= 1 && !rc; s->k--) {
    int k = s->k;
    for (uint64_t i = start[k + n]; i < start[k + n + 1]; i++)
      if (decide(s, bucket[i], k)) push(s, 0, bucket[i]);
    for (uint64_t i = start[n - k]; i < start[n - k + 1]; i++)
      if (s->cnt[bucket[i]] == 0 && decide(s, bucket[i], -k)) push(s, 0, bucket[i]);
    flush(s, 0);
    rc = run_waves(s, err, errlen);
  }
  free(bucket);
  for (uint64_t r = 0; r < size; r++)
    if (s->val[r] == UNDECIDED) s->val[r] = 0; /* an exit worth 0, or endless play */
  return rc;
}

/* ---- The build --------------------------------------------------------------------------- */

egdb_plan egdb_plan_for(int seeds, int threads) {
  egdb_plan p = {0, 0, 0, 0, 0};
  if (seeds < 0 || seeds > EGDB_MAX_SEEDS) return p;
  for (int n = 0; n <= seeds; n++) {
    p.boards += egdb_level_size(n);
    p.disk += EGDB_HEADER + egdb_level_size(n);
  }
  /* The levels below N, and N's values, exits, counters, queue and buckets. */
  p.memory = p.boards - egdb_level_size(seeds) + 11 * egdb_level_size(seeds);
  p.est_seconds = (double)p.boards / (REF_RATE * (threads > 0 ? threads : 1));
  p.disk_new = p.disk;
  return p;
}

egdb_plan egdb_plan_dir(const char *dir, int seeds, int threads) {
  egdb_plan p = egdb_plan_for(seeds, threads);
  char path[1200];
  struct stat st;
  for (int n = 0; n <= seeds && p.boards; n++) {
    uint64_t bytes = EGDB_HEADER + egdb_level_size(n);
    if (!egdb_level_path(path, sizeof path, dir, n) && stat(path, &st) == 0 &&
        S_ISREG(st.st_mode) && (uint64_t)st.st_size == bytes)
      p.disk_new -= bytes;
  }
  return p;
}

int egdb_build(const char *dir, const egdb_build_params *bp, char *err, size_t errlen) {
  egdb_index_init();
  if (bp->seeds < 0 || bp->seeds > EGDB_MAX_SEEDS || bp->threads < 1) {
    errf(err, errlen, "seeds %d (0..%d) or threads %d (at least 1) out of range", bp->seeds,
         EGDB_MAX_SEEDS, bp->threads);
    return -1;
  }
  game g;
  char rules[EGDB_RULES_LEN];
  if (egdb_default_game(&g, rules, sizeof rules, err, errlen) || dir_make(dir, err, errlen))
    return -1;
  afile_remove_stale(dir, NULL, 0);
  egdb_level lv[EGDB_MAX_SEEDS + 1];
  int8_t *owned[EGDB_MAX_SEEDS + 1] = {0};
  memset(lv, 0, sizeof lv);
  uint64_t top = egdb_level_size(bp->seeds);
  solver s = {.g = &g, .lv = lv, .threads = bp->threads, .bp = bp, .t0 = clock_wall()};
  s.total = egdb_plan_for(bp->seeds, 1).boards;
  s.best = malloc(top);
  s.cnt = malloc(top);
  s.queue = malloc(top * sizeof *s.queue);
  s.outbuf = malloc((size_t)bp->threads * OUT_BUF * sizeof *s.outbuf);
  s.outlen = calloc((size_t)bp->threads, sizeof *s.outlen);
  int rc = -1;
  if (!s.best || !s.cnt || !s.queue || !s.outbuf || !s.outlen) {
    errf(err, errlen, "out of memory (%llu boards of %d seeds)", (unsigned long long)top,
         bp->seeds);
    goto done;
  }
  for (int n = 0; n <= bp->seeds; n++) {
    s.n = n;
    s.size = egdb_level_size(n);
    int got = egdb_level_load(dir, n, rules, &lv[n], err, errlen);
    if (got < 0) goto done; /* a damaged file is reported, not silently rebuilt */
    if (got == 0) {
      if (!(owned[n] = malloc(s.size))) {
        errf(err, errlen, "out of memory (level %d)", n);
        goto done;
      }
      s.val = owned[n];
      if (solve_level(&s, err, errlen)) goto done;
      report(&s, "write", s.base + s.size, 1);
      if (egdb_level_write(dir, n, rules, owned[n], err, errlen)) goto done;
      lv[n].values = owned[n];
    } else {
      s.reused += s.size;
    }
    s.base += s.size;
    report(&s, "levels", s.base, 1);
  }
  report(&s, "done", s.total, 1);
  rc = 0;
done:
  for (int n = 0; n <= EGDB_MAX_SEEDS; n++) {
    if (owned[n])
      free(owned[n]);
    else
      egdb_level_unload(&lv[n]);
  }
  free(s.best);
  free(s.cnt);
  free(s.queue);
  free(s.outbuf);
  free(s.outlen);
  return rc;
}

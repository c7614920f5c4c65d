/* Independent checks of a database: the Bellman equation on every board,
 * and a brute-force value iteration on small boards that shares neither
 * the index nor the solver with the build. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/pool.h"
#include "egdb/egdb_internal.h"

#define CHECK_CHUNK 65536

typedef struct {
  const egdb *db;
  int n;
  uint64_t size;
  uint64_t boards, bad; /* atomic */
  pthread_mutex_t mu;
  char *first_bad;
  size_t first_len;
} bellman;

static void note_bad(bellman *c, const char *fmt, const uint8_t *b, int v, int want) {
  pthread_mutex_lock(&c->mu);
  if (!c->first_bad[0]) {
    char board[64];
    size_t k = 0;
    for (int i = 0; i < EGDB_PITS; i++)
      k += (size_t)snprintf(board + k, sizeof board - k, "%s%d", i ? " " : "", b[i]);
    snprintf(c->first_bad, c->first_len, fmt, board, v, want);
  }
  pthread_mutex_unlock(&c->mu);
  __atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
}

static int bellman_job(void *ctx, int worker, int job, char *err, size_t errlen) {
  (void)worker, (void)err, (void)errlen;
  bellman *c = ctx;
  const egdb *db = c->db;
  uint64_t lo = (uint64_t)job * CHECK_CHUNK, hi = lo + CHECK_CHUNK;
  if (hi > c->size) hi = c->size;
  int bars[11];
  uint8_t b[EGDB_PITS], cb[EGDB_PITS];
  ix_unrank_bars(c->n, lo, bars);
  for (uint64_t r = lo; r < hi; r++) {
    if (r > lo) ix_next_bars(c->n, bars);
    ix_bars_board(c->n, bars, b);
    int v = db->lv[c->n].values[r];
    game_pos p;
    board_pos(b, &p);
    game_moves m = game_legal(&db->g, &p);
    int best = m ? -1000 : board_terminal(b);
    for (; m; m &= m - 1) {
      game_pos q = p;
      game_play(&db->g, &q, __builtin_ctz(m));
      pos_board(&q, cb);
      int cv = lv_value(db->lv, cb);
      /* A child the engine ends by famine: its award must be the value. */
      if (q.status != GAME_ONGOING) {
        int cm = q.mover;
        int award = (q.final[cm] - q.store[cm]) - (q.final[1 - cm] - q.store[1 - cm]);
        if (award != cv)
          note_bad(c, "board %s: a child ends with award %2$d, holds %3$d", cb, award, cv);
      }
      if (q.store[0] - cv > best) best = q.store[0] - cv;
    }
    if (best != v) note_bad(c, "board %s: value %d, best move gives %d", b, v, best);
  }
  __atomic_fetch_add(&c->boards, hi - lo, __ATOMIC_RELAXED);
  return 0;
}

int egdb_verify(const egdb *db, int threads, int brute_seeds, egdb_progress_fn progress, void *ctx,
                egdb_check *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  bellman c = {.db = db, .first_bad = out->first_bad, .first_len = sizeof out->first_bad};
  pthread_mutex_init(&c.mu, NULL);
  double t0 = clock_wall();
  uint64_t total = 0, done = 0;
  for (int n = 0; n <= db->max_seeds; n++) total += egdb_level_size(n);
  int rc = 0;
  for (int n = 0; n <= db->max_seeds && !rc; n++) {
    c.n = n;
    c.size = egdb_level_size(n);
    pool_work w = {NULL, bellman_job, NULL, &c};
    rc = pool_run(threads, (int)((c.size + CHECK_CHUNK - 1) / CHECK_CHUNK), &w, err, errlen);
    done += c.size;
    if (progress) {
      egdb_progress p = {n, db->max_seeds, "levels", done, total, 0, clock_wall() - t0};
      progress(ctx, &p);
    }
  }
  pthread_mutex_destroy(&c.mu);
  out->boards = c.boards;
  out->bad_bellman = c.bad;
  if (rc || brute_seeds < 0) return rc;
  int top = brute_seeds < db->max_seeds ? brute_seeds : db->max_seeds;
  egdb_brute *bf = egdb_brute_solve(top, err, errlen);
  if (!bf) return -1;
  for (int n = 0; n <= top; n++) {
    for (uint64_t r = 0; r < egdb_level_size(n); r++) {
      uint8_t b[EGDB_PITS];
      egdb_unrank(n, r, b);
      int v = db->lv[n].values[r], want = egdb_brute_value(bf, b);
      out->brute++;
      if (v != want && out->bad_brute++ == 0 && !out->first_bad[0]) {
        char board[64];
        size_t k = 0;
        for (int i = 0; i < EGDB_PITS; i++)
          k += (size_t)snprintf(board + k, sizeof board - k, "%s%d", i ? " " : "", b[i]);
        snprintf(out->first_bad, sizeof out->first_bad, "board %s: value %d, brute force %d", board,
                 v, want);
      }
    }
  }
  egdb_brute_free(bf);
  return 0;
}

/* ---- Brute force ---------------------------------------------------------------------
 * Every board of at most max_seeds seeds in a sorted table of keys (the
 * seed count above five bits a pit), the children of each found by binary
 * search once, then per level value iteration from 0: V(p) = max over
 * moves of (captured - V(child)), famine boards their award. From 0 the
 * iterates are the values of the game cut after t plies with the cut worth
 * 0; once t passes the longest forced sequence they are the exact values
 * (endless play included, worth 0), and a fixed point stays put. */
struct egdb_brute {
  int max_seeds;
  uint64_t n;
  uint64_t *key;
  int8_t *val;
};

static uint64_t brute_key(const uint8_t *b) {
  uint64_t k = (uint64_t)ix_seeds(b) << 60;
  for (int i = 0; i < EGDB_PITS; i++) k |= (uint64_t)b[i] << (5 * i);
  return k;
}

static int64_t brute_find(const egdb_brute *bf, uint64_t key) {
  uint64_t lo = 0, hi = bf->n;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    if (bf->key[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < bf->n && bf->key[lo] == key ? (int64_t)lo : -1;
}

static void brute_enum(egdb_brute *bf, uint8_t *b, int pit, int left) {
  if (pit == EGDB_PITS - 1) {
    b[pit] = (uint8_t)left;
    bf->key[bf->n++] = brute_key(b);
    return;
  }
  for (int s = 0; s <= left; s++) {
    b[pit] = (uint8_t)s;
    brute_enum(bf, b, pit + 1, left - s);
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

egdb_brute *egdb_brute_solve(int max_seeds, char *err, size_t errlen) {
  if (max_seeds < 0 || max_seeds > 12) {
    errf(err, errlen, "brute force takes 0..12 seeds, not %d", max_seeds);
    return NULL;
  }
  game g;
  char rules[EGDB_RULES_LEN];
  if (egdb_default_game(&g, rules, sizeof rules, err, errlen)) return NULL;
  uint64_t count = 0;
  for (int n = 0; n <= max_seeds; n++) count += egdb_level_size(n);
  egdb_brute *bf = calloc(1, sizeof *bf);
  int32_t *child = malloc(count * 6 * sizeof *child);
  int8_t *cap = malloc(count * 6), *next = malloc(count);
  if (bf) {
    bf->key = malloc(count * sizeof *bf->key);
    bf->val = calloc(count, 1);
  }
  if (!bf || !bf->key || !bf->val || !child || !cap || !next) {
    errf(err, errlen, "out of memory (brute force to %d seeds)", max_seeds);
    free(child), free(cap), free(next);
    egdb_brute_free(bf);
    return NULL;
  }
  bf->max_seeds = max_seeds;
  uint8_t b[EGDB_PITS];
  for (int n = 0; n <= max_seeds; n++) brute_enum(bf, b, 0, n);
  qsort(bf->key, bf->n, sizeof *bf->key, cmp_u64);
  /* Children once: index and seeds captured; -1 ends the list, a famine
   * board keeps its award in cap[i*6]. */
  for (uint64_t i = 0; i < bf->n; i++) {
    for (int j = 0; j < EGDB_PITS; j++) b[j] = (uint8_t)(bf->key[i] >> (5 * j) & 31);
    game_pos p;
    memset(&p, 0, sizeof p);
    memcpy(p.pits, b, EGDB_PITS);
    game_moves m = game_legal(&g, &p);
    int k = 0;
    if (!m) cap[i * 6] = (int8_t)board_terminal(b);
    for (; m; m &= m - 1) {
      game_pos q = p;
      game_play(&g, &q, __builtin_ctz(m));
      uint8_t cb[EGDB_PITS];
      for (int j = 0; j < EGDB_PITS; j++) cb[j] = q.pits[(j + 6) % EGDB_PITS];
      child[i * 6 + k] = (int32_t)brute_find(bf, brute_key(cb));
      cap[i * 6 + k++] = (int8_t)q.store[0];
    }
    if (k < 6) child[i * 6 + k] = -1;
  }
  /* Level by level (keys are sorted by seed count first). */
  uint64_t lo = 0;
  for (int n = 0; n <= max_seeds; n++) {
    uint64_t hi = lo + egdb_level_size(n);
    for (int changed = 1; changed;) {
      changed = 0;
      for (uint64_t i = lo; i < hi; i++) {
        int best = child[i * 6] < 0 ? cap[i * 6] : -1000;
        for (int k = 0; k < 6 && child[i * 6 + k] >= 0; k++) {
          int v = cap[i * 6 + k] - bf->val[child[i * 6 + k]];
          if (v > best) best = v;
        }
        next[i] = (int8_t)best;
      }
      for (uint64_t i = lo; i < hi; i++) {
        changed |= next[i] != bf->val[i];
        bf->val[i] = next[i];
      }
    }
    lo = hi;
  }
  free(child), free(cap), free(next);
  return bf;
}

int egdb_brute_value(const egdb_brute *bf, const uint8_t b[EGDB_PITS]) {
  int64_t i = brute_find(bf, brute_key(b));
  return i < 0 ? EGDB_NONE : bf->val[i];
}

void egdb_brute_free(egdb_brute *bf) {
  if (!bf) return;
  free(bf->key);
  free(bf->val);
  free(bf);
}

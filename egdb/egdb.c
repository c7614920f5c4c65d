/* The index, the level files, opening and probing (docs/EGDB.md). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "egdb/egdb_internal.h"

/* ---- Index ------------------------------------------------------------------ */

uint64_t egdb_binom_tab[IX_ROWS][12];
static pthread_once_t binom_once = PTHREAD_ONCE_INIT;

static void binom_fill(void) {
  for (int c = 0; c < IX_ROWS; c++) {
    egdb_binom_tab[c][0] = 1;
    for (int k = 1; k < 12; k++)
      egdb_binom_tab[c][k] = c == 0 ? 0 : egdb_binom_tab[c - 1][k - 1] + egdb_binom_tab[c - 1][k];
  }
}

void egdb_index_init(void) { pthread_once(&binom_once, binom_fill); }

uint64_t egdb_level_size(int n) {
  egdb_index_init();
  return n < 0 || n > EGDB_MAX_SEEDS ? 0 : egdb_binom_tab[n + 11][11];
}

uint64_t egdb_rank(const uint8_t b[EGDB_PITS]) {
  egdb_index_init();
  return ix_rank(b);
}

void egdb_unrank(int n, uint64_t r, uint8_t b[EGDB_PITS]) {
  egdb_index_init();
  int c[11];
  ix_unrank_bars(n, r, c);
  ix_bars_board(n, c, b);
}

/* ---- The game ---------------------------------------------------------------- */

int egdb_default_game(game *g, char *rules, size_t len, char *err, size_t errlen) {
  if (game_configure(g, "oware", 0, NULL, err, errlen)) return -1;
  if (game_options_string(g, rules, len) < 0 || strlen(rules) + 1 >= EGDB_RULES_LEN) {
    errf(err, errlen, "the rules string of oware does not fit the file header");
    return -1;
  }
  return 0;
}

/* ---- Level files --------------------------------------------------------------- */

int egdb_level_path(char *buf, size_t len, const char *dir, int n) {
  int w = snprintf(buf, len, "%s/%s%02d%s", dir, EGDB_FILE_PREFIX, n, EGDB_FILE_SUFFIX);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

static void header_fill(unsigned char *h, int n, const char *rules, const int8_t *values) {
  uint64_t boards = egdb_level_size(n);
  memset(h, 0, EGDB_HEADER);
  memcpy(h, EGDB_MAGIC, 8);
  put_u32le(h + 8, EGDB_VERSION);
  put_u32le(h + 12, EGDB_HEADER);
  put_u32le(h + 16, (uint32_t)n);
  put_u32le(h + 20, EGDB_PITS);
  put_u32le(h + 24, EGDB_INDEX_COLEX);
  put_u32le(h + 28, EGDB_VALUES_NET);
  put_u64le(h + 32, boards);
  put_u64le(h + 40, boards);
  put_u64le(h + 48, checksum64(values, boards, CHECKSUM64_INIT));
  memcpy(h + 56, "oware", 5);
  memcpy(h + 72, rules, strlen(rules));
  put_u64le(h + 248, checksum64(h, 248, CHECKSUM64_INIT));
}

int egdb_level_write(const char *dir, int n, const char *rules, const int8_t *values, char *err,
                     size_t errlen) {
  char path[1200], e[512];
  if (egdb_level_path(path, sizeof path, dir, n)) {
    errf(err, errlen, "%s: folder name too long", dir);
    return -1;
  }
  unsigned char h[EGDB_HEADER];
  header_fill(h, n, rules, values);
  afile a;
  if (afile_open(&a, path, e, sizeof e)) {
    errf(err, errlen, "%s: %s", path, e);
    return -1;
  }
  size_t len = (size_t)egdb_level_size(n);
  if (fwrite(h, 1, sizeof h, a.f) != sizeof h || fwrite(values, 1, len, a.f) != len)
    return afile_fail(&a, err, errlen);
  if (afile_commit(&a, e, sizeof e)) {
    errf(err, errlen, "%s: %s", path, e);
    return -1;
  }
  return 0;
}

/* A text field of the header, checked printable before any message quotes it. */
static int header_text(const unsigned char *f, size_t cap, char *out) {
  size_t k = 0;
  while (k < cap && f[k]) k++;
  if (k == cap || first_unprintable(f, k) >= 0) return -1;
  for (size_t i = k; i < cap; i++)
    if (f[i]) return -1;
  memcpy(out, f, k);
  out[k] = 0;
  return 0;
}

/* The checks of a mapped file; the message names what is wrong. */
static int level_check(const unsigned char *m, size_t size, int n, const char *rules, char *err,
                       size_t errlen) {
  if (size < EGDB_HEADER) {
    errf(err, errlen, "truncated: %zu bytes, shorter than the %d-byte header", size, EGDB_HEADER);
    return -1;
  }
  if (memcmp(m, EGDB_MAGIC, 8)) {
    errf(err, errlen, "not a SowZero endgame file (bad magic)");
    return -1;
  }
  if (get_u32le(m + 8) != EGDB_VERSION) {
    errf(err, errlen, "format version %u, this build reads version %d", get_u32le(m + 8),
         EGDB_VERSION);
    return -1;
  }
  if (get_u64le(m + 248) != checksum64(m, 248, CHECKSUM64_INIT)) {
    errf(err, errlen, "header checksum mismatch (the file is damaged)");
    return -1;
  }
  if (get_u32le(m + 12) != EGDB_HEADER || get_u32le(m + 20) != EGDB_PITS ||
      get_u32le(m + 24) != EGDB_INDEX_COLEX || get_u32le(m + 28) != EGDB_VALUES_NET) {
    errf(err, errlen, "unsupported header (length %u, %u pits, index %u, values %u)",
         get_u32le(m + 12), get_u32le(m + 20), get_u32le(m + 24), get_u32le(m + 28));
    return -1;
  }
  if (get_u32le(m + 16) != (uint32_t)n) {
    errf(err, errlen, "holds the boards of %u seeds, its name says %d", get_u32le(m + 16), n);
    return -1;
  }
  char gname[17], frules[EGDB_RULES_LEN + 1];
  if (header_text(m + 56, 16, gname) || header_text(m + 72, EGDB_RULES_LEN, frules)) {
    errf(err, errlen, "unreadable game or rules field in the header");
    return -1;
  }
  if (strcmp(gname, "oware") || strcmp(frules, rules)) {
    errf(err, errlen, "built for other rules: %s %s (this build serves oware %s)", gname, frules,
         rules);
    return -1;
  }
  uint64_t boards = egdb_level_size(n);
  if (get_u64le(m + 32) != boards || get_u64le(m + 40) != boards) {
    errf(err, errlen, "header says %llu boards and %llu payload bytes, level %d has %llu",
         (unsigned long long)get_u64le(m + 32), (unsigned long long)get_u64le(m + 40), n,
         (unsigned long long)boards);
    return -1;
  }
  if (size != EGDB_HEADER + boards) {
    errf(err, errlen, "%s: %zu bytes, expected %llu",
         size < EGDB_HEADER + boards ? "truncated" : "too long", size,
         (unsigned long long)(EGDB_HEADER + boards));
    return -1;
  }
  const int8_t *v = (const int8_t *)(m + EGDB_HEADER);
  if (get_u64le(m + 48) != checksum64(v, boards, CHECKSUM64_INIT)) {
    errf(err, errlen, "payload checksum mismatch (the file is damaged)");
    return -1;
  }
  /* The extremes first, without a branch a byte (vectorised); then where. */
  int8_t lo = 0, hi = 0;
  for (uint64_t i = 0; i < boards; i++) {
    lo = v[i] < lo ? v[i] : lo;
    hi = v[i] > hi ? v[i] : hi;
  }
  if (lo >= -n && hi <= n) return 0;
  uint64_t i = 0;
  while (v[i] >= -n && v[i] <= n) i++;
  errf(err, errlen, "value %d of board %llu is outside -%d..%d", v[i], (unsigned long long)i, n, n);
  return -1;
}

int egdb_level_load(const char *dir, int n, const char *rules, egdb_level *lv, char *err,
                    size_t errlen) {
  char path[1200], e[512];
  memset(lv, 0, sizeof *lv);
  if (egdb_level_path(path, sizeof path, dir, n)) {
    errf(err, errlen, "%s: folder name too long", dir);
    return -1;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    errf(err, errlen, "%s: not a regular file", path);
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  void *m = size ? mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0) : NULL;
  close(fd);
  if (size && m == MAP_FAILED) {
    errf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
    return -1;
  }
  if (level_check(m, size, n, rules, e, sizeof e)) {
    errf(err, errlen, "%s: %s", path, e);
    if (m) munmap(m, size);
    return -1;
  }
  lv->map = m;
  lv->map_len = size;
  lv->values = (const int8_t *)((const unsigned char *)m + EGDB_HEADER);
  return 1;
}

void egdb_level_unload(egdb_level *lv) {
  if (lv->map) munmap(lv->map, lv->map_len);
  memset(lv, 0, sizeof *lv);
}

/* ---- Opening ------------------------------------------------------------------------ */

/* The options the values depend on; the others (target, repetition, caps,
 * cycle_award, first_player, seeds) are ignored by the semantics. */
static const char *const value_options[4] = {"houses", "grand_slam", "feed_check", "leftover"};
static int value_options_find(egdb *db, char *err, size_t errlen);

egdb *egdb_open(const char *dir, char *err, size_t errlen) {
  egdb_index_init();
  egdb *db = calloc(1, sizeof *db);
  if (!db) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  if (snprintf(db->dir, sizeof db->dir, "%s", dir) >= (int)sizeof db->dir) {
    errf(err, errlen, "%s: folder name too long", dir);
    free(db);
    return NULL;
  }
  if (egdb_default_game(&db->g, db->rules, sizeof db->rules, err, errlen) ||
      value_options_find(db, err, errlen)) {
    free(db);
    return NULL;
  }
  db->max_seeds = -1;
  for (int n = 0; n <= EGDB_MAX_SEEDS; n++) {
    egdb_level lv;
    int r = egdb_level_load(dir, n, db->rules, &lv, err, errlen);
    if (r < 0) goto fail;
    if (r == 0) {
      /* Levels are consecutive: a file past a gap is a broken folder. */
      for (int k = n + 1; k <= EGDB_MAX_SEEDS; k++) {
        char path[1200], missing[1200];
        struct stat st;
        egdb_level_path(path, sizeof path, dir, k);
        if (stat(path, &st) == 0) {
          egdb_level_path(missing, sizeof missing, dir, n);
          errf(err, errlen, "%s: present, but %s is missing (levels must be consecutive)", path,
               missing);
          goto fail;
        }
      }
      break;
    }
    db->lv[n] = lv;
    db->max_seeds = n;
  }
  if (db->max_seeds < 0) {
    char path[1200];
    egdb_level_path(path, sizeof path, dir, 0);
    errf(err, errlen, "%s: no database there (no %s; build one with 'sowzero egdb build')", dir,
         path);
    goto fail;
  }
  return db;
fail:
  egdb_close(db);
  return NULL;
}

void egdb_close(egdb *db) {
  if (!db) return;
  for (int n = 0; n <= EGDB_MAX_SEEDS; n++) egdb_level_unload(&db->lv[n]);
  free(db);
}

int egdb_max_seeds(const egdb *db) { return db->max_seeds; }
const char *egdb_dir(const egdb *db) { return db->dir; }
const char *egdb_rules(const egdb *db) { return db->rules; }
const int8_t *egdb_level_values(const egdb *db, int n) {
  return n < 0 || n > db->max_seeds ? NULL : db->lv[n].values;
}

/* ---- Probing ---------------------------------------------------------------------------- */

/* Looked up once at open: probes compare option values by index. */
static int value_options_find(egdb *db, char *err, size_t errlen) {
  for (int i = 0; i < 4; i++) {
    int k = 0;
    while (db->g.rules->options[k].key && strcmp(db->g.rules->options[k].key, value_options[i]))
      k++;
    if (!db->g.rules->options[k].key) {
      errf(err, errlen, "oware has no option %s", value_options[i]);
      return -1;
    }
    db->value_opt[i] = k;
  }
  return 0;
}

int egdb_serves(const egdb *db, const game *g) {
  if (!db || !g || g->rules != db->g.rules) return 0;
  for (int i = 0; i < 4; i++)
    if (g->opt[db->value_opt[i]] != db->g.opt[db->value_opt[i]]) return 0;
  return 1;
}

int egdb_game_supported(const game *g) {
  game d;
  char rules[EGDB_RULES_LEN], err[256];
  if (!g || egdb_default_game(&d, rules, sizeof rules, err, sizeof err) || g->rules != d.rules)
    return 0;
  for (int i = 0; i < 4; i++)
    if (game_option_value(g, value_options[i]) != game_option_value(&d, value_options[i])) return 0;
  return 1;
}

int egdb_board_value(const egdb *db, const uint8_t b[EGDB_PITS]) {
  int n = ix_seeds(b);
  return n > db->max_seeds ? EGDB_NONE : db->lv[n].values[ix_rank(b)];
}

/* The board of p if the database answers for it. */
static int probe_board(const egdb *db, const game *g, const game_pos *p, uint8_t *b) {
  if (!db || p->status != GAME_ONGOING || !egdb_serves(db, g)) return -1;
  pos_board(p, b);
  return ix_seeds(b) > db->max_seeds ? -1 : 0;
}

int egdb_probe(const egdb *db, const game *g, const game_pos *p) {
  uint8_t b[EGDB_PITS];
  if (probe_board(db, g, p, b)) return EGDB_NONE;
  return db->lv[ix_seeds(b)].values[ix_rank(b)];
}

game_moves egdb_probe_moves(const egdb *db, const game *g, const game_pos *p,
                            int values[GAME_MAX_ACTIONS]) {
  uint8_t b[EGDB_PITS], cb[EGDB_PITS];
  if (probe_board(db, g, p, b)) return 0;
  /* Played on the board alone, exactly as the solver played it. */
  game_pos q;
  board_pos(b, &q);
  game_moves m = game_legal(&db->g, &q);
  for (game_moves r = m; r; r &= r - 1) {
    int a = __builtin_ctz(r);
    game_pos c = q;
    game_play(&db->g, &c, a);
    pos_board(&c, cb);
    values[a] = c.store[0] - lv_value(db->lv, cb);
  }
  return m;
}

void egdb_outcome(const game_pos *p, int v, double final[2]) {
  int n = egdb_seeds(p);
  int me = p->mover;
  final[me] = p->store[me] + (n + v) / 2.0;
  final[1 - me] = p->store[1 - me] + (n - v) / 2.0;
}

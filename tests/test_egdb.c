/* The endgame database: the index, hand-checked values, the Bellman check
 * and brute force, probing, the files and their refusals, the command and
 * the protocol. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "protocol/protocol.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

#define SMALL_N 8 /* the database the suite builds: levels 0..8 */

static char db_dir[512];
static egdb *DB;
static game G;

static void build_small(void) {
  char err[512];
  scratch_dir(db_dir, sizeof db_dir, "egdb");
  egdb_build_params p = {SMALL_N, 2, NULL, NULL};
  if (egdb_build(db_dir, &p, err, sizeof err)) {
    fprintf(stderr, "build: %s\n", err);
    exit(1);
  }
}

static void remove_small(void) { remove_tree(db_dir); }

static void open_small(void) {
  char err[512];
  DB = egdb_open(db_dir, err, sizeof err);
  ck_assert_msg(DB != NULL, "open: %s", err);
  ck_assert_int_eq(game_configure(&G, "oware", 0, NULL, err, sizeof err), 0);
}

static void close_small(void) { egdb_close(DB); }

/* Board from the mover's view: his six pits, then the opponent's. */
static int value_of(const uint8_t *b) { return egdb_board_value(DB, b); }

/* ---- Index ------------------------------------------------------------------------ */

static uint64_t seen_count;
static unsigned char *seen;

static void each_composition(uint8_t *b, int pit, int left, int n) {
  if (pit == EGDB_PITS - 1) {
    b[pit] = (uint8_t)left;
    uint64_t r = egdb_rank(b);
    CHECK(r < egdb_level_size(n), "rank %llu out of level %d", (unsigned long long)r, n);
    CHECK(!seen[r], "rank %llu twice in level %d", (unsigned long long)r, n);
    seen[r] = 1;
    seen_count++;
    return;
  }
  for (int s = 0; s <= left; s++) {
    b[pit] = (uint8_t)s;
    each_composition(b, pit + 1, left - s, n);
  }
}

START_TEST(index_is_a_bijection) {
  ck_assert_int_eq(egdb_level_size(0), 1);
  ck_assert_int_eq(egdb_level_size(1), 12);
  ck_assert_int_eq(egdb_level_size(20), 84672315);
  for (int n = 0; n <= 7; n++) {
    uint64_t size = egdb_level_size(n);
    seen = calloc(size, 1);
    seen_count = 0;
    uint8_t b[EGDB_PITS];
    each_composition(b, 0, n, n); /* every board, ranks distinct and in range: dense */
    ck_assert_int_eq(seen_count, size);
    for (uint64_t r = 0; r < size; r++) {
      egdb_unrank(n, r, b);
      int sum = 0;
      for (int i = 0; i < EGDB_PITS; i++) sum += b[i];
      CHECK(sum == n && egdb_rank(b) == r, "level %d rank %llu does not round trip", n,
            (unsigned long long)r);
    }
    free(seen);
  }
  /* The extremes of the largest level stay in range. */
  uint8_t b[EGDB_PITS] = {0};
  b[11] = EGDB_MAX_SEEDS;
  ck_assert_int_eq(egdb_rank(b), 0);
  b[11] = 0, b[0] = EGDB_MAX_SEEDS;
  ck_assert(egdb_rank(b) == egdb_level_size(EGDB_MAX_SEEDS) - 1);
}
END_TEST

/* The independent value iteration takes 0..12 seeds, and answers for
 * exactly the boards of its levels: at 0 seeds the one empty board. */
START_TEST(brute_force_takes_its_range) {
  char err[256];
  static const int bad[] = {-1, 13, -1000};
  for (int i = 0; i < 3; i++) {
    err[0] = 0;
    ck_assert_ptr_null(egdb_brute_solve(bad[i], err, sizeof err));
    char want[16];
    snprintf(want, sizeof want, "%d", bad[i]);
    ck_assert_msg(strstr(err, want), "%d seeds refused without naming them: %s", bad[i], err);
  }
  for (int n = 0; n <= 2; n++) {
    egdb_brute *bf = egdb_brute_solve(n, err, sizeof err);
    ck_assert_msg(bf != NULL, "%d seeds: %s", n, err);
    uint8_t empty[EGDB_PITS] = {0}, one[EGDB_PITS] = {1},
            three[EGDB_PITS] = {1, 0, 0, 0, 0, 0, 0, 0, 2};
    ck_assert_int_eq(egdb_brute_value(bf, empty), 0);
    /* One seed of the mover's, North empty: no move feeds North (the seed
     * stays South), so South takes it, as in forced_famine. */
    ck_assert_int_eq(egdb_brute_value(bf, one), n >= 1 ? 1 : EGDB_NONE);
    ck_assert_int_eq(egdb_brute_value(bf, three), EGDB_NONE);
    egdb_brute_free(bf);
  }
}
END_TEST

/* ---- Hand-checked boards ------------------------------------------------------------- */

START_TEST(forced_famine) {
  /* docs/games/oware.md O8: S[3 2 1 1 0 0], North empty: no move reaches
   * North, so South takes his 7 seeds. */
  uint8_t b[EGDB_PITS] = {3, 2, 1, 1, 0, 0};
  ck_assert_int_eq(value_of(b), 7);
}
END_TEST

START_TEST(mover_without_seeds) {
  uint8_t b[EGDB_PITS] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2};
  ck_assert_int_eq(value_of(b), -3);
  uint8_t empty[EGDB_PITS] = {0};
  ck_assert_int_eq(value_of(empty), 0);
}
END_TEST

START_TEST(capture_chain_into_lower_level) {
  /* S[0 0 0 0 0 2] N[1 2 0 0 0 1]: pit 5 makes 2 in pit 6 and 3 in pit 7,
   * both taken (5 seeds; pit 11 keeps one, so no grand slam). North must
   * then feed with pit 11 and South, unable to feed back, takes that seed:
   * all 6 seeds go to South. */
  uint8_t b[EGDB_PITS] = {0, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 1};
  ck_assert_int_eq(value_of(b), 6);
  game_pos p;
  memset(&p, 0, sizeof p);
  memcpy(p.pits, b, sizeof b);
  int vals[GAME_MAX_ACTIONS];
  game_moves m = egdb_probe_moves(DB, &G, &p, vals);
  ck_assert_uint_eq(m, 1u << 5);
  ck_assert_int_eq(vals[5], 6);
  game_pos q = p;
  ck_assert(game_play(&G, &q, 5) & GAME_PLAY_CAPTURE);
  ck_assert_int_eq(q.store[0], 5);
}
END_TEST

START_TEST(endless_play_is_worth_zero) {
  /* North to move with pits 6 and 11 holding one seed each, South empty:
   * only pit 11 feeds, then the two single seeds chase each other round
   * the board for ever without a capture (each side always has one move).
   * The rows' award would give the mover +2; endless play is 0. */
  uint8_t b[EGDB_PITS] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  ck_assert_int_eq(value_of(b), 0);
  uint8_t chase[EGDB_PITS] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  ck_assert_int_eq(value_of(chase), 0);
  game_pos p;
  memset(&p, 0, sizeof p);
  memcpy(p.pits, b, sizeof b);
  ck_assert_uint_eq(game_legal(&G, &p), 1u << 5);
}
END_TEST

/* Every board with no legal move, as setboard sets it: the engine ends it
 * by famine, and its award is the database's value. */
START_TEST(terminal_values_are_the_engines_award) {
  int checked = 0;
  for (int n = 1; n <= 6; n++)
    for (uint64_t r = 0; r < egdb_level_size(n); r++) {
      uint8_t b[EGDB_PITS];
      egdb_unrank(n, r, b);
      game_pos p;
      memset(&p, 0, sizeof p);
      memcpy(p.pits, b, sizeof b);
      if (game_legal(&G, &p)) continue;
      char tok[15][16], err[256], *argv[15];
      for (int i = 0; i < 15; i++) argv[i] = tok[i];
      snprintf(tok[0], 16, "0");
      for (int i = 0; i < 12; i++) snprintf(tok[i + 1], 16, "%d", b[i]);
      snprintf(tok[13], 16, "%d", (48 - n) / 2);
      snprintf(tok[14], 16, "%d", 48 - n - (48 - n) / 2);
      game_pos q;
      ck_assert_int_eq(G.rules->setboard(&G, &q, 15, argv, err, sizeof err), 0);
      CHECK(q.status == GAME_OVER && q.end_reason == GAME_END_FAMINE, "level %d rank %d", n,
            (int)r);
      int award = (q.final[0] - q.store[0]) - (q.final[1] - q.store[1]);
      CHECK(award == value_of(b), "level %d rank %d: award %d, value %d", n, (int)r, award,
            value_of(b));
      checked++;
    }
  ck_assert_int_gt(checked, 1000);
}
END_TEST

/* ---- Whole-database checks --------------------------------------------------------------- */

/* What a build's or a verification's progress reports say: levels in
 * order, work that only grows up to the total of levels 0..N, reused work
 * within the work done. */
typedef struct {
  int reports, level, max_level;
  uint64_t done, reused;
} watch;

static uint64_t boards_to(int n) {
  uint64_t all = 0;
  for (int k = 0; k <= n; k++) all += egdb_level_size(k);
  return all;
}

static void watch_progress(void *ctx, const egdb_progress *p) {
  watch *w = ctx;
  ck_assert_int_eq(p->max_level, w->max_level);
  ck_assert_msg(p->level >= w->level && p->level <= p->max_level, "level %d after %d", p->level,
                w->level);
  ck_assert_uint_eq(p->total, boards_to(p->max_level));
  ck_assert_msg(p->done >= w->done && p->done <= p->total, "done %llu after %llu of %llu",
                (unsigned long long)p->done, (unsigned long long)w->done,
                (unsigned long long)p->total);
  ck_assert_msg(p->reused >= w->reused && p->reused <= p->done, "reused %llu, done %llu",
                (unsigned long long)p->reused, (unsigned long long)p->done);
  ck_assert(p->seconds >= 0);
  w->reports++, w->level = p->level, w->done = p->done, w->reused = p->reused;
}

START_TEST(bellman_and_brute_force_agree) {
  egdb_check ck;
  char err[256];
  watch w = {.max_level = SMALL_N};
  ck_assert_int_eq(egdb_verify(DB, 2, SMALL_N, watch_progress, &w, &ck, err, sizeof err), 0);
  uint64_t all = boards_to(SMALL_N);
  ck_assert_msg(ck.bad_bellman == 0 && ck.bad_brute == 0, "%s", ck.first_bad);
  ck_assert(ck.boards == all && ck.brute == all);
  /* One report a level; a verification solves nothing from files. */
  ck_assert_int_eq(w.reports, SMALL_N + 1);
  ck_assert_uint_eq(w.done, all);
  ck_assert_uint_eq(w.reused, 0);
}
END_TEST

/* The values span the range and every board's value is within it. */
START_TEST(values_in_range) {
  for (int n = 0; n <= SMALL_N; n++) {
    const int8_t *v = egdb_level_values(DB, n);
    int lo = 0, hi = 0;
    for (uint64_t r = 0; r < egdb_level_size(n); r++) {
      CHECK(v[r] >= -n && v[r] <= n, "level %d rank %d: %d", n, (int)r, v[r]);
      lo = v[r] < lo ? v[r] : lo;
      hi = v[r] > hi ? v[r] : hi;
    }
    ck_assert_int_eq(lo, -n);
    ck_assert_int_eq(hi, n);
  }
  ck_assert_ptr_null(egdb_level_values(DB, SMALL_N + 1));
}
END_TEST

/* ---- Probing ------------------------------------------------------------------------------- */

START_TEST(probe_answers_only_for_its_boards) {
  char err[256];
  game_pos p;
  memset(&p, 0, sizeof p);
  uint8_t b[EGDB_PITS] = {0, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 1};
  /* North to move: the same board from North's side. */
  for (int i = 0; i < 12; i++) p.pits[(i + 6) % 12] = b[i];
  p.mover = GAME_NORTH;
  p.store[0] = 20, p.store[1] = 22;
  ck_assert_int_eq(egdb_probe(DB, &G, &p), 6);
  double fin[2];
  egdb_outcome(&p, 6, fin);
  ck_assert(fin[1] == 28 && fin[0] == 20);
  egdb_outcome(&p, 1, fin); /* n + v odd: a half each */
  ck_assert(fin[1] == 25.5 && fin[0] == 22.5);
  /* Options the values ignore do not matter; those they depend on do. */
  game g2;
  char *set1[] = {"repetition=3", "max_plies=500"};
  ck_assert_int_eq(game_configure(&g2, "oware", 2, set1, err, sizeof err), 0);
  ck_assert_int_eq(egdb_probe(DB, &g2, &p), 6);
  char *set2[] = {"grand_slam=forbidden"};
  ck_assert_int_eq(game_configure(&g2, "oware", 1, set2, err, sizeof err), 0);
  ck_assert_int_eq(egdb_probe(DB, &g2, &p), EGDB_NONE);
  ck_assert_int_eq(game_configure(&g2, "warri", 0, NULL, err, sizeof err), 0);
  ck_assert_int_eq(egdb_probe(DB, &g2, &p), EGDB_NONE);
  ck_assert_int_eq(game_configure(&g2, "namnam", 0, NULL, err, sizeof err), 0);
  ck_assert_int_eq(egdb_probe(DB, &g2, &p), EGDB_NONE);
  /* More seeds than the database holds; a finished game; no database. */
  game_pos s;
  game_start(&G, &s);
  ck_assert_int_eq(egdb_probe(DB, &G, &s), EGDB_NONE);
  int vals[GAME_MAX_ACTIONS];
  ck_assert_uint_eq(egdb_probe_moves(DB, &G, &s, vals), 0);
  game_pos over = p;
  over.status = GAME_OVER;
  ck_assert_int_eq(egdb_probe(DB, &G, &over), EGDB_NONE);
  ck_assert_int_eq(egdb_probe(NULL, &G, &p), EGDB_NONE);
}
END_TEST

/* Along random games, once few seeds are left: the value is the best
 * move's, and the moves are the engine's legal moves. */
START_TEST(probe_moves_match_probe) {
  rng_t r;
  rng_seed(&r, 7, 0);
  int probed = 0;
  for (int gno = 0; gno < 300; gno++) {
    game_pos p;
    game_start(&G, &p);
    while (p.status == GAME_ONGOING) {
      int v = egdb_probe(DB, &G, &p), vals[GAME_MAX_ACTIONS];
      if (v != EGDB_NONE) {
        game_moves m = egdb_probe_moves(DB, &G, &p, vals);
        ck_assert_uint_eq(m, game_legal(&G, &p));
        int best = -100;
        for (game_moves k = m; k; k &= k - 1)
          best = vals[__builtin_ctz(k)] > best ? vals[__builtin_ctz(k)] : best;
        ck_assert_int_eq(best, v);
        probed++;
      }
      game_play(&G, &p, game_random_action(&r, game_legal(&G, &p)));
    }
  }
  ck_assert_int_gt(probed, 100);
}
END_TEST

/* ---- Files ------------------------------------------------------------------------------------ */

static char bad_dir[512];

/* A fresh database of levels 0..3 to damage. */
static void small_copy(void) {
  char err[256];
  scratch_dir(bad_dir, sizeof bad_dir, "egdb-bad");
  egdb_build_params p = {3, 1, NULL, NULL};
  ck_assert_msg(egdb_build(bad_dir, &p, err, sizeof err) == 0, "%s", err);
}

static void level_file(char *buf, size_t len, int n) {
  snprintf(buf, len, "%s/oware-%02d.egdb", bad_dir, n);
}

static void poke(int n, long off, int byte) {
  char path[600];
  level_file(path, sizeof path, n);
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  fseek(f, off, off < 0 ? SEEK_END : SEEK_SET);
  fputc(byte, f);
  fclose(f);
}

/* Opening fails naming the file and the expected fault. */
static void refused(int n, const char *what) {
  char err[1024], path[600];
  level_file(path, sizeof path, n);
  egdb *db = egdb_open(bad_dir, err, sizeof err);
  ck_assert_ptr_null(db);
  ck_assert_msg(strstr(err, path) && strstr(err, what), "'%s' should name %s and say '%s'", err,
                path, what);
  remove_tree(bad_dir);
}

START_TEST(refuses_bad_magic) {
  int fds = test_open_fds();
  /* Every byte of the magic counts ("SZEGDB\r\n": the line ends catch a
   * text-mode copy). */
  for (int off = 0; off < 8; off++) {
    small_copy();
    poke(2, off, "SZEGDB\r\n"[off] ^ 0x20);
    refused(2, "bad magic");
  }
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

START_TEST(refuses_other_rules) {
  int fds = test_open_fds();
  small_copy();
  /* The rules field rewritten and the header checksum made right again:
   * only the rules differ. */
  char path[600];
  level_file(path, sizeof path, 1);
  FILE *f = fopen(path, "r+b");
  unsigned char h[256];
  ck_assert_int_eq(fread(h, 1, 256, f), 256);
  char rules[161], *gs;
  memcpy(rules, h + 72, 160);
  rules[160] = 0;
  ck_assert_ptr_nonnull(gs = strstr(rules, "no_capture"));
  char changed[200];
  snprintf(changed, sizeof changed, "%.*sforbidden%s", (int)(gs - rules), rules, gs + 10);
  memset(h + 72, 0, 160);
  memcpy(h + 72, changed, strlen(changed));
  put_u64le(h + 248, checksum64(h, 248, CHECKSUM64_INIT));
  fseek(f, 0, SEEK_SET);
  fwrite(h, 1, 256, f);
  fclose(f);
  refused(1, "built for other rules");
  /* A rules field full to its last byte but one (its end): read whole,
   * refused the same (AddressSanitizer sees a copy too long for it). */
  small_copy();
  level_file(path, sizeof path, 1);
  f = fopen(path, "r+b");
  ck_assert_int_eq(fread(h, 1, 256, f), 256);
  fseek(f, 0, SEEK_SET);
  memset(h + 72, 'x', 159);
  h[72 + 159] = 0;
  put_u64le(h + 248, checksum64(h, 248, CHECKSUM64_INIT));
  fwrite(h, 1, 256, f);
  fclose(f);
  refused(1, "built for other rules");
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

START_TEST(refuses_truncated) {
  int fds = test_open_fds();
  small_copy();
  char path[600];
  level_file(path, sizeof path, 3);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
  refused(3, "truncated");
  small_copy();
  level_file(path, sizeof path, 2);
  ck_assert_int_eq(truncate(path, 100), 0);
  refused(2, "truncated");
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

START_TEST(refuses_bad_checksum) {
  int fds = test_open_fds();
  small_copy();
  poke(3, -1, 0x7f); /* the last value: far outside -3..3, and a new checksum */
  refused(3, "payload checksum mismatch");
  small_copy();
  poke(2, 20, 9); /* a header field */
  refused(2, "header checksum mismatch");
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

/* A header field this build does not read, the header checksum made
 * right again: the message quotes the four layout fields as the file holds
 * them (each set to its own value, so that one read from another place or
 * another field shows). */
static void rewrite_layout(int n, uint32_t len, uint32_t pits, uint32_t index, uint32_t values) {
  char path[600];
  level_file(path, sizeof path, n);
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  unsigned char h[256];
  ck_assert_int_eq(fread(h, 1, 256, f), 256);
  put_u32le(h + 12, len);
  put_u32le(h + 20, pits);
  put_u32le(h + 24, index);
  put_u32le(h + 28, values);
  put_u64le(h + 248, checksum64(h, 248, CHECKSUM64_INIT));
  fseek(f, 0, SEEK_SET);
  fwrite(h, 1, 256, f);
  fclose(f);
}

START_TEST(refuses_unsupported_header) {
  int fds = test_open_fds();
  small_copy();
  rewrite_layout(2, 256, 14, 1, 1);
  refused(2, "unsupported header (length 256, 14 pits, index 1, values 1)");
  small_copy();
  rewrite_layout(1, 512, 16, 3, 2);
  refused(1, "unsupported header (length 512, 16 pits, index 3, values 2)");
  small_copy();
  rewrite_layout(3, 256, 12, 1, 4);
  refused(3, "unsupported header (length 256, 12 pits, index 1, values 4)");
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

/* A well-formed file whose values cannot be: checksums made right again. */
START_TEST(refuses_values_out_of_range) {
  int fds = test_open_fds();
  small_copy();
  char path[600];
  level_file(path, sizeof path, 3);
  FILE *f = fopen(path, "r+b");
  unsigned char buf[256 + 364];
  ck_assert_int_eq(fread(buf, 1, sizeof buf, f), sizeof buf);
  buf[256 + 100] = 4; /* level 3 holds -3..3 */
  put_u64le(buf + 48, checksum64(buf + 256, 364, CHECKSUM64_INIT));
  put_u64le(buf + 248, checksum64(buf, 248, CHECKSUM64_INIT));
  fseek(f, 0, SEEK_SET);
  fwrite(buf, 1, sizeof buf, f);
  fclose(f);
  refused(3, "value 4 of board 100 is outside -3..3");
  /* Below the range too; the range's own ends are values like any other. */
  for (int v = -4; v <= -3; v++) {
    small_copy(); /* a new folder */
    level_file(path, sizeof path, 3);
    f = fopen(path, "r+b");
    ck_assert_int_eq(fread(buf, 1, sizeof buf, f), sizeof buf);
    buf[256 + 200] = (unsigned char)(signed char)v;
    buf[256 + 300] = 3;
    put_u64le(buf + 48, checksum64(buf + 256, 364, CHECKSUM64_INIT));
    put_u64le(buf + 248, checksum64(buf, 248, CHECKSUM64_INIT));
    fseek(f, 0, SEEK_SET);
    fwrite(buf, 1, sizeof buf, f);
    fclose(f);
    if (v == -4) {
      refused(3, "value -4 of board 200 is outside -3..3");
      continue;
    }
    char err[1024];
    egdb *db = egdb_open(bad_dir, err, sizeof err);
    ck_assert_msg(db != NULL, "%s", err);
    egdb_close(db);
    remove_tree(bad_dir);
  }
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

/* A database with one wrong value (its checksums right): verify finds
 * it, and the first disagreement it reports names a real board of the
 * level, seeds by pit, with the value the database holds for it. */
START_TEST(verify_names_a_wrong_board) {
  small_copy();
  char path[600], err[1024];
  level_file(path, sizeof path, 3);
  FILE *f = fopen(path, "r+b");
  unsigned char buf[256 + 364];
  ck_assert_int_eq(fread(buf, 1, sizeof buf, f), sizeof buf);
  buf[256 + 150] = (unsigned char)(signed char)(buf[256 + 150] == 3 ? -3 : 3);
  put_u64le(buf + 48, checksum64(buf + 256, 364, CHECKSUM64_INIT));
  put_u64le(buf + 248, checksum64(buf, 248, CHECKSUM64_INIT));
  fseek(f, 0, SEEK_SET);
  fwrite(buf, 1, sizeof buf, f);
  fclose(f);
  egdb *db = egdb_open(bad_dir, err, sizeof err);
  ck_assert_msg(db != NULL, "%s", err);
  egdb_check ck;
  ck_assert_int_eq(egdb_verify(db, 1, 3, NULL, NULL, &ck, err, sizeof err), 0);
  ck_assert(ck.bad_bellman > 0 && ck.bad_brute == 1);
  int p[EGDB_PITS], used = 0, v, sum = 0;
  ck_assert_msg(
      sscanf(ck.first_bad, "board %d %d %d %d %d %d %d %d %d %d %d %d: %n", &p[0], &p[1], &p[2],
             &p[3], &p[4], &p[5], &p[6], &p[7], &p[8], &p[9], &p[10], &p[11], &used) == 12 &&
          used > 0,
      "%s", ck.first_bad);
  uint8_t named[EGDB_PITS];
  for (int i = 0; i < EGDB_PITS; i++) {
    ck_assert_msg(p[i] >= 0 && p[i] <= 3, "%s", ck.first_bad);
    named[i] = (uint8_t)p[i];
    sum += p[i];
  }
  ck_assert_msg(sum <= 3, "%s", ck.first_bad);
  if (sscanf(ck.first_bad + used, "value %d,", &v) == 1)
    ck_assert_int_eq(v, egdb_board_value(db, named));
  egdb_close(db);
  remove_tree(bad_dir);
}
END_TEST

START_TEST(refuses_gaps_and_absence) {
  int fds = test_open_fds();
  small_copy();
  char path[600], err[1024];
  level_file(path, sizeof path, 1);
  ck_assert_int_eq(remove(path), 0);
  egdb *db = egdb_open(bad_dir, err, sizeof err);
  ck_assert_ptr_null(db);
  ck_assert_msg(strstr(err, "oware-01.egdb is missing"), "%s", err);
  remove_tree(bad_dir);
  db = egdb_open(bad_dir, err, sizeof err);
  ck_assert_ptr_null(db);
  ck_assert_msg(strstr(err, "no database there"), "%s", err);
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

/* A build resumes: existing sound levels are kept, and a damaged one stops it. */
START_TEST(build_extends_and_refuses_damage) {
  small_copy();
  char err[1024], path[600];
  /* Levels 0..3 are read from their files, level 4 is solved. */
  watch w = {.max_level = 4};
  egdb_build_params p = {4, 2, watch_progress, &w};
  ck_assert_msg(egdb_build(bad_dir, &p, err, sizeof err) == 0, "%s", err);
  ck_assert_int_gt(w.reports, 0);
  ck_assert_int_eq(w.level, 4);
  ck_assert_uint_eq(w.done, boards_to(4));
  ck_assert_uint_eq(w.reused, boards_to(3));
  p.progress = NULL;
  egdb *db = egdb_open(bad_dir, err, sizeof err);
  ck_assert_ptr_nonnull(db);
  ck_assert_int_eq(egdb_max_seeds(db), 4);
  egdb_close(db);
  poke(2, 0, 'X');
  p.seeds = 5;
  ck_assert_int_eq(egdb_build(bad_dir, &p, err, sizeof err), -1);
  level_file(path, sizeof path, 2);
  ck_assert_msg(strstr(err, path) != NULL, "%s", err);
  remove_tree(bad_dir);
}
END_TEST

/* Progress comes from the building thread only (egdb.h), whichever worker
 * scans or propagates: reports from the workers' threads would race. And
 * it starts at once: on one thread the first report is level 0's scan. */
typedef struct {
  pthread_t builder;
  int reports, foreign, first_level;
  char first_phase[16];
} thread_watch;

static void watch_thread(void *ctx, const egdb_progress *p) {
  thread_watch *w = ctx;
  if (w->reports++ == 0) {
    snprintf(w->first_phase, sizeof w->first_phase, "%s", p->phase);
    w->first_level = p->level;
  }
  if (!pthread_equal(pthread_self(), w->builder)) w->foreign++;
}

/* The values are the unique least fixed point: the order in which threads
 * decide boards cannot change them. Level 11's large waves run on both
 * threads. */
START_TEST(threads_do_not_change_values) {
  char one[512], two[512], err[512];
  scratch_dir(one, sizeof one, "egdb-t1");
  scratch_dir(two, sizeof two, "egdb-t2");
  thread_watch tw[2] = {{.builder = pthread_self()}, {.builder = pthread_self()}};
  egdb_build_params p = {11, 1, watch_thread, &tw[0]};
  ck_assert_msg(egdb_build(one, &p, err, sizeof err) == 0, "%s", err);
  p.threads = 2;
  p.ctx = &tw[1];
  ck_assert_msg(egdb_build(two, &p, err, sizeof err) == 0, "%s", err);
  for (int t = 0; t < 2; t++)
    ck_assert_msg(tw[t].foreign == 0, "%d of %d reports from a worker's thread", tw[t].foreign,
                  tw[t].reports);
  /* On two threads the helper may scan level 0's only chunk: that report
   * waits for the next scan on the builder's thread. */
  ck_assert_msg(!strcmp(tw[0].first_phase, "moves") && tw[0].first_level == 0,
                "the first report is %s of level %d", tw[0].first_phase, tw[0].first_level);
  egdb *a = egdb_open(one, err, sizeof err), *b = egdb_open(two, err, sizeof err);
  ck_assert(a && b);
  for (int n = 0; n <= 11; n++)
    ck_assert_msg(memcmp(egdb_level_values(a, n), egdb_level_values(b, n), egdb_level_size(n)) == 0,
                  "level %d differs", n);
  egdb_close(a);
  egdb_close(b);
  remove_tree(one);
  remove_tree(two);
}
END_TEST

/* ---- Command and protocol --------------------------------------------------------------------- */

START_TEST(egdb_command) {
  char out[8192];
  char *probe[] = {"egdb", "probe", "--dir", db_dir, "1", "0", "0", "0", "0",
                   "0",    "2",     "1",     "2",    "0", "0", "0", "1", NULL};
  /* North to move; without stores the captured seeds are split. */
  ck_assert_int_eq(test_sowzero(out, sizeof out, probe), 0);
  ck_assert_msg(strstr(out, "value ") && strstr(out, "moves"), "%s", out);
  char *south[] = {"egdb", "probe", "--dir", db_dir, "0", "0", "0", "0",  "0",  "0",
                   "2",    "1",     "2",     "0",    "0", "0", "1", "20", "22", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, south), 0);
  ck_assert_msg(strstr(out, "value +6 for South") && strstr(out, "5:+6*") &&
                    strstr(out, "South 26, North 22"),
                "%s", out);
  char *info[] = {"egdb", "info", "--dir", db_dir, NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, info), 0);
  ck_assert_msg(strstr(out, "0..8"), "%s", out);
  char *verify[] = {"egdb", "verify", "--dir", db_dir, "--brute", "6", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, verify), 0);
  ck_assert_msg(strstr(out, "0 wrong"), "%s", out);
  char *big[] = {"egdb", "build", "--seeds", "99", "--dir", db_dir, NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, big), 2);
  ck_assert_msg(strstr(out, "seeds"), "%s", out);
  char *none[] = {"egdb", "info", "--dir", "/nonexistent/egdb", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, none), 1);
  ck_assert_msg(strstr(out, "/nonexistent/egdb"), "%s", out);
  char *what[] = {"egdb", "frobnicate", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, what), 2);
  char *few[] = {"egdb", "probe", "--dir", db_dir, "0", "1", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, few), 2);
  char *many[] = {"egdb", "probe", "--dir", db_dir, "0", "4", "4", "4", "4",
                  "4",    "4",     "4",     "4",    "4", "4", "4", "4", NULL};
  ck_assert_int_eq(test_sowzero(out, sizeof out, many), 1);
  ck_assert_msg(strstr(out, "not in the database"), "%s", out);
}
END_TEST

START_TEST(protocol_egdb_command) {
  proto *s = proto_create(1);
  char out[PROTO_MAX_RESPONSE];
  proto_handle(s, "egdb", out, sizeof out);
  ck_assert_msg(strstr(out, "? no endgame database"), "%s", out);
  proto_set_egdb(s, DB);
  proto_handle(s, "egdb", out, sizeof out);
  ck_assert_msg(strstr(out, "? not in the endgame database: 48 seeds"), "%s", out);
  proto_handle(s, "setboard 1 0 0 0 0 0 2 1 2 0 0 0 1 20 22", out, sizeof out);
  proto_handle(s, "egdb", out, sizeof out);
  ck_assert_msg(strstr(out, "= ") == out, "%s", out);
  proto_handle(s, "setboard 0 0 0 0 0 0 2 1 2 0 0 0 1 20 22", out, sizeof out);
  proto_handle(s, "egdb", out, sizeof out);
  ck_assert_str_eq(out, "= 6 5:6\n\n");
  proto_handle(s, "game warri", out, sizeof out);
  proto_handle(s, "egdb", out, sizeof out);
  ck_assert_msg(strstr(out, "? not in the endgame database: it is for oware"), "%s", out);
  proto_free(s);
}
END_TEST

static Suite *egdb_suite(void) {
  Suite *s = suite_create("egdb");
  TCase *t =
      add_tests(s, "index", 60,
                (const TTest *const[]){index_is_a_bijection, brute_force_takes_its_range, NULL});
  t = add_tests(
      s, "values", 120,
      (const TTest *const[]){forced_famine, mover_without_seeds, capture_chain_into_lower_level,
                             endless_play_is_worth_zero, terminal_values_are_the_engines_award,
                             bellman_and_brute_force_agree, values_in_range,
                             probe_answers_only_for_its_boards, probe_moves_match_probe,
                             egdb_command, protocol_egdb_command, NULL});
  tcase_add_unchecked_fixture(t, build_small, remove_small);
  tcase_add_checked_fixture(t, open_small, close_small);
  add_tests(s, "files", 60,
            (const TTest *const[]){refuses_bad_magic, refuses_other_rules, refuses_truncated,
                                   refuses_bad_checksum, refuses_unsupported_header,
                                   refuses_values_out_of_range, verify_names_a_wrong_board,
                                   refuses_gaps_and_absence, build_extends_and_refuses_damage,
                                   threads_do_not_change_values, NULL});
  return s;
}

TEST_MAIN(egdb_suite)

/* The replay buffer: ring order, sampling, files and their failures, and
 * samples no game can hold, refused on load. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "game/game.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/replay.h"

static game G;
static char dir[256];

static void setup(void) {
  char err[256];
  ck_assert_int_eq(game_configure(&G, "oware", 0, NULL, err, sizeof err), 0);
  scratch_dir(dir, sizeof dir, "replay");
}

static void teardown(void) { remove_tree(dir); }

/* The bytes of the file at path (at most cap of them); returns how many. */
static size_t read_bytes(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(buf, 1, cap, f);
  ck_assert_msg(fgetc(f) == EOF, "%s is larger than %zu bytes", path, cap);
  fclose(f);
  return n;
}

/* The position after k plies of one fixed random Oware game. */
static game_pos after(int k) {
  game_pos p;
  game_start(&G, &p);
  rng_t r;
  rng_seed(&r, 3, 0);
  for (int i = 0; i < k; i++) {
    ck_assert_int_eq(p.status, GAME_ONGOING);
    game_play(&G, &p, game_random_action(&r, game_legal(&G, &p)));
  }
  ck_assert_int_eq(p.status, GAME_ONGOING);
  return p;
}

/* Sample k: a distinct position (ply = k), weights 3 and 1 on two of its
 * legal actions (*a1, *a2 when given), an outcome and a margin. */
static replay_sample make_at(int k, int *a1, int *a2) {
  replay_sample s;
  memset(&s, 0, sizeof s);
  s.pos = after(k);
  game_moves m = game_legal(&G, &s.pos);
  int n = game_count(m), x = game_nth_action(m, k % n), y = game_nth_action(m, (k + 1) % n);
  float pi[6] = {0};
  pi[x] += 3;
  pi[y] += 1;
  replay_set_policy(&s, pi, 6);
  s.z = (int8_t)(k % 3 - 1);
  s.margin = (int8_t)(k % 41 - 20);
  if (a1) *a1 = x;
  if (a2) *a2 = y;
  return s;
}

static replay_sample make(int k) { return make_at(k, NULL, NULL); }

START_TEST(policy_round_trip) {
  int x, y;
  replay_sample s = make_at(2, &x, &y);
  ck_assert_int_ne(x, y);
  float pi[6];
  replay_get_policy(&s, pi, 6);
  for (int a = 0; a < 6; a++)
    ck_assert_float_eq_tol(pi[a], a == x ? 0.75f : a == y ? 0.25f : 0.0f, 1e-4f);
}
END_TEST

START_TEST(ring_keeps_the_newest) {
  char err[256];
  replay *r = replay_create(&G, 10, err, sizeof err);
  for (int k = 0; k < 25; k++) {
    replay_sample s = make(k);
    replay_add(r, &s, 1);
  }
  replay_stats st;
  memset(&st, 0x5a, sizeof st);
  replay_get_stats(r, &st);
  ck_assert_int_eq(st.capacity, 10);
  ck_assert_int_eq(st.count, 10);
  ck_assert_uint_eq(st.added, 25);
  ck_assert_uint_eq(st.bytes, 10 * sizeof(replay_sample));
  /* Uniform sampling sees only the last ten, each of them. */
  rng_t rng;
  rng_seed(&rng, 1, 0);
  int seen[25] = {0};
  replay_sample out[64];
  for (int i = 0; i < 50; i++) {
    ck_assert_int_eq(replay_sample_batch(r, &rng, out, 64), 0);
    for (int k = 0; k < 64; k++) seen[out[k].pos.ply]++;
  }
  for (int k = 0; k < 15; k++) ck_assert_int_eq(seen[k], 0);
  for (int k = 15; k < 25; k++) ck_assert_int_gt(seen[k], 200); /* ~320 expected each */
  replay_free(r);
}
END_TEST

/* Self-play workers add while the learner samples: every sample drawn is
 * one that was added, whole (ThreadSanitizer, in `make tsan`, sees any
 * access outside the lock), and every addition is counted. */
enum { SHARED_KINDS = 32, SHARED_ADDS = 4000 };
static replay_sample shared_kinds[SHARED_KINDS];

static void *add_many(void *arg) {
  replay *r = arg;
  for (int k = 0; k < SHARED_ADDS; k++) replay_add(r, &shared_kinds[k % SHARED_KINDS], 1);
  return NULL;
}

START_TEST(writers_and_samplers_share_the_ring) {
  char err[256];
  for (int k = 0; k < SHARED_KINDS; k++) shared_kinds[k] = make(k);
  replay *r = replay_create(&G, 50, err, sizeof err);
  replay_add(r, &shared_kinds[0], 1);
  pthread_t t[2];
  for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, add_many, r), 0);
  rng_t rng;
  rng_seed(&rng, 4, 0);
  replay_sample out[16];
  replay_stats st;
  uint64_t added = 0;
  for (int round = 0; round < 400; round++) {
    /* The counters read while the ring fills: only ever more. */
    replay_get_stats(r, &st);
    ck_assert_msg(st.added >= added && st.count >= 1 && st.count <= 50, "added %llu after %llu",
                  (unsigned long long)st.added, (unsigned long long)added);
    added = st.added;
    ck_assert_int_eq(replay_sample_batch(r, &rng, out, 16), 0);
    for (int i = 0; i < 16; i++) {
      int k = 0;
      while (k < SHARED_KINDS && memcmp(&out[i], &shared_kinds[k], sizeof out[i])) k++;
      ck_assert_msg(k < SHARED_KINDS, "round %d: sample %d is none of those added", round, i);
    }
  }
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  replay_get_stats(r, &st);
  ck_assert_uint_eq(st.added, 1 + 2 * SHARED_ADDS);
  ck_assert_int_eq(st.count, 50);
  replay_free(r);
}
END_TEST

START_TEST(empty_buffer_cannot_sample) {
  char err[256];
  replay *r = replay_create(&G, 4, err, sizeof err);
  rng_t rng;
  rng_seed(&rng, 1, 0);
  replay_sample out[1];
  ck_assert_int_eq(replay_sample_batch(r, &rng, out, 1), -1);
  replay_free(r);
  ck_assert_ptr_null(replay_create(&G, 0, err, sizeof err));
  ck_assert_str_eq(err, "replay buffer capacity 0 must be positive");
}
END_TEST

static void fill_and_save(const char *path, int n, int cap) {
  char err[256];
  replay *r = replay_create(&G, cap, err, sizeof err);
  for (int k = 0; k < n; k++) {
    replay_sample s = make(k);
    replay_add(r, &s, 1);
  }
  ck_assert_msg(replay_save(r, path, err, sizeof err) == 0, "%s", err);
  replay_free(r);
}

START_TEST(save_load_round_trip) {
  char path[300], err[256];
  snprintf(path, sizeof path, "%s/r.bin", dir);
  fill_and_save(path, 30, 20); /* wrapped ring: 20 kept, 30 added */
  replay *r = replay_create(&G, 20, err, sizeof err);
  ck_assert_msg(replay_load(r, path, err, sizeof err) == 0, "%s", err);
  replay_stats st;
  replay_get_stats(r, &st);
  ck_assert_int_eq(st.count, 20);
  ck_assert_uint_eq(st.added, 30);
  /* Saving the loaded buffer gives the same bytes. */
  char path2[300];
  snprintf(path2, sizeof path2, "%s/r2.bin", dir);
  ck_assert_int_eq(replay_save(r, path2, err, sizeof err), 0);
  unsigned char a[8192], b2[8192];
  size_t na = read_bytes(path, a, sizeof a), nb = read_bytes(path2, b2, sizeof b2);
  ck_assert_uint_eq(na, nb);
  ck_assert_int_eq(memcmp(a, b2, na), 0);
  replay_free(r);
  /* A smaller buffer keeps the newest samples of the file. */
  replay *small = replay_create(&G, 5, err, sizeof err);
  ck_assert_int_eq(replay_load(small, path, err, sizeof err), 0);
  rng_t rng;
  rng_seed(&rng, 2, 0);
  replay_sample out[40];
  replay_sample_batch(small, &rng, out, 40);
  for (int k = 0; k < 40; k++) ck_assert_int_ge(out[k].pos.ply, 25);
  replay_free(small);
}
END_TEST

/* Draws many samples from r; every ply from lo to hi (and no other) must
 * come up, each about equally often. */
static void expect_plies(replay *r, int lo, int hi, uint64_t seed) {
  enum { DRAWS = 30000 };
  static replay_sample out[1000];
  int count[64] = {0}, k = hi - lo + 1;
  rng_t rng;
  rng_seed(&rng, seed, 0);
  for (int d = 0; d < DRAWS; d += 1000) {
    ck_assert_int_eq(replay_sample_batch(r, &rng, out, 1000), 0);
    for (int i = 0; i < 1000; i++) {
      int ply = out[i].pos.ply;
      ck_assert_msg(ply >= lo && ply <= hi, "sampled ply %d, the buffer holds %d..%d", ply, lo, hi);
      count[ply]++;
    }
  }
  double want = (double)DRAWS / k, sd = sqrt(want * (1 - 1.0 / k));
  for (int ply = lo; ply <= hi; ply++)
    ck_assert_msg(fabs(count[ply] - want) < 5 * sd, "ply %d drawn %d times, expected about %.0f",
                  ply, count[ply], want);
}

/* A ring saved partly filled, full, or wrapped round, loaded, added to and
 * saved again holds exactly the newest samples, samples them uniformly and
 * writes them oldest first. */
START_TEST(ring_survives_save_load_and_more) {
  enum { CAP = 10, MORE = 6 };
  char path[300], path2[300], err[256];
  snprintf(path, sizeof path, "%s/ring.bin", dir);
  snprintf(path2, sizeof path2, "%s/ring2.bin", dir);
  const int first[] = {4, CAP, 25};
  for (int c = 0; c < 3; c++) {
    int n = first[c], total = n + MORE;
    fill_and_save(path, n, CAP);
    replay *r = replay_create(&G, CAP, err, sizeof err);
    ck_assert_msg(replay_load(r, path, err, sizeof err) == 0, "%s", err);
    expect_plies(r, n > CAP ? n - CAP : 0, n - 1, 1);
    for (int k = n; k < total; k++) {
      replay_sample x = make(k);
      replay_add(r, &x, 1);
    }
    int lo = total > CAP ? total - CAP : 0;
    expect_plies(r, lo, total - 1, 2);
    replay_stats st;
    replay_get_stats(r, &st);
    ck_assert_int_eq(st.count, total - lo);
    ck_assert_int_eq(replay_save(r, path2, err, sizeof err), 0);
    replay_free(r);
    /* Oldest first in the file: a buffer of 3 keeps the newest 3. */
    replay *small = replay_create(&G, 3, err, sizeof err);
    ck_assert_msg(replay_load(small, path2, err, sizeof err) == 0, "%s", err);
    expect_plies(small, total - 3, total - 1, 3);
    replay_free(small);
  }
}
END_TEST

static void write_bytes(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, n, f), n);
  fclose(f);
}

START_TEST(bad_files_are_refused_by_name) {
  int fds = test_open_fds();
  char path[300], bad[300], err[512];
  snprintf(path, sizeof path, "%s/good.bin", dir);
  snprintf(bad, sizeof bad, "%s/bad.bin", dir);
  fill_and_save(path, 8, 8);
  unsigned char buf[8192];
  size_t n = read_bytes(path, buf, sizeof buf);
  replay *r = replay_create(&G, 8, err, sizeof err);
  char expect[600];

  unsigned char b[8192];
  memcpy(b, buf, n);
  b[0] = 'X';
  write_bytes(bad, b, n);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect, "%s: not a SowZero replay buffer (bad magic)", bad);
  ck_assert_str_eq(err, expect);

  memcpy(b, buf, n);
  b[4] = 9;
  write_bytes(bad, b, n);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect,
           "%s: replay format version 9 is not supported (this build reads 1 and 2)", bad);
  ck_assert_str_eq(err, expect);

  /* The right version with another record size says so. */
  memcpy(b, buf, n);
  b[8] = 128;
  write_bytes(bad, b, n);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect,
           "%s: record size 128 bytes, expected 130 (replay format version 1)", bad);
  ck_assert_str_eq(err, expect);

  write_bytes(bad, buf, 100);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect, "%s: truncated header", bad);
  ck_assert_str_eq(err, expect);

  write_bytes(bad, buf, n - 200);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect, "%s: truncated at sample 6 of 8", bad);
  ck_assert_str_eq(err, expect);

  memcpy(b, buf, n);
  b[n - 20] ^= 0x40; /* inside the last sample's policy */
  write_bytes(bad, b, n);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect, "%s: checksum mismatch (corrupted or truncated file)", bad);
  ck_assert_str_eq(err, expect);

  /* A game name that fills its 32 bytes, without a NUL, is quoted whole. */
  memcpy(b, buf, n);
  memset(b + 24, 'x', 32);
  write_bytes(bad, b, n);
  ck_assert_int_eq(replay_load(r, bad, err, sizeof err), -1);
  snprintf(expect, sizeof expect, "%s: samples of game '%.32s' (", bad,
           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
  ck_assert_msg(!strncmp(err, expect, strlen(expect)), "%s", err);

  /* A buffer of another rule set. */
  game w;
  ck_assert_int_eq(game_configure(&w, "warri", 0, NULL, err, sizeof err), 0);
  replay *rw = replay_create(&w, 8, err, sizeof err);
  ck_assert_int_eq(replay_load(rw, path, err, sizeof err), -1);
  ck_assert_msg(
      strstr(err, "samples of game 'oware'") && strstr(err, "grand_slam=capture_continue"), "%s",
      err);
  replay_free(rw);

  /* The failed loads left the buffer empty. */
  replay_stats st;
  replay_get_stats(r, &st);
  ck_assert_int_eq(st.count, 0);
  ck_assert_int_eq(replay_load(r, "/nonexistent/r.bin", err, sizeof err), -1);
  ck_assert_str_eq(err, "/nonexistent/r.bin: cannot open: No such file or directory");
  replay_free(r);
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

/* Samples of random games of g, recorded as self-play records them: every
 * position before a move, a uniform policy over its legal actions, the
 * outcome and margin of the game for its mover. */
static int random_samples(const game *g, uint64_t seed, replay_sample *out, int n) {
  rng_t r;
  rng_seed(&r, seed, 0);
  game_hist *h = malloc(sizeof *h);
  int k = 0;
  while (k < n) {
    game_pos p;
    game_start(g, &p);
    game_hist_reset(h, &p);
    int first = k;
    while (p.status == GAME_ONGOING && k < n) {
      game_moves m = game_legal(g, &p);
      float pi[GAME_MAX_ACTIONS] = {0};
      for (int a = 0; a < g->n_actions; a++) pi[a] = (float)(m >> a & 1);
      memset(&out[k], 0, sizeof out[k]);
      out[k].pos = p;
      replay_set_policy(&out[k], pi, g->n_actions);
      k++;
      game_step(g, &p, h, game_random_action(&r, m));
    }
    for (int i = first; i < k; i++) {
      out[i].z = (int8_t)game_outcome(&p, out[i].pos.mover);
      out[i].margin = (int8_t)game_margin(&p, out[i].pos.mover);
    }
  }
  free(h);
  return k;
}

START_TEST(every_game_s_positions_load) {
  /* Every game and preset, and other board sizes: the checks on load
   * never refuse what self-play records, and what is loaded saves to the
   * same bytes. */
  const char *names[16];
  int n = 0;
  for (int i = 0; game_rules_at(i); i++) names[n++] = game_rules_at(i)->name;
  for (int i = 0; game_preset_at(i, NULL, NULL); i++) names[n++] = game_preset_at(i, NULL, NULL);
  char *small[] = {"houses=4", "seeds=3"};
  int count = (int)(4000 * test_scale());
  replay_sample *smp = malloc(sizeof *smp * (size_t)count);
  char path[300], again[300], err[512];
  snprintf(path, sizeof path, "%s/all.bin", dir);
  snprintf(again, sizeof again, "%s/again.bin", dir);
  size_t cap = 1024 + (size_t)count * 1024;
  unsigned char *a = malloc(cap), *b = malloc(cap);
  for (int i = 0; i <= n; i++) {
    game g;
    ck_assert_int_eq(
        game_configure(&g, i < n ? names[i] : "oware", i < n ? 0 : 2, small, err, sizeof err), 0);
    random_samples(&g, 11 + (uint64_t)i, smp, count);
    replay *r = replay_create(&g, count, err, sizeof err);
    replay_add(r, smp, count);
    ck_assert_msg(replay_save(r, path, err, sizeof err) == 0, "%s", err);
    replay_free(r);
    r = replay_create(&g, count, err, sizeof err);
    ck_assert_msg(replay_load(r, path, err, sizeof err) == 0, "%s: %s", g.preset, err);
    replay_stats st;
    replay_get_stats(r, &st);
    ck_assert_int_eq(st.count, count);
    /* And saved again, the same bytes: every field read back as written. */
    ck_assert_msg(replay_save(r, again, err, sizeof err) == 0, "%s", err);
    size_t na = read_bytes(path, a, cap), nb = read_bytes(again, b, cap);
    ck_assert_msg(na == nb && memcmp(a, b, na) == 0, "%s: saved again, other bytes", g.preset);
    replay_free(r);
  }
  free(smp);
  free(a);
  free(b);
}
END_TEST

/* Eight good samples with sample 3 spoilt by spoil(); the file's checksum
 * is right. Loading it is refused with "PATH: sample 3 of 8 is impossible:
 * WHY" and leaves the buffer empty. */
static void refused_sample(void (*spoil)(replay_sample *), const char *why) {
  char path[300], err[512], expect[700];
  snprintf(path, sizeof path, "%s/spoilt.bin", dir);
  replay *r = replay_create(&G, 8, err, sizeof err);
  for (int k = 0; k < 8; k++) {
    replay_sample s = make(k);
    if (k == 3) spoil(&s);
    replay_add(r, &s, 1);
  }
  ck_assert_msg(replay_save(r, path, err, sizeof err) == 0, "%s", err);
  replay_free(r);
  r = replay_create(&G, 8, err, sizeof err);
  ck_assert_msg(replay_load(r, path, err, sizeof err) == -1, "loaded, expected: %s", why);
  snprintf(expect, sizeof expect, "%s: sample 3 of 8 is impossible: %s", path, why);
  ck_assert_str_eq(err, expect);
  replay_stats st;
  replay_get_stats(r, &st);
  ck_assert_int_eq(st.count, 0);
  replay_free(r);
  /* A smaller buffer, which would keep only the newest samples, refuses
   * the file too. */
  r = replay_create(&G, 2, err, sizeof err);
  ck_assert_int_eq(replay_load(r, path, err, sizeof err), -1);
  replay_free(r);
}

static void full_pit(replay_sample *s) { s->pos.pits[2] = 255; }
/* The first pit holding 3 seeds or more. */
static int full(const replay_sample *s) {
  int i = 0;
  while (s->pos.pits[i] < 3) i++;
  return i;
}
static void seeds_to_store(replay_sample *s) {
  int i = full(s); /* the seeds add up, the hash is the old board's */
  s->pos.store[0] = (uint16_t)(s->pos.store[0] + s->pos.pits[i]);
  s->pos.pits[i] = 0;
}
static void off_board(replay_sample *s) {
  s->pos.pits[full(s)] -= 3;
  s->pos.pits[20] = 3;
}
static void third_side(replay_sample *s) { s->pos.mover = 2; }
static void game_over(replay_sample *s) { s->pos.status = GAME_OVER; }
static void no_policy(replay_sample *s) { memset(s->policy, 0, sizeof s->policy); }
static void beyond_actions(replay_sample *s) { s->policy[7] = 100; }
static void illegal_action(replay_sample *s) {
  /* An empty pit of the mover: after 0 0, South's pit 0. */
  game_start(&G, &s->pos);
  game_play(&G, &s->pos, 0);
  game_play(&G, &s->pos, 0);
  memset(s->policy, 0, sizeof s->policy);
  s->policy[1] = 60000;
  s->policy[0] = 5535;
}
static void outcome_2(replay_sample *s) { s->z = 2; }
static void outcome_minus_5(replay_sample *s) { s->z = -5; }
static void margin_100(replay_sample *s) { s->margin = 100; }
static void nocap_ahead(replay_sample *s) { s->pos.nocap = (uint16_t)(s->pos.ply + 1); }

START_TEST(impossible_samples_are_refused) {
  char why[128];
  snprintf(why, sizeof why, "pits and stores hold %d seeds, the game has 48",
           48 - after(3).pits[2] + 255);
  refused_sample(full_pit, why);
  refused_sample(seeds_to_store, "not a position of oware (its hash does not match its board)");
  refused_sample(off_board, "pit 20 holds 3 seeds but the board has 12 pits");
  refused_sample(third_side, "side to move 2 (0 or 1)");
  refused_sample(game_over, "the position is not of a game in progress (status 1)");
  refused_sample(no_policy, "all-zero target policy");
  refused_sample(beyond_actions, "target policy on action 7, which is not legal here");
  refused_sample(illegal_action, "target policy on action 0, which is not legal here");
  refused_sample(outcome_2, "outcome 2 (-1, 0 or 1)");
  refused_sample(outcome_minus_5, "outcome -5 (-1, 0 or 1)");
  refused_sample(margin_100, "seed margin 100, beyond the 48 seeds in play");
  refused_sample(nocap_ahead, "4 plies since the last capture, but only 3 plies played");
}
END_TEST

Suite *replay_suite(void) {
  Suite *s = suite_create("replay");
  TCase *t = tcase_create("replay");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, policy_round_trip);
  tcase_add_test(t, ring_keeps_the_newest);
  tcase_add_test(t, empty_buffer_cannot_sample);
  tcase_add_test(t, writers_and_samplers_share_the_ring);
  tcase_add_test(t, save_load_round_trip);
  tcase_add_test(t, ring_survives_save_load_and_more);
  tcase_add_test(t, bad_files_are_refused_by_name);
  tcase_add_test(t, every_game_s_positions_load);
  tcase_add_test(t, impossible_samples_are_refused);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(replay_suite)

/* The replay buffer: ring order, sampling, files and their failures. */
#include <check.h>
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

/* Sample k: a distinct position (ply = k) and policy. */
static replay_sample make(int k) {
  replay_sample s;
  memset(&s, 0, sizeof s);
  game_start(&G, &s.pos);
  s.pos.ply = (uint16_t)k;
  s.pos.hash = 0x1234567890abcdefULL ^ (uint64_t)k;
  float pi[6] = {0};
  pi[k % 6] = 3;
  pi[(k + 1) % 6] = 1;
  replay_set_policy(&s, pi, 6);
  s.z = (int8_t)(k % 3 - 1);
  s.margin = (int8_t)(k % 41 - 20);
  return s;
}

START_TEST(policy_round_trip) {
  replay_sample s = make(2);
  float pi[6];
  replay_get_policy(&s, pi, 6);
  ck_assert_float_eq_tol(pi[2], 0.75f, 1e-4f);
  ck_assert_float_eq_tol(pi[3], 0.25f, 1e-4f);
  ck_assert_float_eq_tol(pi[0], 0.0f, 1e-6f);
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
  replay_get_stats(r, &st);
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

/* The bytes of the file at path (at most cap of them); returns how many. */
static size_t read_bytes(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(buf, 1, cap, f);
  ck_assert_msg(fgetc(f) == EOF, "%s is larger than %zu bytes", path, cap);
  fclose(f);
  return n;
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
  unsigned char a[8192], b[8192];
  size_t na = read_bytes(path, a, sizeof a), nb = read_bytes(path2, b, sizeof b);
  ck_assert_uint_eq(na, nb);
  ck_assert_int_eq(memcmp(a, b, na), 0);
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

static void write_bytes(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, n, f), n);
  fclose(f);
}

START_TEST(bad_files_are_refused_by_name) {
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
  snprintf(expect, sizeof expect, "%s: replay format version 9 is not supported (this build reads 1)", bad);
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

  /* A buffer of another rule set. */
  game w;
  ck_assert_int_eq(game_configure(&w, "warri", 0, NULL, err, sizeof err), 0);
  replay *rw = replay_create(&w, 8, err, sizeof err);
  ck_assert_int_eq(replay_load(rw, path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "samples of game 'oware'") && strstr(err, "grand_slam=capture_continue"),
                "%s", err);
  replay_free(rw);

  /* The failed loads left the buffer empty. */
  replay_stats st;
  replay_get_stats(r, &st);
  ck_assert_int_eq(st.count, 0);
  ck_assert_int_eq(replay_load(r, "/nonexistent/r.bin", err, sizeof err), -1);
  ck_assert_str_eq(err, "/nonexistent/r.bin: cannot open: No such file or directory");
  replay_free(r);
}
END_TEST

static Suite *replay_suite(void) {
  Suite *s = suite_create("replay");
  TCase *t = add_tests(s, "replay", 0,
                       (const TTest *[]){policy_round_trip, ring_keeps_the_newest,
                                         empty_buffer_cannot_sample, save_load_round_trip,
                                         bad_files_are_refused_by_name, NULL});
  tcase_add_checked_fixture(t, setup, teardown);
  return s;
}

TEST_MAIN(replay_suite)

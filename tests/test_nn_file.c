/* Weight files and checkpoints (nn/nn_file.c): bit-exact round trips, the
 * documented layout, refusals of another run's or a damaged file with the
 * reason, and training resumed from a checkpoint bit for bit. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "nn/nn.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

static char tmpdir[64];

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(*len + 16);
  ck_assert_uint_eq(fread(b, 1, *len, f), *len);
  fclose(f);
  return b;
}

static void spit(const char *path, const void *b, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, len, f), len);
  fclose(f);
}

/* The entries of folder path, "." and ".." aside. */
static int count_entries(const char *path) {
  DIR *d = opendir(path);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static void setup(void) { scratch_dir(tmpdir, sizeof tmpdir, "nn"); }
static void teardown(void) { remove_tree(tmpdir); }

/* The small net of seed 17, biases set so that no parameter is zero (the
 * last one read is a bias), saved with test_meta() (into *m) as the file
 * name of the scratch folder, its path into path. */
static nn_net *saved_net(const char *name, char *path, size_t len, nn_meta *m) {
  char err[512];
  snprintf(path, len, "%s/%s", tmpdir, name);
  nn_net *n = make_net(&small_cfg, 17);
  random_biases(n, 17);
  const float *p = nn_params(n);
  for (size_t i = 0; i < nn_param_count(n); i++) ck_assert_float_ne(p[i], 0.0f);
  *m = test_meta();
  ck_assert_msg(nn_save(n, m, path, err, sizeof err) == 0, "%s", err);
  return n;
}

/* ---- Weight files ------------------------------------------------------------------- */
START_TEST(weights_round_trip_bit_exact) {
  char path[128], err[512];
  nn_meta m;
  nn_net *n = saved_net("net.weights", path, sizeof path, &m);
  nn_meta got;
  nn_expect e = nn_expect_of(&m, &small_cfg);
  nn_net *l = nn_load(path, &e, &got, err, sizeof err);
  ck_assert_msg(l != NULL, "%s", err);
  nn_config lc = nn_config_of(l);
  ck_assert_int_eq(memcmp(&lc, &small_cfg, sizeof lc), 0);
  ck_assert_int_eq(memcmp(nn_params(l), nn_params(n), sizeof(float) * nn_param_count(n)), 0);
  ck_assert_str_eq(got.game, "oware");
  ck_assert_str_eq(got.rules, "grand_slam=no_capture");
  ck_assert_int_eq(got.encoding, 3);
  ck_assert_int_eq(got.n_features, 20);
  ck_assert_int_eq(got.n_actions, 7);
  nn_free(l);
  /* Version 0 (no encoding named) is metadata like any other. */
  nn_meta zero = m;
  zero.encoding = 0;
  ck_assert_msg(nn_save(n, &zero, path, err, sizeof err) == 0, "%s", err);
  ck_assert_ptr_nonnull(l = nn_load(path, NULL, &got, err, sizeof err));
  ck_assert_int_eq(got.encoding, 0);
  nn_free(l);
  ck_assert_msg(nn_save(n, &m, path, err, sizeof err) == 0, "%s", err);
  /* Accept-anything load, and loading into an existing net. */
  l = nn_load(path, NULL, NULL, err, sizeof err);
  ck_assert_ptr_nonnull(l);
  nn_net *into = make_net(&small_cfg, 99);
  ck_assert_int_eq(nn_load_into(into, path, &e, NULL, err, sizeof err), 0);
  ck_assert_int_eq(memcmp(nn_params(into), nn_params(n), sizeof(float) * nn_param_count(n)), 0);
  /* The file is exactly what the format section describes. */
  size_t len;
  unsigned char *b = slurp(path, &len);
  size_t header = 8 + 4 + 8 + 4 + 5 + 4 + 21 + 6 * 4 + 8;
  ck_assert_uint_eq(len, header + 4 * nn_param_count(n) + 8);
  ck_assert_int_eq(memcmp(b, "SZWEIGHT", 8), 0);
  ck_assert_uint_eq(get_u32le(b + 8), 1);
  ck_assert_uint_eq(get_u64le(b + 12), len);
  ck_assert_uint_eq(get_u64le(b + len - 8), checksum64(b, len - 8, CHECKSUM64_INIT));
  float first;
  uint32_t u = get_u32le(b + header);
  memcpy(&first, &u, 4);
  ck_assert(first == nn_params(n)[0]);
  /* No temporary file is left behind. */
  ck_assert_int_eq(count_entries(tmpdir), 1);
  free(b);
  nn_free(l), nn_free(into), nn_free(n);
}
END_TEST

/* Loads path with expectation e and checks the exact message (with %s for
 * the path). */
static void refuse(const char *path, const nn_expect *e, const char *want_fmt) {
  char err[512] = "", want[512];
  nn_net *l = nn_load(path, e, NULL, err, sizeof err);
  snprintf(want, sizeof want, want_fmt, path);
  ck_assert_msg(l == NULL, "loaded a bad file (expected \"%s\")", want);
  ck_assert_str_eq(err, want);
}

START_TEST(weights_refuse_another_run) {
  char path[128], err[512];
  nn_meta m;
  nn_net *n = saved_net("best.weights", path, sizeof path, &m);
  nn_expect e;
  memset(&e, 0, sizeof e);
  e.game = "warri";
  refuse(path, &e, "%s: trained for game 'oware' but this run plays 'warri'");
  e = nn_expect_of(&m, NULL);
  e.rules = "grand_slam=forbidden";
  refuse(path, &e,
         "%s: trained with rule options 'grand_slam=no_capture' but this run uses "
         "'grand_slam=forbidden'");
  e = nn_expect_of(&m, NULL);
  e.encoding = 4;
  refuse(path, &e, "%s: trained on feature encoding version 3 but this run uses version 4");
  e = nn_expect_of(&m, NULL);
  e.n_features = 21;
  refuse(path, &e, "%s: network takes 20 features but this run encodes 21");
  e = nn_expect_of(&m, NULL);
  e.n_actions = 6;
  refuse(path, &e, "%s: network has 7 actions but this game has 6");
  nn_config other = small_cfg;
  other.hidden = 32;
  e = nn_expect_of(&m, &other);
  refuse(path, &e,
         "%s: network shape 20-48x2-7 but this run expects 20-32x2-7 "
         "(inputs-width x blocks-actions)");
  /* Into a net of another shape: refused, and the net is untouched. */
  nn_net *o = make_net(&other, 3);
  float keep = nn_params(o)[5];
  ck_assert_int_eq(nn_load_into(o, path, NULL, NULL, err, sizeof err), -1);
  char want[512];
  snprintf(want, sizeof want,
           "%s: network shape 20-48x2-7 but this run expects 20-32x2-7 "
           "(inputs-width x blocks-actions)",
           path);
  ck_assert_str_eq(err, want);
  ck_assert(nn_params(o)[5] == keep);
  /* Metadata that is unsound or contradicts the net is refused at save
   * time, by name, and the file there is left as it was. */
  size_t before_len, after_len;
  unsigned char *before = slurp(path, &before_len);
  nn_meta bad[5];
  for (int i = 0; i < 5; i++) bad[i] = m;
  bad[0].n_features = 19;
  bad[1].encoding = -2;
  memset(bad[2].game, 'g', sizeof bad[2].game);
  memset(bad[3].rules, 'r', sizeof bad[3].rules);
  bad[4].n_actions = 6;
  const char *why[6] = {"%s: metadata says 19 features and %d actions but the network has 20 and 7",
                        "%s: negative feature-encoding version -2",
                        "%s: game name or rule options not terminated",
                        "%s: game name or rule options not terminated",
                        "%s: metadata says %d features and 6 actions but the network has 20 and 7",
                        "%s: no metadata given"};
  for (int i = 0; i < 6; i++) {
    ck_assert_int_eq(nn_save(n, i < 5 ? &bad[i] : NULL, path, err, sizeof err), -1);
    snprintf(want, sizeof want, why[i], path, i == 0 ? m.n_actions : m.n_features);
    ck_assert_str_eq(err, want);
    unsigned char *after = slurp(path, &after_len);
    ck_assert_uint_eq(after_len, before_len);
    ck_assert_mem_eq(after, before, before_len);
    free(after);
  }
  free(before);
  nn_free(o), nn_free(n);
}
END_TEST

START_TEST(weights_refuse_damaged_files) {
  char good[128], bad[128], err[512];
  int fds = test_open_fds();
  nn_meta m;
  nn_net *n = saved_net("good.weights", good, sizeof good, &m);
  snprintf(bad, sizeof bad, "%s/bad.weights", tmpdir);
  size_t len;
  unsigned char *b = slurp(good, &len);
  unsigned char *c = malloc(len + 16);
  char want[256];

  refuse("/nonexistent/x.weights", NULL, "%s: cannot open: No such file or directory");
  refuse("/proc/self", NULL, "%s: not a regular file");
  /* A kernel file says it holds 4096 bytes and reads shorter: refused as
   * a read error, the file closed and the buffer freed (LeakSanitizer
   * sees both). */
  struct stat st;
  if (stat("/sys/devices/system/cpu/online", &st) == 0 && st.st_size > 64)
    refuse("/sys/devices/system/cpu/online", NULL, "%s: read error");

  memcpy(c, b, len);
  memcpy(c, "SZWEIGHX", 8);
  spit(bad, c, len);
  refuse(bad, NULL, "%s: not a SowZero weight file (bad magic)");
  spit(bad, "hello\n", 6);
  refuse(bad, NULL, "%s: not a SowZero weight file (bad magic)");

  /* The other kind's magic, alone or at the head of a longer file, is
   * named as such. */
  const size_t heads[] = {8, 9, 20, len};
  for (int i = 0; i < 4; i++) {
    memcpy(c, b, len);
    memcpy(c, "SZCHKPNT", 8);
    spit(bad, c, heads[i]);
    refuse(bad, NULL, "%s: is a training checkpoint, not a weight file");
  }

  /* A crafted file, sealed right (its length and checksum), whose header
   * ends 0 to 7 bytes into the parameter count: every field is checked
   * against the end, not only the file's length. */
  const size_t count_at = 8 + 4 + 8 + 4 + 5 + 4 + 21 + 6 * 4;
  for (size_t k = 0; k < 8; k++) {
    memcpy(c, b, count_at + k);
    put_u64le(c + 12, count_at + k + 8);
    put_u64le(c + count_at + k, checksum64(c, count_at + k, CHECKSUM64_INIT));
    spit(bad, c, count_at + k + 8);
    refuse(bad, NULL, "%s: corrupt header (layer sizes)");
  }
  /* Sealed right, but a name that is not text, from its first byte or its
   * last: refused by the field. */
  const struct {
    size_t at;
    const char *says;
  } names[] = {{24, "%s: corrupt header (game name)"},
               {28, "%s: corrupt header (game name)"},
               {33, "%s: corrupt header (rule options)"}};
  for (int f = 0; f < 3; f++) {
    memcpy(c, b, len);
    c[names[f].at] = 0x01;
    put_u64le(c + len - 8, checksum64(c, len - 8, CHECKSUM64_INIT));
    spit(bad, c, len);
    refuse(bad, NULL, names[f].says);
  }
  /* The same, ending inside the game name's length or the rules' length:
   * the field it ends in is named. */
  const struct {
    size_t at;
    const char *says;
  } fields[] = {{20, "%s: corrupt header (game name)"},
                {20 + 4 + 5, "%s: corrupt header (rule options)"}};
  for (int f = 0; f < 2; f++)
    for (size_t k = 0; k < 4; k++) {
      size_t n = fields[f].at + k;
      memcpy(c, b, n);
      put_u64le(c + 12, n + 8);
      put_u64le(c + n, checksum64(c, n, CHECKSUM64_INIT));
      spit(bad, c, n + 8);
      refuse(bad, NULL, fields[f].says);
    }

  memcpy(c, b, len);
  put_u32le(c + 8, 2);
  spit(bad, c, len);
  refuse(bad, NULL,
         "%s: weight file format version 2 is not supported (this build reads "
         "version 1)");

  /* Truncated anywhere: inside the magic, the preamble, the header, the
   * data and the checksum. */
  const size_t cuts[] = {0, 5, 8, 15, 19, 20, 40, 60, len / 2, len - 9, len - 1};
  for (int i = 0; i < 11; i++) {
    spit(bad, b, cuts[i]);
    if (cuts[i] < 20)
      snprintf(want, sizeof want, "%%s: truncated file (%zu bytes)", cuts[i]);
    else
      snprintf(want, sizeof want, "%%s: truncated file (%zu of %zu bytes)", cuts[i], len);
    refuse(bad, NULL, want);
  }
  memcpy(c, b, len);
  memcpy(c + len, "xyz", 3);
  spit(bad, c, len + 3);
  refuse(bad, NULL, "%s: 3 unexpected bytes after the end of the weight file");

  /* One flipped byte: in the game name, in the layer sizes, in the data, in
   * the checksum itself. */
  const size_t flips[] = {25, 70, len / 2, len - 3};
  for (int i = 0; i < 4; i++) {
    memcpy(c, b, len);
    c[flips[i]] ^= 0x10;
    spit(bad, c, len);
    refuse(bad, NULL, "%s: checksum mismatch, the file is corrupted");
  }
  /* The good file still loads: the refusals above are about the damage. */
  nn_net *l = nn_load(good, NULL, NULL, err, sizeof err);
  ck_assert_msg(l != NULL, "%s", err);
  nn_free(l);
  free(b), free(c);
  nn_free(n);
  ck_assert_int_eq(test_open_fds(), fds);
}
END_TEST

/* ---- Checkpoints ------------------------------------------------------------------------ */
START_TEST(checkpoint_resumes_bit_identically) {
  char path[128], err[512];
  snprintf(path, sizeof path, "%s/ckpt.bin", tmpdir);
  nn_train_params p = nn_train_defaults();
  p.clip_norm = 5.0f;
  nn_net *n = make_net(&small_cfg, 31);
  nn_ws *ws = make_ws(n, 16);
  nn_trainer *t = make_trainer(n, &p);
  data d = make_data(16, 20, 7, 1, 5);
  for (int k = 0; k < 5; k++)
    nn_train_step(n, t, ws, d.x, d.legal, d.tp, d.tv, d.ts, 16, 1e-3f, NULL);
  nn_meta m = test_meta();
  const char state[] = "iteration=12 rng=0123456789abcdef";
  ck_assert_msg(nn_checkpoint_save(n, t, &m, state, sizeof state, path, err, sizeof err) == 0, "%s",
                err);
  for (int k = 0; k < 5; k++)
    nn_train_step(n, t, ws, d.x + 20 * (k % 3), d.legal, d.tp, d.tv, d.ts, 13, 1e-3f, NULL);

  nn_net *r = make_net(&small_cfg, 999); /* other weights, fresh optimiser */
  nn_trainer *rt = make_trainer(r, &p);
  char blob[64];
  size_t blen = 0;
  nn_meta got;
  nn_expect e = nn_expect_of(&m, &small_cfg);
  ck_assert_msg(
      nn_checkpoint_load(r, rt, path, &e, &got, blob, sizeof blob, &blen, err, sizeof err) == 0,
      "%s", err);
  ck_assert_uint_eq(blen, sizeof state);
  ck_assert_str_eq(blob, state);
  ck_assert_uint_eq(nn_trainer_steps(rt), 5);
  ck_assert_str_eq(got.game, "oware");
  for (int k = 0; k < 5; k++)
    nn_train_step(r, rt, ws, d.x + 20 * (k % 3), d.legal, d.tp, d.tv, d.ts, 13, 1e-3f, NULL);
  ck_assert_int_eq(memcmp(nn_params(r), nn_params(n), sizeof(float) * nn_param_count(n)), 0);
  ck_assert_uint_eq(nn_trainer_steps(rt), nn_trainer_steps(t));

  /* Small buffer, wrong kind of file, damage: refused with the reason,
   * and the net is left alone. */
  char want[512];
  float keep = nn_params(r)[0];
  ck_assert_int_eq(nn_checkpoint_load(r, rt, path, NULL, NULL, blob, 8, &blen, err, sizeof err),
                   -1);
  snprintf(want, sizeof want, "%s: checkpoint state is %zu bytes but the caller's buffer holds 8",
           path, sizeof state);
  ck_assert_str_eq(err, want);
  refuse(path, NULL, "%s: is a training checkpoint, not a weight file");
  char wpath[128];
  snprintf(wpath, sizeof wpath, "%s/w.weights", tmpdir);
  ck_assert(nn_save(n, &m, wpath, err, sizeof err) == 0);
  ck_assert_int_eq(
      nn_checkpoint_load(r, rt, wpath, NULL, NULL, blob, sizeof blob, &blen, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: is a weight file, not a training checkpoint", wpath);
  ck_assert_str_eq(err, want);
  size_t len;
  unsigned char *b = slurp(path, &len);
  b[len / 3] ^= 1;
  spit(path, b, len);
  ck_assert_int_eq(
      nn_checkpoint_load(r, rt, path, NULL, NULL, blob, sizeof blob, &blen, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: checksum mismatch, the file is corrupted", path);
  ck_assert_str_eq(err, want);
  b[len / 3] ^= 1;
  spit(path, b, len - 100);
  ck_assert_int_eq(
      nn_checkpoint_load(r, rt, path, NULL, NULL, blob, sizeof blob, &blen, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: truncated file (%zu of %zu bytes)", path, len - 100, len);
  ck_assert_str_eq(err, want);
  e.game = "warri";
  spit(path, b, len);
  ck_assert_int_eq(
      nn_checkpoint_load(r, rt, path, &e, NULL, blob, sizeof blob, &blen, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: trained for game 'oware' but this run plays 'warri'", path);
  ck_assert_str_eq(err, want);
  ck_assert(nn_params(r)[0] == keep);
  /* Saving an optimiser of another shape is refused, and writes nothing. */
  nn_config other = small_cfg;
  other.hidden = 32;
  nn_net *o = make_net(&other, 5);
  nn_trainer *ot = make_trainer(o, &p);
  char opath[128];
  snprintf(opath, sizeof opath, "%s/other.bin", tmpdir);
  ck_assert_int_eq(nn_checkpoint_save(n, ot, &m, NULL, 0, opath, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s: optimiser state is for another network shape", opath);
  ck_assert_str_eq(err, want);
  ck_assert_int_ne(access(opath, F_OK), 0);
  nn_trainer_free(ot), nn_free(o);
  free(b);
  free_data(&d);
  nn_trainer_free(rt), nn_free(r);
  nn_trainer_free(t), nn_ws_free(ws), nn_free(n);
}
END_TEST

static Suite *nn_file_suite(void) {
  Suite *s = suite_create("nn_file");
  TCase *t = add_tests(
      s, "files", 120,
      (const TTest *[]){weights_round_trip_bit_exact, weights_refuse_another_run,
                        weights_refuse_damaged_files, checkpoint_resumes_bit_identically, NULL});
  tcase_add_checked_fixture(t, setup, teardown);
  return s;
}

TEST_MAIN(nn_file_suite)

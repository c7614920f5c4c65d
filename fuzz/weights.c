/* Harness: weight files and training checkpoints (nn/nn.h, docs/FORMATS.md).
 *
 * Input: a flags byte, then the file. Flags:
 *   bit 0  the file is a checkpoint (nn_checkpoint_load), else weights
 *   bit 1  set the length field (bytes 12..19) to the file's length
 *   bit 2  set the checksum (the last 8 bytes) to the right one
 *   bit 3  load with the expectations of the harness's network (default
 *          Oware, 64-8x1-6), else with none
 * (bits 1 and 2 let mutations reach the checks behind the checksum.)
 * Checked, for weights:
 *   - a refused file is refused with a one-line message, and nn_load_into
 *     leaves the network's parameters as they were;
 *   - a file nn_load accepts is saved by nn_save (with the metadata read)
 *     to exactly the same bytes;
 *   - nn_load_into into a 64-8x1-6 network accepts the file exactly when
 *     nn_load does and the shape is that one, with the same parameters;
 * and for checkpoints:
 *   - a refused one leaves the network, the optimiser and the state blob
 *     as they were (their checkpoint saves to the same bytes as before);
 *   - an accepted one saves (nn_checkpoint_save, with the metadata and
 *     blob read) to exactly the same bytes.
 * (The loaders refuse names that are not printable ASCII: a name with a
 * NUL once read back shorter and saved to other bytes.) */
#include "fuzz/fuzz.h"

#define BLOB_CAP 64

static const nn_config tiny = {64, 8, 1, 6};

static void fix(uint8_t *b, size_t n, int flags) {
  if ((flags & 2) && n >= 20) put_u64le(b + 12, (uint64_t)n);
  if ((flags & 4) && n >= 8) put_u64le(b + n - 8, checksum64(b, n - 8, CHECKSUM64_INIT));
}

/* The bytes of a file equal to b[0..n). */
static int same_file(const char *path, const uint8_t *b, size_t n) {
  size_t m = 0;
  unsigned char *f = fuzz_read(path, &m);
  int same = f && m == n && (n == 0 || !memcmp(f, b, n));
  free(f);
  return same;
}

static void weights(const char *path, const uint8_t *b, size_t n, const nn_expect *e) {
  char err[1024] = "", err2[1024] = "";
  nn_meta meta, meta2;
  nn_net *loaded = nn_load(path, e, &meta, err, sizeof err);
  if (!loaded) {
    FUZZ_CHECK_MESSAGE(err);
  } else {
    const char *out = fuzz_path("saved.weights");
    FUZZ_CHECK(nn_save(loaded, &meta, out, err, sizeof err) == 0, "nn_save: %s", err);
    FUZZ_CHECK(same_file(out, b, n), "a loaded weight file saves to other bytes");
  }
  nn_net *net = nn_create(&tiny, 3, err2, sizeof err2);
  size_t np = nn_param_count(net);
  float *before = malloc(np * sizeof *before);
  memcpy(before, nn_params(net), np * sizeof *before);
  int rc = nn_load_into(net, path, e, &meta2, err2, sizeof err2);
  nn_config lc = loaded ? nn_config_of(loaded) : tiny;
  int fits = loaded && !memcmp(&lc, &tiny, sizeof tiny);
  FUZZ_CHECK((rc == 0) == fits, "nn_load %s, nn_load_into %s (%s / %s)",
             loaded ? "accepts" : "refuses", rc == 0 ? "accepts" : "refuses", err, err2);
  if (rc == 0) {
    FUZZ_CHECK(!memcmp(nn_params(net), nn_params(loaded), np * sizeof *before),
               "nn_load and nn_load_into read other parameters");
    FUZZ_CHECK(!strcmp(meta.game, meta2.game) && !strcmp(meta.rules, meta2.rules) &&
                   meta.encoding == meta2.encoding,
               "nn_load and nn_load_into read other metadata");
  } else {
    FUZZ_CHECK_MESSAGE(err2);
    FUZZ_CHECK(!memcmp(nn_params(net), before, np * sizeof *before),
               "a refused nn_load_into changed the network");
  }
  free(before);
  nn_free(net);
  nn_free(loaded);
}

/* A checkpoint of net, t and blob as bytes (malloc'd). */
static unsigned char *checkpoint_bytes(const nn_net *net, const nn_trainer *t, const nn_meta *m,
                                       const void *blob, size_t bl, size_t *n) {
  char err[1024];
  const char *out = fuzz_path("saved.ckpt");
  FUZZ_CHECK(nn_checkpoint_save(net, t, m, blob, bl, out, err, sizeof err) == 0,
             "nn_checkpoint_save: %s", err);
  return fuzz_read(out, n);
}

static void checkpoint(const char *path, const uint8_t *b, size_t n, const nn_expect *e) {
  char err[1024] = "";
  nn_net *net = nn_create(&tiny, 3, err, sizeof err);
  nn_train_params tp = nn_train_defaults();
  nn_trainer *t = nn_trainer_create(net, &tp, err, sizeof err);
  FUZZ_CHECK(net && t, "tiny network: %s", err);
  nn_meta m0, meta;
  memset(&m0, 0, sizeof m0);
  snprintf(m0.game, sizeof m0.game, "fuzz");
  uint8_t blob[BLOB_CAP], blob0[BLOB_CAP];
  for (int i = 0; i < BLOB_CAP; i++) blob[i] = blob0[i] = (uint8_t)(i * 37);
  size_t n0, bl = 5;
  unsigned char *s0 = checkpoint_bytes(net, t, &m0, blob, 16, &n0);
  if (nn_checkpoint_load(net, t, path, e, &meta, blob, BLOB_CAP, &bl, err, sizeof err) != 0) {
    FUZZ_CHECK_MESSAGE(err);
    FUZZ_CHECK(bl == 5 && !memcmp(blob, blob0, BLOB_CAP), "a refused checkpoint changed the blob");
    size_t n1;
    unsigned char *s1 = checkpoint_bytes(net, t, &m0, blob, 16, &n1);
    FUZZ_CHECK(n1 == n0 && !memcmp(s0, s1, n0), "a refused checkpoint changed the network");
    free(s1);
  } else {
    FUZZ_CHECK(bl <= BLOB_CAP, "blob of %zu bytes", bl);
    size_t n1;
    unsigned char *s1 = checkpoint_bytes(net, t, &meta, blob, bl, &n1);
    FUZZ_CHECK(n1 == n && !memcmp(s1, b, n), "a loaded checkpoint saves to other bytes");
    free(s1);
  }
  free(s0);
  nn_trainer_free(t);
  nn_free(net);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static game g;
  static char rules[512];
  if (!g.rules) {
    char err[256];
    if (game_configure(&g, "oware", 0, NULL, err, sizeof err)) abort();
    game_options_string(&g, rules, sizeof rules);
  }
  if (size < 1) return 0;
  int flags = data[0];
  size_t n = size - 1;
  uint8_t *b = malloc(n ? n : 1);
  if (n) memcpy(b, data + 1, n);
  fix(b, n, flags);
  const char *path = fuzz_path("input");
  fuzz_write(path, b, n);
  nn_meta want;
  memset(&want, 0, sizeof want);
  snprintf(want.game, sizeof want.game, "oware");
  snprintf(want.rules, sizeof want.rules, "%s", rules);
  want.encoding = g.encoding_version;
  want.n_features = tiny.n_in;
  want.n_actions = tiny.n_actions;
  nn_expect e = nn_expect_of(&want, &tiny);
  const nn_expect *ep = flags & 8 ? &e : NULL;
  if (flags & 1)
    checkpoint(path, b, n, ep);
  else
    weights(path, b, n, ep);
  free(b);
  return 0;
}

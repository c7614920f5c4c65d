/* Harness: replay buffer files (trainer/replay.h, docs/FORMATS.md).
 *
 * Input: three bytes, then the file. Byte 0 picks the buffer's game (one of
 * the five, default options), byte 1 its capacity (1..64 samples), bit 0 of
 * byte 2 sets the file's checksum (the last 8 bytes) to the right one, so
 * that mutations reach the checks behind it. Checked:
 *   - a refused file is refused with a one-line message and leaves the
 *     buffer empty;
 *   - an accepted one holds min(count, capacity) samples and the file's
 *     `added`; saved again it gives exactly the input's bytes when it all
 *     fit (but for what follows the NUL of the game name and of the rule
 *     options: the reader ignores it, the writer pads with zeros), and
 *     otherwise a file that loads to the same buffer;
 *   - what the learner does next works on every sample: its policy reads
 *     as a distribution (sums to 1, or 0 when empty) and its position
 *     encodes to finite features. */
#include "fuzz/fuzz.h"
#include "trainer/replay.h"

#define N_GAMES 5
static const char *const games[N_GAMES] = {"oware", "namnam", "bao-kenya", "bao-laps", "kujifunza"};

/* The input as the writer would have padded it: zeros after the NUL of
 * the game name (32 bytes at 24) and of the rule options (256 at 56), and
 * the checksum of that. */
static void canonical(uint8_t *b, size_t n) {
  static const size_t field[2][2] = {{24, 32}, {56, 256}};
  for (int f = 0; f < 2; f++) {
    uint8_t *s = b + field[f][0], *nul = memchr(s, 0, field[f][1]);
    if (nul) memset(nul, 0, field[f][1] - (size_t)(nul - s));
  }
  put_u64le(b + n - 8, checksum64(b, n - 8, CHECKSUM64_INIT));
}

static int same_bytes(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  unsigned char *x = fuzz_read(a, &na), *y = fuzz_read(b, &nb);
  int same = x && y && na == nb && !memcmp(x, y, na);
  free(x);
  free(y);
  return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static game G[N_GAMES];
  if (!G[0].rules)
    for (int i = 0; i < N_GAMES; i++) {
      char err[256];
      if (game_configure(&G[i], games[i], 0, NULL, err, sizeof err)) abort();
    }
  if (size < 3) return 0;
  const game *g = &G[data[0] % N_GAMES];
  int cap = 1 + data[1] % 64;
  size_t n = size - 3;
  uint8_t *b = malloc(n ? n : 1);
  if (n) memcpy(b, data + 3, n);
  if ((data[2] & 1) && n >= 8) put_u64le(b + n - 8, checksum64(b, n - 8, CHECKSUM64_INIT));
  const char *path = fuzz_path("input.bin");
  fuzz_write(path, b, n);

  char err[1024] = "";
  replay *r = replay_create(g, cap, err, sizeof err);
  FUZZ_CHECK(r, "replay_create: %s", err);
  replay_stats st;
  if (replay_load(r, path, err, sizeof err) != 0) {
    FUZZ_CHECK_MESSAGE(err);
    replay_get_stats(r, &st);
    FUZZ_CHECK(st.count == 0 && st.added == 0, "a refused file changed the buffer");
  } else {
    FUZZ_CHECK(n >= 312 + 8, "a file of %zu bytes loads", n);
    uint32_t count = get_u32le(b + 12);
    uint64_t added = get_u64le(b + 16);
    replay_get_stats(r, &st);
    FUZZ_CHECK(st.count == (count < (uint32_t)cap ? (int)count : cap) && st.added == added,
               "file of %u samples (added %llu): the buffer holds %d (added %llu)", count,
               (unsigned long long)added, st.count, (unsigned long long)st.added);
    const char *out = fuzz_path("saved.bin");
    FUZZ_CHECK(replay_save(r, out, err, sizeof err) == 0, "replay_save: %s", err);
    if (count <= (uint32_t)cap) {
      canonical(b, n);
      const char *canon = fuzz_path("canonical.bin");
      fuzz_write(canon, b, n);
      FUZZ_CHECK(same_bytes(canon, out), "a loaded replay file saves to other bytes");
    } else {
      replay *r2 = replay_create(g, cap, err, sizeof err);
      const char *out2 = fuzz_path("saved2.bin");
      FUZZ_CHECK(replay_load(r2, out, err, sizeof err) == 0, "a saved file does not load: %s", err);
      FUZZ_CHECK(replay_save(r2, out2, err, sizeof err) == 0, "replay_save: %s", err);
      FUZZ_CHECK(same_bytes(out, out2), "a saved replay file loads to another buffer");
      replay_free(r2);
    }
    rng_t rng;
    rng_seed(&rng, fuzz_hash(data, size), 0);
    replay_sample s[8];
    float features[GAME_MAX_FEATURES], pi[GAME_MAX_ACTIONS];
    if (st.count > 0) {
      FUZZ_CHECK(replay_sample_batch(r, &rng, s, 8) == 0, "replay_sample_batch");
      for (int i = 0; i < 8; i++) {
        replay_get_policy(&s[i], pi, g->n_actions);
        double sum = 0;
        for (int a = 0; a < g->n_actions; a++) sum += pi[a];
        FUZZ_CHECK(sum == 0 || fabs(sum - 1) < 1e-4, "policy sums to %g", sum);
        game_encode(g, &s[i].pos, features);
        for (int f = 0; f < g->n_features; f++)
          FUZZ_CHECK(isfinite(features[f]), "feature %d of a loaded sample is %g", f, features[f]);
      }
    }
  }
  replay_free(r);
  free(b);
  return 0;
}

/* Writes the binary seeds of fuzz/corpus (make fuzz-seeds): weight files
 * and checkpoints (weights/), replay buffers (replay/) and game records
 * (record/), each made by SowZero's own writers and prefixed with the
 * bytes its harness reads first. Run again after a format changes. */
#include "arena/record.h"
#include "fuzz/fuzz.h"
#include "trainer/replay.h"

#define N_GAMES 5
static const char *const games[N_GAMES] = {"oware", "namnam", "bao-kenya", "bao-laps", "kujifunza"};

static void die(const char *what, const char *err) {
  fprintf(stderr, "mkseeds: %s: %s\n", what, err);
  exit(1);
}

/* prefix, then the file at src, into dst. */
static void seed(const char *dst, const uint8_t *prefix, size_t np, const char *src) {
  size_t n;
  unsigned char *b = fuzz_read(src, &n);
  if (!b) die(src, "unreadable");
  unsigned char *out = malloc(np + n);
  memcpy(out, prefix, np);
  memcpy(out + np, b, n);
  fuzz_write(dst, out, np + n);
  printf("%s\n", dst);
  free(out);
  free(b);
}

static void weights(const char *dir) {
  char err[512], dst[600];
  game g;
  if (game_configure(&g, "oware", 0, NULL, err, sizeof err)) die("oware", err);
  const char *w = fuzz_path("oware.weights");
  fuzz_tiny_weights(&g, w); /* 64-8x1-6: the shape of the harness's network */
  const uint8_t flags[] = {0x00, 0x06, 0x08};
  for (size_t i = 0; i < sizeof flags; i++) {
    snprintf(dst, sizeof dst, "%s/oware-tiny-%02x.bin", dir, flags[i]);
    seed(dst, &flags[i], 1, w);
  }
  if (game_configure(&g, "kujifunza", 0, NULL, err, sizeof err)) die("kujifunza", err);
  fuzz_tiny_weights(&g, w);
  snprintf(dst, sizeof dst, "%s/kujifunza-tiny-00.bin", dir);
  seed(dst, (const uint8_t[]){0x00}, 1, w);

  /* A checkpoint of the harness's shape, after one training step. */
  nn_config c = {64, 8, 1, 6};
  nn_net *n = nn_create(&c, 5, err, sizeof err);
  nn_train_params tp = nn_train_defaults();
  nn_trainer *t = nn_trainer_create(n, &tp, err, sizeof err);
  nn_ws *ws = nn_ws_create(n, 2, err, sizeof err);
  if (!n || !t || !ws) die("network", err);
  float x[128], pi[12], z[2] = {1, -1};
  for (int i = 0; i < 128; i++) x[i] = (float)(i % 7) * 0.125f;
  for (int i = 0; i < 12; i++) pi[i] = 1.0f / 6;
  nn_train_step(n, t, ws, x, NULL, pi, z, NULL, 2, 0.01f, NULL);
  nn_meta m;
  memset(&m, 0, sizeof m);
  snprintf(m.game, sizeof m.game, "oware");
  game_configure(&g, "oware", 0, NULL, err, sizeof err);
  game_options_string(&g, m.rules, sizeof m.rules);
  m.encoding = g.encoding_version;
  const char blob[] = "iteration=3 rng=0123456789abcdef";
  const char *ck = fuzz_path("tiny.ckpt");
  if (nn_checkpoint_save(n, t, &m, blob, sizeof blob - 1, ck, err, sizeof err)) die(ck, err);
  const uint8_t cflags[] = {0x01, 0x07, 0x09};
  for (size_t i = 0; i < sizeof cflags; i++) {
    snprintf(dst, sizeof dst, "%s/oware-tiny-ckpt-%02x.bin", dir, cflags[i]);
    seed(dst, &cflags[i], 1, ck);
  }
  nn_ws_free(ws);
  nn_trainer_free(t);
  nn_free(n);
}

/* A random game of g from the start into rec (rng r). */
static void random_game(const game *g, rng_t *r, arena_game *rec) {
  memset(rec, 0, sizeof *rec);
  game_hist *h = malloc(sizeof *h);
  game_pos p;
  game_start(g, &p);
  game_hist_reset(h, &p);
  while (p.status == GAME_ONGOING) {
    int a = game_random_action(r, game_legal(g, &p));
    if (rec->open.n < 2)
      rec->open.moves[rec->open.n++] = (uint8_t)a;
    else
      rec->moves[rec->n_moves++] = (uint8_t)a;
    game_step(g, &p, h, a);
  }
  rec->final = p;
  free(h);
}

static void replays(const char *dir) {
  char err[512], dst[600];
  const char *src = fuzz_path("replay.bin");
  for (int gi = 0; gi < N_GAMES; gi++) {
    game g;
    if (game_configure(&g, games[gi], 0, NULL, err, sizeof err)) die(games[gi], err);
    replay *rb = replay_create(&g, 64, err, sizeof err);
    rng_t r;
    rng_seed(&r, 11, (uint64_t)gi);
    game_pos p;
    game_start(&g, &p);
    for (int i = 0; i < 6 && p.status == GAME_ONGOING; i++) {
      replay_sample s;
      memset(&s, 0, sizeof s);
      s.pos = p;
      float pi[GAME_MAX_ACTIONS] = {0};
      game_moves m = game_legal(&g, &p);
      for (int a = 0; a < g.n_actions; a++) pi[a] = (float)(m >> a & 1) * (float)(1 + a % 3);
      replay_set_policy(&s, pi, g.n_actions);
      s.z = (int8_t)(i % 3 - 1);
      s.margin = (int8_t)(i * 3 - 7);
      replay_add(rb, &s, 1);
      game_play(&g, &p, game_random_action(&r, m));
    }
    if (replay_save(rb, src, err, sizeof err)) die(src, err);
    replay_free(rb);
    snprintf(dst, sizeof dst, "%s/%s-6.bin", dir, games[gi]);
    seed(dst, (const uint8_t[]){(uint8_t)gi, 63, 0}, 3, src);
    if (gi == 0) { /* a buffer smaller than the file */
      snprintf(dst, sizeof dst, "%s/%s-6-into-3.bin", dir, games[gi]);
      seed(dst, (const uint8_t[]){(uint8_t)gi, 2, 1}, 3, src);
    }
  }
}

static void records(const char *dir) {
  char err[512], dst[600];
  arena_game *rec = malloc(sizeof *rec);
  for (int gi = 0; gi < N_GAMES; gi++) {
    game g;
    if (game_configure(&g, games[gi], 0, NULL, err, sizeof err)) die(games[gi], err);
    snprintf(dst, sizeof dst, "%s/%s.txt", dir, games[gi]);
    FILE *f = fopen(dst, "w");
    if (!f) die(dst, "cannot write");
    record_write_header(f, "random games");
    rng_t r;
    rng_seed(&r, 5, (uint64_t)gi);
    for (int k = 0; k < 2; k++) {
      random_game(&g, &r, rec);
      rec->number = k;
      record_write(f, &g, rec, "random", k ? "greedy" : "random");
    }
    fclose(f);
    printf("%s\n", dst);
  }
  free(rec);
}

int main(int argc, char **argv) {
  const char *root = argc > 1 ? argv[1] : "fuzz/corpus";
  char dir[512];
  snprintf(dir, sizeof dir, "%s/weights", root);
  weights(dir);
  snprintf(dir, sizeof dir, "%s/replay", root);
  replays(dir);
  snprintf(dir, sizeof dir, "%s/record", root);
  records(dir);
  return 0;
}

/* Test helper for the export tests (make test-export): writes positions of
 * real games with their features and the C network's outputs, for the
 * JavaScript tests to compare ONNX Runtime, the JSON evaluator and the JS
 * encoder against. Also makes fixed-seed networks of a given shape.
 *
 *   dump_cases WEIGHTS OUT.json [--replay FILE] [--samples N] [--random N] [--seed S]
 *     positions: N drawn from a run's replay buffer (self-play games) and N
 *     from random-play games (fixed seed), each with pits, stores, mover, ply,
 *     nocap, legal mask, features, and nn_forward's raw logits, masked policy,
 *     value and score (floats printed with 9 digits: exact float32).
 *   dump_cases --make-net OUT.weights --hidden H --blocks B [--seed S] [--game G]
 *     a He-initialised network for the game's default options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"
#include "trainer/replay.h"

#define BATCH 128

static int fail(const char *msg) {
  fprintf(stderr, "dump_cases: %s\n", msg);
  return 1;
}

static int configure_from_meta(const nn_meta *m, game *g, char *err, size_t errlen) {
  char rules[NN_RULES_MAX], *set[GAME_MAX_OPTIONS];
  int n = 0;
  snprintf(rules, sizeof rules, "%s", m->rules);
  for (char *t = strtok(rules, " "); t && n < GAME_MAX_OPTIONS; t = strtok(NULL, " ")) set[n++] = t;
  return game_configure(g, m->game, n, set, err, errlen);
}

static void put_floats(FILE *f, const float *x, int n) {
  fputc('[', f);
  for (int i = 0; i < n; i++) fprintf(f, "%s%.9g", i ? "," : "", (double)x[i]);
  fputc(']', f);
}

static int make_net(int argc, char **argv) {
  const char *out = NULL, *gname = "oware";
  int hidden = 0, blocks = -1;
  unsigned long long seed = 1;
  for (int i = 0; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--make-net"))
      out = argv[i + 1];
    else if (!strcmp(argv[i], "--hidden"))
      hidden = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--blocks"))
      blocks = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed"))
      seed = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--game"))
      gname = argv[i + 1];
    else
      return fail("usage: --make-net OUT --hidden H --blocks B [--seed S] [--game G]");
  }
  if (!out || hidden < 1 || blocks < 0) return fail("--make-net needs OUT, --hidden and --blocks");
  char err[512];
  game g;
  if (game_configure(&g, gname, 0, NULL, err, sizeof err)) return fail(err);
  nn_meta m;
  if (mcts_nn_meta(&g, &m, err, sizeof err)) return fail(err);
  nn_config c = {g.n_features, hidden, blocks, g.n_actions};
  nn_net *n = nn_create(&c, seed, err, sizeof err);
  if (!n) return fail(err);
  /* Non-zero biases, so that the exported bias tensors are exercised. */
  float *p = nn_params_mut(n);
  rng_t r;
  rng_seed(&r, seed, 99);
  for (int t = 0; t < nn_tensor_count(n); t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    if (d->rows == 1)
      for (int j = 0; j < d->cols; j++) p[d->offset + (size_t)j] = (float)(0.1 * rng_normal(&r));
  }
  int rc = nn_save(n, &m, out, err, sizeof err);
  nn_free(n);
  return rc ? fail(err) : 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--make-net")) return make_net(argc - 1, argv + 1);
  if (argc < 3)
    return fail("usage: WEIGHTS OUT.json [--replay FILE] [--samples N] [--random N] [--seed S]");
  const char *wpath = argv[1], *out = argv[2], *replay_path = NULL;
  int n_samples = 0, n_random = 1000;
  unsigned long long seed = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--replay"))
      replay_path = argv[i + 1];
    else if (!strcmp(argv[i], "--samples"))
      n_samples = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--random"))
      n_random = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed"))
      seed = strtoull(argv[i + 1], NULL, 10);
    else
      return fail("unknown option");
  }
  char err[1024];
  nn_meta meta;
  nn_net *net = nn_load(wpath, NULL, &meta, err, sizeof err);
  if (!net) return fail(err);
  nn_free(net);
  game g;
  if (configure_from_meta(&meta, &g, err, sizeof err)) return fail(err);
  net = mcts_nn_load(&g, wpath, MCTS_NN_OWN_RULES, err, sizeof err);
  if (!net) return fail(err);

  int total = n_samples + n_random;
  game_pos *pos = calloc((size_t)total + 1, sizeof *pos);
  game_hist *hist = malloc(sizeof *hist);
  if (!pos || !hist) return fail("out of memory");
  int np = 0;
  rng_t rng;
  rng_seed(&rng, seed, 1);

  if (replay_path && n_samples > 0) {
    replay *rb = replay_create(&g, 200000, err, sizeof err);
    if (!rb || replay_load(rb, replay_path, err, sizeof err)) return fail(err);
    replay_sample *s = malloc((size_t)n_samples * sizeof *s);
    if (!s || replay_sample_batch(rb, &rng, s, n_samples)) return fail("empty replay buffer");
    for (int i = 0; i < n_samples; i++) pos[np++] = s[i].pos;
    free(s);
    replay_free(rb);
  }
  /* Random play, every ongoing position of each game, until enough. */
  while (np < total) {
    game_pos p;
    game_start(&g, &p);
    game_hist_reset(hist, &p);
    while (p.status == GAME_ONGOING && np < total) {
      game_moves m = game_legal(&g, &p);
      if (!m) break;
      pos[np++] = p;
      game_step(&g, &p, hist, game_nth_action(m, (int)rng_below(&rng, (uint32_t)game_count(m))));
    }
  }

  nn_ws *ws = nn_ws_create(net, BATCH, err, sizeof err);
  if (!ws) return fail(err);
  const int F = g.n_features, A = g.n_actions;
  float *x = malloc((size_t)BATCH * F * sizeof *x);
  float *pol = malloc((size_t)BATCH * A * sizeof *pol);
  float val[BATCH], sc[BATCH];
  uint32_t legal[BATCH];
  FILE *f = fopen(out, "w");
  if (!x || !pol || !f) return fail("cannot write the output");
  fprintf(f,
          "{\"game\": \"%s\", \"rules\": \"%s\", \"n_features\": %d, \"n_actions\": %d, "
          "\"n_pits\": %d, \"replay_positions\": %d, \"positions\": [\n",
          meta.game, meta.rules, F, A, g.n_pits, n_samples);
  for (int b0 = 0; b0 < np; b0 += BATCH) {
    int nb = np - b0 < BATCH ? np - b0 : BATCH;
    for (int i = 0; i < nb; i++) {
      game_encode(&g, &pos[b0 + i], x + (size_t)i * F);
      legal[i] = game_legal(&g, &pos[b0 + i]);
    }
    if (nn_forward(net, ws, x, legal, nb, pol, val, sc)) return fail("nn_forward failed");
    const float *lg = nn_ws_logits(ws);
    for (int i = 0; i < nb; i++) {
      const game_pos *p = &pos[b0 + i];
      fprintf(f, "%s{\"pits\": [", b0 + i ? ",\n" : "");
      for (int k = 0; k < g.n_pits; k++) fprintf(f, "%s%d", k ? "," : "", p->pits[k]);
      fprintf(f, "], \"store\": [%d,%d], \"mover\": %d, \"ply\": %d, \"nocap\": %d, \"legal\": %u",
              p->store[0], p->store[1], p->mover, p->ply, p->nocap, legal[i]);
      fprintf(f, ", \"features\": ");
      put_floats(f, x + (size_t)i * F, F);
      fprintf(f, ", \"logits\": ");
      put_floats(f, lg + (size_t)i * (A + 2), A);
      fprintf(f, ", \"policy\": ");
      put_floats(f, pol + (size_t)i * A, A);
      fprintf(f, ", \"value\": %.9g, \"score\": %.9g}", (double)val[i], (double)sc[i]);
    }
  }
  fprintf(f, "\n]}\n");
  if (fclose(f) != 0) return fail("write failed");
  fprintf(stderr, "dump_cases: %d positions (%d from the replay buffer) -> %s\n", np, n_samples,
          out);
  nn_ws_free(ws);
  nn_free(net);
  free(x);
  free(pol);
  free(pos);
  free(hist);
  return 0;
}

/* Harness: setboard and board tokens of every game (game/game.h), then a
 * few random moves.
 *
 * Input, as text lines:
 *   GAME [key=value ...]      a game or preset and rule options (game_configure)
 *   [!]MOVER TOKENS...        setboard's tokens; with '!' the harness first
 *                             makes the seed counts add up to the game's
 *                             total (clamped from the left, the rest into the
 *                             last pit), so most mutations stay valid boards
 *   anything                  (optional) its bytes seed the random moves
 * Checked:
 *   - the option string of the configured game configures the same game;
 *   - a refused setboard says why in one line;
 *   - an accepted board holds the game's seeds (pits + stores =
 *     total_seeds, no seeds in pits past n_pits), its legal moves are
 *     actions of the game, and an ongoing position has one;
 *   - `state`'s board tokens (board_tokens) fed back to setboard give the
 *     same position (every field game_pos_equal compares, status included);
 *   - then up to MAX_PLIES random legal moves through game_step, after each:
 *     seeds conserved, the mover 0 or 1, an ongoing game has a legal move,
 *     a finished one a winner 0, 1 or draw and an end reason, and while the
 *     game goes on the board tokens read back to the same board (pits,
 *     stores, owners, round, phase, mover, aux[0], hash, status);
 *   - rendering and encoding of every position (features finite). */
#include "fuzz/fuzz.h"

#define MAX_PLIES  200
#define MAX_TOKENS 96

static int split(char *s, char **argv, int max) {
  int argc = 0;
  char *save = NULL;
  for (char *t = strtok_r(s, " \t\r", &save); t && argc < max; t = strtok_r(NULL, " \t\r", &save))
    argv[argc++] = t;
  return argc;
}

static int seeds_of(const game *g, const game_pos *p) {
  int s = p->store[0] + p->store[1];
  for (int i = 0; i < GAME_MAX_PITS; i++) {
    FUZZ_CHECK(i < g->n_pits || p->pits[i] == 0, "%d seeds in pit %d past the board", p->pits[i],
               i);
    s += p->pits[i];
  }
  return s;
}

/* The seed-count tokens (argv[1 .. n_pits+2], or the pits only when a
 * game keeps no stores) rewritten to add up to the game's total: each
 * clamped to what is left, the rest added to the last pit. */
static void balance(const game *g, int argc, char **argv, char store[][12]) {
  int last = g->n_pits + (strcmp(g->rules->name, "kujifunza") ? 2 : 0);
  if (argc <= g->n_pits) return; /* too few tokens: setboard refuses them anyway */
  int v[MAX_TOKENS], sum = 0;
  for (int i = 1; i <= last && i < argc; i++) {
    long x = strtol(argv[i], NULL, 10);
    v[i] = x < 0 ? 0 : x > g->total_seeds - sum ? g->total_seeds - sum : (int)x;
    sum += v[i];
  }
  v[g->n_pits] += g->total_seeds - sum;
  for (int i = 1; i <= last && i < argc; i++) {
    snprintf(store[i], 12, "%d", v[i]);
    argv[i] = store[i];
  }
}

static void check_position(const game *g, const game_pos *p, float *features) {
  FUZZ_CHECK(seeds_of(g, p) == g->total_seeds, "%d seeds on a board of %d", seeds_of(g, p),
             g->total_seeds);
  FUZZ_CHECK(p->mover <= 1, "mover %d", p->mover);
  game_moves m = game_legal(g, p);
  FUZZ_CHECK(g->n_actions >= 32 || (m >> g->n_actions) == 0, "legal %#x past %d actions", m,
             g->n_actions);
  if (p->status == GAME_ONGOING) {
    FUZZ_CHECK(m != 0, "an ongoing position without a legal move");
  } else {
    FUZZ_CHECK(p->status == GAME_OVER, "status %d", p->status);
    FUZZ_CHECK(p->winner <= GAME_DRAW, "winner %d", p->winner);
    FUZZ_CHECK(p->end_reason > GAME_END_NONE && p->end_reason < GAME_END_COUNT, "end reason %d",
               p->end_reason);
  }
  char text[4096];
  game_render(g, p, text, sizeof text);
  FUZZ_CHECK(strlen(text) < sizeof text, "render");
  game_encode(g, p, features);
  for (int i = 0; i < g->n_features; i++)
    FUZZ_CHECK(isfinite(features[i]), "feature %d is %g", i, features[i]);
}

/* The board tokens of p read back by setboard; 0 and *q, or -1 (message). */
static int read_back(const game *g, const game_pos *p, game_pos *q, char *err, size_t errlen) {
  char tokens[1024], line[1100], *argv[MAX_TOKENS];
  FUZZ_CHECK(g->rules->board_tokens(g, p, tokens, sizeof tokens) == 0, "board_tokens failed");
  snprintf(line, sizeof line, "%d %s", p->mover, tokens);
  int argc = split(line, argv, MAX_TOKENS);
  return g->rules->setboard(g, q, argc, argv, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  char *l1 = text, *l2 = NULL, *l3 = NULL;
  char *nl = strchr(l1, '\n');
  if (nl) *nl = 0, l2 = nl + 1;
  if (l2 && (nl = strchr(l2, '\n'))) *nl = 0, l3 = nl + 1;
  char *argv[MAX_TOKENS], err[512] = "";
  int argc = split(l1, argv, MAX_TOKENS);
  game g;
  if (argc == 0 || game_configure(&g, argv[0], argc - 1, argv + 1, err, sizeof err) != 0) {
    if (argc) FUZZ_CHECK_MESSAGE(err);
    free(text);
    return 0;
  }
  /* The canonical option string configures the same game. */
  char opts[512], opts2[512], *ov[GAME_MAX_OPTIONS + 1];
  FUZZ_CHECK(game_options_string(&g, opts, sizeof opts) == 0, "options string");
  snprintf(opts2, sizeof opts2, "%s", opts);
  int oc = split(opts2, ov, GAME_MAX_OPTIONS + 1);
  game g2;
  FUZZ_CHECK(game_configure(&g2, g.rules->name, oc, ov, err, sizeof err) == 0,
             "'%s %s' does not configure: %s", g.rules->name, opts, err);
  game_options_string(&g2, opts2, sizeof opts2);
  FUZZ_CHECK(!strcmp(opts, opts2) && g2.n_pits == g.n_pits && g2.total_seeds == g.total_seeds &&
                 g2.n_actions == g.n_actions && g2.repetition == g.repetition,
             "'%s' configures '%s'", opts, opts2);
  if (!l2) {
    free(text);
    return 0;
  }
  int fix = l2[0] == '!';
  argc = split(l2 + fix, argv, MAX_TOKENS);
  char counts[MAX_TOKENS][12];
  if (fix) balance(&g, argc, argv, counts);
  game_pos p;
  err[0] = 0;
  if (g.rules->setboard(&g, &p, argc, argv, err, sizeof err) != 0) {
    FUZZ_CHECK_MESSAGE(err);
    free(text);
    return 0;
  }
  float *features = malloc(GAME_MAX_FEATURES * sizeof *features);
  check_position(&g, &p, features);
  game_pos q;
  FUZZ_CHECK(read_back(&g, &p, &q, err, sizeof err) == 0, "setboard refuses its own board: %s",
             err);
  FUZZ_CHECK(game_pos_equal(&p, &q) && q.status == p.status && q.winner == p.winner &&
                 q.end_reason == p.end_reason,
             "board tokens read back to another position");

  /* Random moves from there. */
  rng_t r;
  rng_seed(&r, fuzz_hash(data, size), l3 ? fuzz_hash((const uint8_t *)l3, strlen(l3)) : 0);
  game_hist *h = malloc(sizeof *h);
  game_hist_reset(h, &p);
  for (int i = 0; i < MAX_PLIES && p.status == GAME_ONGOING; i++) {
    game_step(&g, &p, h, game_random_action(&r, game_legal(&g, &p)));
    check_position(&g, &p, features);
    if (p.status != GAME_ONGOING) break;
    FUZZ_CHECK(read_back(&g, &p, &q, err, sizeof err) == 0,
               "setboard refuses a position of play: %s", err);
    FUZZ_CHECK(!memcmp(q.pits, p.pits, sizeof q.pits) && q.store[0] == p.store[0] &&
                   q.store[1] == p.store[1] && q.owner == p.owner && q.round == p.round &&
                   q.phase == p.phase && q.mover == p.mover && q.aux[0] == p.aux[0] &&
                   q.hash == p.hash && q.status == p.status,
               "after %d random moves the board tokens read back to another position", i + 1);
  }
  free(h);
  free(features);
  free(text);
  return 0;
}

/* Harness: agent spec strings (search/agent.h) for every game.
 *
 * Input: the first line is the spec; the bytes after it choose how many
 * random plies from the start the agent is asked about (the first byte) and
 * seed those plies. The spec goes through fuzz_cap_spec (fuzz/fuzz.h:
 * searches capped to a few simulations or plies; weights= names a tiny
 * network the harness made for each game), then for each game:
 *   - agent_create refuses with a one-line message, or makes an agent whose
 *     spec is the one given and whose kind is the spec's first word;
 *   - agent_choose on an ongoing position returns a legal action, on a
 *     finished one -1 with a message;
 *   - agent_analyze fails with a message, or lists each legal action once,
 *     with a legal best action, priors in [0, 1], values and the root value
 *     in [-1, 1], none of them NaN;
 *   - agent_reseed + agent_reset make the choice depend on (seed, stream)
 *     alone: twice the same choice. */
#include "fuzz/fuzz.h"
#include "search/agent.h"

#define N_GAMES 5
static const char *const games[N_GAMES] = {"oware", "namnam", "bao-kenya", "bao-laps", "kujifunza"};
static game G[N_GAMES];
static const char *weights[N_GAMES];

static void init(void) {
  char err[256], name[64];
  for (int i = 0; i < N_GAMES; i++) {
    if (game_configure(&G[i], games[i], 0, NULL, err, sizeof err)) abort();
    snprintf(name, sizeof name, "%s.weights", games[i]);
    weights[i] = fuzz_path(name);
    fuzz_tiny_weights(&G[i], weights[i]);
  }
}

static void check_analysis(const game *g, const game_pos *p, const agent_analysis *an) {
  game_moves legal = game_legal(g, p), seen = 0;
  FUZZ_CHECK(an->n == game_count(legal), "analysis of %d moves, %d legal", an->n,
             game_count(legal));
  for (int i = 0; i < an->n; i++) {
    int a = an->action[i];
    FUZZ_CHECK(a >= 0 && a < GAME_MAX_ACTIONS && (legal >> a & 1) && !(seen >> a & 1),
               "analysis lists action %d", a);
    seen |= 1u << a;
    FUZZ_CHECK(an->visits[i] >= 0, "visits %d", an->visits[i]);
    FUZZ_CHECK(an->prior[i] >= 0 && an->prior[i] <= 1.0001f, "prior %g", an->prior[i]);
    FUZZ_CHECK(an->value[i] >= -1.0001f && an->value[i] <= 1.0001f, "value %g", an->value[i]);
  }
  FUZZ_CHECK(an->best >= 0 && an->best < GAME_MAX_ACTIONS && (legal >> an->best & 1),
             "best action %d", an->best);
  FUZZ_CHECK(an->root_value >= -1.0001f && an->root_value <= 1.0001f, "root value %g",
             an->root_value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!weights[0]) init();
  const uint8_t *nl = memchr(data, '\n', size);
  size_t sl = nl ? (size_t)(nl - data) : size;
  if (sl > 1000) return 0; /* agent_create refuses specs of 256 characters or more */
  char spec[1024], capped[1024];
  memcpy(spec, data, sl);
  spec[sl] = 0;
  const uint8_t *rest = nl ? nl + 1 : data + size;
  size_t rn = (size_t)(data + size - rest);
  int plies = rn ? rest[0] % 48 : 0;
  game_hist *h = malloc(sizeof *h);
  for (int gi = 0; gi < N_GAMES; gi++) {
    const game *g = &G[gi];
    fuzz_cap_spec(spec, weights[gi], capped, sizeof capped);
    char err[512] = "";
    agent *a = agent_create(g, capped, 1, err, sizeof err);
    if (!a) {
      FUZZ_CHECK_MESSAGE(err);
      continue;
    }
    FUZZ_CHECK(!strcmp(agent_spec(a), capped), "spec '%s' of '%s'", agent_spec(a), capped);
    size_t kl = strcspn(capped + strspn(capped, " \t"), " \t");
    FUZZ_CHECK(strlen(agent_kind_name(a)) == kl &&
                   !strncmp(agent_kind_name(a), capped + strspn(capped, " \t"), kl),
               "kind '%s' of '%s'", agent_kind_name(a), capped);
    /* The position: some random plies from the start. */
    rng_t r;
    rng_seed(&r, fuzz_hash(rest, rn), (uint64_t)gi);
    game_pos p;
    game_start(g, &p);
    game_hist_reset(h, &p);
    for (int i = 0; i < plies && p.status == GAME_ONGOING; i++)
      game_step(g, &p, h, game_random_action(&r, game_legal(g, &p)));

    int act = agent_choose(a, &p, h);
    if (p.status == GAME_ONGOING)
      FUZZ_CHECK(act >= 0 && act < g->n_actions && (game_legal(g, &p) >> act & 1),
                 "%s on %s chose %d (%s)", capped, games[gi], act, act < 0 ? agent_error(a) : "");
    else
      FUZZ_CHECK(act == -1 && agent_error(a)[0], "%s chose %d in a finished game", capped, act);

    agent_analysis an;
    if (agent_analyze(a, &p, h, &an) == 0) {
      FUZZ_CHECK(p.status == GAME_ONGOING, "%s analyzed a finished game", capped);
      check_analysis(g, &p, &an);
    } else {
      FUZZ_CHECK_MESSAGE(agent_error(a));
    }

    if (p.status == GAME_ONGOING) {
      int c[2];
      for (int k = 0; k < 2; k++) {
        agent_reseed(a, 9, 3);
        agent_reset(a);
        c[k] = agent_choose(a, &p, h);
      }
      FUZZ_CHECK(c[0] == c[1], "%s on %s: after the same reseed chose %d, then %d", capped,
                 games[gi], c[0], c[1]);
    }
    agent_free(a);
  }
  free(h);
  return 0;
}

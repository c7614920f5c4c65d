/* The agent registry and the two simplest agents: random and greedy. */
#include "search/agent.h"

#include <stdlib.h>
#include <string.h>

#include "search/agent_internal.h"

static const agent_kind *const kinds[] = {&agent_random,   &agent_greedy, &agent_alphabeta,
                                          &agent_mcts,     &agent_zero,   &agent_net,
                                          &agent_egdb_kind};
#define N_KINDS (int)(sizeof kinds / sizeof kinds[0])

const char *agent_usage(int i) { return i >= 0 && i < N_KINDS ? kinds[i]->usage : NULL; }

/* An agent of kind k: from spec's settings (argv), or from zp (a typed
 * zero agent). spec is what agent_spec reports. */
static agent *agent_new(const game *g, const agent_kind *k, const char *spec,
                        const agent_params *ap, int argc, char *const *argv,
                        const agent_zero_params *zp, char *err, size_t errlen) {
  const char *dir = ap->egdb_dir ? ap->egdb_dir : "";
  if (strlen(dir) >= sizeof((agent *)0)->egdb_dir) {
    errf(err, errlen, "the endgame database's folder name is too long: %s", dir);
    return NULL;
  }
  agent *a = calloc(1, sizeof *a);
  if (!a) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  a->kind = k;
  a->g = *g;
  agent_reseed(a, ap->seed, 0x61676e74);
  snprintf(a->spec, sizeof a->spec, "%s", spec);
  snprintf(a->egdb_dir, sizeof a->egdb_dir, "%s", dir);
  int rc = zp ? agent_zero_build(a, zp, err, errlen) : k->create(a, argc, argv, err, errlen);
  if (rc != 0) {
    free(a);
    return NULL;
  }
  return a;
}

agent *agent_create(const game *g, const char *spec, uint64_t seed, char *err, size_t errlen) {
  return agent_make(g, spec, &(agent_params){.seed = seed}, err, errlen);
}

agent *agent_make(const game *g, const char *spec, const agent_params *p, char *err,
                  size_t errlen) {
  char buf[256], *argv[32], *save = NULL;
  int argc = 0;
  if (strlen(spec) >= sizeof buf) {
    errf(err, errlen, "agent spec too long");
    return NULL;
  }
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
    if (argc == 32) {
      errf(err, errlen, "agent spec '%s' has too many settings", spec);
      return NULL;
    }
    argv[argc++] = t;
  }
  if (argc == 0) {
    errf(err, errlen, "empty agent spec");
    return NULL;
  }
  const agent_kind *k = NULL;
  for (int i = 0; i < N_KINDS; i++)
    if (strcmp(kinds[i]->kind, argv[0]) == 0) k = kinds[i];
  if (!k) {
    char names[256];
    size_t n = 0;
    names[0] = 0;
    for (int i = 0; i < N_KINDS && n < sizeof names; i++)
      n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", kinds[i]->kind);
    errf(err, errlen, "unknown agent '%s' (known: %s)", argv[0], names);
    return NULL;
  }
  return agent_new(g, k, spec, p, argc - 1, argv + 1, NULL, err, errlen);
}

agent *agent_zero_create(const game *g, const agent_zero_params *p, uint64_t seed, char *err,
                         size_t errlen) {
  char spec[256];
  if ((size_t)snprintf(spec, sizeof spec, "zero weights=%s sims=%d precision=%s", p->weights,
                       p->sims, nn_precision_name((nn_precision)p->precision)) >= sizeof spec) {
    errf(err, errlen, "agent zero: weight file name too long: %s", p->weights);
    return NULL;
  }
  return agent_new(g, &agent_zero, spec, &(agent_params){.seed = seed}, 0, NULL, p, err, errlen);
}

void agent_free(agent *a) {
  if (!a) return;
  if (a->kind->free_impl) a->kind->free_impl(a);
  free(a);
}

int agent_choose(agent *a, const game_pos *p, const game_hist *h) {
  if (p->status != GAME_ONGOING || game_legal(&a->g, p) == 0) {
    errf(a->err, sizeof a->err, "no legal move: the game is over");
    return -1;
  }
  return a->kind->choose(a, p, h);
}

/* Entries i and j of an analysis exchanged, every field of each. */
static void analysis_swap(agent_analysis *x, int i, int j) {
  int ta = x->action[i], tv = x->visits[i], tl = x->pv_len[i];
  float tp = x->prior[i], tq = x->value[i], tm = x->move_margin[i];
  uint8_t pv[AGENT_PV_MAX];
  memcpy(pv, x->pv[i], sizeof pv);
  x->action[i] = x->action[j], x->visits[i] = x->visits[j], x->pv_len[i] = x->pv_len[j];
  x->prior[i] = x->prior[j], x->value[i] = x->value[j], x->move_margin[i] = x->move_margin[j];
  memcpy(x->pv[i], x->pv[j], sizeof pv);
  x->action[j] = ta, x->visits[j] = tv, x->pv_len[j] = tl;
  x->prior[j] = tp, x->value[j] = tq, x->move_margin[j] = tm;
  memcpy(x->pv[j], pv, sizeof pv);
}

int agent_analyze(agent *a, const game_pos *p, const game_hist *h, agent_analysis *out) {
  if (!a->kind->analyze) {
    errf(a->err, sizeof a->err, "agent %s does not analyze positions", a->kind->kind);
    return -1;
  }
  if (p->status != GAME_ONGOING) {
    errf(a->err, sizeof a->err, "no legal move: the game is over");
    return -1;
  }
  if (a->kind->analyze(a, p, h, out) != 0) return -1;
  /* In action order, whatever order the kind searched them in. */
  for (int i = 1; i < out->n; i++)
    for (int j = i; j > 0 && out->action[j - 1] > out->action[j]; j--) analysis_swap(out, j, j - 1);
  return 0;
}

void agent_reset(agent *a) {
  if (a->kind->reset) a->kind->reset(a);
}

void agent_reseed(agent *a, uint64_t seed, uint64_t stream) { rng_seed(&a->rng, seed, stream); }

void agent_set_time(agent *a, const agent_time *t) { a->time = *t; }

timectl_budget agent_budget(const agent *a, const game_pos *p, double own_time) {
  timectl_state st = {a->time.per_move, a->time.remaining, a->time.increment, own_time, p->ply};
  return timectl_plan(&st);
}

const char *agent_spec(const agent *a) { return a->spec; }
const char *agent_kind_name(const agent *a) { return a->kind->kind; }
const char *agent_error(const agent *a) { return a->err; }

int agent_settings(const agent *a, kv_target *tg, int n, int argc, char *const *argv, char *err,
                   size_t errlen) {
  char e[512];
  if (kv_set_list(tg, n, argc, argv, e, sizeof e) == 0) return 0;
  errf(err, errlen, "agent %s: %s", a->kind->kind, e);
  return -1;
}

/* ---- random ------------------------------------------------------------------ */

static int no_settings(agent *a, int argc, char *const *argv, char *err, size_t errlen) {
  if (argc > 0) {
    errf(err, errlen, "agent %s takes no settings (got '%s')", a->kind->kind, argv[0]);
    return -1;
  }
  return 0;
}

static int random_choose(agent *a, const game_pos *p, const game_hist *h) {
  (void)h;
  return game_random_action(&a->rng, game_legal(&a->g, p));
}

const agent_kind agent_random = {"random", "random", no_settings, random_choose, NULL, NULL, NULL};

/* ---- greedy -------------------------------------------------------------------
 * The largest immediate gain in the mover's store; a move that wins the game
 * at once comes first, one that loses it at once last; ties at random. */

static int greedy_choose(agent *a, const game_pos *p, const game_hist *h) {
  (void)h;
  game_moves m = game_legal(&a->g, p), best = 0;
  int me = p->mover, best_score = -1000000;
  for (game_moves r = m; r; r &= r - 1) {
    int act = __builtin_ctz(r);
    game_pos q = *p;
    game_play(&a->g, &q, act);
    int score = q.store[me] - p->store[me];
    if (q.status == GAME_OVER) score += 1000 * game_outcome(&q, me);
    if (score > best_score) {
      best_score = score;
      best = 0;
    }
    if (score == best_score) best |= 1u << act;
  }
  return game_random_action(&a->rng, best);
}

const agent_kind agent_greedy = {"greedy", "greedy", no_settings, greedy_choose, NULL, NULL, NULL};

/* Fault injection: every allocation failure is a clean error.
 *
 * Each operation below runs again and again with its n-th allocation
 * failing (tests/failalloc.h), n = 0, 1, 2, ... until a run goes through
 * with no failure injected (past DENSE allocations n moves in steps, so
 * that at most CAP runs are made). For each n: no crash (ASan and UBSan
 * builds: no bad access either; LeakSanitizer: nothing leaked, each test
 * runs in its own process); an operation that reports an error gives a
 * message; with no failure injected it succeeds; and an operation that
 * reports success despite a failed allocation has the result success
 * means (the searches searched, the net is int8, every sample came back),
 * so a failure turned into a silent `return 0` is caught too. Only where a
 * contract says so is work dropped quietly (records_add drops a game). A
 * training run that fails must go on, memory back, with the same command:
 * nothing it had written is lost. */
#include <check.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/record.h"
#include "arena/stats.h"
#include "arena/study.h"
#include "base/base.h"
#include "base/json.h"
#include "egdb/egdb.h"
#include "game/game.h"
#include "nn/nn.h"
#include "protocol/analysis.h"
#include "protocol/protocol.h"
#include "search/agent.h"
#include "search/evaluator_nn.h"
#include "tests/failalloc.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/config.h"
#include "trainer/dist_learner.h"
#include "trainer/netslot.h"
#include "trainer/records.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"
#include "trainer/train.h"

enum { DENSE = 200, CAP = 400 };

/* An operation: 0 on success, else -1 with a message in err; WRONG (with
 * what is wrong in err) when it reported success but its result is not
 * what success means (a failed allocation papered over). */
enum { WRONG = 2 };
typedef int (*op_fn)(char *err, size_t errlen);

static game G;
static char dir[256];

static void setup(void) {
  char err[256];
  ck_assert_int_eq(game_configure(&G, "oware", 0, NULL, err, sizeof err), 0);
  scratch_dir(dir, sizeof dir, "faults");
  ck_assert_int_le(G.n_features, 1024); /* op_network's rows */
  /* The agents' default precision is auto: the fixed ranking, not timed. */
  setenv(NN_AUTO_ENV, "fixed", 1);
}

static void teardown(void) { remove_tree(dir); }

/* Runs op with each allocation in turn failing (see the top). */
static void inject_sampled(const char *name, op_fn op, long dense, long cap) {
  char err[1024] = "";
  failalloc_arm(LONG_MAX);
  int rc = op(err, sizeof err);
  long total = failalloc_count();
  ck_assert_int_eq(failalloc_disarm(), 0);
  ck_assert_msg(rc == 0, "%s fails with no failure injected: %s", name, err);
  ck_assert_msg(total > 0, "%s allocates nothing: nothing to test", name);
  long step = total > cap ? (total - dense) / (cap - dense) + 1 : 1;
  int runs = 0;
  for (long n = 0;; n += n < dense ? 1 : step) {
    ck_assert_msg(runs++ < 2 * cap, "%s: still failing after %d runs", name, runs);
    err[0] = 0;
    failalloc_arm(n);
    rc = op(err, sizeof err);
    int failed = failalloc_disarm();
    ck_assert_msg(rc != WRONG, "%s, allocation %ld of %ld failing: succeeds wrongly: %s", name, n,
                  total, err);
    if (!failed) {
      ck_assert_msg(rc == 0, "%s fails with no failure injected (n = %ld): %s", name, n, err);
      break;
    }
    ck_assert_msg(rc == 0 || err[0],
                  "%s, allocation %ld of %ld failing: an error without a message", name, n, total);
  }
}

static void inject(const char *name, op_fn op) { inject_sampled(name, op, DENSE, CAP); }

/* A failure as the headers promise it: -1 (with the message already in
 * err); any other value is WRONG, named. */
static int documented(const char *call, int rc, char *err, size_t errlen) {
  if (rc == -1) return -1;
  snprintf(err, errlen, "%s returned %d on failure, not -1", call, rc);
  return WRONG;
}
#define CALL(call)                                            \
  do {                                                        \
    int rc_ = (call);                                         \
    if (rc_ != 0) return documented(#call, rc_, err, errlen); \
  } while (0)

/* ---- Operations -------------------------------------------------------------------------- */

static int op_config(char *err, size_t errlen) {
  static train_config c;
  CALL(config_load(&c, "configs/tiny.ini", 0, NULL, err, errlen));
  return 0;
}

/* A network: made, evaluated on a few rows in fp32 and int8, saved, loaded. */
static int op_network(char *err, size_t errlen) {
  enum { ROWS = 3 };
  static float x[ROWS * 1024], policy[ROWS * GAME_MAX_ACTIONS], value[ROWS], score[ROWS];
  game_pos p;
  game_start(&G, &p);
  for (int r = 0; r < ROWS; r++) {
    game_encode(&G, &p, x + r * G.n_features);
    game_play(&G, &p, game_nth_action(game_legal(&G, &p), 0));
  }
  char path[300];
  snprintf(path, sizeof path, "%s/net.weights", dir);
  nn_config c = {G.n_features, 32, 1, G.n_actions};
  nn_meta m;
  nn_ws *ws = NULL;
  nn_net *back = NULL, *n = nn_create(&c, 3, err, errlen);
  int rc = -1;
  if (!n || mcts_nn_meta(&G, &m, err, errlen) != 0) goto done;
  if (!(ws = nn_ws_create(n, ROWS, err, errlen))) goto done;
  if (nn_forward(n, ws, x, NULL, ROWS, policy, value, score) != 0) {
    snprintf(err, errlen, "fp32 forward failed");
    goto done;
  }
  if (nn_set_precision(n, NN_PRECISION_INT8, err, errlen) != 0) goto done;
  if (nn_precision_of(n) != NN_PRECISION_INT8) {
    snprintf(err, errlen, "nn_set_precision(int8) succeeded, the net is %s",
             nn_precision_name(nn_precision_of(n)));
    rc = WRONG;
    goto done;
  }
  if (nn_forward(n, ws, x, NULL, ROWS, policy, value, score) != 0) {
    snprintf(err, errlen, "int8 forward failed");
    goto done;
  }
  if (nn_save(n, &m, path, err, errlen) != 0) goto done;
  if (!(back = nn_load(path, NULL, NULL, err, errlen))) goto done;
  rc = 0;
done:
  nn_free(back);
  nn_ws_free(ws);
  nn_free(n);
  unlink(path);
  return rc;
}

/* Training: a trainer on two threads, one step, a checkpoint saved and
 * restored into a second net and trainer. */
static int op_training(char *err, size_t errlen) {
  enum { ROWS = 4 };
  static float x[ROWS * 1024], pi[ROWS * GAME_MAX_ACTIONS], z[ROWS], margin[ROWS];
  game_pos p;
  game_start(&G, &p);
  memset(pi, 0, sizeof pi);
  for (int r = 0; r < ROWS; r++) {
    game_encode(&G, &p, x + r * G.n_features);
    int a = game_nth_action(game_legal(&G, &p), 0);
    pi[r * G.n_actions + a] = 1;
    z[r] = (float)(r % 3 - 1);
    margin[r] = (float)r;
    game_play(&G, &p, a);
  }
  char path[300];
  snprintf(path, sizeof path, "%s/ckpt.bin", dir);
  nn_config c = {G.n_features, 16, 1, G.n_actions};
  nn_train_params tp = nn_train_defaults();
  nn_meta m;
  nn_net *n = nn_create(&c, 4, err, errlen), *back = NULL;
  nn_trainer *t = NULL, *tb = NULL;
  nn_ws *ws = NULL;
  int rc = -1;
  const uint64_t blob = 0x626c6f62;
  uint64_t blob_back = 0;
  size_t blob_len = 0;
  if (!n || mcts_nn_meta(&G, &m, err, errlen) != 0) goto done;
  if (!(ws = nn_ws_create(n, ROWS, err, errlen))) goto done;
  if (!(t = nn_trainer_create(n, &tp, err, errlen))) goto done;
  if (nn_trainer_set_threads(t, n, 2, ROWS, err, errlen) != 0) goto done;
  if (nn_train_step(n, t, ws, x, NULL, pi, z, margin, ROWS, 0.01f, NULL) != 0) {
    snprintf(err, errlen, "training step failed");
    goto done;
  }
  if (nn_checkpoint_save(n, t, &m, &blob, sizeof blob, path, err, errlen) != 0) goto done;
  if (!(back = nn_create(&c, 5, err, errlen))) goto done;
  if (!(tb = nn_trainer_create(back, &tp, err, errlen))) goto done;
  if (nn_checkpoint_load(back, tb, path, NULL, NULL, &blob_back, sizeof blob_back, &blob_len, err,
                         errlen) != 0)
    goto done;
  rc = 0;
  if (blob_back != blob || blob_len != sizeof blob || nn_trainer_steps(tb) != 1)
    rc = WRONG, snprintf(err, errlen, "the checkpoint came back otherwise");
done:
  nn_trainer_free(tb);
  nn_free(back);
  nn_trainer_free(t);
  nn_ws_free(ws);
  nn_free(n);
  unlink(path);
  return rc;
}

/* An agent of spec: made, the start analysed (a fresh search, so its root
 * moves must hold at least min_visits visits), one move chosen. */
static int agent_op(const char *spec, int min_visits, char *err, size_t errlen) {
  agent *a = agent_create(&G, spec, 1, err, errlen);
  if (!a) return -1;
  game_pos p;
  game_start(&G, &p);
  game_moves legal = game_legal(&G, &p);
  agent_analysis an;
  int rc = 0, move = -1;
  if (agent_analyze(a, &p, NULL, &an) != 0 || (move = agent_choose(a, &p, NULL)) < 0) {
    snprintf(err, errlen, "%s", agent_error(a));
    rc = -1;
  } else {
    int visits = 0;
    for (int k = 0; k < an.n; k++) visits += an.visits[k];
    if (!(legal >> move & 1) || !(legal >> an.best & 1) || an.n != game_count(legal) ||
        visits < min_visits)
      rc = WRONG, snprintf(err, errlen, "%s: move %d, best %d, %d moves, %d visits", spec, move,
                           an.best, an.n, visits);
  }
  agent_free(a);
  return rc;
}

static int op_agent_zero(char *err, size_t errlen) {
  static const char *const kinds[] = {"zero weights=%s/tiny.weights sims=20",
                                      "zero weights=%s/tiny.weights sims=24 threads=2 leaves=4",
                                      "zero weights=%s/tiny.weights sims=16 gumbel=1 gumbel_m=4",
                                      "net weights=%s/tiny.weights"};
  static const int visits[] = {10, 12, 8, 0};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    char spec[400];
    snprintf(spec, sizeof spec, kinds[i], dir);
    int rc = agent_op(spec, visits[i], err, errlen);
    if (rc != 0) return rc;
  }
  return 0;
}

static int op_agent_mcts(char *err, size_t errlen) {
  return agent_op("mcts sims=40 threads=2", 20, err, errlen);
}

static int op_agent_alphabeta(char *err, size_t errlen) {
  return agent_op("alphabeta depth=3", 0, err, errlen);
}

/* Sample k of the replay buffer: the position after k first-legal plies. */
static replay_sample sample(int k) {
  replay_sample s;
  memset(&s, 0, sizeof s);
  game_start(&G, &s.pos);
  for (int i = 0; i < k; i++) game_play(&G, &s.pos, game_nth_action(game_legal(&G, &s.pos), 0));
  float pi[GAME_MAX_ACTIONS] = {0};
  pi[game_nth_action(game_legal(&G, &s.pos), 0)] = 1;
  replay_set_policy(&s, pi, G.n_actions);
  s.z = (int8_t)(k % 3 - 1);
  return s;
}

static int op_replay(char *err, size_t errlen) {
  char path[300];
  snprintf(path, sizeof path, "%s/replay.bin", dir);
  replay_sample s[8];
  for (int k = 0; k < 8; k++) s[k] = sample(k);
  replay *back = NULL, *r = replay_create(&G, 64, err, errlen);
  int rc = -1;
  if (!r) goto done;
  replay_add(r, s, 8);
  if (replay_save(r, path, err, errlen) != 0) goto done;
  if (!(back = replay_create(&G, 64, err, errlen))) goto done;
  if (replay_load(back, path, err, errlen) != 0) goto done;
  replay_stats st;
  replay_get_stats(back, &st);
  rc = st.count == 8 ? 0 : WRONG;
  if (rc) snprintf(err, errlen, "%d samples loaded of 8", st.count);
done:
  replay_free(back);
  replay_free(r);
  unlink(path);
  return rc;
}

/* analysis_answer has no message buffer: -1 (with no answer) is its
 * out-of-memory report, an error answer (1) carries its message. */
static int op_analysis(char *err, size_t errlen) {
  static const analysis_opts plain = {NULL, NULL, NULL};
  const char *q = "{\"id\":\"q\",\"moves\":[2,3],\"turns\":[0,2],\"agent\":\"mcts sims=30\"}";
  char *out = NULL;
  int rc = analysis_answer(&plain, q, strlen(q), &out);
  if (rc == -1) {
    snprintf(err, errlen, "%s", out ? "" : "analysis_answer: out of memory");
    free(out);
    return -1;
  }
  if (!out) return snprintf(err, errlen, "analysis_answer %d without an answer", rc), -1;
  if (rc != 0 && !strstr(out, "\"error\""))
    snprintf(err, errlen, "answer %d without an error", rc);
  else if (rc != 0)
    snprintf(err, errlen, "%s", out);
  free(out);
  return rc == 0 ? 0 : -1;
}

/* proto_create's contract is NULL on allocation failure; after that each
 * command's error is its "? message" response, and a command that answers
 * "=" answers as it does with memory enough (the first, fault-free run's
 * answers): every command the protocol has that succeeds from here. */
static int op_protocol(char *err, size_t errlen) {
  static const char *lines[] = {"game oware",
                                "moves 2 3",
                                "play 4",
                                "undo",
                                "state",
                                "legal",
                                "labels",
                                "show",
                                "agent mcts sims=30",
                                "genmove",
                                "analyze",
                                "time_settings 10 1",
                                "time_left south 5",
                                "setboard 0 4 4 4 4 4 4 4 4 4 4 4 4 0 0",
                                "options",
                                "name",
                                "version",
                                "help",
                                "agent alphabeta depth=2",
                                "genmove"};
  enum { N = sizeof lines / sizeof lines[0] };
  static char want[N][PROTO_MAX_RESPONSE];
  static int recorded;
  proto *s = proto_create(1);
  if (!s) return snprintf(err, errlen, "proto_create: out of memory"), -1;
  static char out[PROTO_MAX_RESPONSE];
  int rc = 0;
  for (size_t i = 0; i < N && rc == 0; i++) {
    proto_handle(s, lines[i], out, sizeof out);
    if (out[0] == '?') {
      /* "? message\n\n": the message must not be empty. */
      snprintf(err, errlen, "%s", out[1] == ' ' && out[2] != '\n' ? out + 2 : "");
      rc = -1;
    } else if (!recorded) {
      snprintf(want[i], sizeof want[i], "%s", out);
    } else if (strcmp(out, want[i]) != 0) {
      snprintf(err, errlen, "'%s' answered '%.60s', not '%.60s'", lines[i], out, want[i]);
      rc = WRONG;
    }
  }
  recorded = 1;
  proto_free(s);
  return rc;
}

static int op_arena(char *err, size_t errlen) {
  static arena_result r;
  const char *specs[] = {"greedy", "random"};
  arena_params p = arena_defaults();
  p.games = 2;
  p.threads = 1;
  p.openings = 0;
  CALL(arena_run(&G, 2, specs, &p, NULL, NULL, &r, err, errlen));
  if (r.games != 2) return snprintf(err, errlen, "%d games played of 2", r.games), WRONG;
  /* Two threads over an opening book of two lines. */
  p.games = 4;
  p.threads = 2;
  p.openings = 2;
  p.book_depth = 2;
  CALL(arena_run(&G, 2, specs, &p, NULL, NULL, &r, err, errlen));
  if (r.games != 4) return snprintf(err, errlen, "%d games played of 4", r.games), WRONG;
  return 0;
}

/* A statistics run's games depend on its seed only, so a run that reports
 * success has the games of the run with no failure (the first, which
 * inject makes before any). */
static int op_stats(char *err, size_t errlen) {
  enum { N = 6 };
  static stats_game ref[N], got[N];
  static int have_ref;
  opening_line book[2] = {{2, {1, 4}}, {1, {3}}};
  stats_params p = stats_defaults();
  p.games = N;
  p.threads = 2;
  p.seed = 5;
  p.book = book;
  p.n_book = 2;
  memset(got, 0, sizeof got);
  CALL(stats_play(&G, "greedy", "random", &p, NULL, NULL, got, err, errlen));
  if (!have_ref) {
    memcpy(ref, got, sizeof ref);
    have_ref = 1;
  }
  for (int k = 0; k < N; k++)
    if (got[k].hash != ref[k].hash || got[k].plies != ref[k].plies ||
        got[k].outcome != ref[k].outcome)
      return snprintf(err, errlen, "game %d is not the game the seed plays", k), WRONG;
  return 0;
}

/* ---- The learner's intake ---------------------------------------------------------------- */

static train_config tiny;
static unsigned char msgs[3 * (sizeof(dist_game_msg) + 4 * sizeof(replay_sample))];
static size_t msgs_len;

static void tiny_setup(void) {
  setup();
  char err[1024];
  ck_assert_msg(config_load(&tiny, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  msgs_len = 0;
  for (uint32_t v = 0; v < 3; v++) {
    dist_game_msg h = {.version = v, .n = 4};
    replay_sample s[4];
    for (int k = 0; k < 4; k++) s[k] = sample((int)v + k);
    h.final = s[3].pos;
    memcpy(msgs + msgs_len, &h, sizeof h);
    memcpy(msgs + msgs_len + sizeof h, s, sizeof s);
    msgs_len += sizeof h + sizeof s;
  }
}

static int op_ingest(char *err, size_t errlen) {
  selfplay_counters counters;
  memset(&counters, 0, sizeof counters);
  uint32_t promotions = 2;
  replay *buf = replay_create(&tiny.g, 256, err, errlen);
  if (!buf) return -1;
  dist_learner_env env = {.c = &tiny, .buf = buf, .counters = &counters, .promotions = &promotions};
  char out[2048];
  json_writer w;
  json_writer_init(&w, out, sizeof out);
  json_begin_object(&w, NULL);
  int rc = dist_learner_ingest(&env, msgs, msgs_len, &w, err, errlen);
  if (rc != 0) rc = documented("dist_learner_ingest", rc, err, errlen);
  replay_stats st;
  replay_get_stats(buf, &st);
  if (rc == 0 && (st.count != 12 || atomic_load(&counters.games) != 3))
    rc = WRONG, snprintf(err, errlen, "%d samples taken in of 12", st.count);
  replay_free(buf);
  return rc;
}

/* The learner's benchmark: a success has measured both of its rates. */
static int op_learner_bench(char *err, size_t errlen) {
  train_config c = tiny;
  c.window = 512;
  train_learner_result r;
  CALL(train_bench_learner(&c, 0.002, &r, err, errlen));
  if (!(r.steps_per_s > 0 && r.intake_per_s > 0 && r.capacity_per_s > 0))
    return snprintf(err, errlen, "%g steps/s, %g samples/s taken in", r.steps_per_s,
                    r.intake_per_s),
           WRONG;
  return 0;
}

/* ---- Self-play: two phased workers, their games into a buffer and records ---------------- */

static nn_net *net;

static void net_setup(void) {
  setup();
  char err[256];
  nn_config c = {G.n_features, 16, 1, G.n_actions};
  net = nn_create(&c, 5, err, sizeof err);
  ck_assert_msg(net != NULL, "%s", err);
  nn_meta m;
  ck_assert_int_eq(mcts_nn_meta(&G, &m, err, sizeof err), 0);
  char path[300];
  snprintf(path, sizeof path, "%s/tiny.weights", dir);
  ck_assert_msg(nn_save(net, &m, path, err, sizeof err) == 0, "%s", err);
}

static void net_teardown(void) {
  nn_free(net);
  teardown();
}

static int op_selfplay(char *err, size_t errlen) {
  char path[300];
  snprintf(path, sizeof path, "%s/games.txt", dir);
  selfplay_counters counters;
  memset(&counters, 0, sizeof counters);
  selfplay_store store = {NULL, NULL};
  selfplay *sp = NULL;
  int rc = -1;
  netslot *slot = netslot_create(net, err, errlen);
  if (!slot) goto done;
  if (!(store.buffer = replay_create(&G, 4096, err, errlen))) goto done;
  if (!(store.records = records_create(err, errlen))) goto done;
  selfplay_params p;
  memset(&p, 0, sizeof p);
  p.g = &G;
  p.search = mcts_defaults();
  p.search.sims = 4;
  p.search.node_cap = 500;
  p.games = 1;
  p.full_frac = 1;
  p.record_every = 1;
  p.seed = 9;
  p.phased = 1;
  p.precision = NN_PRECISION_FP32;
  p.sink = selfplay_store_game;
  p.sink_ctx = &store;
  if (!(sp = selfplay_start(&p, 2, slot, &counters, err, errlen))) goto done;
  int phase = selfplay_phase(sp, 20, NULL);
  int stop = selfplay_stop(sp, err, errlen);
  if (phase != 0 || stop != 0) {
    if (phase != 0 && stop == 0) snprintf(err, errlen, "%s", ""); /* the message went missing */
    goto done;
  }
  rc = records_flush(store.records, path, err, errlen) == 0 ? 0 : -1;
  replay_stats st;
  replay_get_stats(store.buffer, &st);
  if (rc == 0 && (st.added < 20 || st.added != atomic_load(&counters.samples)))
    rc = WRONG,
    snprintf(err, errlen, "%llu samples after a phase of 20", (unsigned long long)st.added);
done:
  records_free(store.records);
  replay_free(store.buffer);
  netslot_free(slot);
  unlink(path);
  return rc;
}

/* ---- Game records: kept, flushed, read back ---------------------------------------------- */

static int op_records(char *err, size_t errlen) {
  char path[300];
  snprintf(path, sizeof path, "%s/records.txt", dir);
  uint8_t moves[GAME_MAX_PLIES_CAP];
  game_pos p;
  game_start(&G, &p);
  int n = 0;
  while (p.status == GAME_ONGOING && n < 40) {
    moves[n] = (uint8_t)game_nth_action(game_legal(&G, &p), 0);
    game_play(&G, &p, moves[n++]);
  }
  records *r = records_create(err, errlen);
  if (!r) return -1;
  records_add(r, &G, moves, n, &p);
  int rc = records_flush(r, path, err, errlen);
  records_free(r);
  if (rc != 0) return -1;
  FILE *f = fopen(path, "rb");
  if (!f) return 0; /* records_add dropped the game for want of memory: nothing written */
  static record rec;
  int line = 0, got = record_read(f, &rec, &line, err, errlen);
  fclose(f);
  unlink(path);
  if (got != 1) return snprintf(err + strlen(err), errlen - strlen(err), " (no record)"), -1;
  return rec.n_moves == n ? 0 : (snprintf(err, errlen, "%d moves read of %d", rec.n_moves, n), -1);
}

/* ---- A variant study: self-play of two variants, their tests, one cross cell ----------- */

static int op_study(char *err, size_t errlen) {
  static study_variant v[2];
  static study_result r;
  const char *names[2] = {"oware", "abapa"};
  for (int i = 0; i < 2; i++) {
    if (game_configure(&v[i].g, names[i], 0, NULL, err, errlen) != 0) return -1;
    snprintf(v[i].label, sizeof v[i].label, "%s", names[i]);
  }
  study_agent cross = {"greedy", "greedy"};
  study_params p = study_defaults();
  p.games = 6;
  p.cross_games = 2;
  p.threads = 2;
  int rc = study_run(v, 2, "random", &cross, 1, &p, NULL, NULL, &r, err, errlen);
  /* study.h: -1 with a message, or a whole study. */
  if (rc != 0 && rc != -1)
    snprintf(err, errlen, "study_run returned %d", rc), rc = WRONG;
  else if (rc == 0 && (r.n_variants != 2 || r.v[0].s.games != 6 || r.v[1].s.games != 6 ||
                       r.n_pairs != 1 || !r.cross[0][0].played || !r.cross[0][1].played ||
                       r.cross[0][1].wins + r.cross[0][1].draws + r.cross[0][1].losses != 2))
    rc = WRONG, snprintf(err, errlen, "a study of %d variants, %d and %d games, %d pairs (%s; %s)",
                         r.n_variants, r.v[0].s.games, r.v[1].s.games, r.n_pairs,
                         r.cross[0][0].reason, r.cross[0][1].reason);
  study_result_free(&r);
  return rc;
}

/* ---- The endgame database: built to 4 seeds on two threads, opened, verified ------------- */

static int op_egdb(char *err, size_t errlen) {
  char db_dir[400];
  snprintf(db_dir, sizeof db_dir, "%s/egdb", dir);
  remove_tree(db_dir);
  egdb_build_params bp = {4, 2, NULL, NULL};
  CALL(egdb_build(db_dir, &bp, err, errlen));
  egdb *db = egdb_open(db_dir, err, errlen);
  if (!db) return -1;
  egdb_check ck;
  int rc = egdb_verify(db, 2, 4, NULL, NULL, &ck, err, errlen);
  if (rc != 0) rc = documented("egdb_verify", rc, err, errlen);
  uint64_t all = 0;
  for (int n = 0; n <= 4; n++) all += egdb_level_size(n);
  if (rc == 0 && (egdb_max_seeds(db) != 4 || ck.boards != all || ck.brute != all ||
                  ck.bad_bellman || ck.bad_brute))
    rc = WRONG,
    snprintf(err, errlen, "%d seeds, %llu boards checked of %llu: %s", egdb_max_seeds(db),
             (unsigned long long)ck.boards, (unsigned long long)all, ck.first_bad);
  egdb_close(db);
  /* A search agent over it, with its alpha-beta endgame search. */
  char spec[500];
  snprintf(spec, sizeof spec, "mcts sims=20 egdb=%s endgame=4 endgame_seeds=2", db_dir);
  if (rc == 0) rc = agent_op(spec, 10, err, errlen);
  return rc;
}

/* ---- A training run: two short iterations of the tiny config from nothing, gated ------ */

static int op_train(char *err, size_t errlen) {
  static char *over[] = {"run.minutes=0",
                         "run.iterations=2",
                         "selfplay.threads=2",
                         "selfplay.games_per_thread=8",
                         "replay.min_samples=128",
                         "learner.batch=32",
                         "learner.steps_per_iter=3",
                         "gating.mode=threshold",
                         "gating.games=2",
                         "gating.sims=4",
                         "selfplay.record_every=2"};
  char run[400], path[500];
  snprintf(run, sizeof run, "%s/run", dir);
  remove_tree(run);
  train_args a = {.config_path = "configs/tiny.ini",
                  .run_dir = run,
                  .n_over = (int)(sizeof over / sizeof over[0]),
                  .over = over};
  int rc = train_run(&a, err, errlen);
  if (rc != 0 && rc != -1) return snprintf(err, errlen, "train_run returned %d", rc), WRONG;
  if (rc != 0) {
    /* Nothing is lost: the same command, memory back, finishes the run
     * from whatever the failure left. */
    char first[400], why[1024];
    snprintf(first, sizeof first, "%s", err);
    failalloc_disarm();
    if (train_run(&a, why, sizeof why) != 0)
      return snprintf(err, errlen, "after a failure (%s), the run cannot go on: %s", first, why),
             WRONG;
  }
  /* Success: both iterations done and recorded, the run whole. */
  static const char *const files[] = {"config.ini", "checkpoint/learner.ckpt", "best.weights",
                                      "replay.bin", "metrics.jsonl"};
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s/%s", run, files[i]);
    if (access(path, R_OK) != 0) return snprintf(err, errlen, "no %s", files[i]), WRONG;
  }
  snprintf(path, sizeof path, "%s/metrics.jsonl", run);
  FILE *f = fopen(path, "r");
  int lines = 0, c;
  while (f && (c = fgetc(f)) != EOF) lines += c == '\n';
  if (f) fclose(f);
  if (lines != 2) return snprintf(err, errlen, "%d metrics lines after 2 iterations", lines), WRONG;
  return rc;
}

#define FAULT_TEST(name, op)            \
  START_TEST(name) { inject(#op, op); } \
  END_TEST

FAULT_TEST(config_load_fails_cleanly, op_config)
FAULT_TEST(network_fails_cleanly, op_network)
FAULT_TEST(training_fails_cleanly, op_training)
FAULT_TEST(zero_agent_fails_cleanly, op_agent_zero)
FAULT_TEST(mcts_agent_fails_cleanly, op_agent_mcts)
FAULT_TEST(alphabeta_agent_fails_cleanly, op_agent_alphabeta)
FAULT_TEST(replay_fails_cleanly, op_replay)
FAULT_TEST(analysis_fails_cleanly, op_analysis)
FAULT_TEST(protocol_fails_cleanly, op_protocol)
FAULT_TEST(arena_fails_cleanly, op_arena)
FAULT_TEST(stats_fail_cleanly, op_stats)
FAULT_TEST(ingest_fails_cleanly, op_ingest)
FAULT_TEST(learner_bench_fails_cleanly, op_learner_bench)
FAULT_TEST(selfplay_fails_cleanly, op_selfplay)
FAULT_TEST(records_fail_cleanly, op_records)
FAULT_TEST(study_fails_cleanly, op_study)
FAULT_TEST(egdb_fails_cleanly, op_egdb)
/* Thread starts refused one by one (failalloc_target): each operation
 * that starts threads either goes on with fewer where its contract says
 * so (a pool or a search whose caller is one of the workers) or fails with
 * a message, and frees what it made, as for a failed allocation. */
START_TEST(thread_starts_fail_cleanly) {
  static const struct {
    const char *name;
    op_fn op;
  } ops[] = {{"op_training", op_training},
             {"op_agent_zero", op_agent_zero},
             {"op_agent_mcts", op_agent_mcts},
             {"op_arena", op_arena},
             {"op_selfplay", op_selfplay},
             {"op_study", op_study},
             {"op_egdb", op_egdb}};
  failalloc_target(FAILALLOC_THREADS);
  int starting = 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    char err[1024] = "";
    failalloc_arm(LONG_MAX);
    int rc = ops[i].op(err, sizeof err);
    long starts = failalloc_count();
    failalloc_disarm();
    ck_assert_msg(rc == 0, "%s: %s", ops[i].name, err);
    if (getenv("SOWZERO_TEST_VERBOSE"))
      fprintf(stderr, "%s: %ld thread starts\n", ops[i].name, starts);
    if (starts == 0) continue;
    starting++;
    inject_sampled(ops[i].name, ops[i].op, DENSE, CAP);
  }
  failalloc_target(FAILALLOC_MEMORY);
  ck_assert_int_ge(starting, 4);
}
END_TEST

/* A whole run makes about 500 allocations, and each failure is followed
 * by the resume: every tenth or so, the first 40 all. */
START_TEST(training_run_fails_cleanly) { inject_sampled("op_train", op_train, 40, 80); }
END_TEST

static Suite *faults_suite(void) {
  Suite *s = suite_create("faults");
  TCase *tc = add_tests(
      s, "plain", 60,
      (const TTest *const[]){
          config_load_fails_cleanly, network_fails_cleanly, training_fails_cleanly,
          mcts_agent_fails_cleanly, alphabeta_agent_fails_cleanly, replay_fails_cleanly,
          analysis_fails_cleanly, protocol_fails_cleanly, arena_fails_cleanly, stats_fail_cleanly,
          records_fail_cleanly, study_fails_cleanly, egdb_fails_cleanly, NULL});
  tcase_add_checked_fixture(tc, setup, teardown);
  tc = add_tests(s, "net", 60,
                 (const TTest *const[]){zero_agent_fails_cleanly, selfplay_fails_cleanly,
                                        thread_starts_fail_cleanly, NULL});
  tcase_add_checked_fixture(tc, net_setup, net_teardown);
  tc = add_tests(s, "run", 300, (const TTest *const[]){training_run_fails_cleanly, NULL});
  tcase_add_checked_fixture(tc, setup, teardown);
  tc = add_tests(s, "intake", 60,
                 (const TTest *const[]){ingest_fails_cleanly, learner_bench_fails_cleanly, NULL});
  tcase_add_checked_fixture(tc, tiny_setup, teardown);
  return s;
}

TEST_MAIN(faults_suite)

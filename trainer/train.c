/* The training run: set-up and resume, the end of each iteration and
 * teardown, calling each job's module (docs/ARCHITECTURE.md lists them). */
#include "trainer/train.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "base/json.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"
#include "trainer/checkpoint.h"
#include "trainer/dist_learner.h"
#include "trainer/evaluate.h"
#include "trainer/gating.h"
#include "trainer/learner.h"
#include "trainer/metrics.h"
#include "trainer/records.h"
#include "trainer/rundir.h"
#include "trainer/train_internal.h"
#include "trainer/train_loop.h"

/* Everything a run holds while it runs; train.c's alone. */
typedef struct {
  const train_args *a;
  train_config cfg;
  rundir dir;
  nn_meta meta;
  nn_net *best;
  learner l;
  replay *buf;
  netslot *slot;
  records *records;
  selfplay_counters counters;
  selfplay_tally seen; /* the counters as of the last metrics line of this session */
  run_counters rc;
  train_status st;
  int reject_streak; /* candidates rejected in a row (from metrics.jsonl on resume) */
  egdb *db;          /* [egdb] enabled: the shared database (NULL when off) */
  endgame_set *endgame;
  train_loop loop; /* the schedules (loop.sp: the workers; loop.ld: the actors' intake) */
} run;

static void before_write(const run *r, const char *file) {
  if (r->a->before_write) r->a->before_write(r->a->write_ctx, r->rc.iteration, file);
}

static void path_of(const run *r, const char *name, char *out) { rundir_path(&r->dir, name, out); }

/* A progress report (train_progress_fn's kind; line "": a status update). */
static void report(run *r, int kind, const char *line) {
  if (!r->a->progress) return;
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  r->st.iteration = (int)r->rc.iteration;
  r->st.steps = r->rc.steps;
  r->st.games = r->rc.games + atomic_load(&r->counters.games);
  r->st.samples = rs.added;
  r->st.buffer = rs.count;
  r->st.promotions = (int)r->rc.promotions;
  r->st.budget_min = r->cfg.minutes;
  r->st.loss = r->loop.last.total;
  r->st.entropy = r->loop.last.entropy;
  if (r->loop.t_start > 0) {
    r->st.elapsed_min = train_loop_elapsed(&r->loop) / 60;
    train_loop_shares(&r->loop, r->st.share, &r->st.cores_used);
  }
  r->a->progress(r->a->progress_ctx, kind, &r->st, line);
}

static void emit(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(run *r, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  report(r, 1, line);
}

static void say(void *ctx, const char *line) { report(ctx, 1, line); }

static void status(void *ctx, const char *phase) {
  run *r = ctx;
  r->st.phase = phase;
  report(r, 0, "");
}

/* ---- Set-up and resume ------------------------------------------------------------------ */

/* The banner, a session's first line: what was resumed, or what the new run is. */
static void banner(run *r, int lost_buffer) {
  const train_config *c = &r->cfg;
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  if (r->dir.has_ckpt) {
    emit(r, "resumed %s at iteration %u: %llu steps, %d samples in the buffer, %.1f min trained",
         r->dir.dir, r->rc.iteration, (unsigned long long)r->rc.steps, rs.count,
         r->rc.elapsed / 60);
    if (lost_buffer) emit(r, "%s/replay.bin is missing: the buffer starts empty", r->dir.dir);
    return;
  }
  char shape[64], what[64];
  nn_shape_string(&(nn_config){c->g.n_features, c->hidden, c->blocks, c->g.n_actions}, shape,
                  sizeof shape);
  if (c->n_variants > 1)
    snprintf(what, sizeof what, "%d variants of %s", c->n_variants, c->g.rules->name);
  else
    snprintf(what, sizeof what, "%s", c->g.preset);
  emit(r, "new run %s: %s, network %s (%s), %d self-play thread(s)%s x %d games%s", r->dir.dir,
       what, shape, nn_precision_name(nn_precision_of(r->best)), c->threads,
       r->a->dist         ? " per actor"
       : c->learner_plays ? " + the learner's"
                          : "",
       c->games_per_thread, c->deterministic ? ", deterministic schedule" : "");
}

static int setup(run *r, char *err, size_t errlen) {
  char path[RUNDIR_PATH_MAX], e[512];
  if (rundir_open(&r->dir, r->a, &r->cfg, err, errlen) != 0) return -1;
  /* Everything the run holds is read before anything is written, so that
   * a damaged or foreign file is refused with the directory as it was. */
  const train_config *c = &r->cfg;
  if (mcts_nn_meta(&c->g, &r->meta, err, errlen) != 0) return -1;
  if (c->n_variants > 1 &&
      game_variants_string(c->variant, c->n_variants, r->meta.rules, sizeof r->meta.rules) != 0) {
    errf(err, errlen, "game.variants: the variant set does not fit a weight file's %d bytes",
         NN_RULES_MAX - 1);
    return -1;
  }
  nn_config nc = {c->g.n_features, c->hidden, c->blocks, c->g.n_actions};
  nn_expect ex = nn_expect_of(&r->meta, &nc);
  /* The learner: from the checkpoint, or fresh from the run seed. */
  if (learner_init(&r->l, c, err, errlen) != 0) return -1;
  path_of(r, "checkpoint/learner.ckpt", path);
  if (r->dir.has_ckpt && checkpoint_load(path, &r->l, &ex, &r->rc, err, errlen) != 0) return -1;
  /* The best network: from the run, or the untrained one of the run seed
   * while no promotion made another. */
  path_of(r, "best.weights", path);
  int make_best = !rundir_has(&r->dir, "best.weights");
  if (!make_best) {
    if (!(r->best = nn_load(path, &ex, NULL, err, errlen))) return -1;
  } else if (r->rc.promotions > 0) {
    errf(err, errlen,
         "%s: best.weights is missing but the checkpoint counts %u promotions (iteration %u); "
         "the best network cannot be made again: restore best.weights, or move the directory "
         "away and start a new run",
         r->dir.dir, r->rc.promotions, r->rc.iteration);
    return -1;
  } else if (!(r->best = nn_create(&nc, c->seed, err, errlen))) {
    return -1;
  }
  if (!(r->buf = replay_create(&c->g, c->window, err, errlen))) return -1;
  if (c->n_variants > 1 && replay_set_variants(r->buf, c->variant, c->n_variants, err, errlen))
    return -1;
  path_of(r, "replay.bin", path);
  int lost_buffer = 0;
  if (rundir_has(&r->dir, "replay.bin")) {
    if (replay_load(r->buf, path, err, errlen) != 0) return -1;
  } else {
    lost_buffer = r->rc.iteration >= (uint32_t)c->checkpoint_every;
  }

  /* Then the writes, in the order a run is made. */
  if (rundir_prepare(&r->dir, c, err, errlen) != 0) return -1;
  /* config.ini keeps auto; gating evaluates the best in the run's precision,
   * and promotions (nn_copy) re-pack it. */
  if (machine_resolve(&r->loop.machine, &r->cfg, 1, r->a->dist != NULL, r->best, err, errlen))
    return -1;
  path_of(r, "checkpoint/learner.ckpt", path);
  if (!r->dir.has_ckpt && checkpoint_save(path, &r->l, &r->meta, &r->rc, err, errlen) != 0)
    return -1; /* iteration 0 */
  /* Drop metrics of iterations the checkpoint does not cover (a new run's
   * metrics.jsonl is made here, before best.weights). */
  path_of(r, "metrics.jsonl", path);
  if (metrics_append(path, r->rc.iteration, NULL, &r->reject_streak, e, sizeof e) != 0) {
    errf(err, errlen, "%s", e);
    return -1;
  }
  r->st.reject_streak = r->reject_streak;
  path_of(r, "best.weights", path);
  if (make_best && nn_save(r->best, &r->meta, path, err, errlen) != 0) return -1;
  if (!(r->slot = netslot_create(r->best, err, errlen))) return -1;
  if (!(r->records = records_create(err, errlen))) return -1;
  banner(r, lost_buffer);
  return 0;
}

/* [egdb]: the database (one shared copy) and the positions of the
 * accuracy check, drawn once with the run's seed. */
static int open_egdb(run *r, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  char dir[RUNDIR_PATH_MAX];
  if (endgame_acquire_db(c, &r->db, dir, sizeof dir, err, errlen) != 0) return -1;
  if (!r->db) return 0;
  if (c->egdb_eval_n > 0 &&
      !(r->endgame = endgame_sample(r->db, &c->g, c->egdb_eval_n, c->egdb_eval_levels,
                                    c->seed ^ 0x656e6467ULL, err, errlen)))
    return -1;
  emit(r, "endgame database %s: seeds 0..%d%s, %d positions to measure the network on", dir,
       egdb_max_seeds(r->db), c->egdb_max_seeds ? " (capped by egdb.max_seeds)" : "",
       r->endgame ? endgame_count(r->endgame) : 0);
  return 0;
}

static void teardown(run *r) {
  rundir_close(&r->dir);
  endgame_free(r->endgame);
  egdb_release(r->db);
  nn_free(r->best);
  learner_free(&r->l);
  replay_free(r->buf);
  netslot_free(r->slot);
  records_free(r->records);
}

/* ---- The end of an iteration ------------------------------------------------------------ */

/* The gate, and the promotion it decides. 1 when promoted. */
static int gate(run *r, gate_outcome *g, char *err, size_t errlen) {
  char path[RUNDIR_PATH_MAX];
  if (gate_decide(&r->cfg, r->rc.iteration, r->l.cand, r->best, g, err, errlen) != 0) return -1;
  r->rc.gate_ns += g->ns;
  snprintf(r->st.last_gate, sizeof r->st.last_gate, "%s", g->summary);
  if (!g->promoted) return 0;
  r->rc.promotions++;
  before_write(r, "best.weights");
  path_of(r, "best.weights", path);
  if (gate_promote(r->best, r->l.cand, &r->meta, path, r->slot, err, errlen) != 0) return -1;
  if (dist_learner_publish(r->loop.ld, r->best, err, errlen) != 0) return -1;
  return 1;
}

/* The evaluation's members of the metrics line (a member list). */
static int evaluation(run *r, char *json, size_t len, char *err, size_t errlen) {
  char path[RUNDIR_PATH_MAX];
  path_of(r, "best.weights", path);
  eval_job j = {&r->cfg, r->rc.iteration, path, r->best, r->endgame, say, r};
  json_writer w;
  json_writer_init(&w, json, len);
  status(r, "evaluation");
  if (eval_run(&j, &w, err, errlen) != 0) return -1;
  if (json_writer_done(&w) == 0) return 0;
  errf(err, errlen, "the evaluation's metrics do not fit %zu bytes", len);
  return -1;
}

/* The iteration's metrics line: progress, self-play, gating, evaluation
 * (eval, a member list or "") and a distributed run's intake. */
static int iteration_line(run *r, const metrics_progress *m, const gate_outcome *g,
                          const char *eval, char *line, size_t len, char *err, size_t errlen) {
  json_writer w;
  json_writer_init(&w, line, len);
  json_begin_object(&w, NULL);
  metrics_put_progress(&w, m);
  selfplay_json(&r->counters, m->games - r->rc.games, &r->seen, &w);
  gate_json(&w, g);
  if (eval[0]) json_put_raw(&w, NULL, eval);
  dist_learner_json(r->loop.ld, &w);
  machine_json(&r->loop.machine, &r->cfg, &w); /* the session's first line: "system" */
  json_end_object(&w);
  if (json_writer_done(&w) == 0) return 0;
  errf(err, errlen, "iteration %u: the metrics line does not fit %zu bytes", m->iteration, len);
  return -1;
}

static int end_iteration(run *r, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  const train_loop *L = &r->loop;
  char path[RUNDIR_PATH_MAX], line[16384], eval[8192] = "", name[64];
  r->rc.iteration++;
  before_write(r, "candidate.weights");
  path_of(r, "candidate.weights", path);
  if (nn_save(r->l.cand, &r->meta, path, err, errlen) != 0) return -1;
  status(r, "gating");
  gate_outcome g;
  int promoted = gate(r, &g, err, errlen);
  if (promoted < 0) return -1;
  int streak = promoted ? 0 : r->reject_streak + 1;
  if (promoted && c->eval_every > 0 && r->rc.promotions % (uint32_t)c->eval_every == 0 &&
      evaluation(r, eval, sizeof eval, err, errlen) != 0)
    return -1;
  before_write(r, "games");
  snprintf(name, sizeof name, "games/iter-%06u.txt", r->rc.iteration);
  path_of(r, name, path);
  if (records_flush(r->records, path, err, errlen) != 0) return -1;
  /* Counters of this iteration, read before the buffer is saved: self-play
   * goes on meanwhile, and what the commit counts must be in the file. */
  uint64_t sess_games = atomic_load(&r->counters.games);
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  double elapsed = train_loop_elapsed(L), sess = clock_wall() - L->t_start;
  double n = L->nsteps > 0 ? L->nsteps : 1;
  metrics_progress m = {
      .iteration = r->rc.iteration,
      .time_min = elapsed / 60,
      .steps = r->rc.steps,
      .games = r->rc.games + sess_games, /* samples go in first */
      .samples = rs.added,
      .buffer = rs.count,
      .buffer_mb = rs.bytes / 1048576.0,
      .lr = learner_rate(c, &r->rc, elapsed),
      .games_per_h = sess > 0 ? 3600.0 * (double)sess_games / sess : 0,
      .evals_per_s = sess > 0 ? (double)atomic_load(&r->counters.evals) / sess : 0,
      .cores = sysconf(_SC_NPROCESSORS_ONLN),
      .promotions = r->rc.promotions,
      .reject_streak = streak};
  m.loss = L->avg;
  m.loss.total /= n, m.loss.policy /= n, m.loss.value /= n, m.loss.score /= n;
  m.loss.entropy /= n, m.loss.value_sign_acc /= n;
  train_loop_shares(L, m.share, &m.cores_used);
  uint64_t net_ns = r->rc.net_ns + atomic_load(&r->counters.net_ns);
  uint64_t search_ns = r->rc.search_ns + atomic_load(&r->counters.search_ns);
  if (r->rc.iteration % (uint32_t)c->checkpoint_every == 0) {
    before_write(r, "replay.bin");
    path_of(r, "replay.bin", path);
    if (replay_save(r->buf, path, err, errlen) != 0) return -1;
  }
  if (iteration_line(r, &m, &g, eval, line, sizeof line, err, errlen) != 0) return -1;
  before_write(r, "metrics.jsonl");
  r->reject_streak = r->st.reject_streak = streak;
  path_of(r, "metrics.jsonl", path);
  if (metrics_append(path, r->rc.iteration - 1, line, &r->reject_streak, err, errlen) != 0)
    return -1;
  /* The commit point: counters as of this iteration (the session's live
   * counters are folded in only here). */
  run_counters saved = r->rc;
  r->rc.elapsed = elapsed;
  r->rc.games = m.games;
  r->rc.net_ns = net_ns;
  r->rc.search_ns = search_ns;
  before_write(r, "checkpoint");
  path_of(r, "checkpoint/learner.ckpt", path);
  int rc = checkpoint_save(path, &r->l, &r->meta, &r->rc, err, errlen);
  r->rc = saved;
  if (rc != 0) return -1;
  emit(r, "iteration %u: loss %.4f (policy %.4f value %.4f), %llu games, %d samples, %s",
       r->rc.iteration, m.loss.total, m.loss.policy, m.loss.value, (unsigned long long)m.games,
       rs.count, r->st.last_gate);
  if (streak > 0 && streak % GATE_STUCK_STREAK == 0)
    emit(r,
         "gating has rejected %d candidates in a row: training no longer makes a network "
         "that beats the best. Unless the best already beats its anchors (converged), the "
         "run is stuck (docs/TRAINING.md, \"When gating stops promoting\")",
         streak);
  return 0;
}

/* ---- The run -------------------------------------------------------------------------------- */

/* The workers in this process, or the actors' intake. */
static int start_players(run *r, selfplay_store *store, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  if (r->a->dist) {
    dist_learner_env env = {c, r->buf, &r->counters, r->records, &r->rc.promotions, say, r};
    r->loop.ld = dist_learner_start(r->a->dist, &env, r->rc.iteration, r->best, err, errlen);
    return r->loop.ld ? 0 : -1;
  }
  selfplay_params sp = train_selfplay_params(c);
  sp.seed = c->seed ^ r->rc.iteration;
  sp.phased = c->deterministic;
  sp.db = r->db;
  sp.hosted = c->learner_plays;
  *store = (selfplay_store){r->buf, r->records};
  sp.sink = selfplay_store_game;
  sp.sink_ctx = store;
  r->loop.sp = selfplay_start(&sp, c->threads, r->slot, &r->counters, err, errlen);
  return r->loop.sp ? 0 : -1;
}

/* The schedule until the budget is spent, a stop, or a failure. */
static int train_until_done(run *r, char *err, size_t errlen) {
  train_loop *L = &r->loop;
  int k;
  while ((k = train_loop_next(L, err, errlen)) == 1) {
    if (end_iteration(r, err, errlen) != 0) return -1;
    memset(&L->avg, 0, sizeof L->avg);
    L->nsteps = 0;
  }
  return k;
}

/* The end of a session: workers stopped, the actors told first, the buffer
 * saved next (under mpirun a signal leaves about a second:
 * docs/DISTRIBUTED.md), then their last games taken in. */
static int finish(run *r, int rc, char *err, size_t errlen) {
  char e[512];
  if (r->loop.sp && selfplay_stop(r->loop.sp, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  r->loop.sp = NULL;
  if (dist_learner_stop(r->loop.ld, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  /* A clean stop keeps the buffer of this session too. */
  if (rc == 0) {
    char path[RUNDIR_PATH_MAX];
    path_of(r, "replay.bin", path);
    if (replay_save(r->buf, path, err, errlen) != 0) rc = -1;
  }
  if (dist_learner_finish(r->loop.ld, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  return rc;
}

int train_run(const train_args *a, char *err, size_t errlen) {
  run *r = calloc(1, sizeof *r);
  if (!r) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  r->a = a;
  r->dir.lock_fd = -1;
  r->st.phase = "starting";
  r->loop = (train_loop){.c = &r->cfg,
                         .l = &r->l,
                         .rc = &r->rc,
                         .counters = &r->counters,
                         .stop = a->stop,
                         .status = status,
                         .say = say,
                         .ctx = r};
  int rc = -1;
  char e[512];
  selfplay_store store;
  if (a->dist && train_same_build(a->dist, err, errlen) != 0) goto out;
  if (setup(r, err, errlen) != 0 || open_egdb(r, err, errlen) != 0) {
    if (a->dist) dist_learner_failed(a->dist); /* the actors end too */
    goto out;
  }
  r->loop.buf = r->buf;
  if (start_players(r, &store, err, errlen) != 0) goto out;
  r->loop.t_start = clock_wall();
  r->loop.cpu_start = clock_process_cpu();
  rc = finish(r, train_until_done(r, err, errlen), err, errlen);
out:
  if (r->loop.sp) selfplay_stop(r->loop.sp, e, sizeof e);
  dist_learner_finish(r->loop.ld, e, sizeof e);
  dist_learner_free(r->loop.ld);
  teardown(r);
  free(r);
  return rc;
}

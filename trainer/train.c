/* The training run: set-up and resume, files, iterations (the learner's
 * schedules are train_loop.c's). */
#include "trainer/train.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/record.h"
#include "base/base.h"
#include "base/json.h"
#include "nn/nn.h"
#include "search/evaluator_nn.h"
#include "trainer/gating.h"
#include "trainer/train_internal.h"

static void path_in(const run *r, const char *name, char *out) {
  snprintf(out, PATH_MAX_LEN, "%s/%s", r->dir, name);
}

/* Something is at p (a dangling link too). */
static int present(const char *p) {
  struct stat s;
  return lstat(p, &s) == 0;
}

static int make_dir(const char *p, char *err, size_t errlen) {
  if (mkdir(p, 0755) == 0 || errno == EEXIST) return 0;
  errf(err, errlen, "%s: cannot create directory: %s", p, strerror(errno));
  return -1;
}

static void before_write(const run *r, const char *file) {
  if (r->a->before_write) r->a->before_write(r->a->write_ctx, r->rc.iteration, file);
}

void train_emit(run *r, int kind, const char *fmt, ...) {
  if (!r->a->progress) return;
  char line[512] = "";
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
  }
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  r->st.iteration = (int)r->rc.iteration;
  r->st.steps = r->rc.steps;
  r->st.games = r->rc.games + atomic_load(&r->counters.games);
  r->st.samples = rs.added;
  r->st.buffer = rs.count;
  r->st.promotions = (int)r->rc.promotions;
  r->st.budget_min = r->cfg.minutes;
  if (r->t_start > 0) train_time_shares(r, r->st.share, &r->st.cores_used);
  r->a->progress(r->a->progress_ctx, kind, &r->st, line);
}

/* ---- Game records ----------------------------------------------------------------
 * Kept self-play games, in the game-record format of docs/FORMATS.md,
 * collected under a lock from the workers and written once per iteration.
 * This runs once every record_every games, so it may allocate. */
void train_record_game(void *ctx, const game *g, const uint8_t *moves, int n, const game_pos *end) {
  run *r = ctx;
  arena_game *rec = calloc(1, sizeof *rec);
  char *text = NULL;
  size_t len = 0;
  FILE *f = rec ? open_memstream(&text, &len) : NULL;
  if (!f) {
    free(rec);
    return;
  }
  pthread_mutex_lock(&r->rec_lock);
  rec->number = r->rec_total++;
  pthread_mutex_unlock(&r->rec_lock);
  rec->opening = -1;
  rec->n_moves = n < GAME_MAX_PLIES_CAP ? n : GAME_MAX_PLIES_CAP;
  memcpy(rec->moves, moves, (size_t)rec->n_moves);
  rec->final = *end;
  record_write(f, g, rec, "self-play", "self-play");
  fputc('\n', f);
  fclose(f);
  free(rec);
  pthread_mutex_lock(&r->rec_lock);
  if (r->rec_len + len + 1 > r->rec_cap) {
    size_t cap = (r->rec_cap + len + 1) * 2;
    char *p = realloc(r->records, cap);
    if (p) {
      r->records = p;
      r->rec_cap = cap;
    }
  }
  if (text && r->rec_len + len + 1 <= r->rec_cap) {
    memcpy(r->records + r->rec_len, text, len);
    r->rec_len += len;
    r->rec_count++;
  }
  pthread_mutex_unlock(&r->rec_lock);
  free(text);
}

static int flush_records(run *r, char *err, size_t errlen) {
  pthread_mutex_lock(&r->rec_lock);
  int rc = 0;
  if (r->rec_len) {
    char path[PATH_MAX_LEN], name[64];
    snprintf(name, sizeof name, "games/iter-%06u.txt", r->rc.iteration);
    path_in(r, name, path);
    afile a;
    rc = afile_open(&a, path, err, errlen);
    if (rc == 0) {
      record_write_header(a.f, "self-play");
      fwrite(r->records, 1, r->rec_len, a.f);
      rc = afile_commit(&a, err, errlen);
    }
    r->rec_len = 0;
    r->rec_count = 0;
  }
  pthread_mutex_unlock(&r->rec_lock);
  return rc;
}

/* ---- Metrics ------------------------------------------------------------------------ */

/* The rejection streak carried through a kept metrics line. */
static void note_gating(run *r, const json_doc *d) {
  int g = json_get(d, 0, "gating"), p = g >= 0 ? json_get(d, g, "promoted") : -1;
  if (p < 0) return; /* no gating in that iteration */
  r->reject_streak =
      json_type_of(d, p) == JSON_BOOL && json_number(d, p) != 0 ? 0 : r->reject_streak + 1;
}

/* metrics.jsonl is rewritten whole (atomically) with each new line, keeping
 * only the lines of iterations up to keep_upto: a line written by a run
 * killed before its checkpoint is dropped when the iteration is redone.
 * Without a line (a resume) the rejection streak is counted over the lines
 * kept; with one, the caller knows it. */
static int metrics_append(run *r, unsigned keep_upto, const char *line, char *err, size_t errlen) {
  char path[PATH_MAX_LEN];
  path_in(r, "metrics.jsonl", path);
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1; /* only a regular file is read */
  FILE *in = fopen(path, "rb");
  if (!line) r->reject_streak = 0;
  if (in) {
    char *buf = NULL;
    size_t cap = 0;
    while (getline(&buf, &cap, in) > 0) {
      double it;
      json_doc *d = json_parse(buf, NULL, 0);
      int keep = d && json_get_number(d, 0, "iteration", &it) == 0 && it <= keep_upto;
      if (keep && !line) note_gating(r, d);
      json_free(d);
      if (keep && fputs(buf, a.f) >= 0 && buf[strlen(buf) - 1] != '\n') fputc('\n', a.f);
    }
    free(buf);
    fclose(in);
  }
  if (line) fprintf(a.f, "%s\n", line);
  r->st.reject_streak = r->reject_streak;
  return afile_commit(&a, err, errlen);
}

/* ---- Checkpoints --------------------------------------------------------------------- */

static int save_checkpoint(run *r, char *err, size_t errlen) {
  char path[PATH_MAX_LEN];
  unsigned char blob[RUN_COUNTERS_BYTES + 64];
  memcpy(r->rc.rng, r->rng.s, sizeof r->rc.rng);
  run_counters_write(&r->rc, blob);
  path_in(r, "checkpoint/learner.ckpt", path);
  return nn_checkpoint_save(r->cand, r->trainer, &r->meta, blob, RUN_COUNTERS_BYTES, path, err,
                            errlen);
}

/* ---- Set-up and resume ------------------------------------------------------------------ */

static int write_config(run *r, char *err, size_t errlen) {
  char path[PATH_MAX_LEN];
  path_in(r, "config.ini", path);
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1;
  if (config_write(&r->cfg, a.f) != 0) {
    afile_abort(&a);
    errf(err, errlen, "%s: cannot write the configuration", path);
    return -1;
  }
  return afile_commit(&a, err, errlen);
}

/* ---- What a run directory holds ------------------------------------------------------
 * A run is made in this order: config.ini, the checkpoint of iteration 0,
 * an empty metrics.jsonl, best.weights; so config.ini exists whenever
 * anything else of the run does, and the checkpoint whenever the run has
 * done any work. What does not fit is refused rather than guessed at: a
 * run's files without its config.ini, a run's work without its checkpoint,
 * promotions in the checkpoint without best.weights. */

/* The files of a run; all but config.ini hold its work. */
static const char *const run_files[] = {"config.ini",
                                        "checkpoint/learner.ckpt",
                                        "best.weights",
                                        "candidate.weights",
                                        "replay.bin",
                                        "metrics.jsonl",
                                        NULL};

/* Lists in out (", "-separated) the run's work present in the directory,
 * besides the checkpoint when with_ckpt is 0; -1 with a message if one of
 * the run's files is not a regular file (it could be neither read safely
 * nor replaced). */
static int run_work(const run *r, int with_ckpt, char *out, size_t len, char *err, size_t errlen) {
  char path[PATH_MAX_LEN];
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; run_files[i]; i++) {
    struct stat st;
    path_in(r, run_files[i], path);
    if (lstat(path, &st) != 0) continue;
    if (!S_ISREG(st.st_mode)) {
      errf(err, errlen,
           "%s: not a regular file; a run reads and replaces only regular files (put the "
           "file itself there)",
           path);
      return -1;
    }
    if (i == 0 || (i == 1 && !with_ckpt)) continue;
    k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%s%s", k ? ", " : "", run_files[i]);
  }
  path_in(r, "games", path);
  DIR *d = opendir(path);
  for (struct dirent *e; d && (e = readdir(d));)
    if (!strncmp(e->d_name, "iter-", 5) && !afile_is_temporary(e->d_name, NULL)) {
      k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%sgames/", k ? ", " : "");
      break;
    }
  if (d) closedir(d);
  return 0;
}

/* The configuration of a run that exists: the one asked for (CONFIG, or
 * the run's own config.ini, with the overrides) must agree with the run's
 * on every key but the resumable ones. */
static int resume_config(run *r, const char *own, char *err, size_t errlen) {
  const train_args *a = r->a;
  train_config *was = malloc(sizeof *was);
  if (!was) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  int rc = -1;
  const char *asked = a->config_path ? a->config_path : own;
  config_diff d;
  if (config_load(was, own, 0, NULL, err, errlen) != 0) goto done;
  if (config_load(&r->cfg, asked, a->n_over, a->over, err, errlen) != 0) goto done;
  if (config_compare(was, &r->cfg, &d)) {
    errf(err, errlen,
         "%s: this run was made with %s = %s, but %s%s gives %s, which makes another run: train "
         "that under another name (--run NEWDIR), or resume this run as it was with 'sowzero "
         "train --run %s'",
         r->dir, d.key, d.a, a->config_path ? a->config_path : "--set",
         a->config_path && a->n_over ? " with the overrides" : "", d.b, r->dir);
    goto done;
  }
  rc = 0;
done:
  free(was);
  return rc;
}

static int setup(run *r, char *err, size_t errlen) {
  const train_args *a = r->a;
  char path[PATH_MAX_LEN], e[512], work[256];
  snprintf(r->dir, sizeof r->dir, "%s", a->run_dir);
  path_in(r, "config.ini", path);
  /* The configuration first: a bad one fails before anything is written. */
  int exists = present(path);
  if (exists) {
    if (resume_config(r, path, err, errlen) != 0) return -1;
  } else {
    if (!a->config_path) {
      if (run_work(r, 1, work, sizeof work, err, errlen) != 0) return -1;
      if (work[0])
        errf(err, errlen, "%s: holds a run's files (%s) but no config.ini: restore its config.ini",
             r->dir, work);
      else
        errf(err, errlen, "%s: no run here (no config.ini); give a config to start one", r->dir);
      return -1;
    }
    if (config_load(&r->cfg, a->config_path, a->n_over, a->over, err, errlen) != 0) return -1;
    if (make_dir(r->dir, err, errlen) != 0) return -1;
  }
  /* One trainer per run: the lock goes with the process, even on SIGKILL. */
  path_in(r, ".lock", path);
  r->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (r->lock_fd < 0) {
    errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
    errf(err, errlen, "%s is in use by another 'sowzero train'", r->dir);
    return -1;
  }
  /* Under the lock, what the directory holds. */
  path_in(r, "config.ini", path);
  if (present(path) != exists) {
    errf(err, errlen, "%s changed while this trainer started; run the command again", r->dir);
    return -1;
  }
  path_in(r, "checkpoint/learner.ckpt", path);
  int has_ckpt = present(path);
  if (run_work(r, !exists, work, sizeof work, err, errlen) != 0) return -1;
  if (!exists && work[0]) {
    errf(err, errlen,
         "%s: holds a run's files (%s) but no config.ini, so it is not taken for a new run: "
         "restore its config.ini, or move the directory away",
         r->dir, work);
    return -1;
  }
  if (exists && !has_ckpt && work[0]) {
    errf(err, errlen,
         "%s: checkpoint/learner.ckpt is missing but the run has %s; resuming would start again "
         "at iteration 0 over them: restore the checkpoint, or move the directory away and start "
         "a new run",
         r->dir, work);
    return -1;
  }
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
  if (train_learner_init(r, err, errlen) != 0) return -1;
  path_in(r, "checkpoint/learner.ckpt", path);
  if (has_ckpt) {
    unsigned char blob[256];
    size_t blen = 0;
    if (nn_checkpoint_load(r->cand, r->trainer, path, &ex, NULL, blob, sizeof blob, &blen, err,
                           errlen) != 0)
      return -1;
    if (blen != RUN_COUNTERS_BYTES) {
      errf(err, errlen, "%s: run counters of %zu bytes, expected %d", path, blen,
           RUN_COUNTERS_BYTES);
      return -1;
    }
    run_counters_read(&r->rc, blob);
    memcpy(r->rng.s, r->rc.rng, sizeof r->rng.s);
  }
  /* The best network: from the run, or the untrained one of the run seed
   * while no promotion made another. */
  path_in(r, "best.weights", path);
  int make_best = !present(path);
  if (!make_best) {
    if (!(r->best = nn_load(path, &ex, NULL, err, errlen))) return -1;
  } else if (r->rc.promotions > 0) {
    errf(err, errlen,
         "%s: best.weights is missing but the checkpoint counts %u promotions (iteration %u); "
         "the best network cannot be made again: restore best.weights, or move the directory "
         "away and start a new run",
         r->dir, r->rc.promotions, r->rc.iteration);
    return -1;
  } else if (!(r->best = nn_create(&nc, c->seed, err, errlen))) {
    return -1;
  }
  /* Gating evaluates the best in the run's precision; promotions (nn_copy)
   * re-pack it. */
  if (nn_set_precision(r->best, (nn_precision)c->precision, err, errlen) != 0) return -1;
  if (!(r->buf = replay_create(&c->g, c->window, err, errlen))) return -1;
  if (c->n_variants > 1 && replay_set_variants(r->buf, c->variant, c->n_variants, err, errlen))
    return -1;
  path_in(r, "replay.bin", path);
  int lost_buffer = 0;
  if (present(path)) {
    if (replay_load(r->buf, path, err, errlen) != 0) return -1;
  } else {
    lost_buffer = r->rc.iteration >= (uint32_t)c->checkpoint_every;
  }

  /* Then the writes, in the order a run is made. */
  path_in(r, "checkpoint", path);
  if (make_dir(path, err, errlen) != 0) return -1;
  afile_remove_stale(path, NULL, 0);
  path_in(r, "games", path);
  if (make_dir(path, err, errlen) != 0) return -1;
  afile_remove_stale(path, NULL, 0);
  afile_remove_stale(r->dir, NULL, 0);
  if (write_config(r, err, errlen) != 0) return -1;
  if (!has_ckpt && save_checkpoint(r, err, errlen) != 0) return -1; /* iteration 0 */
  /* Drop metrics of iterations the checkpoint does not cover (a new run's
   * metrics.jsonl is made here, before best.weights). */
  if (metrics_append(r, r->rc.iteration, NULL, e, sizeof e) != 0) {
    errf(err, errlen, "%s", e);
    return -1;
  }
  path_in(r, "best.weights", path);
  if (make_best && nn_save(r->best, &r->meta, path, err, errlen) != 0) return -1;

  int nf = c->g.n_features, na = c->g.n_actions;
  if (!(r->slot = netslot_create(r->best, err, errlen))) return -1;
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  if (has_ckpt) {
    train_emit(
        r, 1, "resumed %s at iteration %u: %llu steps, %d samples in the buffer, %.1f min trained",
        r->dir, r->rc.iteration, (unsigned long long)r->rc.steps, rs.count, r->rc.elapsed / 60);
    if (lost_buffer) train_emit(r, 1, "%s/replay.bin is missing: the buffer starts empty", r->dir);
  } else {
    char shape[64], what[64];
    nn_shape_string(&(nn_config){nf, c->hidden, c->blocks, na}, shape, sizeof shape);
    if (c->n_variants > 1)
      snprintf(what, sizeof what, "%d variants of %s", c->n_variants, c->g.rules->name);
    else
      snprintf(what, sizeof what, "%s", c->g.preset);
    train_emit(r, 1, "new run %s: %s, network %s (%s), %d self-play thread(s)%s x %d games%s",
               r->dir, what, shape, nn_precision_name(nn_precision_of(r->best)), c->threads,
               a->dist            ? " per actor"
               : c->learner_plays ? " + the learner's"
                                  : "",
               c->games_per_thread, c->deterministic ? ", deterministic schedule" : "");
  }
  return 0;
}

/* [egdb]: the database (one shared copy) and the positions of the
 * accuracy check, drawn once with the run's seed. */
int train_egdb_acquire(const train_config *c, egdb **db, char *dir, size_t dlen, char *err,
                       size_t errlen) {
  char e[1024];
  *db = NULL;
  if (!c->egdb_enabled) return 0;
  if (c->egdb_dir[0])
    snprintf(dir, dlen, "%s", c->egdb_dir);
  else if (egdb_default_dir(dir, dlen, e, sizeof e)) {
    errf(err, errlen, "egdb.dir: %s", e);
    return -1;
  }
  if (!(*db = egdb_acquire(dir, e, sizeof e))) {
    errf(err, errlen, "egdb.dir%s: %s", c->egdb_dir[0] ? "" : " (default)", e);
    return -1;
  }
  if (!egdb_serves(*db, &c->g)) {
    errf(err, errlen, "egdb: the database in %s is for oware %s, not this run's %s", dir,
         egdb_rules(*db), c->g.preset);
    return -1;
  }
  return 0;
}

static int open_egdb(run *r, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  char dir[PATH_MAX_LEN];
  if (train_egdb_acquire(c, &r->db, dir, sizeof dir, err, errlen) != 0) return -1;
  if (!r->db) return 0;
  if (c->egdb_eval_n > 0 &&
      !(r->endgame = endgame_sample(r->db, &c->g, c->egdb_eval_n, c->egdb_eval_levels,
                                    c->seed ^ 0x656e6467ULL, err, errlen)))
    return -1;
  train_emit(r, 1, "endgame database %s: seeds 0..%d%s, %d positions to measure the network on",
             dir, egdb_max_seeds(r->db), c->egdb_max_seeds ? " (capped by egdb.max_seeds)" : "",
             r->endgame ? endgame_count(r->endgame) : 0);
  return 0;
}

int train_learner_init(run *r, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  nn_config nc = {c->g.n_features, c->hidden, c->blocks, c->g.n_actions};
  if (!(r->cand = nn_create(&nc, c->seed, err, errlen))) return -1;
  nn_train_params tp = nn_train_defaults();
  tp.w.policy = c->policy_w;
  tp.w.value = c->value_w;
  tp.w.score = c->score_w;
  tp.weight_decay = c->weight_decay;
  tp.clip_norm = c->clip_norm;
  if (!(r->trainer = nn_trainer_create(r->cand, &tp, err, errlen))) return -1;
  if (!(r->ws = nn_ws_create(r->cand, c->batch, err, errlen))) return -1;
  rng_seed(&r->rng, c->seed, 0x6c6561726eULL);
  int b = c->batch, nf = c->g.n_features, na = c->g.n_actions;
  r->batch = malloc(sizeof *r->batch * (size_t)b);
  r->x = malloc(sizeof *r->x * (size_t)b * (size_t)nf);
  r->pi = malloc(sizeof *r->pi * (size_t)b * (size_t)na);
  r->z = malloc(sizeof *r->z * (size_t)b);
  r->score = malloc(sizeof *r->score * (size_t)b);
  r->legal = malloc(sizeof *r->legal * (size_t)b);
  if (!r->batch || !r->x || !r->pi || !r->z || !r->score || !r->legal) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

void train_time_shares(const run *r, double share[4], double *cores_used) {
  /* The workers' counters of this session are folded into rc only at a
   * commit; the learner's and gating's go there at once. */
  double t[4] = {(double)(r->rc.net_ns + atomic_load(&r->counters.net_ns)),
                 (double)(r->rc.search_ns + atomic_load(&r->counters.search_ns)),
                 (double)r->rc.learner_ns, (double)r->rc.gate_ns};
  double sum = t[0] + t[1] + t[2] + t[3];
  for (int i = 0; i < 4; i++) share[i] = sum > 0 ? t[i] / sum : 0;
  double wall = clock_wall() - r->t_start;
  *cores_used = wall > 0 ? (clock_process_cpu() - r->cpu_start) / wall : 0;
}

void train_teardown(run *r) {
  if (r->lock_fd > 0) close(r->lock_fd);
  endgame_free(r->endgame);
  egdb_release(r->db);
  nn_free(r->best);
  nn_free(r->cand);
  nn_trainer_free(r->trainer);
  nn_ws_free(r->ws);
  replay_free(r->buf);
  netslot_free(r->slot);
  free(r->batch);
  free(r->x);
  free(r->pi);
  free(r->z);
  free(r->score);
  free(r->legal);
  free(r->records);
  pthread_mutex_destroy(&r->rec_lock);
}

/* ---- Iterations ------------------------------------------------------------------------------ */

/* Gating and promotion; fills the JSON fragment and the status text. */
static int gate(run *r, char *json, size_t jlen, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  char path[PATH_MAX_LEN];
  if (c->gating == GATE_OFF) {
    nn_copy(r->best, r->cand);
    r->rc.promotions++;
    snprintf(json, jlen, "\"gating\": {\"mode\": \"off\", \"promoted\": true}");
    snprintf(r->st.last_gate, sizeof r->st.last_gate, "latest (gating off)");
  } else {
    match_params mp = {.games = c->gate_games,
                       .sims = c->gate_sims,
                       .opening_plies = 4,
                       .seed = c->seed ^ (0x67617465ULL + r->rc.iteration),
                       .sprt = c->gating == GATE_SPRT,
                       .elo0 = 0,
                       .elo1 = c->sprt_elo1,
                       .alpha = c->sprt_alpha,
                       .beta = c->sprt_beta,
                       .variants = c->variant,
                       .n_variants = c->n_variants};
    match_result m;
    double t0 = clock_thread_cpu();
    /* Training left the candidate's bf16 copy stale: convert it for gating. */
    if (nn_set_precision(r->cand, (nn_precision)c->precision, err, errlen) != 0) return -1;
    if (gate_match(&c->g, r->cand, r->best, &c->search, &mp, &m, err, errlen) != 0) return -1;
    r->rc.gate_ns += (uint64_t)((clock_thread_cpu() - t0) * 1e9);
    int promote = gate_promotes(&m, c->gating == GATE_SPRT, c->gate_threshold);
    snprintf(json, jlen,
             "\"gating\": {\"mode\": \"%s\", \"games\": %d, \"wins\": %d, \"draws\": %d, "
             "\"losses\": %d, \"score\": %.4f, \"elo\": %.1f, \"llr\": %.3f, \"promoted\": %s}",
             c->gating == GATE_SPRT ? "sprt" : "threshold", m.games, m.wins, m.draws, m.losses,
             m.score, m.elo, m.llr, promote ? "true" : "false");
    snprintf(r->st.last_gate, sizeof r->st.last_gate, "%s %.1f%% (%+.0f Elo, %d games)",
             promote ? "promoted" : "rejected", 100 * m.score, m.elo, m.games);
    if (!promote) return 0;
    nn_copy(r->best, r->cand);
    r->rc.promotions++;
  }
  before_write(r, "best.weights");
  path_in(r, "best.weights", path);
  if (nn_save(r->best, &r->meta, path, err, errlen) != 0) return -1;
  netslot_publish(r->slot, r->best);
  if (train_dist_publish(r, err, errlen) != 0) return -1;
  return 1;
}

/* The best against the anchors; appends a JSON fragment. */
static int evaluate(run *r, char *json, size_t jlen, char *err, size_t errlen) {
  const train_config *c = &r->cfg;
  char path[PATH_MAX_LEN], me[PATH_MAX_LEN + 64], anchors[256];
  path_in(r, "best.weights", path);
  snprintf(me, sizeof me, "zero weights=%s sims=%d precision=%s", path, c->eval_sims,
           nn_precision_name((nn_precision)c->precision));
  snprintf(anchors, sizeof anchors, "%s", c->anchors);
  size_t k = (size_t)snprintf(json, jlen, "\"eval\": {");
  int first = 1;
  for (char *save = NULL, *t = strtok_r(anchors, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
    while (*t == ' ') t++;
    if (!*t) continue;
    match_params mp = {.games = c->eval_games,
                       .opening_plies = 2,
                       .seed = c->seed ^ (0x6576616cULL + r->rc.iteration),
                       .elo1 = 35,
                       .alpha = 0.05,
                       .beta = 0.05,
                       .variants = c->variant,
                       .n_variants = c->n_variants};
    match_result m;
    if (anchor_match(&c->g, me, t, &mp, &m, err, errlen) != 0) return -1;
    char name[6 * sizeof anchors + 2]; /* every byte escaped at worst */
    json_quote(name, sizeof name, t);
    k += (size_t)snprintf(json + k, jlen - k,
                          "%s%s: {\"score\": %.4f, \"elo\": %.1f, \"elo_lo\": %.1f, "
                          "\"elo_hi\": %.1f, \"games\": %d}",
                          first ? "" : ", ", name, m.score, m.elo, m.elo_lo, m.elo_hi, m.games);
    if (k >= jlen) k = jlen - 1; /* cut, never past the buffer */
    first = 0;
    train_emit(r, 1, "  best vs %s: %.1f%% (%+.0f Elo, %d games)", t, 100 * m.score, m.elo,
               m.games);
  }
  snprintf(json + k, jlen - k, "}");
  if (r->endgame) {
    k = strlen(json);
    if (k + 2 < jlen) {
      snprintf(json + k, jlen - k, ", ");
      k += 2;
      double t0 = clock_wall();
      if (endgame_measure(r->endgame, r->best, c->score_scale, c->eval_sims, json + k, jlen - k,
                          err, errlen))
        return -1;
      train_emit(r, 1, "  best against the endgame database: %d positions in %.1f s",
                 endgame_count(r->endgame), clock_wall() - t0);
    }
  }
  return 0;
}

int train_end_iteration(run *r, double t_start, const nn_losses *avg, int nsteps, char *err,
                        size_t errlen) {
  const train_config *c = &r->cfg;
  char path[PATH_MAX_LEN], gate_json[512] = "\"gating\": null", eval_json[4096] = "";
  r->rc.iteration++;
  before_write(r, "candidate.weights");
  path_in(r, "candidate.weights", path);
  if (nn_save(r->cand, &r->meta, path, err, errlen) != 0) return -1;
  r->st.phase = "gating";
  train_emit(r, 0, NULL);
  int promoted = gate(r, gate_json, sizeof gate_json, err, errlen);
  if (promoted < 0) return -1;
  int streak = promoted ? 0 : r->reject_streak + 1;
  if (promoted && c->eval_every > 0 && r->rc.promotions % (uint32_t)c->eval_every == 0) {
    r->st.phase = "evaluation";
    train_emit(r, 0, NULL);
    if (evaluate(r, eval_json, sizeof eval_json, err, errlen) != 0) return -1;
  }
  before_write(r, "games");
  if (flush_records(r, err, errlen) != 0) return -1;
  /* Counters of this iteration, read before the buffer is saved: self-play
   * goes on meanwhile, and what the commit counts must be in the file. */
  uint64_t sess_games = atomic_load(&r->counters.games);
  uint64_t games = r->rc.games + sess_games; /* samples go in first */
  replay_stats rs;
  replay_get_stats(r->buf, &rs);
  if (r->rc.iteration % (uint32_t)c->checkpoint_every == 0) {
    before_write(r, "replay.bin");
    path_in(r, "replay.bin", path);
    if (replay_save(r->buf, path, err, errlen) != 0) return -1;
  }
  double elapsed = train_elapsed(r, t_start);
  uint64_t evals = atomic_load(&r->counters.evals);
  uint64_t net_ns = r->rc.net_ns + atomic_load(&r->counters.net_ns);
  uint64_t search_ns = r->rc.search_ns + atomic_load(&r->counters.search_ns);
  double sess = clock_wall() - t_start;
  double share[4], cores_used;
  train_time_shares(r, share, &cores_used);
  double n = nsteps > 0 ? nsteps : 1;
  char line[8192], dist_json[1024], sp_json[512];
  train_dist_json(r, dist_json, sizeof dist_json);
  selfplay_json(&r->counters, sess_games, &r->seen, sp_json, sizeof sp_json);
  snprintf(line, sizeof line,
           "{\"iteration\": %u, \"time_min\": %.3f, \"steps\": %llu, \"games\": %llu, "
           "\"samples\": %llu, \"buffer\": %d, \"buffer_mb\": %.1f, \"lr\": %.6f, "
           "\"loss\": {\"total\": %.5f, \"policy\": %.5f, \"value\": %.5f, \"score\": %.5f, "
           "\"entropy\": %.5f, \"value_acc\": %.4f}, "
           "\"speed\": {\"games_per_h\": %.1f, \"evals_per_s\": %.1f, \"cores_used\": %.3f, "
           "\"cores\": %ld}, "
           "\"time_share\": {\"network\": %.3f, \"search\": %.3f, \"learner\": %.3f, "
           "\"gating\": %.3f}, \"promotions\": %u, \"reject_streak\": %d, %s, %s%s%s%s}",
           r->rc.iteration, elapsed / 60, (unsigned long long)r->rc.steps,
           (unsigned long long)games, (unsigned long long)rs.added, rs.count, rs.bytes / 1048576.0,
           train_learning_rate(r, elapsed), avg->total / n, avg->policy / n, avg->value / n,
           avg->score / n, avg->entropy / n, avg->value_sign_acc / n,
           sess > 0 ? 3600.0 * (double)atomic_load(&r->counters.games) / sess : 0,
           sess > 0 ? (double)evals / sess : 0, cores_used, sysconf(_SC_NPROCESSORS_ONLN), share[0],
           share[1], share[2], share[3], r->rc.promotions, streak, sp_json, gate_json,
           eval_json[0] ? ", " : "", eval_json, dist_json);
  before_write(r, "metrics.jsonl");
  r->reject_streak = streak;
  if (metrics_append(r, r->rc.iteration - 1, line, err, errlen) != 0) return -1;
  /* The commit point: counters as of this iteration (the session's live
   * counters are folded in only here). */
  run_counters saved = r->rc;
  r->rc.elapsed = elapsed;
  r->rc.games = games;
  r->rc.net_ns = net_ns;
  r->rc.search_ns = search_ns;
  before_write(r, "checkpoint");
  int rc = save_checkpoint(r, err, errlen);
  r->rc = saved;
  if (rc != 0) return -1;
  train_emit(r, 1, "iteration %u: loss %.4f (policy %.4f value %.4f), %llu games, %d samples, %s",
             r->rc.iteration, avg->total / n, avg->policy / n, avg->value / n,
             (unsigned long long)games, rs.count, r->st.last_gate);
  if (streak > 0 && streak % TRAIN_STUCK_STREAK == 0)
    train_emit(r, 1,
               "gating has rejected %d candidates in a row: training no longer makes a network "
               "that beats the best. Unless the best already beats its anchors (converged), the "
               "run is stuck (docs/TRAINING.md, \"When gating stops promoting\")",
               streak);
  return 0;
}

int train_run(const train_args *a, char *err, size_t errlen) {
  run *r = calloc(1, sizeof *r);
  if (!r) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  r->a = a;
  r->lock_fd = -1;
  pthread_mutex_init(&r->rec_lock, NULL);
  r->st.phase = "starting";
  int rc = -1;
  char e[512];
  if (a->dist && train_dist_same_build(a->dist, err, errlen) != 0) goto out;
  if (setup(r, err, errlen) != 0 || open_egdb(r, err, errlen) != 0) {
    if (a->dist) train_dist_start(NULL, a->dist, e, sizeof e); /* the actors end too */
    goto out;
  }
  const train_config *c = &r->cfg;
  selfplay_params sp = train_selfplay_params(c);
  sp.seed = c->seed ^ r->rc.iteration;
  sp.phased = c->deterministic;
  sp.db = r->db;
  sp.hosted = c->learner_plays;
  if (a->dist) {
    /* The actors play; this rank learns. */
    if (train_dist_start(r, a->dist, err, errlen) != 0) goto out;
  } else if (!(r->sp = selfplay_start(&sp, c->threads, r->slot, r->buf, &r->counters,
                                      train_record_game, r, err, errlen)))
    goto out;
  double t_start = clock_wall();
  r->t_start = t_start;
  r->cpu_start = clock_process_cpu();
  rc = c->deterministic ? train_loop_phased(r, t_start, err, errlen)
                        : train_loop_overlapped(r, t_start, err, errlen);
  if (r->sp && selfplay_stop(r->sp, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  r->sp = NULL;
  /* The actors are told first, the buffer saved next (under mpirun a
   * signal leaves about a second: docs/DISTRIBUTED.md), then their last
   * games are taken in. */
  if (r->ld && train_dist_stop(r, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  /* A clean stop keeps the buffer of this session too. */
  if (rc == 0) {
    char path[PATH_MAX_LEN];
    path_in(r, "replay.bin", path);
    if (replay_save(r->buf, path, err, errlen) != 0) rc = -1;
  }
  if (r->ld && train_dist_finish(r, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
out:
  if (r->sp) selfplay_stop(r->sp, e, sizeof e);
  if (r->ld) train_dist_finish(r, e, sizeof e);
  train_dist_free(r);
  train_teardown(r);
  free(r);
  return rc;
}

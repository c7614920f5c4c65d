/* Run directories: what `train` finds in one decides what it does, and
 * what does not fit is refused with nothing changed. A run is made in
 * order (config.ini, the checkpoint of iteration 0, metrics.jsonl,
 * best.weights); a run whose checkpoint, best network or config is gone,
 * a config that makes another run, a run file that is a link or a FIFO,
 * or a bad anchor are refused; only SowZero's own stale temporaries are
 * removed. Runs here are a session stopped at once or one short iteration
 * of a tiny config. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "base/json.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "search/evaluator_nn.h"
#include "trainer/checkpoint.h"
#include "trainer/config.h"
#include "trainer/counters.h"
#include "trainer/learner.h"
#include "trainer/machine.h"
#include "trainer/train.h"

static char base[256], dir[300], outside[300];

static void setup(void) {
  scratch_dir(base, sizeof base, "rundir");
  snprintf(dir, sizeof dir, "%s/run", base);
  snprintf(outside, sizeof outside, "%s/outside", base);
  ck_assert_int_eq(mkdir(outside, 0755), 0);
}

static void teardown(void) { remove_tree(base); }

static const char *in(const char *root, const char *name) {
  static char path[4][600];
  static int k;
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/%s", root, name);
  return path[k];
}

/* One short iteration of the tiny config (a fraction of a second); no
 * kept games, so that what the iteration writes does not depend on how
 * many games the workers finish in it. */
static char *quick[] = {
    "run.minutes=0",          "run.iterations=1",       "selfplay.games_per_thread=16",
    "replay.min_samples=256", "learner.batch=64",       "learner.steps_per_iter=5",
    "gating.mode=off",        "selfplay.record_every=0"};
#define N_QUICK 8

/* train_run on dir; stop_now: a session that stops as soon as it started. */
static int train(const char *config, int n_over, char *const *over, int stop_now, char *err,
                 size_t errlen) {
  static volatile sig_atomic_t stop;
  stop = stop_now;
  err[0] = 0;
  train_args a = {
      .config_path = config, .run_dir = dir, .n_over = n_over, .over = over, .stop = &stop};
  return train_run(&a, err, errlen);
}

static void quick_run(void) {
  char err[1024];
  ck_assert_msg(train("configs/tiny.ini", N_QUICK, quick, 0, err, sizeof err) == 0, "%s", err);
}

/* The error of a train_run that must fail, with dir written DIR. */
static const char *refusal(const char *config, int n_over, char *const *over) {
  static char msg[1200];
  char err[1024];
  ck_assert_int_eq(train(config, n_over, over, 0, err, sizeof err), -1);
  size_t k = 0;
  for (const char *p = err, *at; *p; p = at + strlen(dir)) {
    if (!(at = strstr(p, dir))) {
      snprintf(msg + k, sizeof msg - k, "%s", p);
      break;
    }
    k += (size_t)snprintf(msg + k, sizeof msg - k, "%.*sDIR", (int)(at - p), p);
    msg[k] = 0;
  }
  if (!*err) msg[0] = 0;
  return msg;
}

/* Every entry of the run (subfolders too, .lock aside): name, kind, inode,
 * size and checksum, one a line in name order. Equal snapshots: nothing
 * was written (not even the same bytes again), created or removed. */
static void snapshot_of(const char *root, const char *sub, char *out, size_t len, size_t *k) {
  char path[400];
  snprintf(path, sizeof path, "%s%s%s", root, sub[0] ? "/" : "", sub);
  struct dirent **e;
  int n = scandir(path, &e, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    const char *name = e[i]->d_name;
    char p[700], rel[400];
    snprintf(p, sizeof p, "%s/%s", path, name);
    snprintf(rel, sizeof rel, "%s%s%s", sub, sub[0] ? "/" : "", name);
    struct stat st;
    if (strcmp(name, ".") && strcmp(name, "..") && strcmp(name, ".lock") && lstat(p, &st) == 0) {
      uint64_t sum = CHECKSUM64_INIT;
      if (S_ISREG(st.st_mode)) {
        FILE *f = fopen(p, "rb");
        unsigned char buf[4096];
        size_t r;
        while (f && (r = fread(buf, 1, sizeof buf, f)) > 0) sum = checksum64(buf, r, sum);
        if (f) fclose(f);
      }
      *k += (size_t)snprintf(out + *k, *k < len ? len - *k : 0, "%s %o %llu %lld %016llx\n", rel,
                             (unsigned)st.st_mode, (unsigned long long)st.st_ino,
                             (long long)st.st_size, (unsigned long long)sum);
      if (S_ISDIR(st.st_mode)) snapshot_of(root, rel, out, len, k);
    }
    free(e[i]);
  }
  if (n >= 0) free(e);
}

static char *snapshot(void) {
  size_t len = 1 << 16, k = 0;
  char *out = malloc(len);
  out[0] = 0;
  snapshot_of(dir, "", out, len, &k);
  return out;
}

static int lines_of(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* configs/tiny.ini with `from` replaced by `to`, written to base/name. */
static const char *tiny_with(const char *name, const char *from, const char *to) {
  static char path[400];
  char text[4096];
  FILE *f = fopen("configs/tiny.ini", "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char *at = strstr(text, from);
  ck_assert_ptr_nonnull(at);
  snprintf(path, sizeof path, "%s/%s", base, name);
  f = fopen(path, "w");
  fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  fclose(f);
  return path;
}

/* ---- Making and resuming --------------------------------------------------------------- */

START_TEST(a_run_is_made_whole_and_resumes) {
  char err[1024];
  ck_assert_msg(train("configs/tiny.ini", 0, NULL, 1, err, sizeof err) == 0, "%s", err);
  struct stat st;
  ck_assert_int_eq(stat(in(dir, "config.ini"), &st), 0);
  ck_assert_int_eq(stat(in(dir, "checkpoint/learner.ckpt"), &st), 0); /* iteration 0 */
  ck_assert_int_eq(stat(in(dir, "best.weights"), &st), 0);
  ck_assert_int_eq(lines_of(in(dir, "metrics.jsonl")), 0);
  /* Resumed with its own config, or the same one: both are the run. */
  ck_assert_msg(train(NULL, 0, NULL, 1, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(train("configs/tiny.ini", 0, NULL, 1, err, sizeof err) == 0, "%s", err);
}
END_TEST

START_TEST(only_our_stale_temporaries_are_removed) {
  /* A directory that already holds other people's files is fine for a
   * new run; they stay as they are, whatever their names. */
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  ck_assert_int_eq(mkdir(in(dir, "checkpoint"), 0755), 0);
  ck_assert_int_eq(mkdir(in(dir, "games"), 0755), 0);
  pid_t dead = fork();
  ck_assert_int_ge(dead, 0);
  if (dead == 0) _exit(0);
  waitpid(dead, NULL, 0);
  char stale[3][96], live[96], link[96];
  snprintf(stale[0], sizeof stale[0], "replay.bin.tmp.sowzero.%d", (int)dead);
  snprintf(stale[1], sizeof stale[1], "checkpoint/learner.ckpt.tmp.sowzero.%d", (int)dead);
  snprintf(stale[2], sizeof stale[2], "games/iter-000003.txt.tmp.sowzero.%d", (int)dead);
  snprintf(live, sizeof live, "notes.txt.tmp.sowzero.%d", (int)getppid());
  snprintf(link, sizeof link, "best.weights.tmp.sowzero.%d", (int)dead);
  for (int i = 0; i < 3; i++) put_file(in(dir, stale[i]), "a killed write");
  put_file(in(dir, live), "a live writer's");
  put_file(in(dir, "notes.tmp.1"), "mine");
  put_file(in(dir, "draft.tmp.txt"), "mine too");
  put_file(in(dir, "replay.bin.tmp.4242"), "an older SowZero's, or anyone's");
  put_file(in(dir, "games/analysis.tmp.7"), "mine");
  put_file(in(outside, "target"), "keep");
  ck_assert_int_eq(symlink(in(outside, "target"), in(dir, link)), 0);
  char err[1024];
  ck_assert_msg(train("configs/tiny.ini", 0, NULL, 1, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < 3; i++) ck_assert_str_eq(content(in(dir, stale[i])), "(absent)");
  ck_assert_str_eq(content(in(dir, live)), "a live writer's");
  ck_assert_str_eq(content(in(dir, "notes.tmp.1")), "mine");
  ck_assert_str_eq(content(in(dir, "draft.tmp.txt")), "mine too");
  ck_assert_str_eq(content(in(dir, "replay.bin.tmp.4242")), "an older SowZero's, or anyone's");
  ck_assert_str_eq(content(in(dir, "games/analysis.tmp.7")), "mine");
  struct stat st;
  ck_assert_int_eq(lstat(in(dir, link), &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_str_eq(content(in(outside, "target")), "keep");
  /* And the same on resume. */
  ck_assert_msg(train(NULL, 0, NULL, 1, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(content(in(dir, "notes.tmp.1")), "mine");
  ck_assert_str_eq(content(in(dir, live)), "a live writer's");
}
END_TEST

/* ---- What is missing ------------------------------------------------------------------ */

START_TEST(a_run_without_its_checkpoint_is_refused) {
  quick_run();
  ck_assert_int_eq(lines_of(in(dir, "metrics.jsonl")), 1);
  ck_assert_int_eq(unlink(in(dir, "checkpoint/learner.ckpt")), 0);
  char *before = snapshot();
  const char *want =
      "DIR: checkpoint/learner.ckpt is missing but the run has best.weights, candidate.weights, "
      "replay.bin, metrics.jsonl; resuming would start again at iteration 0 over them: restore "
      "the checkpoint, or move the directory away and start a new run";
  ck_assert_str_eq(refusal("configs/tiny.ini", N_QUICK, quick), want);
  ck_assert_str_eq(refusal(NULL, 0, NULL), want);
  char *after = snapshot();
  ck_assert_str_eq(after, before);
  ck_assert_int_eq(lines_of(in(dir, "metrics.jsonl")), 1);
  free(before);
  free(after);
}
END_TEST

START_TEST(a_run_without_its_best_network_is_refused) {
  /* Promoted once (gating off): the best cannot be made again. */
  quick_run();
  ck_assert_int_eq(unlink(in(dir, "best.weights")), 0);
  char *before = snapshot();
  ck_assert_str_eq(refusal(NULL, 0, NULL),
                   "DIR: best.weights is missing but the checkpoint counts 1 promotions (iteration "
                   "1); the best network cannot be made again: restore best.weights, or move the "
                   "directory away and start a new run");
  char *after = snapshot();
  ck_assert_str_eq(after, before);
  free(before);
  free(after);
  /* Never promoted: the best is the untrained network of the run seed,
   * made again byte for byte. */
  char err[1024];
  ck_assert_int_eq(remove_tree(dir), 0);
  ck_assert_msg(train("configs/tiny.ini", 0, NULL, 1, err, sizeof err) == 0, "%s", err);
  copy_file(in(dir, "best.weights"), in(outside, "best.weights"));
  ck_assert_int_eq(unlink(in(dir, "best.weights")), 0);
  ck_assert_msg(train(NULL, 0, NULL, 1, err, sizeof err) == 0, "%s", err);
  ck_assert(same_bytes(in(dir, "best.weights"), in(outside, "best.weights")));
}
END_TEST

START_TEST(a_run_without_its_config_is_refused) {
  quick_run();
  ck_assert_int_eq(unlink(in(dir, "config.ini")), 0);
  char *before = snapshot();
  ck_assert_str_eq(refusal("configs/tiny.ini", N_QUICK, quick),
                   "DIR: holds a run's files (checkpoint/learner.ckpt, best.weights, "
                   "candidate.weights, replay.bin, metrics.jsonl) but no config.ini, so it is not "
                   "taken for a new run: restore its config.ini, or move the directory away");
  ck_assert_str_eq(refusal(NULL, 0, NULL),
                   "DIR: holds a run's files (checkpoint/learner.ckpt, best.weights, "
                   "candidate.weights, replay.bin, metrics.jsonl) but no config.ini: restore its "
                   "config.ini");
  char *after = snapshot();
  ck_assert_str_eq(after, before);
  free(before);
  free(after);
  /* A directory with nothing of a run and no config given. */
  snprintf(dir, sizeof dir, "%s/nothing", base);
  ck_assert_str_eq(refusal(NULL, 0, NULL),
                   "DIR: no run here (no config.ini); give a config to start one");
  struct stat st;
  ck_assert_int_ne(stat(dir, &st), 0);
}
END_TEST

/* Flips one bit of a run's file, at byte `at` (again to put it back). */
static void flip_bit(const char *name, long at) {
  FILE *f = fopen(in(dir, name), "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
  int c = fgetc(f);
  ck_assert_int_ne(c, EOF);
  ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
  fputc(c ^ 0x10, f);
  ck_assert_int_eq(fclose(f), 0);
}

START_TEST(a_damaged_file_is_refused_before_anything_is_written) {
  quick_run();
  /* One bit of the replay buffer flipped: the run is refused before its
   * config, checkpoint or metrics are touched. */
  flip_bit("replay.bin", 1000);
  char *before = snapshot();
  ck_assert_str_eq(refusal(NULL, 0, NULL),
                   "DIR/replay.bin: checksum mismatch (corrupted or truncated file)");
  char *after = snapshot();
  ck_assert_str_eq(after, before);
  free(before);
  free(after);
  flip_bit("replay.bin", 1000);
  /* So is each other file a resume reads: a bit flipped past its header
   * names the file, and the run is left as it was. */
  static const char *const files[] = {"checkpoint/learner.ckpt", "best.weights"};
  for (int i = 0; i < 2; i++) {
    flip_bit(files[i], 200);
    before = snapshot();
    const char *msg = refusal(NULL, 0, NULL);
    char want[200];
    snprintf(want, sizeof want, "DIR/%s: ", files[i]);
    ck_assert_msg(!strncmp(msg, want, strlen(want)) && strstr(msg, "checksum"), "%s: %s", files[i],
                  msg);
    after = snapshot();
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    flip_bit(files[i], 200);
  }
  char err[1024];
  ck_assert_msg(train(NULL, 0, NULL, 1, err, sizeof err) == 0, "%s", err);
}
END_TEST

/* ---- Another configuration --------------------------------------------------------------- */

START_TEST(another_config_is_another_run) {
  quick_run();
  char *before = snapshot(), want[1200];
  /* alpha.v2.ini: another network size under the same run. */
  const char *v2 = tiny_with("alpha.v2.ini", "hidden = 48", "hidden = 64");
  snprintf(want, sizeof want,
           "DIR: this run was made with network.hidden = 48, but %s gives 64, which makes another "
           "run: train that under another name (--run NEWDIR), or resume this run as it was with "
           "'sowzero train --run DIR'",
           v2);
  ck_assert_str_eq(refusal(v2, 0, NULL), want);
  /* The same file with other overrides; overrides without a file. */
  char *lr[N_QUICK + 1];
  memcpy(lr, quick, sizeof quick);
  lr[N_QUICK] = "learner.lr=0.01";
  ck_assert_str_eq(refusal("configs/tiny.ini", N_QUICK + 1, lr),
                   "DIR: this run was made with learner.lr = 0.00300000003, but configs/tiny.ini "
                   "with the overrides gives 0.00999999978, which makes another run: train that "
                   "under another name (--run NEWDIR), or resume this run as it was with 'sowzero "
                   "train --run DIR'");
  char *rules[] = {"game.grand_slam=forbidden"};
  ck_assert_str_eq(refusal(NULL, 1, rules),
                   "DIR: this run was made with game.grand_slam = no_capture, but --set gives "
                   "forbidden, which makes another run: train that under another name (--run "
                   "NEWDIR), or resume this run as it was with 'sowzero train --run DIR'");
  /* The tiny config without the run's overrides is another run too. */
  ck_assert_ptr_nonnull(strstr(refusal("configs/tiny.ini", 0, NULL),
                               "selfplay.games_per_thread = 16, but configs/tiny.ini gives 64"));
  char *after = snapshot();
  ck_assert_str_eq(after, before);
  /* The budget and the threads may change; config.ini keeps the new ones. */
  char *more[] = {"run.iterations=2", "selfplay.threads=2", "run.minutes=30"};
  char err[1024];
  ck_assert_msg(train(NULL, 3, more, 0, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(lines_of(in(dir, "metrics.jsonl")), 2);
  char cfg[2048];
  FILE *f = fopen(in(dir, "config.ini"), "r");
  size_t n = fread(cfg, 1, sizeof cfg - 1, f);
  cfg[n] = 0;
  fclose(f);
  ck_assert_ptr_nonnull(strstr(cfg, "\nthreads = 2\n"));
  ck_assert_ptr_nonnull(strstr(cfg, "\nhidden = 48\n"));
  ck_assert_ptr_nonnull(strstr(cfg, "\nmode = off\n"));
  free(before);
  free(after);
}
END_TEST

/* ---- The status ------------------------------------------------------------------------
 * What a session reports as it goes: each iteration's line is reported
 * with that iteration done, status updates count the iterations done so
 * far, and the training time of every update lies between the time
 * trained before the session (the last metrics line's time_min) and that
 * plus the session's wall time. */
typedef struct {
  double t0, before_s; /* the session's start (wall clock), seconds trained before it */
  int first_iter, updates, lines, bad;
  int news, resumes;         /* banners of either kind */
  char why[256], first[700]; /* first: the session's first line, its banner */
} status_seen;

static void note_status(void *ctx, int kind, const train_status *st, const char *line) {
  status_seen *s = ctx;
  unsigned it;
  if (kind == 1 && !s->first[0]) snprintf(s->first, sizeof s->first, "%s", line);
  if (kind == 1)
    s->news += !strncmp(line, "new run ", 8), s->resumes += !strncmp(line, "resumed ", 8);
  if (s->bad) return;
  if (kind == 1 && sscanf(line, "iteration %u:", &it) == 1) {
    s->lines++;
    if (st->iteration != (int)it) {
      s->bad = 1;
      snprintf(s->why, sizeof s->why, "'%.60s' reported at iteration %d", line, st->iteration);
    }
  }
  if (kind != 0) return;
  s->updates++;
  double t = st->elapsed_min * 60, wall = clock_wall() - s->t0;
  if (st->iteration < s->first_iter || st->iteration > s->first_iter + 1) {
    s->bad = 1;
    snprintf(s->why, sizeof s->why, "%s: iteration %d, the session began at %d", st->phase,
             st->iteration, s->first_iter);
  } else if (t < s->before_s - 0.05 || t > s->before_s + wall + 0.05) {
    s->bad = 1;
    snprintf(s->why, sizeof s->why, "%s: %.3f s trained, %.3f s before and %.3f s in the session",
             st->phase, t, s->before_s, wall);
  }
}

/* The last metrics line's time_min, in seconds. */
static double trained_s(void) {
  char line[16384] = "", last[16384] = "", err[256];
  FILE *f = fopen(in(dir, "metrics.jsonl"), "r");
  ck_assert_ptr_nonnull(f);
  while (fgets(line, sizeof line, f)) memcpy(last, line, sizeof last);
  fclose(f);
  json_doc *d = json_parse(last, err, sizeof err);
  ck_assert_msg(d != NULL, "%s", err);
  double m;
  ck_assert_int_eq(json_get_number(d, 0, "time_min", &m), 0);
  json_free(d);
  return m * 60;
}

START_TEST(the_status_follows_the_run) {
  char err[1024], *over[N_QUICK + 1];
  memcpy(over, quick, sizeof quick);
  for (int session = 0; session < 2; session++) {
    over[N_QUICK] = session ? "run.iterations=2" : "run.iterations=1";
    status_seen s = {.first_iter = session, .before_s = session ? trained_s() : 0};
    train_args a = {.config_path = "configs/tiny.ini",
                    .run_dir = dir,
                    .n_over = N_QUICK + 1,
                    .over = over,
                    .progress = note_status,
                    .progress_ctx = &s};
    s.t0 = clock_wall();
    ck_assert_msg(train_run(&a, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(!s.bad, "session %d: %s", session + 1, s.why);
    ck_assert_int_eq(s.lines, 1);
    ck_assert_int_gt(s.updates, 0);
    /* The banner says what the session is: a new run, or where it resumed. */
    char want[700];
    snprintf(want, sizeof want, session ? "resumed %s at iteration 1:" : "new run %s:", dir);
    ck_assert_msg(!strncmp(s.first, want, strlen(want)), "session %d began '%s'", session + 1,
                  s.first);
    ck_assert_msg(s.news == !session && s.resumes == session,
                  "session %d: %d new-run and %d resumed banners", session + 1, s.news, s.resumes);
  }
  ck_assert_double_gt(trained_s(), 0);
}
END_TEST

/* The first metrics line's "system" member: network.precision = auto's
 * times, each under its own path's name and batch (a path the CPU did not
 * run has none); said once a session. */
START_TEST(the_machine_reports_each_measured_time) {
  train_config c;
  char err[1024], text[8192];
  ck_assert_msg(config_load(&c, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  run_machine m;
  memset(&m, 0, sizeof m);
  m.prec_auto = 1;
  m.prec.choice = NN_PRECISION_INT8;
  m.prec.n_batches = 2;
  m.prec.batch[0] = 8;
  m.prec.batch[1] = 64;
  const double us[2][NN_AUTO_PATHS] = {{11.5, 0, 7.25}, {80.5, 60.25, 30.75}};
  memcpy(m.prec.us, us, sizeof us);
  static const char *const names[NN_AUTO_PATHS] = {"fp32", "bf16", "int8"};
  for (int line = 0; line < 2; line++) {
    json_writer w;
    json_writer_init(&w, text, sizeof text);
    json_begin_object(&w, NULL);
    machine_json(&m, &c, &w);
    json_end_object(&w);
    ck_assert_int_eq(json_writer_done(&w), 0);
    json_doc *d = json_parse(text, err, sizeof err);
    ck_assert_msg(d != NULL, "%s: %s", err, text);
    int sys = json_get(d, 0, "system");
    if (line) { /* the session's later lines */
      ck_assert_int_lt(sys, 0);
      json_free(d);
      continue;
    }
    int prec = json_get(d, sys, "precision");
    ck_assert_msg(sys >= 0 && prec >= 0, "%s", text);
    for (int b = 0; b < 2; b++)
      for (int p = 0; p < NN_AUTO_PATHS; p++) {
        char key[64];
        double v = -1;
        snprintf(key, sizeof key, "%s_us_batch%d", names[p], m.prec.batch[b]);
        ck_assert_int_eq(json_get_number(d, prec, key, &v) == 0, us[b][p] > 0);
        if (us[b][p] > 0) ck_assert_msg(fabs(v - us[b][p]) < 0.051, "%s: %g", key, v);
      }
    json_free(d);
  }
}
END_TEST

START_TEST(a_bad_anchor_makes_no_directory) {
  const char *bad = tiny_with("anchors.ini", "every = 0", "every = 0\nanchors = alphabeta depht=4");
  char want[600];
  snprintf(
      want, sizeof want,
      "%s:44: eval.anchors: anchor 'alphabeta depht=4': agent alphabeta: unknown setting "
      "'depht' (known: depth, time, tt, w_store, w_seeds, w_mobility, margins, egdb, egdb_seeds)",
      bad);
  ck_assert_str_eq(refusal(bad, 0, NULL), want);
  struct stat st;
  ck_assert_int_ne(stat(dir, &st), 0);
}
END_TEST

/* ---- Files that are not ours ------------------------------------------------------------- */

START_TEST(run_files_must_be_regular_files) {
  quick_run();
  /* replay.bin a link to a copy elsewhere: refused, neither changes. */
  ck_assert_int_eq(rename(in(dir, "replay.bin"), in(outside, "replay.bin")), 0);
  ck_assert_int_eq(symlink(in(outside, "replay.bin"), in(dir, "replay.bin")), 0);
  copy_file(in(outside, "replay.bin"), in(base, "replay.copy"));
  char *before = snapshot();
  ck_assert_str_eq(refusal(NULL, 0, NULL),
                   "DIR/replay.bin: not a regular file; a run reads and replaces only regular "
                   "files (put the file itself there)");
  char *after = snapshot();
  ck_assert_str_eq(after, before);
  ck_assert(same_bytes(in(outside, "replay.bin"), in(base, "replay.copy")));
  free(before);
  free(after);
  /* metrics.jsonl a FIFO: refused at once (reading it would block). */
  ck_assert_int_eq(rename(in(outside, "replay.bin"), in(dir, "replay.bin")), 0);
  ck_assert_int_eq(unlink(in(dir, "metrics.jsonl")), 0);
  ck_assert_int_eq(mkfifo(in(dir, "metrics.jsonl"), 0644), 0);
  ck_assert_str_eq(refusal(NULL, 0, NULL),
                   "DIR/metrics.jsonl: not a regular file; a run reads and replaces only regular "
                   "files (put the file itself there)");
  struct stat st;
  ck_assert_int_eq(lstat(in(dir, "metrics.jsonl"), &st), 0);
  ck_assert(S_ISFIFO(st.st_mode));
}
END_TEST

/* The checkpoint's counters read back as written, every field, over random
 * values (its bytes are docs/FORMATS.md's: a resume must keep the time
 * accounting and the learner's RNG). */
START_TEST(counters_read_back_as_written) {
  rng_t r;
  rng_seed(&r, 12, 0);
  for (int t = 0; t < 200; t++) {
    run_counters a, b;
    memset(&a, 0, sizeof a);
    a.iteration = (uint32_t)rng_u64(&r);
    a.steps = rng_u64(&r);
    a.elapsed = rng_double(&r) * 1e6;
    a.games = rng_u64(&r);
    a.promotions = (uint32_t)rng_u64(&r);
    for (int i = 0; i < 4; i++) a.rng[i] = rng_u64(&r);
    a.net_ns = rng_u64(&r), a.search_ns = rng_u64(&r);
    a.learner_ns = rng_u64(&r), a.gate_ns = rng_u64(&r);
    unsigned char blob[RUN_COUNTERS_BYTES];
    run_counters_write(&a, blob);
    memset(&b, 0xa5, sizeof b);
    run_counters_read(&b, blob);
    ck_assert(b.iteration == a.iteration && b.steps == a.steps && b.elapsed == a.elapsed &&
              b.games == a.games && b.promotions == a.promotions);
    for (int i = 0; i < 4; i++) ck_assert_uint_eq(b.rng[i], a.rng[i]);
    ck_assert(b.net_ns == a.net_ns && b.search_ns == a.search_ns && b.learner_ns == a.learner_ns &&
              b.gate_ns == a.gate_ns);
  }
}
END_TEST

/* A checkpoint keeps where the learner's sampling generator is, whatever
 * the counters it is given hold, and a learner loaded from it draws on
 * from there: the same mini-batches as the learner that saved it. */
START_TEST(the_checkpoint_keeps_the_learners_generator) {
  train_config c;
  char err[512], path[600];
  ck_assert_msg(config_load(&c, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  learner a, b;
  ck_assert_msg(learner_init(&a, &c, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < 5; i++) rng_u64(&a.rng); /* drawn from, as training does */
  run_counters rc;
  memset(&rc, 0, sizeof rc);
  nn_meta meta;
  ck_assert_int_eq(mcts_nn_meta(&c.g, &meta, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/learner.ckpt", base);
  ck_assert_msg(checkpoint_save(path, &a, &meta, &rc, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(learner_init(&b, &c, err, sizeof err) == 0, "%s", err);
  nn_config nc = {c.g.n_features, c.hidden, c.blocks, c.g.n_actions};
  nn_expect ex = nn_expect_of(&meta, &nc);
  run_counters back;
  ck_assert_msg(checkpoint_load(path, &b, &ex, &back, err, sizeof err) == 0, "%s", err);
  for (int i = 0; i < 4; i++) ck_assert_uint_eq(back.rng[i], a.rng.s[i]);
  for (int i = 0; i < 8; i++) ck_assert_uint_eq(rng_u64(&b.rng), rng_u64(&a.rng));
  learner_free(&a);
  learner_free(&b);
}
END_TEST

Suite *run_dir_suite(void) {
  Suite *s = suite_create("run_dir");
  TCase *t = tcase_create("run_dir");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, a_run_is_made_whole_and_resumes);
  tcase_add_test(t, the_checkpoint_keeps_the_learners_generator);
  tcase_add_test(t, only_our_stale_temporaries_are_removed);
  tcase_add_test(t, a_run_without_its_checkpoint_is_refused);
  tcase_add_test(t, a_run_without_its_best_network_is_refused);
  tcase_add_test(t, a_run_without_its_config_is_refused);
  tcase_add_test(t, a_damaged_file_is_refused_before_anything_is_written);
  tcase_add_test(t, another_config_is_another_run);
  tcase_add_test(t, a_bad_anchor_makes_no_directory);
  tcase_add_test(t, the_machine_reports_each_measured_time);
  tcase_add_test(t, run_files_must_be_regular_files);
  tcase_add_test(t, the_status_follows_the_run);
  tcase_add_test(t, counters_read_back_as_written);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(run_dir_suite)

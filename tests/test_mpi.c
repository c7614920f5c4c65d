/* Distributed runs under Open MPI (make test-mpi; docs/DISTRIBUTED.md):
 * `mpirun -np 3` trains a tiny config with games from both actor ranks and
 * networks published to them; an actor killed with SIGKILL ends the job
 * with whole files, and a new mpirun resumes; SIGTERM to mpirun stops with
 * the buffer saved; ranks given another config or another build are
 * refused by name; actors pause behind a slow learner; eight
 * oversubscribed ranks train and resume. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/config.h"
#include "trainer/replay.h"

static char scratch[256], dir[300];

/* The tiny config, made quicker still; gating off (unless the test sets
 * gating.mode), so that every iteration publishes a new network. */
static char *const tiny_sets[] = {
    "--set", "selfplay.games_per_thread=16", "--set", "learner.steps_per_iter=20",
    "--set", "replay.min_samples=256",       "--set", "selfplay.record_every=5",
    NULL};

/* argv of `mpirun --oversubscribe -np NP BIN train ARGS...` into v. */
static int mpi_argv(char **v, int np, char *const *args) {
  static char npbuf[16];
  int n = 0;
  snprintf(npbuf, sizeof npbuf, "%d", np);
  v[n++] = "mpirun";
  v[n++] = "--oversubscribe";
  v[n++] = "-np";
  v[n++] = npbuf;
  v[n++] = (char *)test_bin();
  v[n++] = "train";
  for (int i = 0; args[i]; i++) v[n++] = args[i];
  v[n] = NULL;
  return n;
}

/* Starts argv (no shell) with stdout and stderr into log; the child's pid. */
static pid_t start(char *const *argv, const char *log) {
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    FILE *f = freopen(log, "w", stdout);
    if (!f || dup2(1, 2) < 0) _exit(126);
    execvp(argv[0], argv);
    _exit(127);
  }
  return pid;
}

/* Waits for pid at most `seconds`; its exit status (-1 on a signal). */
static int finish(pid_t pid, double seconds) {
  double t0 = clock_wall();
  int status;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (clock_wall() - t0 > seconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ck_abort_msg("mpirun did not end within %.0f s", seconds);
    }
    struct timespec ts = {0, 50 * 1000000};
    nanosleep(&ts, NULL);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The file at path into out (cut at cap); "" if it cannot be read. */
static void slurp(const char *path, char *out, size_t cap) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, cap - 1, f) : 0;
  out[n] = 0;
  if (f) fclose(f);
}

/* `mpirun -np NP sowzero train ARGS... EXTRA...`; exit status, output in out. */
static int mpi_train(int np, char *const *args, char *out, size_t cap) {
  char *v[96];
  mpi_argv(v, np, args);
  char log[400];
  snprintf(log, sizeof log, "%s/mpirun.log", scratch);
  int rc = finish(start(v, log), 240);
  slurp(log, out, cap);
  return rc;
}

/* The args: CONFIG --run DIR tiny_sets... then more (NULL-terminated). */
static void train_args_of(char **v, char *const *more) {
  int n = 0, gating = 0;
  v[n++] = "configs/tiny.ini";
  v[n++] = "--run";
  v[n++] = dir;
  for (int i = 0; tiny_sets[i]; i++) v[n++] = tiny_sets[i];
  for (int i = 0; more && more[i]; i++) {
    if (!strncmp(more[i], "gating.mode=", 12)) gating = 1;
    v[n++] = more[i];
  }
  if (!gating) v[n++] = "--set", v[n++] = "gating.mode=off";
  v[n] = NULL;
}

/* The metrics lines of the run, parsed (at most cap). */
static int metrics(json_doc **docs, int cap) {
  char path[400], line[16384], e[256];
  snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "no %s", path);
  int n = 0;
  while (n < cap && fgets(line, sizeof line, f)) {
    docs[n] = json_parse(line, e, sizeof e);
    ck_assert_msg(docs[n] != NULL, "metrics line %d: %s", n + 1, e);
    n++;
  }
  fclose(f);
  return n;
}

static void free_docs(json_doc **docs, int n) {
  for (int i = 0; i < n; i++) json_free(docs[i]);
}

/* Element k of array member key of the dist block of a metrics line. */
static double dist_at(json_doc *d, const char *key, int k) {
  int dist = json_get(d, 0, "dist");
  ck_assert_msg(dist >= 0, "a metrics line without its dist block");
  int a = json_get(d, dist, key), c = json_first(d, a);
  for (int i = 0; i < k && c >= 0; i++) c = json_next(d, c);
  ck_assert_msg(c >= 0, "dist.%s has no element %d", key, k);
  return json_number(d, c);
}

static double number(json_doc *d, int obj, const char *key) {
  double v;
  ck_assert_msg(json_get_number(d, obj, key, &v) == 0, "no number %s", key);
  return v;
}

/* Iterations 1..n in order, one line each. */
static void check_iterations(json_doc **docs, int n, int want) {
  ck_assert_int_eq(n, want);
  for (int i = 0; i < n; i++) ck_assert_int_eq((int)number(docs[i], 0, "iteration"), i + 1);
}

/* The run's files are whole: best weights, checkpoint and buffer load. */
static void check_files(void) {
  char path[400], e[512];
  snprintf(path, sizeof path, "%s/best.weights", dir);
  nn_net *n = nn_load(path, NULL, NULL, e, sizeof e);
  ck_assert_msg(n != NULL, "%s", e);
  nn_free(n);
  train_config c;
  snprintf(path, sizeof path, "%s/config.ini", dir);
  ck_assert_msg(config_load(&c, path, 0, NULL, e, sizeof e) == 0, "%s", e);
  snprintf(path, sizeof path, "%s/replay.bin", dir);
  if (access(path, F_OK) == 0) {
    replay *rb = replay_create(&c.g, c.window, e, sizeof e);
    ck_assert(rb != NULL);
    ck_assert_msg(replay_load(rb, path, e, sizeof e) == 0, "%s", e);
    replay_free(rb);
  }
}

static void setup(void) {
  scratch_dir(scratch, sizeof scratch, "mpi");
  snprintf(dir, sizeof dir, "%s/run", scratch);
  /* What Open MPI needs to start as root (CI runs as root). */
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
}

static void teardown(void) { remove_tree(scratch); }

/* ---- Three ranks ---------------------------------------------------------------- */
START_TEST(three_ranks_train) {
  static char out[1 << 16];
  char *args[64];
  train_args_of(args, (char *const[]){"--iterations", "4", NULL});
  int rc = mpi_train(3, args, out, sizeof out);
  ck_assert_msg(rc == 0, "mpirun exited %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "2 actor rank(s)"), "%s", out);
  json_doc *docs[16];
  int n = metrics(docs, 16);
  check_iterations(docs, n, 4);
  json_doc *last = docs[n - 1];
  /* Both actors played; the learner (rank 0) played nothing. */
  ck_assert_int_eq((int)dist_at(last, "games_by_rank", 0), 0);
  ck_assert_msg(dist_at(last, "games_by_rank", 1) > 0, "rank 1 sent no game");
  ck_assert_msg(dist_at(last, "games_by_rank", 2) > 0, "rank 2 sent no game");
  ck_assert_msg(dist_at(last, "samples_by_rank", 1) > 0, "rank 1 sent no sample");
  /* Every iteration promoted (gating off) and published its network: the
   * actors played with the new ones. */
  double played = 0;
  for (int i = 0; i < n; i++) {
    double v = number(docs[i], json_get(docs[i], 0, "dist"), "game_version_max");
    if (v > played) played = v;
  }
  ck_assert_msg(played >= 2, "the actors never played a network published after the first");
  /* The version lag of a game is the learner's version when the game came
   * in (from the version of the line before to this line's) minus the
   * version that played it (at most game_version_max): measured against
   * anything else, it leaves these bounds as soon as the actors fall behind. */
  double before = 0;
  for (int i = 0; i < n; i++) {
    int d = json_get(docs[i], 0, "dist");
    double v = number(docs[i], d, "version"), mean = number(docs[i], d, "lag_mean");
    double max = number(docs[i], d, "lag_max"), gmax = number(docs[i], d, "game_version_max");
    ck_assert_msg(mean <= max + 1e-9 && max <= v && gmax <= v,
                  "line %d: lag mean %g, max %g, games' newest version %g, learner's %g", i + 1,
                  mean, max, gmax, v);
    if (number(docs[i], d, "ingest_mb") > 0)
      ck_assert_msg(max >= before - gmax && mean >= before - gmax - 1e-3,
                    "line %d: lag mean %g, max %g below the learner's version %g less the "
                    "games' newest %g",
                    i + 1, mean, max, before, gmax);
    before = v;
  }
  int dist = json_get(last, 0, "dist");
  ck_assert_int_eq((int)number(last, dist, "version"), 4);
  ck_assert_int_eq((int)number(last, 0, "promotions"), 4);
  ck_assert(number(last, dist, "ranks") == 3);
  /* The games counted are the games the actors sent. */
  ck_assert(number(last, 0, "games") >=
            dist_at(last, "games_by_rank", 1) + dist_at(last, "games_by_rank", 2));
  free_docs(docs, n);
  check_files();
  /* Kept games came over the wire, with their moves. */
  char games[400];
  snprintf(games, sizeof games, "%s/games", dir);
  DIR *dd = opendir(games);
  ck_assert(dd != NULL);
  int files = 0;
  for (struct dirent *e; (e = readdir(dd));)
    if (e->d_name[0] != '.') files++;
  closedir(dd);
  ck_assert_msg(files > 0, "no kept games in %s", games);
}
END_TEST

/* One rank alone has no actors: it trains as one process would. */
START_TEST(one_rank_trains_alone) {
  static char out[1 << 16];
  char *args[64];
  train_args_of(args, (char *const[]){"--iterations", "2", NULL});
  int rc = mpi_train(1, args, out, sizeof out);
  ck_assert_msg(rc == 0, "mpirun -np 1 exited %d:\n%s", rc, out);
  ck_assert_msg(!strstr(out, "distributed:"), "one rank ran as a distributed run:\n%s", out);
  json_doc *docs[8];
  int n = metrics(docs, 8);
  check_iterations(docs, n, 2);
  ck_assert_msg(number(docs[n - 1], 0, "games") > 0, "no self-play games");
  ck_assert_msg(json_get(docs[n - 1], 0, "dist") < 0, "a dist block without actors");
  free_docs(docs, n);
}
END_TEST

/* ---- Faults ---------------------------------------------------------------------- */
/* The pid of the rank of a running job (its environment says which). */
static pid_t rank_pid(int rank) {
  char want[64];
  snprintf(want, sizeof want, "OMPI_COMM_WORLD_RANK=%d", rank);
  DIR *d = opendir("/proc");
  ck_assert(d != NULL);
  pid_t found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) {
    char path[300], env[65536];
    pid_t pid = (pid_t)atoi(e->d_name);
    if (pid <= 0) continue;
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(env, 1, sizeof env - 1, f) : 0;
    if (f) fclose(f);
    env[n] = 0;
    if (!strstr(env, "sowzero") || n == strlen(env)) continue; /* argv[0] alone: no train */
    int has_dir = 0;
    for (size_t k = 0; k < n; k += strlen(env + k) + 1)
      if (!strcmp(env + k, dir)) has_dir = 1;
    if (!has_dir) continue;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    f = fopen(path, "r");
    n = f ? fread(env, 1, sizeof env - 1, f) : 0;
    if (f) fclose(f);
    env[n] = 0;
    for (size_t k = 0; k < n; k += strlen(env + k) + 1)
      if (!strcmp(env + k, want)) found = pid;
  }
  closedir(d);
  return found;
}

static int metrics_lines(void) {
  char path[400], line[16384];
  snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
  FILE *f = fopen(path, "r");
  int n = 0;
  while (f && fgets(line, sizeof line, f)) n++;
  if (f) fclose(f);
  return n;
}

/* Starts a long run and waits for `lines` metrics lines; mpirun's pid. */
static pid_t start_long_run(int lines) {
  char *args[64], *v[96], log[400];
  train_args_of(args, (char *const[]){"--iterations", "100000", NULL});
  mpi_argv(v, 3, args);
  snprintf(log, sizeof log, "%s/long.log", scratch);
  pid_t pid = start(v, log);
  double t0 = clock_wall();
  while (metrics_lines() < lines) {
    int status;
    ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0, "mpirun ended early:\n%s", content(log));
    ck_assert_msg(clock_wall() - t0 < 120, "no progress in 120 s");
    struct timespec ts = {0, 20 * 1000000};
    nanosleep(&ts, NULL);
  }
  return pid;
}

/* Resumes with a new mpirun for two more iterations: metrics consecutive. */
static void resume_two_more(void) {
  static char out[1 << 16];
  int done = metrics_lines();
  char iters[16];
  snprintf(iters, sizeof iters, "%d", done + 2);
  char *args[64];
  train_args_of(args, (char *const[]){"--iterations", iters, NULL});
  int rc = mpi_train(3, args, out, sizeof out);
  ck_assert_msg(rc == 0, "the resume exited %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "resumed"), "%s", out);
  json_doc *docs[512];
  int n = metrics(docs, 512);
  check_iterations(docs, n, done + 2);
  free_docs(docs, n);
  check_files();
}

START_TEST(sigkill_actor_and_resume) {
  pid_t mpirun = start_long_run(3);
  pid_t actor = rank_pid(2);
  ck_assert_msg(actor > 0, "no rank 2 found");
  ck_assert_int_eq(kill(actor, SIGKILL), 0);
  /* Open MPI ends the whole job. */
  int rc = finish(mpirun, 60);
  ck_assert_msg(rc != 0, "mpirun exited 0 after a rank was killed");
  check_files();
  resume_two_more();
}
END_TEST

START_TEST(sigterm_to_mpirun_saves) {
  /* mpirun sends SIGTERM this long after its SIGCONT, and SIGKILL as long
   * after that: time for the learner to save (docs/DISTRIBUTED.md). */
  setenv("OMPI_MCA_odls_base_sigkill_timeout", "10", 1);
  pid_t mpirun = start_long_run(2);
  ck_assert_int_eq(kill(mpirun, SIGTERM), 0);
  finish(mpirun, 90);
  unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
  char log[400];
  snprintf(log, sizeof log, "%s/long.log", scratch);
  static char out[1 << 16];
  slurp(log, out, sizeof out);
  ck_assert_msg(strstr(out, ": saved;"), "no clean stop:\n%s", out);
  ck_assert_msg(strstr(out, "actor rank 1") && strstr(out, "actor rank 2"),
                "the actors did not leave:\n%s", out);
  check_files();
  resume_two_more();
}
END_TEST

/* ---- Start-up checks ------------------------------------------------------------ */
/* mpirun in MPMD form: NP1 ranks of bin1 with args1, then NP2 of bin2 with args2. */
static int mpmd(const char *bin2, char *const *extra2, char *out, size_t cap) {
  char *v[160], *a1[64], *a2[64];
  int n = 0;
  train_args_of(a1, (char *const[]){"--iterations", "2", NULL});
  train_args_of(a2, (char *const[]){"--iterations", "2", NULL});
  int k = 0;
  while (a2[k]) k++;
  for (int i = 0; extra2 && extra2[i]; i++) a2[k++] = extra2[i];
  a2[k] = NULL;
  v[n++] = "mpirun";
  v[n++] = "--oversubscribe";
  v[n++] = "-np";
  v[n++] = "2";
  v[n++] = (char *)test_bin();
  v[n++] = "train";
  for (int i = 0; a1[i]; i++) v[n++] = a1[i];
  v[n++] = ":";
  v[n++] = "-np";
  v[n++] = "1";
  v[n++] = (char *)bin2;
  v[n++] = "train";
  for (int i = 0; a2[i]; i++) v[n++] = a2[i];
  v[n] = NULL;
  char log[400];
  snprintf(log, sizeof log, "%s/mpmd.log", scratch);
  int rc = finish(start(v, log), 120);
  slurp(log, out, cap);
  return rc;
}

/* "rank K (host H)", H this machine's name as the ranks read it (at most
 * 63 bytes, "?" when it does not fit): every rank runs here. */
static void names_rank_and_host(const char *out, int k) {
  char host[64] = "?", expect[300];
  if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "?");
  snprintf(expect, sizeof expect, "rank %d (host %s)", k, host);
  ck_assert_msg(strstr(out, expect), "no \"%s\" in:\n%s", expect, out);
}

START_TEST(refuses_another_config) {
  static char out[1 << 16];
  int rc = mpmd(test_bin(), (char *const[]){"--set", "search.sims=30", NULL}, out, sizeof out);
  ck_assert_msg(rc != 0, "a rank with another config was accepted:\n%s", out);
  ck_assert_msg(strstr(out, "rank 2") && strstr(out, "search.sims"),
                "the refusal does not name the rank and key:\n%s", out);
  names_rank_and_host(out, 2);
  ck_assert_msg(metrics_lines() == 0, "a refused run trained");
}
END_TEST

START_TEST(refuses_another_build) {
  static char out[1 << 16];
  char other[400];
  snprintf(other, sizeof other, "%s/sowzero-other", scratch);
  copy_file(test_bin(), other);
  FILE *f = fopen(other, "ab");
  ck_assert(f != NULL);
  fputs("another build", f); /* still runs, but its bytes differ */
  fclose(f);
  ck_assert_int_eq(chmod(other, 0755), 0);
  int rc = mpmd(other, NULL, out, sizeof out);
  ck_assert_msg(rc != 0, "a rank of another build was accepted:\n%s", out);
  ck_assert_msg(strstr(out, "rank 2") && strstr(out, "another build"),
                "the refusal does not name the rank:\n%s", out);
  names_rank_and_host(out, 2);
  names_rank_and_host(out, 0);
}
END_TEST

/* ---- Back-pressure -------------------------------------------------------------- */
/* A learner that gates for long (many gating games) while the actors may
 * hold only 1 MiB: they pause, and say how long, and the run goes on. */
START_TEST(slow_learner_pauses_actors) {
  static char out[1 << 16];
  char *args[64];
  train_args_of(args, (char *const[]){"--iterations", "3", "--set", "selfplay.actor_outbox_mb=1",
                                      "--set", "gating.mode=threshold", "--set",
                                      "gating.games=1000", "--set", "gating.sims=48", NULL});
  int rc = mpi_train(3, args, out, sizeof out);
  ck_assert_msg(rc == 0, "mpirun exited %d:\n%s", rc, out);
  json_doc *docs[16];
  int n = metrics(docs, 16);
  check_iterations(docs, n, 3);
  double paused = 0;
  for (int i = 0; i < n; i++)
    paused += number(docs[i], json_get(docs[i], 0, "dist"), "actors_paused_s");
  ck_assert_msg(paused > 0, "the actors never paused behind a gating learner:\n%s", out);
  free_docs(docs, n);
}
END_TEST

/* ---- Eight ranks ------------------------------------------------------------------ */
START_TEST(eight_ranks_train_and_resume) {
  static char out[1 << 16];
  char *args[64];
  train_args_of(args, (char *const[]){"--iterations", "3", NULL});
  int rc = mpi_train(8, args, out, sizeof out);
  ck_assert_msg(rc == 0, "mpirun exited %d:\n%s", rc, out);
  json_doc *docs[16];
  int n = metrics(docs, 16);
  check_iterations(docs, n, 3);
  /* Every actor's games, over the run and its resume: the learner does not
   * wait for a rank that a loaded machine starts late, so one run alone
   * may end before that rank's first game. */
  double games[8] = {0};
  for (int k = 1; k < 8; k++) games[k] = dist_at(docs[n - 1], "games_by_rank", k);
  ck_assert_int_eq((int)number(docs[n - 1], json_get(docs[n - 1], 0, "dist"), "version"), 3);
  free_docs(docs, n);
  train_args_of(args, (char *const[]){"--iterations", "4", NULL});
  rc = mpi_train(8, args, out, sizeof out);
  ck_assert_msg(rc == 0, "the resume exited %d:\n%s", rc, out);
  n = metrics(docs, 16);
  check_iterations(docs, n, 4);
  for (int k = 1; k < 8; k++)
    ck_assert_msg(games[k] + dist_at(docs[n - 1], "games_by_rank", k) > 0,
                  "rank %d sent no game in the run or its resume:\n%s", k, out);
  free_docs(docs, n);
  check_files();
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mpi");
  TCase *tc = add_tests(
      s, "mpi", 600,
      (const TTest *[]){three_ranks_train, one_rank_trains_alone, sigkill_actor_and_resume,
                        sigterm_to_mpirun_saves, refuses_another_config, refuses_another_build,
                        slow_learner_pauses_actors, eight_ranks_train_and_resume, NULL});
  tcase_add_checked_fixture(tc, setup, teardown);
  return s;
}

TEST_MAIN(suite)

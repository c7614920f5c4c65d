/* The `sowzero` command line: every subcommand refuses bad arguments with
 * exit status 2 (usage) or 1 (failure) and one line on stderr naming the
 * culprit; nothing reaches a shell; moves are spoken in the board's terms;
 * good command lines still work. Runs the binary ($SOWZERO_BIN or
 * build/sowzero) without a shell, each run under an alarm so that nothing
 * can hang the suite. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

/* Seconds a run may take before the alarm kills it. */
#define RUN_LIMIT 60

typedef struct {
  int status; /* exit status; -1 if killed (the alarm: it hung) */
  char out[16384], err[8192];
} run_result;

static void slurp_fd(int fd, char *buf, size_t cap) {
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, cap - 1);
  buf[n > 0 ? n : 0] = 0;
  close(fd);
}

static int temp_fd(void) {
  char name[300];
  snprintf(name, sizeof name, "%s/sowzero-cli-XXXXXX", test_tmp());
  int fd = mkstemp(name);
  ck_assert(fd >= 0);
  unlink(name);
  return fd;
}

/* Runs `sowzero ARGV...` (NULL-terminated) with `input` on stdin (NULL: an
 * empty stdin), stdout and stderr kept apart. */
static void run(run_result *r, const char *input, const char *const *argv) {
  const char *full[64];
  int n = 0;
  full[n++] = test_bin();
  for (; argv[n - 1] && n < 63; n++) full[n] = argv[n - 1];
  full[n] = NULL;
  int in = temp_fd(), out = temp_fd(), err = temp_fd();
  if (input) ck_assert(write(in, input, strlen(input)) == (ssize_t)strlen(input));
  lseek(in, 0, SEEK_SET);
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    alarm(RUN_LIMIT); /* kept across exec: a hung binary dies */
    execv(full[0], (char *const *)full);
    _exit(127);
  }
  close(in);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  slurp_fd(out, r->out, sizeof r->out);
  slurp_fd(err, r->err, sizeof r->err);
}

/* One refused command line: its status and what its message must name. */
typedef struct {
  const char *argv[16];
  int status;
  const char *want[4];
} refusal;

/* Checks every row; returns the number of rows that failed (each printed). */
static int check_refusals(const refusal *rows, int n) {
  int bad = 0;
  static run_result r;
  for (int i = 0; i < n; i++) {
    run(&r, NULL, rows[i].argv);
    char line[512];
    size_t at = 0;
    line[0] = 0;
    for (int k = 0; rows[i].argv[k] && at < sizeof line; k++)
      at += (size_t)snprintf(line + at, sizeof line - at, " [%s]", rows[i].argv[k]);
    const char *why = NULL;
    const char *nl = strchr(r.err, '\n');
    if (r.status != rows[i].status)
      why = "exit status";
    else if (!nl || nl[1] != 0)
      why = "not exactly one line on stderr";
    else if (r.out[0])
      why = "something on stdout";
    for (int k = 0; !why && k < 4 && rows[i].want[k]; k++)
      if (!strstr(r.err, rows[i].want[k])) why = rows[i].want[k];
    if (why) {
      fprintf(stderr, "sowzero%s: %s (exit %d, want %d)\n  stderr: %s\n  stdout: %.200s\n", line,
              why, r.status, rows[i].status, r.err, r.out);
      bad++;
    }
  }
  return bad;
}

#define N_ROWS(rows) (int)(sizeof rows / sizeof rows[0])
#define CHECK_ROWS(rows)                                                                         \
  do {                                                                                           \
    int failed_ = check_refusals(rows, N_ROWS(rows));                                            \
    ck_assert_msg(failed_ == 0, "%d of %d command lines not refused as they should be", failed_, \
                  N_ROWS(rows));                                                                 \
  } while (0)

START_TEST(dispatch_names_the_commands) {
  static const refusal rows[] = {
      {{NULL}, 2, {"missing COMMAND", "arena", "train"}},
      {{"nosuch"}, 2, {"unknown command 'nosuch'", "arena", "plot", "rules"}},
      {{"--bogus"}, 2, {"'--bogus'", "commands"}},
  };
  CHECK_ROWS(rows);
}
END_TEST

START_TEST(arena_refusals) {
  static const refusal rows[] = {
      {{"arena", "random", "greedy", "--gams", "2"}, 2, {"'--gams'", "--games"}},
      {{"arena", "random", "greedy", "--games"}, 2, {"--games needs a value", "2..100000000"}},
      {{"arena", "random", "greedy", "--games", "12abc"}, 2, {"'12abc'", "--games", "integer"}},
      {{"arena", "random", "greedy", "--games", "3"}, 2, {"'3'", "--games", "even"}},
      {{"arena", "random", "greedy", "--games", "0"}, 2, {"'0'", "--games"}},
      {{"arena", "random", "greedy", "--games", "99999999999"}, 2, {"'99999999999'", "--games"}},
      {{"arena", "random", "greedy", "--seed", "abc"}, 2, {"'abc'", "--seed", "integer"}},
      {{"arena", "random", "greedy", "--seed", "18446744073709551616"}, 2, {"--seed"}},
      {{"arena", "random", "greedy", "--seed", "-1"}, 2, {"'-1'", "--seed"}},
      {{"arena", "random", "greedy", "--prior-draws", "inf"}, 2, {"'inf'", "--prior-draws"}},
      {{"arena", "random", "greedy", "--prior-draws", "nan"}, 2, {"'nan'", "--prior-draws"}},
      {{"arena", "random", "greedy", "--prior-draws", "1e999"}, 2, {"'1e999'", "--prior-draws"}},
      {{"arena", "random", "greedy", "--threads", " 3"}, 2, {"' 3'", "--threads"}},
      {{"arena", "random", "greedy", "--threads", ""}, 2, {"--threads", "empty"}},
      {{"arena", "random", "greedy", "--games", "2", "--games", "4"}, 2, {"--games given twice"}},
      {{"arena", "random", "greedy", "--quiet", "--quiet"}, 2, {"--quiet given twice"}},
      {{"arena", "random", "greedy", "--gauntlet=yes"}, 2, {"--gauntlet", "no value"}},
      {{"arena", "random", "greedy", "--json", "--quiet"}, 2, {"--json needs a value", "--quiet"}},
      {{"arena", "random"}, 2, {"at least 2 AGENT"}},
      {{"arena", "random", "nosuch"}, 2, {"'nosuch'", "random, greedy"}},
      {{"arena", "--game", "nosuch", "random", "greedy"}, 2, {"'nosuch'", "oware", "kujifunza"}},
      {{"arena", "random", "greedy", "--set", "grand_slam=x"}, 2, {"grand_slam", "'x'"}},
      {{"arena", "random", "greedy", "--set", "grand_slam=loses", "--set", "grand_slam=forbidden"},
       2,
       {"--set grand_slam given twice"}},
      {{"arena", "random", "greedy", "--book-depth", "3"}, 2, {"--book-depth", "--openings"}},
      {{"arena", "random", "greedy", "--anchor", "0"}, 2, {"'0'", "--anchor"}},
      {{"arena", "random", "greedy", "--games", "4\n5"}, 2, {"--games", "4\\n5"}},
      {{"arena", "random", "greedy", "--clock", "0+1"}, 2, {"'0+1'", "--clock"}},
      {{"arena", "random", "greedy", "--time-grace", "1"}, 2, {"--time-grace", "--time-per-move"}},
  };
  CHECK_ROWS(rows);
}
END_TEST

START_TEST(stats_refusals) {
  static const refusal rows[] = {
      {{"stats", "--games", "0"}, 2, {"'0'", "--games"}},
      {{"stats", "--games", "1e3"}, 2, {"'1e3'", "--games"}},
      {{"stats", "--threads", "999"}, 2, {"'999'", "--threads", "1..256"}},
      {{"stats", "--seed", "1.5"}, 2, {"'1.5'", "--seed"}},
      {{"stats", "--seed", "7", "--seed", "8"}, 2, {"--seed given twice"}},
      {{"stats", "random", "random", "random"}, 2, {"unexpected argument 'random'"}},
      {{"stats", "nosuch"}, 2, {"'nosuch'"}},
      {{"stats", "--bogus"}, 2, {"'--bogus'", "--games"}},
      {{"stats", "--json"}, 2, {"--json needs a value"}},
      {{"stats", "--game", "nosuch"}, 2, {"'nosuch'", "oware"}},
  };
  CHECK_ROWS(rows);
}
END_TEST

START_TEST(bench_refusals) {
  static const refusal rows[] = {
      {{"bench", "nosuch"}, 2, {"unknown benchmark 'nosuch'", "engine", "search"}},
      {{"bench", "engine", "--seconds", "abc"}, 2, {"'abc'", "--seconds"}},
      {{"bench", "engine", "--seconds", "inf"}, 2, {"'inf'", "--seconds"}},
      {{"bench", "engine", "--seconds", "0"}, 2, {"'0'", "--seconds"}},
      {{"bench", "engine", "--games", "-5"}, 2, {"'-5'", "--games"}},
      {{"bench", "engine", "--games", "10k"}, 2, {"'10k'", "--games"}},
      {{"bench", "engine", "--reps", "100"}, 2, {"'100'", "--reps", "1..99"}},
      {{"bench", "engine", "--game", "nosuch"}, 2, {"'nosuch'", "oware"}},
      {{"bench", "engine", "--bogus"}, 2, {"'--bogus'", "--seconds"}},
      {{"bench", "engine", "extra"}, 2, {"unexpected argument 'extra'"}},
      {{"bench", "nn", "--hidden", "0"}, 2, {"'0'", "--hidden"}},
      {{"bench", "nn", "--seconds", "nan"}, 2, {"'nan'", "--seconds"}},
      {{"bench", "nn", "--reps"}, 2, {"--reps needs a value"}},
      {{"bench", "search", "--sims", "12abc"}, 2, {"'12abc'", "--sims"}},
      {{"bench", "search", "--batches", "1,,2"}, 2, {"'1,,2'", "--batches"}},
      {{"bench", "search", "--batches", "1,2,3,4,5,6,7,8,9"}, 2, {"--batches", "at most 8"}},
      {{"bench", "search", "--batches", "16x"}, 2, {"'16x'", "--batches"}},
      {{"bench", "search", "--no-nn=1"}, 2, {"--no-nn", "no value"}},
      {{"bench", "search", "--threads", "0"}, 2, {"'0'", "--threads", "1..64"}},
      {{"bench", "search", "--threads", "1,,2"}, 2, {"'1,,2'", "--threads"}},
      {{"bench", "search", "--leaves", "65"}, 2, {"'65'", "--leaves"}},
      {{"bench", "all", "--reps", "3"}, 2, {"--reps", "one benchmark"}},
      {{"bench", "selfplay", "--precision", "fp16"}, 2, {"'fp16'", "--precision"}},
      {{"bench", "selfplay", "--seconds", "0"}, 2, {"'0'", "--seconds"}},
      {{"bench", "selfplay", "--config", "/nonexistent.ini"}, 2, {"/nonexistent.ini"}},
      {{"bench", "--json", "engine"}, 2, {"'engine'", "comes first"}},
      {{"bench", "nn", "--run", "/nonexistent/run"}, 1, {"/nonexistent/run/config.ini"}},
      {{"bench", "nn", "--run", "x", "--positions", "0"}, 2, {"'0'", "--positions"}},
      {{"bench", "nn", "--weights", "/nonexistent/w.weights"}, 1, {"/nonexistent/w.weights"}},
      {{"bench", "selfplay", "--weights", "/nonexistent/w.weights"}, 1, {"/nonexistent/w.weights"}},
      {{"bench", "selfplay", "--weights", "models/namnam.weights"}, 1, {"'namnam'", "'oware'"}},
      {{"bench", "nn", "--weights", "models/oware.weights", "--hidden", "64"},
       2,
       {"--hidden", "--weights"}},
  };
  CHECK_ROWS(rows);
}
END_TEST

START_TEST(play_demo_engine_refusals) {
  static const refusal rows[] = {
      {{"demo", "--seed", "abc"}, 2, {"'abc'", "--seed"}},
      {{"demo", "--seed", "99999999999999999999"}, 2, {"--seed"}},
      {{"demo", "a.ini", "b.ini"}, 2, {"unexpected argument 'b.ini'"}},
      {{"demo", "--south"}, 2, {"--south needs a value"}},
      {{"demo", "--south", "nosuch"}, 2, {"--south", "'nosuch'"}},
      {{"demo", "--bogus"}, 2, {"'--bogus'", "--south"}},
      {{"demo", "/nonexistent/x.ini"}, 1, {"/nonexistent/x.ini"}},
      {{"engine", "--seed", "abc"}, 2, {"'abc'", "--seed"}},
      {{"engine", "extra"}, 2, {"unexpected argument 'extra'"}},
      {{"engine", "--seed", "1", "--seed", "2"}, 2, {"--seed given twice"}},
      {{"play", "--side", "east"}, 2, {"'east'", "--side", "south, north"}},
      {{"play", "--seed", "abc"}, 2, {"'abc'", "--seed"}},
      {{"play", "--game", "nosuch"}, 2, {"'nosuch'", "oware"}},
      {{"play", "--agent", "nosuch"}, 2, {"--agent", "'nosuch'"}},
      {{"play", "extra"}, 2, {"unexpected argument 'extra'"}},
      {{"play", "--set", "houses"}, 2, {"'houses'", "KEY=VALUE"}},
      {{"play", "--set", "houses=99"}, 2, {"houses", "99"}},
      /* --egdb reaches the agents as a value: egdb=on looks there. */
      {{"play", "--egdb", "/no/such/egdb", "--agent", "alphabeta egdb=on"},
       2,
       {"egdb=on", "/no/such/egdb"}},
      {{"arena", "--egdb", "/no/such/egdb", "random", "egdb else=greedy"},
       2,
       {"dir=on", "/no/such/egdb"}},
      {{"study", "--egdb", "/no/such/egdb", "--agent", "mcts egdb=on", "--variants", "oware",
        "configs/oware.ini"},
       2,
       {"egdb=on", "/no/such/egdb"}},
  };
  CHECK_ROWS(rows);
}
END_TEST

START_TEST(train_export_rules_refusals) {
  char anchors[400], quoted[300], out_x[300];
  snprintf(anchors, sizeof anchors, "eval.anchors=%0300d", 0);
  /* A folder that holds no config.ini, and an --out never written. */
  snprintf(quoted, sizeof quoted, "'%s'", test_tmp());
  snprintf(out_x, sizeof out_x, "%s/sowzero-cli-x", test_tmp());
  refusal rows[] = {
      {{"train"}, 2, {"missing CONFIG", "--run"}},
      {{"train", "--run", "/nonexistent/sowzero-run"},
       2,
       {"--run", "/nonexistent/sowzero-run", "CONFIG"}},
      {{"train", "--run", test_tmp()}, 2, {"--run", quoted, "no config.ini"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--minutes", "abc"},
       2,
       {"--minutes", "'abc'"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--minutes", "inf"},
       2,
       {"--minutes", "'inf'"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--iterations", "1.5"},
       2,
       {"--iterations", "'1.5'"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--set", "foo"},
       2,
       {"'foo'", "SECTION.KEY=VALUE"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--egdb", "/x", "--set",
        "egdb.dir=/y"},
       2,
       {"--set egdb.dir and --egdb", "give one"}},
      /* --egdb is egdb.dir, and the anchors' egdb=on is checked there. */
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--egdb", "/no/such/egdb", "--set",
        "eval.anchors=alphabeta egdb=on"},
       2,
       {"eval.anchors", "egdb=on (/no/such/egdb)"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--set", anchors},
       2,
       {"eval.anchors", "300 characters", "255"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--set", "run.minutes=1", "--set",
        "run.minutes=2"},
       2,
       {"run.minutes given twice"}},
      {{"train", "configs/tiny.ini", "--run", "/nonexistent/r", "--set", "run.seed=x"},
       2,
       {"run.seed", "'x'"}},
      {{"train", "a.ini", "b.ini"}, 2, {"unexpected argument 'b.ini'"}},
      {{"train", "--keys", "configs/tiny.ini"}, 2, {"--keys"}},
      {{"train", ".ini"}, 2, {"'.ini'", "--run"}},
      {{"export"}, 2, {"usage: sowzero export"}},
      {{"export", "x.weights", "--format", "xml", "--out", out_x}, 2, {"'xml'", "--format"}},
      {{"export", "a", "b", "--format", "onnx", "--out", out_x}, 2, {"unexpected argument 'b'"}},
      {{"export", "x.weights", "--format", "onnx"}, 2, {"--out"}},
      {{"export", "x.weights", "--format", "onnx", "--out"}, 2, {"--out needs a value"}},
      {{"rules", "nosuch"}, 2, {"unknown game 'nosuch'", "oware", "kujifunza", "abapa"}},
      {{"rules", "oware", "extra"}, 2, {"unexpected argument 'extra'"}},
      {{"rules", "--bogus"}, 2, {"'--bogus'"}},
  };
  CHECK_ROWS(rows);
}
END_TEST

/* Every subcommand's --help: usage on stdout, nothing on stderr, status 0. */
START_TEST(help_everywhere) {
  static const char *const cmds[][3] = {{"arena", "--help"},   {"stats", "-h"},
                                        {"bench", "--help"},   {"bench", "engine", "-h"},
                                        {"bench", "nn", "-h"}, {"bench", "search", "--help"},
                                        {"demo", "--help"},    {"engine", "--help"},
                                        {"play", "--help"},    {"plot", "--help"},
                                        {"train", "--help"},   {"export", "--help"},
                                        {"rules", "--help"},   {"--help"}};
  static run_result r;
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    run(&r, NULL, (const char *const *)cmds[i]);
    ck_assert_msg(r.status == 0 && !r.err[0] && strstr(r.out, "usage: sowzero"),
                  "sowzero %s %s: exit %d, stderr '%s', stdout '%.100s'", cmds[i][0],
                  cmds[i][1] ? cmds[i][1] : "", r.status, r.err, r.out);
  }
  /* A default the help spells out itself is not contradicted by the table's. */
  static const char *const sp[] = {"bench", "selfplay", "--help", NULL};
  run(&r, NULL, sp);
  ck_assert_msg(r.status == 0 &&
                    strstr(r.out, "(default: the config's) (an integer 1..64 or auto)\n") &&
                    !strstr(r.out, "(default configs/oware.ini) (default"),
                "%s", r.out);
  static const char *const study[] = {"study", "--help", NULL};
  run(&r, NULL, study);
  ck_assert_msg(r.status == 0 && strstr(r.out, "(default RUN/study, or study/)\n"), "%s", r.out);
}
END_TEST

static char tmp[256];

static void make_tmp(void) { scratch_dir(tmp, sizeof tmp, "cli"); }

/* mkdir -p: the components of a name that holds slashes. */
static void make_dirs(const char *path) {
  char buf[1200];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(buf, 0755);
      *p = '/';
    }
  ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST, "%s", buf);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* A run directory named to break a shell or a gnuplot script: nothing runs,
 * and it plots (or says gnuplot is missing). */
static const char metrics_gated[] =
    "{\"iteration\": 1, \"time_min\": 1.0, \"loss\": {\"total\": 2.1, \"policy\": 1.5, "
    "\"value\": 0.6}, \"gating\": {\"score\": 0.6}}\n"
    "{\"iteration\": 2, \"time_min\": 2.0, \"loss\": {\"total\": 2.0, \"policy\": 1.4, "
    "\"value\": 0.6}, \"gating\": {\"score\": 0.5}}\n";

/* Removes a run directory made by make_dirs and what plot left in it. */
static void remove_run(char *dir) {
  char f[1200];
  const char *files[] = {"metrics.jsonl", "plot.dat", "plot.gp", "progress.png"};
  for (int i = 0; i < 4; i++) {
    snprintf(f, sizeof f, "%s/%s", dir, files[i]);
    unlink(f);
  }
  for (char *p = dir + strlen(dir); p > dir + strlen(tmp); p--)
    if (*p == '/' || !p[0]) {
      *p = 0;
      rmdir(dir);
    }
}

/* Plots dir (and --out png if given); checks the marker was not made and
 * that it plotted, or said gnuplot is missing. Returns 1 if it drew. */
static int plot_safely(run_result *r, const char *dir, const char *png, const char *marker) {
  const char *argv[] = {"plot", dir, png ? "--out" : NULL, png, NULL};
  run(r, NULL, argv);
  ck_assert_msg(access(marker, F_OK) != 0, "a command in the run's name or --out ran");
  if (strstr(r->err, "gnuplot is not installed")) {
    ck_assert_int_eq(r->status, 1);
    return 0;
  }
  ck_assert_msg(r->status == 0, "exit %d: %s", r->status, r->err);
  return 1;
}

/* Run directories named to break a shell or a gnuplot script: nothing runs,
 * and it plots (or says gnuplot is missing). */
START_TEST(plot_runs_no_shell) {
  make_tmp();
  static run_result r;
  char marker[300], dir[1000], path[1100], png[1100];
  snprintf(marker, sizeof marker, "%s-pwned", tmp);
  /* The names hold `$(touch MARKER)`: their slashes make nested folders. */
  snprintf(dir, sizeof dir, "%s/run'$(touch %s)'x", tmp, marker);
  make_dirs(dir);
  snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
  write_file(path, metrics_gated);
  if (plot_safely(&r, dir, NULL, marker)) {
    /* No evaluations: said, not blamed on gnuplot. */
    ck_assert_msg(strstr(r.err, "no evaluations yet"), "%s", r.err);
    snprintf(png, sizeof png, "%s/progress.png", dir);
    ck_assert_int_eq(access(png, F_OK), 0);
  }
  remove_run(dir);
  /* Quotes, a backquote and a newline: the gnuplot script stays whole. */
  snprintf(dir, sizeof dir, "%s/run\"'`touch %s`\n'x", tmp, marker);
  make_dirs(dir);
  snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
  write_file(path, metrics_gated);
  plot_safely(&r, dir, NULL, marker);
  /* An anchor whose spec holds quotes is only a string to gnuplot. */
  char anchor_line[1400];
  snprintf(anchor_line, sizeof anchor_line,
           "{\"iteration\": 1, \"time_min\": 1.0, \"loss\": {\"total\": 2.1, \"policy\": 1.5, "
           "\"value\": 0.6}, \"eval\": {\"alphabeta depth=2 ' `touch %s` \\\"\": "
           "{\"elo\": 10}}}\n",
           marker);
  write_file(path, anchor_line);
  snprintf(png, sizeof png, "%s/out'$(touch %s)'.png", tmp, marker);
  make_dirs(png);
  rmdir(png);
  if (plot_safely(&r, dir, png, marker)) {
    ck_assert_int_eq(access(png, F_OK), 0);
    ck_assert_msg(strstr(r.err, "no gating results yet"), "%s", r.err);
  }
  unlink(png);
  remove_run(png);
  remove_run(dir);
  /* Missing things are named. */
  char empty[400];
  snprintf(empty, sizeof empty, "%s/empty", tmp);
  mkdir(empty, 0755);
  refusal rows[] = {
      {{"plot"}, 2, {"missing RUN"}},
      {{"plot", "a", "b"}, 2, {"unexpected argument 'b'"}},
      {{"plot", "/nonexistent/run"}, 1, {"'/nonexistent/run'", "does not exist"}},
      {{"plot", empty}, 1, {empty, "no metrics.jsonl"}},
      {{"plot", empty, "--out"}, 2, {"--out needs a value"}},
  };
  CHECK_ROWS(rows);
  snprintf(path, sizeof path, "%s/metrics.jsonl", empty);
  write_file(path, "");
  refusal none[] = {{{"plot", empty}, 1, {"metrics.jsonl", "no iterations"}}};
  CHECK_ROWS(none);
  unlink(path);
  snprintf(path, sizeof path, "%s/plot.dat", empty);
  unlink(path);
  rmdir(empty);
  ck_assert_int_eq(remove_tree(tmp), 0);
}
END_TEST

/* The board's own language: absolute pit labels for the agent's moves and
 * the legal moves, move names in Kujifunza, and the same labels read back. */
START_TEST(moves_in_board_terms) {
  char name[32];
  game g;
  char err[256];
  ck_assert_int_eq(game_configure(&g, "oware", 0, NULL, err, sizeof err), 0);
  ck_assert_int_eq(game_move_label(&g, GAME_NORTH, 0, name, sizeof name), 0);
  ck_assert_str_eq(name, "6");
  ck_assert_int_eq(game_move_label(&g, GAME_SOUTH, 5, name, sizeof name), 0);
  ck_assert_str_eq(name, "5");
  ck_assert_int_eq(game_configure(&g, "namnam", 0, NULL, err, sizeof err), 0);
  ck_assert_int_eq(game_move_label(&g, GAME_NORTH, 7, name, sizeof name), 0);
  ck_assert_str_eq(name, "1");
  ck_assert_int_eq(game_configure(&g, "kujifunza", 0, NULL, err, sizeof err), 0);
  ck_assert_int_eq(game_move_label(&g, GAME_NORTH, 6, name, sizeof name), 0);
  ck_assert_str_eq(name, "b6ccw");

  static run_result r;
  /* North: the agent opens from South's pits, the person picks a North pit. */
  const char *north[] = {"play", "--side", "north", "--agent", "alphabeta depth=2", NULL};
  run(&r, "0\n7\nq\n", north);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.out, "legal moves: 6 7 8 9 10 11"), "%s", r.out);
  ck_assert_msg(strstr(r.out, "'0' is not a legal move here; legal moves: 6 7 8 9 10 11"), "%s",
                r.out);
  const char *p = strstr(r.out, "alphabeta depth=2 plays ");
  ck_assert_msg(p, "%s", r.out);
  int pit = atoi(p + strlen("alphabeta depth=2 plays "));
  ck_assert_msg(pit >= 0 && pit <= 5, "South's move named %d", pit);
  /* After the person's 7 the agent answers with a South pit again. */
  ck_assert_msg(strstr(strstr(r.out, "your move> ") + 1, "alphabeta depth=2 plays "), "%s", r.out);
  /* South in Kujifunza: names listed and read back. */
  const char *kuji[] = {"play", "--game", "kujifunza", NULL};
  run(&r, "6\nb6ccw\nq\n", kuji);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.out, "legal moves: ") && strstr(r.out, "b6ccw"), "%s", r.out);
  ck_assert_msg(strstr(r.out, "'6' is not a legal move here"), "%s", r.out);
  ck_assert_msg(strstr(r.out, "greedy plays ") && strstr(strstr(r.out, "greedy plays "), "cw"),
                "%s", r.out);
  /* The demo names North's moves by North's pits. */
  const char *demo[] = {"demo", "--seed", "3", NULL};
  run(&r, NULL, demo);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  int seen = 0;
  for (p = r.out; (p = strstr(p, "North (random) plays ")); p++, seen++) {
    pit = atoi(p + strlen("North (random) plays "));
    ck_assert_msg(pit >= 6 && pit <= 11, "North's move named %d", pit);
  }
  ck_assert(seen > 0);
}
END_TEST

START_TEST(good_lines_still_work) {
  static run_result r;
  const char *bench[] = {"bench",  "engine", "--json", "--seconds=0.01", "--games", "100",
                         "--reps", "1",      NULL};
  run(&r, NULL, bench);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  int lines = 0;
  for (const char *p = r.out; (p = strstr(p, "{\"bench\": \"engine\", \"figure\": ")); p++) lines++;
  ck_assert_int_eq(lines, 4);
  ck_assert_ptr_nonnull(strstr(r.out, "\"figure\": \"signature_plies\""));
  ck_assert_ptr_nonnull(strstr(r.out, "\"game\": \"oware\", \"games\": 100, \"seed\": 1}"));

  const char *rules[] = {"rules", NULL};
  run(&r, NULL, rules);
  ck_assert_msg(r.status == 0 && strstr(r.out, "kujifunza") && strstr(r.out, "presets:"), "%s",
                r.err);
  /* A preset stands for its game. */
  const char *preset[] = {"rules", "abapa", NULL};
  run(&r, NULL, preset);
  ck_assert_msg(r.status == 0 && strstr(r.out, "grand_slam") && !strstr(r.out, "kujifunza"), "%s%s",
                r.out, r.err);
  /* The key column is as wide as the game's longest key. */
  const char *bao[] = {"rules", "bao-kenya", NULL};
  run(&r, NULL, bao);
  ck_assert_msg(r.status == 0 && strstr(r.out, "\n  sow_both_stores no* | yes\n") &&
                    strstr(r.out, "\n  seeds           1..6 (default 3)\n"),
                "%s", r.out);

  const char *arena[] = {"arena", "random", "greedy", "--games", "2", "--quiet", NULL};
  run(&r, NULL, arena);
  ck_assert_msg(r.status == 0 && strstr(r.out, "ratings"), "exit %d: %s", r.status, r.err);
  const char *arena_eq[] = {"arena", "--games=2", "--quiet", "--", "random", "greedy", NULL};
  run(&r, NULL, arena_eq);
  ck_assert_msg(r.status == 0 && strstr(r.out, "ratings"), "exit %d: %s", r.status, r.err);
}
END_TEST

/* bench selfplay on the tiny config: every line parses, every figure is
 * there for each precision, and the figures are in range. */
START_TEST(bench_selfplay_json) {
  static run_result r;
  const char *argv[] = {"bench",
                        "selfplay",
                        "--json",
                        "--config",
                        "configs/tiny.ini",
                        "--seconds",
                        test_scale() < 1 ? "4" : "1",
                        NULL};
  run(&r, NULL, argv);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  static const char *const figures[] = {
      "games_per_h",      "evals_per_s",   "samples_per_s", "steps_per_s",   "cores_used",
      "threads_runnable", "share_network", "share_search",  "share_learner", NULL};
  int seen[2][9] = {{0}}, lines = 0, ratios = 0, system = 0;
  char *save = NULL;
  for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char err[256];
    json_doc *d = json_parse(line, err, sizeof err);
    ck_assert_msg(d != NULL, "not JSON (%s): %s", err, line);
    double v;
    const char *fig = json_get_string(d, 0, "figure"), *prec = json_get_string(d, 0, "precision");
    ck_assert_msg(fig && json_get_number(d, 0, "value", &v) == 0 && json_get_string(d, 0, "cpu"),
                  "%s", line);
    lines++;
    if (!strncmp(fig, "bf16_fp32_", 10)) {
      /* As below: under a sanitizer no game may finish, so only the
       * evaluations' ratio must be positive there. */
      int positive = !strstr(fig, "games") || test_scale() >= 1;
      ck_assert_msg(positive ? v > 0 : v >= 0, "%s", line);
      ratios++;
    }
    if (!strcmp(fig, "blas_core_level")) { /* the machine: OpenBLAS's core and the kernels */
      ck_assert_msg(json_get(d, 0, "blas") >= 0 && json_get(d, 0, "kernels") >= 0, "%s", line);
      system++;
    }
    for (int k = 0; prec && figures[k]; k++) {
      if (strcmp(fig, figures[k])) continue;
      seen[!strcmp(prec, "bf16")][k]++;
      /* Under a sanitizer a game may not finish in the time: only the
       * evaluations and the cores must be positive. */
      int positive = k == 1 || k == 4 || k == 5 || (k == 0 && test_scale() >= 1);
      ck_assert_msg(positive ? v > 0 : v >= 0, "%s", line);
      if (k >= 4) ck_assert_msg(v <= (k <= 5 ? 64 : 1), "%s", line);
    }
    json_free(d);
  }
  int precisions = nn_bf16_supported() ? 2 : 1;
  for (int p = 0; p < precisions; p++)
    for (int k = 0; figures[k]; k++) ck_assert_msg(seen[p][k] == 1, "%s missing", figures[k]);
  ck_assert_int_eq(ratios, precisions == 2 ? 2 : 0);
  ck_assert_int_eq(system, 1);
  ck_assert_int_eq(lines, 9 * precisions + ratios + system);
}
END_TEST

static Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, dispatch_names_the_commands);
  tcase_add_test(t, arena_refusals);
  tcase_add_test(t, stats_refusals);
  tcase_add_test(t, bench_refusals);
  tcase_add_test(t, play_demo_engine_refusals);
  tcase_add_test(t, train_export_rules_refusals);
  tcase_add_test(t, help_everywhere);
  tcase_add_test(t, plot_runs_no_shell);
  tcase_add_test(t, moves_in_board_terms);
  tcase_add_test(t, good_lines_still_work);
  tcase_add_test(t, bench_selfplay_json);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(cli_suite)

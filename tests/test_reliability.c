/* The classes of docs/RELIABILITY.md's "Hardening" section, each beyond
 * its first example:
 *   - a full disk never loses a good file, and a failed write names the
 *     file and the system's reason (an injected full disk, which always
 *     works, and a small tmpfs where this process may mount one);
 *   - a command that states what it needs checks it first;
 *   - overrides are checked together with the file, located by argument;
 *   - the protocol's comment rule never cuts a token;
 *   - accepted ranges finish (or give up with a reason);
 *   - text echoed to a client or a terminal is escaped.
 * The binary runs without a shell ($SOWZERO_BIN or build/sowzero), each
 * run under an alarm. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "egdb/egdb.h"
#include "protocol/protocol.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

#define RUN_LIMIT 60 /* seconds before the alarm kills a run: it hung */

static char out[32768];
static const char *stdin_text; /* what run feeds on stdin; NULL: nothing */

/* Runs `sowzero ARGV...` with the environment settings env ("K=V", NULL
 * ended; NULL for none); stdout and stderr together in out. The exit
 * status, -1 if killed. */
static int run(char *const *env, char *const *argv) {
  char *full[64];
  int n = 0;
  full[n++] = (char *)test_bin();
  while (argv[n - 1] && n < 63) {
    full[n] = argv[n - 1];
    n++;
  }
  full[n] = NULL;
  char name[300];
  snprintf(name, sizeof name, "%s/sowzero-rel-XXXXXX", test_tmp());
  int fd = mkstemp(name);
  ck_assert(fd >= 0);
  unlink(name);
  int in = open("/dev/null", O_RDONLY);
  if (stdin_text) {
    snprintf(name, sizeof name, "%s/sowzero-rel-XXXXXX", test_tmp());
    close(in);
    in = mkstemp(name);
    ck_assert(in >= 0);
    unlink(name);
    ck_assert(write(in, stdin_text, strlen(stdin_text)) == (ssize_t)strlen(stdin_text));
    lseek(in, 0, SEEK_SET);
  }
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    for (int i = 0; env && env[i]; i++) putenv(env[i]);
    dup2(in, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    alarm(RUN_LIMIT);
    execv(full[0], full);
    _exit(127);
  }
  close(in);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  lseek(fd, 0, SEEK_SET);
  ssize_t r = read(fd, out, sizeof out - 1);
  out[r > 0 ? r : 0] = 0;
  close(fd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define ARGS(...) ((char *const[]){__VA_ARGS__, NULL})

/* A whole PNG of about `pad` bytes more than the smallest: the signature,
 * IHDR, a tEXt chunk of pad bytes, IDAT and IEND (a 1x1 picture). */
static void write_png(const char *path, size_t pad) {
  static const unsigned char head[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0,   0, 0, 13,
                                       'I',  'H', 'D', 'R', 0,    0,    0,    1,    0,   0, 0, 1,
                                       8,    6,   0,   0,   0,    0x1f, 0x15, 0xc4, 0x89};
  static const unsigned char tail[] = {0, 0, 0,   10,  'I', 'D', 'A',  'T',  0x78, 0x9c, 0x63, 0,
                                       1, 0, 0,   5,   0,   1,   0x0d, 0x0a, 0x2d, 0xb4, 0,    0,
                                       0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(head, 1, sizeof head, f);
  if (pad) {
    unsigned char len[4] = {(unsigned char)(pad >> 24), (unsigned char)(pad >> 16),
                            (unsigned char)(pad >> 8), (unsigned char)pad};
    fwrite(len, 1, 4, f);
    fputs("tEXt", f);
    for (size_t i = 0; i < pad; i++) fputc(i ? 'x' : 'C', f);
    fwrite("\0\0\0\0", 1, 4, f); /* the CRC: not checked */
  }
  fwrite(tail, 1, sizeof tail, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* A gnuplot stand-in in dir/bin: writes the first $FAKE_CUT bytes of
 * $FAKE_PNG to its output (ARG1 of `gnuplot -c SCRIPT OUT ...`) and exits
 * 0 whatever happened, as gnuplot does after a short write. */
static void fake_gnuplot(const char *dir) {
  char path[600];
  snprintf(path, sizeof path, "%s/bin", dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/bin/gnuplot", dir);
  put_file(path, "#!/bin/sh\nhead -c \"$FAKE_CUT\" \"$FAKE_PNG\" > \"$3\"\nexit 0\n");
  ck_assert_int_eq(chmod(path, 0755), 0);
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The number of afile temporaries left in dir. */
static int temporaries(const char *dir) {
  int n = 0;
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  for (struct dirent *e; (e = readdir(d));) n += afile_is_temporary(e->d_name, NULL);
  closedir(d);
  return n;
}

static const char metrics[] =
    "{\"iteration\": 1, \"time_min\": 1.0, \"loss\": {\"total\": 2.1, \"policy\": 1.5, "
    "\"value\": 0.6}, \"gating\": {\"score\": 0.6}}\n"
    "{\"iteration\": 2, \"time_min\": 2.0, \"loss\": {\"total\": 2.0, \"policy\": 1.4, "
    "\"value\": 0.6}, \"gating\": {\"score\": 0.5}}\n";

/* Mounts a tmpfs of `kib` KiB at dir, in a mount namespace of this test's
 * own (Check runs each test in a process of its own), so that it goes
 * when the test ends, failed or not; 0 where this process may not. */
static int small_fs(const char *dir, int kib) {
  char opt[32];
  snprintf(opt, sizeof opt, "size=%dk", kib);
  if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount("tmpfs", dir, "tmpfs", 0, opt) != 0) {
    fprintf(stderr, "note: no tmpfs of %d KiB (%s): the small file system part is skipped\n", kib,
            strerror(errno));
    return 0;
  }
  return 1;
}

/* `plot` whose picture comes back cut, empty, or on a full disk: the good
 * picture stays, the exit status says so, and no temporary is left. */
START_TEST(plot_keeps_a_good_picture) {
  char dir[300], run_dir[400], png[500], good[500], src[500], path[600], bin[600];
  scratch_dir(dir, sizeof dir, "rel-plot");
  fake_gnuplot(dir);
  snprintf(run_dir, sizeof run_dir, "%s/run", dir);
  mkdir(run_dir, 0755);
  snprintf(path, sizeof path, "%s/metrics.jsonl", run_dir);
  put_file(path, metrics);
  snprintf(png, sizeof png, "%s/progress.png", run_dir);
  snprintf(good, sizeof good, "%s/good.png", dir);
  snprintf(src, sizeof src, "%s/new.png", dir);
  write_png(good, 30000);
  write_png(src, 30000);
  char env_path[1200], env_png[600], env_cut[32];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  snprintf(env_path, sizeof env_path, "PATH=%s:%s", bin, getenv("PATH") ? getenv("PATH") : "");
  snprintf(env_png, sizeof env_png, "FAKE_PNG=%s", src);
  /* A whole picture replaces the old one. */
  snprintf(env_cut, sizeof env_cut, "FAKE_CUT=%ld", file_size(src));
  ck_assert_int_eq(run(ARGS(env_path, env_png, env_cut), ARGS("plot", run_dir)), 0);
  ck_assert(same_bytes(png, src));
  /* Cut pictures, and an empty one, with gnuplot's exit status 0. */
  const long cuts[] = {file_size(src) - 12, file_size(src) / 2, 9, 0};
  for (int i = 0; i < 4; i++) {
    copy_file(good, png);
    snprintf(env_cut, sizeof env_cut, "FAKE_CUT=%ld", cuts[i]);
    int rc = run(ARGS(env_path, env_png, env_cut), ARGS("plot", run_dir));
    ck_assert_msg(rc == 1, "cut at %ld: exit %d: %s", cuts[i], rc, out);
    ck_assert_msg(strstr(out, "progress.png") && strstr(out, "not a whole PNG"), "%s", out);
    ck_assert_msg(same_bytes(png, good), "cut at %ld: the good picture was replaced", cuts[i]);
    ck_assert_int_eq(temporaries(run_dir), 0);
  }
  /* A full disk under the data file (injected): its reason, the old data kept. */
  char data[500], old_data[500];
  snprintf(data, sizeof data, "%s/plot.dat", run_dir);
  snprintf(old_data, sizeof old_data, "%s/plot.dat.old", dir);
  copy_file(data, old_data);
  int rc = run(ARGS("SOWZERO_FAIL_WRITE=plot.dat:10"), ARGS("plot", run_dir));
  ck_assert_msg(rc == 1, "exit %d: %s", rc, out);
  ck_assert_msg(strstr(out, "plot.dat: write failed: No space left on device"), "%s", out);
  ck_assert(same_bytes(data, old_data));
  ck_assert_int_eq(temporaries(run_dir), 0);
  /* A real small file system: the old picture fits, a second copy not. */
  char fs[400];
  snprintf(fs, sizeof fs, "%s/small", dir);
  mkdir(fs, 0755);
  if (small_fs(fs, 48)) {
    char small_run[500], small_png[600];
    snprintf(small_run, sizeof small_run, "%s/run", fs);
    mkdir(small_run, 0755);
    snprintf(path, sizeof path, "%s/metrics.jsonl", small_run);
    put_file(path, metrics);
    snprintf(small_png, sizeof small_png, "%s/progress.png", small_run);
    copy_file(good, small_png);
    snprintf(env_cut, sizeof env_cut, "FAKE_CUT=%ld", file_size(src));
    rc = run(ARGS(env_path, env_png, env_cut), ARGS("plot", small_run));
    ck_assert_msg(rc == 1 && strstr(out, "not a whole PNG"), "exit %d: %s", rc, out);
    ck_assert(same_bytes(small_png, good));
    ck_assert_int_eq(temporaries(small_run), 0);
    /* gnuplot itself, where it is installed, on the same full disk. */
    rc = run(NULL, ARGS("plot", small_run));
    if (!strstr(out, "gnuplot is not installed")) {
      ck_assert_msg(rc == 1, "exit %d: %s", rc, out);
      ck_assert(same_bytes(small_png, good));
      ck_assert_int_eq(temporaries(small_run), 0);
    }
    ck_assert_int_eq(umount2(fs, MNT_DETACH), 0);
  }
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* `study` whose pictures come back cut: none reaches a final name, the
 * report says why, the report and data files are whole. */
START_TEST(study_writes_no_cut_picture) {
  char dir[300], src[500], st[500], bin[600], path[700];
  scratch_dir(dir, sizeof dir, "rel-study");
  fake_gnuplot(dir);
  snprintf(src, sizeof src, "%s/new.png", dir);
  write_png(src, 30000);
  snprintf(st, sizeof st, "%s/study", dir);
  char env_path[1200], env_png[600];
  snprintf(bin, sizeof bin, "%s/bin", dir);
  snprintf(env_path, sizeof env_path, "PATH=%s:%s", bin, getenv("PATH") ? getenv("PATH") : "");
  snprintf(env_png, sizeof env_png, "FAKE_PNG=%s", src);
  char *argv[] = {"study",  "configs/tiny.ini", "--variants", "oware; abapa", "--agent",
                  "random", "--games",          "4",          "--out",        st,
                  NULL};
  const char *cuts[] = {"FAKE_CUT=3000", "FAKE_CUT=0"};
  const char *pngs[] = {"score.png", "lengths.png", "endings.png", "openings.png"};
  for (int i = 0; i < 2; i++) {
    int rc = run(ARGS(env_path, env_png, (char *)cuts[i]), argv);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, out);
    ck_assert_msg(strstr(out, "plots skipped") && strstr(out, "not a whole PNG"), "%s", out);
    for (int k = 0; k < 4; k++) {
      snprintf(path, sizeof path, "%s/%s", st, pngs[k]);
      ck_assert_msg(access(path, F_OK) != 0, "%s: a cut picture under its final name", path);
    }
    ck_assert_int_eq(temporaries(st), 0);
  }
  /* A full disk under the report: its reason, no report.md. */
  int rc = run(ARGS(env_path, env_png, "FAKE_CUT=0", "SOWZERO_FAIL_WRITE=report.md:100"), argv);
  ck_assert_msg(rc == 1 && strstr(out, "report.md: write failed: No space left on device"),
                "exit %d: %s", rc, out);
  ck_assert_int_eq(temporaries(st), 0);
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* A training run on a full disk names the file and the reason. */
START_TEST(train_names_the_reason) {
  char dir[300], run_dir[400];
  scratch_dir(dir, sizeof dir, "rel-train");
  snprintf(run_dir, sizeof run_dir, "%s/run", dir);
  const char *files[] = {"SOWZERO_FAIL_WRITE=best.weights", "SOWZERO_FAIL_WRITE=config.ini:20"};
  const char *names[] = {"best.weights: write failed: No space left on device",
                         "config.ini: write failed: No space left on device"};
  for (int i = 0; i < 2; i++) {
    remove_tree(run_dir);
    int rc = run(ARGS((char *)files[i]),
                 ARGS("train", "configs/tiny.ini", "--run", run_dir, "--iterations", "1", "--set",
                      "network.hidden=16", "--set", "selfplay.games_per_thread=4"));
    ck_assert_msg(rc == 1 && strstr(out, names[i]), "exit %d: %s", rc, out);
  }
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* arena's results and records on a full disk: each file named with the
 * reason, the earlier file kept. */
START_TEST(arena_files_on_a_full_disk) {
  char dir[300], path[400];
  scratch_dir(dir, sizeof dir, "rel-arena");
  const char *opts[] = {"--json", "--csv", "--records"};
  const char *names[] = {"out.json", "out.csv", "games.txt"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    put_file(path, "earlier");
    char env[64], want[128];
    snprintf(env, sizeof env, "SOWZERO_FAIL_WRITE=%s:40", names[i]);
    snprintf(want, sizeof want, "%s: write failed: No space left on device", names[i]);
    int rc = run(ARGS(env), ARGS("arena", "--games", "4", "--quiet", (char *)opts[i], path,
                                 "greedy", "random"));
    ck_assert_msg(rc == 1 && strstr(out, want), "%s: exit %d: %s", opts[i], rc, out);
    ck_assert_str_eq(content(path), "earlier");
  }
  ck_assert_int_eq(temporaries(dir), 0);
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* The atomic writer: an injected and a real full disk keep the old file,
 * leave no temporary and say the system's reason. */
START_TEST(atomic_writes_on_a_full_disk) {
  char dir[300], path[500], err[512];
  scratch_dir(dir, sizeof dir, "rel-afile");
  snprintf(path, sizeof path, "%s/kept.bin", dir);
  ck_assert_int_eq(afile_write(path, "old", 3, err, sizeof err), 0);
  static char big[1 << 17];
  memset(big, 'n', sizeof big);
  setenv("SOWZERO_FAIL_WRITE", "kept.bin:5000", 1);
  ck_assert_int_eq(afile_write(path, big, sizeof big, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "kept.bin: write failed: No space left on device"), "%s", err);
  ck_assert_str_eq(content(path), "old");
  /* Through the stream: ferror, then the writer's own report. */
  afile a;
  ck_assert_int_eq(afile_open(&a, path, err, sizeof err), 0);
  for (int i = 0; i < 300; i++) fprintf(a.f, "%08d line of a report\n", i);
  ck_assert_int_eq(afile_commit(&a, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "No space left on device"), "%s", err);
  ck_assert_int_eq(afile_open(&a, path, err, sizeof err), 0);
  fwrite(big, 1, sizeof big, a.f);
  ck_assert(ferror(a.f));
  ck_assert_int_eq(afile_fail(&a, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "kept.bin: write failed: No space left on device"), "%s", err);
  /* Other names are not touched by it; "*" takes every one. */
  snprintf(path, sizeof path, "%s/other.bin", dir);
  ck_assert_msg(afile_write(path, big, sizeof big, err, sizeof err) == 0, "%s", err);
  setenv("SOWZERO_FAIL_WRITE", "*", 1);
  ck_assert_int_eq(afile_write(path, "x", 1, err, sizeof err), -1);
  unsetenv("SOWZERO_FAIL_WRITE");
  ck_assert_int_eq(temporaries(dir), 0);
  char fs[400];
  snprintf(fs, sizeof fs, "%s/small", dir);
  mkdir(fs, 0755);
  if (small_fs(fs, 64)) {
    snprintf(path, sizeof path, "%s/kept.bin", fs);
    ck_assert_int_eq(afile_write(path, "old", 3, err, sizeof err), 0);
    ck_assert_int_eq(afile_write(path, big, sizeof big, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "No space left on device"), "%s", err);
    ck_assert_str_eq(content(path), "old");
    ck_assert_int_eq(temporaries(fs), 0);
    ck_assert_int_eq(umount2(fs, MNT_DETACH), 0);
  }
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* `egdb build` checks the disk and memory it states before it starts. */
START_TEST(egdb_build_checks_its_needs) {
  char dir[300], db[400];
  scratch_dir(dir, sizeof dir, "rel-egdb");
  snprintf(db, sizeof db, "%s/db", dir);
  /* 30 seeds: 39.7 GiB of memory and 10.3 GiB of disk. */
  egdb_plan plan = egdb_plan_for(30, 1);
  double mem = mem_available_bytes(), disk = disk_free_bytes(dir);
  if (mem < (double)plan.memory || disk < (double)plan.disk) {
    int rc = run(NULL, ARGS("egdb", "build", "--seeds", "30", "--dir", db));
    ck_assert_msg(rc == 1, "exit %d: %s", rc, out);
    ck_assert_msg(strstr(out, mem < (double)plan.memory ? "needs 39.7 GiB" : "needs 10.3 GiB") &&
                      strstr(out, "free (--force builds anyway)"),
                  "%s", out);
    ck_assert_msg(access(db, F_OK) != 0, "the refused build made its folder");
  }
  /* A full disk during the build (injected): the file and the reason. */
  int rc = run(ARGS("SOWZERO_FAIL_WRITE=oware-05.egdb:300"),
               ARGS("egdb", "build", "--seeds", "6", "--threads", "1", "--dir", db));
  ck_assert_msg(rc == 1 && strstr(out, "oware-05.egdb: write failed: No space left on device"),
                "exit %d: %s", rc, out);
  ck_assert_int_eq(temporaries(db), 0);
  char fs[400], small[500];
  snprintf(fs, sizeof fs, "%s/small", dir);
  mkdir(fs, 0755);
  if (small_fs(fs, 200)) {
    snprintf(small, sizeof small, "%s/db", fs);
    rc = run(NULL, ARGS("egdb", "build", "--seeds", "12", "--threads", "1", "--dir", small));
    ck_assert_msg(rc == 1 && strstr(out, "needs 2.6 MiB, only 200.0 KiB free"), "exit %d: %s", rc,
                  out);
    rc = run(NULL,
             ARGS("egdb", "build", "--seeds", "12", "--threads", "1", "--dir", small, "--force"));
    ck_assert_msg(rc == 1 && strstr(out, "building anyway") &&
                      strstr(out, "write failed: No space left on device"),
                  "exit %d: %s", rc, out);
    ck_assert_int_eq(temporaries(small), 0);
    ck_assert_int_eq(umount2(fs, MNT_DETACH), 0);
  }
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* `train --set`: the overrides and the file are checked together (a pair
 * that only holds together is taken in either order), refusals name each
 * value's origin. The run directory sits under a regular file, so an
 * accepted config fails right after, at the directory, and trains nothing. */
START_TEST(train_overrides_together) {
  char dir[300], blocker[400], run_dir[500];
  scratch_dir(dir, sizeof dir, "rel-over");
  snprintf(blocker, sizeof blocker, "%s/file", dir);
  put_file(blocker, "");
  snprintf(run_dir, sizeof run_dir, "%s/run", blocker);
  char *pairs[][4] = {
      {"learner.batch=2048", "replay.min_samples=4096"},
      {"replay.min_samples=4096", "learner.batch=2048"},
  };
  for (int i = 0; i < 2; i++) {
    int rc = run(NULL, ARGS("train", "configs/tiny.ini", "--run", run_dir, "--set", pairs[i][0],
                            "--set", pairs[i][1]));
    ck_assert_msg(rc == 1 && strstr(out, "cannot create") && !strstr(out, "min_samples"),
                  "exit %d: %s", rc, out);
  }
  char *vw[][2] = {{"game.variants=abapa; wari", "game.variant_weights=1 3"},
                   {"game.variant_weights=1 3", "game.variants=abapa; wari"}};
  for (int i = 0; i < 2; i++) {
    int rc = run(NULL, ARGS("train", "configs/oware-variants.ini", "--run", run_dir, "--set",
                            vw[i][0], "--set", vw[i][1]));
    ck_assert_msg(rc == 1 && strstr(out, "cannot create") && !strstr(out, "variant"), "exit %d: %s",
                  rc, out);
  }
  /* One of the pair alone: both values named where they came from. */
  int rc =
      run(NULL, ARGS("train", "configs/tiny.ini", "--run", run_dir, "--set", "learner.batch=2048"));
  ck_assert_msg(
      rc == 2 && strstr(out, "(configs/tiny.ini:26)") && strstr(out, "(--set learner.batch=2048)"),
      "exit %d: %s", rc, out);
  rc = run(NULL, ARGS("train", "configs/oware-variants.ini", "--run", run_dir, "--set",
                      "game.variant_weights=1 3"));
  ck_assert_msg(rc == 2 && strstr(out, "--set game.variant_weights=1 3") &&
                    strstr(out, "configs/oware-variants.ini:11"),
                "exit %d: %s", rc, out);
  /* A game option's override is located by its argument, not CONFIG:0. */
  rc = run(NULL,
           ARGS("train", "configs/tiny.ini", "--run", run_dir, "--set", "game.grand_slam=often"));
  ck_assert_msg(
      rc == 2 && strstr(out, "--set game.grand_slam=often: game.grand_slam") && !strstr(out, ":0:"),
      "exit %d: %s", rc, out);
  ck_assert_int_eq(remove_tree(dir), 0);
}
END_TEST

/* One protocol line's answer. */
static const char *ask(proto *p, const char *line, size_t len) {
  static char buf[PROTO_MAX_RESPONSE];
  proto_handle_bytes(p, line, len, buf, sizeof buf);
  return buf;
}
#define ASK(p, s) ask(p, s, sizeof s - 1)

/* A '#' starts a comment only where a token starts. */
START_TEST(protocol_comment_rule) {
  proto *p = proto_create(1);
  ck_assert_ptr_nonnull(p);
  const char *r = ASK(p, "agent net weights=/nonexistent/run#1/best.weights");
  ck_assert_msg(r[0] == '?' && strstr(r, "/nonexistent/run#1/best.weights: cannot open"), "%s", r);
  r = ASK(p, "game oware grand_slam=loses#x");
  ck_assert_msg(r[0] == '?' && strstr(r, "'loses#x'"), "%s", r);
  r = ASK(p, "play#3");
  ck_assert_msg(r[0] == '?' && strstr(r, "unknown command 'play#3'"), "%s", r);
  r = ASK(p, "5 play 3 4");
  ck_assert_msg(r[0] == '?', "%s", r);
  /* Comments where a token starts: after a blank, a tab, or first. */
  ck_assert_str_eq(ASK(p, "# a comment"), "");
  ck_assert_str_eq(ASK(p, "   #x"), "");
  ck_assert_msg(!strncmp(ASK(p, "7 play 3 # then 4"), "=7 ", 3), "comment after a command");
  ck_assert_msg(!strncmp(ASK(p, "8 undo\t#why"), "=8 ", 3), "comment after a tab");
  ck_assert_msg(!strncmp(ASK(p, "9 game oware grand_slam=loses #x"), "=9 ", 3), "option kept");
  proto_free(p);
}
END_TEST

/* Nothing a line holds reaches the client raw: control characters and
 * malformed UTF-8 come back escaped, well-formed UTF-8 unchanged. */
START_TEST(replies_are_escaped) {
  proto *p = proto_create(1);
  ck_assert_ptr_nonnull(p);
  const char line[] = "fo\x1b[31mo\x07\xff\xc3\xa9\xc0\xaf\xed\xa0\x80\xe2\x82 x";
  const char *r = ask(p, line, sizeof line - 1);
  ck_assert_msg(strstr(r, "'fo\\x1b[31mo\\x07\\xff\xc3\xa9\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x82'"),
                "%s", r);
  size_t n = strlen(r);
  for (size_t i = 0; i + 2 < n; i++) ck_assert_msg((unsigned char)r[i] >= 0x20, "%s", r);
  r = ASK(p, "play \x1b]0;owned\x07");
  ck_assert_msg(r[0] == '?' && strstr(r, "\\x1b]0;owned\\x07") && !strchr(r, 0x1b), "%s", r);
  proto_free(p);
  /* The function itself: cut between characters, never inside an escape. */
  char buf[32];
  ck_assert_str_eq(text_escape(buf, sizeof buf, "a\nb\tc\x7f", 6), "a\\nb\\tc\\x7f");
  ck_assert_str_eq(text_escape(buf, 8, "abcd\x01", 5), "abcd");
  ck_assert_str_eq(text_escape(buf, 4, "\xc3\xa9\xc3\xa9", 4), "\xc3\xa9");
  ck_assert_str_eq(text_escape(buf, sizeof buf, "\xf4\x90\x80\x80", 4), "\\xf4\\x90\\x80\\x80");
  ck_assert_str_eq(text_escape(buf, sizeof buf, "\xf0\x9f\x98\x80", 4), "\xf0\x9f\x98\x80");
  /* The command line's errors: an argument, a config value. */
  int rc = run(NULL, ARGS("arena", "gre\x1b[2Jedy\xfe", "random"));
  ck_assert_msg(rc != 0 && strstr(out, "gre\\x1b[2Jedy\\xfe") && !strchr(out, 0x1b), "%s", out);
  rc = run(NULL, ARGS("train", "configs/tiny.ini", "--run", "/nonexistent/x", "--set",
                      "eval.anchors=gre\x9b"
                      "edy"));
  ck_assert_msg(rc == 2 && strstr(out, "gre\\x9bedy") && !strchr(out, 0x9b), "%s", out);
  /* What a player types, quoted back by `play`. */
  stdin_text = "\x1b]0;owned\x07\xff\nq\n";
  rc = run(NULL, ARGS("play"));
  stdin_text = NULL;
  ck_assert_msg(
      rc == 0 && strstr(out, "'\\x1b]0;owned\\x07\\xff' is not a legal move") && !strchr(out, 0x1b),
      "exit %d: %s", rc, out);
}
END_TEST

/* Accepted ranges finish: a huge book for two games, a book the plies
 * cannot fill (given up with the reason). */
START_TEST(arena_ranges_finish) {
  int rc = run(
      NULL, ARGS("arena", "--games", "2", "--openings", "100000", "--quiet", "greedy", "random"));
  ck_assert_msg(rc == 0, "exit %d: %s", rc, out);
  rc = run(NULL, ARGS("arena", "--games", "200", "--openings", "100", "--opening-plies", "1",
                      "--quiet", "greedy", "random"));
  ck_assert_msg(rc == 1 && strstr(out, "found only 6 of 100 openings"), "exit %d: %s", rc, out);
}
END_TEST

/* A cgroup file's number, as the memory limits read it, and nothing left
 * open however often it is read. */
START_TEST(file_first_number_reads_and_closes) {
  static const struct {
    const char *text;
    double want;
  } cases[] = {{"123456\n", 123456}, {"max\n", -1}, {"", -1}, {"2.5 7\n", 2.5}};
  char dir[256], path[300], missing[300];
  scratch_dir(dir, sizeof dir, "rel-number");
  snprintf(path, sizeof path, "%s/number", dir);
  snprintf(missing, sizeof missing, "%s/no-such-file", dir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(cases[i].text, f);
    fclose(f);
    ck_assert_double_eq(file_first_number(path), cases[i].want);
  }
  ck_assert_double_eq(file_first_number(missing), -1);
  int before = test_open_fds();
  for (int i = 0; i < 100; i++) file_first_number(path);
  ck_assert_int_eq(test_open_fds(), before);
  remove_tree(dir);
}
END_TEST

static Suite *reliability_suite(void) {
  Suite *s = suite_create("reliability");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, plot_keeps_a_good_picture);
  tcase_add_test(t, study_writes_no_cut_picture);
  tcase_add_test(t, train_names_the_reason);
  tcase_add_test(t, atomic_writes_on_a_full_disk);
  tcase_add_test(t, arena_files_on_a_full_disk);
  tcase_add_test(t, egdb_build_checks_its_needs);
  tcase_add_test(t, train_overrides_together);
  tcase_add_test(t, protocol_comment_rule);
  tcase_add_test(t, replies_are_escaped);
  tcase_add_test(t, arena_ranges_finish);
  tcase_add_test(t, file_first_number_reads_and_closes);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(reliability_suite)

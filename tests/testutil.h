/* Helpers shared by the Check suites. */
#ifndef SOWZERO_TESTUTIL_H
#define SOWZERO_TESTUTIL_H

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Folder of the data files the suites read (the reference traces); tests
 * run from the repository root. */
static inline const char *test_data_dir(void) { return "tests/data"; }

/* Scales long loops down under sanitizers (SOWZERO_TEST_SCALE=0.1). */
static inline double test_scale(void) {
  const char *s = getenv("SOWZERO_TEST_SCALE");
  double v = s ? atof(s) : 1.0;
  return v > 0 ? v : 1.0;
}

/* A cheap assertion for hot loops: Check's ck_assert_* record every passing
 * check through a pipe, which dominates loops of millions of checks. */
#define CHECK(cond, ...)                    \
  do {                                      \
    if (!(cond)) ck_abort_msg(__VA_ARGS__); \
  } while (0)

/* The descriptors this process holds open (/proc/self/fd): a refusal
 * must close what it opened. */
static inline int test_open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Where the suites put their scratch files: $TMPDIR, else /tmp. */
static inline const char *test_tmp(void) {
  const char *d = getenv("TMPDIR");
  return d && *d ? d : "/tmp";
}

/* The sowzero binary the suites drive: $SOWZERO_BIN, or build/sowzero. */
static inline const char *test_bin(void) {
  const char *b = getenv("SOWZERO_BIN");
  return b && *b ? b : "build/sowzero";
}

/* Runs `sowzero ARGV...` (argv NULL-terminated, no shell) and returns its
 * exit code; stdout and stderr together go into out (cut at cap). */
static inline int test_sowzero(char *out, size_t cap, char *const *argv) {
  char *full[64];
  int n = 0;
  full[n++] = (char *)test_bin();
  while (argv[n - 1] && n < 63) {
    full[n] = argv[n - 1];
    n++;
  }
  full[n] = NULL;
  int fd[2];
  ck_assert(pipe(fd) == 0);
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execv(full[0], full);
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0;
  ssize_t r;
  char sink[4096];
  while ((r = read(fd[0], len + 1 < cap ? out + len : sink,
                   len + 1 < cap ? cap - 1 - len : sizeof sink)) > 0)
    if (len + 1 < cap) len += (size_t)r;
  out[len] = 0;
  close(fd[0]);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define TEST_MAIN(suite_fn)                      \
  int main(void) {                               \
    SRunner *sr = srunner_create(suite_fn());    \
    srunner_run_all(sr, CK_NORMAL);              \
    int failed = srunner_ntests_failed(sr);      \
    srunner_free(sr);                            \
    return failed ? EXIT_FAILURE : EXIT_SUCCESS; \
  }

#endif

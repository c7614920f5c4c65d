/* A main() for the harnesses of fuzz/ without libFuzzer: feeds files to
 * LLVMFuzzerTestOneInput, one call a file, so that any compiler builds the
 * replay of the corpora and of the crash files (make test, make fuzz-replay).
 *
 *   NAME-replay PATH...    each PATH a file, or a folder: its files, sorted
 *
 * A file that crashes, breaks an invariant (abort) or runs longer than
 * $FUZZ_TIMEOUT seconds (default 30) stops the run; its name is printed
 * first. Exit status 0 when every file passed. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char current[4096];

static void say(const char *s) {
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

/* Names the file that was running, then dies of the same signal. */
static void on_signal(int sig) {
  say(sig == SIGALRM ? "\nfuzz replay: TIMEOUT on " : "\nfuzz replay: CRASH on ");
  say(current);
  say("\n");
  signal(sig, SIG_DFL);
  if (sig == SIGALRM) _exit(124);
  raise(sig);
}

static int run_file(const char *path, unsigned timeout) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  size_t cap = 1 << 16, n = 0, r;
  uint8_t *buf = malloc(cap);
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", path);
    return -1;
  }
  /* An exact-size copy: reads past the input show under AddressSanitizer. */
  uint8_t *data = malloc(n ? n : 1);
  memcpy(data, buf, n);
  free(buf);
  snprintf(current, sizeof current, "%s", path);
  alarm(timeout);
  LLVMFuzzerTestOneInput(data, n);
  alarm(0);
  free(data);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs path, a file or a folder of files; adds the files run to *count. */
static int run_path(const char *path, unsigned timeout, int *count) {
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    ++*count;
    return run_file(path, timeout);
  }
  DIR *d = opendir(path);
  if (!d) {
    perror(path);
    return -1;
  }
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, names[i]);
    if (rc == 0 && run_path(full, timeout, count) != 0) rc = -1;
    free(names[i]);
  }
  free(names);
  return rc;
}

/* Installs on_signal unless a sanitizer already handles sig (its report
 * is better); the sanitizers' own deaths name the file through the death
 * callback, when the program has one. */
static void catch_signal(int sig) {
  struct sigaction old;
  if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(sig, on_signal);
}

void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void on_sanitizer_death(void) {
  say("\nfuzz replay: CRASH on ");
  say(current);
  say("\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  const char *t = getenv("FUZZ_TIMEOUT");
  unsigned timeout = t && atoi(t) > 0 ? (unsigned)atoi(t) : 30;
  int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) catch_signal(sigs[i]);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
  int count = 0, rc = 0;
  for (int i = 1; i < argc; i++)
    if (run_path(argv[i], timeout, &count) != 0) rc = 1;
  const char *name = strrchr(argv[0], '/');
  printf("%s: %d inputs replayed%s\n", name ? name + 1 : argv[0], count, rc ? ", FAILED" : "");
  return rc;
}

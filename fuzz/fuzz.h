/* What the harnesses of fuzz/ share: failing an invariant, scratch files,
 * a tiny network for the agents that need weights, and the caps on agent
 * specs that keep every input fast and deterministic.
 *
 * Each harness is one source file defining LLVMFuzzerTestOneInput; it builds
 * with libFuzzer (clang -fsanitize=fuzzer), with AFL++'s libFuzzer-compatible
 * driver, and with fuzz/driver.c, a plain main() that replays files (make
 * test). Header-only, so that every harness stays one source file. */
#ifndef SOWZERO_FUZZ_H
#define SOWZERO_FUZZ_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "game/game.h"
#include "nn/nn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static inline void fuzz_cleanup_(void);

/* ---- Invariants ----------------------------------------------------------------
 * A broken invariant prints what broke and aborts, which libFuzzer and AFL++
 * record as a crash (the input is saved) and fuzz/driver.c reports with the
 * file's name. */
static inline void fuzz_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
static inline void fuzz_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "\n%s:%d: invariant broken: ", file, line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  fflush(stderr);
  fuzz_cleanup_(); /* abort skips atexit */
  abort();
}
#define FUZZ_CHECK(cond, ...)                                \
  do {                                                       \
    if (!(cond)) fuzz_fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* With $FUZZ_VERBOSE set, harnesses say what the library refused and why:
 * to see how far the seeds of a corpus get. */
static inline void fuzz_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void fuzz_note(const char *fmt, ...) {
  static int verbose = -1;
  if (verbose < 0) verbose = getenv("FUZZ_VERBOSE") != NULL;
  if (!verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* An error message of the library: non-empty and one line (and, with
 * $FUZZ_VERBOSE set, printed: see fuzz_note). */
#define FUZZ_CHECK_MESSAGE(err)                                                                 \
  do {                                                                                          \
    FUZZ_CHECK((err)[0] && !strchr((err), '\n'), "error message '%s' is empty or not one line", \
               (err));                                                                          \
    fuzz_note("refused: %s", (err));                                                            \
  } while (0)

/* Open findings: a fault the fuzzers found that is not fixed yet has its
 * reproducer in tests/data/fuzz/NAME/ and a line in tests/data/fuzz/OPEN.
 * Where the fault would stop every fuzzing run again, the harness lets it
 * pass (marked "open:" in its source), unless $FUZZ_STRICT is set: make
 * fuzz-replay replays each open reproducer strictly and expects it to fail,
 * so a fix shows (the reproducer passes: remove its line and the leniency). */
static inline int fuzz_strict(void) {
  static int strict = -1;
  if (strict < 0) strict = getenv("FUZZ_STRICT") != NULL;
  return strict;
}

/* FNV-1a 64 of the input: seeds what a harness derives from its input. */
static inline uint64_t fuzz_hash(const uint8_t *d, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 0x100000001b3ULL;
  return h;
}

/* ---- Scratch files ---------------------------------------------------------------
 * Loaders take paths: inputs go to files in a folder of this process under
 * $TMPDIR, else /dev/shm (memory: the savers fsync every file), else /tmp;
 * the folder is removed at exit and when an invariant breaks; a process
 * killed by a signal or a sanitizer leaves it (sowzero-fuzz.XXXXXX). */
static char fuzz_dir_[512];
static char fuzz_paths_[8][600];
static int fuzz_npaths_;

static inline void fuzz_cleanup_(void) {
  if (!fuzz_dir_[0]) return;
  for (int i = 0; i < fuzz_npaths_; i++) {
    char tmp[700];
    unlink(fuzz_paths_[i]);
    /* What an atomic write may have left: PATH.tmp.PID */
    snprintf(tmp, sizeof tmp, "%.600s.tmp.%ld", fuzz_paths_[i], (long)getpid());
    unlink(tmp);
  }
  rmdir(fuzz_dir_);
  fuzz_dir_[0] = 0;
  fuzz_npaths_ = 0;
}

/* The path of scratch file `name` (at most 8 names a process). */
static inline const char *fuzz_path(const char *name) {
  if (!fuzz_dir_[0]) {
    const char *t = getenv("TMPDIR");
    if (!t || !*t) t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/sowzero-fuzz.XXXXXX", t);
    if (!mkdtemp(fuzz_dir_)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    atexit(fuzz_cleanup_);
  }
  char want[600];
  snprintf(want, sizeof want, "%s/%s", fuzz_dir_, name);
  for (int i = 0; i < fuzz_npaths_; i++)
    if (!strcmp(fuzz_paths_[i], want)) return fuzz_paths_[i];
  if (fuzz_npaths_ == 8) abort();
  snprintf(fuzz_paths_[fuzz_npaths_], sizeof fuzz_paths_[0], "%s", want);
  return fuzz_paths_[fuzz_npaths_++];
}

static inline void fuzz_write(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
    perror(path);
    abort();
  }
}

/* The whole file into a malloc'd buffer (*n bytes); NULL if unreadable. */
static inline unsigned char *fuzz_read(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  *n = 0;
  unsigned char *b = malloc(cap);
  size_t r;
  while (b && (r = fread(b + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap) b = realloc(b, cap *= 2);
  }
  fclose(f);
  *n = len;
  return b;
}

/* ---- A tiny network -------------------------------------------------------------------
 * A weight file for game g, 8 wide with one block, at path: the `zero`
 * and `net` agents load it (their weights= setting is rewritten to it). */
static inline void fuzz_tiny_weights(const game *g, const char *path) {
  char err[512];
  nn_config c = {g->n_features, 8, 1, g->n_actions};
  nn_net *n = nn_create(&c, 7, err, sizeof err);
  nn_meta m;
  memset(&m, 0, sizeof m);
  snprintf(m.game, sizeof m.game, "%s", g->rules->name);
  game_options_string(g, m.rules, sizeof m.rules);
  m.encoding = g->encoding_version;
  if (!n || nn_save(n, &m, path, err, sizeof err) != 0) {
    fprintf(stderr, "fuzz: tiny network: %s\n", err);
    abort();
  }
  nn_free(n);
}

/* ---- Agent specs with capped work ---------------------------------------------------------
 * Searches are what could make one input take seconds, so specs are
 * rewritten before they reach agent_create:
 *   - a numeric value above its cap is lowered to the cap: sims 16,
 *     rollouts 2, node_cap 4096, cache_size 1024, batch 16, depth 3, tt 1
 *     (MiB); values that are not numbers stay, for the parser to refuse;
 *   - a positive time= becomes 1000000 (the search ends by its depth, never
 *     by the clock, so results do not depend on the machine's speed);
 *   - mcts and zero get sims=16 node_cap=4096, alphabeta depth=3 tt=1 when
 *     the spec does not set them;
 *   - weights=ANY becomes weights=<weights> (a file the harness made; no
 *     input names a file of the machine).
 * Everything else (unknown keys, keys given twice, bad values, unknown
 * kinds) reaches the parser unchanged. */
static inline int fuzz_number_(const char *s, double *v) {
  char *end;
  if (!*s) return 0;
  *v = strtod(s, &end);
  return *end == 0 && isfinite(*v);
}

static inline void fuzz_cap_spec(const char *spec, const char *weights, char *out, size_t len) {
  static const struct {
    const char *key;
    double cap;
  } caps[] = {{"sims", 16},  {"rollouts", 2}, {"node_cap", 4096}, {"cache_size", 1024},
              {"batch", 16}, {"depth", 3},    {"tt", 1}};
  char buf[1024], *save = NULL;
  snprintf(buf, sizeof buf, "%s", spec);
  size_t k = 0;
  int ntok = 0, search = 0, ab = 0, has_sims = 0, has_cap = 0, has_depth = 0, has_tt = 0;
  out[0] = 0;
#define FUZZ_PUT_(...) k += k < len ? (size_t)snprintf(out + k, len - k, __VA_ARGS__) : 0
  for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save), ntok++) {
    const char *sep = ntok ? " " : "";
    if (ntok == 0) {
      search = !strcmp(t, "mcts") || !strcmp(t, "zero");
      ab = !strcmp(t, "alphabeta");
    }
    char *eq = strchr(t, '=');
    if (!eq) {
      FUZZ_PUT_("%s%s", sep, t);
      continue;
    }
    size_t kl = (size_t)(eq - t);
    const char *v = eq + 1;
    double x;
#define FUZZ_KEY_(name) (kl == strlen(name) && !strncmp(t, name, kl))
    has_sims |= FUZZ_KEY_("sims");
    has_cap |= FUZZ_KEY_("node_cap");
    has_depth |= FUZZ_KEY_("depth");
    has_tt |= FUZZ_KEY_("tt");
    int done = 0;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0] && !done; i++)
      if (FUZZ_KEY_(caps[i].key) && fuzz_number_(v, &x) && x > caps[i].cap) {
        FUZZ_PUT_("%s%s=%g", sep, caps[i].key, caps[i].cap);
        done = 1;
      }
    if (!done && FUZZ_KEY_("time") && fuzz_number_(v, &x) && x > 0) {
      FUZZ_PUT_("%stime=1000000", sep);
      done = 1;
    }
    if (!done && FUZZ_KEY_("weights")) {
      FUZZ_PUT_("%sweights=%s", sep, weights);
      done = 1;
    }
#undef FUZZ_KEY_
    if (!done) FUZZ_PUT_("%s%s", sep, t);
  }
  if (search && !has_sims) FUZZ_PUT_(" sims=16");
  if (search && !has_cap) FUZZ_PUT_(" node_cap=4096");
  if (ab && !has_depth) FUZZ_PUT_(" depth=3");
  if (ab && !has_tt) FUZZ_PUT_(" tt=1");
#undef FUZZ_PUT_
  if (k >= len) out[len - 1] = 0;
}

#endif

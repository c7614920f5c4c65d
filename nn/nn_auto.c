/* precision = auto by measurement: each path this CPU runs (fp32, bf16
 * where it has AVX512_BF16, int8 on its kernel) timed on copies of the net
 * at the batch sizes the caller uses, the fastest taken.
 *
 * Why measure rather than rank: which path is fastest depends on the CPU,
 * on the BLAS core OpenBLAS runs and on the batch (at batch 1 the fp32 loop
 * that skips zero inputs can beat every packed kernel; at 256 the int8
 * kernels win on VNNI CPUs). A few milliseconds at start-up settle it for
 * the machine at hand.
 *
 * Noise: the samples of the paths are interleaved round by round, so that
 * a burst of load from elsewhere falls on all of them alike, and each
 * path keeps its best sample (load only ever adds time). */
#include "nn/nn_internal.h"

#include "base/base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS    5      /* interleaved samples per path and batch */
#define SAMPLE_S  0.5e-3 /* a sample runs forwards for about this long */
#define REPS_MAX  64
#define SLOW_S    20e-3 /* one forward slower than this: fewer rounds */
#define MEMO_SIZE 8

static const nn_precision paths[NN_AUTO_PATHS] = {NN_PRECISION_FP32, NN_PRECISION_BF16,
                                                  NN_PRECISION_INT8};

/* memo_lock is held over a lookup and the measurement that fills a
 * missing entry: threads that make agents at once measure once, and not
 * over each other. */
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t observer_lock = PTHREAD_MUTEX_INITIALIZER;

static double real_timer(void *ctx, const nn_net *n, nn_ws *ws, const float *x, int batch, int reps,
                         float *policy, float *value) {
  (void)ctx;
  double t0 = clock_wall();
  for (int i = 0; i < reps; i++)
    if (nn_forward(n, ws, x, NULL, batch, policy, value, NULL) != 0) return -1;
  return clock_wall() - t0;
}

/* ---- The decision (pure) -------------------------------------------------- */
nn_precision nn_auto_pick(const nn_auto_report *r) {
  /* Each path's worst slowdown against the fastest of each batch; the
   * smallest worst case wins. Ties go to the first in paths[]. */
  int best = -1;
  double best_worst = 0;
  for (int p = 0; p < NN_AUTO_PATHS; p++) {
    double worst = 0;
    int ok = 1;
    for (int b = 0; b < r->n_batches && ok; b++) {
      double fastest = 0;
      for (int q = 0; q < NN_AUTO_PATHS; q++)
        if (r->us[b][q] > 0 && (fastest == 0 || r->us[b][q] < fastest)) fastest = r->us[b][q];
      if (!(r->us[b][p] > 0))
        ok = 0;
      else if (r->us[b][p] / fastest > worst)
        worst = r->us[b][p] / fastest;
    }
    if (ok && r->n_batches > 0 && (best < 0 || worst < best_worst)) {
      best = p;
      best_worst = worst;
    }
  }
  return best < 0 ? NN_PRECISION_FP32 : paths[best];
}

/* ---- SOWZERO_AUTO_PRECISION --------------------------------------------------- */
/* 0 and *p set when the variable decides (a precision, or "fixed" for
 * nn_precision_auto's ranking); 1 when it is unset; -1 on a bad value. */
static int from_env(nn_precision *p, char *err, size_t errlen) {
  const char *s = getenv(NN_AUTO_ENV);
  if (!s || !*s) return 1;
  if (!strcmp(s, "fixed")) {
    *p = nn_precision_auto();
    return 0;
  }
  for (int i = 0; i < NN_AUTO_PATHS; i++)
    if (!strcmp(s, nn_precision_name(paths[i]))) {
      if (paths[i] == NN_PRECISION_BF16 && !nn_bf16_supported()) {
        errf(err, errlen, "%s=bf16: this CPU or build has no AVX512_BF16", NN_AUTO_ENV);
        return -1;
      }
      *p = paths[i];
      return 0;
    }
  errf(err, errlen, "%s=%s: not fp32, bf16, int8 or fixed", NN_AUTO_ENV, s);
  return -1;
}

/* ---- Observer ------------------------------------------------------------------ */
static nn_auto_observer observer;
static void *observer_ctx;

void nn_auto_set_observer(nn_auto_observer fn, void *ctx) {
  pthread_mutex_lock(&observer_lock);
  observer = fn;
  observer_ctx = ctx;
  pthread_mutex_unlock(&observer_lock);
}

static void tell(const nn_auto_report *r) {
  pthread_mutex_lock(&observer_lock);
  nn_auto_observer fn = observer;
  void *ctx = observer_ctx;
  pthread_mutex_unlock(&observer_lock);
  if (fn) fn(ctx, r);
}

/* ---- Memo: one measurement per shape and batch list per process ------------- */
static struct {
  nn_config cfg;
  nn_int8_kernel kernel;
  int bf16;
  nn_auto_report r;
} memo[MEMO_SIZE];
static int memo_n, memo_next;

static int memo_match(int i, const nn_config *c, const int *batches, int nb) {
  if (!nn_config_equal(&memo[i].cfg, c) || memo[i].r.n_batches != nb ||
      memo[i].kernel != nn_int8_kernel_in_use() || memo[i].bf16 != nn_bf16_supported())
    return 0;
  for (int b = 0; b < nb; b++)
    if (memo[i].r.batch[b] != batches[b]) return 0;
  return 1;
}

/* ---- Measurement ---------------------------------------------------------------- */
typedef struct {
  nn_net *net[NN_AUTO_PATHS]; /* a copy of the net per path; NULL: not run here */
  nn_ws *ws;
  float *x, *policy, *value;
} bench_set;

static void set_free(bench_set *s) {
  for (int p = 0; p < NN_AUTO_PATHS; p++) nn_free(s->net[p]);
  nn_ws_free(s->ws);
  free(s->x);
  free(s->policy);
  free(s->value);
}

static int set_make(bench_set *s, const nn_net *n, int max_batch, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  const nn_config c = nn_config_of(n);
  for (int p = 0; p < NN_AUTO_PATHS; p++) {
    if (paths[p] == NN_PRECISION_BF16 && !nn_bf16_supported()) continue;
    if (!(s->net[p] = nn_create(&c, 0, err, errlen)) || nn_copy(s->net[p], n) != 0 ||
        nn_set_precision(s->net[p], paths[p], err, errlen) != 0)
      return -1;
  }
  s->ws = nn_ws_create(n, max_batch, err, errlen);
  s->x = malloc((size_t)max_batch * (size_t)c.n_in * sizeof *s->x);
  s->policy = malloc((size_t)max_batch * (size_t)c.n_actions * sizeof *s->policy);
  s->value = malloc((size_t)max_batch * sizeof *s->value);
  if (!s->ws || !s->x || !s->policy || !s->value) {
    if (s->ws) errf(err, errlen, "out of memory for the precision measurement");
    return -1;
  }
  /* Sparse 0/1 features, as game encodings are: the batch-1 fp32 loop
   * skips zeros, and would look faster on dense input than it runs. */
  for (size_t i = 0; i < (size_t)max_batch * (size_t)c.n_in; i++)
    s->x[i] = (i * 2654435761u >> 7) % 4 == 0 ? 1.0f : 0.0f;
  return 0;
}

/* Seconds of reps passes of path p at batch B; -1 with a message when a
 * pass failed. */
static double time_path(const bench_set *s, int p, int B, int reps, nn_auto_timer timer, void *ctx,
                        char *err, size_t errlen) {
  double t = timer(ctx, s->net[p], s->ws, s->x, B, reps, s->policy, s->value);
  if (t < 0)
    errf(err, errlen, "the %s forward pass at batch %d failed", nn_precision_name(paths[p]), B);
  return t;
}

static int measure(const nn_net *n, const int *batches, int nb, nn_auto_timer timer, void *ctx,
                   nn_auto_report *r, char *err, size_t errlen) {
  int max_batch = 1;
  for (int b = 0; b < nb; b++) max_batch = batches[b] > max_batch ? batches[b] : max_batch;
  bench_set s;
  int rc = -1;
  if (set_make(&s, n, max_batch, err, errlen) != 0) goto out;
  for (int b = 0; b < nb; b++) {
    const int B = batches[b];
    int reps[NN_AUTO_PATHS], rounds = ROUNDS;
    /* A first forward of each path warms its weights into the cache and
     * sizes its samples. */
    for (int p = 0; p < NN_AUTO_PATHS; p++) {
      if (!s.net[p]) continue;
      double t = time_path(&s, p, B, 1, timer, ctx, err, errlen);
      if (t < 0) goto out;
      reps[p] = t > 0 && t < SAMPLE_S ? (int)(SAMPLE_S / t) + 1 : 1;
      if (reps[p] > REPS_MAX) reps[p] = REPS_MAX;
      if (t > SLOW_S) rounds = 2;
    }
    for (int k = 0; k < rounds; k++)
      for (int p = 0; p < NN_AUTO_PATHS; p++) {
        if (!s.net[p]) continue;
        double t = time_path(&s, p, B, reps[p], timer, ctx, err, errlen);
        if (t < 0) goto out;
        double us = t * 1e6 / reps[p];
        if (us > 0 && (r->us[b][p] == 0 || us < r->us[b][p])) r->us[b][p] = us;
      }
  }
  rc = 0;
out:
  set_free(&s);
  return rc;
}

int nn_auto_choose(const nn_net *n, const int *batches, int n_batches, nn_auto_timer timer,
                   void *ctx, nn_auto_report *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  if (n_batches < 1 || n_batches > NN_AUTO_MAX_BATCHES) {
    errf(err, errlen, "precision auto: 1 to %d batch sizes, not %d", NN_AUTO_MAX_BATCHES,
         n_batches);
    return -1;
  }
  for (int b = 0; b < n_batches; b++) {
    if (batches[b] < 1 || batches[b] > NN_MAX_BATCH) {
      errf(err, errlen, "precision auto: batch %d out of range", batches[b]);
      return -1;
    }
    r->batch[b] = batches[b];
  }
  r->n_batches = n_batches;
  r->int8_kernel = nn_int8_kernel_in_use();
  nn_precision forced;
  int e = from_env(&forced, err, errlen);
  if (e < 0) return -1;
  if (e == 0) {
    r->forced = 1;
    r->choice = forced;
    if (!timer) tell(r);
    return 0;
  }
  const nn_config c = nn_config_of(n);
  if (timer) { /* injected times: no memo */
    const double t0 = clock_wall();
    if (measure(n, batches, n_batches, timer, ctx, r, err, errlen) != 0) return -1;
    r->seconds = clock_wall() - t0;
    r->choice = nn_auto_pick(r);
    return 0;
  }
  /* The real clock: one measurement per shape, batches and kernels in a
   * process. */
  pthread_mutex_lock(&memo_lock);
  for (int i = 0; i < memo_n; i++)
    if (memo_match(i, &c, batches, n_batches)) {
      *r = memo[i].r;
      r->cached = 1;
      pthread_mutex_unlock(&memo_lock);
      return 0;
    }
  const double t0 = clock_wall();
  if (measure(n, batches, n_batches, real_timer, NULL, r, err, errlen) != 0) {
    pthread_mutex_unlock(&memo_lock);
    return -1;
  }
  r->seconds = clock_wall() - t0;
  r->choice = nn_auto_pick(r);
  int i = memo_n < MEMO_SIZE ? memo_n++ : memo_next++ % MEMO_SIZE;
  memo[i].cfg = c;
  memo[i].kernel = r->int8_kernel;
  memo[i].bf16 = nn_bf16_supported();
  memo[i].r = *r;
  pthread_mutex_unlock(&memo_lock);
  tell(r);
  return 0;
}

void nn_auto_describe(const nn_auto_report *r, char *buf, size_t len) {
  char kern[32] = "";
  if (r->choice == NN_PRECISION_INT8)
    snprintf(kern, sizeof kern, " %s", nn_int8_kernel_name(r->int8_kernel));
  if (r->forced) {
    snprintf(buf, len, "precision auto: %s%s (%s=%s, not measured)", nn_precision_name(r->choice),
             kern, NN_AUTO_ENV, getenv(NN_AUTO_ENV) ? getenv(NN_AUTO_ENV) : "");
    return;
  }
  size_t at = (size_t)snprintf(buf, len, "precision auto: %s%s, measured",
                               nn_precision_name(r->choice), kern);
  for (int b = 0; b < r->n_batches && at < len; b++) {
    at += (size_t)snprintf(buf + at, len - at, "%s batch %d:", b ? ";" : "", r->batch[b]);
    for (int p = 0; p < NN_AUTO_PATHS && at < len; p++)
      if (r->us[b][p] > 0) {
        const double us = r->us[b][p];
        at += (size_t)snprintf(buf + at, len - at, " %s %.*f us", nn_precision_name(paths[p]),
                               us < 10    ? 2
                               : us < 100 ? 1
                                          : 0,
                               us);
      }
  }
  if (at < len)
    snprintf(buf + at, len - at, r->cached ? " (measured earlier in this process)" : " (%.0f ms)",
             r->seconds * 1e3);
}

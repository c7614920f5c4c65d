#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void rng_seed(rng_t *r, uint64_t seed, uint64_t stream) {
  uint64_t sm = seed ^ (stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&sm);
}

double rng_double(rng_t *r) { return (double)(rng_u64(r) >> 11) * 0x1.0p-53; }

double rng_normal(rng_t *r) {
  /* Box-Muller; one value per call keeps the state a plain value. */
  double u1 = rng_double(r), u2 = rng_double(r);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double rng_gamma(rng_t *r, double shape) {
  /* Marsaglia-Tsang; shapes below 1 use the boost Gamma(a) = Gamma(a+1) U^(1/a). */
  if (shape < 1.0) {
    double u = rng_double(r);
    if (u < 1e-300) u = 1e-300;
    return rng_gamma(r, shape + 1.0) * pow(u, 1.0 / shape);
  }
  double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x = rng_normal(r), v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    double u = rng_double(r);
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
  }
}

static double clock_of(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
double clock_wall(void) { return clock_of(CLOCK_MONOTONIC); }
double clock_thread_cpu(void) { return clock_of(CLOCK_THREAD_CPUTIME_ID); }

int afile_open(afile *a, const char *path, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  if (strlen(path) >= sizeof a->path) {
    errf(err, errlen, "%s: path too long", path);
    return -1;
  }
  strcpy(a->path, path);
  snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld", path, (long)getpid());
  a->f = fopen(a->tmp, "wb");
  if (!a->f) {
    errf(err, errlen, "%s: cannot create: %s", a->tmp, strerror(errno));
    return -1;
  }
  return 0;
}

int afile_commit(afile *a, char *err, size_t errlen) {
  int bad = ferror(a->f);
  if (fflush(a->f) != 0) bad = 1;
  if (!bad && fsync(fileno(a->f)) != 0) bad = 1;
  int saved = errno;
  if (fclose(a->f) != 0) bad = 1;
  a->f = NULL;
  if (bad) {
    errf(err, errlen, "%s: write failed: %s", a->path, strerror(saved));
    remove(a->tmp);
    return -1;
  }
  if (rename(a->tmp, a->path) != 0) {
    errf(err, errlen, "%s: rename failed: %s", a->path, strerror(errno));
    remove(a->tmp);
    return -1;
  }
  return 0;
}

void afile_abort(afile *a) {
  if (a->f) fclose(a->f);
  a->f = NULL;
  if (a->tmp[0]) remove(a->tmp);
}

int afile_write(const char *path, const void *data, size_t len, char *err,
                size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1;
  if (len && fwrite(data, 1, len, a.f) != len) {
    errf(err, errlen, "%s: write failed", path);
    afile_abort(&a);
    return -1;
  }
  return afile_commit(&a, err, errlen);
}

uint64_t checksum64(const void *data, size_t len, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

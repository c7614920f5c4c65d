#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

void errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void *calloc_lines(size_t bytes) {
  if (bytes > SIZE_MAX - 63) return NULL;
  size_t sz = bytes ? (bytes + 63) & ~(size_t)63 : 64;
  void *p = aligned_alloc(64, sz);
  if (p) memset(p, 0, sz);
  return p;
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
/* WebAssembly has no CPU-time clocks. Under Node the process's CPU time
 * stands in (the module runs on its one thread); in a browser, the wall
 * clock. */
#ifdef __EMSCRIPTEN__
EM_JS(double, process_cpu_seconds, (void), {
  if (typeof process == 'object' && process.cpuUsage) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  return performance.now() / 1000;
});
double clock_thread_cpu(void) { return process_cpu_seconds(); }
double clock_process_cpu(void) { return process_cpu_seconds(); }
#else
double clock_thread_cpu(void) { return clock_of(CLOCK_THREAD_CPUTIME_ID); }
double clock_process_cpu(void) { return clock_of(CLOCK_PROCESS_CPUTIME_ID); }
#endif

double clock_process_runnable(void) {
#ifdef __linux__
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  double sum = 0;
  for (struct dirent *e; (e = readdir(d));) {
    char path[300];
    unsigned long long run = 0, wait = 0;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* a thread that just ended */
    if (fscanf(f, "%llu %llu", &run, &wait) == 2) sum += 1e-9 * (double)(run + wait);
    fclose(f);
  }
  closedir(d);
  return sum;
#else
  return -1;
#endif
}

double mem_physical_mb(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (double)pages * (double)page / 1048576.0 : 0;
}

double disk_free_bytes(const char *path) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  for (;;) {
    struct statvfs v;
    if (statvfs(dir, &v) == 0) return (double)v.f_bavail * (double)v.f_frsize;
    if (errno != ENOENT && errno != ENOTDIR) return -1;
    char *slash = strrchr(dir, '/');
    if (!slash) return statvfs(".", &v) == 0 ? (double)v.f_bavail * (double)v.f_frsize : -1;
    if (slash == dir)
      slash[1] = 0;
    else
      *slash = 0;
  }
}

double file_first_number(const char *path) {
  FILE *f = fopen(path, "r");
  double v = -1;
  if (f) {
    if (fscanf(f, "%lf", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

double mem_available_bytes(void) {
  double have = -1;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    double kb;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) have = kb * 1024;
    fclose(f);
  }
  /* A cgroup (v2) limit below the machine's: what is left of it. */
  double max = file_first_number("/sys/fs/cgroup/memory.max"),
         cur = file_first_number("/sys/fs/cgroup/memory.current");
  if (max > 0 && cur >= 0 && (have < 0 || max - cur < have)) have = max > cur ? max - cur : 0;
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (have < 0 || (double)rl.rlim_cur < have))
    have = (double)rl.rlim_cur;
  return have;
}

void bytes_text(double b, char *buf, size_t len) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, u++;
  snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

int need_check(const char *what, double need, double have, char *err, size_t errlen) {
  if (have < 0 || need <= have) return 0;
  char n[32], h[32];
  bytes_text(need, n, sizeof n);
  bytes_text(have, h, sizeof h);
  errf(err, errlen, "%s: needs %s, only %s free", what, n, h);
  return -1;
}

/* ---- Atomic files ------------------------------------------------------------ */

#define AFILE_TAG ".tmp.sowzero."

static const char *file_kind(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISSOCK(m)) return "a socket";
  return "of an unknown kind";
}

/* 0 if nothing is at path or a regular file is (lstat: a link is not
 * followed); else -1 with a message naming path. */
static int check_target(const char *path, char *err, size_t errlen) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return 0;
    errf(err, errlen, "%s: cannot check the file: %s", path, strerror(errno));
    return -1;
  }
  if (S_ISREG(st.st_mode)) return 0;
  errf(err, errlen, "%s: not a regular file (%s); left as it is", path, file_kind(st.st_mode));
  return -1;
}

/* Removes path if it is a regular file that no writer holds (afile keeps
 * an flock on its temporary until the rename). 1 if removed. */
static int remove_unheld(const char *path) {
  struct stat before, st;
  if (lstat(path, &before) != 0 || !S_ISREG(before.st_mode)) return 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  int removed = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == before.st_ino &&
      st.st_dev == before.st_dev && flock(fd, LOCK_EX | LOCK_NB) == 0)
    removed = unlink(path) == 0;
  close(fd);
  return removed;
}

int afile_is_temporary(const char *name, long *pid) {
  const char *tag = NULL;
  for (const char *p = strstr(name, AFILE_TAG); p; p = strstr(p + 1, AFILE_TAG)) tag = p;
  if (!tag || tag == name) return 0;
  const char *d = tag + strlen(AFILE_TAG);
  long v = 0;
  int n = 0;
  for (; d[n]; n++) {
    if (d[n] < '0' || d[n] > '9' || n >= 10) return 0;
    v = v * 10 + (d[n] - '0');
  }
  if (n == 0 || v <= 0 || v > INT_MAX) return 0;
  if (pid) *pid = v;
  return 1;
}

int afile_remove_stale(const char *dir, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) {
    errf(err, errlen, "%s: cannot read the directory: %s", dir, strerror(errno));
    return -1;
  }
  int removed = 0;
  long self = (long)getpid(), pid;
  char path[4096];
  for (struct dirent *e; (e = readdir(d));) {
    if (!afile_is_temporary(e->d_name, &pid)) continue;
    /* A live process of that number may be writing it; this process's own
     * ones are told apart by their lock alone. */
    if (pid != self && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
    removed += remove_unheld(path);
  }
  closedir(d);
  return removed;
}

int dir_make(const char *dir, char *err, size_t errlen) {
  char buf[PATH_MAX]; /* any name the system takes */
  if (!*dir) {
    errf(err, errlen, "empty folder name");
    return -1;
  }
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    errf(err, errlen, "%s: folder name too long", dir);
    return -1;
  }
  for (char *p = buf + 1;; p++) {
    int end = *p == 0;
    if (*p == '/' || end) {
      *p = 0;
      if (mkdir(buf, 0777) && errno != EEXIST) {
        errf(err, errlen, "%s: cannot create: %s", buf, strerror(errno));
        return -1;
      }
      if (end) break;
      *p = '/';
    }
  }
  struct stat st;
  if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
    errf(err, errlen, "%s: not a folder", dir);
    return -1;
  }
  return 0;
}

/* The directory part of path ("." for a bare name), for its fsync. */
static void sync_parent(const char *path) {
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == path)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd); /* best effort: the file itself is synced */
  close(fd);
}

/* The temporary's stream writes through these, so that the first failed
 * write's reason is kept (ferror alone loses it) and a full disk can be
 * made to order (SOWZERO_FAIL_WRITE). */
struct afile_io {
  int fd;
  int err;        /* errno of the first failed write; 0 while none failed */
  long long room; /* bytes the injected full disk still takes; -1: no injection */
};

/* The bytes a file named by path may hold before SOWZERO_FAIL_WRITE makes
 * its writes fail; -1 when it does not name this file. */
static long long injected_room(const char *path) {
  const char *v = getenv("SOWZERO_FAIL_WRITE");
  if (!v || !*v) return -1;
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  size_t n = strcspn(v, ":");
  if (!(n == 1 && v[0] == '*') && (strlen(name) != n || strncmp(name, v, n))) return -1;
  return v[n] == ':' ? strtoll(v + n + 1, NULL, 10) : 0;
}

#ifndef __EMSCRIPTEN__
static ssize_t io_write(void *cookie, const char *buf, size_t len) {
  struct afile_io *io = cookie;
  size_t done = 0;
  while (done < len) {
    size_t want = len - done;
    ssize_t w;
    if (io->room >= 0 && (long long)want > io->room) want = (size_t)io->room;
    if (want == 0) {
      errno = ENOSPC;
      w = -1;
    } else {
      w = write(io->fd, buf + done, want);
    }
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      if (!io->err) io->err = errno;
      return done ? (ssize_t)done : -1;
    }
    done += (size_t)w;
    if (io->room >= 0) io->room -= w;
  }
  return (ssize_t)done;
}

static int io_close(void *cookie) {
  struct afile_io *io = cookie;
  int rc = close(io->fd);
  free(io);
  return rc;
}
#endif

/* The stream over fd (its owner from then on); NULL with errno set. */
static FILE *io_open(afile *a, int fd) {
  struct afile_io *io = calloc(1, sizeof *io);
  if (!io) return NULL;
  io->fd = fd;
  io->room = injected_room(a->path);
#ifdef __EMSCRIPTEN__
  FILE *f = fdopen(fd, "wb");
#else
  cookie_io_functions_t fns = {NULL, io_write, NULL, io_close};
  FILE *f = fopencookie(io, "wb", fns);
#endif
  if (!f) {
    free(io);
    return NULL;
  }
  a->io = io;
  return f;
}

/* The system's reason of the first failed write, else of errno now. */
static const char *write_reason(const afile *a, int now) {
  return strerror(a->io && a->io->err ? a->io->err : now ? now : EIO);
}

int afile_open(afile *a, const char *path, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  if (strlen(path) >= sizeof a->path) {
    errf(err, errlen, "%s: path too long", path);
    return -1;
  }
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
    errf(err, errlen, "%s: not a file name", path);
    return -1;
  }
  if (check_target(path, err, errlen) != 0) return -1;
  strcpy(a->path, path);
  snprintf(a->tmp, sizeof a->tmp, "%s" AFILE_TAG "%ld", path, (long)getpid());
  for (int attempt = 0;; attempt++) {
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      /* Held until the rename: a cleaner never takes a file being written. */
      if (flock(fd, LOCK_EX) != 0 || !(a->f = io_open(a, fd))) {
        errf(err, errlen, "%s: cannot create: %s", a->tmp, strerror(errno));
        unlink(a->tmp);
        close(fd);
        a->tmp[0] = 0;
        return -1;
      }
      return 0;
    }
    /* The name holds this process's number: the leftover of an earlier
     * process that had the same number (a container restarted), which is
     * removed, or a write of this process still going on. */
    int e = errno;
    if (e != EEXIST || attempt > 0 || !remove_unheld(a->tmp)) {
      if (e == EEXIST)
        errf(err, errlen, "%s: cannot create: a file of that name is in use", a->tmp);
      else
        errf(err, errlen, "%s: cannot create: %s", a->tmp, strerror(e));
      a->tmp[0] = 0;
      return -1;
    }
  }
}

int afile_commit(afile *a, char *err, size_t errlen) {
  int bad = ferror(a->f);
  errno = 0;
  if (fflush(a->f) != 0) bad = 1;
  if (!bad && fsync(a->io->fd) != 0) bad = 1;
  int saved = errno;
  int rc = 0;
  if (bad) {
    errf(err, errlen, "%s: write failed: %s", a->path, write_reason(a, saved));
    rc = -1;
  } else if (check_target(a->path, err, errlen) != 0) {
    rc = -1; /* something not ours appeared at PATH meanwhile */
  } else if (rename(a->tmp, a->path) != 0) {
    errf(err, errlen, "%s: rename failed: %s", a->path, strerror(errno));
    rc = -1;
  } else {
    sync_parent(a->path);
  }
  if (rc != 0) unlink(a->tmp);
  fclose(a->f); /* releases the lock, after the rename */
  a->f = NULL;
  a->io = NULL;
  a->tmp[0] = 0;
  return rc;
}

void afile_abort(afile *a) {
  if (a->tmp[0]) unlink(a->tmp);
  if (a->f) fclose(a->f);
  a->f = NULL;
  a->io = NULL;
  a->tmp[0] = 0;
}

int afile_fail(afile *a, char *err, size_t errlen) {
  int now = errno;
  if (a->f) fflush(a->f); /* a failure still in the buffer gets its reason */
  errf(err, errlen, "%s: write failed: %s", a->path, write_reason(a, now));
  afile_abort(a);
  return -1;
}

int afile_write(const char *path, const void *data, size_t len, char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1;
  if (len && fwrite(data, 1, len, a.f) != len) return afile_fail(&a, err, errlen);
  return afile_commit(&a, err, errlen);
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  unsigned lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0; /* overlong */
    if (c == 0xed) hi = 0x9f; /* surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90; /* overlong */
    if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
  } else
    return 0;
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if (s[i] < 0x80 || s[i] > 0xbf) return 0;
  return len;
}

char *text_escape(char *dst, size_t cap, const char *src, size_t n) {
  if (cap == 0) return dst;
  const unsigned char *s = (const unsigned char *)src;
  size_t at = 0;
  for (size_t i = 0; i < n;) {
    char esc[8];
    size_t len = 1;
    const char *piece = esc;
    if (s[i] == '\n')
      memcpy(esc, "\\n", 3), len = 2;
    else if (s[i] == '\t')
      memcpy(esc, "\\t", 3), len = 2;
    else if (s[i] < 0x20 || s[i] == 0x7f)
      snprintf(esc, sizeof esc, "\\x%02x", s[i]), len = 4;
    else if (s[i] < 0x80)
      piece = (const char *)s + i;
    else if ((len = utf8_len(s + i, n - i)) > 0)
      piece = (const char *)s + i;
    else
      snprintf(esc, sizeof esc, "\\x%02x", s[i]), len = 4;
    if (at + len >= cap) break;
    memcpy(dst + at, piece, len);
    at += len;
    i += piece == esc ? 1 : len;
  }
  dst[at] = 0;
  return dst;
}

uint64_t checksum64(const void *data, size_t len, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

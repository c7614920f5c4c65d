/* base: the few utilities every module may use — a seeded RNG, clocks,
 * error messages and atomic file writes. Depends on nothing but libc. */
#ifndef SOWZERO_BASE_H
#define SOWZERO_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Errors ---------------------------------------------------------------
 * Library functions return 0 on success and -1 on failure, writing a one-line
 * message into a caller-supplied buffer (err, errlen); err may be NULL. */
void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- Random numbers ---------------------------------------------------------
 * xoshiro256** seeded through splitmix64. A plain value type: each thread owns
 * its own state (never shared, never global). */
typedef struct {
  uint64_t s[4];
} rng_t;

/* Seeds from a run seed and a stream id (worker number, game number...), so
 * that different streams of one seed never overlap in practice. */
void rng_seed(rng_t *r, uint64_t seed, uint64_t stream);
static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t rng_u64(rng_t *r) {
  uint64_t *s = r->s;
  uint64_t out = rng_rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rng_rotl(s[3], 45);
  return out;
}
/* Uniform in [0, n); n > 0. Lemire's multiply-shift, bias below 2^-32. */
static inline uint32_t rng_below(rng_t *r, uint32_t n) {
  return (uint32_t)(((rng_u64(r) >> 32) * (uint64_t)n) >> 32);
}
double rng_double(rng_t *r);              /* uniform in [0, 1) */
double rng_normal(rng_t *r);              /* standard normal */
double rng_gamma(rng_t *r, double shape); /* Gamma(shape, 1), shape > 0 */
uint64_t splitmix64(uint64_t *state);

/* ---- Clocks (seconds) ------------------------------------------------------ */
double clock_wall(void);        /* monotonic wall clock */
double clock_thread_cpu(void);  /* CPU time of the calling thread */
double clock_process_cpu(void); /* CPU time of all the process's threads */
/* Seconds the process's live threads have spent running or ready to run
 * (Linux scheduler statistics; -1 elsewhere). Over a wall interval, its
 * growth is how many cores the process would use on an idle machine. */
double clock_process_runnable(void);
/* The machine's physical memory in MiB (0 if unknown): tables sized by a
 * setting are refused beyond half of it rather than paged in until the
 * process is killed. */
double mem_physical_mb(void);
/* What the machine can give now, for commands that state what they need:
 * the bytes an unprivileged writer may still use on the file system that
 * holds path (or its nearest existing folder), and the bytes of memory
 * available to this process (MemAvailable, lowered by its cgroup's and
 * its address-space limits). -1 if unknown. */
double disk_free_bytes(const char *path);
double mem_available_bytes(void);
/* The number that starts the file at path (cgroup files hold one); -1 if
 * the file cannot be read or starts with anything else ("max"). */
double file_first_number(const char *path);
/* A need checked against what the machine has: 0 if have < 0 (unknown)
 * or need <= have; else -1 with "WHAT: needs N, only M free", both
 * figures in binary units. */
int need_check(const char *what, double need, double have, char *err, size_t errlen);
/* "1.5 GiB", "200 KiB", "12 B". */
void bytes_text(double b, char *buf, size_t len);

/* ---- Waiting ---------------------------------------------------------------
 * One step of a spin-wait: tells the core that the thread is waiting (x86
 * `pause`), which frees the core's other hardware thread and saves power. A
 * waiter that expects a handful of microseconds spins; a kernel wake-up
 * (tens of microseconds in a virtual machine) would cost more. */
void cpu_relax(void);

/* ---- Memory -----------------------------------------------------------------
 * Zeroed memory on cache lines of its own (64-byte aligned, the size rounded
 * up to whole lines), so that what one thread writes there never shares a
 * line with what another writes (false sharing); NULL if out of memory.
 * Released with free(). */
void *calloc_lines(size_t bytes);

/* ---- Atomic files -------------------------------------------------------------
 * Only regular files are written: afile_open refuses a PATH that exists and
 * is anything else (a symbolic link, even to a regular file, a FIFO, a
 * device, a directory, a socket), creating nothing. Writes go to a
 * temporary beside PATH named "NAME.tmp.sowzero.PID" (NAME the last part
 * of PATH, PID the writer's process), created exclusively and held under
 * an flock while it is written; afile_commit flushes and fsyncs it, checks
 * PATH again and renames the temporary over it, so a reader (or a crash)
 * sees either the old file or the whole new one. afile_abort removes the
 * temporary. One write of a given PATH at a time in a process. */
typedef struct {
  FILE *f;
  char path[1024];
  char tmp[1100];
  struct afile_io *io; /* the temporary's descriptor and the first write error */
} afile;

int afile_open(afile *a, const char *path, char *err, size_t errlen);
int afile_commit(afile *a, char *err, size_t errlen);
void afile_abort(afile *a);
/* For a writer that saw its writes fail (ferror, a short fwrite): removes
 * the temporary and says "PATH: write failed: REASON" with the system's
 * reason of the first failed write (ENOSPC...). Returns -1. afile_commit
 * says the same when a write failed. */
int afile_fail(afile *a, char *err, size_t errlen);
/* Testing a full disk where none can be made: with the environment
 * variable SOWZERO_FAIL_WRITE=NAME[:BYTES], writes of every file named NAME
 * (the last part of its path; "*": every file) fail with ENOSPC once BYTES
 * bytes (default 0) are in it, as on a full file system. */
/* Whole-buffer convenience: writes data atomically to path. */
int afile_write(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* 1 if name (a directory entry, no folder) is a temporary of afile; then
 * *pid is the process that made it. */
int afile_is_temporary(const char *name, long *pid);
/* Removes the temporaries afile left in dir (not its subfolders) that no
 * one writes any more: regular files named as above whose process is gone
 * (or is this one) and that no writer holds. Everything else is left
 * alone. Returns the number removed, -1 if dir cannot be read. */
int afile_remove_stale(const char *dir, char *err, size_t errlen);

/* Makes folder dir and any missing parents (like mkdir -p, mode 0777
 * before the umask); 0 if dir then is a folder, else -1 with a message
 * naming the part that could not be made. Any name the system takes (up
 * to PATH_MAX - 1 bytes) is made. */
int dir_make(const char *dir, char *err, size_t errlen);

/* ---- Little-endian fields (binary formats write fields one by one) ---------- */
static inline void put_u32le(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}
static inline uint32_t get_u32le(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void put_u64le(unsigned char *p, uint64_t v) {
  put_u32le(p, (uint32_t)v);
  put_u32le(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t get_u64le(const unsigned char *p) {
  return (uint64_t)get_u32le(p) | (uint64_t)get_u32le(p + 4) << 32;
}
/* FNV-1a 64 over a byte range, for file checksums. */
uint64_t checksum64(const void *data, size_t len, uint64_t h);
/* The first of the n bytes at s that is not printable ASCII (0x20..0x7e),
 * or -1: names read from files are checked before any message quotes
 * them, so a crafted file cannot put control characters or a NUL there. */
static inline long first_unprintable(const void *s, size_t n) {
  const unsigned char *b = s;
  for (size_t i = 0; i < n; i++)
    if (b[i] < 0x20 || b[i] > 0x7e) return (long)i;
  return -1;
}
/* Text echoed to a terminal or a client (a protocol reply, a command
 * line's error) comes through here, so that what a user or a file sent
 * cannot drive the other end: a newline becomes \n, a tab \t, other
 * control characters (below 0x20, 0x7f) and every byte that is not part
 * of well-formed UTF-8 (stray continuation bytes, overlong forms,
 * surrogates, cut sequences) \xNN; printable ASCII and well-formed UTF-8
 * stay. The n bytes of src go to dst (cap bytes, NUL-terminated, cut
 * between characters, never inside an escape). Returns dst. */
char *text_escape(char *dst, size_t cap, const char *src, size_t n);
#define CHECKSUM64_INIT 0xcbf29ce484222325ULL

#endif

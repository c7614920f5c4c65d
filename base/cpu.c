/* The CPU, OpenBLAS's core for it, and the threads of `threads = auto`. */
#include "base/cpu.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#define CPU_LINUX 1 /* affinity and cgroups to read */
#else
#define CPU_LINUX 0
#endif

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__)
#include <cpuid.h>
#define CPU_X86 1
#else
#define CPU_X86 0
#endif

/* ---- The CPU ------------------------------------------------------------------ */
static const char *const feature_names[CPU_F_COUNT] = {
    "avx",      "avx2",        "fma",         "avx512f",  "avx512dq", "avx512bw",
    "avx512vl", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx"};

unsigned cpu_features_parse(const char *text) {
  unsigned f = 0;
  char word[32];
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, " ,");
    if (n > 0 && n < sizeof word) {
      memcpy(word, p, n);
      word[n] = 0;
      for (int i = 0; i < CPU_F_COUNT; i++)
        if (!strcmp(word, feature_names[i])) f |= 1u << i;
    }
    p += n;
    p += strspn(p, " ,");
  }
  return f;
}

#if CPU_X86
static unsigned long long xcr0(void) {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}
#endif

unsigned cpu_features_decode(const cpu_regs *r) {
  if (r->max_leaf < 1) return 0;
  /* AVX state needs XCR0 bits 1-2, AVX-512 bits 5-7, AMX tiles 17-18;
   * XCR0 means something only where the OS enabled XSAVE (OSXSAVE). */
  unsigned long long x = (r->c1 >> 27 & 1) ? r->xcr0 : 0;
  int os_avx = (x & 0x6) == 0x6, os_512 = os_avx && (x & 0xe0) == 0xe0,
      os_amx = (x & 0x60000) == 0x60000;
  unsigned f = 0;
  if (os_avx && (r->c1 >> 28 & 1)) f |= CPU_F_AVX;
  if (os_avx && (r->c1 >> 12 & 1)) f |= CPU_F_FMA;
  if (r->max_leaf < 7) return f;
  if (os_avx && (r->b7 >> 5 & 1)) f |= CPU_F_AVX2;
  if (os_512) {
    if (r->b7 >> 16 & 1) f |= CPU_F_AVX512F;
    if (r->b7 >> 17 & 1) f |= CPU_F_AVX512DQ;
    if (r->b7 >> 30 & 1) f |= CPU_F_AVX512BW;
    if (r->b7 >> 31 & 1) f |= CPU_F_AVX512VL;
    if (r->c7 >> 11 & 1) f |= CPU_F_AVX512_VNNI;
  }
  /* AMX-TILE (24) with AMX-BF16 (22) and AMX-INT8 (25). */
  if (os_amx && (r->d7 >> 24 & 1) && (r->d7 >> 22 & 1) && (r->d7 >> 25 & 1)) f |= CPU_F_AMX;
  if (r->a7 >= 1) {
    if (os_512 && (r->a71 >> 5 & 1)) f |= CPU_F_AVX512_BF16;
    if (os_avx && (r->a71 >> 4 & 1)) f |= CPU_F_AVX_VNNI;
  }
  return f;
}

void cpu_detect(cpu_info *ci) {
  memset(ci, 0, sizeof *ci);
  ci->family = ci->model = -1;
#if CPU_X86
  cpu_regs rg;
  memset(&rg, 0, sizeof rg);
  unsigned a, b, c, d;
  rg.max_leaf = (unsigned)__get_cpuid_max(0, NULL);
  if (rg.max_leaf < 1) return;
  __cpuid(0, a, b, c, d);
  memcpy(ci->vendor, &b, 4);
  memcpy(ci->vendor + 4, &d, 4);
  memcpy(ci->vendor + 8, &c, 4);
  __cpuid(1, a, b, c, d);
  int fam = (int)(a >> 8 & 0xf), model = (int)(a >> 4 & 0xf);
  if (fam == 0xf) fam += (int)(a >> 20 & 0xff);
  if (fam == 6 || fam >= 0xf) model += (int)(a >> 16 & 0xf) << 4;
  ci->family = fam;
  ci->model = model;
  rg.c1 = c;
  if (c >> 27 & 1) rg.xcr0 = xcr0();
  if (rg.max_leaf >= 7) {
    __cpuid_count(7, 0, rg.a7, rg.b7, rg.c7, rg.d7);
    if (rg.a7 >= 1) __cpuid_count(7, 1, rg.a71, b, c, d);
  }
  unsigned f = cpu_features_decode(&rg);
  const char *only = getenv(CPU_FEATURES_ENV);
  ci->features = only ? f & cpu_features_parse(only) : f;
  if ((unsigned)__get_cpuid_max(0x80000000, NULL) >= 0x80000004u) {
    unsigned r[12];
    for (unsigned i = 0; i < 3; i++)
      __cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
    memcpy(ci->name, r, 48);
    ci->name[48] = 0;
    /* Brand strings are padded with spaces on either side. */
    char *s = ci->name + strspn(ci->name, " ");
    memmove(ci->name, s, strlen(s) + 1);
    for (size_t n = strlen(ci->name); n > 0 && ci->name[n - 1] == ' ';) ci->name[--n] = 0;
  }
#endif
}

unsigned cpu_features_once(void) {
  static atomic_uint feat;
  static atomic_int known;
  if (!atomic_load(&known)) {
    cpu_info ci;
    cpu_detect(&ci);
    atomic_store(&feat, ci.features);
    atomic_store(&known, 1);
  }
  return atomic_load(&feat);
}

int cpu_level(unsigned f) {
  const unsigned l512 = CPU_F_AVX512F | CPU_F_AVX512DQ | CPU_F_AVX512BW | CPU_F_AVX512VL;
  if ((f & l512) == l512 && (f & CPU_F_AVX2)) return CPU_LEVEL_AVX512;
  if ((f & (CPU_F_AVX2 | CPU_F_FMA)) == (CPU_F_AVX2 | CPU_F_FMA)) return CPU_LEVEL_AVX2;
  if (f & CPU_F_AVX) return CPU_LEVEL_AVX;
  return CPU_LEVEL_SSE;
}

const char *cpu_level_name(int level) {
  static const char *const names[] = {"SSE", "AVX", "AVX2", "AVX-512"};
  return level >= 0 && level <= 3 ? names[level] : "?";
}

void cpu_features_string(unsigned f, char *buf, size_t len) {
  size_t at = 0;
  if (len) buf[0] = 0;
  for (int i = 0; i < CPU_F_COUNT && at < len; i++)
    if (f >> i & 1)
      at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "", feature_names[i]);
  if (!f && len) snprintf(buf, len, "none");
}

int cpu_missing(unsigned need, unsigned have, char *buf, size_t len) {
  unsigned lack = need & ~have;
  if (len) buf[0] = 0;
  if (!lack) return 0;
  char f[160];
  cpu_features_string(lack, f, sizeof f);
  snprintf(buf, len, "this build needs %s, which this CPU lacks", f);
  return 1;
}

void cpu_describe(const cpu_info *ci, char *buf, size_t len) {
  snprintf(buf, len, "%s (%s family %d model %d)", ci->name[0] ? ci->name : "unknown CPU",
           ci->vendor[0] ? ci->vendor : "unknown vendor", ci->family, ci->model);
}

/* ---- OpenBLAS's core ---------------------------------------------------------------
 * The x86-64 cores of OpenBLAS's dynamic builds by the instructions their
 * kernels use. A name not here (a newer core) is never overridden. */
static const struct {
  const char *name;
  int level;
} blas_cores[] = {
    {"Unknown", 0},     {"Katmai", 0},       {"Coppermine", 0},     {"Northwood", 0},
    {"Prescott", 0},    {"Banias", 0},       {"Atom", 0},           {"Core2", 0},
    {"Penryn", 0},      {"Dunnington", 0},   {"Nehalem", 0},        {"Athlon", 0},
    {"Opteron", 0},     {"Opteron_SSE3", 0}, {"Barcelona", 0},      {"Nano", 0},
    {"Bobcat", 0},      {"Sandybridge", 1},  {"Bulldozer", 1},      {"Piledriver", 1},
    {"Steamroller", 1}, {"Excavator", 1},    {"Haswell", 2},        {"Zen", 2},
    {"SkylakeX", 3},    {"Cooperlake", 3},   {"SapphireRapids", 3},
};

int cpu_blas_core_level(const char *core) {
  if (!core) return -1;
  for (size_t i = 0; i < sizeof blas_cores / sizeof blas_cores[0]; i++)
    if (!strcasecmp(core, blas_cores[i].name)) return blas_cores[i].level;
  return -1;
}

void cpu_blas_decide(unsigned features, const char *vendor, const char *core, const char *user_var,
                     cpu_blas_choice *out) {
  out->use = NULL;
  out->cpu_level = cpu_level(features);
  out->core_level = cpu_blas_core_level(core);
  out->user = user_var && user_var[0];
  if (out->user || out->core_level < 0 || out->core_level >= out->cpu_level) return;
  switch (out->cpu_level) {
    case CPU_LEVEL_AVX512:
      out->use = "SkylakeX";
      break;
    case CPU_LEVEL_AVX2:
      out->use = vendor && !strcmp(vendor, "AuthenticAMD") ? "Zen" : "Haswell";
      break;
    case CPU_LEVEL_AVX:
      out->use = "Sandybridge";
      break;
  }
}

/* ---- Threads for self-play -------------------------------------------------------- */
void cpu_threads_auto(const cpu_budget *b, cpu_threads *out) {
  int usable = b->allowed > 0 ? b->allowed : 1;
  char quota[48] = "no CPU quota", ranks[64] = "";
  if (b->quota > 0) {
    int q = (int)floor(b->quota + 1e-9);
    if (q < 1) q = 1;
    if (q < usable) usable = q;
    snprintf(quota, sizeof quota, "CPU quota %.2f cores", b->quota);
  }
  if (b->local_ranks > 1) {
    if (b->allowed >= b->online) {
      usable = usable / b->local_ranks > 0 ? usable / b->local_ranks : 1;
      snprintf(ranks, sizeof ranks, ", shared by %d ranks on the node", b->local_ranks);
    } else {
      snprintf(ranks, sizeof ranks, ", this rank's own (%d ranks on the node)", b->local_ranks);
    }
  }
  int t = usable - b->learner;
  out->threads = t > 0 ? t : 1;
  out->usable = usable;
  snprintf(out->why, sizeof out->why,
           "%d usable core%s (affinity %d of %d, %s%s) less %d for the learner", usable,
           usable == 1 ? "" : "s", b->allowed, b->online, quota, ranks, b->learner);
}

double cpu_quota_v2(const char *s) {
  char q[32];
  long period = 0;
  if (!s || sscanf(s, "%31s %ld", q, &period) != 2 || period <= 0) return 0;
  if (!strcmp(q, "max")) return 0;
  char *end;
  long quota = strtol(q, &end, 10);
  if (*end || quota <= 0) return 0;
  return (double)quota / (double)period;
}

double cpu_quota_v1(long quota_us, long period_us) {
  return quota_us > 0 && period_us > 0 ? (double)quota_us / (double)period_us : 0;
}

int cpu_cgroup_dir(const char *text, char *dir, size_t len) {
  if (len) dir[0] = 0;
  for (const char *l = text; *l;) {
    size_t n = strcspn(l, "\n");
    const char *c = memchr(l, ':', n), *c2 = c ? memchr(c + 1, ':', n - (size_t)(c + 1 - l)) : NULL;
    if (n >= 3 && !strncmp(l, "0::", 3)) snprintf(dir, len, "%.*s", (int)(n - 3), l + 3);
    if (c && c2 && (!strncmp(c + 1, "cpu:", 4) || !strncmp(c + 1, "cpu,", 4))) {
      snprintf(dir, len, "%.*s", (int)(n - (size_t)(c2 + 1 - l)), c2 + 1);
      return 1;
    }
    l += n;
    l += *l == '\n';
  }
  return 0;
}

#if CPU_LINUX
static int read_text(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, len - 1, f);
  fclose(f);
  buf[n] = 0;
  return 0;
}
#endif

/* The smallest quota on the way from the process's cgroup up to the root
 * (a container often sees its own cgroup as the root). */
static double probe_quota(void) {
#if !CPU_LINUX
  return 0;
#else
  char text[4096], path[1200], dir[1024] = "";
  int v1 = 0;
  if (read_text("/proc/self/cgroup", text, sizeof text) == 0)
    v1 = cpu_cgroup_dir(text, dir, sizeof dir);
  double best = 0;
  for (;;) {
    double q = 0;
    if (v1) {
      long quota = 0, period = 0;
      char t[64];
      const char *roots[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"};
      for (int r = 0; r < 2 && q == 0; r++) {
        snprintf(path, sizeof path, "%s%s/cpu.cfs_quota_us", roots[r], dir);
        if (read_text(path, t, sizeof t) != 0) continue;
        quota = atol(t);
        snprintf(path, sizeof path, "%s%s/cpu.cfs_period_us", roots[r], dir);
        if (read_text(path, t, sizeof t) == 0) period = atol(t);
        q = cpu_quota_v1(quota, period);
      }
    } else {
      char t[64];
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", dir);
      if (read_text(path, t, sizeof t) == 0) q = cpu_quota_v2(t);
    }
    if (q > 0 && (best == 0 || q < best)) best = q;
    char *slash = strrchr(dir, '/');
    if (!dir[0] || !slash) break;
    *slash = 0; /* "/a/b" to "/a", "/a" to "" (the root) */
  }
  return best;
#endif
}

void cpu_budget_probe(cpu_budget *b, int learner) {
  long on = sysconf(_SC_NPROCESSORS_ONLN);
  b->online = on > 0 ? (int)on : 1;
  b->allowed = b->online;
#if CPU_LINUX && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    b->allowed = CPU_COUNT(&set);
#endif
  b->quota = probe_quota();
  const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int n = lr ? atoi(lr) : 1;
  b->local_ranks = n > 0 ? n : 1;
  b->learner = learner;
}

/* ---- An idle machine ---------------------------------------------------------------- */
void cpu_idle_init(cpu_idle_watch *w, int usable, double window) {
  memset(w, 0, sizeof *w);
  w->usable = usable;
  w->window = window;
  w->tp = w->t0 = -1;
}

int cpu_idle_feed(cpu_idle_watch *w, double wall, double cpu) {
  if (w->warned) return 0;
  if (w->tp < 0 || wall <= w->tp) {
    w->tp = wall, w->cpup = cpu;
    return 0;
  }
  double half = w->usable / 2.0, busy = (cpu - w->cpup) / (wall - w->tp);
  if (busy >= half) {
    w->t0 = -1;
  } else if (w->t0 < 0) {
    w->t0 = w->tp, w->cpu0 = w->cpup;
  }
  w->tp = wall, w->cpup = cpu;
  if (w->t0 < 0 || wall - w->t0 < w->window) return 0;
  w->busy = (cpu - w->cpu0) / (wall - w->t0);
  w->warned = 1;
  return 1;
}

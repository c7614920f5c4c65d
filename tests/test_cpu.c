/* The CPU module (base/cpu.h) and OpenBLAS's core (nn/blas_core.h): the
 * decision of which OpenBLAS core a CPU needs, the threads of
 * `threads = auto`, cgroup quotas, the idle-machine watch, the machine's
 * readings closing what they open; and, end to end,
 * the `sowzero` binary started without OPENBLAS_CORETYPE reporting a core
 * that matches this machine's features. */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/cpu.h"
#include "base/json.h"
#include "base/kv.h"
#include "nn/blas_core.h"
#include "trainer/config.h"
#include "trainer/machine.h"
#include "tests/testutil.h"

static const unsigned AVX2 = CPU_F_AVX | CPU_F_AVX2 | CPU_F_FMA;
static const unsigned AVX512 = CPU_F_AVX | CPU_F_AVX2 | CPU_F_FMA | CPU_F_AVX512F | CPU_F_AVX512DQ |
                               CPU_F_AVX512BW | CPU_F_AVX512VL;

/* Each OpenBLAS core's level is the newest vector instructions its x86-64
 * kernels use (0: SSE only, 1: AVX, 2: AVX2 and FMA, 3: AVX-512), from the
 * CPUs the cores are named after; names are matched without case, and a
 * name OpenBLAS may add later is unknown (-1). */
START_TEST(blas_core_levels_are_the_cpus) {
  static const char *const sse[] = {"Katmai",       "Coppermine", "Northwood", "Prescott",
                                    "Banias",       "Atom",       "Core2",     "Penryn",
                                    "Dunnington",   "Nehalem",    "Athlon",    "Opteron",
                                    "Opteron_SSE3", "Barcelona",  "Nano",      "Bobcat"};
  static const char *const avx[] = {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller",
                                    "Excavator"};
  static const char *const avx2[] = {"Haswell", "Zen"};
  static const char *const avx512[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  for (size_t i = 0; i < sizeof sse / sizeof *sse; i++)
    ck_assert_msg(cpu_blas_core_level(sse[i]) == 0, "%s", sse[i]);
  for (size_t i = 0; i < sizeof avx / sizeof *avx; i++)
    ck_assert_msg(cpu_blas_core_level(avx[i]) == 1, "%s", avx[i]);
  for (size_t i = 0; i < sizeof avx2 / sizeof *avx2; i++)
    ck_assert_msg(cpu_blas_core_level(avx2[i]) == 2, "%s", avx2[i]);
  for (size_t i = 0; i < sizeof avx512 / sizeof *avx512; i++)
    ck_assert_msg(cpu_blas_core_level(avx512[i]) == 3, "%s", avx512[i]);
  ck_assert_int_eq(cpu_blas_core_level("haswell"), 2);
  ck_assert_int_eq(cpu_blas_core_level("SKYLAKEX"), 3);
  ck_assert_int_eq(cpu_blas_core_level("Zen5"), -1);
  ck_assert_int_eq(cpu_blas_core_level(""), -1);
}
END_TEST

/* One row of the decision table: the CPU, OpenBLAS's choice, the user's
 * variable, and the core SowZero must ask for (NULL: none). */
typedef struct {
  const char *what;
  unsigned features;
  const char *vendor, *core, *user, *want;
  int cpu_level, core_level;
} decision_case;

START_TEST(blas_decision_table) {
  const unsigned bf16 = CPU_F_AVX512_BF16 | CPU_F_AVX512_VNNI | CPU_F_AVX_VNNI;
  const decision_case cases[] = {
      /* Intel CPUs with AVX-512 that 0.3.21 does not know fall back to SSE. */
      {"Xeon family 6 model 207", AVX512 | bf16 | CPU_F_AMX, "GenuineIntel", "Prescott", NULL,
       "SkylakeX", 3, 0},
      {"Xeon model 143, unset var as empty", AVX512 | bf16 | CPU_F_AMX, "GenuineIntel", "Prescott",
       "", "SkylakeX", 3, 0},
      /* Zen 4: OpenBLAS picks its AVX2 Zen core; Zen 5 it does not know. */
      {"Zen 4", AVX512 | bf16, "AuthenticAMD", "Zen", NULL, "SkylakeX", 3, 2},
      {"Zen 5", AVX512 | bf16, "AuthenticAMD", "Prescott", NULL, "SkylakeX", 3, 0},
      /* AVX2-only CPUs: the vendor's AVX2 core. */
      {"AVX2 Intel unknown", AVX2, "GenuineIntel", "Prescott", NULL, "Haswell", 2, 0},
      {"AVX2 AMD unknown", AVX2, "AuthenticAMD", "Barcelona", NULL, "Zen", 2, 0},
      {"AVX2 Intel on Sandybridge", AVX2, "GenuineIntel", "Sandybridge", NULL, "Haswell", 2, 1},
      {"AVX only", CPU_F_AVX, "GenuineIntel", "Nehalem", NULL, "Sandybridge", 1, 0},
      /* CPUs the build knows: nothing to do. */
      {"Skylake-SP", AVX512, "GenuineIntel", "SkylakeX", NULL, NULL, 3, 3},
      {"Cooper Lake", AVX512 | bf16, "GenuineIntel", "Cooperlake", NULL, NULL, 3, 3},
      {"Zen 3", AVX2, "AuthenticAMD", "Zen", NULL, NULL, 2, 2},
      {"Haswell", AVX2, "GenuineIntel", "Haswell", NULL, NULL, 2, 2},
      {"names in any case", AVX512, "GenuineIntel", "skylakex", NULL, NULL, 3, 3},
      /* The user's variable is kept, even below the CPU. */
      {"user's Haswell", AVX512 | bf16, "GenuineIntel", "Haswell", "Haswell", NULL, 3, 2},
      {"user's Prescott", AVX512, "GenuineIntel", "Prescott", "Prescott", NULL, 3, 0},
      /* Without AVX no core is better than OpenBLAS's. */
      {"no AVX", 0, "GenuineIntel", "Nehalem", NULL, NULL, 0, 0},
      {"no AVX, Prescott", 0, "GenuineIntel", "Prescott", NULL, NULL, 0, 0},
      /* AVX-512F without BW/VL (Knights Landing): AVX2 kernels. */
      {"AVX-512F only", AVX2 | CPU_F_AVX512F, "GenuineIntel", "Prescott", NULL, "Haswell", 2, 0},
      /* A core this table does not know is newer: never overridden. */
      {"unknown core", AVX512, "GenuineIntel", "GraniteRapids", NULL, NULL, 3, -1},
      {"no OpenBLAS", AVX512, "GenuineIntel", "none", NULL, NULL, 3, -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const decision_case *c = &cases[i];
    cpu_blas_choice ch;
    cpu_blas_decide(c->features, c->vendor, c->core, c->user, &ch);
    ck_assert_msg(c->want ? ch.use && !strcmp(ch.use, c->want) : ch.use == NULL,
                  "%s: asked for %s, want %s", c->what, ch.use ? ch.use : "nothing",
                  c->want ? c->want : "nothing");
    ck_assert_msg(ch.cpu_level == c->cpu_level, "%s: cpu level %d", c->what, ch.cpu_level);
    ck_assert_msg(ch.core_level == c->core_level, "%s: core level %d", c->what, ch.core_level);
    ck_assert_int_eq(ch.user, c->user && c->user[0]);
    /* Whatever is asked for is itself a core of the CPU's level. */
    if (ch.use) ck_assert_int_eq(cpu_blas_core_level(ch.use), ch.cpu_level);
  }
}
END_TEST

/* The threads of `threads = auto` for a budget. */
static cpu_threads resolve(int online, int allowed, double quota, int ranks, int learner) {
  cpu_budget b = {online, allowed, quota, ranks, learner};
  cpu_threads t;
  cpu_threads_auto(&b, &t);
  return t;
}

START_TEST(threads_auto_resolution) {
  const struct {
    int online, allowed;
    double quota;
    int ranks, learner, threads, usable;
  } cases[] = {
      {2, 1, 0, 1, 1, 1, 1},     /* taskset -c 0 on this machine: still one */
      {1, 1, 0, 1, 1, 1, 1},     /* one CPU */
      {2, 2, 0, 1, 1, 1, 2},     /* this machine: one plus the learner */
      {16, 16, 0, 1, 1, 15, 16}, /* a 16-core node */
      {64, 64, 0, 1, 1, 63, 64}, /* a 64-core node */
      {64, 16, 0, 1, 1, 15, 16}, /* affinity narrower than the machine */
      {64, 64, 8, 1, 1, 7, 8},   /* a cgroup quota of 8 cores */
      {64, 64, 2.5, 1, 1, 1, 2}, /* whole cores of a fractional quota */
      {16, 16, 0.5, 1, 1, 1, 1}, /* under one core: still one thread */
      {16, 4, 8, 1, 1, 3, 4},    /* the smaller of affinity and quota */
      {64, 64, 0, 4, 1, 15, 16}, /* four ranks share the node: the learner's */
      {64, 64, 0, 4, 0, 16, 16}, /* ... and an actor's share */
      {64, 64, 16, 4, 0, 4, 4},  /* the quota shared too */
      {64, 16, 0, 4, 0, 16, 16}, /* mpirun bound each rank: its own cores */
      {2, 2, 0, 2, 1, 1, 1},     /* two ranks on this machine */
      {2, 2, 0, 4, 0, 1, 1},     /* more ranks than cores */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cpu_threads t = resolve(cases[i].online, cases[i].allowed, cases[i].quota, cases[i].ranks,
                            cases[i].learner);
    ck_assert_msg(t.threads == cases[i].threads && t.usable == cases[i].usable,
                  "case %zu: %d threads of %d usable (%s)", i, t.threads, t.usable, t.why);
    ck_assert_ptr_nonnull(strstr(t.why, "usable"));
  }
  ck_assert_ptr_nonnull(strstr(resolve(64, 64, 8, 1, 1).why, "quota 8.00"));
  ck_assert_ptr_nonnull(strstr(resolve(64, 64, 0, 4, 1).why, "4 ranks"));
}
END_TEST

START_TEST(cgroup_quotas_parse) {
  ck_assert_double_eq_tol(cpu_quota_v2("150000 100000\n"), 1.5, 1e-12);
  ck_assert_double_eq_tol(cpu_quota_v2("800000 100000"), 8, 1e-12);
  ck_assert(cpu_quota_v2("max 100000\n") == 0);
  ck_assert(cpu_quota_v2("") == 0);
  ck_assert(cpu_quota_v2("12x 100000") == 0);
  ck_assert(cpu_quota_v2("100000 0") == 0);
  ck_assert(cpu_quota_v2(NULL) == 0);
  ck_assert_double_eq_tol(cpu_quota_v1(200000, 100000), 2, 1e-12);
  ck_assert(cpu_quota_v1(-1, 100000) == 0);
  ck_assert(cpu_quota_v1(50000, 0) == 0);
  /* The cgroup: v1's cpu controller wherever it is listed (a v2 line
   * beside it too), else v2's; neither: the root. */
  static const struct {
    const char *text, *dir;
    int v1;
  } cg[] = {{"0::/user.slice/session-3.scope\n", "/user.slice/session-3.scope", 0},
            {"12:cpuset:/a\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/x\n", "/docker/abc", 1},
            {"3:cpu:/c\n0::/u", "/c", 1},
            {"0::/u\n\n2:cpuacct,cpu:/no\n5:cpu,cpuacct:/k", "/k", 1},
            {"5:cpuset:/s\n", "", 0},
            {"", "", 0}};
  for (size_t i = 0; i < sizeof cg / sizeof cg[0]; i++) {
    char dir[64] = "junk";
    ck_assert_int_eq(cpu_cgroup_dir(cg[i].text, dir, sizeof dir), cg[i].v1);
    ck_assert_str_eq(dir, cg[i].dir);
  }
  /* This process's own budget is sane whatever the machine. */
  cpu_budget b;
  cpu_budget_probe(&b, 1);
  ck_assert(b.online >= 1 && b.allowed >= 1 && b.allowed <= b.online && b.quota >= 0);
  ck_assert(b.local_ranks >= 1 && b.learner == 1);
}
END_TEST

START_TEST(idle_watch_says_so_once) {
  cpu_idle_watch w;
  /* 4 usable cores, 1 busy: says so once the low stretch lasts 60 s. The
   * clocks start elsewhere than 0, as a process's do. */
  cpu_idle_init(&w, 4, 60);
  int fired = 0, at = -1;
  for (int s = 100; s <= 300; s += 10)
    if (cpu_idle_feed(&w, s, 7.0 + 1.0 * s)) fired++, at = s;
  ck_assert_int_eq(fired, 1);
  ck_assert_int_eq(at, 160);
  ck_assert_double_eq_tol(w.busy, 1.0, 1e-9);
  /* 3 of 4 busy: never. */
  cpu_idle_init(&w, 4, 60);
  for (int s = 0; s <= 600; s += 10) ck_assert(!cpu_idle_feed(&w, s, 3.0 * s));
  /* Busy spells reset the stretch: 50 s low, 10 s busy, and so on. */
  cpu_idle_init(&w, 4, 60);
  double cpu = 0;
  for (int s = 10; s <= 600; s += 10) {
    cpu += (s % 60 == 0 ? 4.0 : 0.5) * 10;
    ck_assert(!cpu_idle_feed(&w, s, cpu));
  }
}
END_TEST

/* A build's instructions against a CPU's: what lacks is named. */
START_TEST(missing_instructions_are_named) {
  char buf[256];
  ck_assert_int_eq(cpu_missing(AVX2, CPU_F_AVX, buf, sizeof buf), 1);
  ck_assert_msg(strstr(buf, "avx2 fma") && !strstr(buf, "avx "), "%s", buf);
  ck_assert_int_eq(cpu_missing(AVX512 | CPU_F_AVX512_BF16, AVX2, buf, sizeof buf), 1);
  ck_assert_msg(strstr(buf, "avx512f") && strstr(buf, "avx512_bf16") && !strstr(buf, "avx2"), "%s",
                buf);
  ck_assert_int_eq(cpu_missing(AVX2, AVX512, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "");
  ck_assert_int_eq(cpu_missing(0, 0, buf, sizeof buf), 0);
}
END_TEST

START_TEST(feature_names_round_trip) {
  char buf[256];
  unsigned all = (1u << CPU_F_COUNT) - 1;
  cpu_features_string(all, buf, sizeof buf);
  ck_assert_uint_eq(cpu_features_parse(buf), all);
  cpu_features_string(AVX2, buf, sizeof buf);
  ck_assert_str_eq(buf, "avx avx2 fma");
  ck_assert_uint_eq(cpu_features_parse("fma,avx2  bogus avx"), AVX2);
  ck_assert_uint_eq(cpu_features_parse(""), 0);
  /* The override only takes features away. */
  setenv(CPU_FEATURES_ENV, "avx avx2 fma amx", 1);
  cpu_info ci;
  cpu_detect(&ci);
  ck_assert_uint_eq(ci.features & ~(AVX2 | CPU_F_AMX), 0);
  unsetenv(CPU_FEATURES_ENV);
}
END_TEST

/* The decoding of cpuid's registers, on machines this one is not. Each
 * feature rests on its cpuid bits and on the register state the OS saves:
 * clearing any one of those bits, from a CPU with everything, takes away
 * exactly the features that rest on it. */
typedef struct {
  int reg; /* 0: leaf 1 ECX, 1: leaf 7 EBX, 2: ECX, 3: EDX, 4: leaf 7.1 EAX, 5: XCR0 */
  int bit;
  unsigned lose;
} cpu_bit;

START_TEST(registers_decode_to_features) {
  const unsigned all = (1u << CPU_F_COUNT) - 1, f512 = CPU_F_AVX512F | CPU_F_AVX512DQ |
                                                       CPU_F_AVX512BW | CPU_F_AVX512VL |
                                                       CPU_F_AVX512_VNNI | CPU_F_AVX512_BF16;
  /* A Sapphire Rapids: everything. */
  const cpu_regs spr = {.max_leaf = 0x20,
                        .c1 = 1u << 12 | 1u << 27 | 1u << 28,
                        .a7 = 1,
                        .b7 = 1u << 5 | 1u << 16 | 1u << 17 | 1u << 30 | 1u << 31,
                        .c7 = 1u << 11,
                        .d7 = 1u << 22 | 1u << 24 | 1u << 25,
                        .a71 = 1u << 4 | 1u << 5,
                        .xcr0 = 0x600e7};
  ck_assert_uint_eq(cpu_features_decode(&spr), all);
  static const cpu_bit bits[] = {{0, 12, CPU_F_FMA},
                                 {0, 28, CPU_F_AVX},
                                 {1, 5, CPU_F_AVX2},
                                 {1, 16, CPU_F_AVX512F},
                                 {1, 17, CPU_F_AVX512DQ},
                                 {1, 30, CPU_F_AVX512BW},
                                 {1, 31, CPU_F_AVX512VL},
                                 {2, 11, CPU_F_AVX512_VNNI},
                                 {3, 22, CPU_F_AMX},
                                 {3, 24, CPU_F_AMX},
                                 {3, 25, CPU_F_AMX},
                                 {4, 4, CPU_F_AVX_VNNI},
                                 {4, 5, CPU_F_AVX512_BF16},
                                 {5, 1, all & ~CPU_F_AMX},
                                 {5, 2, all & ~CPU_F_AMX},
                                 {5, 5, f512},
                                 {5, 6, f512},
                                 {5, 7, f512},
                                 {5, 17, CPU_F_AMX},
                                 {5, 18, CPU_F_AMX},
                                 {0, 27, all} /* no OSXSAVE: XCR0 says nothing */};
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
    cpu_regs r = spr;
    unsigned *word[] = {&r.c1, &r.b7, &r.c7, &r.d7, &r.a71};
    if (bits[i].reg < 5)
      *word[bits[i].reg] &= ~(1u << bits[i].bit);
    else
      r.xcr0 &= ~(1ull << bits[i].bit);
    ck_assert_msg(cpu_features_decode(&r) == (all & ~bits[i].lose),
                  "register %d bit %d clear: features %#x, want %#x", bits[i].reg, bits[i].bit,
                  cpu_features_decode(&r), all & ~bits[i].lose);
  }
  /* Leaf 7 subleaf 1 only where leaf 7 says it exists; leaf 7 only where
   * the highest leaf reaches it; nothing without leaf 1. */
  cpu_regs r = spr;
  r.a7 = 0;
  ck_assert_uint_eq(cpu_features_decode(&r), all & ~(CPU_F_AVX_VNNI | CPU_F_AVX512_BF16));
  r = spr;
  r.max_leaf = 6;
  ck_assert_uint_eq(cpu_features_decode(&r), CPU_F_AVX | CPU_F_FMA);
  r.max_leaf = 0;
  ck_assert_uint_eq(cpu_features_decode(&r), 0);
  /* A Zen 3: AVX2 and FMA, no AVX-512 (its OS saves no AVX-512 state). */
  const cpu_regs zen3 = {
      .max_leaf = 0x10, .c1 = 1u << 12 | 1u << 27 | 1u << 28, .b7 = 1u << 5, .xcr0 = 0x7};
  ck_assert_uint_eq(cpu_features_decode(&zen3), AVX2);
}
END_TEST

/* /proc/cpuinfo, read whole after a newline (so that every field starts
 * one), and one of its fields (the first CPU's) without the spaces after
 * the colon. */
static const char *read_cpuinfo(void) {
  static char text[1 << 16];
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return NULL; /* not Linux */
  text[0] = '\n';
  size_t n = fread(text + 1, 1, sizeof text - 2, f);
  fclose(f);
  text[n + 1] = 0;
  return text;
}

static const char *cpuinfo_field(const char *text, const char *key, char *out, size_t len) {
  char head[64];
  snprintf(head, sizeof head, "\n%s\t", key);
  const char *at = strstr(text, head);
  if (!at || !(at = strchr(at, ':'))) return NULL;
  at += strspn(at + 1, " ") + 1;
  snprintf(out, len, "%.*s", (int)strcspn(at, "\n"), at);
  return out;
}

/* Every feature Linux reports usable (/proc/cpuinfo's flags, which the
 * kernel clears for registers it does not save) is one cpuid and xgetbv
 * give: each named alike, AMX as its tiles with bf16 and int8. (Not the
 * converse: an older kernel may not know a newer feature's name.) */
START_TEST(features_agree_with_the_kernel) {
  const char *text = read_cpuinfo();
  static char flags[1 << 16];
  /* not Linux, or features taken away on purpose */
  if (!text || getenv(CPU_FEATURES_ENV)) return;
  flags[0] = ' ';
  if (!cpuinfo_field(text, "flags", flags + 1, sizeof flags - 2)) return;
  strcat(flags, " ");
  cpu_info ci;
  cpu_detect(&ci);
  for (int i = 0; i < CPU_F_COUNT; i++) {
    char name[64], word[72];
    cpu_features_string(1u << i, name, sizeof name);
    int has;
    if (!strcmp(name, "amx"))
      has =
          strstr(flags, " amx_tile ") && strstr(flags, " amx_bf16 ") && strstr(flags, " amx_int8 ");
    else
      snprintf(word, sizeof word, " %s ", name), has = strstr(flags, word) != NULL;
    ck_assert_msg(!has || (ci.features >> i & 1), "%s: the kernel has it, cpuid not", name);
  }
}
END_TEST

/* The CPU's identity as cpuid gives it is the kernel's: vendor, display
 * family and model, and the brand string (both without leading spaces). */
START_TEST(identity_agrees_with_the_kernel) {
  const char *text = read_cpuinfo();
  char vendor[64], family[16], model[16], name[128];
  if (!text || !cpuinfo_field(text, "vendor_id", vendor, sizeof vendor)) return; /* not x86 */
  cpu_info ci;
  cpu_detect(&ci);
  ck_assert_str_eq(ci.vendor, vendor);
  ck_assert_ptr_nonnull(cpuinfo_field(text, "cpu family", family, sizeof family));
  ck_assert_ptr_nonnull(cpuinfo_field(text, "model", model, sizeof model));
  ck_assert_int_eq(ci.family, atoi(family));
  ck_assert_int_eq(ci.model, atoi(model));
  if (cpuinfo_field(text, "model name", name, sizeof name)) {
    size_t k = strlen(name);
    while (k > 0 && name[k - 1] == ' ') name[--k] = 0;
    ck_assert_str_eq(ci.name, name);
  }
}
END_TEST

/* Settings of `threads = auto`: an integer or the word, and back. */
typedef struct {
  int threads;
} auto_cfg;

/* The advice on OpenBLAS's core is a message exactly when there is one:
 * the buffer holds nothing else (a library's caller shows what it gets),
 * and a buffer too small for it is never overrun. */
START_TEST(core_advice_is_a_message_or_nothing) {
  char msg[512];
  memset(msg, 'x', sizeof msg);
  int advice = blas_core_advice(msg, sizeof msg);
  ck_assert_msg(advice == (msg[0] != 0), "advice %d, message \"%.40s\"", advice, msg);
  ck_assert_ptr_nonnull(memchr(msg, 0, sizeof msg));
  char tiny[4] = "xyz";
  ck_assert_int_eq(blas_core_advice(tiny, 1), advice);
  ck_assert_int_eq(tiny[0], 0);
  ck_assert_str_eq(tiny + 1, "yz");
  ck_assert_int_eq(blas_core_advice(NULL, 0), advice);
  /* A core the user chose is never advised against. */
  const char *was = getenv("OPENBLAS_CORETYPE"), *own = getenv(BLAS_CORE_OWN_ENV);
  char keep[64] = "", keep_own[64] = "";
  if (was) snprintf(keep, sizeof keep, "%s", was);
  if (own) snprintf(keep_own, sizeof keep_own, "%s", own);
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  unsetenv(BLAS_CORE_OWN_ENV);
  memset(msg, 'x', sizeof msg);
  ck_assert_int_eq(blas_core_advice(msg, sizeof msg), 0);
  ck_assert_str_eq(msg, "");
  if (was)
    setenv("OPENBLAS_CORETYPE", keep, 1);
  else
    unsetenv("OPENBLAS_CORETYPE");
  if (own) setenv(BLAS_CORE_OWN_ENV, keep_own, 1);
}
END_TEST

/* The readings of the machine close every file they open, and the
 * memory reading is the kernel's MemAvailable or less (a cgroup's limit). */
START_TEST(machine_readings_close_what_they_open) {
  int fds = test_open_fds();
  double mem = mem_available_bytes();
  FILE *f = fopen("/proc/meminfo", "r");
  double kb = -1;
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb > 0) ck_assert_msg(mem > 0 && mem <= 1.5 * kb * 1024, "%g of %g", mem, kb * 1024);
  ck_assert(disk_free_bytes("/") > 0);
  cpu_info ci;
  cpu_detect(&ci);
  cpu_budget b;
  cpu_budget_probe(&b, 1);
  ck_assert_int_eq(test_open_fds(), fds);
}
END_TEST

START_TEST(kv_auto_integers) {
  static const kv_key keys[] = {KV_IA("threads", auto_cfg, threads, 1, 64, "auto", "threads")};
  const kv_table t = KV_TABLE(keys);
  auto_cfg c = {5};
  char err[256], buf[64];
  ck_assert_int_eq(kv_defaults(&t, &c, err, sizeof err), 0);
  ck_assert_int_eq(c.threads, KV_AUTO);
  ck_assert_int_eq(kv_format(&keys[0], &c, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "auto");
  ck_assert_int_eq(kv_set(&t, &c, "threads", "7", err, sizeof err), 0);
  ck_assert_int_eq(c.threads, 7);
  ck_assert_int_eq(kv_format(&keys[0], &c, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "7");
  ck_assert_int_eq(kv_check(&t, &c, err, sizeof err), 0);
  ck_assert_int_eq(kv_set(&t, &c, "threads", "0", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "or auto"));
  ck_assert_int_eq(kv_set(&t, &c, "threads", "Auto", err, sizeof err), -1);
  ck_assert_int_eq(kv_set(&t, &c, "threads", "65", err, sizeof err), -1);
  ck_assert_int_eq(c.threads, 7);
  c.threads = KV_AUTO;
  ck_assert_int_eq(kv_check(&t, &c, err, sizeof err), 0);
}
END_TEST

/* A config's threads: auto by default, a number kept; a deterministic run
 * is refused auto (by the run, before it writes anything), naming both keys. */
START_TEST(config_threads_auto_and_numbers) {
  train_config *c = malloc(sizeof *c);
  char err[512], why[320];
  ck_assert_msg(config_parse(c, "t.ini", "[game]\nname = oware\n", err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(c->threads, KV_AUTO);
  cpu_budget b;
  cpu_threads t;
  cpu_budget_probe(&b, 1);
  cpu_threads_auto(&b, &t);
  int usable = 0;
  ck_assert_int_eq(machine_threads(c, 1, &usable, why, sizeof why), t.threads);
  ck_assert_int_eq(usable, t.usable);
  ck_assert_ptr_nonnull(strstr(why, "auto"));
  ck_assert_msg(config_parse(c, "t.ini", "[selfplay]\nthreads = 3\n", err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(machine_threads(c, 1, NULL, why, sizeof why), 3);
  ck_assert_int_eq(machine_check(c, err, sizeof err), 0);
  ck_assert_msg(config_parse(c, "t.ini", "[run]\ndeterministic = 1\n", err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(machine_check(c, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "selfplay.threads = auto") && strstr(err, "deterministic"), "%s", err);
  ck_assert_msg(config_parse(c, "t.ini", "[run]\ndeterministic = 1\n[selfplay]\nthreads = 2\n", err,
                             sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(machine_check(c, err, sizeof err), 0);
  ck_assert_int_eq(config_parse(c, "t.ini", "[selfplay]\nthreads = 0\n", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "or auto"), "%s", err);
  free(c);
}
END_TEST

/* The banner line and the feature list cut at any length are the whole
 * text's beginning, ended, and write nothing past the buffer they get. */
START_TEST(lines_cut_short_stay_in_their_buffer) {
  static char full[4096], out[4096 + 64];
  blas_system_line(full, sizeof full);
  size_t L = strlen(full);
  ck_assert_msg(L > 40 && L < sizeof full - 1, "%s", full);
  for (size_t len = 1; len <= L + 1; len++) {
    memset(out, 0x5a, sizeof out);
    blas_system_line(out, len);
    ck_assert_msg(strlen(out) == len - 1 && !strncmp(out, full, len - 1), "cut at %zu: %s", len,
                  out);
    for (size_t i = len; i < sizeof out; i++)
      ck_assert_msg(out[i] == 0x5a, "cut at %zu: byte %zu written", len, i);
  }
  const unsigned all = (1u << CPU_F_COUNT) - 1;
  cpu_features_string(all, full, sizeof full);
  L = strlen(full);
  for (size_t len = 1; len <= L + 1; len++) {
    memset(out, 0x5a, sizeof out);
    cpu_features_string(all, out, len);
    ck_assert_msg(!strncmp(out, full, strlen(out)) && strlen(out) < len, "cut at %zu: %s", len,
                  out);
    for (size_t i = len; i < sizeof out; i++)
      ck_assert_msg(out[i] == 0x5a, "features cut at %zu: byte %zu written", len, i);
  }
}
END_TEST

/* The system report is valid JSON naming the CPU, the core and the kernels. */
START_TEST(system_json_parses) {
  char buf[4096], doc[4200], err[256];
  ck_assert_int_eq(blas_system_json(buf, sizeof buf), 0);
  snprintf(doc, sizeof doc, "{%s}", buf);
  json_doc *d = json_parse(doc, err, sizeof err);
  ck_assert_msg(d != NULL, "%s: %s", err, doc);
  int blas = json_get(d, 0, "blas"), kernels = json_get(d, 0, "kernels");
  ck_assert_ptr_nonnull(json_get_string(d, 0, "cpu"));
  ck_assert_ptr_nonnull(json_get_string(d, 0, "cpu_features"));
  ck_assert_ptr_nonnull(json_get_string(d, blas, "core"));
  /* OpenBLAS's release alone, as "0.3.21", not its whole build line. */
  const char *v = json_get_string(d, blas, "version");
  ck_assert_ptr_nonnull(v);
  ck_assert_msg(v[0] >= '0' && v[0] <= '9' && strchr(v, '.') && !strchr(v, ' '),
                "OpenBLAS version \"%s\"", v);
  ck_assert_ptr_nonnull(json_get_string(d, kernels, "fp32"));
  ck_assert_ptr_nonnull(json_get_string(d, kernels, "bf16"));
  ck_assert_ptr_nonnull(json_get_string(d, kernels, "int8"));
  ck_assert_ptr_nonnull(json_get_string(d, kernels, "auto"));
  json_free(d);
  ck_assert_int_eq(blas_system_json(buf, 16), -1);
}
END_TEST

/* This machine's level from the compiler's own detection, not cpu_detect. */
static const char *machine_level(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return "AVX-512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "AVX2";
  if (__builtin_cpu_supports("avx")) return "AVX";
  return "SSE";
}

static int level_rank(const char *l) {
  static const char *const names[] = {"SSE", "AVX", "AVX2", "AVX-512"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(l, names[i])) return i;
  return -1;
}

/* `sowzero version --verbose --json` in a child: its report as a doc. */
static json_doc *version_report(void) {
  static char *argv[] = {"version", "--verbose", "--json", NULL};
  char out[8192], err[256];
  int rc = test_sowzero(out, sizeof out, argv);
  ck_assert_msg(rc == 0, "status %d: %s", rc, out);
  /* A line of advice on stderr may come first: the report is the last line. */
  char *line = out, *nl;
  while ((nl = strchr(line, '\n')) && nl[1]) line = nl + 1;
  json_doc *d = json_parse(line, err, sizeof err);
  ck_assert_msg(d != NULL, "%s: %s", err, out);
  return d;
}

/* Started as a user would, without OPENBLAS_CORETYPE, the binary runs an
 * OpenBLAS core of the machine's level (or one this table does not know),
 * and says who chose it. Check forks each test, so the environment changes
 * stay here. */
START_TEST(child_without_coretype_runs_the_machines_core) {
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(BLAS_CORE_OWN_ENV);
  unsetenv(BLAS_CORE_PID_ENV);
  json_doc *d = version_report();
  int blas = json_get(d, 0, "blas");
  const char *want = machine_level(), *level = json_get_string(d, 0, "cpu_level");
  const char *core_level = json_get_string(d, blas, "core_level");
  const char *set_by = json_get_string(d, blas, "set_by"), *core = json_get_string(d, blas, "core");
  ck_assert_ptr_nonnull(level);
  ck_assert_ptr_nonnull(core_level);
  ck_assert_ptr_nonnull(set_by);
  ck_assert_str_eq(level, want);
  ck_assert_msg(!strcmp(core_level, "unknown") || level_rank(core_level) >= level_rank(want),
                "core %s (%s) on a CPU with %s, chosen by %s", core, core_level, want, set_by);
  ck_assert_msg(!strcmp(set_by, "openblas") || !strcmp(set_by, "sowzero"), "%s", set_by);
  if (!strcmp(set_by, "sowzero")) {
    /* It stepped in only where OpenBLAS's own choice was below the CPU. */
    const char *own = json_get_string(d, blas, "own_core");
    ck_assert_ptr_nonnull(own);
    ck_assert_int_lt(cpu_blas_core_level(own), level_rank(want));
  }
  json_free(d);
}
END_TEST

/* A user's OPENBLAS_CORETYPE is kept, even below the CPU. */
START_TEST(child_keeps_the_users_coretype) {
  setenv("OPENBLAS_CORETYPE", "Sandybridge", 1);
  unsetenv(BLAS_CORE_OWN_ENV);
  unsetenv(BLAS_CORE_PID_ENV);
  json_doc *d = version_report();
  int blas = json_get(d, 0, "blas");
  ck_assert_str_eq(json_get_string(d, blas, "core"), "Sandybridge");
  ck_assert_str_eq(json_get_string(d, blas, "set_by"), "user");
  json_free(d);
}
END_TEST

/* Under `taskset -c 0` (one allowed CPU of this machine) auto still gives
 * one self-play thread, with one usable core. */
START_TEST(child_on_one_cpu_runs_one_thread) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
  json_doc *d = version_report();
  int t = json_get(d, 0, "selfplay_threads_auto");
  double threads = 0, usable = 0;
  ck_assert_int_eq(json_get_number(d, t, "threads", &threads), 0);
  ck_assert_int_eq(json_get_number(d, t, "usable", &usable), 0);
  ck_assert_msg(threads == 1 && usable == 1, "%s", json_get_string(d, t, "why"));
  json_free(d);
}
END_TEST

/* Shown an AVX2-only CPU (the features taken away), the binary asks
 * OpenBLAS for an AVX2 core where OpenBLAS's own choice was below it, and
 * its own kernels run as on that CPU. */
START_TEST(child_on_an_avx2_cpu_runs_an_avx2_core) {
  if (level_rank(machine_level()) < 2) return; /* the machine itself has no AVX2 */
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(BLAS_CORE_OWN_ENV);
  unsetenv(BLAS_CORE_PID_ENV);
  setenv(CPU_FEATURES_ENV, "avx avx2 fma", 1);
  json_doc *d = version_report();
  int blas = json_get(d, 0, "blas");
  const char *core = json_get_string(d, blas, "core"), *set_by = json_get_string(d, blas, "set_by");
  const char *level = json_get_string(d, blas, "core_level");
  ck_assert_str_eq(json_get_string(d, 0, "cpu_level"), "AVX2");
  ck_assert_msg(!strcmp(level, "unknown") || level_rank(level) >= 2, "core %s (%s)", core, level);
  if (!strcmp(set_by, "sowzero"))
    ck_assert_msg(!strcmp(core, "Haswell") || !strcmp(core, "Zen"), "%s", core);
  /* SowZero's own kernels see the same CPU: no bf16, int8 on AVX2. */
  int k = json_get(d, 0, "kernels");
  const char *bf16 = json_get_string(d, k, "bf16"), *int8 = json_get_string(d, k, "int8");
  ck_assert_msg(strstr(bf16, "unavailable") != NULL, "bf16: %s", bf16);
  ck_assert_msg(strstr(int8, "int8 avx2 kernel") != NULL, "int8: %s", int8);
  json_free(d);
}
END_TEST

/* A CPU without the instructions the build was compiled for: the binary
 * stops before anything runs and names what is missing. */
START_TEST(child_refuses_a_cpu_without_the_builds_instructions) {
  json_doc *d = version_report();
  const char *need = json_get_string(d, 0, "build_needs");
  ck_assert_ptr_nonnull(need);
  int needs_avx2 = strstr(need, "avx2") != NULL;
  json_free(d);
  setenv(CPU_FEATURES_ENV, "avx", 1);
  static char *argv[] = {"version", NULL};
  char out[4096];
  int rc = test_sowzero(out, sizeof out, argv);
  if (!needs_avx2) { /* an x86-64-v2 build runs anywhere */
    ck_assert_msg(rc == 0, "status %d: %s", rc, out);
    return;
  }
  ck_assert_msg(rc == 1 && strstr(out, "avx2") && strstr(out, "lacks") && strstr(out, "ARCH="),
                "status %d: %s", rc, out);
  ck_assert_msg(!strstr(out, "(built with"), "%s", out); /* the command itself never ran */
}
END_TEST

static Suite *cpu_suite(void) {
  Suite *s = suite_create("cpu");
  TCase *t = tcase_create("pure");
  tcase_add_test(t, blas_decision_table);
  tcase_add_test(t, blas_core_levels_are_the_cpus);
  tcase_add_test(t, threads_auto_resolution);
  tcase_add_test(t, cgroup_quotas_parse);
  tcase_add_test(t, idle_watch_says_so_once);
  tcase_add_test(t, missing_instructions_are_named);
  tcase_add_test(t, feature_names_round_trip);
  tcase_add_test(t, registers_decode_to_features);
  tcase_add_test(t, lines_cut_short_stay_in_their_buffer);
  tcase_add_test(t, features_agree_with_the_kernel);
  tcase_add_test(t, identity_agrees_with_the_kernel);
  tcase_add_test(t, core_advice_is_a_message_or_nothing);
  tcase_add_test(t, machine_readings_close_what_they_open);
  tcase_add_test(t, kv_auto_integers);
  tcase_add_test(t, config_threads_auto_and_numbers);
  tcase_add_test(t, system_json_parses);
  suite_add_tcase(s, t);
  TCase *e = tcase_create("binary");
  tcase_set_timeout(e, 60);
  tcase_add_test(e, child_without_coretype_runs_the_machines_core);
  tcase_add_test(e, child_keeps_the_users_coretype);
  tcase_add_test(e, child_on_one_cpu_runs_one_thread);
  tcase_add_test(e, child_on_an_avx2_cpu_runs_an_avx2_core);
  tcase_add_test(e, child_refuses_a_cpu_without_the_builds_instructions);
  suite_add_tcase(s, e);
  return s;
}

TEST_MAIN(cpu_suite)

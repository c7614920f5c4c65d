/* cpu: what this CPU can do and how much of it the process may use.
 *   - the CPU's identity and instruction-set features (cpuid), read once;
 *   - which OpenBLAS core suits it: a pure decision over names, so that the
 *     command line can set OPENBLAS_CORETYPE before OpenBLAS loads and the
 *     library can say what to set (nn/blas_core.h asks OpenBLAS itself);
 *   - the self-play threads of `threads = auto`: the CPUs this process may
 *     use (affinity, cgroup quota, ranks sharing the node) less the
 *     learner's, as a pure function of those counts;
 *   - a watch that notices a run using under half of its cores.
 * Everything here is libc (and the compiler's cpuid); nothing allocates. */
#ifndef SOWZERO_CPU_H
#define SOWZERO_CPU_H

#include <stddef.h>

/* ---- The CPU ------------------------------------------------------------------ */
/* Features, as usable: the OS saves the registers they need (XCR0). */
enum {
  CPU_F_AVX = 1u << 0,
  CPU_F_AVX2 = 1u << 1,
  CPU_F_FMA = 1u << 2,
  CPU_F_AVX512F = 1u << 3,
  CPU_F_AVX512DQ = 1u << 4,
  CPU_F_AVX512BW = 1u << 5,
  CPU_F_AVX512VL = 1u << 6,
  CPU_F_AVX512_BF16 = 1u << 7,
  CPU_F_AVX512_VNNI = 1u << 8,
  CPU_F_AVX_VNNI = 1u << 9,
  CPU_F_AMX = 1u << 10, /* AMX tiles with bf16 and int8 */
  CPU_F_COUNT = 11
};

/* Instruction-set levels, as OpenBLAS's cores and SowZero's kernels use
 * them: SSE only, AVX, AVX2 with FMA, AVX-512 (F, DQ, BW, VL). */
enum { CPU_LEVEL_SSE = 0, CPU_LEVEL_AVX = 1, CPU_LEVEL_AVX2 = 2, CPU_LEVEL_AVX512 = 3 };

typedef struct {
  char vendor[16];   /* "GenuineIntel", "AuthenticAMD"; "" when unknown */
  char name[64];     /* the brand string; "" when unknown */
  int family, model; /* display family and model (cpuid), -1 when unknown */
  unsigned features; /* CPU_F_* */
} cpu_info;

/* This machine's CPU (cpuid and xgetbv; zeros and -1 off x86). With
 * CPU_FEATURES_ENV set ("avx avx2 fma", names as cpu_features_string
 * writes them), only those of the CPU's features count: a test's way to
 * show SowZero an older CPU (features are only ever taken away). */
#define CPU_FEATURES_ENV "SOWZERO_CPU_FEATURES"
void cpu_detect(cpu_info *ci);
/* cpu_detect's features, read once a process: cpuid traps to the
 * hypervisor in a virtual machine (microseconds each), and kernels that
 * choose their body at every call ask. Thread-safe. */
unsigned cpu_features_once(void);
/* The registers the features come from: CPUID's highest standard leaf,
 * leaf 1 ECX, leaf 7 subleaf 0 EAX (its last subleaf), EBX, ECX, EDX, leaf
 * 7 subleaf 1 EAX, and XCR0 (the register state the OS saves). */
typedef struct {
  unsigned max_leaf, c1, a7, b7, c7, d7, a71;
  unsigned long long xcr0;
} cpu_regs;
/* The usable features those registers show (CPU_F_*): a feature counts
 * only where the OS saves its registers. cpu_detect's decoding, pure. */
unsigned cpu_features_decode(const cpu_regs *r);
/* The features named in text (space-separated); unknown names are ignored. */
unsigned cpu_features_parse(const char *text);
/* The level of a feature set (CPU_LEVEL_*). */
int cpu_level(unsigned features);
/* "SSE", "AVX", "AVX2", "AVX-512". */
const char *cpu_level_name(int level);
/* "avx avx2 fma avx512f ..." ("none" without any). */
void cpu_features_string(unsigned features, char *buf, size_t len);
/* "Intel(R) Xeon(R) ... (GenuineIntel family 6 model 207)". */
void cpu_describe(const cpu_info *ci, char *buf, size_t len);

/* The features of need that have lacks, as a message: "this build needs
 * avx2 fma, which this CPU lacks"; 0 (buf empty) when none is missing. */
int cpu_missing(unsigned need, unsigned have, char *buf, size_t len);

/* ---- OpenBLAS's core ---------------------------------------------------------------
 * OpenBLAS picks its kernels ("core") when it loads, from the CPUs it knows;
 * an older build falls back to an SSE core on a newer CPU (Prescott on Intel
 * CPUs with AVX-512 it does not know) unless OPENBLAS_CORETYPE names one.
 * cpu_blas_decide says which core to ask for: */
typedef struct {
  const char *use; /* the core to set in OPENBLAS_CORETYPE; NULL: keep OpenBLAS's */
  int cpu_level;   /* what the CPU can do (CPU_LEVEL_*) */
  int core_level;  /* what OpenBLAS's core uses; -1: a name this table does not know */
  int user;        /* 1: the user set OPENBLAS_CORETYPE, which is always kept */
} cpu_blas_choice;

/* Pure: features of the CPU, its vendor, the core OpenBLAS chose
 * (openblas_get_corename()) and the user's OPENBLAS_CORETYPE (NULL or ""
 * when unset) to the decision. A core is asked for only when OpenBLAS's is
 * known and below the CPU's level: SkylakeX for AVX-512, Haswell (Intel)
 * or Zen (AMD) for AVX2, Sandybridge for AVX. */
void cpu_blas_decide(unsigned features, const char *vendor, const char *core, const char *user_var,
                     cpu_blas_choice *out);
/* The level of an OpenBLAS core name (case-insensitive); -1 if unknown. */
int cpu_blas_core_level(const char *core);

/* ---- Threads for self-play -------------------------------------------------------- */
typedef struct {
  int online;      /* CPUs of the machine */
  int allowed;     /* CPUs in the process's affinity mask */
  double quota;    /* the cgroup's CPU quota in cores; 0: none */
  int local_ranks; /* processes of this job on this node (mpirun); 1 alone */
  int learner;     /* cores kept for the learner and gating: 1, or 0 for an actor rank */
} cpu_budget;

typedef struct {
  int threads;   /* self-play threads, at least 1 */
  int usable;    /* cores this process may use */
  char why[192]; /* "2 usable cores (affinity 2 of 2, no quota) less 1 for the learner" */
} cpu_threads;

/* Pure: the threads of `threads = auto`. The usable cores are the allowed
 * ones, capped by the quota (whole cores, at least 1), divided among the
 * ranks of the node unless the affinity already gave this rank its own
 * part (allowed < online); threads are those less the learner's, at least 1. */
void cpu_threads_auto(const cpu_budget *b, cpu_threads *out);
/* This process's budget: sched_getaffinity, the cgroup v2 cpu.max or v1
 * cfs quota of its cgroup, OMPI_COMM_WORLD_LOCAL_SIZE; learner as given. */
void cpu_budget_probe(cpu_budget *b, int learner);
/* A cgroup v2 cpu.max ("max 100000", "150000 100000") in cores; 0 for no
 * quota or text that does not parse. */
double cpu_quota_v2(const char *cpu_max);
/* The process's cgroup from /proc/self/cgroup's text: the cgroup v1 cpu
 * controller's path (returns 1), else the v2 path ("0::/a/b", returns 0);
 * "" when neither is there. */
int cpu_cgroup_dir(const char *text, char *dir, size_t len);
/* A cgroup v1 cfs quota and period (microseconds) in cores; 0 for none. */
double cpu_quota_v1(long quota_us, long period_us);

/* ---- An idle machine ----------------------------------------------------------------
 * Fed the wall clock and the process's CPU seconds now and then, says once
 * when the busy cores have stayed under half of the usable ones for a whole
 * window (60 s in a run). Plain value; one owner. */
typedef struct {
  double window;   /* seconds */
  int usable;      /* cores the process may use */
  double tp, cpup; /* the previous sample; tp < 0: none yet */
  double t0, cpu0; /* start of the current low stretch; t0 < 0: none */
  int warned;      /* 1 once it has said so */
  double busy;     /* busy cores over the stretch, when it fired */
} cpu_idle_watch;

void cpu_idle_init(cpu_idle_watch *w, int usable, double window);
/* 1 exactly once: the first time a stretch under usable/2 lasts the window. */
int cpu_idle_feed(cpu_idle_watch *w, double wall, double cpu);

#endif

/* blas_core: OpenBLAS as this process loaded it, set against the CPU.
 * OpenBLAS picks its kernels (its "core") once, when it loads, from the CPUs
 * its build knows; an older build on a newer CPU falls back to SSE kernels
 * (Prescott) several times slower. The decision of which core suits the
 * CPU is base/cpu.h's (pure); this module asks OpenBLAS what it runs, says
 * what to set when it cannot be fixed from inside the process, and names
 * the kernel each precision of nn runs, for banners, metrics and benchmarks.
 *
 * The command line fixes the core before OpenBLAS matters: it sets
 * OPENBLAS_CORETYPE and starts itself again (cli/main.c), recording
 * OpenBLAS's own choice in BLAS_CORE_OWN_ENV. A process that loads SowZero
 * as a library (the Python package) cannot: it calls blas_core_advice once
 * and shows the message to its user. Nothing here prints. */
#ifndef SOWZERO_BLAS_CORE_H
#define SOWZERO_BLAS_CORE_H

#include <stddef.h>

#include "base/cpu.h"

/* Set by the command line when it chose OPENBLAS_CORETYPE: OpenBLAS's own
 * choice; BLAS_CORE_PID_ENV: the process that chose (its re-executed self
 * knows it by the same pid, so it never starts itself a second time). */
#define BLAS_CORE_OWN_ENV "SOWZERO_OPENBLAS_OWN_CORE"
#define BLAS_CORE_PID_ENV "SOWZERO_OPENBLAS_PID"

/* openblas_get_corename() ("Prescott", "SkylakeX"; "none" without OpenBLAS). */
const char *blas_core_name(void);
/* OpenBLAS's version ("0.3.21"), from its configuration; "none" without it. */
void blas_version(char *buf, size_t len);

typedef struct {
  cpu_info cpu;
  char version[32];
  char core[32];       /* the core OpenBLAS runs */
  int cpu_level;       /* CPU_LEVEL_* of the CPU */
  int core_level;      /* CPU_LEVEL_* of the core, -1 unknown */
  const char *set_by;  /* who chose the core: "openblas", "sowzero" or "user" */
  char own_core[32];   /* with "sowzero": what OpenBLAS had chosen by itself */
  const char *suggest; /* a core to set when the running one is below the CPU's; NULL */
} blas_state;

/* The state of this process (reads the environment and cpuid). */
void blas_state_get(blas_state *s);
/* 1 when OpenBLAS runs kernels below what the CPU can do and nobody chose
 * that (no OPENBLAS_CORETYPE, or SowZero's was not taken): msg says what
 * to set. 0 otherwise (msg empty). Callers show it once, on stderr. */
int blas_core_advice(char *msg, size_t len);

/* The kernel each precision's batched forward pass runs here, one entry
 * per precision (a table in blas_core.c; a new precision adds a row). */
typedef struct {
  const char *precision; /* "fp32", "bf16" */
  char kernel[96];       /* "OpenBLAS SkylakeX sgemm (AVX-512)", "unavailable: ..." */
} blas_kernel;
#define BLAS_KERNELS_MAX 8
/* Fills up to max entries; returns how many. */
int blas_kernels(blas_kernel *out, int max);

/* One line for banners: "CPU NAME (VENDOR family F model M), AVX-512 (avx ...);
 * OpenBLAS 0.3.21 core SkylakeX (set by SowZero: OpenBLAS chose Prescott);
 * kernels: fp32 OpenBLAS SkylakeX sgemm (AVX-512), bf16 ...". */
void blas_system_line(char *buf, size_t len);
/* The same as JSON members (no braces) for a record ("cpu" is a string,
 * as in every benchmark figure):
 *   "cpu": "NAME (VENDOR family F model M)", "cpu_vendor", "cpu_family",
 *   "cpu_model", "cpu_level" ("AVX-512"), "cpu_features" ("avx avx2 ..."),
 *   "blas": {"name", "version", "core", "core_level", "set_by", "own_core"},
 *   "kernels": {"fp32": "...", ...}
 * -1 if len is too small. */
int blas_system_json(char *buf, size_t len);

#endif

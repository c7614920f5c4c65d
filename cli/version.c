/* `sowzero version`: the build, and with --verbose what it runs on: the
 * CPU, OpenBLAS's version and core, each precision's kernel, the self-play
 * threads `threads = auto` gives here. */
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"
#include "base/json.h"
#include "cli/cli.h"
#include "nn/blas_core.h"

#ifndef SOWZERO_VERSION
#define SOWZERO_VERSION "unknown"
#endif
#ifndef SOWZERO_ARCH
#define SOWZERO_ARCH "unknown"
#endif

/* What the compiler was allowed to use here, for cli/isa.c's check. */
const char cli_build_arch[] = SOWZERO_ARCH;
const unsigned cli_build_features = 0u
#ifdef __AVX__
                                    | CPU_F_AVX
#endif
#ifdef __AVX2__
                                    | CPU_F_AVX2
#endif
#ifdef __FMA__
                                    | CPU_F_FMA
#endif
#ifdef __AVX512F__
                                    | CPU_F_AVX512F
#endif
#ifdef __AVX512DQ__
                                    | CPU_F_AVX512DQ
#endif
#ifdef __AVX512BW__
                                    | CPU_F_AVX512BW
#endif
#ifdef __AVX512VL__
                                    | CPU_F_AVX512VL
#endif
#ifdef __AVX512BF16__
                                    | CPU_F_AVX512_BF16
#endif
#ifdef __AVX512VNNI__
                                    | CPU_F_AVX512_VNNI
#endif
#ifdef __AVXVNNI__
                                    | CPU_F_AVX_VNNI
#endif
#ifdef __AMX_TILE__
                                    | CPU_F_AMX
#endif
    ;

typedef struct {
  int verbose, json;
} version_opts;

static const kv_key version_keys[] = {
    KV_B("verbose", version_opts, verbose, NULL,
         "also the CPU, OpenBLAS's version and core, the kernels, the threads"),
    KV_B("json", version_opts, json, NULL, "one JSON object"),
};
static const kv_table version_table = KV_TABLE(version_keys);

int cmd_version(int argc, char **argv) {
  version_opts o = {0};
  cli_cmd c = {.name = "version",
               .synopsis = "version [--verbose] [--json]",
               .about = "  The build; --verbose adds the machine as SowZero sees and uses it.\n",
               .opts = &version_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  cpu_budget b;
  cpu_budget_probe(&b, 1);
  cpu_threads t;
  cpu_threads_auto(&b, &t);
  if (o.json) {
    char need[192], sys[4096];
    cpu_features_string(cli_build_features, need, sizeof need);
    if (o.verbose && blas_system_json(sys, sizeof sys) != 0)
      return cli_fail(&c, 1, "system report too long");
    json_writer w;
    json_writer_init_file(&w, stdout);
    json_begin_object(&w, NULL);
    json_put_string(&w, "version", SOWZERO_VERSION);
    json_put_string(&w, "build_arch", SOWZERO_ARCH);
    json_put_string(&w, "build_needs", need);
    if (o.verbose) {
      json_put_raw(&w, NULL, sys);
      json_begin_object(&w, "selfplay_threads_auto");
      json_put_int(&w, "threads", t.threads);
      json_put_int(&w, "usable", t.usable);
      json_put_string(&w, "why", t.why);
      json_end_object(&w);
    }
    json_end_object(&w);
    putchar('\n');
    return json_writer_done(&w) == 0 ? 0 : 1;
  }
  printf("sowzero %s (built with %s)\n", SOWZERO_VERSION, SOWZERO_ARCH);
  if (!o.verbose) return 0;
  char need[192];
  cpu_features_string(cli_build_features, need, sizeof need);
  printf("build     needs %s beyond x86-64; the kernels choose AVX-512 and bf16 at run time\n",
         cli_build_features ? need : "nothing");
  blas_state s;
  blas_state_get(&s);
  char cpu[192], feat[192];
  cpu_describe(&s.cpu, cpu, sizeof cpu);
  cpu_features_string(s.cpu.features, feat, sizeof feat);
  printf("cpu       %s\n", cpu);
  printf("features  %s: %s\n", cpu_level_name(s.cpu_level), feat);
  printf("openblas  %s, core %s (%s", s.version, s.core,
         s.core_level < 0 ? "kernels unknown to SowZero" : cpu_level_name(s.core_level));
  if (!strcmp(s.set_by, "sowzero"))
    printf("; set by SowZero, OpenBLAS chose %s by itself)\n", s.own_core);
  else if (!strcmp(s.set_by, "user"))
    printf("; OPENBLAS_CORETYPE set by the user)\n");
  else
    printf("; OpenBLAS's own choice)\n");
  blas_kernel k[BLAS_KERNELS_MAX];
  int n = blas_kernels(k, BLAS_KERNELS_MAX);
  for (int i = 0; i < n; i++) printf("kernel    %-5s %s\n", k[i].precision, k[i].kernel);
  printf("threads   selfplay.threads = auto gives %d: %s\n", t.threads, t.why);
  return 0;
}

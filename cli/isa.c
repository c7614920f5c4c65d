/* The instructions this build was compiled for, checked before main: a
 * binary built with -march for one CPU and started on an older one stops
 * here with a message instead of on an illegal instruction somewhere.
 * This file and base/cpu.c are compiled for plain x86-64 (Makefile), so
 * the check runs on any x86-64 CPU; what the build needs is data, set
 * where the build's own flags hold (cli/version.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cpu.h"
#include "cli/cli.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__EMSCRIPTEN__)
__attribute__((constructor)) static void isa_check(void) {
  cpu_info ci;
  cpu_detect(&ci);
  char why[256], cpu[160], msg[768];
  if (!cpu_missing(cli_build_features, ci.features, why, sizeof why)) return;
  cpu_describe(&ci, cpu, sizeof cpu);
  int n = snprintf(msg, sizeof msg,
                   "sowzero: %s (%s; built with %s): build it for this CPU (make) or for every "
                   "node (make ARCH=-march=x86-64-v2; docs/DISTRIBUTED.md)\n",
                   why, cpu, cli_build_arch);
  if (n > 0 && write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0) n = 0;
  _exit(1);
}
#endif

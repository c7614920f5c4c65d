/* The `sowzero` command: one binary, one subcommand per job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpu.h"
#include "cli/cli.h"
#include "nn/blas_core.h"

static const struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} subcommands[] = {
    {"train", cmd_train, "train (or resume) a run from a config: sowzero train configs/oware.ini"},
    {"plot", cmd_plot, "draw a run's loss, gating and Elo curves to PNG"},
    {"demo", cmd_demo, "play a demo game between two built-in agents"},
    {"play", cmd_play, "play against an agent in the terminal"},
    {"engine", cmd_engine, "the engine protocol on stdin/stdout (docs/PROTOCOL.md)"},
    {"analysis", cmd_analysis, "the JSON analysis engine on stdin/stdout (docs/ANALYSIS.md)"},
    {"arena", cmd_arena, "tournaments between agents: scores, Elo, records"},
    {"stats", cmd_stats, "statistics of a rule variant over many games"},
    {"study", cmd_study, "how rule variants play, compared: report.md, study.json, plots"},
    {"bench", cmd_bench, "benchmarks: engine, nn, search (--json for tools)"},
    {"rules", cmd_rules, "list the games, presets and rule options"},
    {"egdb", cmd_egdb, "the Oware endgame database: build, info, verify, probe"},
    {"export", cmd_export, "a trained network as ONNX or JSON for other front ends"},
    {"version", cmd_version, "the version; --verbose: CPU, OpenBLAS core, kernels, threads"},
};
#define N_SUB (int)(sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *f) {
  fprintf(f, "usage: sowzero COMMAND [options]\n\ncommands:\n");
  for (int i = 0; i < N_SUB; i++)
    fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].help);
  fprintf(f, "\n'sowzero COMMAND --help' tells more.\n");
}

static void command_names(char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < N_SUB && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", subcommands[i].name);
}

/* OpenBLAS chose its kernels when it loaded, before main. Where they are
 * below what the CPU can do and nobody set OPENBLAS_CORETYPE, set it and
 * start again, before any thread of ours exists: OpenBLAS reads the
 * variable only when it loads. Once: the new image finds the variable set,
 * and the pid recorded beside it (exec keeps the pid) stops a second try
 * should OpenBLAS have ignored it. Whatever remains below the CPU is said
 * once on stderr. */
static void blas_core_fix(char **argv) {
  const char *var = getenv("OPENBLAS_CORETYPE"), *pid = getenv(BLAS_CORE_PID_ENV);
  int again = pid && atol(pid) == (long)getpid();
  if (!(var && var[0]) && !again) {
    cpu_info ci;
    cpu_detect(&ci);
    cpu_blas_choice ch;
    const char *core = blas_core_name();
    cpu_blas_decide(ci.features, ci.vendor, core, var, &ch);
    if (ch.use) {
      char me[32];
      snprintf(me, sizeof me, "%ld", (long)getpid());
      if (setenv(BLAS_CORE_OWN_ENV, core, 1) == 0 && setenv(BLAS_CORE_PID_ENV, me, 1) == 0 &&
          setenv("OPENBLAS_CORETYPE", ch.use, 1) == 0)
        execv("/proc/self/exe", argv);
      unsetenv("OPENBLAS_CORETYPE"); /* no exec: say what to set instead */
      unsetenv(BLAS_CORE_OWN_ENV);
    }
  }
  char msg[512];
  if (blas_core_advice(msg, sizeof msg)) cli_error_line("sowzero: %s", msg);
}

int main(int argc, char **argv) {
  blas_core_fix(argv);
  char names[256];
  command_names(names, sizeof names);
  if (argc < 2) {
    cli_error_line("sowzero: missing COMMAND (commands: %s; 'sowzero --help' tells more)", names);
    return 2;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  for (int i = 0; i < N_SUB; i++)
    if (!strcmp(argv[1], subcommands[i].name)) return subcommands[i].fn(argc - 2, argv + 2);
  cli_error_line("sowzero: unknown command '%s' (commands: %s)", argv[1], names);
  return 2;
}

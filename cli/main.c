/* The `sowzero` command: one binary, one subcommand per job. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

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

int main(int argc, char **argv) {
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

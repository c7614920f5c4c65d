/* cli: the `sowzero` command's subcommands. Only this layer prints to stdout
 * and chooses exit codes; everything below returns errors. */
#ifndef SOWZERO_CLI_H
#define SOWZERO_CLI_H

#include <stdio.h>

/* Subcommands: each takes the arguments after its name and returns the
 * process exit code (0 ok, 1 failure, 2 usage error). */
int cmd_engine(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_arena(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* ---- Benchmarks -------------------------------------------------------------
 * Every figure goes through bench_figure: a table row for people, or with
 * --json one JSON object per line:
 *   {"bench": "engine", "figure": "playouts_per_s", "value": 1.0, "unit": "1/s"}
 * `extra` is either NULL or a JSON fragment of further fields
 * ("\"batch\": 64") added to the object. */
typedef struct {
  int json;       /* 1: JSON lines; 0: human table */
  FILE *out;
} bench_out;

void bench_figure(bench_out *b, const char *bench, const char *figure,
                  double value, const char *unit, const char *extra);
/* A free-form note line (human mode only; JSON mode stays machine-readable). */
void bench_note(bench_out *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The benchmarks; each parses its own options from argv. */
int bench_engine(bench_out *b, int argc, char **argv);
int bench_nn(bench_out *b, int argc, char **argv);
int bench_search(bench_out *b, int argc, char **argv);

#endif

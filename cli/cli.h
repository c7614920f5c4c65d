/* cli: the `sowzero` command's subcommands. Only this layer prints to stdout
 * and chooses exit codes; everything below returns errors. */
#ifndef SOWZERO_CLI_H
#define SOWZERO_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "arena/stats.h"
#include "base/base.h"
#include "base/json.h"
#include "base/kv.h"

/* Subcommands: each takes the arguments after its name and returns the
 * process exit code (0 ok, 1 failure, 2 usage error). */
int cmd_engine(int argc, char **argv);
int cmd_analysis(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_arena(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_egdb(int argc, char **argv);
int cmd_version(int argc, char **argv);
/* The build's -march and the CPU features (CPU_F_*) it lets the compiler
 * use everywhere; cli/isa.c stops a binary on a CPU without them. */
extern const char cli_build_arch[];
extern const unsigned cli_build_features;

/* ---- Command lines ----------------------------------------------------------
 * Every subcommand reads its arguments with cli_parse, from a description of
 * what it takes (cli_cmd):
 *   options   a kv table (base/kv.h) over the command's settings struct:
 *             option --NAME is key NAME, its value parsed whole and checked
 *             by kv ("--games 4" or "--games=4"; "4x", "", " 4", "inf",
 *             "nan", out of range are refused); KV_BOOL keys are flags that
 *             take no value. A key's help may start with the value's name
 *             and two spaces ("FILE  where the results go"); else the usage
 *             names it by type (N, X, a|b, TEXT). Defaults are what the
 *             struct holds before cli_parse (the tables' `def` is unused).
 *   lists     options that may be given more than once (--set), each value
 *             kept in the caller's array; a `keyed` list takes KEY=VALUE
 *             values and refuses a KEY given twice.
 *   positional arguments, min_pos..max_pos of them.
 * "--" ends the options. Refused: an unknown option, a missing or empty
 * value, a value where the next option was expected ("--json --quiet"), an
 * option given twice (unless a list), a flag given a value, too many or too
 * few positional arguments. Each refusal is one line on stderr naming the
 * culprit and what would be accepted, and exit status 2. -h or --help prints
 * the usage on stdout (status 0). */

typedef struct {
  const char *name; /* the option without dashes: "set" */
  const char *meta; /* its value in the usage: "KEY=VALUE" */
  const char *help;
  int keyed;     /* 1: values are KEY=VALUE, a KEY at most once */
  int max;       /* values at most (the size of `values`) */
  char **values; /* filled: the values, pointers into argv */
  int n;         /* filled: how many */
} cli_list;

typedef struct {
  const char *name;      /* "arena", "bench engine": messages start "sowzero NAME: " */
  const char *synopsis;  /* the usage line after "usage: sowzero " */
  const char *about;     /* lines after the synopsis (positional arguments, notes), or NULL */
  void (*more)(FILE *f); /* prints further lines after the options, or NULL */
  const kv_table *opts;  /* may be NULL */
  void *base;            /* the struct opts describes */
  cli_list *lists;
  int n_lists;
  const char *pos_name; /* one positional argument, for messages: "AGENT" */
  int min_pos, max_pos;
  char **pos;     /* filled: the positional arguments (max_pos entries) */
  int n_pos;      /* filled */
  uint64_t given; /* filled: bit i, option key i was given */
} cli_cmd;

/* 0: go on and run the command. -1: stop and exit with *status (0 after
 * --help, 2 after a usage error, already reported). */
int cli_parse(cli_cmd *c, int argc, char **argv, int *status);
/* 1 if option `name` (a key of c->opts) was given. */
int cli_given(const cli_cmd *c, const char *name);
/* Prints the usage of c to f. */
void cli_usage(const cli_cmd *c, FILE *f);
/* Prints "sowzero NAME: MESSAGE" as one line on stderr (control characters
 * escaped, so a value with a newline cannot add lines) and returns status:
 * `return cli_fail(&c, 2, "...")`. */
int cli_fail(const cli_cmd *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a message with its own prefix ("sowzero: ..."). */
void cli_error_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes dir/name into buf; -1 if it does not fit. */
int cli_path(char *buf, size_t len, const char *dir, const char *name);

struct game;
/* Configures g as the game of a weight file's metadata (its game and rule
 * options; of a variant set, the first variant), as this build sets it up;
 * -1 with a message naming path when it cannot. */
int cli_meta_game(const char *path, const char *game_name, const char *rules, struct game *g,
                  char *err, size_t errlen);

/* Runs gnuplot with argv (argv[0] "gnuplot", found on PATH; no shell, so
 * nothing in the arguments is parsed as a command), its input /dev/null.
 * 0 when it exited 0; else -1 with why in err: "gnuplot is not installed
 * ...", or its complaint (the last line it wrote). A script gets file
 * names and titles as ARG1.. of `gnuplot -c`, which it keeps as strings. */
int cli_gnuplot(char *const *argv, char *err, size_t errlen);
/* 0 if path holds a whole PNG file (its signature, then chunks whose
 * lengths lead exactly to the end, the last one IEND); else -1 with why
 * (the caller names the file).
 * A child's picture is checked so before it replaces a good one: gnuplot
 * may exit 0 after a short write on a full disk. */
int cli_png_check(const char *path, char *err, size_t errlen);
/* Draws a PNG with gnuplot into img's temporary (argv names img->tmp as
 * the output), checks gnuplot's exit status and the picture, then commits
 * it over img->path; on any failure the temporary goes and the old
 * picture stays. -1 with why in err (the caller names the picture). */
int cli_gnuplot_png(char *const *argv, afile *img, char *err, size_t errlen);

/* Room for a file name taken from the command line, terminator included. */
#define CLI_PATH_MAX 4096

/* The one --egdb option (a key of a command's kv table: field F, a char
 * array of T, of CLI_EGDB_MAX bytes), whose folder the command passes down
 * as a value (agent_params.egdb_dir, egdb_default_dir's `given`); `what`
 * says what uses it there. */
/* Opens the database of a command's --egdb (given, "" if not): one asked
 * for (--egdb or $SOWZERO_EGDB) must open; the default folder opens only if
 * it holds one. 0 with *db set (NULL: none), or -1 and the reason. */
struct egdb;
int cli_egdb_open(const char *given, struct egdb **db, char *err, size_t errlen);
/* Agents with precision=auto say on stderr what they chose and the times
 * measured (nn_auto_set_observer), once per shape and batch. */
void cli_precision_to_stderr(void);
#define CLI_EGDB_MAX 1024
#define CLI_EGDB_KEY(T, F, what)         \
  KV_S("egdb", T, F, NULL,               \
       "DIR  the endgame database " what \
       " (else $SOWZERO_EGDB, else the " \
       "default folder)")

/* ---- JSON of statistics ------------------------------------------------------
 * The objects `stats` and `study` both write (cli/stats.c): a rate with its
 * interval, the first player's score, the lengths, the endings. */
void cli_json_rate(json_writer *w, const char *key, const stats_rate *r);
void cli_json_first_score(json_writer *w, const stats_result *r);
void cli_json_length(json_writer *w, const stats_result *r);
void cli_json_endings(json_writer *w, const stats_result *r);
/* Ends the JSON file of a (w writes to a->f) with its newline and commits
 * it; -1 with a message naming the file if a write failed (afile_fail). */
int cli_json_commit(afile *a, json_writer *w, char *err, size_t errlen);

/* ---- Benchmarks -------------------------------------------------------------
 * Every figure goes through bench_figure: a table row for people, or with
 * --json one JSON object per line:
 *   {"bench": "engine", "figure": "playouts_per_s", "value": 1.0, "unit": "1/s"}
 * `extra` is either NULL or a member list of further fields (`"batch": 64`,
 * made by a base/json.h json_writer put without an enclosing object) added
 * to the object, and shown as it is in the table. */
typedef struct {
  int json; /* 1: JSON lines; 0: human table */
  FILE *out;
  int started; /* the human table's header is out */
} bench_out;

void bench_figure(bench_out *b, const char *bench, const char *figure, double value,
                  const char *unit, const char *extra);
/* A free-form note line (human mode only; JSON mode stays machine-readable). */
void bench_note(bench_out *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The benchmarks; each parses its own options from argv (--json among
 * them, which sets b->json) and returns an exit status. */
int bench_engine(bench_out *b, int argc, char **argv);
int bench_nn(bench_out *b, int argc, char **argv);
/* bf16 against fp32 on the positions of run DIR's replay buffer (bench_nn_run.c). */
int bench_nn_run(bench_out *b, const char *dir, int positions, char *err, size_t errlen);
int bench_search(bench_out *b, int argc, char **argv);
int bench_egdb(bench_out *b, int argc, char **argv);
int bench_selfplay(bench_out *b, int argc, char **argv);
int bench_learner(bench_out *b, int argc, char **argv);
/* The CPU from /proc/cpuinfo: "AMD EPYC (family 26 model 2)", or "unknown CPU". */
void bench_cpu_name(char *buf, size_t len);
/* The machine as the figures ran on it: a note naming the CPU, its
 * features, OpenBLAS's version and core and each precision's kernel;
 * with --json the figure "blas_core_level" (the core's CPU_LEVEL_*, -1
 * unknown) carrying them as fields "cpu", "blas" and "kernels". */
void bench_system(bench_out *b, const char *bench);

#endif

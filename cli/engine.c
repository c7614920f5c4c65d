/* `sowzero engine`: the engine protocol on stdin/stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/kv.h"
#include "cli/cli.h"
#include "egdb/egdb.h"
#include "nn/nn.h"
#include "protocol/protocol.h"

typedef struct {
  uint64_t seed;
  char egdb[CLI_EGDB_MAX];
} engine_opts;

static const kv_key engine_keys[] = {
    KV_U("seed", engine_opts, seed, NULL, "seed of the agents' random choices"),
    CLI_EGDB_KEY(engine_opts, egdb, "of the egdb command and of agents' egdb=on"),
};
static const kv_table engine_table = KV_TABLE(engine_keys);

int cli_egdb_open(const char *given, egdb **db, char *err, size_t errlen) {
  char dir[CLI_PATH_MAX], why[1024];
  const char *env = getenv("SOWZERO_EGDB");
  int asked = given[0] || (env && *env);
  *db = NULL;
  if (egdb_default_dir(given, dir, sizeof dir, why, sizeof why)) dir[0] = 0;
  if (!dir[0]) return 0;
  char first[CLI_PATH_MAX + 32];
  struct stat st;
  snprintf(first, sizeof first, "%s/%s00%s", dir, EGDB_FILE_PREFIX, EGDB_FILE_SUFFIX);
  if (!asked && stat(first, &st) != 0) return 0;
  if ((*db = egdb_open(dir, why, sizeof why))) return 0;
  snprintf(err, errlen, "endgame database: %s", why);
  return -1;
}

static void say_precision(void *ctx, const nn_auto_report *r) {
  (void)ctx;
  char line[600];
  nn_auto_describe(r, line, sizeof line);
  fprintf(stderr, "%s\n", line);
}

void cli_precision_to_stderr(void) { nn_auto_set_observer(say_precision, NULL); }

int cmd_engine(int argc, char **argv) {
  engine_opts o = {1, ""};
  cli_cmd c = {.name = "engine",
               .synopsis = "engine [--seed N] [--egdb DIR]",
               .about =
                   "  The engine protocol on stdin and stdout (docs/PROTOCOL.md). The\n"
                   "  endgame database: --egdb, else $SOWZERO_EGDB, else the default folder\n"
                   "  if it holds one (docs/EGDB.md).\n",
               .opts = &engine_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  char err[1024];
  egdb *db = NULL;
  if (cli_egdb_open(o.egdb, &db, err, sizeof err)) return cli_fail(&c, 1, "%s", err);
  cli_precision_to_stderr();
  proto *s = proto_create(o.seed);
  if (!s) {
    egdb_close(db);
    return cli_fail(&c, 1, "out of memory");
  }
  proto_set_egdb(s, db);
  proto_set_egdb_dir(s, o.egdb);
  static char out[PROTO_MAX_RESPONSE];
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int quit = 0;
  /* The length getline reports, not strlen: a NUL inside a line is part of
   * it, and is answered as such. */
  while (!quit && (n = getline(&line, &cap, stdin)) >= 0) {
    quit = proto_handle_bytes(s, line, (size_t)n, out, sizeof out);
    fputs(out, stdout);
    fflush(stdout);
  }
  free(line);
  proto_free(s);
  egdb_close(db);
  return 0;
}

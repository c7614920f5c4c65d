/* `sowzero engine`: the engine protocol on stdin/stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kv.h"
#include "cli/cli.h"
#include "protocol/protocol.h"

typedef struct {
  uint64_t seed;
} engine_opts;

static const kv_key engine_keys[] = {
    KV_U("seed", engine_opts, seed, NULL, "seed of the agents' random choices"),
};
static const kv_table engine_table = KV_TABLE(engine_keys);

int cmd_engine(int argc, char **argv) {
  engine_opts o = {1};
  cli_cmd c = {.name = "engine",
               .synopsis = "engine [--seed N]",
               .about = "  The engine protocol on stdin and stdout (docs/PROTOCOL.md).\n",
               .opts = &engine_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  proto *s = proto_create(o.seed);
  if (!s) {
    return cli_fail(&c, 1, "out of memory");
  }
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
  return 0;
}

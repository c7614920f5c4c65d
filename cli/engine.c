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
    KV_U("seed", engine_opts, seed, "1", "seed of the agents' random choices"),
};
static const kv_table engine_table = KV_TABLE(engine_keys);

int cmd_engine(int argc, char **argv) {
  engine_opts o;
  char err[256];
  kv_defaults(&engine_table, &o, NULL, 0);
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      if (kv_set(&engine_table, &o, "seed", argv[++i], err, sizeof err) != 0) {
        fprintf(stderr, "sowzero engine: --seed: %s\n", err);
        return 2;
      }
    } else {
      fprintf(stderr, "sowzero engine: unexpected argument '%s'\nusage: sowzero engine [--seed N]\n",
              argv[i]);
      return 2;
    }
  }
  proto *s = proto_create(o.seed);
  if (!s) {
    fprintf(stderr, "sowzero engine: out of memory\n");
    return 1;
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

/* `sowzero engine`: the engine protocol on stdin/stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "protocol/protocol.h"

int cmd_engine(int argc, char **argv) {
  uint64_t seed = 1;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 10);
    } else {
      fprintf(stderr, "usage: sowzero engine [--seed N]\n");
      return 2;
    }
  }
  proto *s = proto_create(seed);
  if (!s) {
    fprintf(stderr, "sowzero engine: out of memory\n");
    return 1;
  }
  static char out[PROTO_MAX_RESPONSE];
  char *line = NULL;
  size_t cap = 0;
  int quit = 0;
  while (!quit && getline(&line, &cap, stdin) >= 0) {
    quit = proto_handle(s, line, out, sizeof out);
    fputs(out, stdout);
    fflush(stdout);
  }
  free(line);
  proto_free(s);
  return 0;
}

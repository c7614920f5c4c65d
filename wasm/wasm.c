/* The WebAssembly module (make web): SowZero's own engine, search and
 * network for the browser page and for Node.
 *
 * The page talks to it in the engine protocol (docs/PROTOCOL.md): one
 * session, one command line in, one response out, exactly as
 * `sowzero engine` answers it, so the browser plays by the same code and
 * contract as every other front end. Besides the protocol, the rules
 * registry as JSON (the page's game and option choosers) and main(), which
 * runs `bench engine|search|nn` under Node (web/bench.mjs). Weight files
 * reach the agents through the module's in-memory file system. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "cli/cli.h"
#include "game/game.h"
#include "protocol/protocol.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define EXPORT
#endif

/* A protocol session and the buffer its responses are read from. */
typedef struct {
  proto *p;
  char out[PROTO_MAX_RESPONSE];
} session;

EXPORT session *sz_session_new(double seed) {
  session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->p = proto_create((uint64_t)seed);
  if (!s->p) {
    free(s);
    return NULL;
  }
  return s;
}

EXPORT void sz_session_free(session *s) {
  if (!s) return;
  proto_free(s->p);
  free(s);
}

/* The whole response to one command line ("= ...\n\n" or "? ...\n\n"; ""
 * for a blank line or a comment), valid until the next call. */
EXPORT const char *sz_command(session *s, const char *line) {
  proto_handle(s->p, line, s->out, sizeof s->out);
  return s->out;
}

/* Appends to a growing string; returns -1 when it is full. */
typedef struct {
  char *buf;
  size_t len, cap;
} text;

static int add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= t->cap - t->len) return -1;
  t->len += (size_t)n;
  return 0;
}

static int add_str(text *t, const char *s) {
  size_t n = json_quote(t->buf + t->len, t->cap - t->len, s);
  if (n >= t->cap - t->len) return -1;
  t->len += n;
  return 0;
}

/* The games, their rule options and the presets, as `sowzero rules` lists
 * them: {"games":[{"name","summary","options":[{"key","help","default",
 * "values":[...]} or {"key","help","default","min","max"}]}],
 * "presets":[{"name","game","settings"}]}. */
EXPORT const char *sz_rules_json(void) {
  static char buf[32768];
  text t = {buf, 0, sizeof buf};
  int bad = add(&t, "{\"games\":[");
  for (int i = 0; game_rules_at(i); i++) {
    const game_rules *r = game_rules_at(i);
    bad |= add(&t, "%s{\"name\":", i ? "," : "") | add_str(&t, r->name) | add(&t, ",\"summary\":") |
           add_str(&t, r->summary) | add(&t, ",\"options\":[");
    for (const game_option *o = r->options; o->key; o++) {
      bad |= add(&t, "%s{\"key\":", o == r->options ? "" : ",") | add_str(&t, o->key) |
             add(&t, ",\"help\":") | add_str(&t, o->help);
      if (o->values) {
        bad |= add(&t, ",\"default\":") | add_str(&t, o->values[o->def]) | add(&t, ",\"values\":[");
        for (int v = 0; o->values[v]; v++)
          bad |= add(&t, "%s", v ? "," : "") | add_str(&t, o->values[v]);
        bad |= add(&t, "]}");
      } else {
        bad |= add(&t, ",\"default\":%d,\"min\":%d,\"max\":%d}", o->def, o->min, o->max);
      }
    }
    bad |= add(&t, "]}");
  }
  bad |= add(&t, "],\"presets\":[");
  const char *gname, *settings;
  for (int i = 0; game_preset_at(i, &gname, &settings); i++)
    bad |= add(&t, "%s{\"name\":", i ? "," : "") | add_str(&t, game_preset_at(i, NULL, NULL)) |
           add(&t, ",\"game\":") | add_str(&t, gname) | add(&t, ",\"settings\":") |
           add_str(&t, settings) | add(&t, "}");
  bad |= add(&t, "]}");
  return bad ? "{\"error\":\"the rules registry does not fit the buffer\"}" : buf;
}

/* `bench selfplay` and `bench learner` run the trainer, which the module
 * leaves out (threads, run folders): the dispatch of cli/bench.c finds
 * these refusals instead. */
static int no_trainer(const char *name) {
  fprintf(stderr,
          "sowzero bench %s: not in the WebAssembly build (it has no trainer); run it natively\n",
          name);
  return 2;
}

int bench_selfplay(bench_out *b, int argc, char **argv) {
  (void)b, (void)argc, (void)argv;
  return no_trainer("selfplay");
}

int bench_learner(bench_out *b, int argc, char **argv) {
  (void)b, (void)argc, (void)argv;
  return no_trainer("learner");
}

/* Under Node: `node web/bench.mjs engine --game warri --json` runs the same
 * benchmarks as `sowzero bench`. */
int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "bench")) {
    fprintf(stderr, "usage: bench [engine|search|nn] [options] (sowzero bench --help)\n");
    return 2;
  }
  return cmd_bench(argc - 2, argv + 2);
}

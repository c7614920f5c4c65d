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

/* The games, their rule options and the presets, as `sowzero rules` lists
 * them: {"games": [{"name", "summary", "options": [{"key", "help",
 * "default", "values": [...]} or {"key", "help", "default", "min", "max"}]}],
 * "presets": [{"name", "game", "settings"}]}. */
EXPORT const char *sz_rules_json(void) {
  static char buf[32768];
  json_writer w;
  json_writer_init(&w, buf, sizeof buf);
  json_begin_object(&w, NULL);
  json_begin_array(&w, "games");
  for (int i = 0; game_rules_at(i); i++) {
    const game_rules *r = game_rules_at(i);
    json_begin_object(&w, NULL);
    json_put_string(&w, "name", r->name);
    json_put_string(&w, "summary", r->summary);
    json_begin_array(&w, "options");
    for (const game_option *o = r->options; o->key; o++) {
      json_begin_object(&w, NULL);
      json_put_string(&w, "key", o->key);
      json_put_string(&w, "help", o->help);
      if (o->values) {
        json_put_string(&w, "default", o->values[o->def]);
        json_begin_array(&w, "values");
        for (int v = 0; o->values[v]; v++) json_put_string(&w, NULL, o->values[v]);
        json_end_array(&w);
      } else {
        json_put_int(&w, "default", o->def);
        json_put_int(&w, "min", o->min);
        json_put_int(&w, "max", o->max);
      }
      json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_begin_array(&w, "presets");
  const char *gname, *settings;
  for (int i = 0; game_preset_at(i, &gname, &settings); i++) {
    json_begin_object(&w, NULL);
    json_put_string(&w, "name", game_preset_at(i, NULL, NULL));
    json_put_string(&w, "game", gname);
    json_put_string(&w, "settings", settings);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_end_object(&w);
  return json_writer_done(&w) ? "{\"error\": \"the rules registry does not fit the buffer\"}" : buf;
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

/* Harness: the JSON analysis engine (protocol/analysis.h).
 *
 * The input is split at '\n' into lines (any bytes, NUL included), at most
 * MAX_LINES of them, each answered by analysis_answer. Checked for every
 * line:
 *   - framing: a blank line gets no answer; any other line gets exactly
 *     one line of JSON (one '\n', at the end) that json_parse reads back as
 *     an object;
 *   - the answer carries the query's id when the line is a JSON object
 *     with a finite number or a string of at most ANALYSIS_MAX_ID bytes,
 *     and null otherwise;
 *   - an error answer (1) has the message and the field (a string or
 *     null) and nothing else; an analysis (0) has the turns, each with
 *     every legal move, priors in 0..1 and values in -1..1, and a line
 *     starting with the move itself.
 * Agent specs go through fuzz_cap_spec (fuzz/fuzz.h): searches are capped,
 * so no input runs long, and weights= names the harness's tiny network. */
#include <math.h>

#include "base/json.h"
#include "fuzz/fuzz.h"
#include "protocol/analysis.h"

#define MAX_LINES 64

static const char *weights_path;

static void cap(const char *spec, char *out, size_t len) {
  fuzz_cap_spec(spec, weights_path, out, len);
}

static int is_blank(const char *l, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!l[i] || !strchr(" \t\r\n", l[i])) return 0;
  return 1;
}

/* The id the answer must echo, as JSON text ("" for null); -1: any. */
static int expected_id(const char *l, size_t n, char *id, size_t len) {
  id[0] = 0;
  if (memchr(l, 0, n) || n >= ANALYSIS_MAX_LINE) return 0;
  char *copy = malloc(n + 1), e[256];
  memcpy(copy, l, n);
  copy[n] = 0;
  json_doc *d = json_parse(copy, e, sizeof e);
  free(copy);
  if (!d) return 0;
  int v = json_type_of(d, 0) == JSON_OBJECT ? json_get(d, 0, "id") : -1, rc = 0;
  size_t k = 0;
  if (v >= 0 && json_type_of(d, v) == JSON_STRING && strlen(json_string(d, v)) <= ANALYSIS_MAX_ID)
    k = json_quote(id, len, json_string(d, v));
  else if (v >= 0 && json_type_of(d, v) == JSON_NUMBER && isfinite(json_number(d, v)))
    k = (size_t)snprintf(id, len, "%.17g", json_number(d, v));
  if (k >= len) rc = -1; /* cannot happen: want holds the longest echoed id */
  json_free(d);
  return rc;
}

static void check_answer(const char *l, size_t n, int rc, const char *out) {
  char want[8 * ANALYSIS_MAX_ID + 64];
  FUZZ_CHECK(rc == 0 || rc == 1, "analysis_answer returned %d", rc);
  size_t len = strlen(out);
  FUZZ_CHECK(len >= 2 && out[len - 1] == '\n' && !memchr(out, '\n', len - 1),
             "the answer is not one line: '%s'", out);
  char e[256];
  json_doc *d = json_parse(out, e, sizeof e);
  FUZZ_CHECK(d != NULL, "the answer is not JSON (%s): '%s'", e, out);
  FUZZ_CHECK(json_type_of(d, 0) == JSON_OBJECT, "the answer is not an object: '%s'", out);
  int id = json_get(d, 0, "id");
  FUZZ_CHECK(id >= 0, "no id in '%s'", out);
  if (expected_id(l, n, want, sizeof want) == 0) {
    char got[sizeof want] = "";
    if (json_type_of(d, id) == JSON_STRING)
      json_quote(got, sizeof got, json_string(d, id));
    else if (json_type_of(d, id) == JSON_NUMBER)
      snprintf(got, sizeof got, "%.17g", json_number(d, id));
    FUZZ_CHECK(!strcmp(got, want), "id %s echoed as %s", want, got);
  }
  if (rc == 1) {
    int f = json_get(d, 0, "field"), members = 0;
    for (int c = json_first(d, 0); c >= 0; c = json_next(d, c)) members++;
    FUZZ_CHECK(json_get_string(d, 0, "error") && f >= 0 &&
                   (json_type_of(d, f) == JSON_STRING || json_type_of(d, f) == JSON_NULL) &&
                   members == 3,
               "a malformed error answer: '%s'", out);
  } else {
    int turns = json_get(d, 0, "turns");
    FUZZ_CHECK(turns >= 0 && json_type_of(d, turns) == JSON_ARRAY && json_first(d, turns) >= 0,
               "an analysis without turns: '%s'", out);
    for (int t = json_first(d, turns); t >= 0; t = json_next(d, t)) {
      int moves = json_get(d, t, "moves");
      FUZZ_CHECK(moves >= 0 && json_first(d, moves) >= 0, "a turn without moves: '%s'", out);
      for (int m = json_first(d, moves); m >= 0; m = json_next(d, m)) {
        double prior = -1, value = -2;
        json_get_number(d, m, "prior", &prior);
        json_get_number(d, m, "value", &value);
        FUZZ_CHECK(prior >= 0 && prior <= 1 && value >= -1 && value <= 1,
                   "prior %g value %g out of range: '%s'", prior, value, out);
        int pv = json_get(d, m, "pv");
        const char *mv = json_get_string(d, m, "move");
        FUZZ_CHECK(pv >= 0 && json_first(d, pv) >= 0 && mv &&
                       !strcmp(json_string(d, json_first(d, pv)), mv),
                   "a line that does not start with its move: '%s'", out);
      }
    }
  }
  json_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!weights_path) {
    game g;
    char err[256];
    if (game_configure(&g, "oware", 0, NULL, err, sizeof err)) abort();
    weights_path = fuzz_path("oware.weights");
    fuzz_tiny_weights(&g, weights_path);
  }
  analysis_opts o = {NULL, cap, NULL};
  const char *p = (const char *)data, *end = p + size;
  for (int i = 0; i < MAX_LINES && p < end; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const char *l = p;
    p += n + (nl ? 1 : 0);
    char *out;
    int rc = analysis_answer(&o, l, n, &out);
    if (is_blank(l, n)) {
      FUZZ_CHECK(rc == 2 && !out, "a blank line got an answer");
      continue;
    }
    FUZZ_CHECK(out != NULL, "no answer (rc %d)", rc);
    check_answer(l, n, rc, out);
    free(out);
  }
  return 0;
}

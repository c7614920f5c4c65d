/* Harness: an engine protocol session (protocol/protocol.h).
 *
 * The input is split at '\n' into lines (which may hold NUL bytes, \r, any
 * byte), at most MAX_LINES of them, each fed to proto_handle_bytes. Checked
 * after every line:
 *   - framing: a blank line or a # comment gets no response; any other line
 *     gets exactly one, starting with '=' or '?' and the line's numeric id,
 *     ending with "\n\n" and with no empty line before that end;
 *   - a '?' quotes what was sent escaped: no control byte but its end,
 *     well-formed UTF-8 only;
 *   - `quit` answers "=" (and its id) and ends the session: nothing after it
 *     is read;
 *   - after a '?', `state`, `options` and `agent` answer as they did before
 *     the line; a twin session that is sent only the lines answered with
 *     '=' answers each of them exactly as the session did (so a refused line
 *     changed nothing, not even the undo record or an agent's random stream);
 *   - after a '=', `state` is well formed: the mover 0 or 1, LEGAL the
 *     `legal` answer joined by commas, `-` exactly when the game is over,
 *     and an `over` status with two scores and a winner 0, 1 or draw.
 * Lines of the `agent` command go through fuzz_cap_spec first (fuzz/fuzz.h):
 * searches are capped to a few simulations or plies, so no input runs long. */
#include "fuzz/fuzz.h"
#include "protocol/protocol.h"

#define MAX_LINES 256

static char out_a[PROTO_MAX_RESPONSE], out_b[PROTO_MAX_RESPONSE];
static char line[PROTO_MAX_LINE + 64];
static const char *weights_path;

/* A line that gets no response: no NUL, not too long, and nothing but
 * blanks before the end or a '#'. */
static int is_blank(const char *l, size_t n) {
  if (n >= PROTO_MAX_LINE || memchr(l, 0, n)) return 0;
  for (size_t i = 0; i < n; i++) {
    if (l[i] == '#') return 1;
    if (!strchr(" \t\r\n", l[i])) return 0;
  }
  return 1;
}

/* The comment rule (docs/PROTOCOL.md): a '#' that begins a token starts a
 * comment; one inside a token is part of it. */
static void cut_comment(char *buf) {
  for (size_t i = 0; buf[i]; i++)
    if (buf[i] == '#' && (i == 0 || strchr(" \t\r\n", buf[i - 1]))) {
      buf[i] = 0;
      return;
    }
}

/* A refusal quotes what was sent escaped: no control character but the
 * final empty line, and well-formed UTF-8 (checked here by its own rule:
 * a lead byte and the continuation bytes it announces, no overlong or
 * surrogate forms, nothing above U+10FFFF). */
static void check_escaped(const char *out, size_t len) {
  const unsigned char *s = (const unsigned char *)out;
  for (size_t i = 0; i + 2 < len; i++) {
    FUZZ_CHECK(s[i] >= 0x20 && s[i] != 0x7f, "a refusal holds control byte 0x%02x: '%s'", s[i],
               out);
    if (s[i] < 0x80) continue;
    int more = s[i] >= 0xf0 ? 3 : s[i] >= 0xe0 ? 2 : s[i] >= 0xc0 ? 1 : -1;
    FUZZ_CHECK(more > 0 && s[i] >= 0xc2 && s[i] <= 0xf4, "a refusal holds bad UTF-8: '%s'", out);
    unsigned cp = s[i] & (0x3f >> more);
    for (int k = 1; k <= more; k++) {
      FUZZ_CHECK(i + k + 2 < len && (s[i + k] & 0xc0) == 0x80, "a refusal cuts UTF-8: '%s'", out);
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    FUZZ_CHECK(cp >= (more == 1   ? 0x80u
                      : more == 2 ? 0x800u
                                  : 0x10000u) &&
                   cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff),
               "a refusal holds an overlong or surrogate form: '%s'", out);
    i += (size_t)more;
  }
}

/* The id the response must carry: the first token, when it is a
 * non-negative decimal number that fits a long. */
static void expected_id(const char *l, size_t n, char *id, size_t len) {
  id[0] = 0;
  if (n >= PROTO_MAX_LINE) return;
  char buf[PROTO_MAX_LINE];
  memcpy(buf, l, n);
  buf[n] = 0; /* the line is read up to its first NUL */
  cut_comment(buf);
  char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save);
  if (!t || !isdigit((unsigned char)t[0])) return;
  char *end;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (*end || v < 0 || errno) return;
  snprintf(id, len, "%ld", v);
}

static void check_frame(const char *l, size_t n, const char *out, int quit) {
  size_t len = strlen(out);
  if (is_blank(l, n)) {
    FUZZ_CHECK(len == 0 && !quit, "a blank line or comment got a response: '%s'", out);
    return;
  }
  FUZZ_CHECK(len >= 3, "response too short: '%s'", out);
  FUZZ_CHECK(out[0] == '=' || out[0] == '?', "response does not start with = or ?: '%s'", out);
  FUZZ_CHECK(!strcmp(out + len - 2, "\n\n"), "response does not end with an empty line: '%s'", out);
  FUZZ_CHECK(strstr(out, "\n\n") == out + len - 2, "empty line inside a response: '%s'", out);
  FUZZ_CHECK(len < PROTO_MAX_RESPONSE, "response of %zu bytes", len);
  char id[32];
  expected_id(l, n, id, sizeof id);
  size_t il = strlen(id);
  FUZZ_CHECK(!strncmp(out + 1, id, il) && (out[1 + il] == ' ' || out[1 + il] == '\n'),
             "response '%s' does not carry the id '%s'", out, id);
  if (quit) FUZZ_CHECK(out[0] == '=' && len == il + 3, "quit answered '%s'", out);
  if (out[0] == '?') check_escaped(out, len);
}

/* What a refused line must leave as it was. */
static void snapshot(proto *s, char *buf, size_t len) {
  static const char *const ask[] = {"state", "options", "agent"};
  size_t k = 0;
  for (int i = 0; i < 3; i++) {
    proto_handle(s, ask[i], out_b, sizeof out_b);
    k += (size_t)snprintf(buf + k, len - k, "%s", out_b);
  }
}

/* `state` against `legal`, and the status fields. */
static void check_state(proto *s) {
  char st[PROTO_MAX_RESPONSE], lg[PROTO_MAX_RESPONSE], *tok[GAME_MAX_PITS * 2 + 32], *save = NULL;
  proto_handle(s, "state", st, sizeof st);
  proto_handle(s, "legal", lg, sizeof lg);
  FUZZ_CHECK(!strncmp(st, "= ", 2) && !strncmp(lg, "=", 1), "state '%s' legal '%s'", st, lg);
  int n = 0;
  for (char *t = strtok_r(st + 2, " \n", &save); t && n < (int)(sizeof tok / sizeof tok[0]);
       t = strtok_r(NULL, " \n", &save))
    tok[n++] = t;
  FUZZ_CHECK(n >= 4 && (!strcmp(tok[0], "0") || !strcmp(tok[0], "1")), "state: bad mover");
  int k = 2;
  while (k < n && strcmp(tok[k], "ongoing") && strcmp(tok[k], "over")) k++;
  FUZZ_CHECK(k < n, "state: no status");
  /* `legal` answers "= 0 1 2" or "=" when there is none. */
  char want[PROTO_MAX_RESPONSE] = "-";
  if (lg[1] == ' ') {
    snprintf(want, sizeof want, "%s", lg + 2);
    want[strcspn(want, "\n")] = 0;
    for (char *c = want; *c; c++)
      if (*c == ' ') *c = ',';
  }
  FUZZ_CHECK(!strcmp(tok[k - 1], want), "state says legal '%s', legal says '%s'", tok[k - 1], want);
  if (!strcmp(tok[k], "ongoing")) {
    FUZZ_CHECK(k == n - 1, "state: tokens after ongoing");
    FUZZ_CHECK(strcmp(want, "-"), "an ongoing game without a legal move");
  } else {
    FUZZ_CHECK(k == n - 4, "state: over takes 3 fields");
    FUZZ_CHECK(!strcmp(want, "-"), "a finished game with legal moves");
    const char *w = tok[n - 1];
    FUZZ_CHECK(!strcmp(w, "0") || !strcmp(w, "1") || !strcmp(w, "draw"), "winner '%s'", w);
  }
}

/* The `agent` command with its spec capped; 0 for any other line. */
static int rewrite_agent(const char *l, size_t n, char *dst, size_t len) {
  if (n >= PROTO_MAX_LINE || memchr(l, 0, n)) return 0;
  char buf[PROTO_MAX_LINE], *tok[64], *save = NULL;
  memcpy(buf, l, n);
  buf[n] = 0;
  cut_comment(buf);
  int argc = 0;
  for (char *t = strtok_r(buf, " \t\r\n", &save); t && argc < 64;
       t = strtok_r(NULL, " \t\r\n", &save))
    tok[argc++] = t;
  int first = argc && isdigit((unsigned char)tok[0][0]);
  if (argc < first + 2 || strcmp(tok[first], "agent")) return 0;
  char spec[1024];
  size_t k = 0;
  spec[0] = 0;
  for (int i = first + 1; i < argc && k < sizeof spec; i++)
    k += (size_t)snprintf(spec + k, sizeof spec - k, "%s%s", k ? " " : "", tok[i]);
  char capped[1024];
  fuzz_cap_spec(spec, weights_path, capped, sizeof capped);
  snprintf(dst, len, "%s%sagent %s", first ? tok[0] : "", first ? " " : "", capped);
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!weights_path) {
    game g;
    char err[256];
    if (game_configure(&g, "oware", 0, NULL, err, sizeof err)) abort();
    weights_path = fuzz_path("oware.weights");
    fuzz_tiny_weights(&g, weights_path);
  }
  proto *a = proto_create(1), *b = proto_create(1);
  FUZZ_CHECK(a && b, "proto_create failed");
  static char before[3 * PROTO_MAX_RESPONSE], after[3 * PROTO_MAX_RESPONSE];
  const char *p = (const char *)data, *end = p + size;
  for (int i = 0; i < MAX_LINES && p < end; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const char *l = p;
    p += n + (nl ? 1 : 0);
    if (rewrite_agent(l, n, line, sizeof line)) {
      l = line;
      n = strlen(line);
    }
    int blank = is_blank(l, n);
    if (!blank) snapshot(a, before, sizeof before);
    int quit = proto_handle_bytes(a, l, n, out_a, sizeof out_a);
    check_frame(l, n, out_a, quit);
    if (blank) continue;
    if (out_a[0] == '?') {
      snapshot(a, after, sizeof after);
      FUZZ_CHECK(!strcmp(before, after), "a refused line changed the session:\n%s\nbecame\n%s",
                 before, after);
      continue;
    }
    int quit_b = proto_handle_bytes(b, l, n, out_b, sizeof out_b);
    FUZZ_CHECK(quit == quit_b && !strcmp(out_a, out_b),
               "the twin session that skipped the refused lines answered\n%s\ninstead of\n%s",
               out_b, out_a);
    if (quit) break;
    check_state(a);
  }
  proto_free(a);
  proto_free(b);
  return 0;
}

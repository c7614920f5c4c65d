/* JSON strings out, JSON lines in: a recursive-descent reader that keeps
 * every value in one array in document order. */
#include "base/json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* ---- Writing ---------------------------------------------------------------- */

/* The text byte c stands for inside a JSON string; returns its length. */
static int escape(unsigned char c, char out[8]) {
  if (c == '"' || c == '\\') {
    out[0] = '\\';
    out[1] = (char)c;
    return 2;
  }
  if (c < 0x20) return snprintf(out, 8, "\\u%04x", c);
  out[0] = (char)c;
  return 1;
}

/* Appends k bytes of t to out where they fit; counts them either way. */
static void put(char *out, size_t cap, size_t *n, const char *t, int k) {
  for (int i = 0; i < k; i++, ++*n)
    if (*n + 1 < cap) out[*n] = t[i];
}

size_t json_quote(char *out, size_t cap, const char *s) {
  size_t n = 0;
  char e[8];
  put(out, cap, &n, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    int k = escape(*p, e);
    put(out, cap, &n, e, k);
  }
  put(out, cap, &n, "\"", 1);
  if (cap) out[n < cap ? n : cap - 1] = 0;
  return n;
}

void json_fput_string(FILE *f, const char *s) {
  char e[8];
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    fwrite(e, 1, (size_t)escape(*p, e), f);
  fputc('"', f);
}

/* ---- The writer -------------------------------------------------------------- */

static void emit(json_writer *w, const char *t, size_t k) {
  if (w->f) {
    if (k && fwrite(t, 1, k, w->f) != k) w->failed = 1;
    w->len += k;
    return;
  }
  int n = (int)k;
  put(w->out, w->cap, &w->len, t, n);
  if (w->cap) w->out[w->len < w->cap ? w->len : w->cap - 1] = 0;
}

static void emits(json_writer *w, const char *t) { emit(w, t, strlen(t)); }

void json_writer_init(json_writer *w, char *out, size_t cap) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->cap = cap;
  if (cap) out[0] = 0;
}

void json_writer_init_file(json_writer *w, FILE *f) {
  memset(w, 0, sizeof *w);
  w->f = f;
}

int json_writer_done(const json_writer *w) {
  if (w->failed || w->depth != 0) return -1;
  return !w->f && w->len >= w->cap ? -1 : 0;
}

void json_break(json_writer *w, const char *ws) { w->brk = ws; }

void json_lines(json_writer *w, const char *ws, const char *close) {
  w->lines[w->depth] = ws;
  w->close[w->depth] = close;
}

/* json_break's white space, once, else the level's own (json_lines). */
static void take_break(json_writer *w, const char *level) {
  const char *ws = w->brk ? w->brk : level;
  if (ws) emits(w, ws);
  w->brk = NULL;
}

/* The separator and key before an item at the current level. */
static void item(json_writer *w, const char *key) {
  const char *ws = w->brk ? w->brk : w->lines[w->depth];
  if (w->items[w->depth]) emits(w, ws ? "," : ", ");
  take_break(w, w->lines[w->depth]);
  w->items[w->depth] = 1;
  if (!key) return;
  char e[8];
  emits(w, "\"");
  for (const unsigned char *p = (const unsigned char *)key; *p; p++)
    emit(w, e, (size_t)escape(*p, e));
  emits(w, "\": ");
}

static void open_level(json_writer *w, const char *key, const char *bracket) {
  item(w, key);
  emits(w, bracket);
  if (w->depth == JSON_MAX_DEPTH) {
    w->failed = 1;
    return;
  }
  w->items[++w->depth] = 0;
  w->lines[w->depth] = w->close[w->depth] = NULL;
}

static void close_level(json_writer *w, const char *bracket) {
  if (w->depth == 0) {
    w->failed = 1;
    return;
  }
  take_break(w, w->close[w->depth]);
  w->depth--;
  emits(w, bracket);
}

void json_begin_object(json_writer *w, const char *key) { open_level(w, key, "{"); }
void json_end_object(json_writer *w) { close_level(w, "}"); }
void json_begin_array(json_writer *w, const char *key) { open_level(w, key, "["); }
void json_end_array(json_writer *w) { close_level(w, "]"); }

void json_put_string(json_writer *w, const char *key, const char *s) {
  char e[8];
  item(w, key);
  emits(w, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    emit(w, e, (size_t)escape(*p, e));
  emits(w, "\"");
}

void json_put_int(json_writer *w, const char *key, long long v) {
  char t[32];
  item(w, key);
  emit(w, t, (size_t)snprintf(t, sizeof t, "%lld", v));
}

void json_put_uint(json_writer *w, const char *key, unsigned long long v) {
  char t[32];
  item(w, key);
  emit(w, t, (size_t)snprintf(t, sizeof t, "%llu", v));
}

/* A double in printf's format f with precision prec, or null. */
static void put_double(json_writer *w, const char *key, double v, const char *f, int prec) {
  char t[352]; /* %.*f of the largest double with 17 decimals */
  item(w, key);
  if (!isfinite(v)) {
    emits(w, "null");
    return;
  }
  if (prec < 0) prec = 0;
  if (prec > 17) prec = 17;
  int n = snprintf(t, sizeof t, f, prec, v);
  emit(w, t, n < 0 ? 0 : (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

void json_put_fixed(json_writer *w, const char *key, double v, int decimals) {
  put_double(w, key, v, "%.*f", decimals);
}

void json_put_real(json_writer *w, const char *key, double v, int digits) {
  put_double(w, key, v, "%.*g", digits < 1 ? 1 : digits);
}

void json_put_bool(json_writer *w, const char *key, int b) {
  item(w, key);
  emits(w, b ? "true" : "false");
}

void json_put_null(json_writer *w, const char *key) {
  item(w, key);
  emits(w, "null");
}

void json_put_raw(json_writer *w, const char *key, const char *json) {
  item(w, key);
  emits(w, json);
}

/* ---- Reading ---------------------------------------------------------------- */

#define NONE SIZE_MAX

typedef struct {
  json_type type;
  int parent; /* -1 for the root */
  int end;    /* one past the last value inside this one */
  double num;
  size_t str; /* offset of the string in the pool, or NONE */
  size_t key; /* offset of the member's key, or NONE */
} node;

struct json_doc {
  node *v;
  int n, cap;
  char *pool; /* unescaped strings, each NUL-terminated */
  size_t used;
};

typedef struct {
  json_doc *d;
  const char *text, *s; /* the whole text and the reading position */
  char *err;
  size_t errlen;
} reader;

static int fault(reader *r, const char *what) {
  errf(r->err, r->errlen, "column %d: %s", (int)(r->s - r->text) + 1, what);
  return -1;
}

static void skip_space(reader *r) {
  while (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r') r->s++;
}

static int add_node(reader *r, json_type t, int parent, size_t key) {
  json_doc *d = r->d;
  if (d->n == d->cap) {
    int cap = d->cap ? 2 * d->cap : 16;
    node *v = realloc(d->v, (size_t)cap * sizeof *v);
    if (!v) return fault(r, "out of memory");
    d->v = v;
    d->cap = cap;
  }
  d->v[d->n] = (node){t, parent, d->n + 1, 0, NONE, key};
  return d->n++;
}

static int hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    int h = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (h < 0) return -1;
    v = v * 16 + (unsigned)h;
  }
  *out = v;
  return 0;
}

static char *put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    *o++ = (char)cp;
  } else if (cp < 0x800) {
    *o++ = (char)(0xc0 | cp >> 6);
    *o++ = (char)(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xe0 | cp >> 12);
    *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
    *o++ = (char)(0x80 | (cp & 0x3f));
  } else {
    *o++ = (char)(0xf0 | cp >> 18);
    *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
    *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
    *o++ = (char)(0x80 | (cp & 0x3f));
  }
  return o;
}

/* A string at r->s (on its opening quote), unescaped into the pool; its
 * offset goes to *off. The unescaped text is never longer than the quoted
 * one, so a pool as long as the whole text always has room. */
static int read_string(reader *r, size_t *off) {
  json_doc *d = r->d;
  char *o = d->pool + d->used;
  *off = d->used;
  r->s++;
  for (;;) {
    unsigned char c = (unsigned char)*r->s;
    if (c == '"') break;
    if (c == 0) return fault(r, "unterminated string");
    if (c < 0x20) return fault(r, "control character in a string");
    if (c != '\\') {
      *o++ = (char)c;
      r->s++;
      continue;
    }
    const char *esc = r->s++;
    switch (*r->s++) {
      case '"':
        *o++ = '"';
        break;
      case '\\':
        *o++ = '\\';
        break;
      case '/':
        *o++ = '/';
        break;
      case 'b':
        *o++ = '\b';
        break;
      case 'f':
        *o++ = '\f';
        break;
      case 'n':
        *o++ = '\n';
        break;
      case 'r':
        *o++ = '\r';
        break;
      case 't':
        *o++ = '\t';
        break;
      case 'u': {
        unsigned cp, lo;
        if (hex4(r->s, &cp)) {
          r->s = esc;
          return fault(r, "bad \\u escape");
        }
        r->s += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff) {
          r->s = esc;
          return fault(r, "lone low surrogate");
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
          if (r->s[0] != '\\' || r->s[1] != 'u' || hex4(r->s + 2, &lo) || lo < 0xdc00 ||
              lo > 0xdfff) {
            r->s = esc;
            return fault(r, "high surrogate without its low half");
          }
          r->s += 6;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        o = put_utf8(o, cp);
        break;
      }
      default:
        r->s = esc;
        return fault(r, "bad escape");
    }
  }
  r->s++;
  *o++ = 0;
  d->used = (size_t)(o - d->pool);
  return 0;
}

/* A number by the JSON grammar; strtod converts the span it checked. */
static int read_number(reader *r, double *out) {
  const char *s = r->s;
  if (*s == '-') s++;
  if (*s == '0')
    s++;
  else if (*s >= '1' && *s <= '9')
    while (*s >= '0' && *s <= '9') s++;
  else
    return fault(r, "bad number");
  if (*s == '.') {
    if (!(*++s >= '0' && *s <= '9')) return fault(r, "bad number");
    while (*s >= '0' && *s <= '9') s++;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return fault(r, "bad number");
    while (*s >= '0' && *s <= '9') s++;
  }
  *out = strtod(r->s, NULL);
  r->s = s;
  return 0;
}

static int read_value(reader *r, int parent, size_t key, int depth);

/* The members of an object or the elements of an array at r->s. */
static int read_children(reader *r, int v, int depth) {
  int object = r->d->v[v].type == JSON_OBJECT;
  char close = object ? '}' : ']';
  r->s++;
  skip_space(r);
  if (*r->s == close) {
    r->s++;
    return 0;
  }
  for (;;) {
    size_t key = NONE;
    if (object) {
      if (*r->s != '"') return fault(r, "expected a key");
      if (read_string(r, &key)) return -1;
      skip_space(r);
      if (*r->s != ':') return fault(r, "expected ':'");
      r->s++;
    }
    if (read_value(r, v, key, depth + 1)) return -1;
    skip_space(r);
    if (*r->s == close) {
      r->s++;
      return 0;
    }
    if (*r->s != ',') return fault(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    r->s++;
    skip_space(r);
  }
}

static int read_value(reader *r, int parent, size_t key, int depth) {
  skip_space(r);
  char c = *r->s;
  json_type t = c == '{'               ? JSON_OBJECT
                : c == '['             ? JSON_ARRAY
                : c == '"'             ? JSON_STRING
                : c == 't' || c == 'f' ? JSON_BOOL
                : c == 'n'             ? JSON_NULL
                                       : JSON_NUMBER;
  if (t == JSON_NUMBER && c != '-' && !(c >= '0' && c <= '9')) return fault(r, "expected a value");
  if (depth > JSON_MAX_DEPTH) return fault(r, "nested too deeply");
  int v = add_node(r, t, parent, key);
  if (v < 0) return -1;
  switch (t) {
    case JSON_OBJECT:
    case JSON_ARRAY:
      if (read_children(r, v, depth)) return -1;
      break;
    case JSON_STRING:
      if (read_string(r, &r->d->v[v].str)) return -1;
      break;
    case JSON_BOOL:
    case JSON_NULL: {
      const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
      size_t n = strlen(word);
      if (strncmp(r->s, word, n)) return fault(r, "unknown word");
      r->d->v[v].num = c == 't';
      r->s += n;
      break;
    }
    case JSON_NUMBER:
      if (read_number(r, &r->d->v[v].num)) return -1;
      break;
  }
  r->d->v[v].end = r->d->n;
  return 0;
}

json_doc *json_parse(const char *text, char *err, size_t errlen) {
  json_doc *d = calloc(1, sizeof *d);
  size_t len = strlen(text);
  if (d) d->pool = malloc(len + 1);
  if (!d || !d->pool) {
    json_free(d);
    errf(err, errlen, "out of memory");
    return NULL;
  }
  reader r = {d, text, text, err, errlen};
  if (read_value(&r, -1, NONE, 1) != 0) {
    json_free(d);
    return NULL;
  }
  skip_space(&r);
  if (*r.s) {
    fault(&r, "text after the value");
    json_free(d);
    return NULL;
  }
  return d;
}

void json_free(json_doc *d) {
  if (!d) return;
  free(d->v);
  free(d->pool);
  free(d);
}

static const node *at(const json_doc *d, int v) { return v >= 0 && v < d->n ? &d->v[v] : NULL; }

json_type json_type_of(const json_doc *d, int v) {
  const node *x = at(d, v);
  return x ? x->type : JSON_NULL;
}

double json_number(const json_doc *d, int v) {
  const node *x = at(d, v);
  return x ? x->num : 0;
}

const char *json_string(const json_doc *d, int v) {
  const node *x = at(d, v);
  return x && x->str != NONE ? d->pool + x->str : NULL;
}

const char *json_key(const json_doc *d, int v) {
  const node *x = at(d, v);
  return x && x->key != NONE ? d->pool + x->key : NULL;
}

int json_first(const json_doc *d, int v) {
  const node *x = at(d, v);
  return x && (x->type == JSON_OBJECT || x->type == JSON_ARRAY) && x->end > v + 1 ? v + 1 : -1;
}

int json_next(const json_doc *d, int c) {
  const node *x = at(d, c), *p = x ? at(d, x->parent) : NULL;
  return p && x->end < p->end ? x->end : -1;
}

int json_get(const json_doc *d, int obj, const char *key) {
  if (json_type_of(d, obj) != JSON_OBJECT) return -1;
  int found = -1;
  for (int c = json_first(d, obj); c >= 0; c = json_next(d, c))
    if (!strcmp(json_key(d, c), key)) found = c;
  return found;
}

int json_get_number(const json_doc *d, int obj, const char *key, double *out) {
  int v = json_get(d, obj, key);
  if (v < 0 || json_type_of(d, v) != JSON_NUMBER) return -1;
  *out = json_number(d, v);
  return 0;
}

const char *json_get_string(const json_doc *d, int obj, const char *key) {
  int v = json_get(d, obj, key);
  return v >= 0 && json_type_of(d, v) == JSON_STRING ? json_string(d, v) : NULL;
}

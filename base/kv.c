#include "base/kv.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

const char *const kv_auto_word[] = {"auto", NULL};

static void *field(const kv_key *k, void *base) { return (char *)base + k->off; }
static const void *cfield(const kv_key *k, const void *base) { return (const char *)base + k->off; }

static const kv_key *find_n(const kv_table *t, const char *name, size_t len) {
  for (int i = 0; i < t->n; i++)
    if (strlen(t->keys[i].name) == len && !memcmp(t->keys[i].name, name, len)) return &t->keys[i];
  return NULL;
}

const kv_key *kv_find(const kv_table *t, const char *name) { return find_n(t, name, strlen(name)); }

/* Whole-string decimal syntax: [+-]digits, and with `real` an optional
 * fraction and exponent. strto* alone would take leading spaces, hex,
 * "inf" and "nan". */
static int decimal_syntax(const char *s, int real) {
  static const char digits[] = "0123456789";
  if (*s == '+' || *s == '-') s++;
  size_t n = strspn(s, digits);
  s += n;
  if (real && *s == '.') {
    size_t f = strspn(++s, digits);
    s += f;
    n += f;
  }
  if (n == 0) return 0;
  if (real && (*s == 'e' || *s == 'E')) {
    s++;
    if (*s == '+' || *s == '-') s++;
    size_t e = strspn(s, digits);
    if (e == 0) return 0;
    s += e;
  }
  return *s == 0;
}

void kv_accepts(const kv_key *k, char *buf, size_t len) {
  size_t n = 0;
  switch (k->type) {
    case KV_INT:
      snprintf(buf, len, "an integer %.0f..%.0f%s", k->lo, k->hi, k->names ? " or auto" : "");
      return;
    case KV_U64:
      snprintf(buf, len, "an integer 0..%" PRIu64, UINT64_MAX);
      return;
    case KV_FLOAT:
    case KV_DOUBLE:
      snprintf(buf, len, "a number %g..%g", k->lo, k->hi);
      return;
    case KV_BOOL:
      snprintf(buf, len, "0 or 1");
      return;
    case KV_STR:
      snprintf(buf, len, "at most %zu characters", k->size - 1);
      return;
    case KV_ENUM:
      if (len) buf[0] = 0;
      for (int i = 0; k->names[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "one of: ", k->names[i]);
      return;
  }
}

/* Parses text into k's field of base; the field is written only when the
 * whole text is a valid value. 0 or -1. */
static int set_value(const kv_key *k, void *base, const char *text) {
  void *f = field(k, base);
  char *end;
  errno = 0;
  switch (k->type) {
    case KV_INT: {
      if (k->names && !strcmp(text, k->names[0])) {
        *(int *)f = KV_AUTO;
        return 0;
      }
      if (!decimal_syntax(text, 0)) return -1;
      long long v = strtoll(text, &end, 10);
      if (errno == ERANGE || v < INT_MIN || v > INT_MAX || (double)v < k->lo || (double)v > k->hi)
        return -1;
      *(int *)f = (int)v;
      return 0;
    }
    case KV_U64: {
      if (!decimal_syntax(text, 0) || text[0] == '-') return -1;
      unsigned long long v = strtoull(text, &end, 10);
      if (errno == ERANGE) return -1;
      *(uint64_t *)f = (uint64_t)v;
      return 0;
    }
    case KV_FLOAT:
    case KV_DOUBLE: {
      if (!decimal_syntax(text, 1)) return -1;
      double v = strtod(text, &end);
      if (!(v >= k->lo && v <= k->hi)) return -1; /* also overflow to inf */
      if (k->type == KV_FLOAT)
        *(float *)f = (float)v;
      else
        *(double *)f = v;
      return 0;
    }
    case KV_BOOL:
      if (strcmp(text, "0") && strcmp(text, "1")) return -1;
      *(int *)f = text[0] == '1';
      return 0;
    case KV_ENUM:
      for (int i = 0; k->names[i]; i++)
        if (!strcmp(text, k->names[i])) {
          *(int *)f = i;
          return 0;
        }
      return -1;
    case KV_STR: {
      size_t n = strlen(text);
      if (n >= k->size) return -1;
      memcpy(f, text, n + 1);
      return 0;
    }
  }
  return -1;
}

int kv_parse(const kv_key *k, void *base, const char *text, char *err, size_t errlen) {
  if (set_value(k, base, text) == 0) return 0;
  char what[512];
  kv_accepts(k, what, sizeof what);
  errf(err, errlen, "bad value '%s' (%s)", text, what);
  return -1;
}

/* Appends to buf at *at; -1 (and *at past the end) when it does not fit. */
static int append(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t len, size_t *at, const char *fmt, ...) {
  if (*at >= len) return -1;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(buf + *at, len - *at, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= len - *at) {
    *at = len;
    return -1;
  }
  *at += (size_t)w;
  return 0;
}

/* The list of known keys goes straight into err, however long: cut only
 * where err ends, as any message is. */
static int unknown_key(const kv_table *const *t, int n, const char *key, size_t keylen, char *err,
                       size_t errlen) {
  if (!err || errlen == 0) return -1;
  size_t at = 0;
  append(err, errlen, &at, "unknown setting '%.*s' (known: ", (int)keylen, key);
  const char *sep = "";
  for (int j = 0; j < n; j++)
    for (int i = 0; i < t[j]->n; i++, sep = ", ")
      append(err, errlen, &at, "%s%s", sep, t[j]->keys[i].name);
  append(err, errlen, &at, ")");
  return -1;
}

/* kv_parse with the key named. */
static int bad_value(const kv_key *k, void *base, const char *text, char *err, size_t errlen) {
  if (set_value(k, base, text) == 0) return 0;
  char what[512];
  kv_accepts(k, what, sizeof what);
  errf(err, errlen, "bad value '%s' for %s (%s)", text, k->name, what);
  return -1;
}

int kv_set(const kv_table *t, void *base, const char *key, const char *value, char *err,
           size_t errlen) {
  const kv_key *k = kv_find(t, key);
  if (!k) return unknown_key(&t, 1, key, strlen(key), err, errlen);
  return bad_value(k, base, value, err, errlen);
}

int kv_defaults(const kv_table *t, void *base, char *err, size_t errlen) {
  for (int i = 0; i < t->n; i++)
    if (bad_value(&t->keys[i], base, t->keys[i].def, err, errlen) != 0) return -1;
  return 0;
}

/* The number of names of a KV_ENUM key. */
static int n_names(const kv_key *k) {
  int n = 0;
  while (k->names[n]) n++;
  return n;
}

/* A numeric field (every type but KV_U64 and KV_STR) as a double. */
static double number_of(const kv_key *k, const void *base) {
  const void *f = cfield(k, base);
  int i;
  float x;
  double d;
  switch (k->type) {
    case KV_FLOAT:
      memcpy(&x, f, sizeof x);
      return x;
    case KV_DOUBLE:
      memcpy(&d, f, sizeof d);
      return d;
    default:
      memcpy(&i, f, sizeof i);
      return i;
  }
}

int kv_check(const kv_table *t, const void *base, char *err, size_t errlen) {
  for (int i = 0; i < t->n; i++) {
    const kv_key *k = &t->keys[i];
    double v = 0, lo = k->lo, hi = k->hi;
    int ok = 1;
    if (k->type == KV_STR) {
      ok = memchr(cfield(k, base), 0, k->size) != NULL;
    } else if (k->type != KV_U64) { /* a u64 takes every value */
      v = number_of(k, base);
      if (k->type == KV_ENUM) lo = 0, hi = n_names(k) - 1;
      ok = (v >= lo && v <= hi) || (k->type == KV_INT && k->names && v == KV_AUTO);
    }
    if (ok) continue;
    char what[512];
    kv_accepts(k, what, sizeof what);
    if (k->type == KV_STR)
      errf(err, errlen, "%s is too long (%s)", k->name, what);
    else
      errf(err, errlen, "%s %g is out of range (%s)", k->name, v, what);
    return -1;
  }
  return 0;
}

/* Formats k's value; `exact`: floats round-trip, else their short form. */
static int format_value(const kv_key *k, const void *base, int exact, char *buf, size_t len) {
  const void *f = cfield(k, base);
  int w = -1, i;
  float x;
  double d;
  uint64_t u;
  switch (k->type) {
    case KV_INT:
    case KV_BOOL:
      memcpy(&i, f, sizeof i);
      if (k->type == KV_INT && k->names && i == KV_AUTO)
        w = snprintf(buf, len, "%s", k->names[0]);
      else
        w = snprintf(buf, len, "%d", i);
      break;
    case KV_ENUM:
      memcpy(&i, f, sizeof i);
      w = snprintf(buf, len, "%s", k->names[i]);
      break;
    case KV_U64:
      memcpy(&u, f, sizeof u);
      w = snprintf(buf, len, "%" PRIu64, u);
      break;
    case KV_FLOAT:
      memcpy(&x, f, sizeof x);
      w = snprintf(buf, len, exact ? "%.9g" : "%g", (double)x);
      break;
    case KV_DOUBLE:
      memcpy(&d, f, sizeof d);
      w = snprintf(buf, len, exact ? "%.17g" : "%g", d);
      break;
    case KV_STR:
      w = snprintf(buf, len, "%s", (const char *)f);
      break;
  }
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

int kv_format(const kv_key *k, const void *base, char *buf, size_t len) {
  return format_value(k, base, 1, buf, len);
}

int kv_names(const kv_table *t, const char *sep, char *buf, size_t len) {
  size_t at = 0;
  if (len) buf[0] = 0;
  for (int i = 0; i < t->n; i++)
    if (append(buf, len, &at, "%s%s", i ? sep : "", t->keys[i].name)) return -1;
  return 0;
}

int kv_write(const kv_table *t, const void *base, char *buf, size_t len) {
  size_t at = 0;
  if (len) buf[0] = 0;
  for (int i = 0; i < t->n; i++) {
    char v[512];
    if (kv_format(&t->keys[i], base, v, sizeof v) ||
        append(buf, len, &at, "%s = %s\n", t->keys[i].name, v))
      return -1;
  }
  return 0;
}

int kv_describe(const kv_table *t, const void *defaults, char *buf, size_t len) {
  size_t at = 0;
  if (len) buf[0] = 0;
  for (int i = 0; i < t->n; i++) {
    const kv_key *k = &t->keys[i];
    char v[512];
    if (!defaults)
      snprintf(v, sizeof v, "%s", k->def);
    else if (format_value(k, defaults, 0, v, sizeof v))
      return -1;
    /* Numbers show their range, so that a document of the keys states
     * every bound the code enforces. */
    char range[96] = "";
    if (k->type == KV_INT)
      snprintf(range, sizeof range, " [%.0f..%.0f%s]", k->lo, k->hi, k->names ? " or auto" : "");
    else if (k->type == KV_FLOAT || k->type == KV_DOUBLE)
      snprintf(range, sizeof range, " [%.10g..%.10g]", k->lo, k->hi);
    if (append(buf, len, &at, "%-18s default %-32s %s%s\n", k->name, v, k->help, range)) return -1;
  }
  return 0;
}

/* ---- Lists of settings ------------------------------------------------------------ */

int kv_set_list(kv_target *tg, int n, int argc, char *const *argv, char *err, size_t errlen) {
  const kv_table *tables[16];
  if (n > 16) {
    errf(err, errlen, "too many settings tables (%d)", n);
    return -1;
  }
  for (int j = 0; j < n; j++) {
    if (tg[j].t->n > KV_MAX_KEYS) {
      errf(err, errlen, "a settings table has more than %d keys", KV_MAX_KEYS);
      return -1;
    }
    tables[j] = tg[j].t;
    tg[j].seen = 0;
  }
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i], *eq = strchr(s, '=');
    if (!eq || eq == s) {
      errf(err, errlen, "bad setting '%s' (expected key=value)", s);
      return -1;
    }
    size_t keylen = (size_t)(eq - s);
    const kv_key *k = NULL;
    int j = 0;
    for (; j < n && !k; j++) k = find_n(tg[j].t, s, keylen);
    if (!k) return unknown_key(tables, n, s, keylen, err, errlen);
    kv_target *t = &tg[j - 1];
    uint64_t bit = 1ULL << (k - t->t->keys);
    if (t->seen & bit) {
      errf(err, errlen, "setting '%s' given twice", k->name);
      return -1;
    }
    if (bad_value(k, t->base, eq + 1, err, errlen) != 0) return -1;
    t->seen |= bit;
  }
  return 0;
}

int kv_given(const kv_target *tg, const char *name) {
  const kv_key *k = kv_find(tg->t, name);
  return k && (tg->seen >> (k - tg->t->keys) & 1);
}

#include "base/ini.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

static int add(ini *f, const char *section, const char *key, const char *value, int line, char *err,
               size_t errlen) {
  if (strlen(key) >= sizeof f->e[0].key || strlen(value) >= sizeof f->e[0].value ||
      strlen(section) >= sizeof f->e[0].section) {
    errf(err, errlen, "%s:%d: key, value or section too long", f->path, line);
    return -1;
  }
  if (f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 32;
    ini_entry *e = realloc(f->e, (size_t)cap * sizeof *e);
    if (!e) {
      errf(err, errlen, "out of memory");
      return -1;
    }
    f->e = e;
    f->cap = cap;
  }
  ini_entry *e = &f->e[f->n++];
  memset(e, 0, sizeof *e);
  strcpy(e->section, section);
  strcpy(e->key, key);
  strcpy(e->value, value);
  e->line = line;
  return 0;
}

static ini_entry *find(ini *f, const char *section, const char *key) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->e[i].section, section) && !strcmp(f->e[i].key, key)) return &f->e[i];
  return NULL;
}

int ini_parse(ini *f, const char *name, const char *text, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  snprintf(f->path, sizeof f->path, "%s", name);
  char section[64] = "";
  int line = 0;
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char buf[1024];
    line++;
    if (len >= sizeof buf) {
      errf(err, errlen, "%s:%d: line too long", name, line);
      ini_free(f);
      return -1;
    }
    memcpy(buf, p, len);
    buf[len] = 0;
    p += len + (nl ? 1 : 0);
    char *s = trim(buf);
    if (!*s || *s == '#' || *s == ';') continue;
    if (*s == '[') {
      char *close = strchr(s, ']');
      /* A comment may follow the header. */
      if (close) {
        char *rest = close + 1;
        while (isspace((unsigned char)*rest)) rest++;
        if (*rest == '#' || *rest == ';') close[1] = 0;
      }
      if (!close || close[1] != 0 || close == s + 1 || (size_t)(close - s - 1) >= sizeof section) {
        errf(err, errlen, "%s:%d: bad section header '%s'", name, line, s);
        ini_free(f);
        return -1;
      }
      *close = 0;
      snprintf(section, sizeof section, "%s", trim(s + 1));
      continue;
    }
    char *eq = strchr(s, '=');
    if (!eq) {
      errf(err, errlen, "%s:%d: expected 'key = value', got '%s'", name, line, s);
      ini_free(f);
      return -1;
    }
    *eq = 0;
    char *key = trim(s), *value = eq + 1;
    for (char *c = value; *c; c++)
      if ((*c == '#' || *c == ';') && (c == value || isspace((unsigned char)c[-1]))) {
        *c = 0;
        break;
      }
    value = trim(value);
    if (!*key) {
      errf(err, errlen, "%s:%d: missing key before '='", name, line);
      ini_free(f);
      return -1;
    }
    if (find(f, section, key)) {
      errf(err, errlen, "%s:%d: key '%s' repeated in [%s]", name, line, key, section);
      ini_free(f);
      return -1;
    }
    if (add(f, section, key, value, line, err, errlen) != 0) {
      ini_free(f);
      return -1;
    }
  }
  return 0;
}

int ini_load(ini *f, const char *path, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  FILE *in = fopen(path, "rb");
  if (!in) {
    errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, n = 0;
  char *text = malloc(cap);
  for (;;) {
    if (!text) break;
    if (n + 1024 > cap) {
      char *t = realloc(text, cap *= 2);
      if (!t) {
        free(text);
        text = NULL;
        break;
      }
      text = t;
    }
    size_t r = fread(text + n, 1, cap - n - 1, in);
    n += r;
    if (r == 0) break;
  }
  int bad = ferror(in);
  fclose(in);
  if (!text || bad) {
    free(text);
    errf(err, errlen, "%s: read failed", path);
    return -1;
  }
  text[n] = 0;
  if (strlen(text) != n) {
    free(text);
    errf(err, errlen, "%s: not a text file (NUL byte)", path);
    return -1;
  }
  int rc = ini_parse(f, path, text, err, errlen);
  free(text);
  return rc;
}

void ini_free(ini *f) {
  free(f->e);
  f->e = NULL;
  f->n = f->cap = 0;
}

ini_entry *ini_get(ini *f, const char *section, const char *key) {
  ini_entry *e = find(f, section, key);
  if (e) e->used = 1;
  return e;
}

int ini_set(ini *f, const char *section, const char *key, const char *value, char *err,
            size_t errlen) {
  /* What a file could not hold: a value must read back the same from the
   * config.ini a run writes (comments start at " ;" or " #", or at the
   * value's first character, white space at the ends is trimmed, a line
   * ends at a newline). */
  size_t n = strlen(value);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)value[i];
    int comment = (c == ';' || c == '#') && (i == 0 || value[i - 1] == ' ' || value[i - 1] == '\t');
    if (c < 0x20 && c != '\t') {
      errf(err, errlen, "value for %s.%s holds a control character (byte %zu)", section, key,
           i + 1);
      return -1;
    }
    if (comment) {
      errf(err, errlen, "value for %s.%s holds '%c' %s, which a config file reads as a comment",
           section, key, c, i ? "after a space" : "first");
      return -1;
    }
  }
  if (n && (value[0] == ' ' || value[0] == '\t' || value[n - 1] == ' ' || value[n - 1] == '\t')) {
    errf(err, errlen, "value for %s.%s starts or ends with white space", section, key);
    return -1;
  }
  ini_entry *e = find(f, section, key);
  if (!e) return add(f, section, key, value, 0, err, errlen);
  if (strlen(value) >= sizeof e->value) {
    errf(err, errlen, "value for %s.%s too long", section, key);
    return -1;
  }
  strcpy(e->value, value);
  e->line = 0;
  return 0;
}

const ini_entry *ini_first_unused(const ini *f) {
  for (int i = 0; i < f->n; i++)
    if (!f->e[i].used) return &f->e[i];
  return NULL;
}

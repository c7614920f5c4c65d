/* ini: a small INI reader. "[section]" lines, "key = value" lines, "#" or
 * ";" comments (whole lines, or after a value when preceded by a space).
 * Every entry keeps its line number so callers can name file, line and key
 * in their errors. The caller owns the ini struct; ini_free releases it. */
#ifndef SOWZERO_INI_H
#define SOWZERO_INI_H

#include <stddef.h>

typedef struct {
  char section[64];
  char key[64];
  char value[256];
  int line;
  int used; /* set by ini_get: lets callers report keys nobody read */
} ini_entry;

typedef struct {
  char path[512];
  ini_entry *e;
  int n, cap;
} ini;

/* Reads path; -1 with "PATH:LINE: problem" in err on a malformed line or
 * when the file cannot be read. A key repeated in a section is an error. */
int ini_load(ini *f, const char *path, char *err, size_t errlen);
/* Parses text as if read from a file named `name`. */
int ini_parse(ini *f, const char *name, const char *text, char *err, size_t errlen);
void ini_free(ini *f);
/* The entry for section/key, or NULL; marks it used. */
ini_entry *ini_get(ini *f, const char *section, const char *key);
/* Sets (or adds) section/key = value, as a command-line override would;
 * line 0 marks it as coming from the command line. */
int ini_set(ini *f, const char *section, const char *key, const char *value, char *err,
            size_t errlen);
/* The first entry nobody read, or NULL: for "unknown key" errors. */
const ini_entry *ini_first_unused(const ini *f);

#endif

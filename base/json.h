/* json: the JSON SowZero writes and reads back — strings escaped for
 * writing, and a reader for one line of a JSON-lines file (metrics.jsonl).
 *
 * Writing: json_quote and json_fput_string are the one escaping of the
 * project. They write `"`, `\` as \" and \\, bytes below 0x20 as \u00XX,
 * and every other byte as it is (UTF-8 passes through unchanged). Numbers
 * and structure are written by the callers with printf.
 *
 * Reading: json_parse reads one complete JSON text (RFC 8259: objects,
 * arrays, strings with every escape, numbers, true, false, null; nesting up
 * to JSON_MAX_DEPTH) into a json_doc the caller frees with json_free. The
 * values are numbered in document order, the whole text being value 0; a
 * value's number is what the accessors take. A json_doc is never changed
 * after parsing, so threads may read one together. */
#ifndef SOWZERO_JSON_H
#define SOWZERO_JSON_H

#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

/* ---- Writing ---------------------------------------------------------------- */

/* Writes s quoted and escaped into out like snprintf: at most cap bytes with
 * the terminating NUL, and returns the length the whole text needs, so a
 * return >= cap means it was cut. */
size_t json_quote(char *out, size_t cap, const char *s);
/* The same text written to f. */
void json_fput_string(FILE *f, const char *s);

/* ---- Reading ---------------------------------------------------------------- */

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_doc json_doc;

/* Parses text (one line of JSON lines: surrounding white space, a final
 * newline included, is allowed; anything else after the value is not).
 * Returns NULL with a message giving the column of the fault. */
json_doc *json_parse(const char *text, char *err, size_t errlen);
void json_free(json_doc *d);

/* The value numbered v: its type; its number (JSON_NUMBER, JSON_BOOL as 0
 * or 1); its string (JSON_STRING, unescaped, NUL-terminated: a \u0000 in
 * the text ends it early); its key when it is a member of an object (else
 * NULL). Strings belong to the doc. */
json_type json_type_of(const json_doc *d, int v);
double json_number(const json_doc *d, int v);
const char *json_string(const json_doc *d, int v);
const char *json_key(const json_doc *d, int v);

/* Children of an array or object in order: the first (or -1 if it has
 * none), then the next after child c (or -1 after the last). */
int json_first(const json_doc *d, int v);
int json_next(const json_doc *d, int c);
/* The member `key` of object obj (the last one if the key repeats), or -1
 * if obj is not an object or has no such member. */
int json_get(const json_doc *d, int obj, const char *key);

/* Member `key` of obj as a number: 0 and *out set, or -1 if it is absent
 * or not a number. As a string: the string, or NULL. */
int json_get_number(const json_doc *d, int obj, const char *key, double *out);
const char *json_get_string(const json_doc *d, int obj, const char *key);

#endif

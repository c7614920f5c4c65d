/* json: the JSON SowZero writes and reads back — strings escaped for
 * writing, and a reader for one line of a JSON-lines file (metrics.jsonl).
 *
 * Writing: json_quote and json_fput_string are the one escaping of the
 * project. They write `"`, `\` as \" and \\, bytes below 0x20 as \u00XX,
 * and every other byte as it is (UTF-8 passes through unchanged). A
 * json_writer builds whole objects, arrays and member lists on top of them,
 * into a buffer or a FILE, in the project's one layout (`"key": value`,
 * items separated by ", "), so no caller formats JSON by hand.
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

/* A writer of one JSON text, or of a member list (`"a": 1, "b": 2`) when
 * keyed values are put at the top level without an enclosing object, as
 * the bench figures' extra members and the metrics fragments are. Every
 * put takes the member's key, or NULL for an array element or a top-level
 * value. Doubles that are not finite are written as null. */
typedef struct {
  char *out;  /* the buffer, or NULL when writing to f */
  size_t cap; /* the buffer's size */
  size_t len; /* bytes the whole text needs; >= cap means the buffer cut it */
  FILE *f;    /* the stream, or NULL */
  int depth;  /* open objects and arrays */
  int failed; /* nesting beyond JSON_MAX_DEPTH, or a write to f failed */
  unsigned char items[JSON_MAX_DEPTH + 1]; /* whether the level has an item yet */
  const char *brk;                         /* json_break's white space, until used */
  const char *lines[JSON_MAX_DEPTH + 1];   /* json_lines of each open level */
  const char *close[JSON_MAX_DEPTH + 1];
} json_writer;

/* A writer into out (cap bytes with the NUL, always terminated when
 * cap > 0), or into the stream f. */
void json_writer_init(json_writer *w, char *out, size_t cap);
void json_writer_init_file(json_writer *w, FILE *f);
/* 0 when the text is whole (fit the buffer, every write succeeded and
 * every object and array was closed), else -1. */
int json_writer_done(const json_writer *w);

/* Lays the text over lines: ws (white space, kept by the caller until
 * used) stands after the next item's comma instead of the one space, or
 * before the next item or closing bracket of a level that has none yet,
 * e.g. json_break(w, "\n  ") before each member of an indented object. */
void json_break(json_writer *w, const char *ws);
/* The same for every item of the level now open (ws; NULL: none) and for
 * its closing bracket (close; NULL: none), until it closes: one member or
 * element a line. A json_break still goes first. */
void json_lines(json_writer *w, const char *ws, const char *close);

void json_begin_object(json_writer *w, const char *key);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w, const char *key);
void json_end_array(json_writer *w);
void json_put_string(json_writer *w, const char *key, const char *s);
void json_put_int(json_writer *w, const char *key, long long v);
void json_put_uint(json_writer *w, const char *key, unsigned long long v);
/* v with `decimals` digits after the point (printf's %.*f). */
void json_put_fixed(json_writer *w, const char *key, double v, int decimals);
/* v with `digits` significant digits (printf's %.*g). */
void json_put_real(json_writer *w, const char *key, double v, int digits);
void json_put_bool(json_writer *w, const char *key, int b);
void json_put_null(json_writer *w, const char *key);
/* json, already JSON: a value when key is given, else a value or a whole
 * member list (`"a": 1, "b": 2`) spliced in as one item. */
void json_put_raw(json_writer *w, const char *key, const char *json);

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

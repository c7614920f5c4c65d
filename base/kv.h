/* kv: typed key=value settings described by one table.
 *
 * A table lists the keys of a settings struct: name, type, the offset of
 * the field that holds the value, the accepted range (numbers) or names
 * (enumerations), the default as text and a one-line help. Parsing, range
 * checks, defaults, the "key = value" text that reads back, and help texts
 * all come from the table, so a key is described in exactly one place.
 *
 * Parsing takes whole strings only: "12abc", " 3", "" and "0x10" are not
 * numbers, integers have no fraction or exponent, reals are decimal
 * ("1.5", "-2", "1e-3"; no "inf", "nan" or hex) and must be finite and in
 * range ("1e999" is out of range), and an integer that overflows is out of
 * range. Field types by key type:
 *   KV_INT int     KV_U64 uint64_t   KV_FLOAT float   KV_DOUBLE double
 *   KV_BOOL int (0 or 1)   KV_ENUM int (index into names)   KV_STR char[size]
 *
 * Error messages name the value and what would be accepted; functions that
 * are given the key by name also name the key ("bad value '7.5' for sims
 * (an integer 1..100000000)"). Tables are constant and shared freely;
 * nothing here allocates. */
#ifndef SOWZERO_KV_H
#define SOWZERO_KV_H

#include <stddef.h>
#include <stdint.h>

typedef enum { KV_INT, KV_U64, KV_FLOAT, KV_DOUBLE, KV_BOOL, KV_ENUM, KV_STR } kv_type;

typedef struct {
  const char *name;
  kv_type type;
  size_t off;               /* offset of the field in the settings struct */
  double lo, hi;            /* KV_INT, KV_FLOAT, KV_DOUBLE: accepted range, inclusive */
  const char *const *names; /* KV_ENUM: the values' names, NULL-terminated; KV_INT:
                               kv_auto_word when "auto" (KV_AUTO) is accepted */
  size_t size;              /* KV_STR: the buffer size, terminator included */
  const char *def;          /* the default, as text that parses */
  const char *help;
} kv_key;

typedef struct {
  const kv_key *keys;
  int n;
} kv_table;

/* A table from an array of keys. */
#define KV_TABLE(keys) \
  { keys, (int)(sizeof keys / sizeof keys[0]) }

/* Table rows: NAME is the key's text, T the settings struct, F its field.
 * The offset expression fails to compile when F's type does not match. */
#define KV_FIELD_(T, F, ctype) (offsetof(T, F) + 0 * sizeof(&((T *)0)->F - (ctype *)0))
#define KV_I(name, T, F, lo, hi, def, help) \
  { name, KV_INT, KV_FIELD_(T, F, int), lo, hi, NULL, 0, def, help }
/* An integer lo..hi (lo >= 1) or the word "auto", stored as KV_AUTO: the
 * caller resolves it (threads sized to the machine). */
#define KV_AUTO 0
extern const char *const kv_auto_word[];
#define KV_IA(name, T, F, lo, hi, def, help) \
  { name, KV_INT, KV_FIELD_(T, F, int), lo, hi, kv_auto_word, 0, def, help }
#define KV_U(name, T, F, def, help) \
  { name, KV_U64, KV_FIELD_(T, F, uint64_t), 0, 0, NULL, 0, def, help }
#define KV_F(name, T, F, lo, hi, def, help) \
  { name, KV_FLOAT, KV_FIELD_(T, F, float), lo, hi, NULL, 0, def, help }
#define KV_D(name, T, F, lo, hi, def, help) \
  { name, KV_DOUBLE, KV_FIELD_(T, F, double), lo, hi, NULL, 0, def, help }
#define KV_B(name, T, F, def, help) \
  { name, KV_BOOL, KV_FIELD_(T, F, int), 0, 1, NULL, 0, def, help }
#define KV_E(name, T, F, names, def, help) \
  { name, KV_ENUM, KV_FIELD_(T, F, int), 0, 0, names, 0, def, help }
#define KV_S(name, T, F, def, help)                                                 \
  {                                                                                 \
    name, KV_STR, offsetof(T, F) + 0 * sizeof((char *)0 - ((T *)0)->F), 0, 0, NULL, \
        sizeof(((T *)0)->F), def, help                                              \
  }

/* The key called name, or NULL. */
const kv_key *kv_find(const kv_table *t, const char *name);

/* Parses text into k's field of base (the struct the table describes).
 * -1 with "bad value 'TEXT' (WHAT IS ACCEPTED)": the caller names the key,
 * e.g. with a file and line in front. The field is unchanged on error. */
int kv_parse(const kv_key *k, void *base, const char *text, char *err, size_t errlen);
/* Sets key to value in base; -1 with a message naming the key, the value
 * and what is accepted, or the unknown key and the known ones. */
int kv_set(const kv_table *t, void *base, const char *key, const char *value, char *err,
           size_t errlen);
/* Sets every key of base to its default; -1 naming a default that does not
 * parse (a broken table). */
int kv_defaults(const kv_table *t, void *base, char *err, size_t errlen);
/* Checks every field of base against the table (values set by code rather
 * than parsed); -1 naming the first key out of range. */
int kv_check(const kv_table *t, const void *base, char *err, size_t errlen);

/* What k accepts, e.g. "an integer 1..64", "one of: off, threshold, sprt". */
void kv_accepts(const kv_key *k, char *buf, size_t len);
/* k's value in base as text that kv_parse reads back to the same value
 * (floats with 9 significant digits); -1 if len is too small. */
int kv_format(const kv_key *k, const void *base, char *buf, size_t len);
/* The key names, separated by sep; -1 if len is too small. */
int kv_names(const kv_table *t, const char *sep, char *buf, size_t len);
/* "key = value" lines (INI) for every key, in table order; -1 if len is too
 * small. kv_set reads each line's pair back. */
int kv_write(const kv_table *t, const void *base, char *buf, size_t len);
/* Help lines "key  default VALUE  help [lo..hi]", one per key (the range
 * for numbers: integers "[1..64]", "[1..64 or auto]"). The defaults are
 * taken from the struct `defaults` when given (short forms: "0.1", not
 * "0.100000001"), else from the table; -1 if len is too small. */
int kv_describe(const kv_table *t, const void *defaults, char *buf, size_t len);

/* ---- Lists of settings ---------------------------------------------------------
 * A list of "key=value" tokens (an agent spec, a command line) set into one
 * or more structs: each key is looked up in the targets in order. A token
 * without '=' or with an empty key, an unknown key, a key given twice and
 * a bad value are errors naming the token or key. `seen` records the keys
 * given (bit i: the table's key i), for settings whose meaning depends on
 * what else was given. Tables in targets have at most KV_MAX_KEYS keys. */
#define KV_MAX_KEYS 64

typedef struct {
  const kv_table *t;
  void *base;
  uint64_t seen; /* set by kv_set_list */
} kv_target;

int kv_set_list(kv_target *tg, int n, int argc, char *const *argv, char *err, size_t errlen);
/* 1 if the list set key `name` of the target. */
int kv_given(const kv_target *tg, const char *name);

#endif

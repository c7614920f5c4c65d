/* The one command-line parser of `sowzero`: options from a kv table, lists
 * of repeatable options, counted positional arguments (cli.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "game/game.h"

/* Writes s to f escaped (text_escape): one message, one line. */
static void put_line(FILE *f, const char *s) {
  char safe[4 * 4096 + 1];
  fputs(text_escape(safe, sizeof safe, s, strlen(s)), f);
  fputc('\n', f);
}

static void vline(const char *prefix, const char *fmt, va_list ap) {
  char msg[4096];
  int n = snprintf(msg, sizeof msg, "%s", prefix);
  if (n < 0) n = 0;
  if ((size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  if (strlen(msg) == sizeof msg - 1) strcpy(msg + sizeof msg - 4, "...");
  put_line(stderr, msg);
  fflush(stderr);
}

void cli_error_line(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline("", fmt, ap);
  va_end(ap);
}

int cli_fail(const cli_cmd *c, int status, const char *fmt, ...) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "sowzero %s: ", c->name);
  va_list ap;
  va_start(ap, fmt);
  vline(prefix, fmt, ap);
  va_end(ap);
  return status;
}

int cli_path(char *buf, size_t len, const char *dir, const char *name) {
  int w = snprintf(buf, len, "%s/%s", dir, name);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* A value as it appears in a message: quoted, long ones shortened (the
 * length says which). */
static const char *shown(const char *v, char *buf, size_t len) {
  size_t n = strlen(v);
  if (n <= 60)
    snprintf(buf, len, "'%s'", v);
  else
    snprintf(buf, len, "'%.40s...' (%zu characters)", v, n);
  return buf;
}

/* The value's name in the usage: the help's leading capitals, else by type. */
static void meta_of(const kv_key *k, char *buf, size_t len, const char **help) {
  const char *h = k->help ? k->help : "";
  size_t n = strspn(h, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_=|.,0123456789[]-");
  *help = h;
  if (n > 0 && h[n] == ' ' && h[n + 1] == ' ') {
    snprintf(buf, len, "%.*s", (int)n, h);
    *help = h + n + 2;
    return;
  }
  size_t at = 0;
  switch (k->type) {
    case KV_INT:
    case KV_U64:
      snprintf(buf, len, "N");
      break;
    case KV_FLOAT:
    case KV_DOUBLE:
      snprintf(buf, len, "X");
      break;
    case KV_BOOL:
      buf[0] = 0;
      break;
    case KV_ENUM:
      buf[0] = 0;
      for (int i = 0; k->names[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "|" : "", k->names[i]);
      break;
    case KV_STR:
      snprintf(buf, len, "TEXT");
      break;
  }
}

/* "  LEFT  HELP", the help wrapped at 100 columns under its own column. */
static void usage_line(FILE *f, const char *left, const char *help, const char *extra) {
  char text[2048];
  snprintf(text, sizeof text, "%s%s", help, extra);
  int col = fprintf(f, "  %-20s", left);
  if (col > 23) {
    fputc('\n', f);
    col = 0;
  }
  const char *t = text;
  while (*t) {
    while (*t == ' ') t++;
    size_t w = strcspn(t, " ");
    if (col > 23 && col + 1 + (int)w > 100) {
      fputc('\n', f);
      col = 0;
    }
    if (col < 23)
      col += fprintf(f, "%*s", 23 - col, "");
    else
      col += fprintf(f, " ");
    col += fprintf(f, "%.*s", (int)w, t);
    t += w;
  }
  fputc('\n', f);
}

void cli_usage(const cli_cmd *c, FILE *f) {
  fprintf(f, "usage: sowzero %s\n", c->synopsis);
  if (c->about) fputs(c->about, f);
  if ((c->opts && c->opts->n) || c->n_lists) fprintf(f, "options:\n");
  for (int i = 0; c->opts && i < c->opts->n; i++) {
    const kv_key *k = &c->opts->keys[i];
    char meta[128], left[192], what[512], def[512], extra[1100] = "";
    const char *help;
    meta_of(k, meta, sizeof meta, &help);
    snprintf(left, sizeof left, "--%s%s%s", k->name, meta[0] ? " " : "", meta);
    def[0] = 0;
    if (k->type != KV_BOOL && kv_format(k, c->base, def, sizeof def) != 0) def[0] = 0;
    if (strstr(help, "(default")) def[0] = 0; /* the help says it better (e.g. "the config's") */
    if (k->type == KV_INT || k->type == KV_FLOAT || k->type == KV_DOUBLE) {
      kv_accepts(k, what, sizeof what);
      snprintf(extra, sizeof extra, " (%s%s%s)", what, def[0] ? "; default " : "", def);
    } else if (k->type != KV_BOOL && def[0]) {
      snprintf(extra, sizeof extra, " (default %s)", def);
    }
    usage_line(f, left, help, extra);
  }
  for (int i = 0; i < c->n_lists; i++) {
    char left[192];
    snprintf(left, sizeof left, "--%s %s", c->lists[i].name, c->lists[i].meta);
    usage_line(f, left, c->lists[i].help, " (may be repeated)");
  }
  if (c->more) c->more(f);
}

int cli_given(const cli_cmd *c, const char *name) {
  const kv_key *k = c->opts ? kv_find(c->opts, name) : NULL;
  return k && (c->given >> (k - c->opts->keys) & 1);
}

/* "--a, --b, ..." of every option, for messages. */
static void option_names(const cli_cmd *c, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; c->opts && i < c->opts->n && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s--%s", at ? ", " : "", c->opts->keys[i].name);
  for (int i = 0; i < c->n_lists && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s--%s", at ? ", " : "", c->lists[i].name);
  if (!buf[0]) snprintf(buf, len, "none but --help");
}

static int is_help(const char *a) { return !strcmp(a, "-h") || !strcmp(a, "--help"); }

/* One value for a list; 0 or the status of a refusal. */
static int add_to_list(cli_cmd *c, cli_list *l, char *v) {
  char s[160], t[160];
  if (l->n == l->max) return cli_fail(c, 2, "--%s given more than %d times", l->name, l->max);
  if (l->keyed) {
    const char *eq = strchr(v, '=');
    if (!eq || eq == v)
      return cli_fail(c, 2, "bad value %s for --%s (expected %s)", shown(v, s, sizeof s), l->name,
                      l->meta);
    size_t kl = (size_t)(eq - v);
    for (int i = 0; i < l->n; i++)
      if (!strncmp(l->values[i], v, kl) && l->values[i][kl] == '=')
        return cli_fail(c, 2, "--%s %.*s given twice (%s, then %s)", l->name, (int)kl, v,
                        shown(l->values[i], s, sizeof s), shown(v, t, sizeof t));
  }
  l->values[l->n++] = v;
  return 0;
}

int cli_parse(cli_cmd *c, int argc, char **argv, int *status) {
  const char *first[KV_MAX_KEYS] = {0};
  char s[160], t[160], names[1024];
  c->n_pos = 0;
  c->given = 0;
  for (int i = 0; i < c->n_lists; i++) c->lists[i].n = 0;
  *status = 2;
  for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
    if (is_help(argv[i])) {
      cli_usage(c, stdout);
      *status = 0;
      return -1;
    }
  if (c->opts && c->opts->n > KV_MAX_KEYS) {
    cli_fail(c, 1, "too many options in one table");
    *status = 1;
    return -1;
  }
  int options_done = 0;
  for (int i = 0; i < argc; i++) {
    char *a = argv[i];
    if (!options_done && !strcmp(a, "--")) {
      options_done = 1;
      continue;
    }
    if (options_done || a[0] != '-' || a[1] == 0) {
      if (!a[0]) {
        cli_fail(c, 2, "empty argument where %s was expected (usage: sowzero %s)", c->pos_name,
                 c->synopsis);
        return -1;
      }
      if (c->n_pos == c->max_pos) {
        if (c->max_pos == 0)
          cli_fail(c, 2, "unexpected argument %s (usage: sowzero %s)", shown(a, s, sizeof s),
                   c->synopsis);
        else
          cli_fail(c, 2, "unexpected argument %s: at most %d %s%s (usage: sowzero %s)",
                   shown(a, s, sizeof s), c->max_pos, c->pos_name, c->max_pos > 1 ? "s" : "",
                   c->synopsis);
        return -1;
      }
      c->pos[c->n_pos++] = a;
      continue;
    }
    /* An option: --NAME, --NAME=VALUE, --NAME VALUE. */
    const char *name = a + 2, *eq = a[1] == '-' ? strchr(name, '=') : NULL;
    size_t nl = eq ? (size_t)(eq - name) : strlen(name);
    const kv_key *k = NULL;
    cli_list *l = NULL;
    if (a[1] == '-' && nl > 0) {
      for (int j = 0; c->opts && j < c->opts->n && !k; j++)
        if (strlen(c->opts->keys[j].name) == nl && !strncmp(c->opts->keys[j].name, name, nl))
          k = &c->opts->keys[j];
      for (int j = 0; j < c->n_lists && !k && !l; j++)
        if (strlen(c->lists[j].name) == nl && !strncmp(c->lists[j].name, name, nl))
          l = &c->lists[j];
    }
    if (!k && !l) {
      option_names(c, names, sizeof names);
      cli_fail(c, 2, "unknown option '%.*s' (options: %s)", (int)(eq ? eq - a : (long)strlen(a)), a,
               names);
      return -1;
    }
    const char *oname = k ? k->name : l->name;
    char *v = NULL;
    if (k && k->type == KV_BOOL) {
      if (eq) {
        cli_fail(c, 2, "--%s is a flag and takes no value (given '%s')", oname, eq + 1);
        return -1;
      }
    } else if (eq) {
      v = (char *)eq + 1;
    } else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {
      v = argv[++i];
    } else {
      char what[512] = "";
      if (k) {
        const char *help;
        meta_of(k, what, sizeof what, &help);
        if (k->type != KV_STR) kv_accepts(k, what, sizeof what);
      } else {
        snprintf(what, sizeof what, "%s", l->meta);
      }
      if (i + 1 < argc)
        cli_fail(c, 2, "--%s needs a value (%s), not the option '%s'", oname, what, argv[i + 1]);
      else
        cli_fail(c, 2, "--%s needs a value (%s)", oname, what);
      return -1;
    }
    if (v && !v[0]) {
      cli_fail(c, 2, "--%s needs a value, not an empty string", oname);
      return -1;
    }
    if (l) {
      if (add_to_list(c, l, v)) return -1;
      continue;
    }
    int idx = (int)(k - c->opts->keys);
    if (c->given >> idx & 1) {
      if (k->type == KV_BOOL)
        cli_fail(c, 2, "--%s given twice", oname);
      else
        cli_fail(c, 2, "--%s given twice (%s, then %s)", oname, shown(first[idx], s, sizeof s),
                 shown(v, t, sizeof t));
      return -1;
    }
    char err[1024];
    if (k->type == KV_STR && strlen(v) >= k->size) {
      cli_fail(c, 2, "value %s of --%s is too long (at most %zu characters)", shown(v, s, sizeof s),
               oname, k->size - 1);
      return -1;
    }
    if (kv_parse(k, c->base, v ? v : "1", err, sizeof err) != 0) {
      char what[512];
      kv_accepts(k, what, sizeof what);
      cli_fail(c, 2, "bad value %s for --%s (%s)", shown(v, s, sizeof s), oname, what);
      return -1;
    }
    c->given |= 1ULL << idx;
    first[idx] = v;
  }
  if (c->n_pos < c->min_pos) {
    if (c->min_pos == 1)
      cli_fail(c, 2, "missing %s (usage: sowzero %s)", c->pos_name, c->synopsis);
    else
      cli_fail(c, 2, "needs at least %d %ss, got %d (usage: sowzero %s)", c->min_pos, c->pos_name,
               c->n_pos, c->synopsis);
    return -1;
  }
  *status = 0;
  return 0;
}

int cli_meta_game(const char *path, const char *game_name, const char *rules, game *g, char *err,
                  size_t errlen) {
  char buf[1024], *settings[GAME_MAX_OPTIONS + 1], e[512];
  snprintf(buf, sizeof buf, "%s", rules);
  char *bar = strstr(buf, " |"); /* a variant set: its first variant */
  if (bar) *bar = 0;
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (n == GAME_MAX_OPTIONS + 1) {
      n = -1;
      break;
    }
    settings[n++] = tok;
  }
  if (n < 0 || game_configure(g, game_name, n, settings, e, sizeof e) != 0) {
    errf(err, errlen,
         "%s: made for game '%s' with rule options '%s', which this build cannot set up: %s", path,
         game_name, rules, n < 0 ? "too many options" : e);
    return -1;
  }
  return 0;
}

/* Game records: one block of ten lines a game. */
#include "arena/record.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int record_write_header(FILE *f, const char *what) {
  fprintf(f, "# sowzero game records, format 1 (docs/FORMATS.md)%s%s\n\n", what ? ": " : "",
          what ? what : "");
  return ferror(f) ? -1 : 0;
}

static const char *result_text(const game_pos *p) {
  return p->winner == GAME_DRAW ? "1/2-1/2" : p->winner == GAME_SOUTH ? "1-0" : "0-1";
}

static void score_text(const game_pos *p, char *buf, size_t len) {
  if (p->half)
    snprintf(buf, len, "%d.5 %d.5", p->final[0], p->final[1]);
  else
    snprintf(buf, len, "%d %d", p->final[0], p->final[1]);
}

int record_write(FILE *f, const game *g, const arena_game *rec, const char *south_spec,
                 const char *north_spec) {
  char opts[512], score[32];
  if (game_options_string(g, opts, sizeof opts)) return -1;
  fprintf(f, "game %d\nrules %s %s\nsouth %s\nnorth %s\nopening", rec->number, g->rules->name, opts,
          south_spec, north_spec);
  if (rec->open.n == 0) fputs(" -", f);
  for (int i = 0; i < rec->open.n; i++) fprintf(f, " %d", rec->open.moves[i]);
  fputs("\nmoves", f);
  if (rec->n_moves == 0) fputs(" -", f);
  for (int i = 0; i < rec->n_moves; i++) fprintf(f, " %d", rec->moves[i]);
  score_text(&rec->final, score, sizeof score);
  if (rec->lost_on_time) /* unfinished: the stores, and the side out of time loses */
    fprintf(f, "\nresult %s\nscore %d %d\nend time\nplies %d\n\n",
            rec->final.mover == GAME_SOUTH ? "0-1" : "1-0", rec->final.store[0],
            rec->final.store[1], rec->final.ply);
  else
    fprintf(f, "\nresult %s\nscore %s\nend %s\nplies %d\n\n", result_text(&rec->final), score,
            game_end_name(rec->final.end_reason), rec->final.ply);
  return ferror(f) ? -1 : 0;
}

/* Reads one line without its newline; 0 at EOF. Long lines are an error. */
static int read_line(FILE *f, char *buf, size_t len, int *line, int *too_long) {
  *too_long = 0;
  if (!fgets(buf, (int)len, f)) return 0;
  ++*line;
  size_t n = strlen(buf);
  if (n && buf[n - 1] == '\n')
    buf[--n] = 0;
  else if (!feof(f))
    *too_long = 1;
  if (n && buf[n - 1] == '\r') buf[--n] = 0;
  return 1;
}

static int parse_moves(const char *s, uint8_t *out, int cap, int *n) {
  *n = 0;
  while (*s == ' ') s++;
  if (!strcmp(s, "-")) return 0;
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v >= GAME_MAX_ACTIONS || *n >= cap) return -1;
    out[(*n)++] = (uint8_t)v;
    s = end;
    while (*s == ' ') s++;
  }
  return 0;
}

/* A whole decimal number in 0..max: "12abc", " 3", "-1" and "" are not. */
static int parse_count(const char *s, long max, int *out) {
  if (*s < '0' || *s > '9') return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end || errno || v > max) return -1;
  *out = (int)v;
  return 0;
}

/* A text field copied whole: one that does not fit is refused, not cut. */
#define COPY_FIELD(dst, v) (snprintf((dst), sizeof(dst), "%s", (v)) >= (int)sizeof(dst))

int record_read(FILE *f, record *r, int *line, char *err, size_t errlen) {
  static const char *const keys[] = {"game",  "rules",  "south", "north", "opening",
                                     "moves", "result", "score", "end",   "plies"};
  char *buf = malloc(16384);
  if (!buf) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  memset(r, 0, sizeof *r);
  int k = 0, rc = 0, too_long;
  while (k < 10) {
    if (!read_line(f, buf, 16384, line, &too_long)) {
      if (k == 0) goto out; /* clean end */
      errf(err, errlen, "line %d: record ends early (expected '%s')", *line, keys[k]);
      rc = -1;
      goto out;
    }
    if (too_long) {
      errf(err, errlen, "line %d: line too long", *line);
      rc = -1;
      goto out;
    }
    if ((buf[0] == 0 || buf[0] == '#') && k == 0) continue;
    size_t kl = strlen(keys[k]);
    if (strncmp(buf, keys[k], kl) != 0 || (buf[kl] != ' ' && buf[kl] != 0)) {
      errf(err, errlen, "line %d: expected '%s', got '%.40s'", *line, keys[k], buf);
      rc = -1;
      goto out;
    }
    const char *v = buf[kl] ? buf + kl + 1 : "";
    int bad = 0;
    switch (k) {
      case 0:
        bad = parse_count(v, INT_MAX, &r->number);
        break;
      case 1:
        bad = COPY_FIELD(r->rules, v);
        break;
      case 2:
        bad = COPY_FIELD(r->south, v);
        break;
      case 3:
        bad = COPY_FIELD(r->north, v);
        break;
      case 4:
        bad = parse_moves(v, r->open.moves, OPENING_MAX_PLIES, &r->open.n);
        break;
      case 5:
        bad = parse_moves(v, r->moves, GAME_MAX_PLIES_CAP, &r->n_moves);
        break;
      case 6:
        bad = strcmp(v, "1-0") && strcmp(v, "0-1") && strcmp(v, "1/2-1/2");
        snprintf(r->result, sizeof r->result, "%s", v);
        break;
      case 7:
        bad = COPY_FIELD(r->score, v);
        break;
      case 8:
        bad = COPY_FIELD(r->end, v);
        break;
      case 9:
        bad = parse_count(v, GAME_MAX_PLIES_CAP, &r->plies);
        break;
    }
    if (bad) {
      errf(err, errlen, "line %d: bad value for '%s': '%.60s'", *line, keys[k], v);
      rc = -1;
      goto out;
    }
    k++;
  }
  rc = 1;
out:
  free(buf);
  return rc;
}

int record_replay(const record *r, game *g, game_pos *end, char *err, size_t errlen) {
  char buf[512], *argv[GAME_MAX_OPTIONS + 2], *save = NULL;
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", r->rules);
  for (char *t = strtok_r(buf, " ", &save); t && argc < GAME_MAX_OPTIONS + 2;
       t = strtok_r(NULL, " ", &save))
    argv[argc++] = t;
  if (argc == 0) {
    errf(err, errlen, "game %d: empty rules", r->number);
    return -1;
  }
  if (game_configure(g, argv[0], argc - 1, argv + 1, err, errlen)) return -1;
  game_hist *h = malloc(sizeof *h);
  if (!h) {
    errf(err, errlen, "out of memory");
    return -1;
  }
  game_pos p;
  game_start(g, &p);
  game_hist_reset(h, &p);
  int rc = 0, total = r->open.n + r->n_moves;
  for (int i = 0; i < total; i++) {
    int a = i < r->open.n ? r->open.moves[i] : r->moves[i - r->open.n];
    if (p.status != GAME_ONGOING || a >= g->n_actions || !(game_legal(g, &p) >> a & 1)) {
      errf(err, errlen, "game %d: move %d at ply %d is not legal", r->number, a, i + 1);
      rc = -1;
      goto out;
    }
    game_step(g, &p, h, a);
  }
  char score[32];
  score_text(&p, score, sizeof score);
  if (strcmp(r->end, "time") == 0) {
    /* Lost on time: the side to move when the game stopped. */
    snprintf(score, sizeof score, "%d %d", p.store[0], p.store[1]);
    if (p.status != GAME_ONGOING || strcmp(r->result, p.mover == GAME_SOUTH ? "0-1" : "1-0") ||
        strcmp(score, r->score) || p.ply != r->plies) {
      errf(err, errlen,
           "game %d: lost on time, but the moves give %s, %s to move, stores %s after %d plies; "
           "the record says %s %s (%d plies)",
           r->number, p.status == GAME_ONGOING ? "an ongoing game" : "a finished game",
           p.mover == GAME_SOUTH ? "South" : "North", score, p.ply, r->result, r->score, r->plies);
      rc = -1;
    }
  } else if (p.status != GAME_OVER || strcmp(result_text(&p), r->result) ||
             strcmp(score, r->score) || strcmp(game_end_name(p.end_reason), r->end) ||
             p.ply != r->plies) {
    errf(err, errlen,
         "game %d: the moves give %s %s (%s, %d plies), the record says %s %s "
         "(%s, %d plies)",
         r->number, p.status == GAME_OVER ? result_text(&p) : "unfinished", score,
         game_end_name(p.end_reason), p.ply, r->result, r->score, r->end, r->plies);
    rc = -1;
  }
  *end = p;
out:
  free(h);
  return rc;
}

/* Board text shared by the rules modules: setboard's tokens, board_tokens,
 * and the pieces of the human board drawings. None of it is on a hot path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "game/game_internal.h"

int board_parse_int(const char *s, int min, int max, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == 0 || *end != 0 || v < min || v > max) return -1;
  *out = (int)v;
  return 0;
}

int board_read_mover(game_pos *q, const char *s, char *err, size_t errlen) {
  int v;
  if (board_parse_int(s, 0, 1, &v) != 0) {
    errf(err, errlen, "bad mover '%s' (0 or 1)", s);
    return -1;
  }
  q->mover = (uint8_t)v;
  return 0;
}

int board_read(game_pos *q, int n, int total, char *const *argv, char *err, size_t errlen) {
  memset(q, 0, sizeof *q);
  if (board_read_mover(q, argv[0], err, errlen) != 0) return -1;
  int v, sum = 0;
  for (int i = 0; i < n + 2; i++) {
    if (board_parse_int(argv[i + 1], 0, total, &v) != 0) {
      errf(err, errlen, "bad seed count '%s' (0..%d)", argv[i + 1], total);
      return -1;
    }
    if (i < n)
      q->pits[i] = (uint8_t)v;
    else
      q->store[i - n] = (uint16_t)v;
    sum += v;
  }
  if (sum != total) {
    errf(err, errlen, "pits and stores hold %d seeds, this game has %d", sum, total);
    return -1;
  }
  return 0;
}

int board_read_all(const game *g, game_pos *q, int argc, char *const *argv, char *err,
                   size_t errlen) {
  int n = g->n_pits;
  if (argc != n + 3) {
    errf(err, errlen, "setboard takes MOVER, %d pits and 2 stores (%d numbers), got %d", n, n + 3,
         argc);
    return -1;
  }
  return board_read(q, n, g->total_seeds, argv, err, errlen);
}

int board_setboard(const game *g, game_pos *p, int argc, char *const *argv,
                   uint64_t (*hash)(const game_pos *), void (*settle)(const game *, game_pos *),
                   char *err, size_t errlen) {
  game_pos q;
  if (board_read_all(g, &q, argc, argv, err, errlen) != 0) return -1;
  q.hash = hash(&q);
  settle(g, &q);
  *p = q;
  return 0;
}

int board_write(const game_pos *p, int n, char *buf, size_t len) {
  size_t k = 0;
  for (int i = 0; i < n + 2; i++) {
    int v = i < n ? p->pits[i] : p->store[i - n];
    int w = snprintf(buf + k, len - k, "%s%d", i ? " " : "", v);
    if (w < 0 || (size_t)w >= len - k) return -1;
    k += (size_t)w;
  }
  return (int)k;
}

int board_tokens(const game *g, const game_pos *p, char *buf, size_t len) {
  return board_write(p, g->n_pits, buf, len) < 0 ? -1 : 0;
}

/* ---- Drawings ------------------------------------------------------------------ */

void board_textf(board_text *t, const char *fmt, ...) {
  if (t->k >= t->len) return;
  va_list ap;
  va_start(ap, fmt);
  t->k += (size_t)vsnprintf(t->buf + t->k, t->len - t->k, fmt, ap);
  va_end(ap);
}

/* The end of a row: its score, or only the arrow when the stores are drawn
 * between the rows. */
static void row_end(board_text *t, const game_pos *p, int side, int style) {
  const char *arrow = p->mover == side ? "  <- to move" : "";
  if (style & BOARD_STORES)
    board_textf(t, " ]%s\n", arrow);
  else
    board_textf(t, " ]  captured %d%s\n", p->store[side], arrow);
}

void board_render_rows(board_text *t, const game_pos *p, int h, int style) {
  const char *gap = style & BOARD_WIDE ? "  " : " ";
  int indent = style & BOARD_WIDE ? 8 : 6;
  board_textf(t, "%*s", indent, "");
  for (int i = 2 * h - 1; i >= h; i--) board_textf(t, "%4d", i);
  board_textf(t, "\nNorth%s[", gap);
  for (int i = 2 * h - 1; i >= h; i--) board_textf(t, "%4d", p->pits[i]);
  row_end(t, p, 1, style);
  if (style & BOARD_STORES)
    board_textf(t, "store %3d%*sstore %d\n", p->store[1], 4 * h + 2, "", p->store[0]);
  board_textf(t, "South%s[", gap);
  for (int i = 0; i < h; i++) board_textf(t, "%4d", p->pits[i]);
  row_end(t, p, 0, style);
  board_textf(t, "%*s", indent, "");
  for (int i = 0; i < h; i++) board_textf(t, "%4d", i);
  board_textf(t, "\n");
}

void board_render_result(board_text *t, const game_pos *p, const char *pre, const char *post) {
  if (p->status != GAME_OVER) return;
  const char *half = p->half ? ".5" : "";
  board_textf(t, "Game over (%s): %s%d%s - %d%s%s, ", game_end_name(p->end_reason), pre,
              p->final[0], half, p->final[1], half, post);
  if (p->winner == GAME_DRAW)
    board_textf(t, "draw\n");
  else
    board_textf(t, "%s wins\n", p->winner == 0 ? "South" : "North");
}

/* A game session: the record behind undo, kept as the position after each
 * move beside one repetition history. */
#include "game/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

struct session {
  const game *g;
  int n;                               /* moves played */
  uint8_t moves[SESSION_MAX_MOVES];    /* those moves */
  game_pos pos[SESSION_MAX_MOVES + 1]; /* pos[k]: after the first k moves */
  game_hist hist;                      /* repetition history of pos[n] */
};

session *session_create(const game *g, const game_pos *start) {
  session *s = malloc(sizeof *s);
  if (s) session_reset(s, g, start);
  return s;
}

void session_free(session *s) { free(s); }

void session_reset(session *s, const game *g, const game_pos *start) {
  s->g = g;
  s->n = 0;
  if (start)
    s->pos[0] = *start;
  else
    game_start(g, &s->pos[0]);
  game_hist_reset(&s->hist, &s->pos[0]);
}

const game *session_game(const session *s) { return s->g; }
const game_pos *session_pos(const session *s) { return &s->pos[s->n]; }
const game_hist *session_hist(const session *s) { return &s->hist; }
int session_plies(const session *s) { return s->n; }
const game_pos *session_pos_at(const session *s, int k) { return &s->pos[k]; }
int session_move_at(const session *s, int k) { return s->moves[k]; }

game_moves session_legal(const session *s) { return game_legal(s->g, session_pos(s)); }

void session_legal_text(const session *s, int labels, const char *sep, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  for (game_moves m = session_legal(s); m && k < len; m &= m - 1) {
    int a = __builtin_ctz(m);
    char name[32];
    if (!labels || game_move_label(s->g, session_pos(s)->mover, a, name, sizeof name))
      snprintf(name, sizeof name, "%d", a);
    k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? sep : "", name);
  }
}

int session_find_label(const session *s, const char *text) {
  for (game_moves m = session_legal(s); m; m &= m - 1) {
    int a = __builtin_ctz(m);
    char name[32];
    if (game_move_label(s->g, session_pos(s)->mover, a, name, sizeof name) == 0 &&
        !strcmp(name, text))
      return a;
  }
  return -1;
}

/* session_play with the move as the caller wrote it, for the messages. */
static int play(session *s, int a, const char *text, char *err, size_t errlen) {
  if (session_pos(s)->status != GAME_ONGOING) {
    errf(err, errlen, "illegal move %s: the game is over", text);
    return -1;
  }
  if (a < 0 || a >= s->g->n_actions || !(session_legal(s) >> a & 1)) {
    char legal[128];
    session_legal_text(s, 0, " ", legal, sizeof legal);
    errf(err, errlen, "illegal move %s (legal: %s)", text, legal);
    return -1;
  }
  if (s->n >= SESSION_MAX_MOVES) {
    errf(err, errlen, "game record full (%d moves)", SESSION_MAX_MOVES);
    return -1;
  }
  s->pos[s->n + 1] = s->pos[s->n];
  game_step(s->g, &s->pos[s->n + 1], &s->hist, a);
  s->moves[s->n++] = (uint8_t)a;
  return 0;
}

int session_play(session *s, int a, char *err, size_t errlen) {
  char text[16];
  snprintf(text, sizeof text, "%d", a);
  return play(s, a, text, err, errlen);
}

int session_play_text(session *s, const char *text, char *err, size_t errlen) {
  int a = game_parse_action(s->g, text, err, errlen);
  if (a < 0) return -1;
  return play(s, a, text, err, errlen);
}

int session_undo(session *s, int n) {
  if (n < 0 || n > s->n) return -1;
  /* Replay from the start: rebuilds the repetition history exactly. */
  int keep = s->n - n;
  game_hist_reset(&s->hist, &s->pos[0]);
  for (int i = 0; i < keep; i++) {
    s->pos[i + 1] = s->pos[i];
    game_step(s->g, &s->pos[i + 1], &s->hist, s->moves[i]);
  }
  s->n = keep;
  return 0;
}

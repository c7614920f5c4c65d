/* session: one game as played at a table — a start position, the moves
 * played since, and everything the game knows after them (the position with
 * its ply counters and result, the repetition history), with undo. Used by
 * the engine protocol and by `sowzero play`.
 *
 * Undo replays the remaining moves from the start, so after it the session
 * is exactly what playing those moves would have made.
 *
 * A session is a handle owned by one thread (about 150 KiB: the history and
 * a position for each ply). It keeps a pointer to its game, which the
 * caller keeps alive while the session uses it. */
#ifndef SOWZERO_SESSION_H
#define SOWZERO_SESSION_H

#include <stddef.h>

#include "game/game.h"

/* The most moves a session records. */
#define SESSION_MAX_MOVES GAME_MAX_PLIES_CAP

typedef struct session session;

/* A session of g from start (NULL: g's start position); NULL on allocation
 * failure. */
session *session_create(const game *g, const game_pos *start);
void session_free(session *s);
/* A new game of g (which may differ from the last) from start (NULL: g's
 * start position). */
void session_reset(session *s, const game *g, const game_pos *start);

const game *session_game(const session *s);
/* The current position and the history that led to it. */
const game_pos *session_pos(const session *s);
const game_hist *session_hist(const session *s);
/* Moves played since the start; the position after the first k of them
 * (0 <= k <= session_plies) and the k-th move (0 <= k < session_plies). */
int session_plies(const session *s);
const game_pos *session_pos_at(const session *s, int k);
int session_move_at(const session *s, int k);
/* The legal actions of the current position (none once the game is over). */
game_moves session_legal(const session *s);

/* Plays action a for the side to move. -1 with a message, and nothing
 * changed, when the game is over, a is not legal or the record is full. */
int session_play(session *s, int a, char *err, size_t errlen);
/* The same for a move as text: its number or its name (game_parse_action);
 * the messages quote the text. */
int session_play_text(session *s, const char *text, char *err, size_t errlen);
/* Takes back the last n moves (n <= session_plies; -1 otherwise). */
int session_undo(session *s, int n);

/* The legal actions as text joined by sep: their numbers, or with labels
 * set their names on the board drawing (game_move_label). Empty when there
 * are none; cut to fit len. */
void session_legal_text(const session *s, int labels, const char *sep, char *buf, size_t len);
/* The legal action whose board label is text, or -1. */
int session_find_label(const session *s, const char *text);

#endif

/* record: game records, the text format of docs/FORMATS.md ("Game
 * records") — written for arena games and kept self-play games, read back
 * and replayed with every move and the result checked.
 *
 * Plain functions on the caller's FILE; no state, any thread (one FILE per
 * thread, or the caller's lock). */
#ifndef SOWZERO_RECORD_H
#define SOWZERO_RECORD_H

#include <stddef.h>
#include <stdio.h>

#include "arena/arena.h"
#include "arena/openings.h"
#include "game/game.h"

/* The comment line that starts a file of records, and a blank line; `what`
 * (may be NULL) says whose games they are. */
int record_write_header(FILE *f, const char *what);

/* One record of rec, played on g by south_spec and north_spec. -1 on a
 * write error (ferror) or options that do not fit the line. */
int record_write(FILE *f, const game *g, const arena_game *rec, const char *south_spec,
                 const char *north_spec);

/* A record read back: the game it names and its moves. */
typedef struct {
  int number;
  char rules[512]; /* "NAME key=value ..." */
  char south[256], north[256];
  opening_line open;
  int n_moves;
  uint8_t moves[GAME_MAX_PLIES_CAP];
  char result[8]; /* "1-0", "0-1" or "1/2-1/2" */
  char score[32];
  char end[32];
  int plies;
} record;

/* Reads the next record; returns 1, 0 at the end of the file, -1 on a
 * malformed one (message names the line). *line counts lines read. */
int record_read(FILE *f, record *r, int *line, char *err, size_t errlen);
/* Configures g from r->rules and replays the record into *end; checks the
 * moves are legal and that result, score, end and plies agree. */
int record_replay(const record *r, game *g, game_pos *end, char *err, size_t errlen);

#endif

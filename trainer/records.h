/* records: the self-play games a run keeps, in the game-record format of
 * docs/FORMATS.md (arena/record.h), collected from any thread and written
 * once per iteration as games/iter-NNNNNN.txt.
 *
 * Thread-safe: records_add may be called from worker threads while the
 * learner's thread flushes. Keeping a game allocates (it happens once every
 * selfplay.record_every games, never on the search's hot path). */
#ifndef SOWZERO_RECORDS_H
#define SOWZERO_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "game/game.h"

typedef struct records records;

records *records_create(char *err, size_t errlen);
void records_free(records *r);
/* Keeps one finished game: its moves from the start and its end. A game
 * that cannot be kept for want of memory is dropped. */
void records_add(records *r, const game *g, const uint8_t *moves, int n, const game_pos *end);
/* Writes the games kept since the last flush to path (atomically, behind
 * the records' header) and forgets them; nothing kept, nothing written. */
int records_flush(records *r, const char *path, char *err, size_t errlen);

#endif

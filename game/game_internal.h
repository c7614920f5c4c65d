/* Shared by the rules modules of game/ only. */
#ifndef SOWZERO_GAME_INTERNAL_H
#define SOWZERO_GAME_INTERNAL_H

#include <string.h>

#include "game/game.h"

extern const game_rules oware_rules;
extern const game_rules namnam_rules;
extern const game_rules bao_kenya_rules;
extern const game_rules bao_laps_rules;
extern const game_rules kujifunza_rules;

/* Hash of everything that identifies a position for the repetition rule:
 * pits, pit ownership, side to move and phase. Scores are left out: they
 * only change on captures, which restart the history. A multiply-xorshift
 * mix over the packed pits is cheaper than a Zobrist table here, since one
 * sowing changes many pits. */
/* words: how many 8-pit words of pits the game uses (pits beyond are 0).
 * The words are multiplied by different odd constants in parallel, then
 * mixed once: short dependency chains, since it runs on every move. */
static inline uint64_t game_hash(const game_pos *p, int words) {
  static const uint64_t k[4] = {0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL,
                                0xd6e8feb86659fd93ULL};
  uint64_t w[4];
  memcpy(w, p->pits, sizeof w);
  uint64_t h = (p->mover + 1) * 0x27d4eb2f165667c5ULL ^ ((uint64_t)p->phase << 40) ^
               (uint64_t)p->owner * 0x94d049bb133111ebULL;
  for (int i = 0; i < words; i++) {
    uint64_t m = (w[i] ^ (w[i] >> 29)) * k[i];
    h ^= (m << (13 * i + 7)) | (m >> (64 - 13 * i - 7));
  }
  h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}

/* ---- Board text (game/board.c) --------------------------------------------------
 * setboard tokens, board_tokens and the pieces of the human drawings that
 * several games share. Every message is part of the protocol: tests pin
 * them. */

/* A whole token that is a decimal integer in min..max: 0 and *out set, or -1. */
int board_parse_int(const char *s, int min, int max, int *out);
/* setboard's MOVER token into q->mover: 0, or -1 with a message. */
int board_read_mover(game_pos *q, const char *s, char *err, size_t errlen);
/* setboard's "MOVER P0..Pn-1 STORE0 STORE1" from argv[0..n+2] (the caller
 * checked there are that many) into q, which is zeroed first: seed counts
 * 0..total that sum to total. 0, or -1 with a message. */
int board_read(game_pos *q, int n, int total, char *const *argv, char *err, size_t errlen);
/* The same when those are all the tokens: checks argc; n = g->n_pits,
 * total = g->total_seeds. */
int board_read_all(const game *g, game_pos *q, int argc, char *const *argv, char *err,
                   size_t errlen);
/* The whole setboard of a game whose state is its board: board_read_all,
 * then the game's hash and its settle (the end of the game, whatever else
 * follows from the board). p is changed only on success. */
int board_setboard(const game *g, game_pos *p, int argc, char *const *argv,
                   uint64_t (*hash)(const game_pos *), void (*settle)(const game *, game_pos *),
                   char *err, size_t errlen);
/* Writes "P0 .. Pn-1 STORE0 STORE1" into buf; returns its length, or -1 if
 * buf is too small. */
int board_write(const game_pos *p, int n, char *buf, size_t len);
/* A board_tokens for the rules table: board_write of g->n_pits pits. */
int board_tokens(const game *g, const game_pos *p, char *buf, size_t len);

/* Text appended to buf like snprintf, cut (NUL-terminated) once buf is full. */
typedef struct {
  char *buf;
  size_t len; /* of buf */
  size_t k;   /* characters appended so far (may pass len when cut) */
} board_text;
void board_textf(board_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* board_render_rows styles. */
enum {
  BOARD_WIDE = 1,  /* row labels "North  [" (else "North [") */
  BOARD_STORES = 2 /* both stores on a line between the rows (else "captured N"
                      after each row) */
};
/* Two rows of h pits: North's (pits 2h-1..h, from his right) over South's
 * (0..h-1), pit numbers above and below, an arrow at the side to move. */
void board_render_rows(board_text *t, const game_pos *p, int h, int style);
/* If p is over, its result line: "Game over (famine): " then pre, the final
 * scores (with their halves) as "26 - 22", post, and ", South wins" or
 * ", draw". */
void board_render_result(board_text *t, const game_pos *p, const char *pre, const char *post);

#endif

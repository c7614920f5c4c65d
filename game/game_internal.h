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
  static const uint64_t k[4] = {0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL,
                                0x165667b19e3779f9ULL, 0xd6e8feb86659fd93ULL};
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

#endif

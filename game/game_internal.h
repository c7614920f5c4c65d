/* Shared by the rules modules of game/ only. */
#ifndef SOWZERO_GAME_INTERNAL_H
#define SOWZERO_GAME_INTERNAL_H

#include <string.h>

#include "game/game.h"

extern const game_rules oware_rules;

/* Hash of everything that identifies a position for the repetition rule:
 * pits, pit ownership, side to move and phase. Scores are left out: they
 * only change on captures, which restart the history. A multiply-xorshift
 * mix over the packed pits is cheaper than a Zobrist table here, since one
 * sowing changes many pits. */
static inline uint64_t game_hash_mix(uint64_t h, uint64_t w) {
  h ^= w * 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 32)) * 0xd6e8feb86659fd93ULL;
  return h ^ (h >> 32);
}
static inline uint64_t game_hash(const game_pos *p) {
  uint64_t w[4], h = 0x8a5cd789635d2dffULL + p->mover + ((uint64_t)p->phase << 8);
  memcpy(w, p->pits, sizeof w);
  for (int i = 0; i < 4; i++) h = game_hash_mix(h, w[i]);
  return game_hash_mix(h, p->owner + 1);
}

#endif

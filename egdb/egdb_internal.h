/* What the egdb files share among themselves: the index, boards as engine
 * positions, the level files. */
#ifndef SOWZERO_EGDB_INTERNAL_H
#define SOWZERO_EGDB_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "egdb/egdb.h"
#include "game/game.h"

/* ---- Index -------------------------------------------------------------------
 * A composition b of n seeds into 12 pits is the 11-subset of bar positions
 * c_i = (b_0 + .. + b_i) + i of {0 .. n+10}; its rank is sum C(c_i, i+1)
 * (colex order), dense in 0 .. C(n+11, 11)-1. */
#define IX_ROWS (EGDB_MAX_SEEDS + 12)
extern uint64_t egdb_binom_tab[IX_ROWS][12]; /* C(c, k), k <= 11 */
void egdb_index_init(void);                  /* fills the table once; thread-safe */

static inline uint64_t ix_rank(const uint8_t *b) {
  uint64_t r = 0;
  int s = 0;
  for (int i = 0; i < 11; i++) {
    s += b[i];
    r += egdb_binom_tab[s + i][i + 1];
  }
  return r;
}

/* Seeds on the board. */
static inline int ix_seeds(const uint8_t *b) {
  int n = 0;
  for (int i = 0; i < EGDB_PITS; i++) n += b[i];
  return n;
}

/* Bars of rank r among compositions of n seeds, then the board. */
static inline void ix_unrank_bars(int n, uint64_t r, int c[11]) {
  int x = n + 10;
  for (int i = 10; i >= 0; i--) {
    while (egdb_binom_tab[x][i + 1] > r) x--;
    c[i] = x;
    r -= egdb_binom_tab[x][i + 1];
    x--;
  }
}
static inline void ix_bars_board(int n, const int c[11], uint8_t *b) {
  b[0] = (uint8_t)c[0];
  for (int i = 1; i < 11; i++) b[i] = (uint8_t)(c[i] - c[i - 1] - 1);
  b[11] = (uint8_t)(n + 10 - c[10]);
}
/* The next composition in rank order (the colex successor of the bars). */
static inline void ix_next_bars(int n, int c[11]) {
  int i = 0;
  while (i < 10 && c[i] + 1 == c[i + 1]) i++;
  (void)n; /* past the last rank the bars run off the end; callers stop before */
  c[i]++;
  for (int j = 0; j < i; j++) c[j] = j;
}

/* ---- Boards as engine positions ------------------------------------------------
 * A board is played by the engine as South to move with empty stores and no
 * history: the target (25) cannot be reached from empty stores with at most
 * EGDB_MAX_SEEDS seeds, and no cap applies at ply 0. */
static inline void board_pos(const uint8_t *b, game_pos *p) {
  memset(p, 0, sizeof *p);
  memcpy(p->pits, b, EGDB_PITS);
}
/* The board of a position from its mover's view. */
static inline void pos_board(const game_pos *p, uint8_t *b) {
  int o = p->mover ? 6 : 0;
  for (int i = 0; i < EGDB_PITS; i++) b[i] = p->pits[(i + o) % EGDB_PITS];
}
/* Terminal award of a board where the mover cannot move (famine): each row
 * to its owner, from the mover's view. */
static inline int board_terminal(const uint8_t *b) {
  int v = 0;
  for (int i = 0; i < 6; i++) v += b[i] - b[i + 6];
  return v;
}

/* The default Oware game the database is for, and its rules string. */
int egdb_default_game(game *g, char *rules, size_t len, char *err, size_t errlen);

/* ---- Level files (docs/EGDB.md) -------------------------------------------------- */
#define EGDB_MAGIC       "SZEGDB\r\n"
#define EGDB_VERSION     1
#define EGDB_HEADER      256
#define EGDB_INDEX_COLEX 1 /* mover-relative composition, colex rank */
#define EGDB_VALUES_NET  1 /* int8: the mover's net future captures */
#define EGDB_RULES_LEN   160

typedef struct {
  const int8_t *values; /* mapped payload */
  void *map;
  size_t map_len;
} egdb_level;

int egdb_level_path(char *buf, size_t len, const char *dir, int n);
/* Maps and checks level n of dir: 1 if mapped, 0 if the file does not exist,
 * -1 (message naming the file) if it is unusable. */
int egdb_level_load(const char *dir, int n, const char *rules, egdb_level *lv, char *err,
                    size_t errlen);
void egdb_level_unload(egdb_level *lv);
int egdb_level_write(const char *dir, int n, const char *rules, const int8_t *values, char *err,
                     size_t errlen);

/* The opened database. */
struct egdb {
  char dir[1024];
  char rules[EGDB_RULES_LEN];
  game g;
  int max_seeds;
  int value_opt[4]; /* indices of the options the values depend on */
  egdb_level lv[EGDB_MAX_SEEDS + 1];
};

/* The value of board b of n seeds from the levels array. */
static inline int lv_value(const egdb_level *lv, const uint8_t *b) {
  return lv[ix_seeds(b)].values[ix_rank(b)];
}

#endif

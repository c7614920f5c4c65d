/* game: rules engines for the sowing games, behind one table of pure functions.
 *
 * A position (game_pos) is a fixed-size plain struct copied by value: no
 * pointers, no allocation. A configured game (game) is a rules table plus the
 * values of its options; it is immutable after game_configure and may be
 * shared by any number of threads.
 *
 * Actions are numbered from the mover's point of view (0 .. n_actions-1), so
 * one network serves both sides. Legal actions come as a bitmask.
 *
 * Repetition is decided from history the caller keeps (game_hist: the hashes
 * of the positions since the last capture). game_step plays a move and applies
 * the repetition rule; game_play alone never looks at history.
 *
 * Depends on base only. */
#ifndef SOWZERO_GAME_H
#define SOWZERO_GAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

/* Limits shared by every game, checked with _Static_assert where they matter. */
#define GAME_MAX_PITS      32 /* Kujifunza 4x8 */
#define GAME_MAX_ACTIONS   32 /* pit x direction */
#define GAME_MAX_FEATURES  256
#define GAME_MAX_OPTIONS   24
#define GAME_HIST_CAP      2048 /* positions since the last capture */
#define GAME_MAX_PLIES_CAP 2000
#define GAME_MAX_VARIANTS  8 /* rule variants one network trains on */

typedef uint32_t game_moves; /* bit a set: action a is legal */

enum { GAME_SOUTH = 0, GAME_NORTH = 1 };
enum { GAME_ONGOING = 0, GAME_OVER = 1 };
enum { GAME_DRAW = 2 }; /* value of game_pos.winner for a draw */

/* Why a game ended. */
typedef enum {
  GAME_END_NONE = 0,
  GAME_END_TARGET,     /* a score reached the target */
  GAME_END_FAMINE,     /* the mover could not feed (or had no move) */
  GAME_END_REPETITION, /* cycle rule: a position repeated */
  GAME_END_NOCAPTURE,  /* nocap_limit plies without a capture */
  GAME_END_MAXPLIES,   /* hard cap on the game length */
  GAME_END_GRANDSLAM,  /* a grand-slam variant ended the game */
  GAME_END_NOMOVES,    /* the mover has no legal move (non-Oware games) */
  GAME_END_FRONTROW,   /* a front row was emptied (Bao la Kujifunza) */
  GAME_END_MAXROUNDS,  /* the round cap of a multi-round game (Nam Nam) */
  GAME_END_COUNT
} game_end_reason;

/* Flags returned by game_play. */
enum {
  GAME_PLAY_CAPTURE = 1,  /* seeds were captured: repetition history restarts */
  GAME_PLAY_GRANDSLAM = 2 /* the move was a grand slam */
};

/* The position. Pits are in absolute counter-clockwise order: on a 2-row
 * board South owns 0..h-1 and North h..2h-1. */
typedef struct {
  uint8_t pits[GAME_MAX_PITS]; /* seeds in each pit */
  uint16_t store[2];           /* seeds captured (or sown into stores) */
  uint32_t owner;              /* bit i: pit i belongs to North (Nam Nam) */
  uint8_t mover;               /* side to move: GAME_SOUTH or GAME_NORTH */
  uint8_t status;              /* GAME_ONGOING or GAME_OVER */
  uint8_t winner;              /* when over: 0, 1 or GAME_DRAW */
  uint8_t end_reason;          /* when over: a game_end_reason */
  uint8_t final[2];            /* when over: final scores (whole seeds) */
  uint8_t half;                /* when over: 1 if each final score has +1/2 */
  uint8_t phase;               /* game-specific phase (Nam Nam claims) */
  uint8_t round;               /* game-specific round counter */
  uint8_t aux[3];              /* game-specific small state */
  uint16_t ply;                /* moves played since the start */
  uint16_t nocap;              /* moves since the last capture */
  uint64_t hash;               /* hash of pits, owner, mover, phase */
} game_pos;

_Static_assert(GAME_MAX_ACTIONS <= 32, "game_moves is a 32-bit mask");
_Static_assert(sizeof(game_pos) <= 64, "positions are copied millions of times");

/* A named rule option: an enumeration (values != NULL) or an integer range. */
typedef struct {
  const char *key;
  const char *const *values; /* NULL-terminated names, or NULL for integers */
  int min, max;              /* integer range (enum: 0 .. count-1) */
  int def;                   /* default value */
  const char *help;          /* one line for docs and `sowzero rules` */
  int input;                 /* 1: changes how the game is played, so a network
                                that serves several variants reads it */
} game_option;

struct game;

/* The rules table of one game. Every function is pure over its arguments. */
typedef struct {
  const char *name;
  const char *summary;
  const game_option *options; /* terminated by an entry with key NULL */
  /* Derives sizes from the options and checks them together. */
  int (*setup)(struct game *g, char *err, size_t errlen);
  void (*start)(const struct game *g, game_pos *p);
  game_moves (*legal)(const struct game *g, const game_pos *p);
  /* Plays a legal action; returns GAME_PLAY_* flags. Ends the game when the
   * rules say so (target, famine, caps), but never looks at history. */
  int (*play)(const struct game *g, game_pos *p, int action);
  /* Ends the game by the cycle rule (cycle_award); called by game_step. */
  void (*end_cycle)(const struct game *g, game_pos *p);
  /* Network input from the mover's point of view: n_features floats. */
  void (*encode)(const struct game *g, const game_pos *p, float *out);
  /* Human board drawing into buf (NUL-terminated, truncated to len). */
  void (*render)(const struct game *g, const game_pos *p, char *buf, size_t len);
  /* Sets a position from protocol tokens (`setboard`); checks everything. */
  int (*setboard)(const struct game *g, game_pos *p, int argc, char *const *argv, char *err,
                  size_t errlen);
  /* Writes the board as protocol tokens (`state`): pits then stores. */
  int (*board_tokens)(const struct game *g, const game_pos *p, char *buf, size_t len);
  /* Optional (NULL: moves are their action numbers): writes the name of
   * an action, the same for every position, e.g. "b6ccw" in Kujifunza.
   * game_parse_action accepts these names besides the numbers. */
  int (*move_name)(const struct game *g, int action, char *buf, size_t len);
} game_rules;

/* A configured game: rules plus option values. Plain value; copy freely. */
typedef struct game {
  const game_rules *rules;
  char preset[32];           /* preset name it came from, or the game name */
  int opt[GAME_MAX_OPTIONS]; /* values, indexed like rules->options */
  int n_pits;                /* pits on the board */
  int n_actions;             /* size of the action space */
  int n_features;            /* length of the encoding, rule inputs included */
  int encoding_version;      /* bumped whenever encode changes meaning;
                                GAME_ENCODING_RULES set with rule inputs */
  int rule_inputs;           /* features of the rule options at the end (0: none) */
  int total_seeds;           /* seeds in play at the start */
  int repetition;            /* 0: off; N: the N-th repeat of a position
                                  (since the last capture) ends the game */
} game;

/* The encoding_version bit of an encoding followed by the rule inputs:
 * the options marked `input`, an enumeration one-hot over its values and an
 * integer as (value - min) / (max - min), in option order. One network then
 * serves many variants of a game; without them a network knows one. */
#define GAME_ENCODING_RULES 0x100

/* ---- Registry and options --------------------------------------------------- */

/* Configures g from a game or preset name and "key=value" settings applied
 * on top. On error returns -1 with a message naming the culprit. */
int game_configure(game *g, const char *name, int nset, char *const *settings, char *err,
                   size_t errlen);
/* Applies one "key=value" (or key, value) to a configured game; call
 * game_setup once every option is set. */
int game_set_option(game *g, const char *key, const char *value, char *err, size_t errlen);
/* Derives sizes from the options and checks them together (game_configure
 * does it; again after game_set_option). Keeps the rule inputs as they were. */
int game_setup(game *g, char *err, size_t errlen);
/* Appends the rule inputs to the encoding (on = 1) or drops them (0):
 * n_features and encoding_version follow. */
void game_set_rule_inputs(game *g, int on);
/* Writes the rule inputs of g's options (g->rule_inputs floats when on). */
void game_rule_features(const game *g, float *out);
/* Variant sets, as weight files and replay buffers name them: the options
 * string of the first variant, then for each other variant " | " and the
 * settings in which it differs from the first (a set of one is its
 * options string). -1 when buf is too small or the variants are of
 * different games. */
int game_variants_string(const game *v, int n, char *buf, size_t len);
/* 1 when g's options are one of the variants of set (a variants string of
 * g's game), else 0. */
int game_variants_cover(const game *g, const char *set);
/* Value of an option by key; -1 if the game has no such option. */
int game_option_value(const game *g, const char *key);
/* Writes every option as "key=value key=value ..." (canonical, for files). */
int game_options_string(const game *g, char *buf, size_t len);
/* Iterates the registry: game and preset names, for help and docs. */
const game_rules *game_rules_at(int i); /* NULL past the end */
const char *game_preset_at(int i, const char **game_name, const char **settings);

/* ---- Playing -------------------------------------------------------------------- */

static inline void game_start(const game *g, game_pos *p) { g->rules->start(g, p); }
static inline game_moves game_legal(const game *g, const game_pos *p) {
  return p->status == GAME_ONGOING ? g->rules->legal(g, p) : 0;
}
static inline int game_play(const game *g, game_pos *p, int action) {
  return g->rules->play(g, p, action);
}
static inline void game_encode(const game *g, const game_pos *p, float *out) {
  g->rules->encode(g, p, out);
  if (g->rule_inputs) game_rule_features(g, out + g->n_features - g->rule_inputs);
}
/* Who moves first (GAME_SOUTH or GAME_NORTH): the start position is the one
 * source of truth, whatever option of the game decides it. */
static inline int game_first_mover(const game *g) {
  game_pos p;
  game_start(g, &p);
  return p.mover;
}

/* History of position hashes since the last capture, kept by the caller.
 * Large (16 KiB): make one per game record or search worker and reuse it. */
typedef struct {
  int len;                      /* hashes stored */
  uint64_t seen[16];            /* 1024-bit filter over the stored hashes */
  uint64_t hash[GAME_HIST_CAP]; /* oldest first */
} game_hist;

/* Starts the history at position p (the start position counts). */
void game_hist_reset(game_hist *h, const game_pos *p);
/* Occurrences of hash in the history. */
int game_hist_count(const game_hist *h, uint64_t hash);
/* Copies only the used part of src. */
void game_hist_copy(game_hist *dst, const game_hist *src);

/* Plays a legal action and applies the repetition rule from h, which it
 * updates. Returns the GAME_PLAY_* flags of the move. */
int game_step(const game *g, game_pos *p, game_hist *h, int action);

/* ---- Repetition along a searched line --------------------------------------------
 * The history of a searched line is the root's game_hist (read-only, shared
 * by every line) followed by the hashes pushed along the line. This applies
 * exactly game_step's rule without copying the 16 KiB root history per
 * simulation: a capture starts the history afresh (the root part no longer
 * counts), and a position whose hash already occurs `repetition` times ends
 * the game by the cycle rule. Undo is restoring the three counters. */
#define GAME_PATH_MAX (GAME_MAX_PLIES_CAP + 8)

typedef struct {
  const game_hist *root; /* history that led to the root (root hash last) */
  int root_live;         /* 1 while no capture happened on the line */
  int base;              /* index of the first hash after the last capture */
  int len;               /* hashes pushed along the line */
  uint64_t hash[GAME_PATH_MAX];
} game_path;

static inline void game_path_reset(game_path *s, const game_hist *root) {
  s->root = root;
  s->root_live = 1;
  s->base = 0;
  s->len = 0;
}

/* game_step over the path; returns game_play's flags. */
static inline int game_path_step(const game *g, game_pos *p, game_path *s, int action) {
  int flags = game_play(g, p, action);
  if (flags & GAME_PLAY_CAPTURE) {
    s->root_live = 0;
    s->base = s->len;
  }
  if (p->status != GAME_ONGOING) return flags;
  int total = s->len - s->base + (s->root_live ? s->root->len : 0);
  if (g->repetition > 0) {
    int c = s->root_live ? game_hist_count(s->root, p->hash) : 0;
    for (int i = s->base; i < s->len; i++) c += s->hash[i] == p->hash;
    if (c >= g->repetition) {
      g->rules->end_cycle(g, p);
      return flags;
    }
  }
  if (total >= GAME_HIST_CAP || s->len >= GAME_PATH_MAX) {
    g->rules->end_cycle(g, p); /* as game_step does when its history is full */
    return flags;
  }
  s->hash[s->len++] = p->hash;
  return flags;
}

/* Field-by-field equality (game_pos has padding). */
static inline int game_pos_equal(const game_pos *a, const game_pos *b) {
  return a->hash == b->hash && memcmp(a->pits, b->pits, sizeof a->pits) == 0 &&
         a->store[0] == b->store[0] && a->store[1] == b->store[1] && a->owner == b->owner &&
         a->mover == b->mover && a->status == b->status && a->phase == b->phase &&
         a->round == b->round && memcmp(a->aux, b->aux, sizeof a->aux) == 0 && a->ply == b->ply &&
         a->nocap == b->nocap;
}

/* ---- Outcomes ------------------------------------------------------------------ */

/* +1 / 0 / -1 for player `side` of a finished game. */
static inline int game_outcome(const game_pos *p, int side) {
  if (p->winner == GAME_DRAW) return 0;
  return p->winner == side ? 1 : -1;
}
/* Final seed margin for `side` (final scores, halves included: the odd
 * stone of split_even cancels out). */
static inline int game_margin(const game_pos *p, int side) {
  return (int)p->final[side] - (int)p->final[1 - side];
}
const char *game_end_name(int reason);

/* Ends the game now with the given final scores. winner: 0, 1, GAME_DRAW,
 * or -1 to let the higher final score win. Used by the rules modules. */
void game_finish(game_pos *p, int reason, int final0, int final1, int winner);

/* ---- Text ---------------------------------------------------------------------------- */

/* Moves are written as their action number ("0".."31"), or by the name the
 * game's move_name gives them, if it has one. */
int game_parse_action(const game *g, const char *s, char *err, size_t errlen);
/* The name of an action: move_name, or the number. Returns 0, or -1 if buf
 * is too small. */
int game_move_name(const game *g, int action, char *buf, size_t len);
/* A move of `mover` as a person reads it on the board drawing: the game's
 * move name if it has one (the same for both sides, e.g. "b6ccw"), else the
 * number the drawing labels the sown pit with. Every game without move
 * names is a board of two rows whose mover-relative action a is the pit
 * (a + n_pits/2 * mover) mod n_pits (docs/games/). Returns 0, or -1 if buf
 * is too small. */
int game_move_label(const game *g, int mover, int action, char *buf, size_t len);
void game_render(const game *g, const game_pos *p, char *buf, size_t len);
/* Number of set bits. */
static inline int game_count(game_moves m) { return __builtin_popcount(m); }
/* The k-th legal action of m (k < game_count(m)), lowest first. */
static inline int game_nth_action(game_moves m, int k) {
#ifdef __BMI2__
  return __builtin_ctz(__builtin_ia32_pdep_si(1u << k, m));
#else
  while (k--) m &= m - 1;
  return __builtin_ctz(m);
#endif
}
/* A uniformly random action of m (m != 0): the one mechanism behind random
 * agents, playouts and openings, so that their streams agree. */
static inline int game_random_action(rng_t *r, game_moves m) {
  return game_nth_action(m, (int)rng_below(r, (uint32_t)game_count(m)));
}

#endif

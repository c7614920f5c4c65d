/* egdb: an Oware endgame database computed by retrograde analysis
 * (docs/EGDB.md).
 *
 * For every board of default Oware with at most N seeds left (12 pits, side
 * to move; stores do not matter) it holds the mover's net future captures
 * under perfect play by both sides: captures already made do not count, the
 * target of 25 is not applied, repetition and ply caps are ignored, and play
 * that goes on for ever is worth 0 for the seeds still on the board. A board
 * of n seeds has a value in [-n, n]; V(p) = max over moves of
 * (captured - V(child)), the child seen from its own mover.
 *
 * The database is one file per seed count in a folder, each mmapped
 * read-only and checked when opened. An opened database is immutable:
 * probes are pure reads of the mapped arrays, thread-safe, without
 * allocation. Nothing here prints; errors come back as one-line messages.
 *
 * Depends on game and base only. */
#ifndef SOWZERO_EGDB_H
#define SOWZERO_EGDB_H

#include <stddef.h>
#include <stdint.h>

#include "game/game.h"

#define EGDB_PITS        12
#define EGDB_MAX_SEEDS   30     /* the largest N a build takes */
#define EGDB_NONE        (-128) /* a probe's answer: not in the database */
#define EGDB_FILE_PREFIX "oware-"
#define EGDB_FILE_SUFFIX ".egdb"

typedef struct egdb egdb;

/* ---- Index ------------------------------------------------------------------
 * A board is 12 pit counts from the mover's view (his six pits first). The
 * boards of n seeds are numbered 0 .. egdb_level_size(n)-1 by the rank of
 * the composition in the combinatorial number system (docs/EGDB.md). */
uint64_t egdb_level_size(int n); /* C(n+11, 11); 0 outside 0..EGDB_MAX_SEEDS */
uint64_t egdb_rank(const uint8_t b[EGDB_PITS]);
/* The board of rank r among those of n seeds (r < egdb_level_size(n)). */
void egdb_unrank(int n, uint64_t r, uint8_t b[EGDB_PITS]);

/* ---- Building ------------------------------------------------------------------ */

typedef struct {
  int level, max_level; /* the seed count being solved, and N */
  const char *phase;    /* "moves", "cycles", "write"; "levels" when a level is done; "done" */
  uint64_t done, total; /* boards' worth of work done and in all (levels 0..N) */
  uint64_t reused;      /* of done: boards of levels read from their files, not solved */
  double seconds;       /* since the build started */
} egdb_progress;

/* Called from the building thread only, a few times a second at most. */
typedef void (*egdb_progress_fn)(void *ctx, const egdb_progress *p);

typedef struct {
  int seeds;   /* N: levels 0..N */
  int threads; /* workers, >= 1 */
  egdb_progress_fn progress;
  void *ctx;
} egdb_build_params;

/* What a build of levels 0..seeds needs, to tell before it starts. */
typedef struct {
  uint64_t boards;    /* in all */
  uint64_t disk;      /* bytes of the files */
  uint64_t disk_new;  /* of those, bytes a build into the folder still writes (egdb_plan_dir) */
  uint64_t memory;    /* peak bytes in memory (largest level's work arrays and the levels below) */
  double est_seconds; /* rough, from the rate of a reference machine */
} egdb_plan;

egdb_plan egdb_plan_for(int seeds, int threads);
/* The same for a build into dir: a level whose file is already there, of
 * its size, is kept, and its bytes are not counted in disk_new. */
egdb_plan egdb_plan_dir(const char *dir, int seeds, int threads);

/* Solves levels 0..p->seeds of default Oware into dir (created if missing).
 * Levels whose file is already there and sound are read instead of solved,
 * so an interrupted build resumes and a larger N extends a smaller one.
 * Each file is written atomically. 0, or -1 with a message. */
int egdb_build(const char *dir, const egdb_build_params *p, char *err, size_t errlen);

/* ---- Opening and probing --------------------------------------------------------- */

/* Where the database lives: `given` (a command's --egdb, passed down as a
 * value; NULL or "": none), else $SOWZERO_EGDB, else
 * $XDG_DATA_HOME/sowzero/egdb, else $HOME/.local/share/sowzero/egdb. Every
 * user of a database finds it through this one function. */
int egdb_default_dir(const char *given, char *buf, size_t len, char *err, size_t errlen);

/* Maps and checks every level file of dir (levels 0..N, consecutive). A
 * file of other rules, a damaged or truncated one is refused with a message
 * naming it and what is wrong. NULL on error. */
egdb *egdb_open(const char *dir, char *err, size_t errlen);
void egdb_close(egdb *db);
int egdb_max_seeds(const egdb *db);
const char *egdb_dir(const egdb *db);
/* The rules string the files were built for (game_options_string). */
const char *egdb_rules(const egdb *db);
/* The values of the boards of n seeds in rank order (NULL past N). */
const int8_t *egdb_level_values(const egdb *db, int n);

/* 1 if g plays by rules the database answers for: Oware with the houses,
 * grand_slam, feed_check and leftover options it was built with (the other
 * options play no part in the values). */
int egdb_serves(const egdb *db, const game *g);
/* The same without a database: 1 if a database egdb_build makes would
 * serve g (for refusing a config before anything is opened). */
int egdb_game_supported(const game *g);

/* The seeds on p's board (its level, when the database holds it). */
static inline int egdb_seeds(const game_pos *p) {
  int n = 0;
  for (int i = 0; i < EGDB_PITS; i++) n += p->pits[i];
  return n;
}

/* The value of an ongoing position for its mover, or EGDB_NONE: another
 * game or rules (egdb_serves), more seeds on the board than N, a finished
 * position, db NULL. */
int egdb_probe(const egdb *db, const game *g, const game_pos *p);
/* The value of a board of the database (mover's pits first); EGDB_NONE if
 * it has more seeds than N. */
int egdb_board_value(const egdb *db, const uint8_t b[EGDB_PITS]);

/* The value of every legal move from the mover's view (captured minus the
 * child's value) into values[action]; returns the legal moves, or 0 with
 * nothing written when the position is not in the database (or has no
 * move). The best moves are those whose value equals egdb_probe's. */
game_moves egdb_probe_moves(const egdb *db, const game *g, const game_pos *p,
                            int values[GAME_MAX_ACTIONS]);

/* Final scores under perfect play from position p with value v (n seeds on
 * the board): the mover ends with store + (n + v) / 2, the opponent with
 * store + (n - v) / 2 (a half each when n + v is odd: seeds left to endless
 * play, shared). Exact for the value's own semantics; under the game's
 * default repetition rule (the first repeat ends it, each row to its
 * owner) it is an approximation (docs/EGDB.md). */
void egdb_outcome(const game_pos *p, int v, double final[2]);

/* ---- Sharing and exact results -------------------------------------------------
 * Opening checks every payload (about 0.5 s for N = 20), so agents on many
 * threads share one opened copy per folder: egdb_acquire opens it the
 * first time (thread-safe) and counts references; egdb_release closes it
 * with the last one. Never egdb_close what egdb_acquire returned. */
egdb *egdb_acquire(const char *dir, char *err, size_t errlen);
void egdb_release(egdb *db);

/* An exact result in the game's terms, for p's mover. */
typedef struct {
  int value;   /* net future captures (egdb_probe) */
  int outcome; /* +1 win, 0 draw, -1 loss: egdb_outcome's final scores compared */
  int margin;  /* final score minus the opponent's: store difference + value */
} egdb_result;
/* 1 with *out when the database answers p and p has at most max_seeds
 * seeds on the board (<= 0: the database's N); else 0. Counts the seeds
 * before probing, so it is cheap on positions outside (search nodes). */
int egdb_exact(const egdb *db, const game *g, const game_pos *p, int max_seeds, egdb_result *out);

/* ---- Checking ----------------------------------------------------------------------- */

typedef struct {
  uint64_t boards;      /* boards checked against their children */
  uint64_t bad_bellman; /* boards whose value is not the best move's */
  uint64_t brute;       /* boards compared with brute force */
  uint64_t bad_brute;   /* and disagreeing */
  char first_bad[256];  /* the first disagreement, or "" */
} egdb_check;

/* Every board of levels 0..N satisfies V = max over moves of
 * (captured - V(child)) (terminal boards: their famine award), and, up to
 * brute_seeds, equals an independent value iteration that uses neither the
 * index nor the solver. Returns 0 when the checks ran (look at the counts),
 * -1 on error. */
int egdb_verify(const egdb *db, int threads, int brute_seeds, egdb_progress_fn progress, void *ctx,
                egdb_check *out, char *err, size_t errlen);

/* Value iteration over the boards of at most max_seeds seeds on its own
 * table (a sorted list of boards, no combinatorial index): the values it
 * finds for board b (EGDB_NONE past max_seeds). For tests and verify. */
typedef struct egdb_brute egdb_brute;
egdb_brute *egdb_brute_solve(int max_seeds, char *err, size_t errlen);
int egdb_brute_value(const egdb_brute *bf, const uint8_t b[EGDB_PITS]);
void egdb_brute_free(egdb_brute *bf);

#endif

/* analysis: the JSON analysis engine of `sowzero analysis` (docs/ANALYSIS.md).
 *
 * A query is one line of JSON naming an id, a game and its rules, the moves
 * from the start (or from a position), which turns to analyse and the
 * agent; its answer is one line of JSON with, per turn, every legal move's
 * visits, prior, value, margin and principal variation, or an error naming
 * the query's id and the field at fault.
 *
 * analysis_answer is reentrant: each call makes its own game, history and
 * agent, and only reads the options (an endgame database's probes are
 * thread-safe), so several threads may answer queries at once. It writes
 * nothing itself: the caller prints the answer. */
#ifndef SOWZERO_ANALYSIS_H
#define SOWZERO_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

struct egdb;

typedef struct {
  const struct egdb *egdb; /* exact values for Oware positions it holds; NULL: none */
  /* Rewrites an agent spec before it is made (NULL: as given); the fuzz
   * harness caps searches with it so no input runs long. */
  void (*spec_filter)(const char *spec, char *out, size_t len);
  const char *egdb_dir; /* where agents' egdb=on looks (agent_params.egdb_dir; NULL: default) */
} analysis_opts;

/* Answers the query in line (len bytes; it may hold NUL bytes and a final
 * newline). *out receives a malloc'd answer, one JSON object and '\n', that
 * the caller frees; NULL for a blank line (no answer). Returns 0 for an
 * analysis, 1 for an error answer, 2 for a blank line, -1 when memory ran
 * out (*out NULL). */
int analysis_answer(const analysis_opts *o, const char *line, size_t len, char **out);

/* The longest query line read (longer ones are answered with an error). */
#define ANALYSIS_MAX_LINE (1 << 20)
/* The longest string id echoed (bytes); a longer one is answered as null. */
#define ANALYSIS_MAX_ID   128

#endif

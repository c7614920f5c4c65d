/* Harness: game record files (arena/record.h, docs/FORMATS.md).
 *
 * Input: a records file (read through fmemopen; at most MAX_RECORDS
 * records). Checked for each record:
 *   - record_read returns 1 (a record), 0 (the end) or -1 with a one-line
 *     message, and its line count never goes back;
 *   - record_replay refuses with a one-line message, or replays to a
 *     finished game whose plies are the record's (an ongoing one for a
 *     game lost on time, `end time`);
 *   - a replayed record written back by record_write reads and replays to
 *     the same position, with the same moves, opening, result, score, end
 *     and plies (what the arena writes, the reader takes back). */
#include "arena/record.h"
#include "fuzz/fuzz.h"

#define MAX_RECORDS 32

static void rewrite(const record *r, const game *g, const game_pos *end) {
  arena_game *rec = calloc(1, sizeof *rec);
  rec->number = r->number;
  rec->open = r->open;
  rec->n_moves = r->n_moves;
  memcpy(rec->moves, r->moves, sizeof rec->moves);
  rec->final = *end;
  rec->lost_on_time = !strcmp(r->end, "time");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  FUZZ_CHECK(record_write(f, g, rec, r->south, r->north) == 0, "record_write failed");
  fclose(f);
  FILE *in = fmemopen(buf, len, "r");
  record *r2 = malloc(sizeof *r2);
  char err[512] = "";
  int line = 0;
  FUZZ_CHECK(record_read(in, r2, &line, err, sizeof err) == 1,
             "a written record does not read: %s\n%s", err, buf);
  game g2;
  game_pos end2;
  FUZZ_CHECK(record_replay(r2, &g2, &end2, err, sizeof err) == 0,
             "a written record does not replay: %s\n%s", err, buf);
  FUZZ_CHECK(game_pos_equal(end, &end2) && end2.winner == end->winner &&
                 end2.final[0] == end->final[0] && end2.final[1] == end->final[1],
             "a written record replays to another position:\n%s", buf);
  FUZZ_CHECK(r2->n_moves == r->n_moves && !memcmp(r2->moves, r->moves, (size_t)r->n_moves) &&
                 r2->open.n == r->open.n &&
                 !memcmp(r2->open.moves, r->open.moves, (size_t)r->open.n) &&
                 !strcmp(r2->result, r->result) && !strcmp(r2->score, r->score) &&
                 !strcmp(r2->end, r->end) && r2->plies == r->plies && r2->number == r->number,
             "a written record reads back otherwise:\n%s", buf);
  fclose(in);
  free(r2);
  free(buf);
  free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  FILE *f = fmemopen((void *)data, size, "r");
  FUZZ_CHECK(f, "fmemopen");
  record *r = malloc(sizeof *r);
  int line = 0;
  for (int i = 0; i < MAX_RECORDS; i++) {
    char err[512] = "";
    int before = line;
    int rc = record_read(f, r, &line, err, sizeof err);
    FUZZ_CHECK(line >= before, "line count went back");
    FUZZ_CHECK(rc >= -1 && rc <= 1, "record_read returned %d", rc);
    if (rc == 0) break;
    if (rc < 0) {
      FUZZ_CHECK_MESSAGE(err);
      break;
    }
    game g;
    game_pos end;
    if (record_replay(r, &g, &end, err, sizeof err) != 0) {
      FUZZ_CHECK_MESSAGE(err);
      continue;
    }
    FUZZ_CHECK((end.status == GAME_OVER) == !!strcmp(r->end, "time") && end.ply == r->plies,
               "replayed to ply %d, over %d", end.ply, end.status);
    rewrite(r, &g, &end);
  }
  free(r);
  fclose(f);
  return 0;
}

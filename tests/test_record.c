/* Game records: the format to the letter, records of a match written, read
 * back and replayed, and broken records rejected with their line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/record.h"
#include "game/game.h"
#include "tests/testutil.h"

static game G;

static void configure(const char *name) {
  char err[256];
  int rc = game_configure(&G, name, 0, NULL, err, sizeof err);
  ck_assert_msg(rc == 0, "configure %s: %s", name, err);
}

/* The example of docs/FORMATS.md: read, replayed, and written again to the
 * same text. */
static const char example[] =
    "game 0\n"
    "rules oware houses=6 seeds=4 grand_slam=no_capture target=0 repetition=1 nocap_limit=0 "
    "max_plies=1000 cycle_award=own_side feed_check=sow leftover=own_row first_player=0\n"
    "south alphabeta depth=6\n"
    "north greedy\n"
    "opening 0 4\n"
    "moves 0 0 2 1 4 2 3 2 2 3 3 0 4 1 2 0 0 5 4 1 3 3 5 2 2 5 0 4 1 3 5 4 2 5 4 5 5\n"
    "result 1-0\n"
    "score 35 13\n"
    "end target\n"
    "plies 39\n"
    "\n";

START_TEST(the_format_to_the_letter) {
  char *text = NULL, err[256];
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_int_eq(record_write_header(f, NULL), 0);
  ck_assert_int_eq(record_write_header(f, "self-play"), 0);
  fclose(f);
  ck_assert_str_eq(text,
                   "# sowzero game records, format 1 (docs/FORMATS.md)\n\n"
                   "# sowzero game records, format 1 (docs/FORMATS.md): self-play\n\n");
  free(text);
  /* Read back: every field. */
  char *in = malloc(sizeof example + 64);
  snprintf(in, sizeof example + 64, "# a comment\n\n%s", example);
  f = fmemopen(in, strlen(in), "r");
  record *r = malloc(sizeof *r);
  int line = 0;
  ck_assert_int_eq(record_read(f, r, &line, err, sizeof err), 1);
  ck_assert_int_eq(line, 12);
  ck_assert_int_eq(r->number, 0);
  ck_assert_str_eq(r->south, "alphabeta depth=6");
  ck_assert_str_eq(r->north, "greedy");
  ck_assert_int_eq(r->open.n, 2);
  ck_assert_int_eq(r->open.moves[1], 4);
  ck_assert_int_eq(r->n_moves, 37);
  ck_assert_int_eq(r->moves[36], 5);
  ck_assert_str_eq(r->result, "1-0");
  ck_assert_str_eq(r->score, "35 13");
  ck_assert_str_eq(r->end, "target");
  ck_assert_int_eq(r->plies, 39);
  record *after = malloc(sizeof *after);
  ck_assert_int_eq(record_read(f, after, &line, err, sizeof err), 0);
  free(after);
  fclose(f);
  /* Replayed, and written again from the replay. */
  game g;
  arena_game *rec = calloc(1, sizeof *rec);
  ck_assert_msg(record_replay(r, &g, &rec->final, err, sizeof err) == 0, "%s", err);
  rec->number = r->number;
  rec->open = r->open;
  rec->n_moves = r->n_moves;
  memcpy(rec->moves, r->moves, (size_t)r->n_moves);
  f = open_memstream(&text, &len);
  ck_assert_int_eq(record_write(f, &g, rec, r->south, r->north), 0);
  fclose(f);
  ck_assert_str_eq(text, example);
  free(text);
  /* No opening and no moves are written as '-'. */
  configure("oware");
  memset(rec, 0, sizeof *rec);
  game_start(&G, &rec->final);
  rec->number = 7;
  f = open_memstream(&text, &len);
  ck_assert_int_eq(record_write(f, &G, rec, "random", "random"), 0);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(text, "game 7\n"));
  ck_assert_ptr_nonnull(strstr(text, "\nopening -\nmoves -\n"));
  free(text);
  free(rec);
  free(r);
  free(in);
}
END_TEST

/* Collects the records of a match, as the arena command does. */
typedef struct {
  char *text;
  size_t len;
  FILE *rec;
  const game *g;
} sink;

static void collect(const arena_game *rec, const arena_result *so_far, void *ud) {
  sink *s = ud;
  record_write(s->rec, s->g, rec, so_far->specs[rec->south], so_far->specs[rec->north]);
}

START_TEST(records_round_trip) {
  configure("warri"); /* extra turns in the move lists */
  const char *specs[] = {"random", "greedy"};
  arena_params p = arena_defaults();
  p.games = 10;
  p.openings = 2;
  p.book_depth = 2;
  sink *s = calloc(1, sizeof *s);
  s->rec = open_memstream(&s->text, &s->len);
  s->g = &G;
  arena_result *r = malloc(sizeof *r);
  char err[256];
  ck_assert_int_eq(arena_run(&G, 2, specs, &p, collect, s, r, err, sizeof err), 0);
  fclose(s->rec);
  FILE *f = fmemopen(s->text, s->len, "r");
  record *rec = malloc(sizeof *rec);
  int line = 0, n = 0, rc;
  game g2;
  game_pos end;
  while ((rc = record_read(f, rec, &line, err, sizeof err)) == 1) {
    ck_assert_msg(record_replay(rec, &g2, &end, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(g2.rules->name, "oware");
    ck_assert_int_eq(game_option_value(&g2, "grand_slam"), game_option_value(&G, "grand_slam"));
    ck_assert_int_eq(rec->open.n > 0, 1);
    n++;
  }
  ck_assert_int_eq(rc, 0);
  ck_assert_int_eq(n, 10);
  fclose(f);
  /* A changed move is caught on replay (or by the result check). */
  char *bad = strdup(s->text);
  char *mv = strstr(bad, "\nmoves ");
  ck_assert_ptr_nonnull(mv);
  mv[7] = mv[7] == '0' ? '1' : '0';
  f = fmemopen(bad, strlen(bad), "r");
  line = 0;
  ck_assert_int_eq(record_read(f, rec, &line, err, sizeof err), 1);
  ck_assert_int_eq(record_replay(rec, &g2, &end, err, sizeof err), -1);
  fclose(f);
  /* A malformed record names its line. */
  const char *broken =
      "game 1\nrules oware\nsouth random\nnorth random\nopening -\n"
      "moves x\n";
  f = fmemopen((void *)broken, strlen(broken), "r");
  line = 0;
  ck_assert_int_eq(record_read(f, rec, &line, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "line 6"));
  fclose(f);
  free(bad);
  free(rec);
  free(s->text);
  free(s);
  free(r);
}
END_TEST

/* Reads the one record of text: its return and message. */
static int read_text(const char *text, char *err, size_t errlen) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  record *r = malloc(sizeof *r);
  int line = 0, rc = record_read(f, r, &line, err, errlen);
  if (rc == 1) {
    game g;
    game_pos end;
    rc = record_replay(r, &g, &end, err, errlen) == 0 ? 1 : -1;
  }
  fclose(f);
  free(r);
  return rc;
}

START_TEST(broken_records_are_rejected) {
  char err[256], buf[sizeof example + 64];
  /* Cut short. */
  ck_assert_int_eq(read_text("game 0\nrules oware\n", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "ends early"));
  ck_assert_ptr_nonnull(strstr(err, "south"));
  /* A line out of order. */
  ck_assert_int_eq(read_text("game 0\nsouth random\n", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "line 2: expected 'rules'"));
  /* A key glued to more letters is another key. */
  ck_assert_int_eq(read_text("game 0\nrulesX\n", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "line 2: expected 'rules', got 'rulesX'"));
  ck_assert_int_eq(read_text("games 0\n", err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "line 1: expected 'game', got 'games 0'"));
  /* A result that is none. */
  snprintf(buf, sizeof buf, "%s", example);
  memcpy(strstr(buf, "result 1-0"), "result 2-0", 10);
  ck_assert_int_eq(read_text(buf, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "'result'"));
  /* A result the moves do not give. */
  snprintf(buf, sizeof buf, "%s", example);
  memcpy(strstr(buf, "result 1-0"), "result 0-1", 10);
  ck_assert_int_eq(read_text(buf, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "the record says 0-1"));
  /* Unknown rules. */
  snprintf(buf, sizeof buf, "%s", example);
  memcpy(strstr(buf, "rules oware"), "rules nogam", 11);
  ck_assert_int_eq(read_text(buf, err, sizeof err), -1);
  /* An empty file has no record, and that is not an error. */
  ck_assert_int_eq(read_text("", err, sizeof err), 0);
  ck_assert_int_eq(read_text("# only a comment\n\n", err, sizeof err), 0);
}
END_TEST

/* Numbers are read whole and in range, and a text field that does not fit
 * is refused rather than cut: each message names the line and the key. */
START_TEST(fields_are_read_whole) {
  static const char good[] =
      "game 3\nrules oware\nsouth random\nnorth random\nopening -\n"
      "moves -\nresult 1-0\nscore 1 0\nend famine\nplies 0\n";
  struct {
    const char *from, *to, *key;
  } cases[] = {
      {"game 3", "game 3x", "game"},
      {"game 3", "game -3", "game"},
      {"game 3", "game ", "game"},
      {"game 3", "game 99999999999", "game"},
      {"plies 0", "plies abc", "plies"},
      {"plies 0", "plies 1e3", "plies"},
      {"plies 0", "plies 2001", "plies"},
      {"plies 0", "plies  0", "plies"},
      {"score 1 0", "score 1234567890123456789012345678901234", "score"},
  };
  char text[1024], err[256];
  record *r = malloc(sizeof *r);
  FILE *f = fmemopen((void *)good, strlen(good), "r");
  int line = 0;
  ck_assert_msg(record_read(f, r, &line, err, sizeof err) == 1, "%s", err);
  ck_assert_int_eq(r->number, 3);
  fclose(f);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *at = strstr(good, cases[i].from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, cases[i].to,
             at + strlen(cases[i].from));
    f = fmemopen(text, strlen(text), "r");
    line = 0;
    ck_assert_msg(record_read(f, r, &line, err, sizeof err) == -1, "accepted '%s'", cases[i].to);
    char want[64];
    snprintf(want, sizeof want, "bad value for '%s'", cases[i].key);
    ck_assert_msg(strstr(err, want) != NULL, "'%s': %s", cases[i].to, err);
    fclose(f);
  }
  /* A player's spec longer than the field. */
  char spec[400];
  memset(spec, 'x', sizeof spec - 1);
  spec[sizeof spec - 1] = 0;
  const char *at = strstr(good, "random");
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, spec, at + 6);
  f = fmemopen(text, strlen(text), "r");
  line = 0;
  ck_assert_int_eq(record_read(f, r, &line, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "bad value for 'south'") != NULL, "%s", err);
  fclose(f);
  /* A line longer than any field allows: -1 (malformed), as documented,
   * with its line number. */
  char *big = malloc(40000);
  int n = snprintf(big, 40000, "%s", good);
  memset(big + n, 'x', 20000);
  big[n + 20000] = 0;
  f = fmemopen(big, strlen(big), "r");
  line = 0;
  ck_assert_int_eq(record_read(f, r, &line, err, sizeof err), 1);
  ck_assert_int_eq(record_read(f, r, &line, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "line too long") != NULL, "%s", err);
  fclose(f);
  free(big);
  free(r);
}
END_TEST

static Suite *record_suite(void) {
  Suite *s = suite_create("record");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, the_format_to_the_letter);
  tcase_add_test(t, records_round_trip);
  tcase_add_test(t, broken_records_are_rejected);
  tcase_add_test(t, fields_are_read_whole);
  suite_add_tcase(s, t);
  return s;
}

TEST_MAIN(record_suite)

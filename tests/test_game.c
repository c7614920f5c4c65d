/* The game registry, option parsing, INI configs and repetition history. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/ini.h"
#include "game/game.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "trainer/config.h"

static int configure_err(const char *name, const char *s1, const char *s2, char *err) {
  game g;
  char *sets[2] = {(char *)s1, (char *)s2};
  int n = s2 ? 2 : s1 ? 1 : 0;
  return game_configure(&g, name, n, sets, err, 256);
}

START_TEST(presets_set_grand_slam) {
  const struct {
    const char *preset, *gs;
  } want[] = {{"oware", "no_capture"},         {"abapa", "no_capture"},
              {"warri", "capture_continue"},   {"wari", "forbidden"},
              {"wari-es", "capture_continue"}, {"oware-cut", "capture_end"}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    game g;
    char err[256], opts[512];
    ck_assert_int_eq(game_configure(&g, want[i].preset, 0, NULL, err, sizeof err), 0);
    ck_assert_str_eq(g.preset, want[i].preset);
    game_options_string(&g, opts, sizeof opts);
    char needle[64];
    snprintf(needle, sizeof needle, "grand_slam=%s", want[i].gs);
    ck_assert_msg(strstr(opts, needle) != NULL, "%s: %s", want[i].preset, opts);
  }
}
END_TEST

START_TEST(options_override_presets) {
  game g;
  char err[256], *sets[] = {"grand_slam=loses", "houses=4", "target=9"};
  ck_assert_int_eq(game_configure(&g, "warri", 3, sets, err, sizeof err), 0);
  ck_assert_int_eq(game_option_value(&g, "houses"), 4);
  ck_assert_int_eq(g.n_actions, 4);
  ck_assert_int_eq(g.total_seeds, 32);
  ck_assert_int_eq(game_option_value(&g, "nonexistent"), -1);
  char opts[512];
  game_options_string(&g, opts, sizeof opts);
  ck_assert_str_eq(opts,
                   "houses=4 seeds=4 grand_slam=loses target=9 repetition=1 nocap_limit=0 "
                   "max_plies=1000 cycle_award=own_side feed_check=sow leftover=own_row "
                   "first_player=0");
}
END_TEST

START_TEST(option_errors_name_the_culprit) {
  char err[256];
  ck_assert_int_eq(configure_err("chess", NULL, NULL, err), -1);
  ck_assert_msg(!strncmp(err, "unknown game 'chess' (games: oware", 34) &&
                    strstr(err, "; presets: oware abapa warri wari wari-es oware-cut"),
                "%s", err);
  /* Oware with one or two settings: the message. */
  static const struct {
    const char *s1, *s2, *error;
  } cases[] = {
      {"colour=red", NULL,
       "unknown option 'colour' for game oware (options: houses, seeds, grand_slam, target, "
       "repetition, nocap_limit, max_plies, cycle_award, feed_check, leftover, first_player)"},
      {"grand_slam=sometimes", NULL,
       "bad value 'sometimes' for option grand_slam (one of: capture_continue, capture_end, "
       "forbidden, no_capture, loses, end_prior_only, stripped_loses)"},
      {"houses=9", NULL, "value 9 for option houses is out of range 2..8"},
      {"houses=six", NULL, "bad value 'six' for option houses (an integer 2..8)"},
      {"houses=", NULL, "bad value '' for option houses (an integer 2..8)"},
      {"houses", NULL, "bad setting 'houses' (expected key=value)"},
      {"=3", NULL, "bad setting '=3' (expected key=value)"},
      {"houses=2", "target=40", "target 40 is more than the 16 seeds in play"},
      /* Repeated options are refused, not "the last wins"; numbers are whole. */
      {"houses=3", "houses=4", "option houses given twice"},
      {"grand_slam=loses", "grand_slam=loses", "option grand_slam given twice"},
      {"houses= 3", NULL, "bad value ' 3' for option houses (an integer 2..8)"},
      {"houses=+3", NULL, "bad value '+3' for option houses (an integer 2..8)"},
      {"houses=0x3", NULL, "bad value '0x3' for option houses (an integer 2..8)"},
      {"houses=99999999999999999999", NULL,
       "bad value '99999999999999999999' for option houses (an integer 2..8)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(configure_err("oware", cases[i].s1, cases[i].s2, err), -1);
    ck_assert_str_eq(err, cases[i].error);
  }
}
END_TEST

/* Random garbage to the option parser: never a crash, always a message. */
START_TEST(option_parser_garbage) {
  rng_t r;
  rng_seed(&r, 3, 0);
  const char alphabet[] = "abcdefghijklmnopqrstuvwxyz_=0123456789- \t%s\xff";
  int rejected = 0;
  for (int i = 0; i < 20000; i++) {
    char s[40];
    int n = (int)rng_below(&r, 39);
    for (int k = 0; k < n; k++) s[k] = alphabet[rng_below(&r, sizeof alphabet - 1)];
    s[n] = 0;
    char err[256] = "";
    if (configure_err("oware", s, NULL, err) != 0) {
      CHECK(err[0] != 0, "no message for '%s'", s);
      rejected++;
    }
  }
  ck_assert_int_gt(rejected, 19000);
}
END_TEST

START_TEST(registry_lists_everything) {
  int games = 0, presets = 0;
  while (game_rules_at(games)) games++;
  const char *gname, *settings;
  while (game_preset_at(presets, &gname, &settings)) {
    game g;
    char err[256];
    ck_assert_int_eq(
        game_configure(&g, game_preset_at(presets, NULL, NULL), 0, NULL, err, sizeof err), 0);
    presets++;
  }
  ck_assert_int_ge(games, 1);
  ck_assert_int_eq(presets, 6);
  ck_assert_ptr_null(game_rules_at(games));
}
END_TEST

/* A move's name (k = 0) or its board label for mover (k = 1). */
static int move_text(const game *g, int k, int mover, int a, char *buf, size_t len) {
  return k ? game_move_label(g, mover, a, buf, len) : game_move_name(g, a, buf, len);
}

/* Each game's document (docs/games/NAME.md) tables every option as the
 * rules declare it: "lo..hi (default)" for an integer, the value names in
 * order with the default in bold for an enumeration. */
static void check_documented_option(const game_option *o, const char *table, const char *path) {
  char head[64];
  snprintf(head, sizeof head, "\n| `%s` | ", o->key);
  const char *row = strstr(table, head);
  ck_assert_msg(row != NULL, "%s has no row for option %s", path, o->key);
  row += strlen(head);
  char cell[512], want[512];
  size_t n = strcspn(row, "|");
  ck_assert(n > 1 && n < sizeof cell);
  snprintf(cell, sizeof cell, "%.*s", (int)(n - 1), row); /* without the space before | */
  if (!o->values) {
    snprintf(want, sizeof want, "%d..%d (%d)", o->min, o->max, o->def);
  } else {
    size_t at = 0;
    int v = 0;
    for (; o->values[v]; v++)
      at += (size_t)snprintf(want + at, sizeof want - at, v == o->def ? "%s**%s**" : "%s%s",
                             v ? ", " : "", o->values[v]);
    ck_assert_msg(o->min == 0 && o->max == v - 1, "option %s: range %d..%d for %d names", o->key,
                  o->min, o->max, v);
  }
  ck_assert_msg(!strcmp(cell, want), "%s, option %s: the document says '%s', the rules '%s'", path,
                o->key, cell, want);
}

START_TEST(documents_table_every_option) {
  for (int i = 0; game_rules_at(i); i++) {
    const game_rules *r = game_rules_at(i);
    char path[128], doc[1 << 16];
    snprintf(path, sizeof path, "docs/games/%s.md", r->name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s is missing", path);
    size_t len = fread(doc + 1, 1, sizeof doc - 2, f);
    fclose(f);
    doc[0] = '\n';
    doc[len + 1] = 0;
    const char *table = strstr(doc, "\n| option |");
    ck_assert_msg(table != NULL, "%s has no table of options", path);
    int n = 0;
    for (const game_option *o = r->options; o->key; o++, n++)
      check_documented_option(o, table, path);
    ck_assert_int_ge(n, 4);
  }
}
END_TEST

/* Every game's move names and board labels, for every action and both
 * movers, fit a buffer one byte longer than the text and are refused
 * (-1) by one of exactly its length: a caller never gets a cut name. */
START_TEST(move_names_fit_or_are_refused) {
  int games = 0;
  for (const game_rules *r; (r = game_rules_at(games)); games++) {
    game g;
    char err[256];
    ck_assert_msg(game_configure(&g, r->name, 0, NULL, err, sizeof err) == 0, "%s", err);
    for (int k = 0; k < 2; k++)
      for (int mover = 0; mover < 2; mover++)
        for (int a = 0; a < g.n_actions; a++) {
          char full[64], cut[64];
          ck_assert_msg(move_text(&g, k, mover, a, full, sizeof full) == 0 && full[0],
                        "%s: action %d", r->name, a);
          size_t n = strlen(full);
          int rc = move_text(&g, k, mover, a, cut, n);
          ck_assert_msg(rc == -1, "%s: action %d's text '%s' in %zu bytes: %d", r->name, a, full, n,
                        rc);
          ck_assert_int_eq(move_text(&g, k, mover, a, cut, n + 1), 0);
          ck_assert_str_eq(cut, full);
        }
  }
  ck_assert_int_ge(games, 5);
}
END_TEST

START_TEST(hist_counts_and_copies) {
  game g;
  char err[256];
  ck_assert_int_eq(game_configure(&g, "oware", 0, NULL, err, sizeof err), 0);
  game_pos p;
  game_start(&g, &p);
  game_hist *h = malloc(sizeof *h), *c = malloc(sizeof *c);
  game_hist_reset(h, &p);
  ck_assert_int_eq(h->len, 1);
  ck_assert_int_eq(game_hist_count(h, p.hash), 1);
  ck_assert_int_eq(game_hist_count(h, p.hash ^ 1), 0);
  game_step(&g, &p, h, 0);
  ck_assert_int_eq(h->len, 2);
  game_hist_copy(c, h);
  ck_assert_int_eq(c->len, 2);
  ck_assert_int_eq(game_hist_count(c, p.hash), 1);
  free(h);
  free(c);
}
END_TEST

/* The one random legal move of random agents, playouts and openings is
 * uniform over every legal action, the last one included. */
START_TEST(random_action_is_uniform) {
  static const game_moves masks[] = {0x1u, 0x21u, 0x3fu, 0x80000001u, 0xffffffffu, 0x5a5au};
  rng_t r;
  rng_seed(&r, 7, 0);
  for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
    int k = game_count(masks[i]), count[32] = {0}, draws = 4000 * k;
    for (int d = 0; d < draws; d++) {
      int a = game_random_action(&r, masks[i]);
      ck_assert_msg(a >= 0 && a < 32 && (masks[i] >> a & 1), "mask %x: action %d", masks[i], a);
      count[a]++;
    }
    /* 4000 expected each: 5 standard deviations is about 310. */
    for (int a = 0; a < 32; a++)
      if (masks[i] >> a & 1)
        ck_assert_msg(abs(count[a] - 4000) < 320, "mask %x: action %d drawn %d times of %d",
                      masks[i], a, count[a], draws);
  }
}
END_TEST

START_TEST(ini_reads_sections_and_comments) {
  ini f;
  char err[256];
  const char *text =
      "# comment\n[game]  # rules\nname = warri  # the preset\n; another\n"
      "grand_slam=forbidden\n\n[search]\nsims = 200\n";
  ck_assert_int_eq(ini_parse(&f, "x.ini", text, err, sizeof err), 0);
  ck_assert_int_eq(f.n, 3);
  ini_entry *e = ini_get(&f, "game", "name");
  ck_assert_str_eq(e->value, "warri");
  ck_assert_int_eq(e->line, 3);
  ck_assert_str_eq(ini_get(&f, "search", "sims")->value, "200");
  ck_assert_ptr_null(ini_get(&f, "search", "name"));
  const ini_entry *u = ini_first_unused(&f);
  ck_assert_str_eq(u->key, "grand_slam");
  ck_assert_int_eq(ini_set(&f, "search", "sims", "50", err, sizeof err), 0);
  ck_assert_str_eq(ini_get(&f, "search", "sims")->value, "50");
  /* Values a written file would read back as another: a comment after a
   * space or first of all, white space at an end, a control character. */
  static const char *const unkept[] = {"random ;greedy", ";greedy", "#x", "greedy ", "a\nb"};
  for (size_t i = 0; i < sizeof unkept / sizeof *unkept; i++) {
    ck_assert_int_eq(ini_set(&f, "eval", "anchors", unkept[i], err, sizeof err), -1);
    ck_assert_msg(strstr(err, "eval.anchors"), "%s", err);
  }
  ck_assert_int_eq(ini_set(&f, "eval", "anchors", "greedy;random", err, sizeof err), 0);
  ini_free(&f);
}
END_TEST

START_TEST(ini_errors_name_file_and_line) {
  ini f;
  char err[256];
  static const struct {
    const char *text, *error;
  } cases[] = {
      {"[game\nname=oware\n", "a.ini:1: bad section header '[game'"},
      {"[game]\nname oware\n", "a.ini:2: expected 'key = value', got 'name oware'"},
      {"[game]\nname=a\nname=b\n", "a.ini:3: key 'name' repeated in [game]"},
      {"[game]\n = 3\n", "a.ini:2: missing key before '='"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(ini_parse(&f, "a.ini", cases[i].text, err, sizeof err), -1);
    ck_assert_str_eq(err, cases[i].error);
  }
  ck_assert_int_eq(ini_load(&f, "/nonexistent/x.ini", err, sizeof err), -1);
  ck_assert_str_eq(err, "/nonexistent/x.ini: cannot open: No such file or directory");
}
END_TEST

/* A file is read whole however long (here 40 KiB of comments first). */
START_TEST(ini_loads_a_long_file) {
  char dir[512], path[600], err[256];
  scratch_dir(dir, sizeof dir, "ini");
  snprintf(path, sizeof path, "%s/long.ini", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  for (int i = 0; i < 500; i++)
    fprintf(f, "# %04d a comment line of eighty characters, more or less, to fill the file\n", i);
  fprintf(f, "[search]\nsims = 77\n");
  fclose(f);
  ini ini;
  ck_assert_msg(ini_load(&ini, path, err, sizeof err) == 0, "%s", err);
  ini_entry *e = ini_get(&ini, "search", "sims");
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(e->value, "77");
  ck_assert_int_eq(e->line, 502);
  ini_free(&ini);
  remove_tree(dir);
}
END_TEST

START_TEST(config_game_errors) {
  ini f;
  game g;
  char err[256];
  ck_assert_int_eq(ini_parse(&f, "c.ini", "[game]\nname = oware\nhouses = 12\n", err, sizeof err),
                   0);
  ck_assert_int_eq(config_game(&f, &g, err, sizeof err), -1);
  ck_assert_str_eq(err, "c.ini:3: game.houses: value 12 for option houses is out of range 2..8");
  ini_free(&f);
  ck_assert_int_eq(ini_parse(&f, "c.ini", "[game]\nname = go\n", err, sizeof err), 0);
  ck_assert_int_eq(config_game(&f, &g, err, sizeof err), -1);
  ck_assert_msg(strncmp(err, "c.ini:2: game.name: unknown game 'go'", 36) == 0, "%s", err);
  ini_free(&f);
  ck_assert_int_eq(ini_load(&f, "configs/oware.ini", err, sizeof err), 0);
  ck_assert_int_eq(config_game(&f, &g, err, sizeof err), 0);
  ck_assert_str_eq(g.rules->name, "oware");
  ini_free(&f);
}
END_TEST

static Suite *game_suite(void) {
  Suite *s = suite_create("game");
  add_tests(s, "registry", 0,
            (const TTest *[]){presets_set_grand_slam, options_override_presets,
                              option_errors_name_the_culprit, option_parser_garbage,
                              registry_lists_everything, documents_table_every_option,
                              move_names_fit_or_are_refused, hist_counts_and_copies,
                              random_action_is_uniform, NULL});
  add_tests(s, "config", 0,
            (const TTest *[]){ini_reads_sections_and_comments, ini_errors_name_file_and_line,
                              ini_loads_a_long_file, config_game_errors, NULL});
  return s;
}

TEST_MAIN(game_suite)

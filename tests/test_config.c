/* Configs: the shipped files, values and overrides, errors that name the
 * culprit (bad anchors included), and comparing two configs for a resume. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "base/ini.h"
#include "nn/nn.h"
#include "tests/testutil.h"
#include "trainer/config.h"

/* ---- Configs --------------------------------------------------------------------- */

static char cfg_path[256];

static const char *write_cfg(const char *text) {
  snprintf(cfg_path, sizeof cfg_path, "%s/sowzero-cfg-%d.ini", test_tmp(), (int)getpid());
  FILE *f = fopen(cfg_path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return cfg_path;
}

/* Loads text and returns the error message with the temporary path
 * replaced by "x.ini", or "" on success. */
static const char *cfg_error(const char *text, int n_over, char *const *over) {
  static char msg[1024];
  train_config c;
  char err[1024];
  const char *p = write_cfg(text);
  int rc = config_load(&c, p, n_over, over, err, sizeof err);
  if (rc == 0) return "";
  ck_assert_msg(rc == -1, "config_load returned %d, not -1: %s", rc, err); /* as config.h says */
  /* The file's name, wherever it is named, reads x.ini. */
  size_t k = 0;
  msg[0] = 0;
  for (const char *from = err, *at; k < sizeof msg; from = at + strlen(p)) {
    if (!(at = strstr(from, p))) {
      snprintf(msg + k, sizeof msg - k, "%s", from);
      break;
    }
    k += (size_t)snprintf(msg + k, sizeof msg - k, "%.*sx.ini", (int)(at - from), from);
  }
  return msg;
}

START_TEST(the_shipped_configs_load) {
  train_config c;
  char err[1024];
  ck_assert_msg(config_load(&c, "configs/oware.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_str_eq(c.g.rules->name, "oware");
  ck_assert_int_eq(c.search.noise, 1);
  ck_assert_msg(config_load(&c, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(config_load(&c, "configs/oware-variants.ini", 0, NULL, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(c.n_variants, 5);
  ck_assert_str_eq(c.variant[4].preset, "oware-cut");
  /* Every game's config, its anchors included, and each names its game. */
  static const char *const games[] = {"bao-kenya", "bao-laps", "kujifunza", "namnam"};
  for (size_t i = 0; i < sizeof games / sizeof *games; i++) {
    char path[64];
    snprintf(path, sizeof path, "configs/%s.ini", games[i]);
    ck_assert_msg(config_load(&c, path, 0, NULL, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(c.g.rules->name, games[i]);
    /* A ladder: alpha-beta and rollout MCTS among the anchors. */
    ck_assert_msg(strstr(c.anchors, "alphabeta depth=4") && strstr(c.anchors, "mcts sims="),
                  "%s: %s", path, c.anchors);
  }
}
END_TEST

START_TEST(values_and_overrides) {
  train_config c;
  char err[1024];
  const char *p = write_cfg(
      "[network]\nhidden = 32\nblocks = 1\n[search]\nsims = 50\n"
      "[gating]\nmode = threshold\n[run]\nseed = 99\n");
  char *over[] = {"learner.lr=0.01", "search.c_puct=2.5", "game.grand_slam=forbidden"};
  ck_assert_msg(config_load(&c, p, 3, over, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(c.hidden, 32);
  ck_assert_int_eq(c.blocks, 1);
  ck_assert_int_eq(c.search.sims, 50);
  ck_assert_float_eq(c.search.c_puct, 2.5f);
  ck_assert_float_eq(c.lr, 0.01f);
  ck_assert_int_eq(c.gating, GATE_THRESHOLD);
  ck_assert_uint_eq(c.seed, 99);
  ck_assert_int_eq(game_option_value(&c.g, "grand_slam"), 2);
  /* The resolved config reads back to the same settings. */
  char path2[300];
  snprintf(path2, sizeof path2, "%s.resolved", p);
  FILE *f = fopen(path2, "w");
  ck_assert_int_eq(config_write(&c, f), 0);
  fclose(f);
  train_config d;
  ck_assert_msg(config_load(&d, path2, 0, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(d.hidden, 32);
  ck_assert_float_eq(d.search.c_puct, 2.5f);
  ck_assert_float_eq(d.lr, 0.01f);
  ck_assert_int_eq(memcmp(&c.search, &d.search, sizeof c.search), 0);
  ck_assert_int_eq(memcmp(c.g.opt, d.g.opt, sizeof c.g.opt), 0);
  remove(path2);
  remove(p);
}
END_TEST

/* A config of several variants, written resolved, reads back to the same
 * variants: every option of every variant (numbers and named values), and
 * their weights; with one variant's numeric option changed by an override
 * so that shared and per-variant options both appear. */
START_TEST(variants_write_and_read_back) {
  train_config c, d;
  char err[1024], path[300];
  char *over[] = {"game.max_plies=777"};
  ck_assert_msg(config_load(&c, "configs/oware-variants.ini", 1, over, err, sizeof err) == 0, "%s",
                err);
  snprintf(path, sizeof path, "%s/sowzero-cfgv-%d.ini", test_tmp(), (int)getpid());
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(config_write(&c, f), 0);
  fclose(f);
  ck_assert_msg(config_load(&d, path, 0, NULL, err, sizeof err) == 0, "%s", err);
  remove(path);
  ck_assert_int_eq(d.n_variants, c.n_variants);
  for (int k = 0; k < c.n_variants; k++) {
    ck_assert_str_eq(d.variant[k].rules->name, c.variant[k].rules->name);
    ck_assert_float_eq(d.variant_weight[k], c.variant_weight[k]);
    for (int i = 0; c.variant[k].rules->options[i].key; i++)
      ck_assert_msg(d.variant[k].opt[i] == c.variant[k].opt[i],
                    "variant %d option %s: %d written, %d read back", k,
                    c.variant[k].rules->options[i].key, c.variant[k].opt[i], d.variant[k].opt[i]);
  }
  ck_assert_int_eq(game_option_value(&d.variant[0], "max_plies"), 777);
}
END_TEST

START_TEST(bad_configs_name_the_culprit) {
  int fds = test_open_fds();
  ck_assert_str_eq(cfg_error("[network]\nwidth = 3\n", 0, NULL),
                   "x.ini:2: network.width: unknown key (known in [network]: hidden, blocks, "
                   "precision)");
  ck_assert_str_eq(cfg_error("[network]\nprecision = fp16\n", 0, NULL),
                   "x.ini:2: network.precision: bad value 'fp16' (one of: auto, fp32, bf16, int8)");
  ck_assert_str_eq(cfg_error("[network]\nhidden = wide\n", 0, NULL),
                   "x.ini:2: network.hidden: bad value 'wide' (an integer 8..4096)");
  ck_assert_str_eq(cfg_error("[learner]\nbatch = 2.5\n", 0, NULL),
                   "x.ini:2: learner.batch: bad value '2.5' (an integer 1..8192)");
  ck_assert_str_eq(cfg_error("\n[replay]\nwindow = 10\n", 0, NULL),
                   "x.ini:3: replay.window: bad value '10' (an integer 256..50000000)");
  ck_assert_str_eq(cfg_error("[gating]\nmode = maybe\n", 0, NULL),
                   "x.ini:2: gating.mode: bad value 'maybe' (one of: off, threshold, sprt)");
  ck_assert_str_eq(cfg_error("[nets]\nhidden = 3\n", 0, NULL),
                   "x.ini:2: nets.hidden: unknown section [nets] (sections: game network search "
                   "selfplay replay learner gating eval egdb run)");
  ck_assert_str_eq(cfg_error("hidden = 3\n", 0, NULL), "x.ini:1: key 'hidden' outside any section");
  ck_assert_str_eq(cfg_error("[game]\ngrand_slam = often\n", 0, NULL),
                   "x.ini:2: game.grand_slam: bad value 'often' for option grand_slam (one of: "
                   "capture_continue, capture_end, forbidden, no_capture, loses, end_prior_only, "
                   "stripped_loses)");
  ck_assert_int_eq(
      strncmp(cfg_error("[search]\nsimz = 3\n", 0, NULL),
              "x.ini:2: search.simz: unknown key (known in [search]: sims, c_puct, ", 68),
      0);
  ck_assert_str_eq(cfg_error("[search]\nsims = 1e3\n", 0, NULL),
                   "x.ini:2: search.sims: bad value '1e3' (an integer 1..100000000)");
  ck_assert_str_eq(cfg_error("[search]\ngumbel = 2\n", 0, NULL),
                   "x.ini:2: search.gumbel: bad value '2' (0 or 1)");
  ck_assert_str_eq(cfg_error("[run]\nseed = -1\n", 0, NULL),
                   "x.ini:2: run.seed: bad value '-1' (an integer 0..18446744073709551615)");
  ck_assert_str_eq(cfg_error("[replay]\nwindow = 1000\nmin_samples = 2000\n", 0, NULL),
                   "replay.min_samples 2000 (x.ini:3) is more than replay.window 1000 (x.ini:2)");
  char *bad_over[] = {"learner.lr"};
  ck_assert_str_eq(cfg_error("", 1, bad_over),
                   "bad override 'learner.lr' (expected section.key=value)");
  char *bad_over2[] = {"learner.lr=fast"};
  ck_assert_str_eq(cfg_error("", 1, bad_over2),
                   "--set learner.lr=fast: learner.lr: bad value 'fast' (a number 0..10)");
  train_config c;
  char err[512];
  ck_assert_int_eq(config_load(&c, "/nonexistent/c.ini", 0, NULL, err, sizeof err), -1);
  ck_assert_str_eq(err, "/nonexistent/c.ini: cannot open: No such file or directory");
  remove(cfg_path);
  ck_assert_int_eq(test_open_fds(), fds); /* nothing left open */
}
END_TEST

/* precision: the three values in nn_precision order; bf16 where the CPU
 * lacks it (simulated) is refused naming file, line and key, or the
 * override; auto and fp32 load anywhere. */
START_TEST(precision_setting) {
  train_config c;
  char err[1024];
  const char *names[] = {"auto", "fp32", "bf16"};
  const nn_precision want[] = {NN_PRECISION_AUTO, NN_PRECISION_FP32, NN_PRECISION_BF16};
  config_defaults(&c);
  ck_assert_int_eq(c.precision, NN_PRECISION_AUTO);
  for (int i = 0; i < 3; i++) {
    if (want[i] == NN_PRECISION_BF16 && !nn_bf16_supported()) continue;
    char text[64];
    snprintf(text, sizeof text, "[network]\nprecision = %s\n", names[i]);
    ck_assert_msg(config_load(&c, write_cfg(text), 0, NULL, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(c.precision, want[i]);
  }
  nn_bf16_allow(0);
  ck_assert_str_eq(cfg_error("[run]\nseed = 3\n[network]\nprecision = bf16\n", 0, NULL),
                   "x.ini:4: network.precision: bf16 needs a CPU with AVX512_BF16, which this one "
                   "lacks (auto and fp32 run anywhere)");
  char *over[] = {"network.precision=bf16"};
  ck_assert_str_eq(cfg_error("", 1, over),
                   "--set network.precision=bf16: network.precision: bf16 needs a CPU with "
                   "AVX512_BF16, which this one lacks (auto and fp32 run anywhere)");
  ck_assert_str_eq(cfg_error("[network]\nprecision = auto\n", 0, NULL), "");
  nn_bf16_allow(1);
  /* A resume may change it: it belongs to the machine, not the run. */
  ck_assert_int_eq(config_resumable("network.precision"), 1);
  remove(cfg_path);
}
END_TEST

/* Rules between keys hold for the final values, whatever mix of file and
 * overrides set them, and a refusal names where each value came from. */
START_TEST(overrides_checked_together) {
  const char *text = "[replay]\nwindow = 60000\nmin_samples = 1024\n[learner]\nbatch = 256\n";
  char *both[] = {"learner.batch=2048", "replay.min_samples=4096"};
  char *both_rev[] = {"replay.min_samples=4096", "learner.batch=2048"};
  ck_assert_str_eq(cfg_error(text, 2, both), "");
  ck_assert_str_eq(cfg_error(text, 2, both_rev), "");
  char *one[] = {"learner.batch=2048"};
  ck_assert_str_eq(cfg_error(text, 1, one),
                   "replay.min_samples 1024 (x.ini:3) is less than one batch: learner.batch 2048 "
                   "(--set learner.batch=2048)");
  /* A file that breaks a rule, mended by an override. */
  char *mend[] = {"replay.window=5000"};
  ck_assert_str_eq(cfg_error("[replay]\nwindow = 1000\nmin_samples = 2000\n", 1, mend), "");
  char *low[] = {"replay.min_samples=300000"};
  ck_assert_str_eq(cfg_error("[learner]\nbatch = 64\n", 1, low),
                   "replay.min_samples 300000 (--set replay.min_samples=300000) is more than "
                   "replay.window 200000 (default)");
  /* Game options set by an override are located by it, never at line 0. */
  char *slam[] = {"game.grand_slam=often"};
  ck_assert_str_eq(
      cfg_error("[game]\nname = oware\n", 1, slam),
      "--set game.grand_slam=often: game.grand_slam: bad value 'often' for option "
      "grand_slam (one of: capture_continue, capture_end, forbidden, no_capture, loses, "
      "end_prior_only, stripped_loses)");
  /* Game options that constrain each other: each named where it was set. */
  char *seeds[] = {"game.seeds=3"};
  ck_assert_str_eq(cfg_error("[game]\nname = oware\ntarget = 40\n", 1, seeds),
                   "x.ini: [game]: target 40 is more than the 36 seeds in play; set: name=oware "
                   "(x.ini:2), target=40 (x.ini:3), seeds=3 (--set game.seeds=3)");
  char *mended[] = {"game.seeds=4"};
  ck_assert_str_eq(cfg_error("[game]\nname = oware\ntarget = 40\nseeds = 3\n", 1, mended), "");
  /* A variant set and its weights, both overridden, are read together. */
  const char *set = "[game]\nvariants = abapa; warri; wari\nvariant_weights = 1 1 1\n";
  char *vw[] = {"game.variants=abapa; wari", "game.variant_weights=1 3"};
  char *wv[] = {"game.variant_weights=1 3", "game.variants=abapa; wari"};
  ck_assert_str_eq(cfg_error(set, 2, vw), "");
  ck_assert_str_eq(cfg_error(set, 2, wv), "");
  char *w_only[] = {"game.variant_weights=1 3"};
  ck_assert_str_eq(cfg_error(set, 1, w_only),
                   "--set game.variant_weights=1 3: game.variant_weights: 2 weights for 3 variants "
                   "(game.variants: x.ini:2)");
  char *v_only[] = {"game.variants=abapa; wari"};
  ck_assert_str_eq(cfg_error(set, 1, v_only),
                   "x.ini:3: game.variant_weights: 3 weights for 2 variants (game.variants: --set "
                   "game.variants=abapa; wari)");
  remove(cfg_path);
}
END_TEST

START_TEST(bad_anchors_fail_at_load) {
  /* An anchor that is no agent fails when the config is read, naming
   * file, line, key and the anchor, not at the first evaluation. */
  ck_assert_str_eq(
      cfg_error("[eval]\nevery = 1\nanchors = random;alphabeta depht=4\n", 0, NULL),
      "x.ini:3: eval.anchors: anchor 'alphabeta depht=4': agent alphabeta: unknown "
      "setting 'depht' (known: depth, time, tt, w_store, w_seeds, w_mobility, margins, egdb, "
      "egdb_seeds)");
  ck_assert_str_eq(cfg_error("[eval]\nanchors = greedy; minimax\n", 0, NULL),
                   "x.ini:2: eval.anchors: anchor 'minimax': unknown agent 'minimax' (known: "
                   "random, greedy, alphabeta, mcts, zero, net, egdb)");
  ck_assert_str_eq(cfg_error("[eval]\nanchors = zero weights=/nonexistent/best.weights\n", 0, NULL),
                   "x.ini:2: eval.anchors: anchor 'zero weights=/nonexistent/best.weights': "
                   "/nonexistent/best.weights: cannot open: No such file or directory");
  char *over[] = {"eval.anchors=random;alphabeta depth=x"};
  ck_assert_str_eq(cfg_error("[eval]\nanchors = random\n", 1, over),
                   "--set eval.anchors=random;alphabeta depth=x: eval.anchors: anchor 'alphabeta "
                   "depth=x': agent alphabeta: bad value 'x' for depth (an integer 1..64)");
  /* Good lists, spaces and empty entries included, and no anchors. */
  ck_assert_str_eq(cfg_error("[eval]\nanchors = random; greedy;;alphabeta depth=2\n", 0, NULL), "");
  ck_assert_str_eq(cfg_error("[eval]\nanchors =\n", 0, NULL), "");
  remove(cfg_path);
}
END_TEST

/* The one splitter of eval.anchors, which the load's check and the
 * evaluation both use: at ';', leading spaces dropped, empty ones skipped. */
START_TEST(anchors_split_in_order) {
  train_config c;
  config_defaults(&c);
  config_anchor_list l;
  snprintf(c.anchors, sizeof c.anchors, "%s", " random;; greedy ;  ;alphabeta depth=2");
  config_anchors(&c, &l);
  ck_assert_int_eq(l.n, 3);
  ck_assert_str_eq(l.name[0], "random");
  ck_assert_str_eq(l.name[1], "greedy ");
  ck_assert_str_eq(l.name[2], "alphabeta depth=2");
  c.anchors[0] = 0;
  config_anchors(&c, &l);
  ck_assert_int_eq(l.n, 0);
  /* The longest list of one-letter anchors fits. */
  memset(c.anchors, 0, sizeof c.anchors);
  for (size_t i = 0; i + 1 < sizeof c.anchors; i++) c.anchors[i] = i % 2 ? ';' : 'a';
  config_anchors(&c, &l);
  ck_assert_int_eq(l.n, (int)sizeof c.anchors / 2);
}
END_TEST

/* config_compare of tiny.ini with and without the overrides. */
static int compare_with(int n_over, char *const *over, config_diff *d) {
  train_config a, b;
  char err[1024];
  ck_assert_msg(config_load(&a, "configs/tiny.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(config_load(&b, "configs/tiny.ini", n_over, over, err, sizeof err) == 0, "%s", err);
  return config_compare(&a, &b, d);
}

/* docs/CONFIG.md shows every key with its default as config_describe
 * prints it: its block must be that output, line for line, so that a
 * default changed in the code (or in the document) alone is seen. */
START_TEST(the_documented_keys_are_the_described_ones) {
  FILE *doc = fopen("docs/CONFIG.md", "r");
  ck_assert_ptr_nonnull(doc);
  FILE *out = tmpfile();
  ck_assert_ptr_nonnull(out);
  config_describe(out);
  rewind(out);
  char want[512], got[512];
  int in_block = 0, lines = 0;
  while (fgets(want, sizeof want, doc)) {
    if (!strncmp(want, "```", 3)) {
      if (in_block) break;
      in_block = 1;
      continue;
    }
    if (!in_block) continue;
    lines++;
    ck_assert_msg(fgets(got, sizeof got, out) != NULL, "docs/CONFIG.md has more lines: %s", want);
    ck_assert_msg(!strcmp(want, got),
                  "docs/CONFIG.md line %d of the block:\n  %s  but the code says\n  %s", lines,
                  want, got);
  }
  ck_assert_msg(fgets(got, sizeof got, out) == NULL, "docs/CONFIG.md lacks: %s", got);
  ck_assert_int_gt(lines, 50);
  fclose(out);
  fclose(doc);
}
END_TEST

START_TEST(configs_compare_key_by_key) {
  config_diff d;
  ck_assert_int_eq(compare_with(0, NULL, &d), 0);
  /* What a resume may change. */
  char *budget[] = {"run.minutes=600", "run.iterations=7", "selfplay.threads=2"};
  ck_assert_int_eq(compare_with(3, budget, &d), 0);
  ck_assert(config_resumable("run.minutes") && config_resumable("selfplay.threads"));
  ck_assert(!config_resumable("network.hidden") && !config_resumable("run.seed"));
  /* Anything else, the first differing key in file order, with both values. */
  char *net[] = {"run.minutes=600", "learner.lr=0.01", "network.hidden=64"};
  ck_assert_int_eq(compare_with(3, net, &d), 1);
  ck_assert_str_eq(d.key, "network.hidden");
  ck_assert_str_eq(d.a, "48");
  ck_assert_str_eq(d.b, "64");
  char *lr[] = {"learner.lr=0.01"};
  ck_assert_int_eq(compare_with(1, lr, &d), 1);
  ck_assert_str_eq(d.key, "learner.lr");
  ck_assert_str_eq(d.a, "0.00300000003");
  ck_assert_str_eq(d.b, "0.00999999978");
  char *rule[] = {"search.sims=30", "game.grand_slam=forbidden"};
  ck_assert_int_eq(compare_with(2, rule, &d), 1);
  ck_assert_str_eq(d.key, "game.grand_slam");
  ck_assert_str_eq(d.a, "no_capture");
  ck_assert_str_eq(d.b, "forbidden");
  char *anchors[] = {"eval.anchors=random"};
  ck_assert_int_eq(compare_with(1, anchors, &d), 1);
  ck_assert_str_eq(d.key, "eval.anchors");
  /* Another game. */
  train_config a, b;
  char err[1024];
  ck_assert_int_eq(config_load(&a, "configs/tiny.ini", 0, NULL, err, sizeof err), 0);
  ck_assert_msg(config_load(&b, "configs/namnam.ini", 0, NULL, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(config_compare(&a, &b, &d), 1);
  ck_assert_str_eq(d.key, "game.name");
  ck_assert_str_eq(d.a, "oware");
  ck_assert_str_eq(d.b, "namnam");
}
END_TEST

/* An INI text ends at its NUL, with or without a last newline: what lies
 * after it in memory is never read (a copy of exactly its size shows a
 * read past it under AddressSanitizer). */
START_TEST(an_ini_text_ends_at_its_end) {
  static const char text[] = "[a]\nx = 1\0[b]\ny = 2\n";
  char err[256];
  for (int exact = 0; exact < 2; exact++) {
    size_t n = exact ? strlen(text) + 1 : sizeof text;
    char *copy = malloc(n);
    memcpy(copy, text, n);
    ini f;
    ck_assert_msg(ini_parse(&f, "t.ini", copy, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(f.n, 1);
    ini_entry *e = ini_get(&f, "a", "x");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->value, "1");
    ck_assert_ptr_null(ini_get(&f, "b", "y"));
    ini_free(&f);
    free(copy);
  }
}
END_TEST

Suite *config_suite(void) {
  Suite *s = suite_create("config");
  TCase *c = tcase_create("config");
  tcase_add_test(c, the_shipped_configs_load);
  tcase_add_test(c, values_and_overrides);
  tcase_add_test(c, variants_write_and_read_back);
  tcase_add_test(c, bad_configs_name_the_culprit);
  tcase_add_test(c, bad_anchors_fail_at_load);
  tcase_add_test(c, anchors_split_in_order);
  tcase_add_test(c, precision_setting);
  tcase_add_test(c, overrides_checked_together);
  tcase_add_test(c, configs_compare_key_by_key);
  tcase_add_test(c, the_documented_keys_are_the_described_ones);
  tcase_add_test(c, an_ini_text_ends_at_its_end);
  suite_add_tcase(s, c);
  return s;
}

TEST_MAIN(config_suite)

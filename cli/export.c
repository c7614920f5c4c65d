/* `sowzero export`: a trained network as ONNX or JSON for other front ends.
 *
 * The weight file is checked against the game it names as this build
 * configures it (rule options, encoding version, feature and action counts),
 * so an exported model never carries a description that does not fit it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "game/game.h"
#include "nn/nn.h"
#include "export/export.h"
#include "search/evaluator_nn.h"

/* How each game's positions become features and how its actions are
 * numbered, one line each for the exported metadata (the long form is
 * docs/ENCODING.md), for the encoding version they describe. A game or
 * version missing here gets a generic line. */
static const struct {
  const char *game;
  int encoding;
  const char *encoding_text;
  const char *actions;
} game_texts[] = {
    {"oware", 1,
     "10*houses+4 floats from the mover's view: for each pit, the mover's row first and "
     "counter-clockwise from his leftmost pit, count/8, count==0, count==1, count==2, "
     "count>=2*houses-1; then mover's store/target, opponent's store/target, "
     "min(1, plies since the last capture / (nocap_limit or 100)), ply/max_plies "
     "(docs/ENCODING.md#oware)",
     "mover-relative: action a = sow the mover's pit a counted from his own left, "
     "a = 0..houses-1 (South: absolute pit a; North: absolute pit houses+a; absolute pits "
     "run counter-clockwise from South's left)"},
    {"namnam", 1,
     "85 floats from the mover's view: for each of the 12 pits counter-clockwise from the "
     "mover's starting row, count/8, count==0..3, owned by the mover; then 13 round and "
     "clock features (docs/ENCODING.md#oware-nam-nam)",
     "mover-relative: action a = absolute pit (a + 6*mover) mod 12 (South: pit a; North: pit "
     "(a+6) mod 12): sow that pit, or in the claim phase claim that opponent-row pit"},
    {"bao-kenya", 1,
     "67 floats from the mover's view: for each of the 16 pits, his row first, each row from "
     "its owner's left, count/8, count==0, count==1, where a sowing from it ends (1 own "
     "store, 0.5 empty own pit, else 0; mover's pits only); then both stores/target, "
     "ply/max_plies (docs/ENCODING.md#bao-for-kenyan-children)",
     "mover-relative: action a = sow the mover's pit a counted from his own left, a = 0..7 "
     "(South: pit a; North: pit 8+a)"},
    {"bao-laps", 1,
     "68 floats from the mover's view: for each of the 16 pits, his row first, each row from "
     "its owner's left, count/4, count==0, count==1, count==2; then both captures/target, "
     "min(1, plies since the last capture / (nocap_limit or 100)), ply/max_plies "
     "(docs/ENCODING.md#bao-kenyan-with-laps)",
     "mover-relative: action a = sow the mover's pit a counted from his own left, a = 0..7 "
     "(South: pit a; North: pit 8+a)"},
    {"kujifunza", 1,
     "131 floats from the mover's view: his 16 pits then the opponent's, each in its owner's "
     "loop order, count/8, count==0, count==1, is a capture (mtaji) start; then the mover's "
     "share of the 64 kete, his front row holds a 2+ pit, ply/max_plies "
     "(docs/ENCODING.md#bao-la-kujifunza)",
     "mover-relative: action a = l + 16*d: l = the mover's loop index (0-7 his back row from "
     "his left, 8-15 his front row from his right), d = 0 counter-clockwise, 1 clockwise; "
     "named b<col>|f<col> then ccw|cw, columns from the mover's left"},
};

typedef struct {
  char format[64];
  char out[CLI_PATH_MAX];
} export_opts;

static const kv_key export_keys[] = {
    KV_S("format", export_opts, format, NULL, "onnx|json  the file's format (docs/FORMATS.md)"),
    KV_S("out", export_opts, out, NULL, "FILE  the file to write"),
};
static const kv_table export_table = KV_TABLE(export_keys);

int cmd_export(int argc, char **argv) {
  export_opts o;
  memset(&o, 0, sizeof o);
  char *pos[1];
  cli_cmd c = {.name = "export",
               .synopsis = "export RUN_OR_WEIGHTS --format onnx|json --out FILE",
               .about =
                   "  Writes a network for other front ends: a run directory (its "
                   "best.weights) or a\n  .weights file, as an ONNX model or as JSON "
                   "(docs/FORMATS.md). The file is\n  checked against its game first; the "
                   "page in web/ plays Oware with the ONNX.\n",
               .opts = &export_table,
               .base = &o,
               .pos_name = "RUN_OR_WEIGHTS",
               .min_pos = 1,
               .max_pos = 1,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  if (!cli_given(&c, "format") || !cli_given(&c, "out"))
    return cli_fail(&c, 2, "missing %s (usage: sowzero %s)",
                    cli_given(&c, "format") ? "--out FILE" : "--format onnx|json", c.synopsis);
  const char *src = pos[0], *out = o.out;
  int onnx = !strcmp(o.format, "onnx");
  if (!onnx && strcmp(o.format, "json"))
    return cli_fail(&c, 2, "--format: unknown format '%s' (onnx or json)", o.format);

  /* A run directory stands for its best network. */
  char path[CLI_PATH_MAX];
  struct stat st;
  if (stat(src, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (cli_path(path, sizeof path, src, "best.weights"))
      return cli_fail(&c, 2, "the run directory's name is too long (%zu characters)", strlen(src));
    if (stat(path, &st) != 0)
      return cli_fail(&c, 1, "%s: no best.weights in this run directory (%s)", src,
                      strerror(errno));
  } else {
    if (strlen(src) >= sizeof path)
      return cli_fail(&c, 2, "the file name is too long (%zu characters)", strlen(src));
    snprintf(path, sizeof path, "%s", src);
  }

  char err[1024];
  nn_meta meta;
  nn_net *net = nn_load(path, NULL, &meta, err, sizeof err);
  if (!net) return cli_fail(&c, 1, "%s", err);
  nn_free(net);

  /* The game as this build configures it from the file's own settings. */
  game g;
  if (cli_meta_game(path, meta.game, meta.rules, &g, err, sizeof err) != 0)
    return cli_fail(&c, 1, "%s", err);
  net = mcts_nn_load(&g, path, MCTS_NN_OWN_RULES, err, sizeof err);
  if (!net) return cli_fail(&c, 1, "%s", err);
  nn_meta want;
  if (mcts_nn_meta(&g, &want, err, sizeof err) != 0) {
    nn_free(net);
    return cli_fail(&c, 1, "%s", err);
  }
  snprintf(want.rules, sizeof want.rules, "%s", meta.rules); /* the whole variant set */

  const char *encoding = NULL, *actions = NULL;
  for (size_t i = 0; i < sizeof game_texts / sizeof game_texts[0]; i++)
    if (!strcmp(game_texts[i].game, g.rules->name) &&
        game_texts[i].encoding == (g.encoding_version & ~GAME_ENCODING_RULES)) {
      encoding = game_texts[i].encoding_text;
      actions = game_texts[i].actions;
    }
  char enc_buf[512], act_buf[128];
  if (encoding && g.rule_inputs) {
    snprintf(enc_buf, sizeof enc_buf, "%s; then %d rule inputs (docs/ENCODING.md, Rule inputs)",
             encoding, g.rule_inputs);
    encoding = enc_buf;
  }
  if (!encoding) {
    snprintf(enc_buf, sizeof enc_buf,
             "%d floats from the mover's view, encoding version %d of %s "
             "(docs/ENCODING.md)",
             g.n_features, g.encoding_version, g.rules->name);
    encoding = enc_buf;
    snprintf(act_buf, sizeof act_buf, "mover-relative: action a = 0..%d (docs/ENCODING.md)",
             g.n_actions - 1);
    actions = act_buf;
  }

  export_info info = {&want, encoding, actions, "sowzero export 1"};
  int rc = onnx ? export_onnx(net, &info, out, err, sizeof err)
                : export_json(net, &info, out, err, sizeof err);
  if (rc != 0) {
    nn_free(net);
    return cli_fail(&c, 1, "%s", err);
  }
  nn_config k = nn_config_of(net);
  char shape[64];
  nn_shape_string(&k, shape, sizeof shape);
  printf("%s: %s network %s for %s (%s), from %s\n", out, onnx ? "ONNX" : "JSON", shape,
         g.rules->name, want.rules, path);
  nn_free(net);
  return 0;
}

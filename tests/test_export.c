/* Exports: the ONNX model read back field by field with protobuf-c (graph,
 * every initializer byte, metadata), the JSON numbers read back bit-exact,
 * refusals of what cannot be exported, and `sowzero export` on corrupt and
 * mismatched weight files. That the models compute what the C network
 * computes is checked in real runtimes by `make test-export`. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "game/game.h"
#include "nn/nn.h"
#include "export/export.h"
#include "onnx/onnx.pb-c.h"
#include "search/evaluator_nn.h"
#include "tests/testkit.h"
#include "tests/testutil.h"

static char dir[256];
/* A path in the test folder; each call gets its own buffer (a test uses
 * fewer than 64). */
static char paths[64][512];
static int n_paths;

static void setup(void) {
  n_paths = 0;
  scratch_dir(dir, sizeof dir, "export");
}

static void teardown(void) { remove_tree(dir); }

static const char *in_dir(const char *name) {
  ck_assert_int_lt(n_paths, 64);
  char *b = paths[n_paths++];
  snprintf(b, sizeof paths[0], "%s/%s", dir, name);
  return b;
}

/* A small net with non-zero biases, so every tensor carries information. */
static nn_net *small_net(int n_in, int hidden, int blocks, int n_actions) {
  nn_config c = {n_in, hidden, blocks, n_actions};
  char err[256];
  nn_net *n = nn_create(&c, 42, err, sizeof err);
  ck_assert_msg(n != NULL, "%s", err);
  float *p = nn_params_mut(n);
  for (int t = 0; t < nn_tensor_count(n); t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    if (d->rows == 1)
      for (int j = 0; j < d->cols; j++)
        p[d->offset + (size_t)j] = 0.01f * (float)(j + 3 * t) - 0.2f;
  }
  return n;
}

static nn_meta test_meta(int n_in, int n_actions) {
  nn_meta m;
  memset(&m, 0, sizeof m);
  snprintf(m.game, sizeof m.game, "testgame");
  snprintf(m.rules, sizeof m.rules, "size=3 \"quoted\" back\\slash");
  m.encoding = 3;
  m.n_features = n_in;
  m.n_actions = n_actions;
  return m;
}

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  ck_assert(b != NULL);
  ck_assert_int_eq(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  b[n] = 0;
  *len = (size_t)n;
  return b;
}

static const char *prop(const Onnx__ModelProto *m, const char *key) {
  for (size_t i = 0; i < m->n_metadata_props; i++)
    if (!strcmp(m->metadata_props[i]->key, key)) return m->metadata_props[i]->value;
  return NULL;
}

static void check_value_info(const Onnx__ValueInfoProto *v, const char *name, int cols) {
  ck_assert_str_eq(v->name, name);
  ck_assert_int_eq(v->type->value_case, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
  const Onnx__TypeProto__Tensor *t = v->type->tensor_type;
  ck_assert_int_eq(t->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  ck_assert_int_eq(t->shape->n_dim, 2);
  ck_assert_int_eq(t->shape->dim[0]->value_case,
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
  ck_assert_str_eq(t->shape->dim[0]->dim_param, "batch");
  ck_assert_int_eq(t->shape->dim[1]->value_case,
                   ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
  ck_assert_int_eq(t->shape->dim[1]->dim_value, cols);
}

/* Node k: op type, inputs and outputs (NULL-terminated lists). */
static void check_node(const Onnx__GraphProto *g, size_t k, const char *op, const char *const *in,
                       const char *const *out) {
  ck_assert_uint_lt(k, g->n_node);
  const Onnx__NodeProto *nd = g->node[k];
  ck_assert_str_eq(nd->op_type, op);
  size_t i = 0;
  for (; in[i]; i++) {
    ck_assert_uint_lt(i, nd->n_input);
    ck_assert_str_eq(nd->input[i], in[i]);
  }
  ck_assert_uint_eq(nd->n_input, i);
  for (i = 0; out[i]; i++) {
    ck_assert_uint_lt(i, nd->n_output);
    ck_assert_str_eq(nd->output[i], out[i]);
  }
  ck_assert_uint_eq(nd->n_output, i);
}

static void onnx_roundtrip(int n_in, int hidden, int blocks, int n_actions) {
  nn_net *n = small_net(n_in, hidden, blocks, n_actions);
  nn_meta meta = test_meta(n_in, n_actions);
  export_info info = {&meta, "features line", "mover-relative: action a = a", "test 1"};
  char err[512];
  const char *path = in_dir("m.onnx");
  ck_assert_msg(export_onnx(n, &info, path, err, sizeof err) == 0, "%s", err);
  size_t len;
  unsigned char *bytes = read_all(path, &len);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, bytes);
  ck_assert_msg(m != NULL, "protobuf-c cannot unpack the exported model");

  ck_assert_int_eq(m->ir_version, EXPORT_ONNX_IR);
  ck_assert_int_eq(m->n_opset_import, 1);
  ck_assert_str_eq(m->opset_import[0]->domain, "");
  ck_assert_int_eq(m->opset_import[0]->version, EXPORT_ONNX_OPSET);
  ck_assert_str_eq(m->producer_name, "sowzero");
  ck_assert_str_eq(m->producer_version, "test 1");

  ck_assert_str_eq(prop(m, "game"), "testgame");
  ck_assert_str_eq(prop(m, "rules"), meta.rules);
  ck_assert_str_eq(prop(m, "encoding_version"), "3");
  ck_assert_str_eq(prop(m, "encoding"), "features line");
  ck_assert_str_eq(prop(m, "actions"), "mover-relative: action a = a");
  char want[160], shape[64];
  nn_config c = nn_config_of(n);
  nn_shape_string(&c, shape, sizeof shape);
  snprintf(want, sizeof want, "residual MLP %s (inputs-width x blocks-actions)", shape);
  ck_assert_str_eq(prop(m, "network"), want);
  snprintf(want, sizeof want, "%d", n_in);
  ck_assert_str_eq(prop(m, "n_features"), want);
  snprintf(want, sizeof want, "%d", n_actions);
  ck_assert_str_eq(prop(m, "n_actions"), want);
  snprintf(want, sizeof want, "%d", hidden);
  ck_assert_str_eq(prop(m, "hidden"), want);
  snprintf(want, sizeof want, "%d", blocks);
  ck_assert_str_eq(prop(m, "blocks"), want);
  ck_assert_str_eq(prop(m, "sowzero.format_version"), "1");

  const Onnx__GraphProto *g = m->graph;
  ck_assert_int_eq(g->n_input, 1);
  check_value_info(g->input[0], "features", n_in);
  ck_assert_int_eq(g->n_output, 3);
  check_value_info(g->output[0], "policy_logits", n_actions);
  check_value_info(g->output[1], "value", 1);
  check_value_info(g->output[2], "score", 1);

  /* Initializers: every weight-file tensor, bytes equal to the parameters
   * in little-endian float32; biases as vectors. Then the split sizes. */
  int T = nn_tensor_count(n);
  ck_assert_int_eq(g->n_initializer, (size_t)T + 1);
  const float *par = nn_params(n);
  for (int t = 0; t < T; t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    const Onnx__TensorProto *it = g->initializer[t];
    ck_assert_str_eq(it->name, d->name);
    ck_assert_int_eq(it->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
    if (d->rows == 1) {
      ck_assert_int_eq(it->n_dims, 1);
      ck_assert_int_eq(it->dims[0], d->cols);
    } else {
      ck_assert_int_eq(it->n_dims, 2);
      ck_assert_int_eq(it->dims[0], d->rows);
      ck_assert_int_eq(it->dims[1], d->cols);
    }
    size_t cnt = (size_t)d->rows * (size_t)d->cols;
    ck_assert(it->has_raw_data);
    ck_assert_uint_eq(it->raw_data.len, 4 * cnt);
    for (size_t i = 0; i < cnt; i++) {
      uint32_t u = get_u32le(it->raw_data.data + 4 * i);
      float v;
      memcpy(&v, &u, 4);
      CHECK(memcmp(&v, &par[d->offset + i], 4) == 0, "%s[%zu] differs", d->name, i);
    }
  }
  const Onnx__TensorProto *sp = g->initializer[T];
  ck_assert_str_eq(sp->name, "head.split");
  ck_assert_int_eq(sp->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  ck_assert_int_eq(sp->n_int64_data, 3);
  ck_assert_int_eq(sp->int64_data[0], n_actions);
  ck_assert_int_eq(sp->int64_data[1], 1);
  ck_assert_int_eq(sp->int64_data[2], 1);

  /* The graph is the forward pass of nn.h, node by node. */
  size_t k = 0;
  check_node(g, k++, "Gemm", (const char *[]){"features", "in.w", "in.b", NULL},
             (const char *[]){"in.y", NULL});
  check_node(g, k++, "Relu", (const char *[]){"in.y", NULL}, (const char *[]){"a0", NULL});
  for (int b = 0; b < blocks; b++) {
    char a[16], an[16], w1[32], b1[32], w2[32], b2[32], y1[32], u[32], y2[32], s[32];
    snprintf(a, sizeof a, "a%d", b);
    snprintf(an, sizeof an, "a%d", b + 1);
    snprintf(w1, sizeof w1, "block%d.fc1.w", b);
    snprintf(b1, sizeof b1, "block%d.fc1.b", b);
    snprintf(w2, sizeof w2, "block%d.fc2.w", b);
    snprintf(b2, sizeof b2, "block%d.fc2.b", b);
    snprintf(y1, sizeof y1, "block%d.y1", b);
    snprintf(u, sizeof u, "block%d.u", b);
    snprintf(y2, sizeof y2, "block%d.y2", b);
    snprintf(s, sizeof s, "block%d.sum", b);
    check_node(g, k++, "Gemm", (const char *[]){a, w1, b1, NULL}, (const char *[]){y1, NULL});
    check_node(g, k++, "Relu", (const char *[]){y1, NULL}, (const char *[]){u, NULL});
    check_node(g, k++, "Gemm", (const char *[]){u, w2, b2, NULL}, (const char *[]){y2, NULL});
    check_node(g, k++, "Add", (const char *[]){y2, a, NULL}, (const char *[]){s, NULL});
    check_node(g, k++, "Relu", (const char *[]){s, NULL}, (const char *[]){an, NULL});
  }
  char last[16];
  snprintf(last, sizeof last, "a%d", blocks);
  check_node(g, k++, "Gemm", (const char *[]){last, "head.w", "head.b", NULL},
             (const char *[]){"head.out", NULL});
  check_node(g, k, "Split", (const char *[]){"head.out", "head.split", NULL},
             (const char *[]){"policy_logits", "value.raw", "score", NULL});
  ck_assert_int_eq(g->node[k]->n_attribute, 1);
  ck_assert_str_eq(g->node[k]->attribute[0]->name, "axis");
  ck_assert_int_eq(g->node[k]->attribute[0]->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  ck_assert_int_eq(g->node[k]->attribute[0]->i, 1);
  k++;
  check_node(g, k++, "Tanh", (const char *[]){"value.raw", NULL}, (const char *[]){"value", NULL});
  ck_assert_uint_eq(g->n_node, k);
  /* Gemm keeps its defaults: no transposes, alpha = beta = 1. */
  for (size_t i = 0; i < g->n_node; i++)
    if (!strcmp(g->node[i]->op_type, "Gemm")) ck_assert_int_eq(g->node[i]->n_attribute, 0);

  onnx__model_proto__free_unpacked(m, NULL);
  free(bytes);
  nn_free(n);
}

START_TEST(onnx_fields_round_trip) {
  onnx_roundtrip(7, 5, 0, 3);
  onnx_roundtrip(64, 16, 2, 6);
  onnx_roundtrip(10, 4, 3, 32);
}
END_TEST

/* Every number of the "data" arrays, in order, read back with strtof. */
START_TEST(json_numbers_round_trip) {
  nn_net *n = small_net(9, 6, 2, 4);
  float *p = nn_params_mut(n);
  p[0] = 1e-30f; /* tiny and huge magnitudes print and read back exactly */
  p[1] = -3.4e38f;
  p[2] = 0.1f;
  nn_meta meta = test_meta(9, 4);
  export_info info = {&meta, "enc \"x\"", "mover-relative: action a = a\n", "test 1"};
  char err[512];
  const char *path = in_dir("m.json");
  ck_assert_msg(export_json(n, &info, path, err, sizeof err) == 0, "%s", err);
  size_t len;
  char *text = (char *)read_all(path, &len);
  ck_assert_ptr_nonnull(strstr(text, "\"format\": \"sowzero-network\""));
  ck_assert_ptr_nonnull(strstr(text, "\"game\": \"testgame\""));
  ck_assert_ptr_nonnull(strstr(text, "\"rules\": \"size=3 \\\"quoted\\\" back\\\\slash\""));
  ck_assert_ptr_nonnull(strstr(text, "\"encoding\": \"enc \\\"x\\\"\""));
  ck_assert_ptr_nonnull(strstr(text, "\"actions\": \"mover-relative: action a = a\\u000a\""));
  ck_assert_ptr_nonnull(strstr(text, "\"encoding_version\": 3"));
  ck_assert_ptr_nonnull(
      strstr(text, "\"config\": {\"n_in\": 9, \"hidden\": 6, \"blocks\": 2, \"n_actions\": 4}"));
  const float *par = nn_params(n);
  const char *s = text;
  for (int t = 0; t < nn_tensor_count(n); t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    char head[96];
    snprintf(head, sizeof head, "{\"name\": \"%s\", \"shape\": [%d, %d], \"data\": [", d->name,
             d->rows, d->cols);
    s = strstr(s, head);
    ck_assert_msg(s != NULL, "tensor %s missing or out of order", d->name);
    s += strlen(head);
    for (int i = 0; i < d->rows * d->cols; i++) {
      char *end;
      float v = strtof(s, &end);
      ck_assert_msg(end != s, "%s[%d]: not a number", d->name, i);
      CHECK(memcmp(&v, &par[d->offset + (size_t)i], 4) == 0, "%s[%d]: %.9g read back as %.9g",
            d->name, i, (double)par[d->offset + (size_t)i], (double)v);
      s = end;
      while (*s == ',' || *s == ' ' || *s == '\n') s++;
    }
    ck_assert_int_eq(*s, ']');
  }
  free(text);
  nn_free(n);
}
END_TEST

START_TEST(refusals) {
  nn_net *n = small_net(4, 3, 1, 2);
  nn_meta meta = test_meta(4, 2);
  export_info info = {&meta, "e", "a", "test"};
  char err[512];
  /* A NaN anywhere: neither format can carry it. */
  float *p = nn_params_mut(n);
  const nn_tensor *d = nn_tensor_at(n, 3);
  float saved = p[d->offset + 1];
  p[d->offset + 1] = NAN;
  ck_assert_int_eq(export_onnx(n, &info, in_dir("nan.onnx"), err, sizeof err), -1);
  ck_assert_msg(strstr(err, "nan.onnx: tensor block0.fc1.b holds a non-finite value at index 1"),
                "%s", err);
  p[d->offset + 1] = INFINITY;
  ck_assert_int_eq(export_json(n, &info, in_dir("nan.json"), err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "non-finite"));
  struct stat st;
  ck_assert_int_ne(stat(in_dir("nan.onnx"), &st), 0);
  ck_assert_int_ne(stat(in_dir("nan.json"), &st), 0);
  p[d->offset + 1] = saved;
  /* Metadata that does not describe this net. */
  meta.n_features = 5;
  ck_assert_int_eq(export_onnx(n, &info, in_dir("x.onnx"), err, sizeof err), -1);
  ck_assert_msg(strstr(err, "metadata says 5 features and 2 actions but the network has 4 and 2"),
                "%s", err);
  meta.n_features = 4;
  meta.game[0] = 0;
  ck_assert_int_eq(export_json(n, &info, in_dir("x.json"), err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "needs the game name"));
  snprintf(meta.game, sizeof meta.game, "testgame");
  /* An unwritable destination names the path. */
  ck_assert_int_eq(export_onnx(n, &info, "/nonexistent-dir/m.onnx", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "/nonexistent-dir/m.onnx") && strstr(err, "cannot create"), "%s", err);
  ck_assert_int_eq(export_json(n, &info, "/nonexistent-dir/m.json", err, sizeof err), -1);
  ck_assert_msg(strstr(err, "/nonexistent-dir/m.json"), "%s", err);
  nn_free(n);
}
END_TEST

/* ---- sowzero export --------------------------------------------------------------- */

/* Runs `sowzero export ARGS...` (a NULL-terminated list, no shell); returns
 * the exit code, the output in out. */
static int run_export(char *out, size_t cap, const char *const *args) {
  struct stat st;
  ck_assert_msg(stat(test_bin(), &st) == 0, "%s is missing: build it first (or set SOWZERO_BIN)",
                test_bin());
  char *argv[16] = {"export"};
  for (int i = 0; args[i]; i++) {
    ck_assert_int_lt(i + 2, 16);
    argv[i + 1] = (char *)args[i];
  }
  return test_sowzero(out, cap, argv);
}

#define EXPORT(...) ((const char *const[]){__VA_ARGS__, NULL})

/* `sowzero export ARGS...` exits with code and says msg. */
static void expect_fail(int code, const char *msg, const char *const *args) {
  char out[4096], line[1024] = "";
  for (int i = 0; args[i]; i++)
    snprintf(line + strlen(line), sizeof line - strlen(line), " %s", args[i]);
  int rc = run_export(out, sizeof out, args);
  ck_assert_msg(rc == code, "export%s: exit %d (want %d): %s", line, rc, code, out);
  ck_assert_msg(strstr(out, msg) != NULL, "export%s: '%s' not in: %s", line, msg, out);
  /* One line (usage errors may add the usage text). */
  if (code == 1) ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
}

/* An Oware net saved with meta taken from the game and then changed by
 * `tweak`. */
static void save_oware(const char *path, int n_in, void (*tweak)(nn_meta *)) {
  game g;
  char err[512];
  ck_assert(game_configure(&g, "oware", 0, NULL, err, sizeof err) == 0);
  nn_meta m;
  ck_assert(mcts_nn_meta(&g, &m, err, sizeof err) == 0);
  m.n_features = n_in;
  if (tweak) tweak(&m);
  nn_net *n = small_net(n_in, 8, 1, g.n_actions);
  ck_assert_msg(nn_save(n, &m, path, err, sizeof err) == 0, "%s", err);
  nn_free(n);
}

static void tweak_chess(nn_meta *m) { snprintf(m->game, sizeof m->game, "chess"); }
static void tweak_rules(nn_meta *m) { snprintf(m->rules, sizeof m->rules, "houses=99"); }
static void tweak_encoding(nn_meta *m) { m->encoding = 7; }
static void tweak_warri(nn_meta *m) {
  /* A valid rule set, but not the canonical string this build writes. */
  snprintf(m->rules, sizeof m->rules, "grand_slam=capture_continue");
}

START_TEST(cli_exports_and_refuses) {
  char out[4096];
  const char *good = in_dir("good.weights");
  save_oware(good, 64, NULL);

  int rc =
      run_export(out, sizeof out, EXPORT(good, "--format", "onnx", "--out", in_dir("good.onnx")));
  ck_assert_msg(rc == 0, "%s", out);
  ck_assert_ptr_nonnull(strstr(out, "ONNX network 64-8x1-6 for oware"));
  rc = run_export(out, sizeof out, EXPORT(good, "--format", "json", "--out", in_dir("good.json")));
  ck_assert_msg(rc == 0, "%s", out);
  struct stat st;
  ck_assert_int_eq(stat(in_dir("good.onnx"), &st), 0);
  ck_assert_int_eq(stat(in_dir("good.json"), &st), 0);

  /* A run directory stands for its best.weights. */
  const char *run = in_dir("run"), *empty = in_dir("empty");
  ck_assert_int_eq(mkdir(run, 0777), 0);
  ck_assert_int_eq(mkdir(empty, 0777), 0);
  copy_file(good, in_dir("run/best.weights"));
  rc = run_export(out, sizeof out, EXPORT(run, "--format", "onnx", "--out", in_dir("run.onnx")));
  ck_assert_msg(rc == 0, "%s", out);
  ck_assert_ptr_nonnull(strstr(out, "/run/best.weights"));
  expect_fail(1, "/empty: no best.weights in this run directory",
              EXPORT(empty, "--format", "onnx", "--out", in_dir("x.onnx")));

  /* Usage errors. */
  expect_fail(2, "usage: sowzero export", (const char *const[]){NULL});
  expect_fail(2, "unknown format 'xml' (onnx or json)",
              EXPORT(good, "--format", "xml", "--out", in_dir("x")));
  expect_fail(2, "usage: sowzero export", EXPORT(good, "--out", in_dir("x")));
  expect_fail(2, "unknown option '--fast'",
              EXPORT(good, "--format", "onnx", "--out", in_dir("x"), "--fast"));

  /* Files that are not weights, or damaged ones. */
  expect_fail(1, "none.weights: cannot open",
              EXPORT(in_dir("none.weights"), "--format", "onnx", "--out", in_dir("x.onnx")));
  const char *text = in_dir("text.weights");
  ck_assert_int_eq(afile_write(text, "hello, this is not a network at all", 35, NULL, 0), 0);
  expect_fail(1, "text.weights: not a SowZero weight file (bad magic)",
              EXPORT(text, "--format", "onnx", "--out", in_dir("x.onnx")));

  size_t len;
  unsigned char *bytes = read_all(good, &len);
  const char *flip = in_dir("flip.weights");
  bytes[len / 2] ^= 0x10;
  ck_assert_int_eq(afile_write(flip, bytes, len, NULL, 0), 0);
  bytes[len / 2] ^= 0x10;
  expect_fail(1, "flip.weights: checksum mismatch, the file is corrupted",
              EXPORT(flip, "--format", "json", "--out", in_dir("x.json")));
  const char *cut = in_dir("cut.weights");
  ck_assert_int_eq(afile_write(cut, bytes, len - 100, NULL, 0), 0);
  expect_fail(1, "cut.weights: truncated file",
              EXPORT(cut, "--format", "onnx", "--out", in_dir("x.onnx")));
  free(bytes);

  /* Weights that do not fit the game they name. */
  static const struct {
    const char *name;
    int n_in;
    void (*tweak)(nn_meta *);
    const char *format, *msg;
  } misfits[] = {
      {"chess.weights", 64, tweak_chess, "onnx", "made for game 'chess'"},
      {"chess.weights", 64, tweak_chess, "onnx", "unknown game 'chess'"},
      {"rules.weights", 64, tweak_rules, "onnx",
       "rule options 'houses=99', which this build cannot set up"},
      {"enc.weights", 64, tweak_encoding, "json",
       "trained on feature encoding version 7 but this build encodes oware as version 1 (257 with "
       "the rule inputs)"},
      {"feat.weights", 50, NULL, "onnx", "network takes 50 features but this run encodes 64"},
      {"partial.weights", 64, tweak_warri, "onnx",
       "trained with rule options 'grand_slam=capture_continue' but this run uses"},
  };
  for (size_t i = 0; i < sizeof misfits / sizeof misfits[0]; i++) {
    const char *w = in_dir(misfits[i].name);
    save_oware(w, misfits[i].n_in, misfits[i].tweak);
    char x[16];
    snprintf(x, sizeof x, "x.%s", misfits[i].format);
    expect_fail(1, misfits[i].msg, EXPORT(w, "--format", misfits[i].format, "--out", in_dir(x)));
  }
  ck_assert_int_ne(stat(in_dir("x.onnx"), &st), 0);
  ck_assert_int_ne(stat(in_dir("x.json"), &st), 0);

  /* An unwritable destination. */
  expect_fail(1, "/nonexistent-dir/m.onnx.tmp.",
              EXPORT(good, "--format", "onnx", "--out", "/nonexistent-dir/m.onnx"));
}
END_TEST

static Suite *export_suite(void) {
  Suite *s = suite_create("export");
  TCase *t = add_tests(s, "export", 120,
                       (const TTest *[]){onnx_fields_round_trip, json_numbers_round_trip, refusals,
                                         cli_exports_and_refuses, NULL});
  tcase_add_checked_fixture(t, setup, teardown);
  return s;
}

TEST_MAIN(export_suite)

/* Exporters: the ONNX model through protobuf-c (C structs generated at build
 * time from the onnx.proto that Debian's libonnx-dev ships), and JSON. */
#include "export/export.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/json.h"
#include "onnx/onnx.pb-c.h"

/* Shared checks: complete metadata that agrees with the net, finite
 * parameters. */
static int check_export(const nn_net *n, const export_info *info, const char *path, char *err,
                        size_t errlen) {
  if (!info || !info->meta || !info->encoding || !info->actions || !info->producer) {
    errf(err, errlen, "%s: export needs the metadata, encoding, actions and producer texts", path);
    return -1;
  }
  nn_config c = nn_config_of(n);
  const nn_meta *m = info->meta;
  if (!m->game[0]) {
    errf(err, errlen, "%s: export needs the game name", path);
    return -1;
  }
  if ((m->n_features && m->n_features != c.n_in) || (m->n_actions && m->n_actions != c.n_actions)) {
    errf(err, errlen, "%s: metadata says %d features and %d actions but the network has %d and %d",
         path, m->n_features, m->n_actions, c.n_in, c.n_actions);
    return -1;
  }
  const float *p = nn_params(n);
  for (int t = 0; t < nn_tensor_count(n); t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    size_t cnt = (size_t)d->rows * (size_t)d->cols;
    for (size_t i = 0; i < cnt; i++)
      if (!isfinite(p[d->offset + i])) {
        errf(err, errlen, "%s: tensor %s holds a non-finite value at index %zu; not exported", path,
             d->name, i);
        return -1;
      }
  }
  return 0;
}

/* ---- ONNX ----------------------------------------------------------------------
 * The message tree is many small structs that protobuf-c packs by pointer;
 * they all come from one arena, freed at once after packing. */
typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  max_align_t data[];
} chunk;

typedef struct {
  chunk *head;
  int failed;
} arena;

static void *arena_alloc(arena *a, size_t size) {
  size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!a->head || a->head->cap - a->head->used < size) {
    size_t cap = size > 65536 ? size : 65536;
    chunk *c = calloc(1, sizeof *c + cap);
    if (!c) {
      a->failed = 1;
      return NULL;
    }
    c->cap = cap;
    c->next = a->head;
    a->head = c;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += size;
  return p;
}

static void arena_free(arena *a) {
  while (a->head) {
    chunk *c = a->head;
    a->head = c->next;
    free(c);
  }
}

static char *astr(arena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = arena_alloc(a, n);
  if (d) memcpy(d, s, n);
  return d;
}

static char *astrf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *astrf(arena *a, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return astr(a, buf);
}

/* A float tensor [rows, cols] (or [cols] for a bias, rows == 1 and vector
 * set): little-endian float32 bytes in raw_data, as the ONNX spec fixes. */
static Onnx__TensorProto *float_tensor(arena *a, const char *name, const float *x, int rows,
                                       int cols, int vector) {
  Onnx__TensorProto *t = arena_alloc(a, sizeof *t);
  int64_t *dims = arena_alloc(a, 2 * sizeof *dims);
  size_t cnt = (size_t)rows * (size_t)cols;
  unsigned char *raw = arena_alloc(a, cnt * 4 + 1);
  if (!t || !dims || !raw) return NULL;
  onnx__tensor_proto__init(t);
  t->name = astr(a, name);
  t->has_data_type = 1;
  t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  if (vector) {
    dims[0] = cols;
    t->n_dims = 1;
  } else {
    dims[0] = rows;
    dims[1] = cols;
    t->n_dims = 2;
  }
  t->dims = dims;
  for (size_t i = 0; i < cnt; i++) {
    uint32_t u;
    memcpy(&u, &x[i], 4);
    put_u32le(raw + 4 * i, u);
  }
  t->has_raw_data = 1;
  t->raw_data.data = raw;
  t->raw_data.len = cnt * 4;
  return t;
}

static Onnx__TensorProto *int64_tensor(arena *a, const char *name, const int64_t *v, int n) {
  Onnx__TensorProto *t = arena_alloc(a, sizeof *t);
  int64_t *dims = arena_alloc(a, sizeof *dims);
  int64_t *data = arena_alloc(a, (size_t)n * sizeof *data);
  if (!t || !dims || !data) return NULL;
  onnx__tensor_proto__init(t);
  t->name = astr(a, name);
  t->has_data_type = 1;
  t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  dims[0] = n;
  t->n_dims = 1;
  t->dims = dims;
  memcpy(data, v, (size_t)n * sizeof *data);
  t->n_int64_data = (size_t)n;
  t->int64_data = data;
  return t;
}

/* A float tensor value of shape [batch, cols]. */
static Onnx__ValueInfoProto *float_value(arena *a, const char *name, int cols, const char *doc) {
  Onnx__ValueInfoProto *v = arena_alloc(a, sizeof *v);
  Onnx__TypeProto *tp = arena_alloc(a, sizeof *tp);
  Onnx__TypeProto__Tensor *tt = arena_alloc(a, sizeof *tt);
  Onnx__TensorShapeProto *sh = arena_alloc(a, sizeof *sh);
  Onnx__TensorShapeProto__Dimension *d = arena_alloc(a, 2 * sizeof *d);
  Onnx__TensorShapeProto__Dimension **dp = arena_alloc(a, 2 * sizeof *dp);
  if (!v || !tp || !tt || !sh || !d || !dp) return NULL;
  onnx__value_info_proto__init(v);
  onnx__type_proto__init(tp);
  onnx__type_proto__tensor__init(tt);
  onnx__tensor_shape_proto__init(sh);
  for (int i = 0; i < 2; i++) {
    onnx__tensor_shape_proto__dimension__init(&d[i]);
    dp[i] = &d[i];
  }
  d[0].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  d[0].dim_param = astr(a, "batch");
  d[1].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
  d[1].dim_value = cols;
  sh->n_dim = 2;
  sh->dim = dp;
  tt->has_elem_type = 1;
  tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tt->shape = sh;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  v->name = astr(a, name);
  v->type = tp;
  v->doc_string = astr(a, doc);
  return v;
}

/* Up to 3 inputs and 3 outputs, NULL-terminated lists. */
static Onnx__NodeProto *node(arena *a, const char *op, const char *name, const char *const *in,
                             const char *const *out) {
  Onnx__NodeProto *nd = arena_alloc(a, sizeof *nd);
  char **iv = arena_alloc(a, 3 * sizeof *iv);
  char **ov = arena_alloc(a, 3 * sizeof *ov);
  if (!nd || !iv || !ov) return NULL;
  onnx__node_proto__init(nd);
  nd->op_type = astr(a, op);
  nd->name = astr(a, name);
  while (in[nd->n_input]) {
    iv[nd->n_input] = astr(a, in[nd->n_input]);
    nd->n_input++;
  }
  while (out[nd->n_output]) {
    ov[nd->n_output] = astr(a, out[nd->n_output]);
    nd->n_output++;
  }
  nd->input = iv;
  nd->output = ov;
  return nd;
}

static int node_int_attr(arena *a, Onnx__NodeProto *nd, const char *name, int64_t v) {
  Onnx__AttributeProto *at = arena_alloc(a, sizeof *at);
  Onnx__AttributeProto **ap = arena_alloc(a, sizeof *ap);
  if (!nd || !at || !ap) return -1;
  onnx__attribute_proto__init(at);
  at->name = astr(a, name);
  at->has_type = 1;
  at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  at->has_i = 1;
  at->i = v;
  ap[0] = at;
  nd->n_attribute = 1;
  nd->attribute = ap;
  return 0;
}

#define MAX_PROPS 16

static Onnx__StringStringEntryProto *prop(arena *a, const char *key, const char *value) {
  Onnx__StringStringEntryProto *e = arena_alloc(a, sizeof *e);
  if (!e) return NULL;
  onnx__string_string_entry_proto__init(e);
  e->key = astr(a, key);
  e->value = astr(a, value);
  return e;
}

/* Builds the model in the arena; NULL if memory ran out. */
static Onnx__ModelProto *build_model(arena *a, const nn_net *n, const export_info *info) {
  nn_config c = nn_config_of(n);
  const nn_meta *m = info->meta;
  const int A = c.n_actions, T = nn_tensor_count(n);
  const float *par = nn_params(n);
  char shape[64];
  nn_shape_string(&c, shape, sizeof shape);

  Onnx__GraphProto *g = arena_alloc(a, sizeof *g);
  int max_nodes = 2 + 5 * c.blocks + 3;
  Onnx__NodeProto **nodes = arena_alloc(a, (size_t)max_nodes * sizeof *nodes);
  Onnx__TensorProto **inits = arena_alloc(a, (size_t)(T + 1) * sizeof *inits);
  Onnx__ValueInfoProto **ins = arena_alloc(a, sizeof *ins);
  Onnx__ValueInfoProto **outs = arena_alloc(a, 3 * sizeof *outs);
  if (!g || !nodes || !inits || !ins || !outs) return NULL;
  onnx__graph_proto__init(g);

  /* Initializers: the weight-file tensors under their own names; biases are
   * vectors so that Gemm broadcasts them over the batch. */
  for (int t = 0; t < T; t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    inits[t] = float_tensor(a, d->name, par + d->offset, d->rows, d->cols, d->rows == 1);
    if (!inits[t]) return NULL;
  }
  const int64_t split[3] = {A, 1, 1};
  inits[T] = int64_tensor(a, "head.split", split, 3);
  if (!inits[T]) return NULL;
  g->n_initializer = (size_t)T + 1;
  g->initializer = inits;

  /* Nodes, in the order of the forward pass in nn.h. */
  int k = 0;
  {
    const char *in[] = {"features", "in.w", "in.b", NULL}, *out[] = {"in.y", NULL};
    nodes[k++] = node(a, "Gemm", "in/gemm", in, out);
  }
  {
    const char *in[] = {"in.y", NULL}, *out[] = {"a0", NULL};
    nodes[k++] = node(a, "Relu", "in/relu", in, out);
  }
  for (int b = 0; b < c.blocks; b++) {
    char ak[16], an[16], w1[32], b1[32], w2[32], b2[32], y1[32], u[32], y2[32], s[32], nm[32];
    snprintf(ak, sizeof ak, "a%d", b);
    snprintf(an, sizeof an, "a%d", b + 1);
    snprintf(w1, sizeof w1, "block%d.fc1.w", b);
    snprintf(b1, sizeof b1, "block%d.fc1.b", b);
    snprintf(w2, sizeof w2, "block%d.fc2.w", b);
    snprintf(b2, sizeof b2, "block%d.fc2.b", b);
    snprintf(y1, sizeof y1, "block%d.y1", b);
    snprintf(u, sizeof u, "block%d.u", b);
    snprintf(y2, sizeof y2, "block%d.y2", b);
    snprintf(s, sizeof s, "block%d.sum", b);
    const char *i1[] = {ak, w1, b1, NULL}, *o1[] = {y1, NULL};
    snprintf(nm, sizeof nm, "block%d/fc1", b);
    nodes[k++] = node(a, "Gemm", nm, i1, o1);
    const char *i2[] = {y1, NULL}, *o2[] = {u, NULL};
    snprintf(nm, sizeof nm, "block%d/relu1", b);
    nodes[k++] = node(a, "Relu", nm, i2, o2);
    const char *i3[] = {u, w2, b2, NULL}, *o3[] = {y2, NULL};
    snprintf(nm, sizeof nm, "block%d/fc2", b);
    nodes[k++] = node(a, "Gemm", nm, i3, o3);
    const char *i4[] = {y2, ak, NULL}, *o4[] = {s, NULL};
    snprintf(nm, sizeof nm, "block%d/skip", b);
    nodes[k++] = node(a, "Add", nm, i4, o4);
    const char *i5[] = {s, NULL}, *o5[] = {an, NULL};
    snprintf(nm, sizeof nm, "block%d/relu2", b);
    nodes[k++] = node(a, "Relu", nm, i5, o5);
  }
  {
    char last[16];
    snprintf(last, sizeof last, "a%d", c.blocks);
    const char *in[] = {last, "head.w", "head.b", NULL}, *out[] = {"head.out", NULL};
    nodes[k++] = node(a, "Gemm", "head/gemm", in, out);
  }
  {
    const char *in[] = {"head.out", "head.split", NULL};
    const char *out[] = {"policy_logits", "value.raw", "score", NULL};
    nodes[k] = node(a, "Split", "head/split", in, out);
    if (node_int_attr(a, nodes[k], "axis", 1) != 0) return NULL;
    k++;
  }
  {
    const char *in[] = {"value.raw", NULL}, *out[] = {"value", NULL};
    nodes[k++] = node(a, "Tanh", "head/tanh", in, out);
  }
  for (int i = 0; i < k; i++)
    if (!nodes[i]) return NULL;
  g->n_node = (size_t)k;
  g->node = nodes;

  ins[0] = float_value(a, "features", c.n_in,
                       "one row per position: the game's feature encoding from the mover's view");
  outs[0] = float_value(a, "policy_logits", A,
                        "raw logits per mover-relative action; mask the illegal ones, then "
                        "softmax");
  outs[1] = float_value(a, "value", 1, "expected outcome for the player to move, in (-1, 1)");
  outs[2] = float_value(a, "score", 1, "predicted final seed margin for the player to move");
  if (!ins[0] || !outs[0] || !outs[1] || !outs[2]) return NULL;
  g->n_input = 1;
  g->input = ins;
  g->n_output = 3;
  g->output = outs;
  g->name = astrf(a, "sowzero_%s_%s", m->game, shape);
  g->doc_string = astrf(a,
                        "SowZero policy/value network for %s: residual MLP %s "
                        "(inputs-width x blocks-actions)",
                        m->game, shape);

  /* Metadata, keys documented in docs/FORMATS.md ("ONNX export"). */
  Onnx__StringStringEntryProto **props = arena_alloc(a, MAX_PROPS * sizeof *props);
  if (!props) return NULL;
  int np = 0;
  props[np++] = prop(a, "sowzero.format_version", astrf(a, "%d", EXPORT_FORMAT_VERSION));
  props[np++] = prop(a, "game", m->game);
  props[np++] = prop(a, "rules", m->rules);
  props[np++] = prop(a, "encoding_version", astrf(a, "%d", m->encoding));
  props[np++] = prop(a, "encoding", info->encoding);
  props[np++] = prop(a, "n_features", astrf(a, "%d", c.n_in));
  props[np++] = prop(a, "n_actions", astrf(a, "%d", A));
  props[np++] = prop(a, "actions", info->actions);
  props[np++] =
      prop(a, "network", astrf(a, "residual MLP %s (inputs-width x blocks-actions)", shape));
  props[np++] = prop(a, "hidden", astrf(a, "%d", c.hidden));
  props[np++] = prop(a, "blocks", astrf(a, "%d", c.blocks));
  props[np++] = prop(a, "outputs",
                     "policy_logits: raw, mask illegal actions then softmax; value: tanh, "
                     "expected outcome for the player to move; score: predicted final seed "
                     "margin for the player to move");
  for (int i = 0; i < np; i++)
    if (!props[i]) return NULL;

  Onnx__ModelProto *model = arena_alloc(a, sizeof *model);
  Onnx__OperatorSetIdProto *ops = arena_alloc(a, sizeof *ops);
  Onnx__OperatorSetIdProto **opp = arena_alloc(a, sizeof *opp);
  if (!model || !ops || !opp) return NULL;
  onnx__model_proto__init(model);
  onnx__operator_set_id_proto__init(ops);
  ops->domain = astr(a, "");
  ops->has_version = 1;
  ops->version = EXPORT_ONNX_OPSET;
  opp[0] = ops;
  model->has_ir_version = 1;
  model->ir_version = EXPORT_ONNX_IR;
  model->n_opset_import = 1;
  model->opset_import = opp;
  model->producer_name = astr(a, "sowzero");
  model->producer_version = astr(a, info->producer);
  model->domain = astr(a, "");
  model->has_model_version = 1;
  model->model_version = EXPORT_FORMAT_VERSION;
  model->doc_string = g->doc_string;
  model->graph = g;
  model->n_metadata_props = (size_t)np;
  model->metadata_props = props;
  return a->failed ? NULL : model;
}

int export_onnx(const nn_net *n, const export_info *info, const char *path, char *err,
                size_t errlen) {
  if (check_export(n, info, path, err, errlen) != 0) return -1;
  arena a = {0};
  Onnx__ModelProto *model = build_model(&a, n, info);
  if (!model) {
    arena_free(&a);
    errf(err, errlen, "%s: out of memory building the ONNX model", path);
    return -1;
  }
  size_t size = protobuf_c_message_get_packed_size(&model->base);
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) {
    arena_free(&a);
    errf(err, errlen, "%s: out of memory packing the ONNX model (%zu bytes)", path, size);
    return -1;
  }
  size_t packed = protobuf_c_message_pack(&model->base, buf);
  arena_free(&a);
  int rc = 0;
  if (packed != size) {
    errf(err, errlen, "%s: protobuf packing wrote %zu of %zu bytes", path, packed, size);
    rc = -1;
  } else {
    rc = afile_write(path, buf, size, err, errlen);
  }
  free(buf);
  return rc;
}

/* ---- JSON ------------------------------------------------------------------------ */

/* The JSON's layout: members and list items on lines of their own. */
#define NL2 "\n  "
#define NL4 "\n    "

/* How to run the network, for a reader of the JSON alone. */
static const char *const forward[] = {
    "x: n_in features of one position (row vector); W is stored inputs x outputs, row-major",
    "a = relu(x in.w + in.b)",
    "for k in 0..blocks-1: u = relu(a blockk.fc1.w + blockk.fc1.b); a = relu(u blockk.fc2.w + "
    "blockk.fc2.b + a)",
    "out = a head.w + head.b  (n_actions + 2 numbers)",
    "policy_logits = out[0 .. n_actions-1]; policy = softmax over the legal actions only",
    "value = tanh(out[n_actions])  expected outcome for the player to move",
    "score = out[n_actions + 1]  predicted final seed margin for the player to move"};

int export_json(const nn_net *n, const export_info *info, const char *path, char *err,
                size_t errlen) {
  if (check_export(n, info, path, err, errlen) != 0) return -1;
  nn_config c = nn_config_of(n);
  const nn_meta *m = info->meta;
  char shape[64];
  nn_shape_string(&c, shape, sizeof shape);
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1;
  json_writer w;
  json_writer_init_file(&w, a.f);
  json_begin_object(&w, NULL);
  json_lines(&w, NL2, "\n");
  json_put_string(&w, "format", "sowzero-network");
  json_put_int(&w, "format_version", EXPORT_FORMAT_VERSION);
  json_put_string(&w, "producer", info->producer);
  json_put_string(&w, "game", m->game);
  json_put_string(&w, "rules", m->rules);
  json_put_int(&w, "encoding_version", m->encoding);
  json_put_string(&w, "encoding", info->encoding);
  json_put_string(&w, "actions", info->actions);
  char network[128];
  snprintf(network, sizeof network, "residual MLP %s (inputs-width x blocks-actions)", shape);
  json_put_string(&w, "network", network);
  json_begin_object(&w, "config");
  json_put_int(&w, "n_in", c.n_in);
  json_put_int(&w, "hidden", c.hidden);
  json_put_int(&w, "blocks", c.blocks);
  json_put_int(&w, "n_actions", c.n_actions);
  json_end_object(&w);
  json_begin_array(&w, "forward");
  json_lines(&w, NL4, NL2);
  for (size_t i = 0; i < sizeof forward / sizeof forward[0]; i++)
    json_put_string(&w, NULL, forward[i]);
  json_end_array(&w);
  json_begin_array(&w, "tensors");
  json_lines(&w, NL4, NL2);
  const float *p = nn_params(n);
  for (int t = 0; t < nn_tensor_count(n); t++) {
    const nn_tensor *d = nn_tensor_at(n, t);
    json_begin_object(&w, NULL);
    json_put_string(&w, "name", d->name);
    json_begin_array(&w, "shape");
    json_put_int(&w, NULL, d->rows);
    json_put_int(&w, NULL, d->cols);
    json_end_array(&w);
    json_begin_array(&w, "data");
    size_t cnt = (size_t)d->rows * (size_t)d->cols;
    for (size_t i = 0; i < cnt; i++) {
      if (i && i % 16 == 0) json_break(&w, "\n      ");
      /* 9 significant digits read back to the same float32. */
      json_put_real(&w, NULL, (double)p[d->offset + i], 9);
    }
    json_end_array(&w);
    json_end_object(&w);
  }
  json_end_array(&w);
  json_end_object(&w);
  fputc('\n', a.f);
  if (json_writer_done(&w) != 0) return afile_fail(&a, err, errlen);
  return afile_commit(&a, err, errlen);
}

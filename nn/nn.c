/* The network: layout, initialisation, forward passes, backward pass, AdamW.
 * See nn.h for the architecture and contracts. */
#include "nn/nn_internal.h"

#include "base/base.h"

#ifdef NN_PORTABLE_BLAS
#include "nn/blas_portable.h"
#else
#include <cblas.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- BLAS ------------------------------------------------------------------ */
void nn_blas_single_thread(void) {
  if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
}

void nn_blas_info(char *buf, size_t len) {
  if (!buf || len == 0) return;
  char cfg[256];
  snprintf(cfg, sizeof cfg, "%s", openblas_get_config());
  size_t l = strlen(cfg);
  while (l > 0 && cfg[l - 1] == ' ') cfg[--l] = '\0';
  int th = openblas_get_num_threads();
#ifdef NN_PORTABLE_BLAS
  (void)th;
  snprintf(buf, len, "portable BLAS (no OpenBLAS in this build)");
#else
  snprintf(buf, len, "OpenBLAS core %s, %d thread%s (%s)", openblas_get_corename(), th,
           th == 1 ? "" : "s", cfg);
#endif
}

/* ---- Config and layout --------------------------------------------------- */
nn_config nn_config_default(void) {
  nn_config c = {.n_in = 64, .hidden = 256, .blocks = 2, .n_actions = 6};
  return c;
}

double nn_flops_per_position(const nn_config *c) {
  double h = c->hidden;
  return 2.0 * ((double)c->n_in * h + 2.0 * c->blocks * h * h + h * (c->n_actions + 2));
}

int nn_config_check(const nn_config *c, char *err, size_t errlen) {
  if (c->n_in < 1 || c->n_in > NN_MAX_IN) {
    errf(err, errlen, "network inputs %d out of range 1..%d", c->n_in, NN_MAX_IN);
    return -1;
  }
  if (c->hidden < 1 || c->hidden > NN_MAX_HIDDEN) {
    errf(err, errlen, "network hidden width %d out of range 1..%d", c->hidden, NN_MAX_HIDDEN);
    return -1;
  }
  if (c->blocks < 0 || c->blocks > NN_MAX_BLOCKS) {
    errf(err, errlen, "network blocks %d out of range 0..%d", c->blocks, NN_MAX_BLOCKS);
    return -1;
  }
  if (c->n_actions < 1 || c->n_actions > NN_MAX_ACTIONS) {
    errf(err, errlen, "network actions %d out of range 1..%d", c->n_actions, NN_MAX_ACTIONS);
    return -1;
  }
  return 0;
}

int nn_config_equal(const nn_config *a, const nn_config *b) {
  return a->n_in == b->n_in && a->hidden == b->hidden && a->blocks == b->blocks &&
         a->n_actions == b->n_actions;
}

static void set_tensor(nn_tensor *t, const char *name, size_t off, int rows, int cols, int decay) {
  snprintf(t->name, sizeof t->name, "%s", name);
  t->offset = off;
  t->rows = rows;
  t->cols = cols;
  t->decay = decay;
}

size_t nn_layout(const nn_config *c, nn_tensor *t) {
  int H = c->hidden, O = c->n_actions + 2;
  size_t off = 0;
  char name[24];
#define ADD(i, nm, r, cl, d)              \
  do {                                    \
    set_tensor(&t[i], nm, off, r, cl, d); \
    off += (size_t)(r) * (size_t)(cl);    \
  } while (0)
  ADD(NN_T_IN_W, "in.w", c->n_in, H, 1);
  ADD(NN_T_IN_B, "in.b", 1, H, 0);
  for (int k = 0; k < c->blocks; k++) {
    snprintf(name, sizeof name, "block%d.fc1.w", k);
    ADD(NN_T_BLOCK(k, 0), name, H, H, 1);
    snprintf(name, sizeof name, "block%d.fc1.b", k);
    ADD(NN_T_BLOCK(k, 1), name, 1, H, 0);
    snprintf(name, sizeof name, "block%d.fc2.w", k);
    ADD(NN_T_BLOCK(k, 2), name, H, H, 1);
    snprintf(name, sizeof name, "block%d.fc2.b", k);
    ADD(NN_T_BLOCK(k, 3), name, 1, H, 0);
  }
  ADD(NN_T_HEAD_W(c->blocks), "head.w", H, O, 1);
  ADD(NN_T_HEAD_B(c->blocks), "head.b", 1, O, 0);
#undef ADD
  return off;
}

nn_net *nn_alloc(const nn_config *c, char *err, size_t errlen) {
  if (nn_config_check(c, err, errlen) != 0) return NULL;
  nn_net *n = calloc(1, sizeof *n);
  if (!n) goto oom;
  n->cfg = *c;
  n->n_tensors = 4 * c->blocks + 4;
  n->tensors = calloc((size_t)n->n_tensors, sizeof *n->tensors);
  if (!n->tensors) goto oom;
  n->n_params = nn_layout(c, n->tensors);
  n->params = calloc_lines(n->n_params * sizeof(float));
  if (!n->params) goto oom;
  return n;
oom:
  nn_free(n);
  errf(err, errlen, "out of memory for a %d-%dx%d-%d network", c->n_in, c->hidden, c->blocks,
       c->n_actions);
  return NULL;
}

nn_net *nn_create(const nn_config *c, uint64_t seed, char *err, size_t errlen) {
  nn_blas_single_thread();
  nn_net *n = nn_alloc(c, err, errlen);
  if (!n) return NULL;
  rng_t r;
  rng_seed(&r, seed, 0);
  /* He-normal for the ReLU layers; the heads get 1/fan_in variance so the
   * first policies are near uniform and values near 0 without dead units. */
  for (int i = 0; i < n->n_tensors; i++) {
    const nn_tensor *t = &n->tensors[i];
    if (!t->decay) continue; /* biases start at 0 */
    int head = i == NN_T_HEAD_W(c->blocks);
    double sd = sqrt((head ? 1.0 : 2.0) / t->rows);
    float *p = n->params + t->offset;
    size_t cnt = (size_t)t->rows * t->cols;
    for (size_t j = 0; j < cnt; j++) p[j] = (float)(sd * rng_normal(&r));
  }
  return n;
}

void nn_free(nn_net *n) {
  if (!n) return;
  nn_bf16_free(n->bf16);
  nn_int8_free(n->int8);
  free(n->params);
  free(n->tensors);
  free(n);
}

int nn_copy(nn_net *dst, const nn_net *src) {
  if (!nn_config_equal(&dst->cfg, &src->cfg)) return -1;
  if (dst != src) memcpy(dst->params, src->params, src->n_params * sizeof(float));
  nn_packed_refresh(dst); /* a promoted net is converted here, once */
  return 0;
}

nn_config nn_config_of(const nn_net *n) { return n->cfg; }
size_t nn_param_count(const nn_net *n) { return n->n_params; }
const float *nn_params(const nn_net *n) { return n->params; }
float *nn_params_mut(nn_net *n) {
  n->packed_fresh = 0; /* the caller may write: fp32 until re-converted */
  return n->params;
}
int nn_tensor_count(const nn_net *n) { return n->n_tensors; }
const nn_tensor *nn_tensor_at(const nn_net *n, int i) {
  return i >= 0 && i < n->n_tensors ? &n->tensors[i] : NULL;
}

static const float *tensor(const nn_net *n, int i) { return n->params + n->tensors[i].offset; }

/* ---- Workspace ------------------------------------------------------------ */
static size_t up64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

nn_ws *nn_ws_create(const nn_net *n, int max_batch, char *err, size_t errlen) {
  if (max_batch < 1 || max_batch > NN_MAX_BATCH) {
    errf(err, errlen, "workspace batch %d out of range 1..%d", max_batch, NN_MAX_BATCH);
    return NULL;
  }
  const nn_config *c = &n->cfg;
  size_t B = (size_t)max_batch, H = (size_t)c->hidden, A = (size_t)c->n_actions, O = A + 2;
  size_t nact = 1 + 2 * (size_t)c->blocks;
  size_t nz = H > (size_t)c->n_in ? H : (size_t)c->n_in;
  size_t Hp = (H + 1) & ~(size_t)1, Ip = ((size_t)c->n_in + 1) & ~(size_t)1;
  size_t H4 = (H + 3) & ~(size_t)3;
  size_t sz[14] = {
      up64(nact * B * H * sizeof(float)),                   /* act */
      up64(B * O * sizeof(float)),                          /* head */
      up64(B * A * sizeof(float)),                          /* prob */
      up64(B * H * sizeof(float)),                          /* g1 */
      up64(B * (H > O ? H : O) * sizeof(float)),            /* g2, dense scratch */
      up64(B * O * sizeof(float)),                          /* dhead */
      up64((2 * H + O + (size_t)c->n_in) * sizeof(double)), /* dvec */
      up64(nz * sizeof(int)),                               /* nz */
      up64(B * (Ip > Hp ? Ip : Hp) * sizeof(uint16_t)),     /* bf_in */
      up64(B * Hp * sizeof(uint16_t)),                      /* bf_a */
      up64(2 * NN_INT8_CHUNK * H4),                         /* q8 */
      up64(2 * NN_INT8_CHUNK * sizeof(float)),              /* q8s */
      up64(NN_INT8_CHUNK * H4 / 4 * sizeof(uint16_t)),      /* q8nz */
      up64(NN_INT8_CHUNK * sizeof(int)),                    /* q8nc */
  };
  size_t total = 0;
  for (int i = 0; i < 14; i++) total += sz[i];
  nn_ws *ws = calloc(1, sizeof *ws);
  char *mem = ws ? calloc_lines(total) : NULL;
  if (!mem) {
    free(ws);
    errf(err, errlen, "out of memory for a workspace of batch %d (%zu MB)", max_batch, total >> 20);
    return NULL;
  }
  ws->cfg = *c;
  ws->max_batch = max_batch;
  ws->small = NN_SMALL_AUTO;
  ws->mem = mem;
  char *p = mem;
  ws->act = (float *)p, p += sz[0];
  ws->head = (float *)p, p += sz[1];
  ws->prob = (float *)p, p += sz[2];
  ws->g1 = (float *)p, p += sz[3];
  ws->g2 = (float *)p, p += sz[4];
  ws->dhead = (float *)p, p += sz[5];
  ws->dvec = (double *)p, p += sz[6];
  ws->nz = (int *)p, p += sz[7];
  ws->bf_in = (uint16_t *)p, p += sz[8];
  ws->bf_a = (uint16_t *)p, p += sz[9];
  ws->q8 = (uint8_t *)p, p += sz[10];
  ws->q8s = (float *)p, p += sz[11];
  ws->q8nz = (uint16_t *)p, p += sz[12];
  ws->q8nc = (int *)p;
  return ws;
}

void nn_ws_free(nn_ws *ws) {
  if (!ws) return;
  free(ws->mem);
  free(ws);
}

int nn_ws_max_batch(const nn_ws *ws) { return ws->max_batch; }
void nn_ws_set_small_path(nn_ws *ws, nn_small_path p) { ws->small = p; }
const float *nn_ws_logits(const nn_ws *ws) { return ws->head; }

static int ws_fits(const nn_net *n, const nn_ws *ws, int batch) {
  return batch >= 1 && batch <= ws->max_batch && nn_config_equal(&n->cfg, &ws->cfg);
}

/* ---- Forward --------------------------------------------------------------- */
static float *act_slot(const nn_ws *ws, int i) {
  return ws->act + (size_t)i * ws->max_batch * ws->cfg.hidden;
}

/* C (B x N) = A (B x K) . W (K x N) + beta C, all row-major.
 * OpenBLAS 0.3.21's small-matrix kernel for this (NoTrans, NoTrans) case
 * mallocs a packing buffer on every call when N % 16 is 1..8, K >= 32 and
 * B N K <= 1e6 (the head's N = n_actions + 2 = 8 is such a case). There the
 * product is formed transposed, a (Trans, Trans) product, which OpenBLAS has
 * no small kernel for, into scratch (N x B) and added back row by row. */
void nn_dense(int B, int N, int K, const float *A, const float *W, float beta, float *C,
              float *scratch) {
  int r = N % 16;
#ifdef NN_PORTABLE_BLAS
  r = 0; /* no OpenBLAS: no workaround */
#endif
  if (r >= 1 && r <= 8 && K >= 32 && (double)B * N * K <= 1e6) {
    /* scratch (N x B) = W^T (N x K) . A^T (K x B) */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasTrans, N, B, K, 1.0f, W, N, A, K, 0.0f, scratch, B);
    for (int b = 0; b < B; b++) {
      float *c = C + (size_t)b * N;
      for (int j = 0; j < N; j++) c[j] = (beta != 0.0f ? c[j] : 0.0f) + scratch[(size_t)j * B + b];
    }
    return;
  }
  /* C (B x N) = A (B x K) . W (K x N) + beta C */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, N, K, 1.0f, A, K, W, N, beta, C, N);
}

/* The trunk and head GEMMs into ws->head. With store, every activation gets
 * its own slot for the backward pass; without, two slots are reused so the
 * working set stays small. The arithmetic is the same either way. */
static void forward_batch(const nn_net *n, nn_ws *ws, const float *x, int B, int store) {
  const int NI = n->cfg.n_in, H = n->cfg.hidden, O = n->cfg.n_actions + 2;
  float *a = act_slot(ws, 0), *tmp = ws->g2;
  /* a (B x H) = x (B x NI) . W_in (NI x H) */
  nn_dense(B, H, NI, x, tensor(n, NN_T_IN_W), 0.0f, a, tmp);
  nn_k_bias_relu(a, tensor(n, NN_T_IN_B), B, H);
  for (int k = 0; k < n->cfg.blocks; k++) {
    float *u = act_slot(ws, store ? 1 + 2 * k : 1);
    float *an = store ? act_slot(ws, 2 + 2 * k) : a;
    /* u (B x H) = a (B x H) . W1 (H x H) */
    nn_dense(B, H, H, a, tensor(n, NN_T_BLOCK(k, 0)), 0.0f, u, tmp);
    nn_k_bias_relu(u, tensor(n, NN_T_BLOCK(k, 1)), B, H);
    if (an != a) memcpy(an, a, sizeof(float) * (size_t)B * H);
    /* an (B x H) = an + u (B x H) . W2 (H x H): beta = 1 adds the skip
     * connection inside the GEMM (beta = 0 would cost a zeroing pass). */
    nn_dense(B, H, H, u, tensor(n, NN_T_BLOCK(k, 2)), 1.0f, an, tmp);
    nn_k_bias_relu(an, tensor(n, NN_T_BLOCK(k, 3)), B, H);
    a = an;
  }
  /* head (B x O) = a (B x H) . W_head (H x O) */
  nn_dense(B, O, H, a, tensor(n, NN_T_HEAD_W(n->cfg.blocks)), 0.0f, ws->head, tmp);
  nn_k_bias(ws->head, tensor(n, NN_T_HEAD_B(n->cfg.blocks)), B, O);
}

/* One position through cblas_sgemv (gemv = 1) or the hand loop. */
static void forward_one(const nn_net *n, nn_ws *ws, const float *x, int gemv) {
  const int NI = n->cfg.n_in, H = n->cfg.hidden, O = n->cfg.n_actions + 2;
  float *a = act_slot(ws, 0), *u = act_slot(ws, 1);
  const int nb = n->cfg.blocks;
  if (gemv) {
    /* a (H) = W_in^T (H x NI) . x (NI) */
    cblas_sgemv(CblasRowMajor, CblasTrans, NI, H, 1.0f, tensor(n, NN_T_IN_W), H, x, 1, 0.0f, a, 1);
    nn_k_bias_relu(a, tensor(n, NN_T_IN_B), 1, H);
    for (int k = 0; k < nb; k++) {
      /* u (H) = W1^T (H x H) . a (H) */
      cblas_sgemv(CblasRowMajor, CblasTrans, H, H, 1.0f, tensor(n, NN_T_BLOCK(k, 0)), H, a, 1, 0.0f,
                  u, 1);
      nn_k_bias_relu(u, tensor(n, NN_T_BLOCK(k, 1)), 1, H);
      /* a (H) = a + W2^T (H x H) . u (H) */
      cblas_sgemv(CblasRowMajor, CblasTrans, H, H, 1.0f, tensor(n, NN_T_BLOCK(k, 2)), H, u, 1, 1.0f,
                  a, 1);
      nn_k_bias_relu(a, tensor(n, NN_T_BLOCK(k, 3)), 1, H);
    }
    /* head (O) = W_head^T (O x H) . a (H) */
    cblas_sgemv(CblasRowMajor, CblasTrans, H, O, 1.0f, tensor(n, NN_T_HEAD_W(nb)), O, a, 1, 0.0f,
                ws->head, 1);
    nn_k_bias(ws->head, tensor(n, NN_T_HEAD_B(nb)), 1, O);
    return;
  }
  nn_k_vecmat(a, x, tensor(n, NN_T_IN_W), tensor(n, NN_T_IN_B), NULL, NI, H, 1, ws->nz);
  for (int k = 0; k < nb; k++) {
    /* a is the skip input, so the block output goes to the other slot. */
    float *an = a == act_slot(ws, 0) ? act_slot(ws, 2) : act_slot(ws, 0);
    nn_k_vecmat(u, a, tensor(n, NN_T_BLOCK(k, 0)), tensor(n, NN_T_BLOCK(k, 1)), NULL, H, H, 1,
                ws->nz);
    nn_k_vecmat(an, u, tensor(n, NN_T_BLOCK(k, 2)), tensor(n, NN_T_BLOCK(k, 3)), a, H, H, 1,
                ws->nz);
    a = an;
  }
  nn_k_vecmat(ws->head, a, tensor(n, NN_T_HEAD_W(nb)), tensor(n, NN_T_HEAD_B(nb)), NULL, H, O, 0,
              ws->nz);
}

/* Masked softmax of z (A logits) into p; returns log(sum) - max form via
 * *lse so callers can take log-probabilities without log(0). Returns the
 * number of legal actions. */
static int masked_softmax(const float *z, uint32_t mask, int A, float *p, float *mx_out,
                          float *lse_out) {
  float mx = -INFINITY;
  int cnt = 0;
  for (int a = 0; a < A; a++)
    if (mask >> a & 1) {
      cnt++;
      if (z[a] > mx) mx = z[a];
    }
  if (cnt == 0) {
    for (int a = 0; a < A; a++) p[a] = 0.0f;
    *mx_out = 0.0f;
    *lse_out = 0.0f;
    return 0;
  }
  float sum = 0.0f;
  for (int a = 0; a < A; a++) {
    float e = (mask >> a & 1) ? expf(z[a] - mx) : 0.0f;
    p[a] = e;
    sum += e;
  }
  float inv = 1.0f / sum;
  for (int a = 0; a < A; a++) p[a] *= inv;
  *mx_out = mx;
  *lse_out = logf(sum);
  return cnt;
}

static uint32_t full_mask(int A) { return A >= 32 ? 0xffffffffu : (1u << A) - 1u; }

static void head_outputs(const nn_ws *ws, const uint32_t *legal, int B, float *policy, float *value,
                         float *score) {
  const int A = ws->cfg.n_actions, O = A + 2;
  const uint32_t all = full_mask(A);
  for (int b = 0; b < B; b++) {
    const float *z = ws->head + (size_t)b * O;
    if (policy) {
      float mx, lse;
      masked_softmax(z, legal ? legal[b] & all : all, A, policy + (size_t)b * A, &mx, &lse);
    }
    if (value) value[b] = tanhf(z[A]);
    if (score) score[b] = z[A + 1];
  }
}

int nn_forward(const nn_net *n, nn_ws *ws, const float *x, const uint32_t *legal, int batch,
               float *policy, float *value, float *score) {
  if (!ws_fits(n, ws, batch)) return -1;
  const nn_precision p = nn_precision_of(n);
  /* A batch of one in bf16: the batched kernel beat the fp32 loop by about
   * 10% (BENCHMARKS.md), so AUTO takes it there. */
  if (batch == 1 && (ws->small == NN_SMALL_SGEMV || ws->small == NN_SMALL_LOOP ||
                     (ws->small == NN_SMALL_AUTO && p == NN_PRECISION_FP32)))
    forward_one(n, ws, x, ws->small == NN_SMALL_SGEMV);
  else if (!(p == NN_PRECISION_BF16 && nn_bf16_forward(n, ws, x, batch) == 0) &&
           !(p == NN_PRECISION_INT8 && nn_int8_forward(n, ws, x, batch) == 0))
    forward_batch(n, ws, x, batch, 0);
  head_outputs(ws, legal, batch, policy, value, score);
  return 0;
}

/* One row in double precision: dvec holds a (H), u (H), out (O). */
static void naive_row(const nn_net *n, nn_ws *ws, const float *x) {
  const int NI = n->cfg.n_in, H = n->cfg.hidden, O = n->cfg.n_actions + 2;
  double *a = ws->dvec, *u = a + H, *out = u + H;
  const float *W = tensor(n, NN_T_IN_W), *bias = tensor(n, NN_T_IN_B);
  for (int j = 0; j < H; j++) {
    double s = bias[j];
    for (int i = 0; i < NI; i++) s += (double)x[i] * W[(size_t)i * H + j];
    a[j] = s > 0 ? s : 0;
  }
  for (int k = 0; k < n->cfg.blocks; k++) {
    const float *W1 = tensor(n, NN_T_BLOCK(k, 0)), *b1 = tensor(n, NN_T_BLOCK(k, 1));
    const float *W2 = tensor(n, NN_T_BLOCK(k, 2)), *b2 = tensor(n, NN_T_BLOCK(k, 3));
    for (int j = 0; j < H; j++) {
      double s = b1[j];
      for (int i = 0; i < H; i++) s += a[i] * W1[(size_t)i * H + j];
      u[j] = s > 0 ? s : 0;
    }
    for (int j = 0; j < H; j++) { /* a[j] is only read for output j */
      double s = b2[j] + a[j];
      for (int i = 0; i < H; i++) s += u[i] * W2[(size_t)i * H + j];
      a[j] = s > 0 ? s : 0;
    }
  }
  W = tensor(n, NN_T_HEAD_W(n->cfg.blocks));
  bias = tensor(n, NN_T_HEAD_B(n->cfg.blocks));
  for (int j = 0; j < O; j++) {
    double s = bias[j];
    for (int i = 0; i < H; i++) s += a[i] * W[(size_t)i * O + j];
    out[j] = s;
  }
}

/* Double-precision masked softmax; returns log-sum-exp relative to max. */
static void naive_softmax(const double *z, uint32_t mask, int A, double *p, double *mx_out,
                          double *lse_out) {
  double mx = -INFINITY, sum = 0;
  for (int a = 0; a < A; a++)
    if ((mask >> a & 1) && z[a] > mx) mx = z[a];
  for (int a = 0; a < A; a++) {
    p[a] = (mask >> a & 1) ? exp(z[a] - mx) : 0.0;
    sum += p[a];
  }
  for (int a = 0; a < A; a++) p[a] = sum > 0 ? p[a] / sum : 0.0;
  *mx_out = mx;
  *lse_out = sum > 0 ? log(sum) : 0.0;
}

int nn_forward_naive(const nn_net *n, nn_ws *ws, const float *x, const uint32_t *legal, int batch,
                     float *policy, float *value, float *score) {
  if (!ws_fits(n, ws, batch)) return -1;
  const int NI = n->cfg.n_in, H = n->cfg.hidden, A = n->cfg.n_actions, O = A + 2;
  const uint32_t all = full_mask(A);
  double *out = ws->dvec + 2 * H, p[NN_MAX_ACTIONS];
  for (int b = 0; b < batch; b++) {
    naive_row(n, ws, x + (size_t)b * NI);
    for (int j = 0; j < O; j++) ws->head[(size_t)b * O + j] = (float)out[j];
    if (policy) {
      double mx, lse;
      naive_softmax(out, legal ? legal[b] & all : all, A, p, &mx, &lse);
      for (int a = 0; a < A; a++) policy[(size_t)b * A + a] = (float)p[a];
    }
    if (value) value[b] = (float)tanh(out[A]);
    if (score) score[b] = (float)out[A + 1];
  }
  return 0;
}

/* ---- Training ------------------------------------------------------------ */
nn_train_params nn_train_defaults(void) {
  nn_train_params p = {.w = {1.0f, 1.0f, 1.0f},
                       .beta1 = 0.9f,
                       .beta2 = 0.999f,
                       .eps = 1e-8f,
                       .weight_decay = 1e-4f,
                       .clip_norm = 0.0f};
  return p;
}

nn_trainer *nn_trainer_create(const nn_net *n, const nn_train_params *p, char *err, size_t errlen) {
  if (!(p->beta1 >= 0 && p->beta1 < 1) || !(p->beta2 >= 0 && p->beta2 < 1) || !(p->eps > 0) ||
      !(p->weight_decay >= 0) || !(p->clip_norm >= 0)) {
    errf(err, errlen,
         "bad optimiser settings (need 0 <= beta < 1, eps > 0, weight decay "
         ">= 0, clip >= 0)");
    return NULL;
  }
  nn_trainer *t = calloc(1, sizeof *t);
  size_t each = up64(n->n_params * sizeof(float));
  char *mem = t ? calloc_lines(3 * each) : NULL;
  if (!mem) {
    free(t);
    errf(err, errlen, "out of memory for the optimiser state");
    return NULL;
  }
  t->cfg = n->cfg;
  t->p = *p;
  t->n = n->n_params;
  t->mem = mem;
  t->grad = (float *)mem;
  t->m = (float *)(mem + each);
  t->v = (float *)(mem + 2 * each);
  return t;
}

void nn_trainer_free(nn_trainer *t) {
  if (!t) return;
  nn_shards_free(t->shards);
  free(t->mem);
  free(t);
}

uint64_t nn_trainer_steps(const nn_trainer *t) { return t->step; }
const float *nn_trainer_grad(const nn_trainer *t) { return t->grad; }

static float huber_grad(float e) { return e > 1.0f ? 1.0f : e < -1.0f ? -1.0f : e; }
static double huber(double e) {
  double a = fabs(e);
  return a <= 1.0 ? 0.5 * e * e : a - 0.5;
}

/* Losses and dL/d(head outputs) into ws->dhead. Sums in double. */
static void head_loss(const nn_ws *ws, const nn_loss_weights *w, const uint32_t *legal,
                      const float *tp, const float *tv, const float *ts, int B, nn_losses *L,
                      int *decisive_out, int *right_out) {
  const int A = ws->cfg.n_actions, O = A + 2;
  const uint32_t all = full_mask(A);
  const float inv = 1.0f / (float)B;
  const float wp = w->policy * inv, wv = w->value * inv, wsc = ts ? w->score * inv : 0.0f;
  double ce = 0, ent = 0, vl = 0, sl = 0;
  int decisive = 0, right = 0;
  for (int b = 0; b < B; b++) {
    const float *z = ws->head + (size_t)b * O;
    float *p = ws->prob + (size_t)b * A, *d = ws->dhead + (size_t)b * O;
    const float *t = tp + (size_t)b * A;
    uint32_t m = legal ? legal[b] & all : all;
    float mx, lse;
    masked_softmax(z, m, A, p, &mx, &lse);
    float tsum = 0.0f;
    for (int a = 0; a < A; a++)
      if (m >> a & 1) {
        tsum += t[a];
        double logp = (double)z[a] - mx - lse;
        ce -= t[a] * logp;
        if (p[a] > 0) ent -= p[a] * logp;
      }
    for (int a = 0; a < A; a++) d[a] = (m >> a & 1) ? wp * (tsum * p[a] - t[a]) : 0.0f;
    float v = tanhf(z[A]), e = v - tv[b];
    vl += (double)e * e;
    d[A] = wv * 2.0f * e * (1.0f - v * v);
    if (tv[b] != 0.0f) {
      decisive++;
      right += (v > 0) == (tv[b] > 0) && v != 0.0f;
    }
    if (ts) {
      float es = z[A + 1] - ts[b];
      sl += huber(es);
      d[A + 1] = wsc * huber_grad(es);
    } else {
      d[A + 1] = 0.0f;
    }
  }
  L->policy = ce / B;
  L->value = vl / B;
  L->score = sl / B;
  L->total = w->policy * L->policy + w->value * L->value + (ts ? w->score * L->score : 0.0);
  L->entropy = ent / B;
  L->value_sign_acc = decisive ? (double)right / decisive : -1.0;
  L->grad_norm = 0.0;
  *decisive_out = decisive;
  *right_out = right;
}

#define grad_of(n, grad, i) ((grad) + (n)->tensors[i].offset)

void nn_loss_grad_rows(const nn_net *n, const nn_loss_weights *w, float *grad, nn_ws *ws,
                       const float *x, const uint32_t *legal, const float *target_policy,
                       const float *target_value, const float *target_score, int batch,
                       nn_losses *losses, int *decisive, int *right) {
  const int B = batch, NI = n->cfg.n_in, H = n->cfg.hidden, O = n->cfg.n_actions + 2,
            nb = n->cfg.blocks;
  forward_batch(n, ws, x, B, 1);
  head_loss(ws, w, legal, target_policy, target_value, target_score, B, losses, decisive, right);

  float *g1 = ws->g1, *g2 = ws->g2;
  const float *aL = act_slot(ws, 2 * nb);
  /* dW_head (H x O) = aL^T (H x B) . dhead (B x O) */
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, O, B, 1.0f, aL, H, ws->dhead, O, 0.0f,
              grad_of(n, grad, NN_T_HEAD_W(nb)), O);
  nn_k_colsum(ws->dhead, grad_of(n, grad, NN_T_HEAD_B(nb)), B, O);
  /* g1 (B x H) = dhead (B x O) . W_head^T (O x H) */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, O, 1.0f, ws->dhead, O,
              tensor(n, NN_T_HEAD_W(nb)), O, 0.0f, g1, H);
  for (int k = nb - 1; k >= 0; k--) {
    const float *ain = act_slot(ws, 2 * k), *u = act_slot(ws, 2 * k + 1),
                *aout = act_slot(ws, 2 * k + 2);
    /* g1 becomes the gradient at the block's output pre-activation, which
     * is also the gradient reaching a_k through the skip connection. */
    nn_k_relu_mask_colsum(g1, aout, grad_of(n, grad, NN_T_BLOCK(k, 3)), B, H);
    /* dW2 (H x H) = u^T (H x B) . g1 (B x H) */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, H, B, 1.0f, u, H, g1, H, 0.0f,
                grad_of(n, grad, NN_T_BLOCK(k, 2)), H);
    /* g2 (B x H) = g1 (B x H) . W2^T (H x H) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, H, 1.0f, g1, H,
                tensor(n, NN_T_BLOCK(k, 2)), H, 0.0f, g2, H);
    nn_k_relu_mask_colsum(g2, u, grad_of(n, grad, NN_T_BLOCK(k, 1)), B, H);
    /* dW1 (H x H) = a_k^T (H x B) . g2 (B x H) */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, H, B, 1.0f, ain, H, g2, H, 0.0f,
                grad_of(n, grad, NN_T_BLOCK(k, 0)), H);
    /* g1 (B x H) = g1 + g2 (B x H) . W1^T (H x H): beta = 1 adds the
     * block path to the skip path. */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, H, 1.0f, g2, H,
                tensor(n, NN_T_BLOCK(k, 0)), H, 1.0f, g1, H);
  }
  nn_k_relu_mask_colsum(g1, act_slot(ws, 0), grad_of(n, grad, NN_T_IN_B), B, H);
  /* dW_in (NI x H) = x^T (NI x B) . g1 (B x H) */
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, NI, H, B, 1.0f, x, NI, g1, H, 0.0f,
              grad_of(n, grad, NN_T_IN_W), H);
}

int nn_loss_grad(const nn_net *n, nn_trainer *t, nn_ws *ws, const float *x, const uint32_t *legal,
                 const float *target_policy, const float *target_value, const float *target_score,
                 int batch, nn_losses *losses) {
  if (!ws_fits(n, ws, batch) || !nn_config_equal(&n->cfg, &t->cfg)) return -1;
  nn_losses L;
  double sumsq;
  if (t->shards) {
    if (nn_shard_loss_grad(n, t, ws, x, legal, target_policy, target_value, target_score, batch, &L,
                           &sumsq) != 0)
      return -1;
  } else {
    int decisive, right;
    nn_loss_grad_rows(n, &t->p.w, t->grad, ws, x, legal, target_policy, target_value, target_score,
                      batch, &L, &decisive, &right);
    sumsq = nn_k_sumsq(t->grad, t->n);
  }
  L.grad_norm = sqrt(sumsq);
  if (losses) *losses = L;
  return 0;
}

void nn_adam_slice(nn_net *n, const nn_trainer *t, size_t lo, size_t hi, const nn_adam_step *st) {
  const nn_train_params *p = &t->p;
  for (int i = 0; i < n->n_tensors; i++) {
    const nn_tensor *tn = &n->tensors[i];
    size_t a = tn->offset, b = a + (size_t)tn->rows * tn->cols;
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    if (a >= b) continue;
    nn_k_adam(n->params + a, t->grad + a, t->m + a, t->v + a, b - a, st->gscale, st->lr,
              tn->decay ? p->weight_decay : 0.0f, p->beta1, p->beta2, st->bc1, st->bc2, p->eps);
  }
}

int nn_train_step(nn_net *n, nn_trainer *t, nn_ws *ws, const float *x, const uint32_t *legal,
                  const float *target_policy, const float *target_value, const float *target_score,
                  int batch, float lr, nn_losses *losses) {
  nn_losses L;
  if (nn_loss_grad(n, t, ws, x, legal, target_policy, target_value, target_score, batch, &L) != 0)
    return -1;
  const nn_train_params *p = &t->p;
  nn_adam_step st = {.gscale = 1.0f, .lr = lr};
  if (p->clip_norm > 0 && L.grad_norm > p->clip_norm)
    st.gscale = (float)(p->clip_norm / L.grad_norm);
  t->step++;
  st.bc1 = (float)(1.0 - pow(p->beta1, (double)t->step));
  st.bc2 = (float)(1.0 - pow(p->beta2, (double)t->step));
  if (t->shards)
    nn_shard_adam(n, t, &st);
  else
    nn_adam_slice(n, t, 0, t->n, &st);
  n->packed_fresh = 0; /* re-packing every step would tax training */
  if (losses) *losses = L;
  return 0;
}

int nn_loss_naive(const nn_net *n, nn_ws *ws, const nn_loss_weights *w, const float *x,
                  const uint32_t *legal, const float *target_policy, const float *target_value,
                  const float *target_score, int batch, nn_losses *losses) {
  if (!ws_fits(n, ws, batch)) return -1;
  const int NI = n->cfg.n_in, H = n->cfg.hidden, A = n->cfg.n_actions;
  const uint32_t all = full_mask(A);
  const double *out = ws->dvec + 2 * H;
  double ce = 0, ent = 0, vl = 0, sl = 0, p[NN_MAX_ACTIONS];
  int decisive = 0, right = 0;
  for (int b = 0; b < batch; b++) {
    naive_row(n, ws, x + (size_t)b * NI);
    uint32_t m = legal ? legal[b] & all : all;
    double mx, lse;
    naive_softmax(out, m, A, p, &mx, &lse);
    const float *t = target_policy + (size_t)b * A;
    for (int a = 0; a < A; a++)
      if (m >> a & 1) {
        double logp = out[a] - mx - lse;
        ce -= t[a] * logp;
        if (p[a] > 0) ent -= p[a] * logp;
      }
    double v = tanh(out[A]), e = v - target_value[b];
    vl += e * e;
    if (target_value[b] != 0.0f) {
      decisive++;
      right += (v > 0) == (target_value[b] > 0) && v != 0.0;
    }
    if (target_score) sl += huber(out[A + 1] - target_score[b]);
  }
  nn_losses L;
  L.policy = ce / batch;
  L.value = vl / batch;
  L.score = sl / batch;
  L.total = w->policy * L.policy + w->value * L.value + (target_score ? w->score * L.score : 0.0);
  L.entropy = ent / batch;
  L.value_sign_acc = decisive ? (double)right / decisive : -1.0;
  L.grad_norm = 0.0;
  if (losses) *losses = L;
  return 0;
}

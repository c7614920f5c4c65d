/* The int8 forward path: the residual blocks' dense layers as 8-bit integer
 * products summed in 32 bits, the input layer, the head, biases, skip
 * connections and ReLUs in fp32; each layer visits only the non-zero
 * inputs of a row where that pays (sparse rows, below).
 *
 * Quantisation. Weights: once per nn_set_precision / promotion / load, per
 * output column j, w8 = round(W[.][j] / sw[j]) with sw[j] = max |W[.][j]| /
 * 127, so w8 lies in -127..127. Activations: every block layer's input is a
 * ReLU output (>= 0), quantised per row (per position) as it is produced:
 * q = round(x / sa) with sa = max(row) / M, q in 0..M. The output of a
 * layer is acc * sa[row] * sw[col] + bias (+ skip). Per-row scales need no
 * calibration data, follow every position's own range, and keep a row's
 * scale independent of the batch it comes in; the row maximum costs one
 * pass over the activations (H values against H multiply-adds per value).
 *
 * M is 255 (8-bit activations) for the VNNI and portable kernels, and 127
 * for AVX2: AVX2 has no 8-bit dot product into 32 bits, vpmaddubsw sums two
 * u8 x s8 products into a saturating int16, and 127 x 127 x 2 = 32,258 never
 * saturates. On a trained net's positions 8-bit activations halved the
 * policy KL and cut the value's 99th-percentile error by a fifth
 * (BENCHMARKS.md). Kernels with the same M compute the same integers and
 * the same floats: the portable kernel is the exact reference of the VNNI
 * ones; the AVX2 kernel is held to a reference that quantises like it.
 *
 * Packed weight layout (K x N): panels of 32 columns (N padded with zero
 * columns), K rounded up to a multiple of 4 (zero rows); inside a panel,
 * for each group of four rows 4q..4q+3 and each column j, the four bytes
 * W[4q..4q+3][j] side by side: 128 bytes per group, the operand order of
 * vpdpbusd (and of vpmaddubsw + vpmaddwd), so one 32-bit broadcast of four
 * activations meets 8 or 16 columns per instruction. */
#include "nn/nn_int8_internal.h"
#include "nn/nn_internal.h"

#include "base/base.h"
#include "base/cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct nn_int8 {
  int n_layers; /* 2 per block: fc1, fc2 */
  i8_mat *m;
  void *mem;
};

/* ---- Kernels: choice ------------------------------------------------------- */
static atomic_int forced = NN_INT8_AUTO; /* nn_int8_force_kernel */

const char *nn_int8_kernel_name(nn_int8_kernel k) {
  switch (k) {
    case NN_INT8_AUTO:
      return "auto";
    case NN_INT8_PORTABLE:
      return "portable";
    case NN_INT8_AVX2:
      return "avx2";
    case NN_INT8_AVXVNNI:
      return "avxvnni";
    case NN_INT8_AVX512VNNI:
      return "avx512vnni";
  }
  return "?";
}

int nn_int8_kernel_parse(const char *s, nn_int8_kernel *k) {
  for (int i = NN_INT8_AUTO; i <= NN_INT8_AVX512VNNI; i++)
    if (s && strcmp(s, nn_int8_kernel_name((nn_int8_kernel)i)) == 0) {
      *k = (nn_int8_kernel)i;
      return 0;
    }
  return -1;
}

int nn_int8_kernel_supported(nn_int8_kernel k) {
#if NN_X86
  /* base/cpu.h reads what the OS enables, and knows AVX-VNNI where a
   * compiler's __builtin_cpu_supports may not (clang 14). */
  const unsigned f = cpu_features_once();
  const unsigned avx512 = CPU_F_AVX512F | CPU_F_AVX512BW | CPU_F_AVX512VL | CPU_F_AVX512_VNNI;
#endif
  switch (k) {
    case NN_INT8_AUTO:
    case NN_INT8_PORTABLE:
      return 1;
#if NN_X86
    case NN_INT8_AVX2:
      return (f & CPU_F_AVX2) != 0;
    case NN_INT8_AVXVNNI:
      return (f & (CPU_F_AVX2 | CPU_F_AVX_VNNI)) == (CPU_F_AVX2 | CPU_F_AVX_VNNI);
    case NN_INT8_AVX512VNNI:
      return (f & avx512) == avx512;
#else
    default:
      return 0;
#endif
  }
  return 0;
}

static nn_int8_kernel best_kernel(void) {
  static const nn_int8_kernel order[] = {NN_INT8_AVX512VNNI, NN_INT8_AVXVNNI, NN_INT8_AVX2};
  for (int i = 0; i < 3; i++)
    if (nn_int8_kernel_supported(order[i])) return order[i];
  return NN_INT8_PORTABLE;
}

int nn_int8_force_kernel(nn_int8_kernel k) {
  if (k < NN_INT8_AUTO || k > NN_INT8_AVX512VNNI || !nn_int8_kernel_supported(k)) return -1;
  atomic_store(&forced, (int)k);
  return 0;
}

/* SOWZERO_INT8_KERNEL, read once: a kernel, or -1 when unset, -2 when
 * it names no kernel this CPU runs (nn_int8_env_check reports it). */
static atomic_int env_kernel = -3; /* -3: not read yet */

static int from_env(void) {
  int k = atomic_load(&env_kernel);
  if (k != -3) return k;
  const char *s = getenv("SOWZERO_INT8_KERNEL");
  nn_int8_kernel p;
  k = !s || !*s                                                          ? -1
      : nn_int8_kernel_parse(s, &p) != 0 || !nn_int8_kernel_supported(p) ? -2
                                                                         : (int)p;
  atomic_store(&env_kernel, k);
  return k;
}

int nn_int8_env_check(char *err, size_t errlen) {
  if (from_env() != -2) return 0;
  errf(err, errlen,
       "SOWZERO_INT8_KERNEL=%s: not a kernel this CPU runs (auto, portable, avx2, avxvnni, "
       "avx512vnni, as the CPU has them)",
       getenv("SOWZERO_INT8_KERNEL"));
  return -1;
}

nn_int8_kernel nn_int8_kernel_in_use(void) {
  nn_int8_kernel k = (nn_int8_kernel)atomic_load(&forced);
  if (k != NN_INT8_AUTO) return k;
  int e = from_env();
  return e > NN_INT8_AUTO ? (nn_int8_kernel)e : best_kernel();
}

/* ---- Weights ----------------------------------------------------------------- */
static size_t mat_bytes(int K, int N) { return npanels(N) * PANEL * (size_t)k4(K); }

void nn_int8_free(struct nn_int8 *q) {
  if (!q) return;
  free(q->mem);
  free(q->m);
  free(q);
}

struct nn_int8 *nn_int8_alloc(const nn_config *c) {
  struct nn_int8 *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->n_layers = 2 * c->blocks;
  q->m = calloc((size_t)(q->n_layers ? q->n_layers : 1), sizeof *q->m);
  const int H = c->hidden;
  size_t each = (mat_bytes(H, H) + 63) & ~(size_t)63;
  size_t sc = (npanels(H) * PANEL * sizeof(float) + 63) & ~(size_t)63;
  size_t total = (size_t)q->n_layers * (each + sc);
  q->mem = q->m ? aligned_alloc(64, total ? total : 64) : NULL;
  if (!q->mem) {
    nn_int8_free(q);
    return NULL;
  }
  char *p = q->mem;
  for (int i = 0; i < q->n_layers; i++) {
    q->m[i].K = H;
    q->m[i].N = H;
    q->m[i].w = (int8_t *)p;
    q->m[i].sw = (float *)(p + each);
    p += each + sc;
  }
  return q;
}

static void quantise_weights(i8_mat *m, const float *W) {
  const int K = m->K, N = m->N, Kq = k4(K);
  const size_t np = npanels(N);
  for (int j = 0; j < (int)(np * PANEL); j++) {
    float mx = 0.0f;
    for (int k = 0; j < N && k < K; k++) mx = fmaxf(mx, fabsf(W[(size_t)k * N + j]));
    m->sw[j] = mx / (float)127;
  }
  for (size_t p = 0; p < np; p++) {
    int8_t *dst = m->w + p * PANEL * (size_t)Kq;
    for (int k = 0; k < Kq; k++)
      for (int j = 0; j < PANEL; j++) {
        int jj = (int)p * PANEL + j;
        float v = k < K && jj < N && m->sw[jj] > 0 ? W[(size_t)k * N + jj] / m->sw[jj] : 0.0f;
        long r = lrintf(v);
        dst[(size_t)(k / 4) * PANEL * 4 + 4 * j + k % 4] = (int8_t)(r > 127    ? 127
                                                                    : r < -127 ? -127
                                                                               : r);
      }
  }
}

void nn_int8_refresh(nn_net *n) {
  if (!n->int8) return;
  for (int k = 0; k < n->cfg.blocks; k++)
    for (int h = 0; h < 2; h++)
      quantise_weights(&n->int8->m[2 * k + h], n->params + n->tensors[NN_T_BLOCK(k, 2 * h)].offset);
}

/* One layer: out = f(A W), through the sparse rows where at least an
 * eighth of the groups are zero (the break-even measured on AVX2) or the
 * batch is one row, else through the tiles. */
static void layer(const kernel_fns *f, int R, const i8_mat *m, const uint8_t *A, int lda,
                  const nzlists *L, const epi *e) {
  const int G = k4(m->K) / 4;
  if (!f->rows) {
    f->gemm(R, m, A, lda, e);
    return;
  }
  const long used = f->groups(A, R, lda, G, L); /* the lists, whichever runs */
  if (R == 1 || 8 * used <= 7 * (long)R * G)
    f->rows(R, m, A, lda, L, e);
  else
    f->gemm(R, m, A, lda, e);
}

/* ---- Forward ---------------------------------------------------------------- */
/* The whole network on up to NN_INT8_CHUNK rows at a time, every chunk in
 * the same buffers, so that activations stay in cache between layers. */
int nn_int8_forward(const nn_net *n, nn_ws *ws, const float *x, int B) {
  if (nn_precision_of(n) != NN_PRECISION_INT8) return -1;
  const kernel_fns f = nn_int8_kernel_fns(nn_int8_kernel_in_use());
  const quant_fn quant = f.quant;
  const int amax = f.amax;
  const nn_config *c = &n->cfg;
  const int NI = c->n_in, H = c->hidden, ld = k4(H), nb = c->blocks, O = c->n_actions + 2;
  const float *P = n->params;
  const nn_tensor *T = n->tensors;
  float *a = ws->act, *u = ws->act + (size_t)ws->max_batch * H;
  uint8_t *qa = ws->q8, *qu = ws->q8 + (size_t)NN_INT8_CHUNK * ld;
  float *sa = ws->q8s, *su = ws->q8s + NN_INT8_CHUNK;
  const nzlists L = {ws->q8nz, ws->q8nc, ld / 4};
  for (int r0 = 0; r0 < B; r0 += NN_INT8_CHUNK) {
    const int R = B - r0 < NN_INT8_CHUNK ? B - r0 : NN_INT8_CHUNK;
    const float *xr = x + (size_t)r0 * NI;
    float *head = ws->head + (size_t)r0 * O;
    /* The input layer in fp32: its inputs may be negative, and it is a
     * small share of the work (n_in x H of about 2 blocks x 2 H x H). */
    f.dense(xr, R, NI, P + T[NN_T_IN_W].offset, P + T[NN_T_IN_B].offset, H, 1, a, ws->nz);
    quant(a, R, H, amax, qa, ld, sa);
    for (int k = 0; k < nb; k++) {
      epi e1 = {P + T[NN_T_BLOCK(k, 1)].offset, NULL, sa, u, 1};
      layer(&f, R, &n->int8->m[2 * k], qa, ld, &L, &e1);
      quant(u, R, H, amax, qu, ld, su);
      /* a = relu(u W2 + b2 + a), in place: the residual stream stays fp32. */
      epi e2 = {P + T[NN_T_BLOCK(k, 3)].offset, a, su, a, 1};
      layer(&f, R, &n->int8->m[2 * k + 1], qu, ld, &L, &e2);
      if (k + 1 < nb) quant(a, R, H, amax, qa, ld, sa);
    }
    /* The head in fp32: its outputs are the policy logits and the value. */
    f.dense(a, R, H, P + T[NN_T_HEAD_W(nb)].offset, P + T[NN_T_HEAD_B(nb)].offset, O, 0, head,
            ws->nz);
  }
  return 0;
}

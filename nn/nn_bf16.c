/* The bfloat16 forward path: weights packed once into bf16 panels, dense
 * layers as a hand-written AVX512_BF16 GEMM accumulating in fp32, with the
 * bias, skip connection, ReLU and the bf16 copy of the output for the next
 * layer fused into the kernel's store.
 *
 * Why a hand kernel rather than oneDNN: Debian's oneDNN 2.6 bf16 matmul
 * (its avx512_core_bf16 brgemm, one primitive per layer and batch size,
 * weights pre-reordered, all activations bf16, bias/ReLU/skip as post-ops)
 * was timed against this path in one process (scripts/bench_onednn.c, three
 * runs): at batch 1 and 8 oneDNN is 1.16-1.30x slower (per-call overhead),
 * at 32 and 64 they tie, at 256 and 1024 oneDNN is 0-13% faster. Self-play
 * and gating batches are often small or ragged (the leaves of the games
 * still running), a search agent evaluates one position at a time,
 * oneDNN's primitives are made per shape, it keeps the residual stream in
 * bf16 where this path keeps fp32, and it would add a dependency (and an
 * OpenMP runtime). Both are 3.5-4x fp32 sgemm at batch 256.
 *
 * Layout of a packed weight W (K x N, row-major fp32 in the net): columns in
 * panels of 32 (the last panel 16 wide when N % 32 is 1..16), K rounded up to
 * even; inside a panel, for each pair of rows (2k, 2k+1) and each column j,
 * the two values W[2k][j], W[2k+1][j] side by side: the operand order
 * _mm512_dpbf16_ps wants, so one 64-byte load feeds 16 columns. Padding is
 * zero. */
#include "nn/nn_internal.h"

#include "base/base.h"
#include "base/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(NN_NO_BF16)
#define NN_HAVE_BF16 1
#include <immintrin.h>
#else
#define NN_HAVE_BF16 0
#endif

#define PANEL 32 /* columns per packed panel */
#define ROWS  8  /* rows per register tile: 8 x 32 columns = 16 accumulators */

struct nn_bf16 {
  int n_layers;
  nn_bf16_mat *m; /* n_layers: in, then fc1, fc2 per block, then head */
  uint16_t *mem;  /* all panels */
};

/* ---- Conversion ------------------------------------------------------------ */
/* Round to nearest even, as the hardware conversion does; NaN stays NaN. */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static int even(int k) { return (k + 1) & ~1; }
static size_t panels(int n) { return (size_t)(n + PANEL - 1) / PANEL; }
static size_t mat_elems(int k, int n) { return panels(n) * PANEL * (size_t)even(k); }

static void pack(nn_bf16_mat *m, const float *W) {
  const int K = m->K, N = m->N, Kp = even(K);
  for (size_t p = 0; p < panels(N); p++) {
    int j0 = (int)p * PANEL, w = N - j0 >= PANEL ? PANEL : (N - j0 > 16 ? PANEL : 16);
    uint16_t *dst = m->w + p * PANEL * (size_t)Kp;
    for (int k = 0; k < Kp; k += 2)
      for (int j = 0; j < w; j++)
        for (int h = 0; h < 2; h++) {
          int kk = k + h, jj = j0 + j;
          float v = kk < K && jj < N ? W[(size_t)kk * N + jj] : 0.0f;
          dst[(size_t)k * w + 2 * j + h] = to_bf16(v);
        }
  }
}

/* ---- CPU ------------------------------------------------------------------- */
static atomic_int cpu_allowed = 1;

void nn_bf16_allow(int allowed) { atomic_store(&cpu_allowed, allowed != 0); }

int nn_bf16_supported(void) {
  if (!atomic_load(&cpu_allowed)) return 0;
#if NN_HAVE_BF16
  /* base/cpu.h's reading: what the OS saves, less what SOWZERO_CPU_FEATURES
   * takes away (an AVX2 CPU shown on this one has no bf16 either). */
  const unsigned need = CPU_F_AVX512F | CPU_F_AVX512BW | CPU_F_AVX512VL | CPU_F_AVX512_BF16;
  return (cpu_features_once() & need) == need;
#else
  return 0;
#endif
}

/* ---- Precision of a net --------------------------------------------------- */
static void layer_shapes(const nn_config *c, int i, int *K, int *N) {
  int last = 1 + 2 * c->blocks;
  *K = i == 0 ? c->n_in : c->hidden;
  *N = i == last ? c->n_actions + 2 : c->hidden;
}

static int layer_tensor(const nn_config *c, int i) {
  if (i == 0) return NN_T_IN_W;
  if (i == 1 + 2 * c->blocks) return NN_T_HEAD_W(c->blocks);
  return NN_T_BLOCK((i - 1) / 2, (i - 1) % 2 ? 2 : 0); /* fc1, fc2 */
}

void nn_bf16_free(struct nn_bf16 *b) {
  if (!b) return;
  free(b->mem);
  free(b->m);
  free(b);
}

static struct nn_bf16 *bf16_alloc(const nn_config *c) {
  struct nn_bf16 *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->n_layers = 2 + 2 * c->blocks;
  b->m = calloc((size_t)b->n_layers, sizeof *b->m);
  size_t total = 0;
  for (int i = 0; i < b->n_layers; i++) {
    int K, N;
    layer_shapes(c, i, &K, &N);
    total += mat_elems(K, N);
  }
  b->mem = b->m ? aligned_alloc(64, (total * 2 + 63) & ~(size_t)63) : NULL;
  if (!b->mem) {
    nn_bf16_free(b);
    return NULL;
  }
  size_t off = 0;
  for (int i = 0; i < b->n_layers; i++) {
    nn_bf16_mat *m = &b->m[i];
    layer_shapes(c, i, &m->K, &m->N);
    m->w = b->mem + off;
    off += mat_elems(m->K, m->N);
  }
  return b;
}

void nn_packed_refresh(nn_net *n) {
  if (n->bf16)
    for (int i = 0; i < n->bf16->n_layers; i++)
      pack(&n->bf16->m[i], n->params + n->tensors[layer_tensor(&n->cfg, i)].offset);
  nn_int8_refresh(n);
  n->packed_fresh = 1;
}

nn_precision nn_precision_auto(void) {
  /* vpdpbusd does 64 multiply-adds where vdpbf16ps does 32, at the same
   * width and rate: measured, int8 on AVX512_VNNI ran 3x bf16 at batch 256
   * (BENCHMARKS.md), so it goes first; bf16 next; then int8 on 256-bit
   * kernels, 1.6-2x fp32; fp32 where no vector kernel runs. */
  nn_int8_kernel k = nn_int8_kernel_in_use();
  if (k == NN_INT8_AVX512VNNI) return NN_PRECISION_INT8;
  if (nn_bf16_supported()) return NN_PRECISION_BF16;
  return k != NN_INT8_PORTABLE ? NN_PRECISION_INT8 : NN_PRECISION_FP32;
}

int nn_set_precision(nn_net *n, nn_precision p, char *err, size_t errlen) {
  if (p != NN_PRECISION_AUTO && p != NN_PRECISION_FP32 && p != NN_PRECISION_BF16 &&
      p != NN_PRECISION_INT8) {
    errf(err, errlen, "unknown network precision %d", (int)p);
    return -1;
  }
  if (p == NN_PRECISION_BF16 && !nn_bf16_supported()) {
    errf(err, errlen, "precision bf16: this CPU or build has no AVX512_BF16");
    return -1;
  }
  if (p == NN_PRECISION_AUTO) p = nn_precision_auto();
  if (p == NN_PRECISION_INT8 && nn_int8_env_check(err, errlen) != 0) return -1;
  /* One packed copy at a time: the other one goes. */
  if (p != NN_PRECISION_BF16) {
    nn_bf16_free(n->bf16);
    n->bf16 = NULL;
  }
  if (p != NN_PRECISION_INT8) {
    nn_int8_free(n->int8);
    n->int8 = NULL;
  }
  if (p == NN_PRECISION_FP32) {
    n->packed_fresh = 0;
    return 0;
  }
  if (p == NN_PRECISION_BF16 && !n->bf16 && !(n->bf16 = bf16_alloc(&n->cfg))) {
    errf(err, errlen, "out of memory for the bf16 weights");
    return -1;
  }
  if (p == NN_PRECISION_INT8 && !n->int8 && !(n->int8 = nn_int8_alloc(&n->cfg))) {
    errf(err, errlen, "out of memory for the int8 weights");
    return -1;
  }
  nn_packed_refresh(n);
  return 0;
}

nn_precision nn_precision_of(const nn_net *n) {
  if (!n->packed_fresh) return NN_PRECISION_FP32;
  return n->bf16 ? NN_PRECISION_BF16 : n->int8 ? NN_PRECISION_INT8 : NN_PRECISION_FP32;
}

void nn_precision_describe(const nn_net *n, char *buf, size_t len) {
  nn_precision p = nn_precision_of(n);
  if (p == NN_PRECISION_INT8)
    snprintf(buf, len, "int8 %s", nn_int8_kernel_name(nn_int8_kernel_in_use()));
  else
    snprintf(buf, len, "%s", nn_precision_name(p));
}

const char *nn_precision_name(nn_precision p) {
  switch (p) {
    case NN_PRECISION_AUTO:
      return "auto";
    case NN_PRECISION_FP32:
      return "fp32";
    case NN_PRECISION_BF16:
      return "bf16";
    case NN_PRECISION_INT8:
      return "int8";
  }
  return "?";
}

/* ---- Kernel ------------------------------------------------------------------ */
#if NN_HAVE_BF16
/* Under ThreadSanitizer the kernel is left uninstrumented, as OpenBLAS is
 * for the fp32 path: instrumented it ran 10x slower than fp32 and starved
 * the timing-bound run tests. It touches only the caller's workspace and
 * the net's read-only weights. */
#ifdef __SANITIZE_THREAD__
#define NO_TSAN __attribute__((no_sanitize_thread))
#else
#define NO_TSAN
#endif
/* clang with ASan and UBSan both on spends minutes on the unrolled tiles
 * (either alone takes seconds), so there the kernel goes without UBSan; the
 * gcc sanitizer build (make asan) checks it with both. */
#if defined(__clang__) && defined(__SANITIZE_ADDRESS__)
#define NO_UBSAN __attribute__((no_sanitize("undefined")))
#elif defined(__clang__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_UBSAN __attribute__((no_sanitize("undefined")))
#endif
#endif
#ifndef NO_UBSAN
#define NO_UBSAN
#endif
#define TGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) NO_TSAN NO_UBSAN

/* What a layer writes: out (fp32, B x N) and/or outb (bf16, row stride
 * ldob); skip (fp32, B x N, may alias out) is added before the bias. */
typedef struct {
  const float *bias, *skip;
  float *out;
  uint16_t *outb;
  int ldob, relu, N;
} epi;

/* R rows x NV*16 columns starting at column j0, over all of K. R and NV are
 * constants at every call, so the loops unroll and acc stays in registers. */
TGT static inline __attribute__((always_inline)) void tile(const int R, const int NV,
                                                           const uint16_t *a, int lda,
                                                           const uint16_t *wp, int K2, int j0,
                                                           const epi *e) {
  __m512 acc[ROWS][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; r++) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
  for (int k = 0; k < K2; k++) {
    __m512bh w0 = (__m512bh)_mm512_loadu_si512(wp + (size_t)k * NV * 32);
    __m512bh w1 = NV == 2 ? (__m512bh)_mm512_loadu_si512(wp + (size_t)k * 64 + 32) : w0;
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
      int32_t pair;
      memcpy(&pair, a + (size_t)r * lda + 2 * k, sizeof pair);
      __m512bh av = (__m512bh)_mm512_set1_epi32(pair);
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, w0);
      if (NV == 2) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, w1);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; r++)
#pragma GCC unroll 2
    for (int v = 0; v < NV; v++) {
      int j = j0 + 16 * v, nc = e->N - j;
      if (nc <= 0) break;
      __mmask16 m = nc >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nc) - 1u);
      size_t o = (size_t)r * e->N + j;
      __m512 y = acc[r][v];
      if (e->skip) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m, e->skip + o));
      y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m, e->bias + j));
      if (e->relu) y = _mm512_max_ps(y, _mm512_setzero_ps());
      if (e->out) _mm512_mask_storeu_ps(e->out + o, m, y);
      if (e->outb)
        _mm256_mask_storeu_epi16(e->outb + (size_t)r * e->ldob + j, m,
                                 (__m256i)_mm512_cvtneps_pbh(y));
    }
}

#define TILE_CASE(R)                     \
  case R:                                \
    if (nv == 2)                         \
      tile(R, 2, a, lda, wp, K2, j0, e); \
    else                                 \
      tile(R, 1, a, lda, wp, K2, j0, e); \
    break

/* Y = A W (+ skip) + bias, relu: A is B x K bf16 (row stride lda, even K
 * padded with a zero), W packed. Panels outside, row tiles inside: a panel
 * (K x 32 bf16, 16 KB at K = 256) stays in L1 while the rows stream. */
TGT static void gemm(int B, const nn_bf16_mat *w, const uint16_t *A, int lda, epi e0) {
  const int K2 = even(w->K) / 2, N = w->N;
  for (size_t p = 0; p < panels(N); p++) {
    const int j0 = (int)p * PANEL, nv = N - j0 > 16 ? 2 : 1;
    const uint16_t *wp = w->w + p * PANEL * (size_t)even(w->K);
    for (int r0 = 0; r0 < B; r0 += ROWS) {
      epi ev = e0, *e = &ev;
      if (e->skip) e->skip += (size_t)r0 * N;
      if (e->out) e->out += (size_t)r0 * N;
      if (e->outb) e->outb += (size_t)r0 * e->ldob;
      const uint16_t *a = A + (size_t)r0 * lda;
      switch (B - r0 >= ROWS ? ROWS : B - r0) {
        TILE_CASE(8);
        TILE_CASE(7);
        TILE_CASE(6);
        TILE_CASE(5);
        TILE_CASE(4);
        TILE_CASE(3);
        TILE_CASE(2);
        TILE_CASE(1);
      }
    }
  }
}

/* x (B x K fp32) to bf16 rows of stride ldx, the odd K's pad column zero. */
TGT static void convert_rows(const float *x, int B, int K, uint16_t *xb, int ldx) {
  for (int b = 0; b < B; b++) {
    const float *s = x + (size_t)b * K;
    uint16_t *d = xb + (size_t)b * ldx;
    for (int j = 0; j < K; j += 16) {
      int nc = K - j;
      __mmask16 m = nc >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nc) - 1u);
      __m512 v = _mm512_maskz_loadu_ps(m, s + j);
      _mm256_mask_storeu_epi16(d + j, m, (__m256i)_mm512_cvtneps_pbh(v));
    }
    if (K & 1) d[K] = 0;
  }
}

/* The whole network on up to CHUNK rows at a time, every chunk in the same
 * buffers: a chunk's activations stay in L1/L2 from layer to layer, and
 * only the weights stream. */
#ifndef NN_BF16_CHUNK
#define NN_BF16_CHUNK 64
#endif
TGT static void forward(const nn_net *n, nn_ws *ws, const float *x, int B) {
  const nn_config *c = &n->cfg;
  const int H = c->hidden, Hp = even(H), nb = c->blocks, O = c->n_actions + 2;
  const struct nn_bf16 *bf = n->bf16;
  const float *P = n->params;
  const nn_tensor *T = n->tensors;
  float *a = ws->act; /* slot 0: the residual stream in fp32 */
  uint16_t *xb = ws->bf_in, *ab = ws->bf_a;
  for (int r0 = 0; r0 < B; r0 += NN_BF16_CHUNK) {
    const int R = B - r0 < NN_BF16_CHUNK ? B - r0 : NN_BF16_CHUNK;
    convert_rows(x + (size_t)r0 * c->n_in, R, c->n_in, xb, even(c->n_in));
    epi e = {P + T[NN_T_IN_B].offset, NULL, a, ab, Hp, 1, H};
    gemm(R, &bf->m[0], xb, even(c->n_in), e);
    for (int k = 0; k < nb; k++) {
      /* u only feeds the next layer: bf16 alone, into the input buffer. */
      epi e1 = {P + T[NN_T_BLOCK(k, 1)].offset, NULL, NULL, xb, Hp, 1, H};
      gemm(R, &bf->m[1 + 2 * k], ab, Hp, e1);
      /* a = relu(u W2 + b2 + a), in place, and its bf16 copy. */
      epi e2 = {P + T[NN_T_BLOCK(k, 3)].offset, a, a, ab, Hp, 1, H};
      gemm(R, &bf->m[2 + 2 * k], xb, Hp, e2);
    }
    epi eh = {P + T[NN_T_HEAD_B(nb)].offset, NULL, ws->head + (size_t)r0 * O, NULL, 0, 0, O};
    gemm(R, &bf->m[1 + 2 * nb], ab, Hp, eh);
  }
}
#endif

int nn_bf16_forward(const nn_net *n, nn_ws *ws, const float *x, int batch) {
#if NN_HAVE_BF16
  if (nn_precision_of(n) != NN_PRECISION_BF16) return -1;
  forward(n, ws, x, batch);
  return 0;
#else
  (void)n, (void)ws, (void)x, (void)batch;
  return -1;
#endif
}

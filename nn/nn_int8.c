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
#include "nn/nn_internal.h"

#include "base/base.h"
#include "base/cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(NN_NO_INT8_SIMD)
#define NN_X86 1
#include <immintrin.h>
#else
#define NN_X86 0
#endif

#define PANEL 32 /* columns per packed panel */

typedef struct {
  int K, N;
  int8_t *w; /* panels, as above */
  float *sw; /* N column scales (padded to the panel width with 0) */
} i8_mat;

struct nn_int8 {
  int n_layers; /* 2 per block: fc1, fc2 */
  i8_mat *m;
  void *mem;
};

static int k4(int k) { return (k + 3) & ~3; }
static size_t npanels(int n) { return (size_t)(n + PANEL - 1) / PANEL; }

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

#if NN_X86
/* The CPU's features, read once: cpuid traps to the hypervisor in a
 * virtual machine (microseconds each), and every int8 forward asks which
 * kernel runs. */
static unsigned cpu_features_once(void) {
  static atomic_uint feat;
  static atomic_int known;
  if (!atomic_load(&known)) {
    cpu_info ci;
    cpu_detect(&ci);
    atomic_store(&feat, ci.features);
    atomic_store(&known, 1);
  }
  return atomic_load(&feat);
}
#endif

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

/* ---- Activations -------------------------------------------------------------- */
/* Row r of x (R x K fp32, >= 0) to q (stride ldq bytes, zero padding to
 * k4(K)) and its scale s[r]. */
static void quantise_rows(const float *x, int R, int K, int amax, uint8_t *q, int ldq, float *s) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * K;
    uint8_t *qr = q + (size_t)r * ldq;
    float mx = 0.0f;
    for (int k = 0; k < K; k++) mx = xr[k] > mx ? xr[k] : mx;
    const float inv = mx > 0.0f ? (float)amax / mx : 0.0f;
    for (int k = 0; k < K; k++) {
      float t = xr[k] * inv;
      t = t + 0.5f;
      qr[k] = (uint8_t)(int)(t > 0.0f ? t : 0.0f);
    }
    for (int k = K; k < ldq; k++) qr[k] = 0;
    s[r] = mx / (float)amax;
  }
}

/* What a layer writes: out = relu?(acc * sa[r] * sw[j] + bias[j] (+ skip)),
 * out and skip R x N fp32 (skip may alias out). */
typedef struct {
  const float *bias, *skip, *sa;
  float *out;
  int relu;
} epi;

static inline float finish(int32_t acc, float sa, float sw, const epi *e, size_t o, int j) {
  float y = (float)acc * (sa * sw) + e->bias[j];
  if (e->skip) y += e->skip[o];
  return e->relu && !(y > 0.0f) ? 0.0f : y;
}

/* The reference kernel, plain C: the same integers as the vector kernels,
 * the same float operations in the same order. */
static void gemm_portable(int R, const i8_mat *m, const uint8_t *A, int lda, const epi *e) {
  const int K4 = k4(m->K), N = m->N;
  for (int r = 0; r < R; r++)
    for (int j = 0; j < N; j++) {
      const int8_t *w = m->w + (size_t)(j / PANEL) * PANEL * K4 + 4 * (j % PANEL);
      const uint8_t *a = A + (size_t)r * lda;
      int32_t acc = 0;
      for (int q = 0; q < K4 / 4; q++)
        for (int h = 0; h < 4; h++) acc += (int32_t)a[4 * q + h] * w[(size_t)q * PANEL * 4 + h];
      size_t o = (size_t)r * N + j;
      e->out[o] = finish(acc, e->sa[r], m->sw[j], e, o, j);
    }
}

/* ---- Sparse rows ------------------------------------------------------------
 * A ReLU output is mostly zeros: on the shipped Oware network's positions in
 * play, 67-91% of each block layer's inputs and 20-70% of their groups of
 * four (BENCHMARKS.md). A zero group adds nothing to any sum, so the row
 * kernels visit only a row's non-zero groups, and the fp32 input layer and
 * head only its non-zero inputs: the same integers, fewer products. */

/* Each row's non-zero groups, for the row kernels: row r's group numbers
 * at idx + r * stride, cnt[r] of them. */
typedef struct {
  uint16_t *idx;
  int *cnt;
  int stride; /* the groups of a row */
} nzlists;

/* An fp32 layer a row at a time: y = b + x[i] W[i][.] summed over the
 * row's non-zero inputs in the order of i, then max(y, 0) if relu; x R x n,
 * W n x m, y R x m, nz scratch for n. Each step a fused multiply-add
 * (fmaf here, vfmadd in the vector version: both round once), so every
 * kernel gets the same floats and a row the same result in any batch. */
static void dense_rows(const float *x, int R, int n, const float *W, const float *b, int m,
                       int relu, float *y, int *nz) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * n;
    float *yr = y + (size_t)r * m;
    int k = 0;
    for (int i = 0; i < n; i++) {
      nz[k] = i;
      k += xr[i] != 0.0f;
    }
    for (int j = 0; j < m; j++) yr[j] = b[j];
    for (int t = 0; t < k; t++) {
      const float xs = xr[nz[t]], *w = W + (size_t)nz[t] * m;
      for (int j = 0; j < m; j++) yr[j] = fmaf(xs, w[j], yr[j]);
    }
    if (relu)
      for (int j = 0; j < m; j++) yr[j] = yr[j] > 0.0f ? yr[j] : 0.0f;
  }
}

#if NN_X86
/* Under ThreadSanitizer the kernels are left uninstrumented, as the bf16
 * kernel and OpenBLAS are: they touch only the caller's workspace and the
 * net's read-only weights. */
#ifdef __SANITIZE_THREAD__
#define NO_TSAN __attribute__((no_sanitize_thread))
#else
#define NO_TSAN
#endif
#define INLINE static inline __attribute__((always_inline))

/* Four activations as one 32-bit lane (a macro: a function would carry the
 * build's instruction set into kernels that must not use it). */
#define QUAD(p)          \
  (__extension__({       \
    int32_t v_;          \
    memcpy(&v_, (p), 4); \
    v_;                  \
  }))

/* ---- 256-bit kernels: AVX2 and AVX-VNNI ------------------------------------ */
/* The Makefile builds this file for a base x86-64 whatever ARCH says: on
 * top of -march=native on an AVX-512 CPU, target("avx2") would let the
 * compiler use AVX-512VL encodings and registers, and the AVX2 kernel
 * timed and tested there would not be the one an AVX2 CPU runs. */
#define T256  __attribute__((target("avx2"))) NO_TSAN
#define T256V __attribute__((target("avx2,avxvnni"))) NO_TSAN
#define T256F __attribute__((target("avx2,fma"))) NO_TSAN

/* The epilogue of 8 columns at j of row r; N - j may be < 8. */
T256 INLINE void store8(__m256i acc, int r, int j, int N, const float *sw, const epi *e) {
  __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(acc),
                           _mm256_mul_ps(_mm256_set1_ps(e->sa[r]), _mm256_loadu_ps(sw + j)));
  size_t o = (size_t)r * N + j;
  if (N - j >= 8) {
    y = _mm256_add_ps(y, _mm256_loadu_ps(e->bias + j));
    if (e->skip) y = _mm256_add_ps(y, _mm256_loadu_ps(e->skip + o));
    if (e->relu) y = _mm256_max_ps(y, _mm256_setzero_ps());
    _mm256_storeu_ps(e->out + o, y);
    return;
  }
  float t[8];
  _mm256_storeu_ps(t, y);
  for (int c = 0; c < N - j; c++) {
    float v = t[c] + e->bias[j + c];
    if (e->skip) v += e->skip[o + c];
    e->out[o + c] = e->relu && !(v > 0.0f) ? 0.0f : v;
  }
}

/* R rows x 16 columns (two vectors, at column offset j within the panel).
 * VNNI selects vpdpbusd, else vpmaddubsw + vpmaddwd. */
#define TILE256(NAME, TGT, DOT)                                                                  \
  TGT INLINE void NAME(const int R, const uint8_t *a, int lda, const int8_t *wp, int K4, int j0, \
                       int jj, int N, const float *sw, const epi *e, int r0) {                   \
    __m256i acc[6][2];                                                                           \
    const __m256i ones = _mm256_set1_epi16(1);                                                   \
    (void)ones;                                                                                  \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] =                  \
        _mm256_setzero_si256();                                                                  \
    for (int q = 0; q < K4 / 4; q++) {                                                           \
      const int8_t *w = wp + (size_t)q * PANEL * 4 + 4 * jj;                                     \
      __m256i w0 = _mm256_loadu_si256((const __m256i *)w);                                       \
      __m256i w1 = _mm256_loadu_si256((const __m256i *)(w + 32));                                \
      _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                      \
        __m256i av = _mm256_set1_epi32(QUAD(a + (size_t)r * lda + 4 * q));                       \
        acc[r][0] = DOT(acc[r][0], av, w0);                                                      \
        acc[r][1] = DOT(acc[r][1], av, w1);                                                      \
      }                                                                                          \
    }                                                                                            \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) for (int v = 0; v < 2; v++) {            \
      int j = j0 + jj + 8 * v;                                                                   \
      if (j < N) store8(acc[r][v], r0 + r, j, N, sw, e);                                         \
    }                                                                                            \
  }

T256 INLINE __m256i dot_avx2(__m256i acc, __m256i a, __m256i w) {
  /* u8 x s8 pairs into int16 (at most 2 x 127 x 127: no saturation), then
   * pairs of int16 into int32. */
  __m256i p = _mm256_maddubs_epi16(a, w);
  return _mm256_add_epi32(acc, _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
}
TILE256(tile_avx2, T256, dot_avx2)

#if defined(__clang__) || __GNUC__ >= 11
T256V INLINE __m256i dot_avxvnni(__m256i acc, __m256i a, __m256i w) {
  return _mm256_dpbusd_avx_epi32(acc, a, w);
}
TILE256(tile_avxvnni, T256V, dot_avxvnni)
#endif

/* Panels outside, row tiles inside: a panel (K x 32 bytes, 8 KB at K =
 * 256) stays in L1 while the rows stream. */
#define GEMM256(NAME, TGT, TILE, ROWS)                                                    \
  TGT static void NAME(int B, const i8_mat *m, const uint8_t *A, int lda, const epi *e) { \
    const int K4 = k4(m->K), N = m->N;                                                    \
    for (size_t p = 0; p < npanels(N); p++) {                                             \
      const int j0 = (int)p * PANEL;                                                      \
      const int8_t *wp = m->w + p * PANEL * (size_t)K4;                                   \
      for (int jj = 0; jj < PANEL && j0 + jj < N; jj += 16)                               \
        for (int r0 = 0; r0 < B; r0 += ROWS) {                                            \
          const uint8_t *a = A + (size_t)r0 * lda;                                        \
          switch (B - r0 >= ROWS ? ROWS : B - r0) {                                       \
            case 6:                                                                       \
              TILE(6, a, lda, wp, K4, j0, jj, N, m->sw, e, r0);                           \
              break;                                                                      \
            case 5:                                                                       \
              TILE(5, a, lda, wp, K4, j0, jj, N, m->sw, e, r0);                           \
              break;                                                                      \
            case 4:                                                                       \
              TILE(4, a, lda, wp, K4, j0, jj, N, m->sw, e, r0);                           \
              break;                                                                      \
            case 3:                                                                       \
              TILE(3, a, lda, wp, K4, j0, jj, N, m->sw, e, r0);                           \
              break;                                                                      \
            case 2:                                                                       \
              TILE(2, a, lda, wp, K4, j0, jj, N, m->sw, e, r0);                           \
              break;                                                                      \
            default:                                                                      \
              TILE(1, a, lda, wp, K4, j0, jj, N, m->sw, e, r0);                           \
          }                                                                               \
        }                                                                                 \
    }                                                                                     \
  }
/* AVX2 needs a constant and a temporary beside the accumulators: 4 rows
 * (8 accumulators) fit the 16 registers; vpdpbusd needs neither: 6 rows. */
GEMM256(gemm_avx2, T256, tile_avx2, 4)
#if defined(__clang__) || __GNUC__ >= 11
GEMM256(gemm_avxvnni, T256V, tile_avxvnni, 6)
#endif

/* Sparse rows (any batch; batch 1 is play-time search): for each pair of
 * panels (16 KB at K = 256, kept in L1 while the rows stream), each row's
 * non-zero groups only, into eight independent sums. The tiles share a
 * weight vector between rows, this reads one per product: about 10% slower
 * on dense rows (AVX2), so layer() takes it where enough groups are zero.
 * The same integers and epilogue as the tiles, so the same floats. */
#define ROWS256(NAME, TGT, GROUP)                                                            \
  TGT static void NAME(int B, const i8_mat *m, const uint8_t *A, int lda, const nzlists *L,  \
                       const epi *e) {                                                       \
    const int K4 = k4(m->K), N = m->N;                                                       \
    const size_t np = npanels(N);                                                            \
    for (size_t p = 0; p < np; p += 2) {                                                     \
      const int8_t *w0 = m->w + p * PANEL * (size_t)K4;                                      \
      const int8_t *w1 = p + 1 < np ? w0 + PANEL * (size_t)K4 : w0;                          \
      for (int r = 0; r < B; r++) {                                                          \
        const uint8_t *a = A + (size_t)r * lda;                                              \
        const uint16_t *l = L->idx + (size_t)r * L->stride;                                  \
        __m256i acc[8];                                                                      \
        _Pragma("GCC unroll 8") for (int v = 0; v < 8; v++) acc[v] = _mm256_setzero_si256(); \
        for (int i = 0; i < L->cnt[r]; i++) GROUP;                                           \
        for (int v = 0; v < 8; v++) {                                                        \
          int j = (int)p * PANEL + 8 * v;                                                    \
          if (j < N) store8(acc[v], r, j, N, m->sw, e);                                      \
        }                                                                                    \
      }                                                                                      \
    }                                                                                        \
  }

/* One group, each sum through DOT. */
#define GROUP(DOT)                                                                              \
  do {                                                                                          \
    const __m256i av = _mm256_set1_epi32(QUAD(a + 4 * l[i]));                                   \
    const size_t o = (size_t)l[i] * PANEL * 4;                                                  \
    _Pragma("GCC unroll 4") for (int v = 0; v < 4; v++) {                                       \
      acc[v] = DOT(acc[v], av, _mm256_loadu_si256((const __m256i *)(w0 + o + 32 * v)));         \
      acc[4 + v] = DOT(acc[4 + v], av, _mm256_loadu_si256((const __m256i *)(w1 + o + 32 * v))); \
    }                                                                                           \
  } while (0)

ROWS256(rows_avx2, T256, GROUP(dot_avx2))
#if defined(__clang__) || __GNUC__ >= 11
ROWS256(rows_avxvnni, T256V, GROUP(dot_avxvnni))
#endif

/* Compaction four at a time: for each 4-bit mask, the positions of its
 * set bits as packed bytes (the scalar compaction waits on its count at
 * every value). */
static const uint32_t set_bits[16] = {0, 0,     1,     0x100,   2,     0x200,   0x201,   0x20100,
                                      3, 0x300, 0x301, 0x30100, 0x302, 0x30200, 0x30201, 0x3020100};

/* Row r's non-zero groups of four bytes, in order, eight groups at a time;
 * returns the count over all R rows. */
T256 static long nz_groups_avx2(const uint8_t *A, int R, int lda, int G, const nzlists *L) {
  long total = 0;
  for (int r = 0; r < R; r++) {
    const uint8_t *a = A + (size_t)r * lda;
    uint16_t *l = L->idx + (size_t)r * L->stride;
    int c = 0, q = 0;
    for (; q + 8 <= G; q += 8) {
      const __m256i z = _mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(a + 4 * q)),
                                           _mm256_setzero_si256());
      const unsigned msk = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(z)) & 0xffu;
      for (int h = 0; h < 8; h += 4) {
        const unsigned m4 = msk >> h & 15u;
        const __m128i ix = _mm_add_epi16(_mm_cvtepu8_epi16(_mm_cvtsi32_si128((int)set_bits[m4])),
                                         _mm_set1_epi16((short)(q + h)));
        _mm_storel_epi64((__m128i *)(l + c), ix);
        c += __builtin_popcount(m4);
      }
    }
    for (; q < G; q++) {
      l[c] = (uint16_t)q;
      c += QUAD(a + 4 * q) != 0;
    }
    L->cnt[r] = c;
    total += c;
  }
  return total;
}

/* The indices of x's non-zero values (NaN counts, as in C's x != 0), in
 * order, to nz; returns their count. */
T256F INLINE int nonzero_avx2(const float *x, int n, int *nz) {
  int k = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    const unsigned msk = (unsigned)_mm256_movemask_ps(
        _mm256_cmp_ps(_mm256_loadu_ps(x + i), _mm256_setzero_ps(), _CMP_NEQ_UQ));
    for (int h = 0; h < 8; h += 4) {
      const unsigned m4 = msk >> h & 15u;
      const __m128i ix = _mm_add_epi32(_mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)set_bits[m4])),
                                       _mm_set1_epi32(i + h));
      _mm_storeu_si128((__m128i *)(nz + k), ix);
      k += __builtin_popcount(m4);
    }
  }
  for (; i < n; i++) {
    nz[k] = i;
    k += x[i] != 0.0f;
  }
  return k;
}

/* dense_rows with AVX2 and FMA (every CPU with an int8 vector kernel has
 * them): 64 columns at a time in eight sums, then 8, then one. */
T256F static void dense_rows_avx2(const float *x, int R, int n, const float *W, const float *b,
                                  int m, int relu, float *y, int *nz) {
  const __m256 zero = _mm256_setzero_ps();
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * n;
    float *yr = y + (size_t)r * m;
    const int k = nonzero_avx2(xr, n, nz);
    int j = 0;
    for (; j + 64 <= m; j += 64) {
      __m256 acc[8];
#pragma GCC unroll 8
      for (int v = 0; v < 8; v++) acc[v] = _mm256_loadu_ps(b + j + 8 * v);
      for (int t = 0; t < k; t++) {
        const __m256 xs = _mm256_set1_ps(xr[nz[t]]);
        const float *w = W + (size_t)nz[t] * m + j;
#pragma GCC unroll 8
        for (int v = 0; v < 8; v++)
          acc[v] = _mm256_fmadd_ps(xs, _mm256_loadu_ps(w + 8 * v), acc[v]);
      }
#pragma GCC unroll 8
      for (int v = 0; v < 8; v++)
        _mm256_storeu_ps(yr + j + 8 * v, relu ? _mm256_max_ps(acc[v], zero) : acc[v]);
    }
    for (; j + 8 <= m; j += 8) {
      __m256 acc = _mm256_loadu_ps(b + j);
      for (int t = 0; t < k; t++)
        acc = _mm256_fmadd_ps(_mm256_set1_ps(xr[nz[t]]), _mm256_loadu_ps(W + (size_t)nz[t] * m + j),
                              acc);
      _mm256_storeu_ps(yr + j, relu ? _mm256_max_ps(acc, zero) : acc);
    }
    for (; j < m; j++) {
      float s = b[j];
      for (int t = 0; t < k; t++) s = fmaf(xr[nz[t]], W[(size_t)nz[t] * m + j], s);
      yr[j] = relu && !(s > 0.0f) ? 0.0f : s;
    }
  }
}

/* ---- 512-bit kernel: AVX512_VNNI ------------------------------------------------ */
#define T512    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) NO_TSAN
#define ROWS512 8

/* The epilogue of 16 columns at j of row r; N - j may be < 16. */
T512 INLINE void store16(__m512i acc, int r, int j, int N, const float *sw, const epi *e) {
  int nc = N - j;
  __mmask16 k = nc >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nc) - 1u);
  size_t o = (size_t)r * N + j;
  __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(acc),
                           _mm512_mul_ps(_mm512_set1_ps(e->sa[r]), _mm512_loadu_ps(sw + j)));
  y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(k, e->bias + j));
  if (e->skip) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(k, e->skip + o));
  if (e->relu) y = _mm512_max_ps(y, _mm512_setzero_ps());
  _mm512_mask_storeu_ps(e->out + o, k, y);
}

/* R rows x 32 columns: 16 accumulators in zmm registers. */
T512 INLINE void tile512(const int R, const uint8_t *a, int lda, const int8_t *wp, int K4, int j0,
                         int N, const float *sw, const epi *e, int r0) {
  __m512i acc[ROWS512][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (int q = 0; q < K4 / 4; q++) {
    __m512i w0 = _mm512_loadu_si512(wp + (size_t)q * PANEL * 4);
    __m512i w1 = _mm512_loadu_si512(wp + (size_t)q * PANEL * 4 + 64);
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
      __m512i av = _mm512_set1_epi32(QUAD(a + (size_t)r * lda + 4 * q));
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], av, w0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], av, w1);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; r++)
    for (int v = 0; v < 2; v++) {
      if (j0 + 16 * v >= N) break;
      store16(acc[r][v], r0 + r, j0 + 16 * v, N, sw, e);
    }
}

T512 static void gemm_avx512vnni(int B, const i8_mat *m, const uint8_t *A, int lda, const epi *e) {
  const int K4 = k4(m->K), N = m->N;
  for (size_t p = 0; p < npanels(N); p++) {
    const int j0 = (int)p * PANEL;
    const int8_t *wp = m->w + p * PANEL * (size_t)K4;
    for (int r0 = 0; r0 < B; r0 += ROWS512) {
      const uint8_t *a = A + (size_t)r0 * lda;
      switch (B - r0 >= ROWS512 ? ROWS512 : B - r0) {
        case 8:
          tile512(8, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        case 7:
          tile512(7, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        case 6:
          tile512(6, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        case 5:
          tile512(5, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        case 4:
          tile512(4, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        case 3:
          tile512(3, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        case 2:
          tile512(2, a, lda, wp, K4, j0, N, m->sw, e, r0);
          break;
        default:
          tile512(1, a, lda, wp, K4, j0, N, m->sw, e, r0);
      }
    }
  }
}

/* Sparse rows, as ROWS256: four panels (128 columns) at a time. */
T512 static void rows_avx512vnni(int B, const i8_mat *m, const uint8_t *A, int lda,
                                 const nzlists *L, const epi *e) {
  const int K4 = k4(m->K), N = m->N;
  const size_t np = npanels(N);
  for (size_t p = 0; p < np; p += 4) {
    const int8_t *w[4];
    for (size_t i = 0; i < 4; i++) w[i] = m->w + (p + i < np ? p + i : p) * PANEL * (size_t)K4;
    for (int r = 0; r < B; r++) {
      const uint8_t *a = A + (size_t)r * lda;
      const uint16_t *l = L->idx + (size_t)r * L->stride;
      __m512i acc[8];
#pragma GCC unroll 8
      for (int v = 0; v < 8; v++) acc[v] = _mm512_setzero_si512();
      for (int t = 0; t < L->cnt[r]; t++) {
        const __m512i av = _mm512_set1_epi32(QUAD(a + 4 * l[t]));
        const size_t o = (size_t)l[t] * PANEL * 4;
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
          acc[2 * i] = _mm512_dpbusd_epi32(acc[2 * i], av, _mm512_loadu_si512(w[i] + o));
          acc[2 * i + 1] =
              _mm512_dpbusd_epi32(acc[2 * i + 1], av, _mm512_loadu_si512(w[i] + o + 64));
        }
      }
      for (int v = 0; v < 8; v++) {
        int j = (int)p * PANEL + 16 * v;
        if (j < N) store16(acc[v], r, j, N, m->sw, e);
      }
    }
  }
}

/* The activation quantiser with AVX2 (every CPU with an int8 vector kernel
 * has it): the same float operations as quantise_rows, so the same bytes. */
T256 static void quantise_rows_avx2(const float *x, int R, int K, int amax, uint8_t *q, int ldq,
                                    float *s) {
  for (int r = 0; r < R; r++) {
    const float *xr = x + (size_t)r * K;
    uint8_t *qr = q + (size_t)r * ldq;
    /* Four running maxima: one would wait on vmaxps's latency at every
     * step. The maximum of the same values, so the same bytes. */
    __m256 m0 = _mm256_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
    int k = 0;
    for (; k + 32 <= K; k += 32) {
      m0 = _mm256_max_ps(m0, _mm256_loadu_ps(xr + k));
      m1 = _mm256_max_ps(m1, _mm256_loadu_ps(xr + k + 8));
      m2 = _mm256_max_ps(m2, _mm256_loadu_ps(xr + k + 16));
      m3 = _mm256_max_ps(m3, _mm256_loadu_ps(xr + k + 24));
    }
    for (; k + 8 <= K; k += 8) m0 = _mm256_max_ps(m0, _mm256_loadu_ps(xr + k));
    __m256 m8 = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
    /* Across the lanes in registers (through memory it was a chain of
     * scalar maxima); a maximum of zero or less counts as zero, as in
     * quantise_rows. */
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m8), _mm256_extractf128_ps(m8, 1));
    h = _mm_max_ps(h, _mm_shuffle_ps(h, h, _MM_SHUFFLE(1, 0, 3, 2)));
    h = _mm_max_ps(h, _mm_shuffle_ps(h, h, _MM_SHUFFLE(2, 3, 0, 1)));
    float mx = _mm_cvtss_f32(h) > 0.0f ? _mm_cvtss_f32(h) : 0.0f;
    for (; k < K; k++) mx = xr[k] > mx ? xr[k] : mx;
    const float inv = mx > 0.0f ? (float)amax / mx : 0.0f;
    const __m256 vinv = _mm256_set1_ps(inv), half = _mm256_set1_ps(0.5f);
    k = 0;
    for (; k + 32 <= K; k += 32) {
#define Q8(i)                                                                                    \
  _mm256_cvttps_epi32(                                                                           \
      _mm256_max_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(xr + k + 8 * (i)), vinv), half), \
                    _mm256_setzero_ps()))
      /* 32 int32 in 0..amax to bytes (in registers: an array went through
       * the stack); the packs interleave lanes, the permute puts them back
       * in order. */
      __m256i w01 = _mm256_packs_epi32(Q8(0), Q8(1)), w23 = _mm256_packs_epi32(Q8(2), Q8(3));
#undef Q8
      __m256i b = _mm256_packus_epi16(w01, w23);
      b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
      _mm256_storeu_si256((__m256i *)(qr + k), b);
    }
    for (; k < K; k++) {
      float y = xr[k] * inv;
      y = y + 0.5f;
      qr[k] = (uint8_t)(int)(y > 0.0f ? y : 0.0f);
    }
    for (k = K; k < ldq; k++) qr[k] = 0;
    s[r] = mx / (float)amax;
  }
}
#endif

typedef void (*gemm_fn)(int B, const i8_mat *m, const uint8_t *A, int lda, const epi *e);
typedef void (*rows_fn)(int B, const i8_mat *m, const uint8_t *A, int lda, const nzlists *L,
                        const epi *e);
typedef void (*quant_fn)(const float *x, int R, int K, int amax, uint8_t *q, int ldq, float *s);
typedef void (*dense_fn)(const float *x, int R, int n, const float *W, const float *b, int m,
                         int relu, float *y, int *nz);
typedef long (*groups_fn)(const uint8_t *A, int R, int lda, int G, const nzlists *L);

/* A kernel: its tiled and sparse-row products and the latter's lists, its
 * activation quantiser and range, and its fp32 row layer. */
typedef struct {
  gemm_fn gemm;
  rows_fn rows;
  groups_fn groups;
  quant_fn quant;
  dense_fn dense;
  int amax;
} kernel_fns;

static kernel_fns pick(nn_int8_kernel k) {
  /* The reference has no sparse rows: the same integers either way. */
  kernel_fns f = {gemm_portable, NULL,       NULL,
                  quantise_rows, dense_rows, k == NN_INT8_AVX2 ? 127 : 255};
#if NN_X86
  switch (k) {
    case NN_INT8_AVX512VNNI:
      f.gemm = gemm_avx512vnni;
      f.rows = rows_avx512vnni;
      break;
#if defined(__clang__) || __GNUC__ >= 11
    case NN_INT8_AVXVNNI:
      f.gemm = gemm_avxvnni;
      f.rows = rows_avxvnni;
      break;
#endif
    case NN_INT8_AVX2:
      f.gemm = gemm_avx2;
      f.rows = rows_avx2;
      break;
    default:
      return f;
  }
  f.groups = nz_groups_avx2;
  f.quant = quantise_rows_avx2;
  f.dense = dense_rows_avx2;
#else
  (void)k;
#endif
  return f;
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
  const kernel_fns f = pick(nn_int8_kernel_in_use());
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

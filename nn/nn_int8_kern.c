/* The int8 kernels (the packing and the arithmetic: nn_int8.c): the
 * portable reference, AVX2, AVX-VNNI and AVX512_VNNI, each with its tiles
 * for dense rows, its row kernel for sparse ones, its activation quantiser
 * and its fp32 row layer. */
#include "nn/nn_int8_internal.h"

#include <math.h>
#include <string.h>

#if NN_X86
#include <immintrin.h>
#endif

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

kernel_fns nn_int8_kernel_fns(nn_int8_kernel k) {
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

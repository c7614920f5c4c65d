/* Portable SGEMM and SGEMV (see blas_portable.h). The inner loops run along
 * contiguous rows, and the main case (B not transposed) keeps 4 x 16 tiles of
 * C in vector registers (SSE natively, SIMD128 in WebAssembly). */
#include "nn/blas_portable.h"

#include <stddef.h>
#include <string.h>

/* c[0..n) = beta c (beta 0 clears, whatever c held: CBLAS semantics). */
static void scale_row(float *c, int n, float beta) {
  if (beta == 0.0f)
    for (int j = 0; j < n; j++) c[j] = 0.0f;
  else if (beta != 1.0f)
    for (int j = 0; j < n; j++) c[j] *= beta;
}

/* Element (i, k) of op(A). */
static inline float at(const float *A, int lda, int trans, int i, int k) {
  return trans ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
}

/* Four floats: SSE natively, SIMD128 in WebAssembly. */
typedef float v4 __attribute__((vector_size(16)));
#define LD4(v, p) memcpy(&(v), (p), sizeof(v4))
#define ST4(p, v) memcpy((p), &(v), sizeof(v4))

/* C[i..i+4)[j0..j0+16) += alpha op(A)[i..i+4)[0..K) . B[0..K)[j0..j0+16) */
static void tile4x16(const float *A, int lda, int tra, const float *B, int ldb, float *C, int ldc,
                     int i, int j0, int K, float alpha) {
  v4 acc[4][4] = {{{0}}};
  for (int k = 0; k < K; k++) {
    const float *b = B + (size_t)k * ldb + j0;
    v4 b0, b1, b2, b3;
    LD4(b0, b), LD4(b1, b + 4), LD4(b2, b + 8), LD4(b3, b + 12);
    for (int r = 0; r < 4; r++) {
      const float a = at(A, lda, tra, i + r, k);
      const v4 va = {a, a, a, a};
      acc[r][0] += va * b0, acc[r][1] += va * b1, acc[r][2] += va * b2, acc[r][3] += va * b3;
    }
  }
  const v4 al = {alpha, alpha, alpha, alpha};
  for (int r = 0; r < 4; r++) {
    float *c = C + (size_t)(i + r) * ldc + j0;
    for (int q = 0; q < 4; q++) {
      v4 cv;
      LD4(cv, c + 4 * q);
      cv += al * acc[r][q];
      ST4(c + 4 * q, cv);
    }
  }
}

static void tile1x16(const float *A, int lda, int tra, const float *B, int ldb, float *C, int ldc,
                     int i, int j0, int K, float alpha) {
  v4 acc[4] = {{0}};
  for (int k = 0; k < K; k++) {
    const float *b = B + (size_t)k * ldb + j0;
    const float a = at(A, lda, tra, i, k);
    const v4 va = {a, a, a, a};
    for (int q = 0; q < 4; q++) {
      v4 bq;
      LD4(bq, b + 4 * q);
      acc[q] += va * bq;
    }
  }
  const v4 al = {alpha, alpha, alpha, alpha};
  float *c = C + (size_t)i * ldc + j0;
  for (int q = 0; q < 4; q++) {
    v4 cv;
    LD4(cv, c + 4 * q);
    cv += al * acc[q];
    ST4(c + 4 * q, cv);
  }
}

void nnp_sgemm(enum nnp_order order, enum nnp_trans ta, enum nnp_trans tb, int M, int N, int K,
               float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C,
               int ldc) {
  (void)order;
  const int tra = ta == NNP_TRANS;
  for (int i = 0; i < M; i++) scale_row(C + (size_t)i * ldc, N, beta);
  if (tb == NNP_TRANS) {
    /* op(B)[k][j] = B[j][k]: a dot product of op(A) row i with B row j. */
    for (int i = 0; i < M; i++) {
      float *c = C + (size_t)i * ldc;
      for (int j = 0; j < N; j++) {
        const float *b = B + (size_t)j * ldb;
        float s = 0.0f;
        if (!tra) {
          const float *a = A + (size_t)i * lda;
          for (int k = 0; k < K; k++) s += a[k] * b[k];
        } else {
          for (int k = 0; k < K; k++) s += A[(size_t)k * lda + i] * b[k];
        }
        c[j] += alpha * s;
      }
    }
    return;
  }
  /* Rows of C as sums of rows of B, c_i += (alpha op(A)[i][k]) b_k, in
   * tiles of 4 rows x 16 columns held in registers across the whole k loop. */
  int j0 = 0;
  for (; j0 + 16 <= N; j0 += 16) {
    int i = 0;
    for (; i + 4 <= M; i += 4) tile4x16(A, lda, tra, B, ldb, C, ldc, i, j0, K, alpha);
    for (; i < M; i++) tile1x16(A, lda, tra, B, ldb, C, ldc, i, j0, K, alpha);
  }
  if (j0 < N)
    for (int i = 0; i < M; i++) {
      float *c = C + (size_t)i * ldc;
      for (int k = 0; k < K; k++) {
        const float *b = B + (size_t)k * ldb;
        const float a = alpha * at(A, lda, tra, i, k);
        for (int j = j0; j < N; j++) c[j] += a * b[j];
      }
    }
}

void nnp_sgemv(enum nnp_order order, enum nnp_trans ta, int M, int N, float alpha, const float *A,
               int lda, const float *x, int incx, float beta, float *y, int incy) {
  (void)order;
  const int ny = ta == NNP_TRANS ? N : M;
  for (int j = 0; j < ny; j++)
    y[(size_t)j * incy] = beta == 0.0f ? 0.0f : beta * y[(size_t)j * incy];
  if (ta == NNP_TRANS) {
    /* y (N) += alpha A^T x: rows of A scaled by x[i]. */
    for (int i = 0; i < M; i++) {
      const float a = alpha * x[(size_t)i * incx];
      const float *r = A + (size_t)i * lda;
      if (incy == 1)
        for (int j = 0; j < N; j++) y[j] += a * r[j];
      else
        for (int j = 0; j < N; j++) y[(size_t)j * incy] += a * r[j];
    }
    return;
  }
  for (int i = 0; i < M; i++) {
    const float *r = A + (size_t)i * lda;
    float s = 0.0f;
    for (int j = 0; j < N; j++) s += r[j] * x[(size_t)j * incx];
    y[(size_t)i * incy] += alpha * s;
  }
}

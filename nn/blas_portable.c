/* Portable SGEMM and SGEMV (see blas_portable.h). The inner loops run along
 * contiguous rows so that compilers vectorise them (SSE/AVX natively, SIMD128
 * in WebAssembly); four rows of C share each loaded row of B. */
#include "nn/blas_portable.h"

#include <stddef.h>

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
  /* Rows of C as sums of rows of B: c_i += (alpha op(A)[i][k]) b_k. */
  int i = 0;
  for (; i + 4 <= M; i += 4) {
    float *c0 = C + (size_t)i * ldc, *c1 = c0 + ldc, *c2 = c1 + ldc, *c3 = c2 + ldc;
    for (int k = 0; k < K; k++) {
      const float *b = B + (size_t)k * ldb;
      const float a0 = alpha * at(A, lda, tra, i, k), a1 = alpha * at(A, lda, tra, i + 1, k),
                  a2 = alpha * at(A, lda, tra, i + 2, k), a3 = alpha * at(A, lda, tra, i + 3, k);
      for (int j = 0; j < N; j++) {
        const float bj = b[j];
        c0[j] += a0 * bj;
        c1[j] += a1 * bj;
        c2[j] += a2 * bj;
        c3[j] += a3 * bj;
      }
    }
  }
  for (; i < M; i++) {
    float *c = C + (size_t)i * ldc;
    for (int k = 0; k < K; k++) {
      const float *b = B + (size_t)k * ldb;
      const float a = alpha * at(A, lda, tra, i, k);
      for (int j = 0; j < N; j++) c[j] += a * b[j];
    }
  }
}

void nnp_sgemv(enum nnp_order order, enum nnp_trans ta, int M, int N, float alpha, const float *A,
               int lda, const float *x, int incx, float beta, float *y, int incy) {
  (void)order;
  const int ny = ta == NNP_TRANS ? N : M;
  for (int j = 0; j < ny; j++) y[(size_t)j * incy] = beta == 0.0f ? 0.0f : beta * y[(size_t)j * incy];
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

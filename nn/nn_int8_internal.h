/* The int8 path's parts shared by its forward pass (nn_int8.c) and its
 * kernels (nn_int8_kern.c): the packed weights, what a layer writes, the
 * sparse rows' lists and each kernel's functions. Not for other modules. */
#ifndef SOWZERO_NN_INT8_INTERNAL_H
#define SOWZERO_NN_INT8_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "nn/nn.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(NN_NO_INT8_SIMD)
#define NN_X86 1
#else
#define NN_X86 0
#endif

#define PANEL 32 /* columns per packed panel */

typedef struct {
  int K, N;
  int8_t *w; /* panels, as above */
  float *sw; /* N column scales (padded to the panel width with 0) */
} i8_mat;

static inline int k4(int k) { return (k + 3) & ~3; }
static inline size_t npanels(int n) { return (size_t)(n + PANEL - 1) / PANEL; }

/* What a layer writes: out = relu?(acc * sa[r] * sw[j] + bias[j] (+ skip)),
 * out and skip R x N fp32 (skip may alias out). */
typedef struct {
  const float *bias, *skip, *sa;
  float *out;
  int relu;
} epi;

/* Each row's non-zero groups, for the row kernels: row r's group numbers
 * at idx + r * stride, cnt[r] of them. */
typedef struct {
  uint16_t *idx;
  int *cnt;
  int stride; /* the groups of a row */
} nzlists;

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

/* The functions of kernel k (one this CPU runs; see nn_int8_kernel). */
kernel_fns nn_int8_kernel_fns(nn_int8_kernel k);

#endif

/* The part of CBLAS and OpenBLAS the network uses, in portable C, for
 * builds without OpenBLAS (the WebAssembly module: make web). nn.c includes
 * this instead of <cblas.h> when NN_PORTABLE_BLAS is defined; the macros
 * map the CBLAS names onto the nnp_ functions, so the network code is the
 * same in both builds. Row-major only, as nn.c calls them. The native build
 * compiles these too, and test_nn checks them against OpenBLAS. */
#ifndef SOWZERO_NN_BLAS_PORTABLE_H
#define SOWZERO_NN_BLAS_PORTABLE_H

enum nnp_order { NNP_ROW_MAJOR = 101 };
enum nnp_trans { NNP_NO_TRANS = 111, NNP_TRANS = 112 };

/* C (M x N) = alpha op(A) (M x K) . op(B) (K x N) + beta C */
void nnp_sgemm(enum nnp_order order, enum nnp_trans ta, enum nnp_trans tb, int M, int N, int K,
               float alpha, const float *A, int lda, const float *B, int ldb, float beta, float *C,
               int ldc);
/* y = alpha op(A) x + beta y, A is M x N */
void nnp_sgemv(enum nnp_order order, enum nnp_trans ta, int M, int N, float alpha, const float *A,
               int lda, const float *x, int incx, float beta, float *y, int incy);

#ifdef NN_PORTABLE_BLAS
#define CblasRowMajor               NNP_ROW_MAJOR
#define CblasNoTrans                NNP_NO_TRANS
#define CblasTrans                  NNP_TRANS
#define cblas_sgemm                 nnp_sgemm
#define cblas_sgemv                 nnp_sgemv
#define openblas_get_num_threads()  1
#define openblas_set_num_threads(n) ((void)(n))
#define openblas_get_config()       "portable C"
#define openblas_get_corename()     "none"
#endif

#endif

/* The elementwise passes around the GEMMs, the batch-1 vector-matrix loop
 * and AdamW's update.
 *
 * The passes are written with GCC vector extensions (16 floats per vector,
 * nn_kern_body.h) and, on x86-64 GCC, compiled three times: for AVX-512,
 * for AVX2 with FMA, and for the build's own target. Each call runs the body
 * of nn_kern_level(), the CPU's level as base/cpu.h reads it unless forced,
 * so that an AVX2 CPU's bodies run and are measured on an AVX-512 machine
 * too. The build has no FMA contraction (-std=c11), so every body gives the
 * same bits. */
#include "nn/nn_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "base/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NN_KERN_BODIES 1 /* a body per instruction set */
#else
#define NN_KERN_BODIES 0
#endif

/* Vectors of 16 floats for AVX-512, of 8 for the others: a vector wider
 * than the target's registers is split into several, and GCC then keeps
 * the batch-1 loop's accumulators in memory (an AVX2 body of 16 floats ran
 * 14x slower than this one). The width changes no result: every output
 * sums the same terms in the same order. */
typedef float vf16 __attribute__((vector_size(16 * 4)));
typedef int32_t vi16 __attribute__((vector_size(16 * 4)));
typedef float vf8 __attribute__((vector_size(8 * 4)));
typedef int32_t vi8 __attribute__((vector_size(8 * 4)));
typedef double vd __attribute__((vector_size(8 * 8)));

/* Unaligned loads and stores (memcpy compiles to one move). Macros rather
 * than functions so that no vector crosses a call boundary. */
#define LD(v, p) memcpy(&(v), (p), sizeof(VF))
#define ST(p, v) memcpy((p), &(v), sizeof(VF))
#define RELU(v)  ((v) = (VF)((VI)(v) & ((v) > (VF){0})))

#define VW       8
#define VF       vf8
#define VI       vi8
#define KB(name) name##_base
#include "nn/nn_kern_body.h"
#undef KB
#if NN_KERN_BODIES
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define KB(name) name##_avx2
#include "nn/nn_kern_body.h"
#undef KB
#pragma GCC pop_options
#undef VW
#undef VF
#undef VI
#define VW 16
#define VF vf16
#define VI vi16
#pragma GCC push_options
#pragma GCC target("avx512f")
#define KB(name) name##_avx512
#include "nn/nn_kern_body.h"
#undef KB
#pragma GCC pop_options
#endif

/* The body of the passes' level (nn.h): the CPU's as base/cpu.h reads it
 * (so SOWZERO_CPU_FEATURES can take AVX-512 away), read once; -1 until
 * then. */
static atomic_int kern_level = -1;

void nn_kern_force(int level) { atomic_store(&kern_level, level); }

int nn_kern_level(void) {
  int l = atomic_load(&kern_level);
  if (l < 0) {
    l = cpu_level(cpu_features_once());
    atomic_store(&kern_level, l);
  }
  return l;
}

#if NN_KERN_BODIES
/* The level read once a call (GCC's statement expression: this branch is
 * GCC's alone). */
#define PICK(name)                                                                             \
  ({                                                                                           \
    const int l_ = nn_kern_level();                                                            \
    l_ >= CPU_LEVEL_AVX512 ? name##_avx512 : l_ >= CPU_LEVEL_AVX2 ? name##_avx2 : name##_base; \
  })
#else
#define PICK(name) name##_base
#endif

void nn_k_bias_relu(float *c, const float *b, int rows, int cols) {
  PICK(nn_k_bias_relu)(c, b, rows, cols);
}
void nn_k_bias(float *c, const float *b, int rows, int cols) { PICK(nn_k_bias)(c, b, rows, cols); }
void nn_k_relu_mask_colsum(float *g, const float *a, float *db, int rows, int cols) {
  PICK(nn_k_relu_mask_colsum)(g, a, db, rows, cols);
}
void nn_k_colsum(const float *g, float *db, int rows, int cols) {
  PICK(nn_k_colsum)(g, db, rows, cols);
}
void nn_k_vecmat(float *y, const float *x, const float *W, const float *b, const float *s, int n,
                 int m, int relu, int *nz) {
  PICK(nn_k_vecmat)(y, x, W, b, s, n, m, relu, nz);
}
double nn_k_sumsq(const float *g, size_t n) { return PICK(nn_k_sumsq)(g, n); }

/* AdamW, in the PyTorch form: p *= 1 - lr wd; p -= (lr / bc1) m /
 * (sqrt(v) / sqrt(bc2) + eps). Vector extensions have no square root, and
 * going through memory to reach one stalls on store forwarding, so the body
 * is written once per instruction set with intrinsics and picked at run time.
 * Every version does the same IEEE operations in the same order (no FMA),
 * so results do not depend on the machine. */
#define ADAM_ARGS                                                                               \
  float *p, const float *g, float *m, float *v, size_t n, float gscale, float keep, float step, \
      float rb2, float b1, float b2, float eps
#define ADAM_TAIL(i0)                                                   \
  for (size_t k_ = (i0); k_ < n; k_++) {                                \
    float gk = g[k_] * gscale;                                          \
    m[k_] = b1 * m[k_] + (1.0f - b1) * gk;                              \
    v[k_] = b2 * v[k_] + (1.0f - b2) * (gk * gk);                       \
    p[k_] = p[k_] * keep - step * (m[k_] / (sqrtf(v[k_]) * rb2 + eps)); \
  }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ADAM_BODY(W, T, PFX)                                                                    \
  const T vg = PFX##_set1_ps(gscale), vkeep = PFX##_set1_ps(keep), vstep = PFX##_set1_ps(step), \
          vrb2 = PFX##_set1_ps(rb2), vb1 = PFX##_set1_ps(b1), vb2 = PFX##_set1_ps(b2),          \
          vc1 = PFX##_set1_ps(1.0f - b1), vc2 = PFX##_set1_ps(1.0f - b2),                       \
          veps = PFX##_set1_ps(eps);                                                            \
  size_t i = 0;                                                                                 \
  for (; i + (W) <= n; i += (W)) {                                                              \
    T gi = PFX##_mul_ps(PFX##_loadu_ps(g + i), vg);                                             \
    T mi = PFX##_add_ps(PFX##_mul_ps(vb1, PFX##_loadu_ps(m + i)), PFX##_mul_ps(vc1, gi));       \
    T vi_ = PFX##_add_ps(PFX##_mul_ps(vb2, PFX##_loadu_ps(v + i)),                              \
                         PFX##_mul_ps(vc2, PFX##_mul_ps(gi, gi)));                              \
    T den = PFX##_add_ps(PFX##_mul_ps(PFX##_sqrt_ps(vi_), vrb2), veps);                         \
    T pi = PFX##_sub_ps(PFX##_mul_ps(PFX##_loadu_ps(p + i), vkeep),                             \
                        PFX##_mul_ps(vstep, PFX##_div_ps(mi, den)));                            \
    PFX##_storeu_ps(m + i, mi);                                                                 \
    PFX##_storeu_ps(v + i, vi_);                                                                \
    PFX##_storeu_ps(p + i, pi);                                                                 \
  }                                                                                             \
  ADAM_TAIL(i)

__attribute__((target("avx512f"))) static void adam_avx512(ADAM_ARGS) {
  ADAM_BODY(16, __m512, _mm512)
}
__attribute__((target("avx"))) static void adam_avx(ADAM_ARGS) { ADAM_BODY(8, __m256, _mm256) }
static void adam_sse(ADAM_ARGS) { ADAM_BODY(4, __m128, _mm) }
#endif

void nn_k_adam(float *p, const float *g, float *m, float *v, size_t n, float gscale, float lr,
               float wd, float b1, float b2, float bc1, float bc2, float eps) {
  const float keep = 1.0f - lr * wd, step = lr / bc1, rb2 = 1.0f / sqrtf(bc2);
#if defined(__x86_64__) && defined(__GNUC__)
  const int level = nn_kern_level();
  if (level >= CPU_LEVEL_AVX512)
    adam_avx512(p, g, m, v, n, gscale, keep, step, rb2, b1, b2, eps);
  else if (level >= CPU_LEVEL_AVX)
    adam_avx(p, g, m, v, n, gscale, keep, step, rb2, b1, b2, eps);
  else
    adam_sse(p, g, m, v, n, gscale, keep, step, rb2, b1, b2, eps);
#else
  ADAM_TAIL(0)
#endif
}

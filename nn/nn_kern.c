/* The elementwise passes around the GEMMs and the batch-1 vector-matrix loop.
 *
 * The Makefile builds with -O2 for a generic x86-64, where GCC neither
 * vectorises these loops nor uses AVX. They are written with GCC vector
 * extensions (16 floats per vector) and, on x86-64 GCC, compiled three times
 * (AVX-512, AVX2, SSE2) with the loader picking the best at start-up, so the
 * passes stay a few percent of the GEMM time. */
#include "nn/nn_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "base/cpu.h"

/* Not under ThreadSanitizer: GCC instruments the ifunc resolvers, which the
 * loader runs before the sanitizer's runtime is up. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define NN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NN_CLONES
#endif

#define VW 16
typedef float vf __attribute__((vector_size(VW * 4)));
typedef int32_t vi __attribute__((vector_size(VW * 4)));
typedef double vd __attribute__((vector_size(8 * 8)));
typedef float vf8 __attribute__((vector_size(8 * 4)));

/* Unaligned loads and stores (memcpy compiles to one move). Macros rather
 * than functions so that no vector crosses a call boundary. */
#define LD(v, p) memcpy(&(v), (p), sizeof(vf))
#define ST(p, v) memcpy((p), &(v), sizeof(vf))
#define RELU(v)  ((v) = (vf)((vi)(v) & ((v) > (vf){0})))

NN_CLONES void nn_k_bias_relu(float *c, const float *b, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    float *row = c + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      vf y, bb;
      LD(y, row + j);
      LD(bb, b + j);
      y += bb;
      RELU(y);
      ST(row + j, y);
    }
    for (; j < cols; j++) {
      float y = row[j] + b[j];
      row[j] = y > 0.0f ? y : 0.0f;
    }
  }
}

NN_CLONES void nn_k_bias(float *c, const float *b, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    float *row = c + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      vf y, bb;
      LD(y, row + j);
      LD(bb, b + j);
      y += bb;
      ST(row + j, y);
    }
    for (; j < cols; j++) row[j] += b[j];
  }
}

NN_CLONES void nn_k_relu_mask_colsum(float *g, const float *a, float *db, int rows, int cols) {
  memset(db, 0, sizeof(float) * (size_t)cols);
  for (int r = 0; r < rows; r++) {
    float *gr = g + (size_t)r * cols;
    const float *ar = a + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      vf gv, av, s;
      LD(gv, gr + j);
      LD(av, ar + j);
      LD(s, db + j);
      gv = (vf)((vi)gv & (av > (vf){0}));
      s += gv;
      ST(gr + j, gv);
      ST(db + j, s);
    }
    for (; j < cols; j++) {
      float v = ar[j] > 0.0f ? gr[j] : 0.0f;
      gr[j] = v;
      db[j] += v;
    }
  }
}

NN_CLONES void nn_k_colsum(const float *g, float *db, int rows, int cols) {
  memset(db, 0, sizeof(float) * (size_t)cols);
  for (int r = 0; r < rows; r++) {
    const float *gr = g + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      vf gv, s;
      LD(gv, gr + j);
      LD(s, db + j);
      s += gv;
      ST(db + j, s);
    }
    for (; j < cols; j++) db[j] += gr[j];
  }
}

/* Four vectors of outputs stay in registers while the non-zero input rows
 * stream past; after a ReLU about half the inputs are zero, which halves the
 * weight traffic that bounds a batch of one. */
NN_CLONES void nn_k_vecmat(float *y, const float *x, const float *W, const float *b, const float *s,
                           int n, int m, int relu, int *nz) {
  /* Branch-free compaction: zero and non-zero inputs come unpredictably. */
  int k = 0;
  for (int i = 0; i < n; i++) {
    nz[k] = i;
    k += x[i] != 0.0f;
  }
  int j = 0;
  for (; j + 4 * VW <= m; j += 4 * VW) {
    vf a0, a1, a2, a3;
    LD(a0, b + j);
    LD(a1, b + j + VW);
    LD(a2, b + j + 2 * VW);
    LD(a3, b + j + 3 * VW);
    for (int t = 0; t < k; t++) {
      const float *w = W + (size_t)nz[t] * m + j;
      float xs = x[nz[t]];
      vf w0, w1, w2, w3;
      LD(w0, w);
      LD(w1, w + VW);
      LD(w2, w + 2 * VW);
      LD(w3, w + 3 * VW);
      a0 += xs * w0;
      a1 += xs * w1;
      a2 += xs * w2;
      a3 += xs * w3;
    }
    if (s) {
      vf s0, s1, s2, s3;
      LD(s0, s + j);
      LD(s1, s + j + VW);
      LD(s2, s + j + 2 * VW);
      LD(s3, s + j + 3 * VW);
      a0 += s0;
      a1 += s1;
      a2 += s2;
      a3 += s3;
    }
    if (relu) {
      RELU(a0);
      RELU(a1);
      RELU(a2);
      RELU(a3);
    }
    ST(y + j, a0);
    ST(y + j + VW, a1);
    ST(y + j + 2 * VW, a2);
    ST(y + j + 3 * VW, a3);
  }
  for (; j + VW <= m; j += VW) {
    vf a0;
    LD(a0, b + j);
    for (int t = 0; t < k; t++) {
      vf w0;
      LD(w0, W + (size_t)nz[t] * m + j);
      a0 += x[nz[t]] * w0;
    }
    if (s) {
      vf s0;
      LD(s0, s + j);
      a0 += s0;
    }
    if (relu) RELU(a0);
    ST(y + j, a0);
  }
  for (; j < m; j++) {
    float acc = b[j];
    for (int t = 0; t < k; t++) acc += x[nz[t]] * W[(size_t)nz[t] * m + j];
    if (s) acc += s[j];
    y[j] = relu && !(acc > 0.0f) ? 0.0f : acc;
  }
}

NN_CLONES double nn_k_sumsq(const float *g, size_t n) {
  vd acc = {0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    vf8 f;
    memcpy(&f, g + i, sizeof f);
    vd d = __builtin_convertvector(f, vd);
    acc += d * d;
  }
  double s = 0;
  for (int l = 0; l < 8; l++) s += acc[l];
  for (; i < n; i++) s += (double)g[i] * g[i];
  return s;
}

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

/* The AdamW body's instruction set (nn.h): the CPU's as base/cpu.h reads
 * it (so SOWZERO_CPU_FEATURES can take AVX-512 away), read once; -1 until
 * then. */
static atomic_int adam_level = -1;

void nn_adam_force(int level) { atomic_store(&adam_level, level); }

int nn_adam_level(void) {
  int l = atomic_load(&adam_level);
  if (l < 0) {
    l = cpu_level(cpu_features_once());
    atomic_store(&adam_level, l);
  }
  return l;
}

void nn_k_adam(float *p, const float *g, float *m, float *v, size_t n, float gscale, float lr,
               float wd, float b1, float b2, float bc1, float bc2, float eps) {
  const float keep = 1.0f - lr * wd, step = lr / bc1, rb2 = 1.0f / sqrtf(bc2);
#if defined(__x86_64__) && defined(__GNUC__)
  const int level = nn_adam_level();
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

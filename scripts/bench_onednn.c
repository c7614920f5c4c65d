/* The default network's forward pass through oneDNN's bf16 matmul, timed in
 * the same process as nn_forward's own bf16 path: the measurement behind
 * the choice of a hand kernel (BENCHMARKS.md, "bf16"). Not part of the
 * build; needs Debian's libdnnl-dev:
 *
 *   make && cc -O2 -I. scripts/bench_onednn.c build/libsowzero.a \
 *       $(pkg-config --libs openblas) -ldnnl -lm -lpthread -o /tmp/bench_onednn
 *   OMP_NUM_THREADS=1 /tmp/bench_onednn
 *
 * oneDNN gets its best case: one primitive per layer and batch size, made
 * before timing, weights reordered once into the layout it asks for, every
 * activation in bf16 (the residual stream too, added by a sum post-op) and
 * bias + ReLU fused as post-ops. Only the input's f32 -> bf16 reorder is
 * timed with the layers, as nn_forward converts its input too. */
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nn/nn.h"

#define CK(x)                                                                 \
  do {                                                                        \
    dnnl_status_t s_ = (x);                                                   \
    if (s_ != dnnl_success) {                                                 \
      fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, s_); \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static dnnl_engine_t eng;
static dnnl_stream_t st;

static dnnl_memory_t mem(int rows, int cols, dnnl_data_type_t dt, void *data) {
  dnnl_memory_desc_t md;
  dnnl_dims_t d = {rows, cols};
  CK(dnnl_memory_desc_init_by_tag(&md, 2, d, dt, dnnl_ab));
  dnnl_memory_t m;
  CK(dnnl_memory_create(&m, &md, eng, data ? data : DNNL_MEMORY_ALLOCATE));
  return m;
}

static void reorder(dnnl_memory_t from, dnnl_memory_t to) {
  const dnnl_memory_desc_t *a, *b;
  CK(dnnl_memory_get_memory_desc(from, &a));
  CK(dnnl_memory_get_memory_desc(to, &b));
  dnnl_primitive_desc_t pd;
  CK(dnnl_reorder_primitive_desc_create(&pd, a, eng, b, eng, NULL));
  dnnl_primitive_t p;
  CK(dnnl_primitive_create(&p, pd));
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  CK(dnnl_primitive_execute(p, st, 2, args));
  CK(dnnl_stream_wait(st));
  dnnl_primitive_destroy(p);
  dnnl_primitive_desc_destroy(pd);
}

typedef struct {
  dnnl_primitive_t p;
  dnnl_memory_t w, b;
} layer;

/* dst (B x N) = relu?(src (B x K) W + bias (+ dst if sum)); W from the net's
 * fp32 weights, reordered once into the layout the primitive wants. */
static layer make_layer(int B, int K, int N, const float *W, const float *bias, int relu, int sum,
                        dnnl_data_type_t dst_dt) {
  dnnl_memory_desc_t src, wany, bmd, dst;
  CK(dnnl_memory_desc_init_by_tag(&src, 2, (dnnl_dims_t){B, K}, dnnl_bf16, dnnl_ab));
  CK(dnnl_memory_desc_init_by_tag(&wany, 2, (dnnl_dims_t){K, N}, dnnl_bf16, dnnl_format_tag_any));
  CK(dnnl_memory_desc_init_by_tag(&bmd, 2, (dnnl_dims_t){1, N}, dnnl_f32, dnnl_ab));
  CK(dnnl_memory_desc_init_by_tag(&dst, 2, (dnnl_dims_t){B, N}, dst_dt, dnnl_ab));
  dnnl_matmul_desc_t md;
  CK(dnnl_matmul_desc_init(&md, &src, &wany, &bmd, &dst));
  dnnl_post_ops_t po;
  CK(dnnl_post_ops_create(&po));
  if (sum) CK(dnnl_post_ops_append_sum(po, 1.0f));
  if (relu) CK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
  dnnl_primitive_attr_t attr;
  CK(dnnl_primitive_attr_create(&attr));
  CK(dnnl_primitive_attr_set_post_ops(attr, po));
  dnnl_primitive_desc_t pd;
  CK(dnnl_primitive_desc_create(&pd, &md, attr, eng, NULL));
  layer L;
  CK(dnnl_primitive_create(&L.p, pd));
  const dnnl_memory_desc_t *wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  CK(dnnl_memory_create(&L.w, wmd, eng, DNNL_MEMORY_ALLOCATE));
  dnnl_memory_t wf = mem(K, N, dnnl_f32, (void *)W);
  reorder(wf, L.w);
  dnnl_memory_destroy(wf);
  L.b = mem(1, N, dnnl_f32, (void *)bias);
  dnnl_primitive_attr_destroy(attr);
  dnnl_post_ops_destroy(po);
  dnnl_primitive_desc_destroy(pd);
  return L;
}

static void run(layer *L, dnnl_memory_t src, dnnl_memory_t dst) {
  dnnl_exec_arg_t args[4] = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, L->w}, {DNNL_ARG_BIAS, L->b}, {DNNL_ARG_DST, dst}};
  CK(dnnl_primitive_execute(L->p, st, 4, args));
}

int main(void) {
  nn_config c = nn_config_default();
  char err[256];
  nn_net *net = nn_create(&c, 1, err, sizeof err);
  if (!net || nn_set_precision(net, NN_PRECISION_BF16, err, sizeof err)) {
    fprintf(stderr, "%s\n", net ? err : "no net");
    return 1;
  }
  const dnnl_version_t *v = dnnl_version();
  printf("oneDNN %d.%d.%d (cpu runtime %u), network 64-256x2-6, one thread\n", v->major, v->minor,
         v->patch, v->cpu_runtime);
  printf("%6s %14s %14s %8s\n", "batch", "oneDNN pos/s", "nn bf16 pos/s", "nn/oneDNN");
  CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
  CK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
  const float *P = nn_params(net);
  const int NI = c.n_in, H = c.hidden, O = c.n_actions + 2;
  static const int batches[] = {1, 8, 32, 64, 256, 1024};
  float *x = malloc(sizeof(float) * 1024 * NI);
  for (int i = 0; i < 1024 * NI; i++) x[i] = (i * 7919 % 13) < 6 ? 0.0f : (float)(i % 17) / 17;
  nn_ws *ws = nn_ws_create(net, 1024, err, sizeof err);
  for (int bi = 0; bi < 6; bi++) {
    const int B = batches[bi];
    layer Ls[6];
    const nn_tensor *t = nn_tensor_at(net, 0);
    Ls[0] = make_layer(B, NI, H, P + t->offset, P + nn_tensor_at(net, 1)->offset, 1, 0, dnnl_bf16);
    for (int k = 0; k < c.blocks; k++) {
      const nn_tensor *w1 = nn_tensor_at(net, 2 + 4 * k), *w2 = nn_tensor_at(net, 4 + 4 * k);
      Ls[1 + 2 * k] = make_layer(B, H, H, P + w1->offset, P + nn_tensor_at(net, 3 + 4 * k)->offset,
                                 1, 0, dnnl_bf16);
      Ls[2 + 2 * k] = make_layer(B, H, H, P + w2->offset, P + nn_tensor_at(net, 5 + 4 * k)->offset,
                                 1, 1, dnnl_bf16);
    }
    const nn_tensor *hw = nn_tensor_at(net, 2 + 4 * c.blocks);
    Ls[5] = make_layer(B, H, O, P + hw->offset, P + nn_tensor_at(net, 3 + 4 * c.blocks)->offset, 0,
                       0, dnnl_f32);
    dnnl_memory_t xf = mem(B, NI, dnnl_f32, x), xb = mem(B, NI, dnnl_bf16, NULL);
    dnnl_memory_t a = mem(B, H, dnnl_bf16, NULL), u = mem(B, H, dnnl_bf16, NULL);
    dnnl_memory_t z = mem(B, O, dnnl_f32, NULL);
    const dnnl_memory_desc_t *xfd, *xbd;
    CK(dnnl_memory_get_memory_desc(xf, &xfd));
    CK(dnnl_memory_get_memory_desc(xb, &xbd));
    dnnl_primitive_desc_t rpd;
    CK(dnnl_reorder_primitive_desc_create(&rpd, xfd, eng, xbd, eng, NULL));
    dnnl_primitive_t rx;
    CK(dnnl_primitive_create(&rx, rpd));
    dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, xf}, {DNNL_ARG_TO, xb}};
    double rate[2];
    for (int which = 0; which < 2; which++) {
      long iters = 0;
      double t0 = 0;
      for (int pass = 0; pass < 2; pass++) { /* a warm-up pass, then the timed one */
        t0 = cpu_now();
        iters = 0;
        while (cpu_now() - t0 < (pass ? 0.5 : 0.05)) {
          if (which == 0) {
            CK(dnnl_primitive_execute(rx, st, 2, rargs));
            run(&Ls[0], xb, a);
            for (int k = 0; k < c.blocks; k++) {
              run(&Ls[1 + 2 * k], a, u);
              run(&Ls[2 + 2 * k], u, a);
            }
            run(&Ls[5], a, z);
            CK(dnnl_stream_wait(st));
          } else {
            nn_forward(net, ws, x, NULL, B, NULL, NULL, NULL);
          }
          iters++;
        }
      }
      rate[which] = (double)B * iters / (cpu_now() - t0);
    }
    printf("%6d %14.0f %14.0f %8.2f\n", B, rate[0], rate[1], rate[1] / rate[0]);
    for (int i = 0; i < 6; i++) {
      dnnl_primitive_destroy(Ls[i].p);
      dnnl_memory_destroy(Ls[i].w);
      dnnl_memory_destroy(Ls[i].b);
    }
    dnnl_primitive_destroy(rx);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(xf), dnnl_memory_destroy(xb), dnnl_memory_destroy(a);
    dnnl_memory_destroy(u), dnnl_memory_destroy(z);
  }
  nn_ws_free(ws);
  nn_free(net);
  free(x);
  dnnl_stream_destroy(st);
  dnnl_engine_destroy(eng);
  return 0;
}

/* nn internals shared by nn.c, nn_kern.c and nn_file.c. Not for other
 * modules. */
#ifndef SOWZERO_NN_INTERNAL_H
#define SOWZERO_NN_INTERNAL_H

#include "nn/nn.h"

#define NN_MAX_HIDDEN 4096
#define NN_MAX_IN     65536
#define NN_MAX_BLOCKS 64
#define NN_MAX_BATCH  (1 << 20)

/* Tensor indices: in.w, in.b, then 4 per block (fc1.w fc1.b fc2.w fc2.b),
 * then head.w, head.b. */
#define NN_T_IN_W           0
#define NN_T_IN_B           1
#define NN_T_BLOCK(k, j)    (2 + 4 * (k) + (j))
#define NN_T_HEAD_W(blocks) (2 + 4 * (blocks))
#define NN_T_HEAD_B(blocks) (3 + 4 * (blocks))

/* A weight matrix K x N packed for the bf16 kernel (layout in nn_bf16.c). */
typedef struct {
  int K, N;
  uint16_t *w;
} nn_bf16_mat;
struct nn_bf16;
struct nn_int8;

/* Rows per pass of the int8 forward (nn_int8.c). */
#define NN_INT8_CHUNK 64

struct nn_net {
  nn_config cfg;
  size_t n_params;
  float *params; /* n_params floats, 64-byte aligned, tensor-table order */
  int n_tensors;
  nn_tensor *tensors;   /* n_tensors entries */
  struct nn_bf16 *bf16; /* packed bf16 weights when the precision is bf16 */
  struct nn_int8 *int8; /* quantised weights when the precision is int8 */
  int packed_fresh;     /* 1: the bf16 or int8 copy matches params (writers
                           clear or refresh it) */
};

struct nn_ws {
  nn_config cfg;
  int max_batch;
  nn_small_path small;
  float *act;      /* (1 + 2 * blocks) x max_batch x H: a_0, u_0, a_1, u_1, ... */
  float *head;     /* max_batch x (A + 2): raw head outputs */
  float *prob;     /* max_batch x A: policy probabilities (training) */
  float *g1;       /* max_batch x H: backward gradient */
  float *g2;       /* max_batch x max(H, A + 2): backward gradient, and
                     scratch for transposed products in the forward pass */
  float *dhead;    /* max_batch x (A + 2): loss gradient at the head */
  double *dvec;    /* 2 * H + A + 2 + n_in: one row in double (naive path) */
  int *nz;         /* max(H, n_in) indices of non-zero inputs (the batch-1
                      loop, and the int8 path's fp32 row layers) */
  uint16_t *bf_in; /* max_batch x max(n_in, H) rounded up to even: bf16 layer input */
  uint16_t *bf_a;  /* max_batch x H rounded up to even: bf16 copy of the stream */
  uint8_t *q8;     /* 2 x NN_INT8_CHUNK x H rounded up to 4: int8 layer inputs */
  float *q8s;      /* 2 x NN_INT8_CHUNK: their row scales */
  uint16_t *q8nz;  /* NN_INT8_CHUNK x H/4 rounded up: each row's non-zero
                      groups of four inputs (the sparse kernels' lists) */
  int *q8nc;       /* NN_INT8_CHUNK: the lists' lengths */
  void *mem;       /* the one allocation behind the float buffers */
};

struct nn_shards;

struct nn_trainer {
  nn_config cfg;
  nn_train_params p;
  size_t n;
  uint64_t step;
  float *grad, *m, *v;      /* n floats each, parameter layout */
  struct nn_shards *shards; /* helper threads (nn_trainer_set_threads), or NULL */
  void *mem;
};

/* Offsets of the tensors for a config; fills up to 4 * blocks + 4 entries and
 * returns the parameter count. */
size_t nn_layout(const nn_config *c, nn_tensor *t);
int nn_config_check(const nn_config *c, char *err, size_t errlen);
int nn_config_equal(const nn_config *a, const nn_config *b);
/* Whole-net allocation helper used by nn_create and the loaders. */
nn_net *nn_alloc(const nn_config *c, char *err, size_t errlen);

/* ---- bf16 path (nn_bf16.c) ---------------------------------------------- */
void nn_bf16_free(struct nn_bf16 *b);
/* Re-packs the bf16 or int8 weights from params (if the net has them);
 * fresh again. */
void nn_packed_refresh(nn_net *n);
/* The trunk and head into ws->head in bf16; -1 if the net is not in bf16. */
int nn_bf16_forward(const nn_net *n, nn_ws *ws, const float *x, int batch);

/* ---- int8 path (nn_int8.c) ---------------------------------------------- */
struct nn_int8 *nn_int8_alloc(const nn_config *c);
void nn_int8_free(struct nn_int8 *q);
/* -1 with a message if SOWZERO_INT8_KERNEL names no kernel this CPU runs. */
int nn_int8_env_check(char *err, size_t errlen);
/* Re-quantises the weights from params (if the net has them). */
void nn_int8_refresh(nn_net *n);
/* The trunk and head into ws->head in int8; -1 if the net is not in int8. */
int nn_int8_forward(const nn_net *n, nn_ws *ws, const float *x, int batch);

/* C (B x N) = A (B x K) . W (K x N) + beta C through cblas_sgemm (nn.c);
 * scratch holds N x B floats. */
void nn_dense(int B, int N, int K, const float *A, const float *W, float beta, float *C,
              float *scratch);

/* ---- Training (nn.c, nn_shard.c) ------------------------------------------ */
/* Forward and backward of batch rows: the gradient of the weighted loss
 * (means over the rows) into grad (parameter layout), the losses without
 * grad_norm, and the counts behind value_sign_acc. */
void nn_loss_grad_rows(const nn_net *n, const nn_loss_weights *w, float *grad, nn_ws *ws,
                       const float *x, const uint32_t *legal, const float *target_policy,
                       const float *target_value, const float *target_score, int batch,
                       nn_losses *losses, int *decisive, int *right);
/* The same over the trainer's threads into t->grad, without grad_norm;
 * *sumsq gets the gradient's sum of squares. */
int nn_shard_loss_grad(const nn_net *n, nn_trainer *t, nn_ws *ws, const float *x,
                       const uint32_t *legal, const float *target_policy, const float *target_value,
                       const float *target_score, int batch, nn_losses *losses, double *sumsq);
/* One AdamW step's scalars: the gradient's clip scale, the learning rate
 * and the bias corrections. */
typedef struct {
  float gscale, lr, bc1, bc2;
} nn_adam_step;
/* AdamW on parameters [lo, hi) from t->grad (nn.c); elementwise, so slices
 * give what the whole does. */
void nn_adam_slice(nn_net *n, const nn_trainer *t, size_t lo, size_t hi, const nn_adam_step *st);
/* The same on the trainer's threads, each on its slice. */
void nn_shard_adam(nn_net *n, nn_trainer *t, const nn_adam_step *st);
void nn_shards_free(struct nn_shards *s);

/* ---- Kernels (nn_kern.c): the elementwise passes around the GEMMs, written
 * with vector extensions and compiled for several instruction sets. ------- */
/* c[r][j] = relu(c[r][j] + b[j]) */
void nn_k_bias_relu(float *c, const float *b, int rows, int cols);
/* c[r][j] += b[j] */
void nn_k_bias(float *c, const float *b, int rows, int cols);
/* g[r][j] = a[r][j] > 0 ? g[r][j] : 0; db[j] = sum_r g[r][j] */
void nn_k_relu_mask_colsum(float *g, const float *a, float *db, int rows, int cols);
/* db[j] = sum_r g[r][j] */
void nn_k_colsum(const float *g, float *db, int rows, int cols);
/* y[j] = b[j] + sum_i x[i] W[i][j] (+ s[j] if s) then relu if relu; W is
 * n x m row-major. Skips zero x[i]; nz is scratch for n ints. */
void nn_k_vecmat(float *y, const float *x, const float *W, const float *b, const float *s, int n,
                 int m, int relu, int *nz);
/* Sum of squares in double. */
double nn_k_sumsq(const float *g, size_t n);
/* One AdamW update of n parameters: decay (1 - lr wd) when wd > 0, moments,
 * bias-corrected step; g is scaled by gscale first. */
void nn_k_adam(float *p, const float *g, float *m, float *v, size_t n, float gscale, float lr,
               float wd, float b1, float b2, float bc1, float bc2, float eps);

#endif

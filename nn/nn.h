/* nn: the policy/value network — a residual MLP evaluated with one
 * cblas_sgemm per dense layer over the whole batch, its backward pass, AdamW,
 * and weight/checkpoint files. It knows nothing of games: it sees float
 * feature vectors, an action count (at most NN_MAX_ACTIONS), legal-action
 * bitmasks and training targets.
 *
 * Architecture (sizes from nn_config; A = n_actions, H = hidden):
 *   a_0     = relu(x W_in + b_in)                 x: batch x n_in
 *   block k = relu(a_k W1 + b1) -> u_k;  a_k+1 = relu(u_k W2 + b2 + a_k)
 *   out     = a_L W_head + b_head                 batch x (A + 2)
 *   policy  = softmax of out[:, 0..A) over the legal actions (illegal = 0)
 *   value   = tanh(out[:, A])     expected outcome for the player to move
 *   score   = out[:, A + 1]       predicted final seed margin, in whatever
 *                                 scale the caller's targets use
 * Everything is row-major; a weight W is stored in x out (so a layer is
 * Y = X W), all parameters live in ONE contiguous float array described by a
 * table of tensors (nn_tensor_at).
 *
 * Ownership and threads:
 *   - nn_net owns its parameters. nn_forward only reads the net, so any number
 *     of threads may evaluate one net at once, each with its own nn_ws.
 *     nn_train_step, nn_copy (as dst) and the loaders write the net: nobody
 *     may evaluate it meanwhile.
 *   - nn_ws (activations and gradients for up to max_batch rows) and
 *     nn_trainer (gradients, Adam moments, step counter) belong to one thread
 *     at a time. Nothing allocates after the _create calls.
 *   - BLAS: the callers' worker threads bring the parallelism, so nn_create
 *     calls nn_blas_single_thread(), which sets OpenBLAS to one thread for
 *     the whole process.
 *
 * Errors: functions taking (err, errlen) return 0 / a handle on success and
 * -1 / NULL on failure with a one-line message naming the file and problem.
 * The hot-path functions (forward, train step) return -1 only for caller bugs
 * (batch too large, mismatched workspace). */
#ifndef SOWZERO_NN_H
#define SOWZERO_NN_H

#include <stddef.h>
#include <stdint.h>

#define NN_MAX_ACTIONS 32  /* legal masks are uint32_t */
#define NN_GAME_MAX    32  /* nn_meta.game capacity, NUL included */
#define NN_RULES_MAX   512 /* nn_meta.rules capacity, NUL included */

/* ---- Shapes ------------------------------------------------------------- */
typedef struct {
  int n_in;      /* features per position */
  int hidden;    /* width of every hidden layer */
  int blocks;    /* residual blocks (two dense layers each); may be 0 */
  int n_actions; /* policy outputs, 1..NN_MAX_ACTIONS */
} nn_config;

/* The default Oware network: 64 inputs, 256 wide, 2 blocks, 6 actions. */
nn_config nn_config_default(void);
/* Multiply-adds x 2 of one forward pass for one position. */
double nn_flops_per_position(const nn_config *c);

/* One parameter tensor inside the flat array: rows x cols floats, row-major,
 * at params + offset. Biases have rows == 1. */
typedef struct {
  char name[24]; /* "in.w", "block0.fc1.b", "head.w", ... */
  size_t offset; /* in floats from the start of the parameter array */
  int rows, cols;
  int decay; /* 1: AdamW weight decay applies (weights, not biases) */
} nn_tensor;

/* ---- BLAS --------------------------------------------------------------- */
/* One OpenBLAS thread for the whole process (idempotent). */
void nn_blas_single_thread(void);
/* "OpenBLAS core Cooperlake, 1 thread (OpenBLAS 0.3.21 ...)". */
void nn_blas_info(char *buf, size_t len);

/* ---- Network ------------------------------------------------------------ */
typedef struct nn_net nn_net;

/* He-normal weights from seed (same seed and config: same weights), zero
 * biases. Fails on sizes out of range. */
nn_net *nn_create(const nn_config *c, uint64_t seed, char *err, size_t errlen);
void nn_free(nn_net *n);
/* Copies the parameters of src into dst; -1 if the configs differ. */
int nn_copy(nn_net *dst, const nn_net *src);
nn_config nn_config_of(const nn_net *n);
/* "64-256x2-6": inputs-width x blocks-actions, as messages write shapes. */
void nn_shape_string(const nn_config *c, char *buf, size_t len);
size_t nn_param_count(const nn_net *n);
/* The flat parameter array (nn_param_count floats), owned by the net. */
const float *nn_params(const nn_net *n);
float *nn_params_mut(nn_net *n);
/* The tensor table: nn_tensor_count entries in array order, no gaps. */
int nn_tensor_count(const nn_net *n);
const nn_tensor *nn_tensor_at(const nn_net *n, int i);

/* ---- Precision -------------------------------------------------------------
 * nn_forward can run the dense layers in bfloat16 (AVX512_BF16: bf16 weights
 * and activations, fp32 accumulation, bias, skip connections and heads in
 * fp32) or the residual blocks in int8 (8-bit weights quantised per output
 * column, 7-bit activations quantised per position, 32-bit integer sums;
 * input layer, head, biases and skip connections in fp32: nn_int8.c);
 * training always works on the fp32 parameters. The bf16 or int8 weights
 * are a copy owned by the net, made by nn_set_precision (it writes the
 * net: call it when a net is loaded or promoted, never while others
 * evaluate it). nn_copy (as dst), nn_load_into and nn_checkpoint_load
 * re-pack the copy; nn_train_step and nn_params_mut make it stale, and a
 * stale net evaluates in fp32 until nn_set_precision is called again, so
 * results never come from outdated weights. */
typedef enum {
  NN_PRECISION_AUTO = 0, /* nn_precision_auto's choice for this CPU */
  NN_PRECISION_FP32,
  NN_PRECISION_BF16, /* refused (-1) where the CPU or build lacks it */
  NN_PRECISION_INT8  /* runs everywhere; vector kernels where the CPU has them */
} nn_precision;

/* The fixed ranking: what nn_set_precision makes of AUTO on this CPU,
 * from the kernels' speeds once measured (BENCHMARKS.md): int8 where the
 * int8 kernel in use is AVX512_VNNI, else bf16 where the CPU has
 * AVX512_BF16, else int8 where a 256-bit int8 kernel runs (AVX2,
 * AVX-VNNI), else fp32. Runs and agents measure instead (nn_auto_choose,
 * below). A forced int8 kernel counts:
 * forcing AVX2 on an AVX-512 CPU makes AUTO what an AVX2 CPU's would be,
 * except for bf16. */
nn_precision nn_precision_auto(void);
/* 1 if this build and CPU can run the bf16 path. */
int nn_bf16_supported(void);
/* Tests: allowed = 0 makes nn_bf16_supported() 0, as on a CPU without
 * AVX512_BF16 (AUTO then picks int8 or fp32, BF16 is refused).
 * Process-wide. */
void nn_bf16_allow(int allowed);
/* Sets what nn_forward uses for n, converting the weights now for bf16 and
 * int8. */
int nn_set_precision(nn_net *n, nn_precision p, char *err, size_t errlen);
/* What nn_forward uses for n now: FP32, BF16 or INT8 (never AUTO). */
nn_precision nn_precision_of(const nn_net *n);
/* "auto", "fp32", "bf16", "int8". */
const char *nn_precision_name(nn_precision p);
/* What n evaluates in, for banners: "fp32", "bf16" or "int8 avx2" (with
 * the int8 kernel in use). */
void nn_precision_describe(const nn_net *n, char *buf, size_t len);

/* The int8 kernels. Each computes the same integers; AUTO is the best the
 * CPU runs (512-bit VNNI, then AVX-VNNI, then AVX2, then portable C). Every
 * kernel the CPU can run can be forced, process-wide, for tests and
 * benchmarks: nn_int8_force_kernel, or the environment variable
 * SOWZERO_INT8_KERNEL (a name as below, read once; nn_set_precision refuses
 * int8 while it names a kernel the CPU cannot run). The force wins over
 * the variable. */
typedef enum {
  NN_INT8_AUTO = 0,
  NN_INT8_PORTABLE,  /* plain C */
  NN_INT8_AVX2,      /* vpmaddubsw + vpmaddwd, 256-bit */
  NN_INT8_AVXVNNI,   /* vpdpbusd, 256-bit (AVX-VNNI) */
  NN_INT8_AVX512VNNI /* vpdpbusd, 512-bit (AVX512_VNNI) */
} nn_int8_kernel;
int nn_int8_kernel_supported(nn_int8_kernel k);
/* -1 (nothing changes) if the CPU or build cannot run k. */
int nn_int8_force_kernel(nn_int8_kernel k);
/* The kernel int8 forwards use now (never AUTO). */
nn_int8_kernel nn_int8_kernel_in_use(void);
/* "auto", "portable", "avx2", "avxvnni", "avx512vnni". */
const char *nn_int8_kernel_name(nn_int8_kernel k);
/* The kernel named s; -1 for an unknown name. */
int nn_int8_kernel_parse(const char *s, nn_int8_kernel *k);

/* ---- Workspace and forward pass ------------------------------------------- */
typedef struct nn_ws nn_ws;

/* Buffers for batches of up to max_batch rows of nets with n's config, for
 * both forward and training (about (2 * blocks + 3) * max_batch * hidden
 * floats). */
nn_ws *nn_ws_create(const nn_net *n, int max_batch, char *err, size_t errlen);
void nn_ws_free(nn_ws *ws);
int nn_ws_max_batch(const nn_ws *ws);

/* How nn_forward evaluates a batch of one position. AUTO is the fastest
 * measured on x86-64 with AVX-512: LOOP (which also skips the zero
 * activations) for an fp32 net, the batched kernel for a bf16 net; SGEMM
 * is the batched path in the net's precision, SGEMV and LOOP always fp32.
 * The others exist for benchmarks and tests. */
typedef enum {
  NN_SMALL_AUTO = 0,
  NN_SMALL_SGEMM, /* the batched path with batch 1 */
  NN_SMALL_SGEMV, /* cblas_sgemv per layer */
  NN_SMALL_LOOP   /* hand-written vector loop over the non-zero inputs */
} nn_small_path;
void nn_ws_set_small_path(nn_ws *ws, nn_small_path p);

/* Evaluates batch positions.
 *   x      batch x n_in features, row-major
 *   legal  batch masks (bit a: action a legal), or NULL: all legal. A row
 *          with no legal action gets an all-zero policy.
 *   policy batch x n_actions probabilities (0 for illegal actions), or NULL
 *   value  batch values in (-1, 1), or NULL
 *   score  batch score-margin predictions, or NULL
 * Returns 0, or -1 if batch is not in 1..max_batch or ws was made for
 * another config. Bit-for-bit deterministic for a given batch size. */
int nn_forward(const nn_net *n, nn_ws *ws, const float *x, const uint32_t *legal, int batch,
               float *policy, float *value, float *score);
/* Reference implementation: plain loops, double accumulation, same contract.
 * Slow; for tests. */
int nn_forward_naive(const nn_net *n, nn_ws *ws, const float *x, const uint32_t *legal, int batch,
                     float *policy, float *value, float *score);
/* The raw head outputs of the last nn_forward on ws: row b holds the
 * n_actions policy logits (unmasked), the value before tanh and the score, at
 * b * (n_actions + 2). Valid until ws is used again. */
const float *nn_ws_logits(const nn_ws *ws);

/* ---- AUTO by measurement ---------------------------------------------------
 * nn_precision_auto above is a ranking by CPU features; it is what
 * nn_set_precision makes of AUTO, for callers that know no batch size. A
 * run resolves AUTO with nn_auto_choose instead: on copies of the net, each
 * path this CPU runs (fp32; bf16 where nn_bf16_supported; int8 on
 * nn_int8_kernel_in_use's kernel) is timed at each batch size given, the
 * samples interleaved, 5 rounds of about 0.5 ms per path and batch, best
 * sample kept; the path whose worst slowdown against the fastest of each
 * batch is smallest is chosen (nn_auto_pick). Tens of milliseconds for the
 * default net; with the real clock, one measurement per shape, batch list
 * and kernel per process (later calls get it again, cached = 1).
 *
 * The environment variable SOWZERO_AUTO_PRECISION decides without timing:
 * fp32, bf16 or int8 (what AUTO becomes), or "fixed" (nn_precision_auto's
 * ranking, as deterministic runs and tests want). Allocates (copies of
 * the net, a workspace): call it when a run starts, never on a hot path.
 * n is only read. Thread-safe: threads that ask at once measure once. */
#define NN_AUTO_ENV         "SOWZERO_AUTO_PRECISION"
#define NN_AUTO_PATHS       3 /* fp32, bf16, int8: the columns of us */
#define NN_AUTO_MAX_BATCHES 4
typedef struct {
  nn_precision choice; /* FP32, BF16 or INT8 */
  int forced;          /* 1: SOWZERO_AUTO_PRECISION chose; nothing timed */
  int cached;          /* 1: an earlier call's measurement in this process */
  int n_batches;       /* batch sizes measured */
  int batch[NN_AUTO_MAX_BATCHES];
  double us[NN_AUTO_MAX_BATCHES][NN_AUTO_PATHS]; /* best microseconds per forward of
                                                    batch[b] rows for fp32, bf16, int8;
                                                    0: not run on this CPU */
  nn_int8_kernel int8_kernel;                    /* the int8 kernel timed */
  double seconds;                                /* wall time the measurement took */
} nn_auto_report;
/* Seconds that reps forward passes of batch rows of n (in its precision,
 * nn_precision_of) take: nn_forward(n, ws, x, NULL, batch, policy, value,
 * NULL) reps times on the wall clock when timer is NULL; tests pass their
 * own to inject times. A negative value: a forward pass failed, and so
 * does the measurement. */
typedef double (*nn_auto_timer)(void *ctx, const nn_net *n, nn_ws *ws, const float *x, int batch,
                                int reps, float *policy, float *value);
/* Fills r (r->choice: what AUTO takes) for n's shape at n_batches (1 to
 * NN_AUTO_MAX_BATCHES) batch sizes. -1 with a message on a bad
 * SOWZERO_AUTO_PRECISION, bad batch sizes, a failed forward pass or out
 * of memory. */
int nn_auto_choose(const nn_net *n, const int *batches, int n_batches, nn_auto_timer timer,
                   void *ctx, nn_auto_report *r, char *err, size_t errlen);
/* Called (process-wide, from the choosing thread) with each new choice
 * nn_auto_choose makes on the real clock: measured or forced, not cached.
 * The command line shows it to the user; NULL: nobody. */
typedef void (*nn_auto_observer)(void *ctx, const nn_auto_report *r);
void nn_auto_set_observer(nn_auto_observer fn, void *ctx);
/* The choice from r's times (r->us, r->n_batches): pure, for tests. */
nn_precision nn_auto_pick(const nn_auto_report *r);
/* One line for users: "precision auto: int8 avx512vnni, measured batch 64:
 * fp32 305 us bf16 425 us int8 126 us (48 ms)". */
void nn_auto_describe(const nn_auto_report *r, char *buf, size_t len);

/* ---- Training --------------------------------------------------------------
 * Loss per batch (means over the rows):
 *   policy: cross-entropy -sum_a t_a log p_a over the legal actions, p the
 *           masked softmax. Target mass on illegal actions is ignored.
 *   value:  mean squared error (v - z)^2.
 *   score:  Huber loss with delta 1 (0.5 e^2 for |e| <= 1, |e| - 0.5 beyond):
 *           margins have heavy tails, so large errors pull linearly.
 *   total = policy_w * policy + value_w * value + score_w * score. */
typedef struct {
  float policy, value, score;
} nn_loss_weights;

typedef struct {
  nn_loss_weights w;
  float beta1, beta2, eps; /* Adam */
  float weight_decay;      /* decoupled (AdamW), applied to weights only */
  float clip_norm;         /* clip the global gradient norm; 0: off */
} nn_train_params;

/* weights 1/1/1, betas 0.9/0.999, eps 1e-8, weight decay 1e-4, no clip */
nn_train_params nn_train_defaults(void);

typedef struct {
  double policy;         /* policy cross-entropy */
  double value;          /* value MSE */
  double score;          /* score Huber loss */
  double total;          /* weighted sum */
  double entropy;        /* mean entropy of the predicted policy */
  double value_sign_acc; /* share of decisive targets (z != 0) whose sign the
                            value matches; -1 when no target is decisive */
  double grad_norm;      /* global gradient L2 norm before clipping */
} nn_losses;

typedef struct nn_trainer nn_trainer;

/* Gradients and Adam moments for nets of n's config, step counter at 0. */
nn_trainer *nn_trainer_create(const nn_net *n, const nn_train_params *p, char *err, size_t errlen);
void nn_trainer_free(nn_trainer *t);
uint64_t nn_trainer_steps(const nn_trainer *t);

/* One AdamW step on a mini-batch: forward, backward, optional clipping,
 * update with learning rate lr (the schedule is the caller's). Targets:
 * target_policy batch x n_actions, target_value batch, target_score batch or
 * NULL (then the score term is left out). losses may be NULL. Deterministic
 * for the same inputs and state. Returns -1 on batch/shape misuse. */
int nn_train_step(nn_net *n, nn_trainer *t, nn_ws *ws, const float *x, const uint32_t *legal,
                  const float *target_policy, const float *target_value, const float *target_score,
                  int batch, float lr, nn_losses *losses);
/* The passes around the products (bias, ReLU and their gradients, the
 * batch-1 fp32 loop, the gradient's norm) and the AdamW update run one of
 * several bodies, by instruction set (CPU_LEVEL_* of base/cpu.h: the
 * passes have AVX-512, AVX2 and the build's own; the update AVX-512, AVX
 * and SSE): the CPU's level as base/cpu.h reads it, unless forced. Every
 * body gives the same bits. nn_kern_force(level) runs that level's bodies
 * (a level the CPU lacks is the caller's fault), -1 the CPU's again: how
 * tests and benchmarks run each on one machine. */
int nn_kern_level(void);
void nn_kern_force(int level);
/* The forward and backward halves of nn_train_step, without the update:
 * the gradient of the total loss lands in nn_trainer_grad (laid out like the
 * parameters). grad_norm is filled, nothing is clipped. */
int nn_loss_grad(const nn_net *n, nn_trainer *t, nn_ws *ws, const float *x, const uint32_t *legal,
                 const float *target_policy, const float *target_value, const float *target_score,
                 int batch, nn_losses *losses);
const float *nn_trainer_grad(const nn_trainer *t);
/* Training on threads threads (1..NN_MAX_TRAIN_THREADS): nn_train_step and
 * nn_loss_grad then split each batch into that many shards of consecutive
 * rows, run each shard's forward and backward pass on its own thread (the
 * caller's is one of them) with its own workspace and gradient, and sum
 * the gradients, weighted by rows, in shard order: deterministic for a
 * given thread count, but not bit for bit the one-thread result. The sum,
 * the norm and AdamW run on the threads too, each on a slice of the
 * parameters (the update itself is the one-thread update). Batches
 * smaller than 2 rows per thread use fewer shards. Starts the helper
 * threads and makes their buffers (for nets of n's config and batches up
 * to max_batch) now; 1 stops them. Not while a step runs. */
#define NN_MAX_TRAIN_THREADS 256
int nn_trainer_set_threads(nn_trainer *t, const nn_net *n, int threads, int max_batch, char *err,
                           size_t errlen);
int nn_trainer_threads(const nn_trainer *t);
/* The same losses computed in double precision from nn_forward_naive (for
 * finite-difference tests); grad_norm is 0. */
int nn_loss_naive(const nn_net *n, nn_ws *ws, const nn_loss_weights *w, const float *x,
                  const uint32_t *legal, const float *target_policy, const float *target_value,
                  const float *target_score, int batch, nn_losses *losses);

/* ---- Files -------------------------------------------------------------------
 * Format in docs/FORMATS.md ("Weight files"). Writes are atomic (temporary
 * file, fsync, rename). */
typedef struct {
  char game[NN_GAME_MAX];   /* game name, e.g. "oware" */
  char rules[NN_RULES_MAX]; /* the game's rule-options string (may be "") */
  int encoding;             /* version of the game's feature encoding */
  int n_features;           /* == config n_in (0 on save: take the config's) */
  int n_actions;            /* == config n_actions (0 on save: likewise) */
} nn_meta;

/* What a loader insists on. A zeroed nn_expect accepts any valid file; each
 * set field is compared with the file, and a difference refuses the load
 * with a message such as "best.weights: trained for game 'oware' but this
 * run plays 'warri'". Pointers are borrowed for the call only. */
typedef struct {
  const char *game;          /* NULL: any */
  const char *rules;         /* NULL: any */
  int encoding;              /* 0: any (encoding versions start at 1) */
  int n_features, n_actions; /* 0: any */
  const nn_config *config;   /* NULL: any shape; else all sizes must match */
} nn_expect;

/* Expect everything in m and c (either may be NULL: those fields are not
 * checked). The result points into m and c. */
nn_expect nn_expect_of(const nn_meta *m, const nn_config *c);

int nn_save(const nn_net *n, const nn_meta *meta, const char *path, char *err, size_t errlen);
/* A new net with the file's config and weights. expect NULL accepts any
 * valid file; meta_out (may be NULL) receives the file's metadata. */
nn_net *nn_load(const char *path, const nn_expect *expect, nn_meta *meta_out, char *err,
                size_t errlen);
/* Loads into an existing net, whose config the file must match; on failure
 * the net is unchanged. */
int nn_load_into(nn_net *n, const char *path, const nn_expect *expect, nn_meta *meta_out, char *err,
                 size_t errlen);

/* Training checkpoints: weights, Adam moments, step counter and an opaque
 * caller blob (counters, RNG states) of blob_len bytes. */
int nn_checkpoint_save(const nn_net *n, const nn_trainer *t, const nn_meta *meta, const void *blob,
                       size_t blob_len, const char *path, char *err, size_t errlen);
/* Restores into n and t (their config must match the file). The blob goes
 * to blob (capacity blob_cap; a larger stored blob is an error) and its
 * length to *blob_len. On failure n, t and blob are unchanged. */
int nn_checkpoint_load(nn_net *n, nn_trainer *t, const char *path, const nn_expect *expect,
                       nn_meta *meta_out, void *blob, size_t blob_cap, size_t *blob_len, char *err,
                       size_t errlen);

#endif

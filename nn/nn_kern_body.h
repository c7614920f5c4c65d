/* The bodies of nn/nn_kern.c's passes, included there once per
 * instruction set with KB(name) naming each copy: GCC vector extensions (16
 * floats a vector), compiled by the target of the including place. Not a
 * header of its own: nn_kern.c defines VW, VF, VI (VW floats and ints a
 * vector, as wide as the target's registers), vd, vf8, LD, ST and RELU. */

static void KB(nn_k_bias_relu)(float *c, const float *b, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    float *row = c + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      VF y, bb;
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

static void KB(nn_k_bias)(float *c, const float *b, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    float *row = c + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      VF y, bb;
      LD(y, row + j);
      LD(bb, b + j);
      y += bb;
      ST(row + j, y);
    }
    for (; j < cols; j++) row[j] += b[j];
  }
}

static void KB(nn_k_relu_mask_colsum)(float *g, const float *a, float *db, int rows, int cols) {
  memset(db, 0, sizeof(float) * (size_t)cols);
  for (int r = 0; r < rows; r++) {
    float *gr = g + (size_t)r * cols;
    const float *ar = a + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      VF gv, av, s;
      LD(gv, gr + j);
      LD(av, ar + j);
      LD(s, db + j);
      gv = (VF)((VI)gv & (av > (VF){0}));
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

static void KB(nn_k_colsum)(const float *g, float *db, int rows, int cols) {
  memset(db, 0, sizeof(float) * (size_t)cols);
  for (int r = 0; r < rows; r++) {
    const float *gr = g + (size_t)r * cols;
    int j = 0;
    for (; j + VW <= cols; j += VW) {
      VF gv, s;
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
static void KB(nn_k_vecmat)(float *y, const float *x, const float *W, const float *b,
                            const float *s, int n, int m, int relu, int *nz) {
  /* Branch-free compaction: zero and non-zero inputs come unpredictably. */
  int k = 0;
  for (int i = 0; i < n; i++) {
    nz[k] = i;
    k += x[i] != 0.0f;
  }
  int j = 0;
  for (; j + 4 * VW <= m; j += 4 * VW) {
    VF a0, a1, a2, a3;
    LD(a0, b + j);
    LD(a1, b + j + VW);
    LD(a2, b + j + 2 * VW);
    LD(a3, b + j + 3 * VW);
    for (int t = 0; t < k; t++) {
      const float *w = W + (size_t)nz[t] * m + j;
      float xs = x[nz[t]];
      VF w0, w1, w2, w3;
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
      VF s0, s1, s2, s3;
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
    VF a0;
    LD(a0, b + j);
    for (int t = 0; t < k; t++) {
      VF w0;
      LD(w0, W + (size_t)nz[t] * m + j);
      a0 += x[nz[t]] * w0;
    }
    if (s) {
      VF s0;
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

static double KB(nn_k_sumsq)(const float *g, size_t n) {
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

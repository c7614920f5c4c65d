/* Weight files and training checkpoints. The layout is documented in
 * docs/FORMATS.md ("Weight files (.weights)"); every field is written one by
 * one, little-endian, and the file is built in memory, checksummed and
 * written atomically. Loading reads the whole file, validates all of it and
 * only then touches the caller's net. */
#include "nn/nn_internal.h"

#include "base/base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NN_FILE_VERSION 1
static const char MAGIC_WEIGHTS[8] = {'S', 'Z', 'W', 'E', 'I', 'G', 'H', 'T'};
static const char MAGIC_CHECKPOINT[8] = {'S', 'Z', 'C', 'H', 'K', 'P', 'N', 'T'};
/* magic, version, file length */
#define PREAMBLE (8 + 4 + 8)

nn_expect nn_expect_of(const nn_meta *m, const nn_config *c) {
  nn_expect e;
  memset(&e, 0, sizeof e);
  if (m) {
    e.game = m->game;
    e.rules = m->rules;
    e.encoding = m->encoding;
    e.n_features = m->n_features;
    e.n_actions = m->n_actions;
  }
  e.config = c;
  return e;
}

/* ---- Writing --------------------------------------------------------------- */
typedef struct {
  unsigned char *p;
  size_t pos;
} wbuf;

static void w32(wbuf *w, uint32_t v) {
  put_u32le(w->p + w->pos, v);
  w->pos += 4;
}
static void w64(wbuf *w, uint64_t v) {
  put_u64le(w->p + w->pos, v);
  w->pos += 8;
}
static void wbytes(wbuf *w, const void *d, size_t n) {
  if (n) memcpy(w->p + w->pos, d, n);
  w->pos += n;
}
static void wfloats(wbuf *w, const float *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &f[i], 4);
    w32(w, u);
  }
}

static size_t header_len(const nn_meta *m) {
  return PREAMBLE + 4 + strlen(m->game) + 4 + strlen(m->rules) + 4 * 6 + 8;
}

/* The meta as stored: feature and action counts come from the net. */
static int meta_for_save(const nn_net *n, const nn_meta *in, nn_meta *out, const char *path,
                         char *err, size_t errlen) {
  if (!in) {
    errf(err, errlen, "%s: no metadata given", path);
    return -1;
  }
  *out = *in;
  if (memchr(in->game, '\0', NN_GAME_MAX) == NULL ||
      memchr(in->rules, '\0', NN_RULES_MAX) == NULL) {
    errf(err, errlen, "%s: game name or rule options not terminated", path);
    return -1;
  }
  if (in->encoding < 0) {
    errf(err, errlen, "%s: negative feature-encoding version %d", path, in->encoding);
    return -1;
  }
  if ((in->n_features && in->n_features != n->cfg.n_in) ||
      (in->n_actions && in->n_actions != n->cfg.n_actions)) {
    errf(err, errlen,
         "%s: metadata says %d features and %d actions but the network has "
         "%d and %d",
         path, in->n_features, in->n_actions, n->cfg.n_in, n->cfg.n_actions);
    return -1;
  }
  out->n_features = n->cfg.n_in;
  out->n_actions = n->cfg.n_actions;
  return 0;
}

static void write_header(wbuf *w, const char *magic, uint64_t total, const nn_meta *m,
                         const nn_net *n) {
  wbytes(w, magic, 8);
  w32(w, NN_FILE_VERSION);
  w64(w, total);
  uint32_t gl = (uint32_t)strlen(m->game), rl = (uint32_t)strlen(m->rules);
  w32(w, gl);
  wbytes(w, m->game, gl);
  w32(w, rl);
  wbytes(w, m->rules, rl);
  w32(w, (uint32_t)m->encoding);
  w32(w, (uint32_t)n->cfg.n_in);
  w32(w, (uint32_t)n->cfg.hidden);
  w32(w, (uint32_t)n->cfg.blocks);
  w32(w, (uint32_t)n->cfg.n_actions);
  w32(w, (uint32_t)n->n_tensors);
  w64(w, (uint64_t)n->n_params);
}

static int finish(wbuf *w, size_t total, const char *path, char *err, size_t errlen) {
  w64(w, checksum64(w->p, w->pos, CHECKSUM64_INIT));
  int rc = w->pos == total ? afile_write(path, w->p, total, err, errlen) : -1;
  if (w->pos != total) errf(err, errlen, "%s: internal size error", path);
  free(w->p);
  return rc;
}

int nn_save(const nn_net *n, const nn_meta *meta, const char *path, char *err, size_t errlen) {
  nn_meta m;
  if (meta_for_save(n, meta, &m, path, err, errlen) != 0) return -1;
  size_t total = header_len(&m) + 4 * n->n_params + 8;
  wbuf w = {malloc(total), 0};
  if (!w.p) {
    errf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  write_header(&w, MAGIC_WEIGHTS, total, &m, n);
  wfloats(&w, n->params, n->n_params);
  return finish(&w, total, path, err, errlen);
}

int nn_checkpoint_save(const nn_net *n, const nn_trainer *t, const nn_meta *meta, const void *blob,
                       size_t blob_len, const char *path, char *err, size_t errlen) {
  nn_meta m;
  if (meta_for_save(n, meta, &m, path, err, errlen) != 0) return -1;
  if (!nn_config_equal(&n->cfg, &t->cfg)) {
    errf(err, errlen, "%s: optimiser state is for another network shape", path);
    return -1;
  }
  if (blob_len && !blob) {
    errf(err, errlen, "%s: no state blob given", path);
    return -1;
  }
  size_t total = header_len(&m) + 8 + 3 * 4 * n->n_params + 8 + blob_len + 8;
  wbuf w = {malloc(total), 0};
  if (!w.p) {
    errf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  write_header(&w, MAGIC_CHECKPOINT, total, &m, n);
  w64(&w, t->step);
  wfloats(&w, n->params, n->n_params);
  wfloats(&w, t->m, n->n_params);
  wfloats(&w, t->v, n->n_params);
  w64(&w, (uint64_t)blob_len);
  wbytes(&w, blob, blob_len);
  return finish(&w, total, path, err, errlen);
}

/* ---- Reading ----------------------------------------------------------------- */
typedef struct {
  const unsigned char *p;
  size_t len, pos;
  int bad; /* a read ran past the end */
} rbuf;

static uint32_t r32(rbuf *r) {
  if (r->bad || r->len - r->pos < 4) return r->bad = 1, 0;
  uint32_t v = get_u32le(r->p + r->pos);
  r->pos += 4;
  return v;
}
static uint64_t r64(rbuf *r) {
  if (r->bad || r->len - r->pos < 8) return r->bad = 1, 0;
  uint64_t v = get_u64le(r->p + r->pos);
  r->pos += 8;
  return v;
}
static void rfloats(rbuf *r, float *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u = r32(r);
    memcpy(&f[i], &u, 4);
  }
}

/* A validated file: its contents, meta and config, and where the payload
 * (after the parameter count) starts. */
typedef struct {
  unsigned char *buf;
  size_t len;
  nn_meta meta;
  nn_config cfg;
  size_t n_params;
  rbuf r;
} parsed;

static const char *kind_name(int ckpt) { return ckpt ? "training checkpoint" : "weight file"; }

static int read_all(const char *path, parsed *f, char *err, size_t errlen) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
    errf(err, errlen, "%s: not a regular file", path);
    fclose(fp);
    return -1;
  }
  f->len = (size_t)st.st_size;
  f->buf = malloc(f->len ? f->len : 1);
  if (!f->buf) {
    errf(err, errlen, "%s: out of memory (%zu bytes)", path, f->len);
    fclose(fp);
    return -1;
  }
  if (fread(f->buf, 1, f->len, fp) != f->len) {
    errf(err, errlen, "%s: read error", path);
    fclose(fp);
    free(f->buf);
    f->buf = NULL;
    return -1;
  }
  fclose(fp);
  return 0;
}

void nn_shape_string(const nn_config *c, char *buf, size_t len) {
  snprintf(buf, len, "%d-%dx%d-%d", c->n_in, c->hidden, c->blocks, c->n_actions);
}

static int check_expect(const char *path, const parsed *f, const nn_expect *e, char *err,
                        size_t errlen) {
  const nn_meta *m = &f->meta;
  if (e->game && strcmp(e->game, m->game) != 0) {
    errf(err, errlen, "%s: trained for game '%s' but this run plays '%s'", path, m->game, e->game);
    return -1;
  }
  if (e->rules && strcmp(e->rules, m->rules) != 0) {
    errf(err, errlen, "%s: trained with rule options '%s' but this run uses '%s'", path, m->rules,
         e->rules);
    return -1;
  }
  if (e->encoding && e->encoding != m->encoding) {
    errf(err, errlen,
         "%s: trained on feature encoding version %d but this run uses "
         "version %d",
         path, m->encoding, e->encoding);
    return -1;
  }
  if (e->n_features && e->n_features != m->n_features) {
    errf(err, errlen, "%s: network takes %d features but this run encodes %d", path, m->n_features,
         e->n_features);
    return -1;
  }
  if (e->n_actions && e->n_actions != m->n_actions) {
    errf(err, errlen, "%s: network has %d actions but this game has %d", path, m->n_actions,
         e->n_actions);
    return -1;
  }
  if (e->config && !nn_config_equal(e->config, &f->cfg)) {
    char have[64], want[64];
    nn_shape_string(&f->cfg, have, sizeof have);
    nn_shape_string(e->config, want, sizeof want);
    errf(err, errlen,
         "%s: network shape %s but this run expects %s "
         "(inputs-width x blocks-actions)",
         path, have, want);
    return -1;
  }
  return 0;
}

/* Reads and validates everything up to the payload; on success f->r points
 * after the parameter count and the caller frees f->buf. */
static int open_parsed(const char *path, int ckpt, const nn_expect *e, parsed *f, char *err,
                       size_t errlen) {
  memset(f, 0, sizeof *f);
  if (read_all(path, f, err, errlen) != 0) return -1;
  const char *magic = ckpt ? MAGIC_CHECKPOINT : MAGIC_WEIGHTS;
  const char *other = ckpt ? MAGIC_WEIGHTS : MAGIC_CHECKPOINT;
  const unsigned char *b = f->buf;
  size_t len = f->len;
  if (len < 8 && memcmp(b, magic, len) == 0) {
    errf(err, errlen, "%s: truncated file (%zu bytes)", path, len);
    goto fail;
  }
  if (len >= 8 && memcmp(b, other, 8) == 0) {
    errf(err, errlen, "%s: is a %s, not a %s", path, kind_name(!ckpt), kind_name(ckpt));
    goto fail;
  }
  if (len < 8 || memcmp(b, magic, 8) != 0) {
    errf(err, errlen, "%s: not a SowZero %s (bad magic)", path, kind_name(ckpt));
    goto fail;
  }
  if (len < PREAMBLE) {
    errf(err, errlen, "%s: truncated file (%zu bytes)", path, len);
    goto fail;
  }
  uint32_t version = get_u32le(b + 8);
  if (version != NN_FILE_VERSION) {
    errf(err, errlen,
         "%s: %s format version %u is not supported (this build reads "
         "version %d)",
         path, kind_name(ckpt), version, NN_FILE_VERSION);
    goto fail;
  }
  uint64_t declared = get_u64le(b + 12);
  if ((uint64_t)len < declared) {
    errf(err, errlen, "%s: truncated file (%zu of %llu bytes)", path, len,
         (unsigned long long)declared);
    goto fail;
  }
  if ((uint64_t)len > declared) {
    errf(err, errlen, "%s: %llu unexpected bytes after the end of the %s", path,
         (unsigned long long)(len - declared), kind_name(ckpt));
    goto fail;
  }
  if (len < PREAMBLE + 8 || checksum64(b, len - 8, CHECKSUM64_INIT) != get_u64le(b + len - 8)) {
    errf(err, errlen, "%s: checksum mismatch, the file is corrupted", path);
    goto fail;
  }
  /* The checksum holds, so what follows was written by a saver; still
   * check every size so that no crafted file can make us misbehave. */
  rbuf *r = &f->r;
  r->p = b;
  r->len = len - 8;
  r->pos = PREAMBLE;
  uint32_t gl = r32(r);
  if (r->bad || gl >= NN_GAME_MAX || r->len - r->pos < gl ||
      first_unprintable(b + r->pos, gl) >= 0) {
    errf(err, errlen, "%s: corrupt header (game name)", path);
    goto fail;
  }
  memcpy(f->meta.game, b + r->pos, gl);
  r->pos += gl;
  uint32_t rl = r32(r);
  if (r->bad || rl >= NN_RULES_MAX || r->len - r->pos < rl ||
      first_unprintable(b + r->pos, rl) >= 0) {
    errf(err, errlen, "%s: corrupt header (rule options)", path);
    goto fail;
  }
  memcpy(f->meta.rules, b + r->pos, rl);
  r->pos += rl;
  uint32_t enc = r32(r);
  f->cfg.n_in = (int)r32(r);
  f->cfg.hidden = (int)r32(r);
  f->cfg.blocks = (int)r32(r);
  f->cfg.n_actions = (int)r32(r);
  uint32_t ntensors = r32(r);
  uint64_t nparams = r64(r);
  char why[128];
  if (r->bad || enc > INT32_MAX || nn_config_check(&f->cfg, why, sizeof why) != 0) {
    errf(err, errlen, "%s: corrupt header (layer sizes)", path);
    goto fail;
  }
  nn_tensor *tt = calloc((size_t)4 * f->cfg.blocks + 4, sizeof *tt);
  size_t expect_params = tt ? nn_layout(&f->cfg, tt) : 0;
  free(tt);
  if (ntensors != (uint32_t)(4 * f->cfg.blocks + 4) || nparams != expect_params) {
    errf(err, errlen, "%s: corrupt header (tensor table)", path);
    goto fail;
  }
  f->meta.encoding = (int)enc;
  f->meta.n_features = f->cfg.n_in;
  f->meta.n_actions = f->cfg.n_actions;
  f->n_params = (size_t)nparams;
  size_t payload = ckpt ? 8 + 12 * f->n_params + 8 : 4 * f->n_params;
  if (r->len - r->pos < payload || (!ckpt && r->len - r->pos > payload)) {
    errf(err, errlen, "%s: corrupt header (file size does not match its tensors)", path);
    goto fail;
  }
  if (e && check_expect(path, f, e, err, errlen) != 0) goto fail;
  return 0;
fail:
  free(f->buf);
  f->buf = NULL;
  return -1;
}

static int shape_matches(const char *path, const parsed *f, const nn_config *c, char *err,
                         size_t errlen) {
  if (nn_config_equal(&f->cfg, c)) return 0;
  char have[64], want[64];
  nn_shape_string(&f->cfg, have, sizeof have);
  nn_shape_string(c, want, sizeof want);
  errf(err, errlen,
       "%s: network shape %s but this run expects %s "
       "(inputs-width x blocks-actions)",
       path, have, want);
  return -1;
}

nn_net *nn_load(const char *path, const nn_expect *expect, nn_meta *meta_out, char *err,
                size_t errlen) {
  parsed f;
  if (open_parsed(path, 0, expect, &f, err, errlen) != 0) return NULL;
  nn_blas_single_thread();
  nn_net *n = nn_alloc(&f.cfg, err, errlen);
  if (n) {
    rfloats(&f.r, n->params, n->n_params);
    if (meta_out) *meta_out = f.meta;
  }
  free(f.buf);
  return n;
}

int nn_load_into(nn_net *n, const char *path, const nn_expect *expect, nn_meta *meta_out, char *err,
                 size_t errlen) {
  parsed f;
  if (open_parsed(path, 0, expect, &f, err, errlen) != 0) return -1;
  if (shape_matches(path, &f, &n->cfg, err, errlen) != 0) {
    free(f.buf);
    return -1;
  }
  rfloats(&f.r, n->params, n->n_params);
  nn_packed_refresh(n);
  if (meta_out) *meta_out = f.meta;
  free(f.buf);
  return 0;
}

int nn_checkpoint_load(nn_net *n, nn_trainer *t, const char *path, const nn_expect *expect,
                       nn_meta *meta_out, void *blob, size_t blob_cap, size_t *blob_len, char *err,
                       size_t errlen) {
  parsed f;
  if (open_parsed(path, 1, expect, &f, err, errlen) != 0) return -1;
  int rc = -1;
  if (shape_matches(path, &f, &n->cfg, err, errlen) != 0) goto out;
  if (!nn_config_equal(&n->cfg, &t->cfg)) {
    errf(err, errlen, "%s: optimiser state is for another network shape", path);
    goto out;
  }
  /* The blob length sits after the tensors; peek at it before writing. */
  rbuf peek = f.r;
  peek.pos += 8 + 12 * f.n_params;
  uint64_t bl = r64(&peek);
  if (peek.bad || bl != peek.len - peek.pos) {
    errf(err, errlen, "%s: corrupt checkpoint (state blob length)", path);
    goto out;
  }
  if (bl > blob_cap) {
    errf(err, errlen,
         "%s: checkpoint state is %llu bytes but the caller's buffer holds "
         "%zu",
         path, (unsigned long long)bl, blob_cap);
    goto out;
  }
  t->step = r64(&f.r);
  rfloats(&f.r, n->params, n->n_params);
  rfloats(&f.r, t->m, n->n_params);
  rfloats(&f.r, t->v, n->n_params);
  nn_packed_refresh(n);
  if (bl) memcpy(blob, peek.p + peek.pos, (size_t)bl);
  if (blob_len) *blob_len = (size_t)bl;
  if (meta_out) *meta_out = f.meta;
  rc = 0;
out:
  free(f.buf);
  return rc;
}

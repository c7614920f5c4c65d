#include "trainer/checkpoint.h"

#include <string.h>

#include "base/base.h"

int checkpoint_save(const char *path, const learner *l, const nn_meta *meta, const run_counters *rc,
                    char *err, size_t errlen) {
  unsigned char blob[RUN_COUNTERS_BYTES + 64];
  run_counters c = *rc;
  memcpy(c.rng, l->rng.s, sizeof c.rng);
  run_counters_write(&c, blob);
  return nn_checkpoint_save(l->cand, l->trainer, meta, blob, RUN_COUNTERS_BYTES, path, err, errlen);
}

int checkpoint_load(const char *path, learner *l, const nn_expect *ex, run_counters *rc, char *err,
                    size_t errlen) {
  unsigned char blob[256];
  size_t blen = 0;
  if (nn_checkpoint_load(l->cand, l->trainer, path, ex, NULL, blob, sizeof blob, &blen, err,
                         errlen) != 0)
    return -1;
  if (blen != RUN_COUNTERS_BYTES) {
    errf(err, errlen, "%s: run counters of %zu bytes, expected %d", path, blen, RUN_COUNTERS_BYTES);
    return -1;
  }
  run_counters_read(rc, blob);
  memcpy(l->rng.s, rc->rng, sizeof l->rng.s);
  return 0;
}

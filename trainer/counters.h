/* counters: what a run counts over all its sessions, and their bytes in
 * the checkpoint (the caller blob of nn_checkpoint_save; docs/FORMATS.md),
 * which is how every counter, the elapsed time included, survives a resume.
 * Plain values; no state. */
#ifndef SOWZERO_COUNTERS_H
#define SOWZERO_COUNTERS_H

#include <stdint.h>

typedef struct {
  uint32_t iteration;
  uint64_t steps;
  double elapsed; /* seconds of training over all resumes */
  uint64_t games; /* self-play games over all resumes */
  uint32_t promotions;
  uint64_t rng[4];                                 /* the learner's sampling RNG */
  uint64_t net_ns, search_ns, learner_ns, gate_ns; /* time accounting */
} run_counters;

/* Bytes of the counters in a checkpoint: little-endian fields in the order
 * above (elapsed as the bits of an IEEE double). */
#define RUN_COUNTERS_BYTES 96

void run_counters_write(const run_counters *c, unsigned char *b);
void run_counters_read(run_counters *c, const unsigned char *b);

#endif

/* The run's counters as checkpoint bytes. */
#include "trainer/counters.h"

#include <string.h>

#include "base/base.h"

_Static_assert(RUN_COUNTERS_BYTES == 4 + 8 + 8 + 8 + 4 + 32 + 32, "the fields below");

void run_counters_write(const run_counters *c, unsigned char *b) {
  uint64_t el;
  memcpy(&el, &c->elapsed, 8);
  put_u32le(b, c->iteration);
  put_u64le(b + 4, c->steps);
  put_u64le(b + 12, el);
  put_u64le(b + 20, c->games);
  put_u32le(b + 28, c->promotions);
  for (int i = 0; i < 4; i++) put_u64le(b + 32 + 8 * i, c->rng[i]);
  put_u64le(b + 64, c->net_ns);
  put_u64le(b + 72, c->search_ns);
  put_u64le(b + 80, c->learner_ns);
  put_u64le(b + 88, c->gate_ns);
}

void run_counters_read(run_counters *c, const unsigned char *b) {
  uint64_t el = get_u64le(b + 12);
  c->iteration = get_u32le(b);
  c->steps = get_u64le(b + 4);
  memcpy(&c->elapsed, &el, 8);
  c->games = get_u64le(b + 20);
  c->promotions = get_u32le(b + 28);
  for (int i = 0; i < 4; i++) c->rng[i] = get_u64le(b + 32 + 8 * i);
  c->net_ns = get_u64le(b + 64);
  c->search_ns = get_u64le(b + 72);
  c->learner_ns = get_u64le(b + 80);
  c->gate_ns = get_u64le(b + 88);
}

#include "trainer/netslot.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/base.h"

struct netslot {
  pthread_mutex_t lock;
  nn_net *net;
  _Atomic uint64_t gen;
};

netslot *netslot_create(const nn_net *initial, char *err, size_t errlen) {
  netslot *s = calloc(1, sizeof *s);
  if (!s) {
    errf(err, errlen, "out of memory (network slot)");
    return NULL;
  }
  nn_config c = nn_config_of(initial);
  if (!(s->net = nn_create(&c, 0, err, errlen))) {
    free(s);
    return NULL;
  }
  nn_copy(s->net, initial);
  pthread_mutex_init(&s->lock, NULL);
  atomic_store(&s->gen, 1);
  return s;
}

void netslot_free(netslot *s) {
  if (!s) return;
  pthread_mutex_destroy(&s->lock);
  nn_free(s->net);
  free(s);
}

void netslot_publish(netslot *s, const nn_net *net) {
  pthread_mutex_lock(&s->lock);
  nn_copy(s->net, net);
  atomic_fetch_add(&s->gen, 1);
  pthread_mutex_unlock(&s->lock);
}

int netslot_fetch(netslot *s, nn_net *dst, uint64_t *gen) {
  if (atomic_load(&s->gen) == *gen) return 0;
  pthread_mutex_lock(&s->lock);
  nn_copy(dst, s->net);
  *gen = atomic_load(&s->gen);
  pthread_mutex_unlock(&s->lock);
  return 1;
}

uint64_t netslot_generation(netslot *s) { return atomic_load(&s->gen); }

nn_config netslot_config(const netslot *s) { return nn_config_of(s->net); }

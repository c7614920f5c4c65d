/* netslot: the slot the self-play workers read the best network from
 * (thread-safe).
 *
 * The learner publishes a promoted network by copying its weights in under
 * the slot's mutex and bumping a generation counter; a worker that sees a
 * new generation copies the weights into its private net between two
 * search rounds. So a worker never evaluates a net that is being written. */
#ifndef SOWZERO_NETSLOT_H
#define SOWZERO_NETSLOT_H

#include <stddef.h>
#include <stdint.h>

#include "nn/nn.h"

typedef struct netslot netslot;

/* A slot holding a copy of `initial` (same config from then on). */
netslot *netslot_create(const nn_net *initial, char *err, size_t errlen);
void netslot_free(netslot *s);
/* Copies net into the slot; the generation goes up by one. */
void netslot_publish(netslot *s, const nn_net *net);
/* If the slot's generation differs from *gen, copies its weights into dst
 * and updates *gen; returns 1 if it copied. */
int netslot_fetch(netslot *s, nn_net *dst, uint64_t *gen);
uint64_t netslot_generation(netslot *s);
/* The shape of the slot's network (fixed at its creation). */
nn_config netslot_config(const netslot *s);

#endif

/* The position cache: a direct-mapped table from a position key to a
 * policy and value, made once. */
#include <stdlib.h>
#include <string.h>

#include "search/mcts_internal.h"

mcts_cache *mcts_cache_create(int entries, int n_actions, char *err, size_t errlen) {
  if (entries < 1 || n_actions < 1 || n_actions > GAME_MAX_ACTIONS) {
    errf(err, errlen, "bad cache size %d x %d", entries, n_actions);
    return NULL;
  }
  double mb = (double)entries * (8.0 + 4.0 * (n_actions + 1)) / 1048576.0, phys = mem_physical_mb();
  if (phys > 0 && mb > phys / 2) {
    errf(err, errlen,
         "a cache of %d entries (%.0f MiB) is more than half of this machine's memory "
         "(%.0f MiB)",
         entries, mb, phys);
    return NULL;
  }
  mcts_cache *c = calloc(1, sizeof *c);
  if (c) {
    c->entries = entries;
    c->n_actions = n_actions;
    c->key = calloc((size_t)entries, sizeof *c->key);
    c->data = malloc((size_t)entries * (size_t)(n_actions + 1) * sizeof *c->data);
  }
  if (!c || !c->key || !c->data) {
    mcts_cache_free(c);
    errf(err, errlen, "out of memory for a cache of %d entries", entries);
    return NULL;
  }
  return c;
}

void mcts_cache_free(mcts_cache *c) {
  if (!c) return;
  free(c->key);
  free(c->data);
  free(c);
}

/* O(1) whatever the size: entries stored under another salt no longer match. */
void mcts_cache_clear(mcts_cache *c) { c->salt += 0x9e3779b97f4a7c15ULL; }

static inline uint64_t stored_key(const mcts_cache *c, uint64_t key) {
  uint64_t k = key ^ c->salt;
  return k ? k : 1;
}

static inline uint64_t mix64(uint64_t h, uint64_t w) {
  h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}

uint64_t mcts_cache_key(const game_pos *p) {
  uint64_t h = mix64(p->hash, (uint64_t)p->store[0] | (uint64_t)p->store[1] << 16 |
                                  (uint64_t)p->ply << 32 | (uint64_t)p->nocap << 48);
  h = mix64(h, (uint64_t)p->round | (uint64_t)p->aux[0] << 8 | (uint64_t)p->aux[1] << 16 |
                   (uint64_t)p->aux[2] << 24 | (uint64_t)p->phase << 32 | (uint64_t)p->mover << 40);
  return h ? h : 1;
}

int mcts_cache_get(mcts_cache *c, uint64_t key, float *policy, float *value) {
  size_t i = (size_t)(key % (uint64_t)c->entries);
  if (c->key[i] != stored_key(c, key)) return 0;
  const float *d = c->data + i * (size_t)(c->n_actions + 1);
  memcpy(policy, d, (size_t)c->n_actions * sizeof *d);
  *value = d[c->n_actions];
  return 1;
}

void mcts_cache_put(mcts_cache *c, uint64_t key, const float *policy, float value) {
  size_t i = (size_t)(key % (uint64_t)c->entries);
  float *d = c->data + i * (size_t)(c->n_actions + 1);
  memcpy(d, policy, (size_t)c->n_actions * sizeof *d);
  d[c->n_actions] = value;
  c->key[i] = stored_key(c, key);
}

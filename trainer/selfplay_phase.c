/* Phased self-play (params.phased = 1), where nothing depends on timing:
 * the workers' finished games wait in their arrays until the phase ends,
 * then go on in game-number order from the learner's thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "trainer/selfplay_internal.h"

static void *grow_by(grow *g, size_t add, size_t size) {
  if (g->n + add > g->cap) {
    size_t cap = (g->n + add) * 2;
    void *q = realloc(g->p, cap * size);
    if (!q) return NULL;
    g->p = q;
    g->cap = cap;
  }
  void *at = (char *)g->p + g->n * size;
  g->n += add;
  return at;
}

/* Phased mode: the finished game waits in the worker's arrays. */
int selfplay_keep_finished(worker *w, game_slot *gs, int keep) {
  fin_game *f = grow_by(&w->fin, 1, sizeof *f);
  replay_sample *x = f ? grow_by(&w->fin_s, (size_t)gs->n, sizeof *x) : NULL;
  uint8_t *mv = x && keep ? grow_by(&w->fin_m, (size_t)gs->nmoves, 1) : NULL;
  if (!f || !x || (keep && !mv)) {
    errf(w->err, sizeof w->err, "out of memory for the games of a phase");
    return -1;
  }
  f->number = gs->number;
  f->variant = gs->variant;
  f->first = w->fin_s.n - (size_t)gs->n;
  f->n = gs->n;
  memcpy(x, gs->samples, sizeof *x * (size_t)gs->n);
  f->keep = keep;
  f->nmoves = gs->nmoves;
  f->moves_at = keep ? w->fin_m.n - (size_t)gs->nmoves : 0;
  if (keep) memcpy(mv, gs->moves, (size_t)gs->nmoves);
  f->final = gs->pos;
  w->got += (uint64_t)gs->n;
  return 0;
}

/* Phased mode: waits for the next phase; 0 when told to stop. */
int selfplay_wait_phase(selfplay *s, uint64_t *seen) {
  pthread_mutex_lock(&s->ph_lock);
  while (s->phase == *seen && !atomic_load(&s->stop)) pthread_cond_wait(&s->ph_go, &s->ph_lock);
  *seen = s->phase;
  pthread_mutex_unlock(&s->ph_lock);
  return !atomic_load(&s->stop);
}

void selfplay_phase_done(selfplay *s) {
  pthread_mutex_lock(&s->ph_lock);
  s->done++;
  pthread_cond_signal(&s->ph_done);
  pthread_mutex_unlock(&s->ph_lock);
}

typedef struct {
  const fin_game *f;
  const worker *w;
} fin_ref;

static int by_number(const void *a, const void *b) {
  uint64_t x = ((const fin_ref *)a)->f->number, y = ((const fin_ref *)b)->f->number;
  return x < y ? -1 : x > y;
}

int selfplay_phase(selfplay *s, uint64_t samples, volatile sig_atomic_t *stop) {
  size_t total = 0;
  for (int i = 0; i < s->n; i++) {
    worker *w = &s->w[i];
    w->quota = samples / (uint64_t)s->n + ((uint64_t)i < samples % (uint64_t)s->n);
    w->got = 0;
    w->fin.n = w->fin_s.n = w->fin_m.n = 0;
  }
  pthread_mutex_lock(&s->ph_lock);
  s->done = 0;
  s->phase++;
  pthread_cond_broadcast(&s->ph_go);
  pthread_mutex_unlock(&s->ph_lock);
  int stopped = 0;
  /* The hosted worker's share, on this thread, while the threads play theirs. */
  worker *h = s->p.hosted ? &s->w[s->n - 1] : NULL;
  while (h && h->got < h->quota && !atomic_load(&s->failed) && !(stopped = stop && *stop))
    if (selfplay_play_round(s, h) != 0) atomic_store(&s->failed, 1);
  pthread_mutex_lock(&s->ph_lock);
  while (s->done < s->threads && !atomic_load(&s->failed) && !stopped) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000000;
    if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&s->ph_done, &s->ph_lock, &ts);
    stopped = stop && *stop;
  }
  pthread_mutex_unlock(&s->ph_lock);
  if (atomic_load(&s->failed)) return -1;
  if (stopped) return 1;
  /* Every worker waits for the next phase: their arrays are ours now. */
  for (int i = 0; i < s->n; i++) total += s->w[i].fin.n;
  fin_ref *order = malloc(sizeof *order * (total ? total : 1));
  if (!order) {
    errf(s->w[0].err, sizeof s->w[0].err, "out of memory for the games of a phase");
    atomic_store(&s->failed, 1);
    return -1;
  }
  size_t k = 0;
  for (int i = 0; i < s->n; i++)
    for (size_t j = 0; j < s->w[i].fin.n; j++)
      order[k++] = (fin_ref){(const fin_game *)s->w[i].fin.p + j, &s->w[i]};
  qsort(order, total, sizeof *order, by_number);
  for (size_t j = 0; j < total; j++) {
    const fin_game *f = order[j].f;
    const worker *w = order[j].w;
    selfplay_game gm = {(const replay_sample *)w->fin_s.p + f->first,
                        f->n,
                        f->keep ? (const uint8_t *)w->fin_m.p + f->moves_at : NULL,
                        f->keep ? f->nmoves : 0,
                        &f->final,
                        w->gen,
                        f->variant,
                        selfplay_variant_game(s, f->variant),
                        f->keep,
                        f->number};
    if (selfplay_hand_on(s, &gm) != 0) {
      errf(s->w[0].err, sizeof s->w[0].err, "a finished game could not be handed on");
      atomic_store(&s->failed, 1);
      free(order);
      return -1;
    }
  }
  free(order);
  return 0;
}

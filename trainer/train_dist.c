/* The learner's side of a distributed run (docs/DISTRIBUTED.md): rank 0
 * checks that every rank runs the same build and config, gives the actors
 * the resolved config and the best network, takes in their games between
 * training steps without ever waiting for them, publishes each promotion,
 * and at the end stops the actors and takes their last games.
 *
 * Only the learner's thread calls these (MPI_THREAD_FUNNELED). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trainer/train_internal.h"

typedef struct learner_dist {
  dist *d;
  int size;
  uint64_t *games, *samples; /* per rank, this session */
  uint64_t *unacked;         /* per rank: bytes taken in, not yet acknowledged */
  int *gone;                 /* per rank: said bye */
  int n_gone;
  unsigned char *buf; /* the message being taken in */
  size_t cap;
  /* Of the games taken in since the last metrics line. */
  uint64_t lag_sum, lag_max, lag_games, paused_ms, bytes, version_max;
  uint64_t taken; /* games taken in, this session */
  int stopped, finished;
} learner_dist;

int train_dist_same_build(dist *d, char *err, size_t errlen) {
  /* The executable's bytes: two builds of different sources, flags or
   * libraries differ here, and so would their messages. */
  uint64_t h = 0;
  FILE *f = fopen("/proc/self/exe", "rb");
  if (f) {
    unsigned char b[1 << 16];
    size_t n;
    h = CHECKSUM64_INIT;
    while ((n = fread(b, 1, sizeof b, f)) > 0) h = checksum64(b, n, h);
    fclose(f);
  }
  int size = dist_size(d);
  uint64_t *all = calloc((size_t)size, sizeof *all);
  int rc = -1;
  if (!all)
    errf(err, errlen, "out of memory");
  else if (dist_allgather_u64(d, h, all, err, errlen) == 0) {
    rc = 0;
    for (int k = 1; k < size && rc == 0; k++)
      if (all[k] != all[0] || !all[k]) {
        errf(err, errlen,
             "rank %d (host %s) runs another build of sowzero than rank 0 (host %s): every "
             "rank must run the same binary",
             k, dist_host(d, k), dist_host(d, 0));
        rc = 1;
      }
  }
  free(all);
  return rc;
}

/* The config's text as config_write writes it (malloc'd). */
static char *config_text(const train_config *c, size_t *len) {
  char *t = NULL;
  FILE *f = open_memstream(&t, len);
  if (!f) return NULL;
  config_write(c, f);
  if (fclose(f) != 0) {
    free(t);
    return NULL;
  }
  return t;
}

static int send_net(run *r, int rank, char *err, size_t errlen) {
  learner_dist *ld = r->ld;
  size_t np = nn_param_count(r->best);
  size_t len = sizeof(dist_net_msg) + np * sizeof(float);
  unsigned char *m = malloc(len);
  if (!m) return errf(err, errlen, "out of memory"), -1;
  dist_net_msg h = {r->rc.promotions, (uint32_t)np};
  memcpy(m, &h, sizeof h);
  memcpy(m + sizeof h, nn_params(r->best), np * sizeof(float));
  int rc = 0;
  for (int k = rank < 0 ? 1 : rank; rc == 0 && k < (rank < 0 ? ld->size : rank + 1); k++)
    if (!ld->gone[k]) rc = dist_send(ld->d, k, DIST_TAG_NET, m, len, err, errlen);
  free(m);
  return rc;
}

/* Tells the actors the learner failed before the run started. */
static void start_failed(dist *d) {
  dist_start_msg h = {0};
  void *p = &h;
  size_t n = sizeof h;
  char e[256];
  dist_bcast(d, &p, &n, e, sizeof e);
}

int train_dist_start(run *r, dist *d, char *err, size_t errlen) {
  if (!r) {
    start_failed(d);
    return 0;
  }
  const train_config *c = &r->cfg;
  if (c->deterministic) {
    start_failed(d);
    errf(err, errlen,
         "run.deterministic = 1 needs one process: a distributed run's schedule depends on "
         "timing (set run.deterministic = 0, or run without mpirun)");
    return -1;
  }
  learner_dist *ld = r->ld = calloc(1, sizeof *ld);
  if (!ld) return start_failed(d), errf(err, errlen, "out of memory"), -1;
  ld->d = d;
  ld->size = dist_size(d);
  int n = ld->size;
  ld->games = calloc((size_t)n, sizeof *ld->games);
  ld->samples = calloc((size_t)n, sizeof *ld->samples);
  ld->gone = calloc((size_t)n, sizeof *ld->gone);
  ld->unacked = calloc((size_t)n, sizeof *ld->unacked);
  size_t tlen = 0;
  char *text = config_text(c, &tlen);
  if (!ld->games || !ld->samples || !ld->gone || !ld->unacked || !text) {
    free(text);
    start_failed(d);
    return errf(err, errlen, "out of memory"), -1;
  }
  /* The start message and the config's text, in one broadcast. */
  size_t len = sizeof(dist_start_msg) + tlen + 1;
  unsigned char *m = malloc(len);
  if (!m) {
    free(text);
    start_failed(d);
    return errf(err, errlen, "out of memory"), -1;
  }
  dist_start_msg h = {1, r->rc.iteration};
  memcpy(m, &h, sizeof h);
  memcpy(m + sizeof h, text, tlen + 1);
  free(text);
  void *p = m;
  int rc = dist_bcast(d, &p, &len, err, errlen);
  free(m);
  if (rc != 0) return -1;
  /* Each actor's verdict on its own command line's config (0: the same). */
  uint64_t *verdict = calloc((size_t)n, sizeof *verdict);
  if (!verdict) return errf(err, errlen, "out of memory"), -1;
  rc = dist_allgather_u64(d, 0, verdict, err, errlen);
  for (int k = 1; rc == 0 && k < n; k++)
    if (verdict[k]) {
      errf(err, errlen,
           "rank %d (host %s) was given another config than rank 0 (its message names the "
           "key): every rank must get the same CONFIG and --set",
           k, dist_host(d, k));
      rc = -1;
    }
  free(verdict);
  if (rc != 0) {
    ld->stopped = ld->finished = 1; /* every rank knows: nothing to stop */
    return -1;
  }
  if (send_net(r, -1, err, errlen) != 0) return -1;
  train_emit(r, 1, "distributed: learner on %s, %d actor rank(s) of %d self-play thread(s)",
             dist_host(d, 0), n - 1, c->threads);
  return 0;
}

/* One game message from an actor: checked, into the buffer and counters. */
static int take_game(run *r, int from, const unsigned char *m, size_t len, char *err,
                     size_t errlen) {
  learner_dist *ld = r->ld;
  dist_game_msg h;
  if (len < sizeof h) return errf(err, errlen, "rank %d sent a short game message", from), -1;
  memcpy(&h, m, sizeof h);
  if (h.n > GAME_MAX_PLIES_CAP || h.nmoves > GAME_MAX_PLIES_CAP ||
      len != sizeof h + (size_t)h.n * sizeof(replay_sample) + h.nmoves)
    return errf(err, errlen, "rank %d sent a game message of the wrong size", from), -1;
  const replay_sample *s = (const replay_sample *)(m + sizeof h);
  /* The learner encodes each sample with its variant's rules. */
  int bad = h.variant >= (uint32_t)r->cfg.n_variants;
  for (uint32_t i = 0; i < h.n && !bad; i++) bad = s[i].variant >= r->cfg.n_variants;
  if (bad)
    return errf(err, errlen, "rank %d sent a game of a variant the run does not have", from), -1;
  if (h.n) replay_add(r->buf, s, (int)h.n);
  selfplay_counters *ct = &r->counters;
  selfplay_count_game(ct, &h.final, game_first_mover(&r->cfg.variant[h.variant]), h.n);
  atomic_fetch_add(&ct->evals, h.evals);
  atomic_fetch_add(&ct->eval_calls, h.eval_calls);
  atomic_fetch_add(&ct->search_ns, h.search_ns);
  atomic_fetch_add(&ct->net_ns, h.net_ns);
  uint64_t lag = r->rc.promotions > h.version ? r->rc.promotions - h.version : 0;
  ld->lag_sum += lag;
  ld->lag_games++;
  if (lag > ld->lag_max) ld->lag_max = lag;
  if (h.version > ld->version_max) ld->version_max = h.version;
  ld->paused_ms += h.paused_ms;
  ld->bytes += len;
  ld->games[from]++;
  ld->samples[from] += h.n;
  if (r->cfg.record_every > 0 && h.nmoves && ld->taken % (uint64_t)r->cfg.record_every == 0)
    train_record_game(r, &r->cfg.variant[h.variant],
                      m + sizeof h + (size_t)h.n * sizeof(replay_sample), (int)h.nmoves, &h.final);
  ld->taken++;
  /* The actor's room for more; none after the stop, which ends what it
   * reads from this rank. */
  if (ld->unacked && !ld->stopped && (ld->unacked[from] += len) >= DIST_ACK_BYTES) {
    uint64_t b = ld->unacked[from];
    ld->unacked[from] = 0;
    if (dist_send(ld->d, from, DIST_TAG_ACK, &b, sizeof b, err, errlen) != 0) return -1;
  }
  return 0;
}

/* Takes every message waiting (from src; -1: any); 0, or -1 on failure. */
static int take_all(run *r, int src, char *err, size_t errlen) {
  learner_dist *ld = r->ld;
  int from, tag;
  size_t len;
  while (dist_probe(ld->d, src, &from, &tag, &len)) {
    if (dist_recv(ld->d, &ld->buf, &ld->cap, err, errlen) != 0) return -1;
    if (from <= 0 || from >= ld->size)
      return errf(err, errlen, "a message from rank %d, which is no actor", from), -1;
    if (tag == DIST_TAG_GAME) {
      if (take_game(r, from, ld->buf, len, err, errlen) != 0) return -1;
    } else if (tag == DIST_TAG_BYE) {
      if (!ld->gone[from]) {
        ld->gone[from] = 1;
        ld->n_gone++;
        train_emit(r, 1, "distributed: actor rank %d (host %s) left", from, dist_host(ld->d, from));
      }
    } else {
      return errf(err, errlen, "rank %d sent a message of unknown tag %d", from, tag), -1;
    }
  }
  dist_progress(ld->d);
  return 0;
}

int train_dist_poll(run *r, char *err, size_t errlen) { return take_all(r, -1, err, errlen); }

int train_dist_ingest(run *r, const unsigned char *msgs, size_t total, char *err, size_t errlen) {
  learner_dist one = {.size = 2}, *keep = r->ld;
  uint64_t games[2] = {0}, samples[2] = {0};
  one.games = games;
  one.samples = samples;
  r->ld = &one;
  int rc = 0;
  for (size_t k = 0; rc == 0 && k + sizeof(dist_game_msg) <= total;) {
    dist_game_msg h;
    memcpy(&h, msgs + k, sizeof h);
    size_t len = sizeof h + (size_t)h.n * sizeof(replay_sample) + h.nmoves;
    rc = take_game(r, 1, msgs + k, len <= total - k ? len : total - k, err, errlen);
    k += len;
  }
  r->ld = keep;
  return rc;
}

int train_dist_orphaned(const run *r) { return r->ld && r->ld->n_gone >= r->ld->size - 1; }

int train_dist_publish(run *r, char *err, size_t errlen) {
  return r->ld ? send_net(r, -1, err, errlen) : 0;
}

int train_dist_stop(run *r, char *err, size_t errlen) {
  learner_dist *ld = r->ld;
  if (!ld || ld->stopped) return 0;
  ld->stopped = 1;
  for (int k = 1; k < ld->size; k++)
    if (dist_send(ld->d, k, DIST_TAG_STOP, "", 0, err, errlen) != 0) return -1;
  return 0;
}

int train_dist_finish(run *r, char *err, size_t errlen) {
  learner_dist *ld = r->ld;
  if (!ld || ld->finished) return 0;
  int rc = train_dist_stop(r, err, errlen);
  ld->finished = 1;
  /* Their last games, until each says nothing more comes. */
  while (rc == 0 && ld->n_gone < ld->size - 1) {
    rc = take_all(r, -1, err, errlen);
    struct timespec ts = {0, 2 * 1000000};
    nanosleep(&ts, NULL);
  }
  if (rc == 0) rc = dist_flush(ld->d, err, errlen);
  return rc;
}

void train_dist_json(run *r, char *json, size_t len) {
  learner_dist *ld = r->ld;
  if (!ld) {
    json[0] = 0;
    return;
  }
  size_t k = (size_t)snprintf(
      json, len,
      ", \"dist\": {\"ranks\": %d, \"version\": %u, \"lag_mean\": %.3f, "
      "\"lag_max\": %llu, \"game_version_max\": %llu, \"actors_paused_s\": %.3f, "
      "\"ingest_mb\": %.3f, "
      "\"games_by_rank\": [",
      ld->size, r->rc.promotions, ld->lag_games ? (double)ld->lag_sum / (double)ld->lag_games : 0,
      (unsigned long long)ld->lag_max, (unsigned long long)ld->version_max, ld->paused_ms / 1000.0,
      ld->bytes / 1048576.0);
  for (int i = 0; i < ld->size && k < len; i++)
    k += (size_t)snprintf(json + k, len - k, "%s%llu", i ? ", " : "",
                          (unsigned long long)ld->games[i]);
  if (k < len) k += (size_t)snprintf(json + k, len - k, "], \"samples_by_rank\": [");
  for (int i = 0; i < ld->size && k < len; i++)
    k += (size_t)snprintf(json + k, len - k, "%s%llu", i ? ", " : "",
                          (unsigned long long)ld->samples[i]);
  if (k < len) snprintf(json + k, len - k, "]}");
  ld->lag_sum = ld->lag_max = ld->lag_games = ld->paused_ms = ld->bytes = ld->version_max = 0;
}

void train_dist_free(run *r) {
  learner_dist *ld = r->ld;
  if (!ld) return;
  free(ld->games);
  free(ld->samples);
  free(ld->gone);
  free(ld->unacked);
  free(ld->buf);
  free(ld);
  r->ld = NULL;
}

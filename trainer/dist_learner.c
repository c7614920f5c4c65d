/* The learner's side of a distributed run (docs/DISTRIBUTED.md): rank 0
 * checks that every rank runs the same build and config, gives the actors
 * the resolved config and the best network, takes in their games between
 * training steps without ever waiting for them, publishes each promotion,
 * and at the end stops the actors and takes their last games.
 *
 * Only the learner's thread calls these (MPI_THREAD_FUNNELED). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trainer/dist_learner.h"

#include "trainer/records.h"
#include "trainer/train_internal.h"

struct dist_learner {
  dist_learner_env env;
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
};

int train_same_build(dist *d, char *err, size_t errlen) {
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

typedef struct {
  uint32_t version, n_params;
} dist_net_msg;

unsigned char *dist_net_pack(const nn_net *net, uint32_t version, size_t *len) {
  size_t np = nn_param_count(net);
  *len = sizeof(dist_net_msg) + np * sizeof(float);
  unsigned char *m = malloc(*len);
  if (!m) return NULL;
  dist_net_msg h = {version, (uint32_t)np};
  memcpy(m, &h, sizeof h);
  memcpy(m + sizeof h, nn_params(net), np * sizeof(float));
  return m;
}

int dist_net_unpack(nn_net *net, const unsigned char *m, size_t len, uint32_t *version, char *err,
                    size_t errlen) {
  dist_net_msg h;
  size_t np = nn_param_count(net);
  if (len < sizeof h) return errf(err, errlen, "a short network message"), -1;
  memcpy(&h, m, sizeof h);
  if (h.n_params != np || len != sizeof h + np * sizeof(float))
    return errf(err, errlen, "a network message of %u parameters, not %zu", h.n_params, np), -1;
  memcpy(nn_params_mut(net), m + sizeof h, np * sizeof(float));
  *version = h.version;
  return 0;
}

static int send_net(dist_learner *ld, const nn_net *best, int rank, char *err, size_t errlen) {
  size_t len;
  unsigned char *m = dist_net_pack(best, *ld->env.promotions, &len);
  if (!m) return errf(err, errlen, "out of memory"), -1;
  int rc = 0;
  for (int k = rank < 0 ? 1 : rank; rc == 0 && k < (rank < 0 ? ld->size : rank + 1); k++)
    if (!ld->gone[k]) rc = dist_send(ld->d, k, DIST_TAG_NET, m, len, err, errlen);
  free(m);
  return rc;
}

unsigned char *dist_start_pack(const train_config *c, uint32_t iteration, size_t *len) {
  size_t tlen = 0;
  char *text = config_text(c, &tlen);
  unsigned char *m = text ? malloc(sizeof(dist_start_msg) + tlen + 1) : NULL;
  if (m) {
    dist_start_msg h = {1, iteration};
    memcpy(m, &h, sizeof h);
    memcpy(m + sizeof h, text, tlen + 1);
    *len = sizeof h + tlen + 1;
  }
  free(text);
  return m;
}

int dist_start_unpack(const unsigned char *m, size_t len, uint32_t *iteration, train_config *c,
                      char *err, size_t errlen) {
  dist_start_msg h;
  if (len < sizeof h) return errf(err, errlen, "a short start message (%zu bytes)", len), -1;
  memcpy(&h, m, sizeof h);
  if (!h.ok) return errf(err, errlen, "the learner (rank 0) did not start"), 1;
  const char *text = (const char *)m + sizeof h;
  if (len == sizeof h || text[len - sizeof h - 1] != 0)
    return errf(err, errlen, "a start message whose config is not one string"), -1;
  char e[1024];
  if (config_parse(c, "the learner's config", text, e, sizeof e) != 0)
    return errf(err, errlen, "%s", e), -1;
  *iteration = h.iteration;
  return 0;
}

void dist_learner_failed(dist *d) {
  dist_start_msg h = {0};
  void *p = &h;
  size_t n = sizeof h;
  char e[256];
  dist_bcast(d, &p, &n, e, sizeof e);
}

static void say(const dist_learner *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const dist_learner *ld, const char *fmt, ...) {
  if (!ld->env.say) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  ld->env.say(ld->env.say_ctx, line);
}

/* The start, up to the first network; ld is freed by the caller. */
static int start(dist_learner *ld, unsigned iteration, const nn_net *best, char *err,
                 size_t errlen) {
  dist *d = ld->d;
  const train_config *c = ld->env.c;
  int n = ld->size;
  ld->games = calloc((size_t)n, sizeof *ld->games);
  ld->samples = calloc((size_t)n, sizeof *ld->samples);
  ld->gone = calloc((size_t)n, sizeof *ld->gone);
  ld->unacked = calloc((size_t)n, sizeof *ld->unacked);
  /* The start message and the config's text, in one broadcast. */
  size_t len = 0;
  unsigned char *m = dist_start_pack(c, iteration, &len);
  if (!ld->games || !ld->samples || !ld->gone || !ld->unacked || !m) {
    free(m);
    dist_learner_failed(d);
    ld->stopped = ld->finished = 1; /* the actors end by themselves */
    return errf(err, errlen, "out of memory"), -1;
  }
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
  if (send_net(ld, best, -1, err, errlen) != 0) return -1;
  say(ld, "distributed: learner on %s, %d actor rank(s) of %d self-play thread(s)", dist_host(d, 0),
      n - 1, c->threads);
  return 0;
}

dist_learner *dist_learner_start(dist *d, const dist_learner_env *env, unsigned iteration,
                                 const nn_net *best, char *err, size_t errlen) {
  if (env->c->deterministic) {
    dist_learner_failed(d);
    errf(err, errlen,
         "run.deterministic = 1 needs one process: a distributed run's schedule depends on "
         "timing (set run.deterministic = 0, or run without mpirun)");
    return NULL;
  }
  dist_learner *ld = calloc(1, sizeof *ld);
  if (!ld) return dist_learner_failed(d), errf(err, errlen, "out of memory"), NULL;
  ld->env = *env;
  ld->d = d;
  ld->size = dist_size(d);
  if (start(ld, iteration, best, err, errlen) != 0) {
    char e[256];
    dist_learner_finish(ld, e, sizeof e); /* the actors stop, if they started */
    dist_learner_free(ld);
    return NULL;
  }
  return ld;
}

/* One game message from an actor: checked, into the buffer and counters. */
static int take_game(dist_learner *ld, int from, const unsigned char *m, size_t len, char *err,
                     size_t errlen) {
  const train_config *c = ld->env.c;
  dist_game_msg h;
  if (len < sizeof h) return errf(err, errlen, "rank %d sent a short game message", from), -1;
  memcpy(&h, m, sizeof h);
  if (h.n > GAME_MAX_PLIES_CAP || h.nmoves > GAME_MAX_PLIES_CAP ||
      len != sizeof h + (size_t)h.n * sizeof(replay_sample) + h.nmoves)
    return errf(err, errlen, "rank %d sent a game message of the wrong size", from), -1;
  const replay_sample *s = (const replay_sample *)(m + sizeof h);
  /* The learner encodes each sample with its variant's rules. */
  int bad = h.variant >= (uint32_t)c->n_variants;
  for (uint32_t i = 0; i < h.n && !bad; i++) bad = s[i].variant >= c->n_variants;
  if (bad)
    return errf(err, errlen, "rank %d sent a game of a variant the run does not have", from), -1;
  if (h.n) replay_add(ld->env.buf, s, (int)h.n);
  selfplay_counters *ct = ld->env.counters;
  selfplay_count_game(ct, &h.final, game_first_mover(&c->variant[h.variant]), h.n);
  atomic_fetch_add(&ct->evals, h.evals);
  atomic_fetch_add(&ct->eval_calls, h.eval_calls);
  atomic_fetch_add(&ct->search_ns, h.search_ns);
  atomic_fetch_add(&ct->net_ns, h.net_ns);
  uint32_t version = *ld->env.promotions;
  uint64_t lag = version > h.version ? version - h.version : 0;
  ld->lag_sum += lag;
  ld->lag_games++;
  if (lag > ld->lag_max) ld->lag_max = lag;
  if (h.version > ld->version_max) ld->version_max = h.version;
  ld->paused_ms += h.paused_ms;
  ld->bytes += len;
  ld->games[from]++;
  ld->samples[from] += h.n;
  if (ld->env.records && c->record_every > 0 && h.nmoves &&
      ld->taken % (uint64_t)c->record_every == 0)
    records_add(ld->env.records, &c->variant[h.variant],
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
static int take_all(dist_learner *ld, int src, char *err, size_t errlen) {
  int from, tag;
  size_t len;
  while (dist_probe(ld->d, src, &from, &tag, &len)) {
    if (dist_recv(ld->d, &ld->buf, &ld->cap, err, errlen) != 0) return -1;
    if (from <= 0 || from >= ld->size)
      return errf(err, errlen, "a message from rank %d, which is no actor", from), -1;
    if (tag == DIST_TAG_GAME) {
      if (take_game(ld, from, ld->buf, len, err, errlen) != 0) return -1;
    } else if (tag == DIST_TAG_BYE) {
      if (!ld->gone[from]) {
        ld->gone[from] = 1;
        ld->n_gone++;
        say(ld, "distributed: actor rank %d (host %s) left", from, dist_host(ld->d, from));
      }
    } else {
      return errf(err, errlen, "rank %d sent a message of unknown tag %d", from, tag), -1;
    }
  }
  dist_progress(ld->d);
  return 0;
}

int dist_learner_poll(dist_learner *ld, char *err, size_t errlen) {
  return take_all(ld, -1, err, errlen);
}

int dist_learner_ingest(const dist_learner_env *env, const unsigned char *msgs, size_t total,
                        json_writer *w, char *err, size_t errlen) {
  dist_learner one = {.env = *env, .size = 2};
  uint64_t games[2] = {0}, samples[2] = {0};
  one.games = games;
  one.samples = samples;
  int rc = 0;
  for (size_t k = 0; rc == 0 && k + sizeof(dist_game_msg) <= total;) {
    dist_game_msg h;
    memcpy(&h, msgs + k, sizeof h);
    size_t len = sizeof h + (size_t)h.n * sizeof(replay_sample) + h.nmoves;
    rc = take_game(&one, 1, msgs + k, len <= total - k ? len : total - k, err, errlen);
    k += len;
  }
  if (w) dist_learner_json(&one, w);
  return rc;
}

int dist_learner_orphaned(const dist_learner *ld) { return ld && ld->n_gone >= ld->size - 1; }

int dist_learner_publish(dist_learner *ld, const nn_net *best, char *err, size_t errlen) {
  return ld ? send_net(ld, best, -1, err, errlen) : 0;
}

int dist_learner_stop(dist_learner *ld, char *err, size_t errlen) {
  if (!ld || ld->stopped) return 0;
  ld->stopped = 1;
  for (int k = 1; k < ld->size; k++)
    if (dist_send(ld->d, k, DIST_TAG_STOP, "", 0, err, errlen) != 0) return -1;
  return 0;
}

int dist_learner_finish(dist_learner *ld, char *err, size_t errlen) {
  if (!ld || ld->finished) return 0;
  int rc = dist_learner_stop(ld, err, errlen);
  ld->finished = 1;
  /* Their last games, until each says nothing more comes. */
  while (rc == 0 && ld->n_gone < ld->size - 1) {
    rc = take_all(ld, -1, err, errlen);
    struct timespec ts = {0, 2 * 1000000};
    nanosleep(&ts, NULL);
  }
  if (rc == 0) rc = dist_flush(ld->d, err, errlen);
  return rc;
}

void dist_learner_json(dist_learner *ld, json_writer *w) {
  if (!ld) return;
  json_begin_object(w, "dist");
  json_put_int(w, "ranks", ld->size);
  json_put_uint(w, "version", *ld->env.promotions);
  json_put_fixed(w, "lag_mean", ld->lag_games ? (double)ld->lag_sum / (double)ld->lag_games : 0, 3);
  json_put_uint(w, "lag_max", (unsigned long long)ld->lag_max);
  json_put_uint(w, "game_version_max", (unsigned long long)ld->version_max);
  json_put_fixed(w, "actors_paused_s", ld->paused_ms / 1000.0, 3);
  json_put_fixed(w, "ingest_mb", ld->bytes / 1048576.0, 3);
  json_begin_array(w, "games_by_rank");
  for (int i = 0; i < ld->size; i++) json_put_uint(w, NULL, (unsigned long long)ld->games[i]);
  json_end_array(w);
  json_begin_array(w, "samples_by_rank");
  for (int i = 0; i < ld->size; i++) json_put_uint(w, NULL, (unsigned long long)ld->samples[i]);
  json_end_array(w);
  json_end_object(w);
  ld->lag_sum = ld->lag_max = ld->lag_games = ld->paused_ms = ld->bytes = ld->version_max = 0;
}

void dist_learner_free(dist_learner *ld) {
  if (!ld) return;
  free(ld->games);
  free(ld->samples);
  free(ld->gone);
  free(ld->unacked);
  free(ld->buf);
  free(ld);
}

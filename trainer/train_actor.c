/* An actor rank of a distributed run (docs/DISTRIBUTED.md).
 *
 * The workers hand each finished game to the outbox (selfplay's sink);
 * this rank's main thread, the only one that talks MPI, posts the queued
 * games to the learner, picks up published networks and watches for the
 * learner's stop. The outbox is bounded: when the games queued and those
 * posted but not yet acknowledged by the learner (DIST_TAG_ACK) exceed
 * selfplay.actor_outbox_mb (the learner is behind), the workers wait, and the time
 * they waited goes to the learner with the next game. Acknowledgements,
 * not MPI's completion of sends, since MPI completes small sends at once
 * into the receiver's memory. No finished game is dropped while the run
 * goes on. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "trainer/endgame.h"
#include "trainer/machine.h"
#include "trainer/rundir.h"
#include "trainer/train.h"
#include "trainer/train_internal.h"

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t room;
  unsigned char *q; /* queued game messages, back to back */
  size_t q_len, q_cap;
  uint64_t sent, acked; /* bytes of games posted; of those, acknowledged (main thread) */
  size_t in_flight;     /* sent - acked, for the workers */
  size_t limit;         /* on q_len + in_flight */
  int stop;
  uint32_t *version; /* version of the network of slot generation g: version[g - 1] */
  int n_versions, cap_versions;
  int keep_moves; /* the learner keeps games (record_every): moves travel */
  selfplay_counters *ct;
  uint64_t evals, eval_calls, search_ns, net_ns; /* the counters at the last game */
  double paused;                                 /* seconds waited since the last game */
} outbox;

static void *append(outbox *o, size_t n) {
  if (o->q_len + n > o->q_cap) {
    size_t cap = (o->q_len + n) * 2;
    unsigned char *q = realloc(o->q, cap);
    if (!q) return NULL;
    o->q = q;
    o->q_cap = cap;
  }
  void *at = o->q + o->q_len;
  o->q_len += n;
  return at;
}

/* selfplay_sink_fn: one finished game into the outbox, waiting for room. */
static int sink(void *ctx, const selfplay_game *gm) {
  outbox *o = ctx;
  size_t nmoves = o->keep_moves ? (size_t)gm->nmoves : 0;
  size_t len = sizeof(dist_game_msg) + (size_t)gm->n * sizeof(replay_sample) + nmoves;
  pthread_mutex_lock(&o->lock);
  double t0 = clock_wall();
  /* (A game alone always goes: one larger than the bound cannot wait forever.) */
  while (!o->stop && (o->q_len || o->in_flight) && o->q_len + o->in_flight + len > o->limit)
    pthread_cond_wait(&o->room, &o->lock);
  o->paused += clock_wall() - t0;
  if (o->stop) {
    pthread_mutex_unlock(&o->lock); /* the run is over: the game goes nowhere */
    return 0;
  }
  unsigned char *m = append(o, len);
  if (!m) {
    pthread_mutex_unlock(&o->lock);
    return -1;
  }
  uint64_t ev = atomic_load(&o->ct->evals), ec = atomic_load(&o->ct->eval_calls);
  uint64_t sn = atomic_load(&o->ct->search_ns), nn = atomic_load(&o->ct->net_ns);
  dist_game_msg h = {
      .version = gm->gen >= 1 && gm->gen <= (uint64_t)o->n_versions ? o->version[gm->gen - 1] : 0,
      .n = (uint32_t)gm->n,
      .nmoves = (uint32_t)nmoves,
      .paused_ms = (uint32_t)(o->paused * 1000),
      .variant = (uint32_t)gm->variant,
      .evals = ev - o->evals,
      .eval_calls = ec - o->eval_calls,
      .search_ns = sn - o->search_ns,
      .net_ns = nn - o->net_ns,
      .final = *gm->final};
  o->evals = ev, o->eval_calls = ec, o->search_ns = sn, o->net_ns = nn;
  o->paused = 0;
  memcpy(m, &h, sizeof h);
  memcpy(m + sizeof h, gm->samples, (size_t)gm->n * sizeof(replay_sample));
  memcpy(m + sizeof h + (size_t)gm->n * sizeof(replay_sample), gm->moves, nmoves);
  pthread_mutex_unlock(&o->lock);
  return 0;
}

/* The start message and config from the learner, and every rank's
 * verdict on it: 0 when all agree; 1 when the start was refused, which
 * every rank knows (err says why if this rank refused); -1 on an MPI
 * failure. */
static int receive_config(const train_args *a, dist *d, train_config *c, uint32_t *iteration,
                          char *err, size_t errlen) {
  void *p = NULL;
  size_t len = 0;
  if (dist_bcast(d, &p, &len, err, errlen) != 0) return -1;
  uint64_t verdict = 0;
  char e[1024];
  int got = dist_start_unpack(p, len, iteration, c, e, sizeof e);
  if (got > 0) {
    free(p);
    errf(err, errlen, "%s; its message says why", e);
    return 1;
  }
  if (got < 0) {
    errf(err, errlen, "rank %d (host %s): %s", dist_rank(d), dist_host(d, dist_rank(d)), e);
    verdict = 1;
  }
  free(p);
  /* This rank's own command line, if it names a config, must agree. */
  train_config mine;
  config_diff diff;
  if (!verdict && a->config_path) {
    if (config_load(&mine, a->config_path, a->n_over, a->over, e, sizeof e) != 0) {
      errf(err, errlen, "rank %d (host %s): %s", dist_rank(d), dist_host(d, dist_rank(d)), e);
      verdict = 1;
    } else if (config_compare(&mine, c, &diff)) {
      errf(err, errlen,
           "rank %d (host %s): its config has %s = %s, the learner's run has %s: every rank "
           "must get the same CONFIG and --set",
           dist_rank(d), dist_host(d, dist_rank(d)), diff.key, diff.a, diff.b);
      verdict = 1;
    }
  }
  int size = dist_size(d), rc = 0;
  uint64_t *all = calloc((size_t)size, sizeof *all);
  if (!all) {
    errf(err, errlen, "out of memory");
    rc = -1;
  } else if (dist_allgather_u64(d, verdict, all, err, errlen) != 0) {
    rc = -1;
  } else {
    for (int k = 1; k < size; k++)
      if (all[k]) rc = 1;
    if (rc && !verdict) err[0] = 0; /* the rank that refused says why */
  }
  free(all);
  return rc;
}

/* A network message into the slot; its version recorded. */
static int take_net(outbox *o, netslot *slot, nn_net *tmp, const unsigned char *m, size_t len,
                    char *err, size_t errlen) {
  uint32_t version;
  if (dist_net_unpack(tmp, m, len, &version, err, errlen) != 0) return -1;
  pthread_mutex_lock(&o->lock);
  if (o->n_versions == o->cap_versions) {
    int cap = o->cap_versions ? 2 * o->cap_versions : 16;
    uint32_t *v = realloc(o->version, sizeof *v * (size_t)cap);
    if (!v) {
      pthread_mutex_unlock(&o->lock);
      return errf(err, errlen, "out of memory"), -1;
    }
    o->version = v;
    o->cap_versions = cap;
  }
  o->version[o->n_versions++] = version;
  pthread_mutex_unlock(&o->lock);
  if (slot) netslot_publish(slot, tmp);
  return 0;
}

/* Posts the queued games to the learner, in the order they finished, and
 * tells the workers how much is still in flight. */
static int post_games(outbox *o, dist *d, char *err, size_t errlen) {
  pthread_mutex_lock(&o->lock);
  unsigned char *q = o->q;
  size_t q_len = o->q_len;
  o->q = NULL;
  o->q_len = o->q_cap = 0;
  pthread_mutex_unlock(&o->lock);
  int rc = 0;
  for (size_t k = 0; rc == 0 && k < q_len;) {
    dist_game_msg h;
    memcpy(&h, q + k, sizeof h);
    size_t n = sizeof h + (size_t)h.n * sizeof(replay_sample) + h.nmoves;
    rc = dist_send(d, 0, DIST_TAG_GAME, q + k, n, err, errlen);
    o->sent += n;
    k += n;
  }
  free(q);
  dist_progress(d);
  pthread_mutex_lock(&o->lock);
  o->in_flight = (size_t)(o->sent - o->acked);
  pthread_cond_broadcast(&o->room);
  pthread_mutex_unlock(&o->lock);
  return rc;
}

static void close_outbox(outbox *o) {
  pthread_mutex_lock(&o->lock);
  o->stop = 1;
  pthread_cond_broadcast(&o->room);
  pthread_mutex_unlock(&o->lock);
}

int train_actor(const train_args *a, dist *d, char *err, size_t errlen) {
  int same = train_same_build(d, err, errlen);
  if (same > 0) err[0] = 0; /* rank 0 names the rank that differs */
  if (same != 0) return same;
  train_config c;
  uint32_t iteration = 0;
  int rc = receive_config(a, d, &c, &iteration, err, errlen);
  if (rc != 0) return rc;
  outbox o = {.keep_moves = c.record_every > 0, .limit = (size_t)c.actor_outbox_mb << 20};
  pthread_mutex_init(&o.lock, NULL);
  pthread_cond_init(&o.room, NULL);
  selfplay_counters ct;
  memset(&ct, 0, sizeof ct);
  o.ct = &ct;
  nn_config nc = {c.g.n_features, c.hidden, c.blocks, c.g.n_actions};
  nn_net *tmp = nn_create(&nc, c.seed, err, errlen);
  netslot *slot = NULL;
  selfplay *sp = NULL;
  egdb *db = NULL;
  unsigned char *buf = NULL;
  size_t cap = 0, len = 0;
  int from, tag, stopped = 0, bye = 0;
  char dir[RUNDIR_PATH_MAX], e[512];
  rc = -1;
  if (!tmp || endgame_acquire_db(&c, &db, dir, sizeof dir, err, errlen) != 0) goto out;
  /* The first network, before any game (or the stop of a run that ends at once). */
  while (!dist_probe(d, 0, &from, &tag, &len)) {
    struct timespec ts = {0, 2 * 1000000};
    nanosleep(&ts, NULL);
  }
  if (dist_recv(d, &buf, &cap, err, errlen) != 0) goto out;
  if (tag == DIST_TAG_STOP) {
    stopped = 1;
  } else if (tag != DIST_TAG_NET) {
    errf(err, errlen, "the learner's first message has tag %d, not a network", tag);
    goto out;
  } else {
    if (take_net(&o, NULL, tmp, buf, len, err, errlen) != 0 ||
        !(slot = netslot_create(tmp, err, errlen)))
      goto out;
    nn_auto_report ar; /* auto: each actor measures on its own node */
    if (c.precision == NN_PRECISION_AUTO && !c.deterministic) {
      if (nn_auto_choose(tmp, &c.games_per_thread, 1, NULL, NULL, &ar, err, errlen) != 0) goto out;
      c.precision = (int)ar.choice;
    }
    selfplay_params sp_p = train_selfplay_params(&c);
    sp_p.seed = c.seed ^ iteration ^ ((uint64_t)dist_rank(d) * 0x9e3779b97f4a7c15ULL);
    sp_p.db = db;
    sp_p.sink = sink;
    sp_p.sink_ctx = &o;
    char why[320]; /* an actor keeps no core for a learner */
    int threads = machine_threads(&c, 0, NULL, why, sizeof why);
    if (!(sp = selfplay_start(&sp_p, threads, slot, &ct, err, errlen))) goto out;
  }
  for (;;) {
    if (sp && selfplay_failed(sp)) {
      selfplay_stop(sp, err, errlen);
      sp = NULL;
      goto out;
    }
    if (post_games(&o, d, err, errlen) != 0) goto out;
    /* Leaving (the learner's stop, or a signal here): the last games, then
     * the bye at once, so that the learner need not wait for the workers. */
    if (!bye && (stopped || (a->stop && *a->stop))) {
      close_outbox(&o);
      if (post_games(&o, d, err, errlen) != 0 ||
          dist_send(d, 0, DIST_TAG_BYE, "", 0, err, errlen) != 0)
        goto out;
      bye = 1;
    }
    if (stopped) break;
    while (!stopped && dist_probe(d, 0, &from, &tag, &len)) {
      if (dist_recv(d, &buf, &cap, err, errlen) != 0) goto out;
      if (tag == DIST_TAG_STOP) {
        stopped = 1;
      } else if (tag == DIST_TAG_ACK && len == sizeof(uint64_t)) {
        uint64_t b;
        memcpy(&b, buf, sizeof b);
        o.acked += b; /* the workers see it with the next post_games */
      } else if (tag != DIST_TAG_NET) {
        errf(err, errlen, "a message of unknown tag %d from the learner", tag);
        goto out;
      } else if (take_net(&o, slot, tmp, buf, len, err, errlen) != 0) {
        goto out;
      }
    }
    struct timespec ts = {0, 2 * 1000000};
    nanosleep(&ts, NULL);
  }
  rc = 0;
out:
  close_outbox(&o);
  if (sp && selfplay_stop(sp, e, sizeof e) != 0 && rc == 0) {
    errf(err, errlen, "%s", e);
    rc = -1;
  }
  /* Everything posted is delivered (the learner takes messages until every bye). */
  if (rc == 0 && dist_flush(d, err, errlen) != 0) rc = -1;
  netslot_free(slot);
  nn_free(tmp);
  egdb_release(db);
  free(buf);
  free(o.q);
  free(o.version);
  pthread_cond_destroy(&o.room);
  pthread_mutex_destroy(&o.lock);
  return rc;
}

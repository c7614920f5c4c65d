/* Self-play (trainer/selfplay.c): the workers' games replay legally to the
 * results they report; their samples are the positions of those games, in
 * order, with target policies that sum to 1 over legal actions and outcomes
 * and margins of the final positions; one worker's games repeat for a seed;
 * two workers keep the shared counters exact while the best network is
 * swapped under them; phased workers repeat their games and fill their
 * share of a phase; the best-network slot hands out whole copies. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/json.h"
#include "game/game.h"
#include "nn/nn.h"
#include "search/mcts.h"
#include "tests/nntest.h"
#include "tests/testkit.h"
#include "tests/testutil.h"
#include "arena/record.h"
#include "trainer/records.h"
#include "trainer/replay.h"
#include "trainer/selfplay.h"

static game G;

static void setup(void) {
  char err[256];
  ck_assert_int_eq(game_configure(&G, "oware", 0, NULL, err, sizeof err), 0);
}

/* A small untrained net for G. */
static nn_net *small_net(uint64_t seed) { return game_net(&G, 32, seed); }

/* ---- Finished games, as the record sink sees them --------------------------------- */

enum { MAX_GAMES = 512 };

typedef struct {
  pthread_mutex_t lock;
  int n;
  uint8_t *moves[MAX_GAMES];
  int len[MAX_GAMES];
  game_pos final[MAX_GAMES];
  uint64_t number[MAX_GAMES];
} games_seen;

static void note_game(games_seen *s, const selfplay_game *gm) {
  pthread_mutex_lock(&s->lock);
  if (s->n < MAX_GAMES) {
    s->moves[s->n] = malloc((size_t)gm->nmoves + 1);
    memcpy(s->moves[s->n], gm->moves, (size_t)gm->nmoves);
    s->len[s->n] = gm->nmoves;
    s->final[s->n] = *gm->final;
    s->number[s->n] = gm->number;
    s->n++;
  }
  pthread_mutex_unlock(&s->lock);
}

static void games_free(games_seen *s) {
  for (int i = 0; i < s->n; i++) free(s->moves[i]);
  pthread_mutex_destroy(&s->lock);
}

/* ---- A self-play session --------------------------------------------------------------- */

typedef struct {
  games_seen seen;
  replay *buffer;
  selfplay_counters counters;
  netslot *slot;
  nn_net *net;
} session;

/* The sink: the run's store (the buffer), and the kept games' moves seen. */
static int sink(void *ctx, const selfplay_game *gm) {
  session *s = ctx;
  selfplay_store st = {s->buffer, NULL};
  if (selfplay_store_game(&st, gm) != 0) return -1;
  if (gm->keep) note_game(&s->seen, gm);
  return 0;
}

/* Starts workers of p whose games go to s. */
static selfplay *start(session *s, const selfplay_params *p, int threads, char *err,
                       size_t errlen) {
  selfplay_params q = *p;
  q.sink = sink;
  q.sink_ctx = s;
  return selfplay_start(&q, threads, s->slot, &s->counters, err, errlen);
}

static selfplay_params params(uint64_t seed) {
  selfplay_params p;
  memset(&p, 0, sizeof p);
  p.g = &G;
  p.search = mcts_defaults();
  p.search.sims = 8;
  p.search.node_cap = 4000;
  p.search.temp_plies = 12;
  p.games = 4;
  p.cap_sims = 0; /* every move a full search and a sample */
  p.full_frac = 1;
  p.record_every = 1;
  p.seed = seed;
  return p;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

/* Starts threads workers on a fresh net of net_seed; runs until `games`
 * games have finished (at most 120 s), while publish, if set, is called
 * every few milliseconds; then stops them. */
static void run_session(session *s, const selfplay_params *p, int threads, uint64_t net_seed,
                        int games, void (*publish)(session *, int)) {
  char err[512];
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->seen.lock, NULL);
  s->net = small_net(net_seed);
  s->slot = netslot_create(s->net, err, sizeof err);
  ck_assert_msg(s->slot != NULL, "%s", err);
  s->buffer = replay_create(&G, 1 << 17, err, sizeof err);
  ck_assert_msg(s->buffer != NULL, "%s", err);
  selfplay *sp = start(s, p, threads, err, sizeof err);
  ck_assert_msg(sp != NULL, "%s", err);
  double t0 = clock_wall();
  for (int k = 0; atomic_load(&s->counters.games) < (uint64_t)games; k++) {
    ck_assert_msg(clock_wall() - t0 < 120, "only %llu games in 120 s",
                  (unsigned long long)atomic_load(&s->counters.games));
    ck_assert(!selfplay_failed(sp));
    if (publish) publish(s, k);
    sleep_ms(2);
  }
  ck_assert_msg(selfplay_stop(sp, err, sizeof err) == 0, "%s", err);
}

static void session_free(session *s) {
  replay_free(s->buffer);
  netslot_free(s->slot);
  nn_free(s->net);
  games_free(&s->seen);
}

/* Replays game i of s from the start: every move legal, and the final
 * position the one recorded; positions into path (the position before
 * each move) when path is not NULL. */
static void replay_game(const session *s, int i, game_pos *path) {
  game_hist *h = malloc(sizeof *h);
  game_pos p;
  game_start(&G, &p);
  game_hist_reset(h, &p);
  for (int k = 0; k < s->seen.len[i]; k++) {
    int a = s->seen.moves[i][k];
    CHECK(p.status == GAME_ONGOING, "game %d: move %d after the end", i, k);
    CHECK(game_legal(&G, &p) >> a & 1, "game %d: move %d (%d) is illegal", i, k, a);
    if (path) path[k] = p;
    game_step(&G, &p, h, a);
  }
  free(h);
  const game_pos *f = &s->seen.final[i];
  CHECK(p.status == GAME_OVER || s->seen.len[i] >= GAME_MAX_PLIES_CAP, "game %d unfinished", i);
  CHECK(!memcmp(p.pits, f->pits, sizeof p.pits) && p.store[0] == f->store[0] &&
            p.store[1] == f->store[1] && p.hash == f->hash,
        "game %d: the moves lead to another final position", i);
  CHECK(p.status == f->status && p.winner == f->winner && p.final[0] == f->final[0] &&
            p.final[1] == f->final[1],
        "game %d: another result", i);
}

/* ---- Samples in the order they were added ---------------------------------------------
 * From the buffer's file (docs/FORMATS.md, "Replay buffer"): 312 header
 * bytes, then 130 bytes a sample, oldest first. */

typedef struct {
  uint8_t pits[32];
  int store[2], mover, ply;
  uint64_t hash;
  uint16_t policy[32];
  int z, margin;
} sample_rec;

static sample_rec *read_samples(replay *r, int *count) {
  char dir[128], path[200], err[512];
  scratch_dir(dir, sizeof dir, "selfplay");
  snprintf(path, sizeof path, "%s/replay.bin", dir);
  ck_assert_msg(replay_save(r, path, err, sizeof err) == 0, "%s", err);
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  unsigned char h[312], b[130];
  ck_assert_uint_eq(fread(h, 1, sizeof h, f), sizeof h);
  ck_assert_int_eq(memcmp(h, "SZRB", 4), 0);
  ck_assert_uint_eq(get_u32le(h + 8), 130);
  *count = (int)get_u32le(h + 12);
  sample_rec *s = calloc((size_t)*count + 1, sizeof *s);
  for (int i = 0; i < *count; i++) {
    ck_assert_uint_eq(fread(b, 1, sizeof b, f), sizeof b);
    memcpy(s[i].pits, b, 32);
    s[i].store[0] = b[32] | b[33] << 8;
    s[i].store[1] = b[34] | b[35] << 8;
    s[i].mover = b[40];
    s[i].ply = b[52] | b[53] << 8;
    s[i].hash = get_u64le(b + 56);
    for (int a = 0; a < 32; a++) s[i].policy[a] = (uint16_t)(b[64 + 2 * a] | b[65 + 2 * a] << 8);
    s[i].z = (int8_t)b[128];
    s[i].margin = (int8_t)b[129];
  }
  fclose(f);
  remove_tree(dir);
  return s;
}

/* ---- Tests ------------------------------------------------------------------------------ */

/* Every game replays, and its samples are its positions in order from the
 * first after its random plies (0..random_plies of them) to the end. */
static void samples_match_games(int random_plies, int min_games) {
  session s;
  selfplay_params p = params(11);
  p.random_plies = random_plies;
  int want = (int)(12 * test_scale()) + 4;
  if (want < min_games) want = min_games;
  run_session(&s, &p, 1, 5, want, NULL);
  replay_stats st;
  replay_get_stats(s.buffer, &st);
  /* One worker: every finished game was recorded and its samples added. */
  ck_assert_int_ge(s.seen.n, want);
  ck_assert_uint_eq(atomic_load(&s.counters.games), (uint64_t)s.seen.n);
  ck_assert_uint_eq(atomic_load(&s.counters.samples), st.added);
  int count, at = 0;
  sample_rec *rec = read_samples(s.buffer, &count);
  ck_assert_int_eq(count, st.count);
  game_pos *path = malloc(sizeof *path * GAME_MAX_PLIES_CAP);
  uint64_t plies = 0, wins[3] = {0}, ends = 0;
  int starts[65] = {0}, distinct = 0;
  for (int i = 0; i < s.seen.n; i++) {
    replay_game(&s, i, path);
    const game_pos *end = &s.seen.final[i];
    plies += end->ply;
    int r = game_outcome(end, GAME_SOUTH);
    wins[r > 0 ? 0 : r == 0 ? 1 : 2]++;
    /* The random plies: the first sample is the position after them. */
    int first = 0;
    while (first <= random_plies && first < s.seen.len[i] && path[first].hash != rec[at].hash)
      first++;
    CHECK(first <= random_plies, "game %d: no sample among its first %d positions", i,
          random_plies + 1);
    starts[first]++;
    /* cap_sims 0: one sample per move, in the order played. */
    for (int k = first; k < s.seen.len[i]; k++, at++) {
      ck_assert_int_lt(at, count);
      const sample_rec *x = &rec[at];
      const game_pos *q = &path[k];
      CHECK(x->hash == q->hash && !memcmp(x->pits, q->pits, 32) && x->store[0] == q->store[0] &&
                x->store[1] == q->store[1] && x->mover == q->mover && x->ply == q->ply,
            "game %d move %d: the sample is another position", i, k);
      game_moves legal = game_legal(&G, q);
      long sum = 0;
      for (int a = 0; a < 32; a++) {
        CHECK(x->policy[a] == 0 || (legal >> a & 1), "game %d move %d: policy on illegal %d", i, k,
              a);
        sum += x->policy[a];
      }
      /* Probabilities x 65535, each rounded. */
      CHECK(labs(sum - 65535) <= G.n_actions, "game %d move %d: policy sums to %ld / 65535", i, k,
            sum);
      int margin = game_margin(end, q->mover);
      margin = margin > 127 ? 127 : margin < -127 ? -127 : margin;
      CHECK(x->z == game_outcome(end, q->mover) && x->margin == margin,
            "game %d move %d: outcome %d margin %d, the game's %d %d", i, k, x->z, x->margin,
            game_outcome(end, q->mover), margin);
    }
  }
  ck_assert_int_eq(at, count);
  ck_assert_uint_eq(atomic_load(&s.counters.plies), plies);
  /* The search's CPU time was counted (the metrics' shares read it). */
  ck_assert_uint_gt(atomic_load(&s.counters.search_ns), 0);
  /* Oware's first player is South. */
  for (int r = 0; r < 3; r++) ck_assert_uint_eq(atomic_load(&s.counters.wins[r]), wins[r]);
  for (int e = 0; e < GAME_END_COUNT; e++) ends += atomic_load(&s.counters.ends[e]);
  ck_assert_uint_eq(ends, (uint64_t)s.seen.n);
  for (int k = 0; k <= random_plies; k++) distinct += starts[k] > 0;
  /* Random plies vary from game to game. */
  if (random_plies) ck_assert_int_ge(distinct, 2);
  free(path);
  free(rec);
  session_free(&s);
}

START_TEST(samples_are_the_games_positions) { samples_match_games(0, 0); }
END_TEST

START_TEST(random_plies_start_the_games) { samples_match_games(6, 0); }
END_TEST

/* With one random ply allowed, games start both from the start position
 * and after one move: neither count is ever lost. 16 games at every test
 * scale: all alike by chance once in 30,000 seeds. */
START_TEST(one_random_ply_is_sometimes_played) { samples_match_games(1, 16); }
END_TEST

/* The first n games of a and b are the same move for move. */
static int same_games(const session *a, const session *b, int n) {
  for (int i = 0; i < n; i++)
    if (a->seen.len[i] != b->seen.len[i] ||
        memcmp(a->seen.moves[i], b->seen.moves[i], (size_t)a->seen.len[i]) != 0)
      return 0;
  return 1;
}

START_TEST(one_worker_repeats_its_games_for_a_seed) {
  session a, b, c;
  selfplay_params p = params(21);
  run_session(&a, &p, 1, 5, 6, NULL);
  run_session(&b, &p, 1, 5, 6, NULL);
  ck_assert_msg(same_games(&a, &b, 6), "the same seed played other games");
  p.seed = 22;
  run_session(&c, &p, 1, 5, 6, NULL);
  ck_assert_msg(!same_games(&a, &c, 6), "another seed played the same games");
  session_free(&a);
  session_free(&b);
  session_free(&c);
}
END_TEST

/* A game's moves follow its number alone (its own random stream), not the
 * worker that plays it or what that worker played before: one worker
 * plays games 0, 1, 2, ... in turn, and of two workers the first plays 0,
 * 2, 4, ... and the second 1, 3, 5, ... With one game per worker every
 * evaluation is of one position, so both runs evaluate alike. */
START_TEST(a_games_moves_follow_its_number) {
  session a, b;
  selfplay_params p = params(41);
  p.games = 1;
  run_session(&a, &p, 1, 6, 8, NULL);
  run_session(&b, &p, 2, 6, 8, NULL);
  int compared = 0;
  for (int i = 0; i < a.seen.n; i++)
    for (int j = 0; j < b.seen.n; j++) {
      if (a.seen.number[i] != b.seen.number[j]) continue;
      ck_assert_msg(a.seen.len[i] == b.seen.len[j] &&
                        !memcmp(a.seen.moves[i], b.seen.moves[j], (size_t)a.seen.len[i]),
                    "game %d: other moves when another worker plays it", (int)a.seen.number[i]);
      compared++;
    }
  ck_assert_int_ge(compared, 6);
  session_free(&a);
  session_free(&b);
}
END_TEST

/* ---- The kept games' file ------------------------------------------------------------ */

/* The records in path, their move counts into n_moves; -1: no file. */
static int read_records(const char *path, int *n_moves, int cap) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  static record rec;
  char err[256];
  int line = 0, n = 0, got;
  while ((got = record_read(f, &rec, &line, err, sizeof err)) == 1)
    if (n < cap) n_moves[n++] = rec.n_moves;
  fclose(f);
  ck_assert_msg(got == 0, "%s", err);
  return n;
}

/* A flush writes the games kept since the one before, and only those;
 * with none kept it writes nothing. */
START_TEST(a_flush_writes_each_kept_game_once) {
  char dir[256], path[300], err[256];
  scratch_dir(dir, sizeof dir, "records");
  records *r = records_create(err, sizeof err);
  ck_assert_msg(r != NULL, "%s", err);
  game_pos p;
  game_start(&G, &p);
  uint8_t moves[8];
  for (int k = 0; k < 8; k++) {
    moves[k] = (uint8_t)game_nth_action(game_legal(&G, &p), 0);
    game_play(&G, &p, moves[k]);
  }
  int n_moves[8], want[3][3] = {{3, 5, 0}, {8, 0, 0}, {0, 0, 0}};
  for (int f = 0; f < 3; f++) {
    for (int k = 0; want[f][k]; k++) {
      game_pos end;
      game_start(&G, &end);
      for (int i = 0; i < want[f][k]; i++) game_play(&G, &end, moves[i]);
      records_add(r, &G, moves, want[f][k], &end);
    }
    snprintf(path, sizeof path, "%s/iter-%d.txt", dir, f);
    ck_assert_msg(records_flush(r, path, err, sizeof err) == 0, "%s", err);
    int n = read_records(path, n_moves, 8), kept = 0;
    while (want[f][kept]) kept++;
    ck_assert_int_eq(n, kept ? kept : -1);
    for (int k = 0; k < kept; k++) ck_assert_int_eq(n_moves[k], want[f][k]);
  }
  records_free(r);
  remove_tree(dir);
}
END_TEST

/* Publishes the session's net with one weight changed, now and then. */
static void publish_variant(session *s, int k) {
  if (k % 5) return;
  nn_params_mut(s->net)[k % 100] += 0.01f;
  netslot_publish(s->slot, s->net);
}

START_TEST(two_workers_share_counters_and_the_slot) {
  session s;
  selfplay_params p = params(31);
  p.games = 3;
  p.cap_sims = 4; /* fast moves too: fewer samples than moves */
  p.full_frac = 0.5f;
  int want = (int)(16 * test_scale()) + 4;
  uint64_t gen0 = 1;
  run_session(&s, &p, 2, 7, want, publish_variant);
  ck_assert_uint_gt(netslot_generation(s.slot), gen0);
  ck_assert_int_ge(s.seen.n, want);
  ck_assert_uint_eq(atomic_load(&s.counters.games), (uint64_t)s.seen.n);
  uint64_t moves = 0, plies = 0;
  for (int i = 0; i < s.seen.n; i++) {
    replay_game(&s, i, NULL);
    moves += (uint64_t)s.seen.len[i];
    plies += s.seen.final[i].ply;
  }
  replay_stats st;
  replay_get_stats(s.buffer, &st);
  ck_assert_uint_eq(atomic_load(&s.counters.samples), st.added);
  ck_assert_uint_eq(atomic_load(&s.counters.plies), plies);
  /* The search's CPU time was counted (the metrics' shares read it). */
  ck_assert_uint_gt(atomic_load(&s.counters.search_ns), 0);
  ck_assert_uint_lt(st.added, moves);
  ck_assert_uint_gt(st.added, 0);
  uint64_t results = 0;
  for (int r = 0; r < 3; r++) results += atomic_load(&s.counters.wins[r]);
  ck_assert_uint_eq(results, (uint64_t)s.seen.n);
  ck_assert_uint_ge(atomic_load(&s.counters.evals), atomic_load(&s.counters.eval_calls));
  session_free(&s);
}
END_TEST

/* ---- The best-network slot ------------------------------------------------------------------- */

static int same_params(const nn_net *a, const nn_net *b) {
  return !memcmp(nn_params(a), nn_params(b), sizeof(float) * nn_param_count(a));
}

START_TEST(slot_hands_out_each_generation_once) {
  char err[256];
  nn_net *a = small_net(1), *b = small_net(2), *dst = small_net(3);
  netslot *slot = netslot_create(a, err, sizeof err);
  ck_assert_msg(slot != NULL, "%s", err);
  ck_assert_uint_eq(netslot_generation(slot), 1);
  uint64_t gen = 0;
  ck_assert_int_eq(netslot_fetch(slot, dst, &gen), 1);
  ck_assert_uint_eq(gen, 1);
  ck_assert(same_params(dst, a));
  ck_assert_int_eq(netslot_fetch(slot, dst, &gen), 0);
  /* The slot holds a copy: changing a does not reach it. */
  nn_params_mut(a)[0] += 1.0f;
  netslot_publish(slot, b);
  ck_assert_uint_eq(netslot_generation(slot), 2);
  ck_assert_int_eq(netslot_fetch(slot, dst, &gen), 1);
  ck_assert_uint_eq(gen, 2);
  ck_assert(same_params(dst, b));
  nn_params_mut(b)[0] += 1.0f;
  ck_assert_int_eq(netslot_fetch(slot, dst, &gen), 0);
  ck_assert(!same_params(dst, b));
  netslot_free(slot);
  nn_free(a), nn_free(b), nn_free(dst);
}
END_TEST

typedef struct {
  netslot *slot;
  const nn_net *nets[2];
  _Atomic int fetched, done;
  int published;
} publisher;

/* Publishes the two nets in turn until the reader has fetched 200 copies
 * (or for 20 s: a count of publications could run out while a loaded
 * machine keeps the reader waiting). */
static void *publish_loop(void *arg) {
  publisher *p = arg;
  double t0 = clock_wall();
  while (atomic_load(&p->fetched) < 200 && clock_wall() - t0 < 20)
    netslot_publish(p->slot, p->nets[p->published++ % 2]);
  atomic_store(&p->done, 1);
  return NULL;
}

/* While another thread publishes two nets in turn, every fetch gets one of
 * them whole. */
START_TEST(slot_copies_are_whole) {
  char err[256];
  nn_net *a = small_net(1), *b = small_net(2), *dst = small_net(3);
  netslot *slot = netslot_create(a, err, sizeof err);
  ck_assert_msg(slot != NULL, "%s", err);
  static publisher pub;
  memset(&pub, 0, sizeof pub);
  pub.slot = slot;
  pub.nets[0] = a;
  pub.nets[1] = b;
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, publish_loop, &pub), 0);
  uint64_t gen = 0;
  while (!atomic_load(&pub.done))
    if (netslot_fetch(slot, dst, &gen)) {
      CHECK(same_params(dst, a) || same_params(dst, b), "fetch %d: a torn copy",
            atomic_load(&pub.fetched));
      atomic_fetch_add(&pub.fetched, 1);
    }
  pthread_join(th, NULL);
  ck_assert_int_ge(atomic_load(&pub.fetched), 2);
  netslot_fetch(slot, dst, &gen);
  ck_assert_uint_eq(gen, (uint64_t)pub.published + 1);
  ck_assert(same_params(dst, pub.nets[(pub.published - 1) % 2]));
  netslot_free(slot);
  nn_free(a), nn_free(b), nn_free(dst);
}
END_TEST

/* ---- Phases ----------------------------------------------------------------------------
 * Two sessions of two phased workers, two phases each: every phase adds at
 * least the samples asked for, whole games only, and the sessions leave the
 * same buffer and hand the same games to the record sink in the same order. */
static void phased_session(session *s, const char *buffer_path) {
  char err[512];
  selfplay_params p = params(41);
  p.phased = 1;
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->seen.lock, NULL);
  s->net = small_net(5);
  s->slot = netslot_create(s->net, err, sizeof err);
  s->buffer = replay_create(&G, 1 << 16, err, sizeof err);
  selfplay *sp = start(s, &p, 2, err, sizeof err);
  ck_assert_msg(sp != NULL, "%s", err);
  for (int phase = 0; phase < 2; phase++) {
    replay_stats a, b;
    replay_get_stats(s->buffer, &a);
    uint64_t games = atomic_load(&s->counters.games);
    ck_assert_int_eq(selfplay_phase(sp, 150, NULL), 0);
    replay_get_stats(s->buffer, &b);
    ck_assert_uint_ge(b.added - a.added, 150);
    ck_assert_uint_eq(b.added, atomic_load(&s->counters.samples));
    ck_assert_int_eq(s->seen.n, (int)atomic_load(&s->counters.games));
    ck_assert_uint_gt(atomic_load(&s->counters.games), games);
  }
  /* The shares split what is asked: one sample is the first worker's
   * alone (a worker's game numbers are its id modulo the workers). */
  int seen = s->seen.n;
  ck_assert_int_eq(selfplay_phase(sp, 1, NULL), 0);
  ck_assert_int_gt(s->seen.n, seen);
  for (int i = seen; i < s->seen.n; i++)
    ck_assert_msg(s->seen.number[i] % 2 == 0, "game %d of a one-sample phase",
                  (int)s->seen.number[i]);
  ck_assert_msg(selfplay_stop(sp, err, sizeof err) == 0, "%s", err);
  ck_assert_msg(replay_save(s->buffer, buffer_path, err, sizeof err) == 0, "%s", err);
}

START_TEST(phases_repeat_and_fill_their_share) {
  char dir[256], pa[300], pb[300];
  scratch_dir(dir, sizeof dir, "phases");
  snprintf(pa, sizeof pa, "%s/a.bin", dir);
  snprintf(pb, sizeof pb, "%s/b.bin", dir);
  session a, b;
  phased_session(&a, pa);
  phased_session(&b, pb);
  ck_assert_int_eq(a.seen.n, b.seen.n);
  for (int i = 0; i < a.seen.n; i++) {
    ck_assert_int_eq(a.seen.len[i], b.seen.len[i]);
    ck_assert(memcmp(a.seen.moves[i], b.seen.moves[i], (size_t)a.seen.len[i]) == 0);
  }
  FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
  int ca, cb;
  do {
    ca = fgetc(fa), cb = fgetc(fb);
    ck_assert_int_eq(ca, cb);
  } while (ca != EOF);
  fclose(fa), fclose(fb);
  session_free(&a);
  session_free(&b);
  remove_tree(dir);
}
END_TEST

/* A stop asked for during a phase ends it with nothing added. */
START_TEST(a_stop_ends_a_phase_with_nothing_added) {
  char err[512];
  session s;
  memset(&s, 0, sizeof s);
  pthread_mutex_init(&s.seen.lock, NULL);
  s.net = small_net(5);
  s.slot = netslot_create(s.net, err, sizeof err);
  s.buffer = replay_create(&G, 1 << 16, err, sizeof err);
  selfplay_params p = params(41);
  p.phased = 1;
  selfplay *sp = start(&s, &p, 2, err, sizeof err);
  ck_assert_msg(sp != NULL, "%s", err);
  volatile sig_atomic_t stop = 1;
  ck_assert_int_eq(selfplay_phase(sp, 1000000000, &stop), 1);
  ck_assert_msg(selfplay_stop(sp, err, sizeof err) == 0, "%s", err);
  replay_stats rs;
  replay_get_stats(s.buffer, &rs);
  ck_assert_uint_eq(rs.added, 0);
  ck_assert_uint_eq(atomic_load(&s.counters.games), 0);
  session_free(&s);
}
END_TEST

START_TEST(start_refuses_no_threads_or_games) {
  char err[256];
  nn_net *n = small_net(1);
  netslot *slot = netslot_create(n, err, sizeof err);
  replay *r = replay_create(&G, 16, err, sizeof err);
  selfplay_counters c;
  memset(&c, 0, sizeof c);
  selfplay_params p = params(1);
  selfplay_store st = {r, NULL};
  ck_assert_ptr_null(selfplay_start(&p, 1, slot, &c, err, sizeof err));
  ck_assert_str_eq(err, "self-play needs a sink for its finished games");
  p.sink = selfplay_store_game;
  p.sink_ctx = &st;
  ck_assert_ptr_null(selfplay_start(&p, 0, slot, &c, err, sizeof err));
  ck_assert_str_eq(err, "self-play needs at least one thread and one game");
  p.games = 0;
  ck_assert_ptr_null(selfplay_start(&p, 1, slot, &c, err, sizeof err));
  ck_assert_str_eq(err, "self-play needs at least one thread and one game");
  replay_free(r);
  netslot_free(slot);
  nn_free(n);
}
END_TEST

/* A sink that refuses a game stops its worker, and the stop says why. */
static int refusing_sink(void *ctx, const selfplay_game *gm) {
  (void)gm;
  atomic_fetch_add((atomic_int *)ctx, 1);
  return -1;
}

START_TEST(a_refused_game_stops_self_play_with_a_message) {
  char err[256];
  nn_net *n = small_net(1);
  netslot *slot = netslot_create(n, err, sizeof err);
  selfplay_counters c;
  memset(&c, 0, sizeof c);
  atomic_int refused = 0;
  selfplay_params p = params(1);
  p.sink = refusing_sink;
  p.sink_ctx = &refused;
  selfplay *sp = selfplay_start(&p, 1, slot, &c, err, sizeof err);
  ck_assert_msg(sp != NULL, "%s", err);
  for (int i = 0; i < 12000 && !selfplay_failed(sp); i++) sleep_ms(10);
  ck_assert(selfplay_failed(sp));
  strcpy(err, "unchanged");
  ck_assert_int_eq(selfplay_stop(sp, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "a finished game could not be handed on"), "%s", err);
  ck_assert_int_eq(atomic_load(&refused), 1); /* the worker stopped at the first */
  ck_assert_uint_eq(atomic_load(&c.games), 0);
  netslot_free(slot);
  nn_free(n);
}
END_TEST

/* metrics.jsonl's "selfplay" member: the games since the last line, their
 * mean length, the first mover's results and how they ended, as shares;
 * the next line counts from there. */
static json_doc *selfplay_line(const selfplay_counters *c, uint64_t games, selfplay_tally *seen) {
  static char out[4096];
  char err[256];
  json_writer w;
  json_writer_init(&w, out, sizeof out);
  json_begin_object(&w, NULL);
  selfplay_json(c, games, seen, &w);
  json_end_object(&w);
  ck_assert_int_eq(json_writer_done(&w), 0);
  json_doc *d = json_parse(out, err, sizeof err);
  ck_assert_msg(d != NULL, "%s: %s", err, out);
  return d;
}

static double member(const json_doc *d, const char *obj, const char *key) {
  int sp = json_get(d, 0, "selfplay"), o = obj ? json_get(d, sp, obj) : sp;
  double v = -1;
  ck_assert_msg(o >= 0 && json_get_number(d, o, key, &v) == 0, "no %s.%s", obj ? obj : "", key);
  return v;
}

START_TEST(selfplay_line_counts_since_the_last) {
  selfplay_counters c;
  memset(&c, 0, sizeof c);
  selfplay_tally seen;
  memset(&seen, 0, sizeof seen);
  atomic_store(&c.games, 8);
  atomic_store(&c.plies, 500);
  atomic_store(&c.wins[0], 4), atomic_store(&c.wins[1], 1), atomic_store(&c.wins[2], 3);
  atomic_store(&c.ends[GAME_END_TARGET], 6), atomic_store(&c.ends[GAME_END_REPETITION], 2);
  json_doc *d = selfplay_line(&c, 8, &seen);
  ck_assert_double_eq(member(d, NULL, "games"), 8);
  ck_assert_double_eq_tol(member(d, NULL, "plies_mean"), 62.5, 1e-9);
  ck_assert_double_eq_tol(member(d, "first_mover", "win"), 0.5, 1e-9);
  ck_assert_double_eq_tol(member(d, "first_mover", "draw"), 0.125, 1e-9);
  ck_assert_double_eq_tol(member(d, "first_mover", "loss"), 0.375, 1e-9);
  ck_assert_double_eq_tol(member(d, "ends", game_end_name(GAME_END_TARGET)), 0.75, 1e-9);
  ck_assert_double_eq_tol(member(d, "ends", game_end_name(GAME_END_REPETITION)), 0.25, 1e-9);
  json_free(d);
  /* Two more games, both famines the second mover won. */
  atomic_store(&c.games, 10);
  atomic_store(&c.plies, 600);
  atomic_store(&c.wins[2], 5);
  atomic_store(&c.ends[GAME_END_FAMINE], 2);
  d = selfplay_line(&c, 10, &seen);
  ck_assert_double_eq(member(d, NULL, "games"), 2);
  ck_assert_double_eq_tol(member(d, NULL, "plies_mean"), 50, 1e-9);
  ck_assert_double_eq_tol(member(d, "first_mover", "loss"), 1, 1e-9);
  ck_assert_double_eq_tol(member(d, "first_mover", "win"), 0, 1e-9);
  ck_assert_double_eq_tol(member(d, "ends", game_end_name(GAME_END_FAMINE)), 1, 1e-9);
  int ends = json_get(d, json_get(d, 0, "selfplay"), "ends"), n = 0;
  for (int k = json_first(d, ends); k >= 0; k = json_next(d, k)) n++;
  ck_assert_int_eq(n, 1); /* only the reasons of these games */
  json_free(d);
  /* And one more, a first mover's win. */
  atomic_store(&c.games, 11);
  atomic_store(&c.plies, 640);
  atomic_store(&c.wins[0], 5);
  atomic_store(&c.ends[GAME_END_TARGET], 7);
  d = selfplay_line(&c, 11, &seen);
  ck_assert_double_eq(member(d, NULL, "games"), 1);
  ck_assert_double_eq_tol(member(d, NULL, "plies_mean"), 40, 1e-9);
  ck_assert_double_eq_tol(member(d, "first_mover", "win"), 1, 1e-9);
  ck_assert_double_eq_tol(member(d, "ends", game_end_name(GAME_END_TARGET)), 1, 1e-9);
  json_free(d);
}
END_TEST

static Suite *selfplay_suite(void) {
  Suite *s = suite_create("selfplay");
  TCase *w = add_tests(
      s, "workers", 300,
      (const TTest *[]){
          samples_are_the_games_positions, random_plies_start_the_games,
          one_random_ply_is_sometimes_played, one_worker_repeats_its_games_for_a_seed,
          a_games_moves_follow_its_number, two_workers_share_counters_and_the_slot,
          start_refuses_no_threads_or_games, a_refused_game_stops_self_play_with_a_message,
          phases_repeat_and_fill_their_share, a_stop_ends_a_phase_with_nothing_added, NULL});
  tcase_add_checked_fixture(w, setup, NULL);
  TCase *n = add_tests(s, "slot", 120,
                       (const TTest *[]){slot_hands_out_each_generation_once, slot_copies_are_whole,
                                         a_flush_writes_each_kept_game_once, NULL});
  tcase_add_checked_fixture(n, setup, NULL);
  add_tests(s, "metrics", 30, (const TTest *[]){selfplay_line_counts_since_the_last, NULL});
  return s;
}

TEST_MAIN(selfplay_suite)

#include "trainer/replay.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct replay {
  pthread_mutex_t lock;
  replay_sample *ring;       /* capacity entries */
  int capacity, count, head; /* head: where the next sample goes */
  uint64_t added;
  game variant[GAME_MAX_VARIANTS]; /* the games the samples are positions of */
  int n_variants;
  char game[32];
  char rules[512]; /* game_variants_string */
};

replay *replay_create(const game *g, int capacity, char *err, size_t errlen) {
  if (capacity < 1) {
    errf(err, errlen, "replay buffer capacity %d must be positive", capacity);
    return NULL;
  }
  replay *r = calloc(1, sizeof *r);
  if (!r || !(r->ring = calloc((size_t)capacity, sizeof *r->ring))) {
    free(r);
    errf(err, errlen, "replay buffer: out of memory for %d samples", capacity);
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  r->capacity = capacity;
  r->variant[0] = *g;
  r->n_variants = 1;
  snprintf(r->game, sizeof r->game, "%s", g->rules->name);
  if (game_options_string(g, r->rules, sizeof r->rules) != 0) r->rules[0] = 0;
  return r;
}

int replay_set_variants(replay *r, const game *v, int n, char *err, size_t errlen) {
  char rules[sizeof r->rules];
  if (n < 1 || n > GAME_MAX_VARIANTS || v[0].rules != r->variant[0].rules ||
      game_variants_string(v, n, rules, sizeof rules) != 0) {
    errf(err, errlen, "a replay buffer holds 1 to %d variants of its game, in at most %zu bytes",
         GAME_MAX_VARIANTS, sizeof rules - 1);
    return -1;
  }
  pthread_mutex_lock(&r->lock);
  memcpy(r->variant, v, sizeof *v * (size_t)n);
  r->n_variants = n;
  memcpy(r->rules, rules, sizeof rules);
  pthread_mutex_unlock(&r->lock);
  return 0;
}

void replay_free(replay *r) {
  if (!r) return;
  pthread_mutex_destroy(&r->lock);
  free(r->ring);
  free(r);
}

void replay_set_policy(replay_sample *s, const float *pi, int n_actions) {
  double sum = 0;
  for (int a = 0; a < n_actions; a++) sum += pi[a] > 0 ? pi[a] : 0;
  memset(s->policy, 0, sizeof s->policy);
  for (int a = 0; a < n_actions && sum > 0; a++)
    s->policy[a] = (uint16_t)((pi[a] > 0 ? pi[a] : 0) / sum * 65535.0 + 0.5);
}

void replay_get_policy(const replay_sample *s, float *pi, int n_actions) {
  double sum = 0;
  for (int a = 0; a < n_actions; a++) sum += s->policy[a];
  for (int a = 0; a < n_actions; a++) pi[a] = sum > 0 ? (float)(s->policy[a] / sum) : 0.0f;
}

void replay_add(replay *r, const replay_sample *s, int n) {
  pthread_mutex_lock(&r->lock);
  for (int i = 0; i < n; i++) {
    r->ring[r->head] = s[i];
    r->head = (r->head + 1) % r->capacity;
    if (r->count < r->capacity) r->count++;
  }
  r->added += (uint64_t)n;
  pthread_mutex_unlock(&r->lock);
}

int replay_sample_batch(replay *r, rng_t *rng, replay_sample *out, int n) {
  pthread_mutex_lock(&r->lock);
  int count = r->count;
  if (count == 0) {
    pthread_mutex_unlock(&r->lock);
    return -1;
  }
  for (int i = 0; i < n; i++) out[i] = r->ring[rng_below(rng, (uint32_t)count)];
  pthread_mutex_unlock(&r->lock);
  return 0;
}

void replay_get_stats(replay *r, replay_stats *out) {
  pthread_mutex_lock(&r->lock);
  out->capacity = r->capacity;
  out->count = r->count;
  out->added = r->added;
  out->bytes = (size_t)r->capacity * sizeof(replay_sample);
  pthread_mutex_unlock(&r->lock);
}

/* ---- Files ------------------------------------------------------------------
 * Header: magic "SZRB", version, sample record size, count, added, game
 * name (32 bytes) and rule options; then count records, oldest first; then
 * an FNV-1a checksum of everything before it. Version 1 is a buffer of one
 * variant (256 bytes of rule options); version 2 one of a variant set (512
 * bytes of game_variants_string, and each record ends with its variant). */

#define MAGIC            "SZRB"
#define VERSION_ONE      1u
#define VERSION_SET      2u
#define HEADER_BYTES(v)  (4 + 4 + 4 + 4 + 8 + 32 + RULES_BYTES(v))
#define RULES_BYTES(v)   ((v) == VERSION_ONE ? 256 : 512)
#define RECORD_BYTES(v)  (32 + 4 + 4 + 12 + 4 + 8 + 2 * GAME_MAX_ACTIONS + 2 + ((v) != VERSION_ONE))
#define MAX_RECORD_BYTES RECORD_BYTES(VERSION_SET)
#define MAX_HEADER_BYTES HEADER_BYTES(VERSION_SET)

static void put_u16le(unsigned char *p, uint16_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static uint16_t get_u16le(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

static void encode_record(const replay_sample *s, unsigned char *b, unsigned version) {
  const game_pos *p = &s->pos;
  memcpy(b, p->pits, 32);
  b += 32;
  put_u16le(b, p->store[0]);
  put_u16le(b + 2, p->store[1]);
  put_u32le(b + 4, p->owner);
  b += 8;
  const uint8_t small[12] = {p->mover,    p->status,   p->winner, p->end_reason,
                             p->final[0], p->final[1], p->half,   p->phase,
                             p->round,    p->aux[0],   p->aux[1], p->aux[2]};
  memcpy(b, small, 12);
  b += 12;
  put_u16le(b, p->ply);
  put_u16le(b + 2, p->nocap);
  put_u64le(b + 4, p->hash);
  b += 12;
  for (int a = 0; a < GAME_MAX_ACTIONS; a++) put_u16le(b + 2 * a, s->policy[a]);
  b += 2 * GAME_MAX_ACTIONS;
  b[0] = (unsigned char)s->z;
  b[1] = (unsigned char)s->margin;
  if (version != VERSION_ONE) b[2] = s->variant;
}

static void decode_record(const unsigned char *b, replay_sample *s, unsigned version) {
  memset(s, 0, sizeof *s);
  game_pos *p = &s->pos;
  memcpy(p->pits, b, 32);
  b += 32;
  p->store[0] = get_u16le(b);
  p->store[1] = get_u16le(b + 2);
  p->owner = get_u32le(b + 4);
  b += 8;
  p->mover = b[0], p->status = b[1], p->winner = b[2], p->end_reason = b[3];
  p->final[0] = b[4], p->final[1] = b[5], p->half = b[6], p->phase = b[7];
  p->round = b[8], p->aux[0] = b[9], p->aux[1] = b[10], p->aux[2] = b[11];
  b += 12;
  p->ply = get_u16le(b);
  p->nocap = get_u16le(b + 2);
  p->hash = get_u64le(b + 4);
  b += 12;
  for (int a = 0; a < GAME_MAX_ACTIONS; a++) s->policy[a] = get_u16le(b + 2 * a);
  b += 2 * GAME_MAX_ACTIONS;
  s->z = (int8_t)b[0];
  s->margin = (int8_t)b[1];
  if (version != VERSION_ONE) s->variant = b[2];
}

/* ---- Validation ----------------------------------------------------------------
 * A checksum proves the bytes are those written, not that they mean
 * anything: a file written by another program, or by a bug, may hold
 * positions no game reaches. Every sample is checked against the game
 * before the learner may see it: an ongoing position whose seeds add up,
 * which the game's own setboard rebuilds from its board (same state, same
 * hash), a target policy on legal actions only and not all zero, an
 * outcome of -1, 0 or 1 and a margin within the seeds in play. */

/* 0 if s is a sample of g; else -1 with what is wrong in why. */
static int check_sample(const game *g, const replay_sample *s, char *why, size_t len) {
  const game_pos *p = &s->pos;
  if (p->status != GAME_ONGOING) {
    errf(why, len, "the position is not of a game in progress (status %u)", p->status);
    return -1;
  }
  if (p->mover > 1) {
    errf(why, len, "side to move %u (0 or 1)", p->mover);
    return -1;
  }
  int seeds = p->store[0] + p->store[1];
  for (int i = 0; i < GAME_MAX_PITS; i++) {
    if (i >= g->n_pits && p->pits[i]) {
      errf(why, len, "pit %d holds %u seeds but the board has %d pits", i, p->pits[i], g->n_pits);
      return -1;
    }
    seeds += p->pits[i];
  }
  if (seeds != g->total_seeds) {
    errf(why, len, "pits and stores hold %d seeds, the game has %d", seeds, g->total_seeds);
    return -1;
  }
  if (p->nocap > p->ply) {
    errf(why, len, "%u plies since the last capture, but only %u plies played", p->nocap, p->ply);
    return -1;
  }
  /* The game rebuilds the position from its board: what the tokens carry
   * must come back, the hash included. */
  char tokens[512], line[520], e[256], *argv[72];
  int argc = 0;
  if (g->rules->board_tokens(g, p, tokens, sizeof tokens) != 0) {
    errf(why, len, "the board cannot be written out");
    return -1;
  }
  snprintf(line, sizeof line, "%u %s", p->mover, tokens);
  for (char *save = NULL, *t = strtok_r(line, " ", &save); t && argc < 72;
       t = strtok_r(NULL, " ", &save))
    argv[argc++] = t;
  game_pos q;
  if (g->rules->setboard(g, &q, argc, argv, e, sizeof e) != 0) {
    errf(why, len, "not a position of %s: %s", g->rules->name, e);
    return -1;
  }
  const char *field = memcmp(q.pits, p->pits, sizeof q.pits)                   ? "pits"
                      : q.store[0] != p->store[0] || q.store[1] != p->store[1] ? "stores"
                      : q.owner != p->owner                                    ? "pit owners"
                      : q.mover != p->mover                                    ? "side to move"
                      : q.round != p->round                                    ? "round"
                      : q.phase != p->phase                                    ? "phase"
                      : q.aux[0] != p->aux[0]                                  ? "game state"
                      : q.status != GAME_ONGOING                               ? "status"
                      : q.hash != p->hash                                      ? "hash"
                                                                               : NULL;
  if (field) {
    int plural = !strcmp(field, "pits") || !strcmp(field, "stores") || !strcmp(field, "pit owners");
    errf(why, len, "not a position of %s (its %s %s not match its board)", g->rules->name, field,
         plural ? "do" : "does");
    return -1;
  }
  game_moves legal = game_legal(g, p);
  if (!legal) {
    errf(why, len, "no legal action in the position");
    return -1;
  }
  uint32_t sum = 0;
  for (int a = 0; a < GAME_MAX_ACTIONS; a++) {
    if (!s->policy[a]) continue;
    if (a >= g->n_actions || !(legal >> a & 1)) {
      errf(why, len, "target policy on action %d, which is not legal here", a);
      return -1;
    }
    sum += s->policy[a];
  }
  if (sum == 0) {
    errf(why, len, "all-zero target policy");
    return -1;
  }
  if (s->z < -1 || s->z > 1) {
    errf(why, len, "outcome %d (-1, 0 or 1)", s->z);
    return -1;
  }
  if (s->margin > g->total_seeds || s->margin < -g->total_seeds) {
    errf(why, len, "seed margin %d, beyond the %d seeds in play", s->margin, g->total_seeds);
    return -1;
  }
  return 0;
}

int replay_save(replay *r, const char *path, char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1;
  pthread_mutex_lock(&r->lock);
  unsigned v = r->n_variants > 1 ? VERSION_SET : VERSION_ONE;
  unsigned char h[MAX_HEADER_BYTES] = {0}, rec[MAX_RECORD_BYTES];
  const size_t hn = HEADER_BYTES(v), rn = RECORD_BYTES(v);
  memcpy(h, MAGIC, 4);
  put_u32le(h + 4, v);
  put_u32le(h + 8, (uint32_t)rn);
  put_u32le(h + 12, (uint32_t)r->count);
  put_u64le(h + 16, r->added);
  memcpy(h + 24, r->game, strlen(r->game));
  memcpy(h + 56, r->rules, strlen(r->rules));
  uint64_t sum = checksum64(h, hn, CHECKSUM64_INIT);
  int ok = fwrite(h, 1, hn, a.f) == hn;
  int start = (r->head - r->count + r->capacity) % r->capacity;
  for (int i = 0; ok && i < r->count; i++) {
    encode_record(&r->ring[(start + i) % r->capacity], rec, v);
    sum = checksum64(rec, rn, sum);
    ok = fwrite(rec, 1, rn, a.f) == rn;
  }
  pthread_mutex_unlock(&r->lock);
  unsigned char tail[8];
  put_u64le(tail, sum);
  if (!ok || fwrite(tail, 1, 8, a.f) != 8) return afile_fail(&a, err, errlen);
  return afile_commit(&a, err, errlen);
}

int replay_load(replay *r, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  unsigned char h[MAX_HEADER_BYTES], rec[MAX_RECORD_BYTES], tail[8];
  replay_sample *tmp = NULL;
  int rc = -1;
  unsigned v = 0;
  if (fread(h, 1, HEADER_BYTES(VERSION_ONE), f) != HEADER_BYTES(VERSION_ONE)) {
    errf(err, errlen, "%s: truncated header", path);
    goto done;
  }
  if (memcmp(h, MAGIC, 4) != 0) {
    errf(err, errlen, "%s: not a SowZero replay buffer (bad magic)", path);
    goto done;
  }
  v = get_u32le(h + 4);
  if (v != VERSION_ONE && v != VERSION_SET) {
    errf(err, errlen, "%s: replay format version %u is not supported (this build reads %u and %u)",
         path, v, VERSION_ONE, VERSION_SET);
    goto done;
  }
  const size_t hn = HEADER_BYTES(v), rn = RECORD_BYTES(v), rb = RULES_BYTES(v);
  if (hn > HEADER_BYTES(VERSION_ONE) &&
      fread(h + HEADER_BYTES(VERSION_ONE), 1, hn - HEADER_BYTES(VERSION_ONE), f) !=
          hn - HEADER_BYTES(VERSION_ONE)) {
    errf(err, errlen, "%s: truncated header", path);
    goto done;
  }
  if (get_u32le(h + 8) != rn) {
    errf(err, errlen, "%s: record size %u bytes, expected %zu (replay format version %u)", path,
         get_u32le(h + 8), rn, v);
    goto done;
  }
  char game[33] = {0}, rules[513] = {0};
  memcpy(game, h + 24, 32);
  memcpy(rules, h + 56, rb);
  /* NUL-padded printable names, checked before a message quotes them. */
  static const unsigned char zeros[512];
  size_t gl = strnlen(game, 32), rl = strnlen(rules, rb);
  if (first_unprintable(game, gl) >= 0 || first_unprintable(rules, rl) >= 0 ||
      memcmp(h + 24 + gl, zeros, 32 - gl) != 0 || memcmp(h + 56 + rl, zeros, rb - rl) != 0) {
    errf(err, errlen, "%s: corrupt header (game name or rule options)", path);
    goto done;
  }
  if (strcmp(game, r->game) != 0 || strcmp(rules, r->rules) != 0) {
    errf(err, errlen, "%s: samples of game '%s' (%s), but this run plays '%s' (%s)", path, game,
         rules, r->game, r->rules);
    goto done;
  }
  uint32_t count = get_u32le(h + 12);
  uint64_t added = get_u64le(h + 16);
  if (count > 100000000u) {
    errf(err, errlen, "%s: corrupted header (count %u)", path, count);
    goto done;
  }
  uint64_t sum = checksum64(h, hn, CHECKSUM64_INIT);
  /* Keep the newest `capacity` samples of the file. */
  uint32_t skip = count > (uint32_t)r->capacity ? count - (uint32_t)r->capacity : 0;
  tmp = malloc(sizeof *tmp * (count - skip + 1));
  if (!tmp) {
    errf(err, errlen, "%s: out of memory", path);
    goto done;
  }
  /* Every sample is checked, the ones beyond the capacity too; the first
   * impossible one is reported once the checksum says the file is whole
   * (a damaged file is reported as damaged). */
  char why[256] = "";
  uint32_t bad = count;
  for (uint32_t i = 0; i < count; i++) {
    if (fread(rec, 1, rn, f) != rn) {
      errf(err, errlen, "%s: truncated at sample %u of %u", path, i, count);
      goto done;
    }
    sum = checksum64(rec, rn, sum);
    replay_sample one, *s = i >= skip ? &tmp[i - skip] : &one;
    decode_record(rec, s, v);
    if (bad < count) continue;
    if (s->variant >= r->n_variants) {
      snprintf(why, sizeof why, "variant %u, but the set has %d", s->variant, r->n_variants);
      bad = i;
    } else if (check_sample(&r->variant[s->variant], s, why, sizeof why) != 0) {
      bad = i;
    }
  }
  if (fread(tail, 1, 8, f) != 8 || get_u64le(tail) != sum) {
    errf(err, errlen, "%s: checksum mismatch (corrupted or truncated file)", path);
    goto done;
  }
  if (fgetc(f) != EOF) {
    errf(err, errlen, "%s: trailing bytes after the checksum", path);
    goto done;
  }
  if (bad < count) {
    errf(err, errlen, "%s: sample %u of %u is impossible: %s", path, bad, count, why);
    goto done;
  }
  pthread_mutex_lock(&r->lock);
  r->count = (int)(count - skip);
  memcpy(r->ring, tmp, sizeof *tmp * (size_t)r->count);
  r->head = r->count % r->capacity;
  r->added = added;
  pthread_mutex_unlock(&r->lock);
  rc = 0;
done:
  free(tmp);
  fclose(f);
  return rc;
}

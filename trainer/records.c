#include "trainer/records.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/record.h"
#include "base/base.h"

struct records {
  pthread_mutex_t lock;
  char *text; /* the games' records, back to back */
  size_t len, cap;
  uint64_t total; /* games kept in this session: each record's number */
};

records *records_create(char *err, size_t errlen) {
  records *r = calloc(1, sizeof *r);
  if (!r) {
    errf(err, errlen, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  return r;
}

void records_free(records *r) {
  if (!r) return;
  pthread_mutex_destroy(&r->lock);
  free(r->text);
  free(r);
}

void records_add(records *r, const game *g, const uint8_t *moves, int n, const game_pos *end) {
  arena_game *rec = calloc(1, sizeof *rec);
  char *text = NULL;
  size_t len = 0;
  FILE *f = rec ? open_memstream(&text, &len) : NULL;
  if (!f) {
    free(rec);
    return;
  }
  pthread_mutex_lock(&r->lock);
  rec->number = (int)r->total++;
  pthread_mutex_unlock(&r->lock);
  rec->opening = -1;
  rec->n_moves = n < GAME_MAX_PLIES_CAP ? n : GAME_MAX_PLIES_CAP;
  memcpy(rec->moves, moves, (size_t)rec->n_moves);
  rec->final = *end;
  record_write(f, g, rec, "self-play", "self-play");
  fputc('\n', f);
  fclose(f);
  free(rec);
  pthread_mutex_lock(&r->lock);
  if (r->len + len + 1 > r->cap) {
    size_t cap = (r->cap + len + 1) * 2;
    char *p = realloc(r->text, cap);
    if (p) {
      r->text = p;
      r->cap = cap;
    }
  }
  if (text && r->len + len + 1 <= r->cap) {
    memcpy(r->text + r->len, text, len);
    r->len += len;
  }
  pthread_mutex_unlock(&r->lock);
  free(text);
}

int records_flush(records *r, const char *path, char *err, size_t errlen) {
  pthread_mutex_lock(&r->lock);
  int rc = 0;
  if (r->len) {
    afile a;
    rc = afile_open(&a, path, err, errlen);
    if (rc == 0) {
      record_write_header(a.f, "self-play");
      fwrite(r->text, 1, r->len, a.f);
      rc = afile_commit(&a, err, errlen);
    }
    r->len = 0;
  }
  pthread_mutex_unlock(&r->lock);
  return rc;
}

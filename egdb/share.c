/* Where the database is found, one opened copy per folder shared by the
 * whole process, and exact results in the game's terms (docs/EGDB.md). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "egdb/egdb_internal.h"

/* The shared databases, under one lock, since agents on many threads open
 * and close them. */
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct shared {
  struct shared *next;
  egdb *db;
  int refs;
  char key[PATH_MAX]; /* the folder's real path (or its name as given) */
} shared;
static shared *opened;

int egdb_default_dir(const char *given, char *buf, size_t len, char *err, size_t errlen) {
  const char *env = getenv("SOWZERO_EGDB"), *xdg = getenv("XDG_DATA_HOME");
  const char *home = getenv("HOME");
  int w;
  if (given && *given)
    w = snprintf(buf, len, "%s", given);
  else if (env && *env)
    w = snprintf(buf, len, "%s", env);
  else if (xdg && *xdg)
    w = snprintf(buf, len, "%s/sowzero/egdb", xdg);
  else if (home && *home)
    w = snprintf(buf, len, "%s/.local/share/sowzero/egdb", home);
  else
    w = -2;
  if (w == -2) {
    errf(err, errlen, "no database folder: set SOWZERO_EGDB (or XDG_DATA_HOME or HOME)");
    return -1;
  }
  if (w < 0 || (size_t)w >= len) {
    errf(err, errlen, "the database folder's name is too long");
    return -1;
  }
  return 0;
}

egdb *egdb_acquire(const char *dir, char *err, size_t errlen) {
  char key[PATH_MAX];
  /* One copy per folder however it is named; a missing folder keeps its
   * name so that egdb_open's message names what was asked for. */
  if (!realpath(dir, key)) snprintf(key, sizeof key, "%s", dir);
  pthread_mutex_lock(&share_lock);
  shared *s = opened;
  while (s && strcmp(s->key, key)) s = s->next;
  if (s) {
    s->refs++;
    pthread_mutex_unlock(&share_lock);
    return s->db;
  }
  /* Opened under the lock: two threads asking at once open it once. */
  egdb *db = egdb_open(dir, err, errlen);
  s = db ? calloc(1, sizeof *s) : NULL;
  if (db && !s) {
    egdb_close(db);
    db = NULL;
    errf(err, errlen, "out of memory");
  }
  if (s) {
    s->db = db;
    s->refs = 1;
    snprintf(s->key, sizeof s->key, "%s", key);
    s->next = opened;
    opened = s;
  }
  pthread_mutex_unlock(&share_lock);
  return db;
}

void egdb_release(egdb *db) {
  if (!db) return;
  pthread_mutex_lock(&share_lock);
  for (shared **p = &opened; *p; p = &(*p)->next) {
    shared *s = *p;
    if (s->db != db) continue;
    if (--s->refs == 0) {
      *p = s->next;
      egdb_close(s->db);
      free(s);
    }
    break;
  }
  pthread_mutex_unlock(&share_lock);
}

int egdb_exact(const egdb *db, const game *g, const game_pos *p, int max_seeds, egdb_result *out) {
  if (!db || p->status != GAME_ONGOING) return 0;
  /* Most positions a search meets hold more seeds than the database: a
   * dozen additions turn them away before the index is computed. */
  int n = egdb_seeds(p);
  if (n > db->max_seeds || (max_seeds > 0 && n > max_seeds)) return 0;
  int v = egdb_probe(db, g, p);
  if (v == EGDB_NONE) return 0;
  double final[2];
  egdb_outcome(p, v, final);
  int me = p->mover;
  out->value = v;
  out->margin = (int)(final[me] - final[1 - me]);
  out->outcome = final[me] > final[1 - me] ? 1 : final[me] < final[1 - me] ? -1 : 0;
  return 1;
}

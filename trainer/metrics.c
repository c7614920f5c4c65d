#include "trainer/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

void metrics_put_progress(json_writer *w, const metrics_progress *m) {
  json_put_uint(w, "iteration", m->iteration);
  json_put_fixed(w, "time_min", m->time_min, 3);
  json_put_uint(w, "steps", (unsigned long long)m->steps);
  json_put_uint(w, "games", (unsigned long long)m->games);
  json_put_uint(w, "samples", (unsigned long long)m->samples);
  json_put_int(w, "buffer", m->buffer);
  json_put_fixed(w, "buffer_mb", m->buffer_mb, 1);
  json_put_fixed(w, "lr", m->lr, 6);
  json_begin_object(w, "loss");
  json_put_fixed(w, "total", m->loss.total, 5);
  json_put_fixed(w, "policy", m->loss.policy, 5);
  json_put_fixed(w, "value", m->loss.value, 5);
  json_put_fixed(w, "score", m->loss.score, 5);
  json_put_fixed(w, "entropy", m->loss.entropy, 5);
  json_put_fixed(w, "value_acc", m->loss.value_sign_acc, 4);
  json_end_object(w);
  json_begin_object(w, "speed");
  json_put_fixed(w, "games_per_h", m->games_per_h, 1);
  json_put_fixed(w, "evals_per_s", m->evals_per_s, 1);
  json_put_fixed(w, "cores_used", m->cores_used, 3);
  json_put_int(w, "cores", m->cores);
  json_end_object(w);
  static const char *const share[4] = {"network", "search", "learner", "gating"};
  json_begin_object(w, "time_share");
  for (int i = 0; i < 4; i++) json_put_fixed(w, share[i], m->share[i], 3);
  json_end_object(w);
  json_put_uint(w, "promotions", m->promotions);
  json_put_int(w, "reject_streak", m->reject_streak);
}

/* The rejection streak carried through a kept line. */
static void note_gating(int *streak, const json_doc *d) {
  int g = json_get(d, 0, "gating"), p = g >= 0 ? json_get(d, g, "promoted") : -1;
  if (p < 0) return; /* no gating in that iteration */
  *streak = json_type_of(d, p) == JSON_BOOL && json_number(d, p) != 0 ? 0 : *streak + 1;
}

int metrics_append(const char *path, unsigned keep_upto, const char *line, int *reject_streak,
                   char *err, size_t errlen) {
  afile a;
  if (afile_open(&a, path, err, errlen) != 0) return -1; /* only a regular file is read */
  FILE *in = fopen(path, "rb");
  if (!line) *reject_streak = 0;
  const char *lost = NULL; /* why a line could not be read: nothing is dropped unread */
  if (in) {
    char *buf = NULL;
    size_t cap = 0;
    for (;;) {
      errno = 0;
      if (getline(&buf, &cap, in) <= 0) {
        if (errno == ENOMEM)
          lost = "out of memory";
        else if (ferror(in))
          lost = "read error";
        break;
      }
      double it;
      json_doc *d = json_parse(buf, NULL, 0);
      if (!d && errno == ENOMEM) {
        lost = "out of memory";
        break;
      }
      int keep = d && json_get_number(d, 0, "iteration", &it) == 0 && it <= keep_upto;
      if (keep && !line) note_gating(reject_streak, d);
      json_free(d);
      if (keep && fputs(buf, a.f) >= 0 && buf[strlen(buf) - 1] != '\n') fputc('\n', a.f);
    }
    free(buf);
    fclose(in);
  }
  if (lost) {
    afile_abort(&a);
    errf(err, errlen, "%s: %s", path, lost);
    return -1;
  }
  if (line) fprintf(a.f, "%s\n", line);
  return afile_commit(&a, err, errlen);
}

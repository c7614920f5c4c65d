/* The machine a run reports, and its self-play threads resolved. */
#include "trainer/machine.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "nn/blas_core.h"

/* The idle watch's window, seconds. */
#define IDLE_WINDOW 60.0

int machine_threads(const train_config *c, int learner, int *usable, char *why, size_t len) {
  cpu_budget b;
  cpu_threads t;
  cpu_budget_probe(&b, learner);
  cpu_threads_auto(&b, &t);
  if (usable) *usable = t.usable;
  if (c->threads != KV_AUTO) {
    snprintf(why, len, "set in the config; auto would give %d: %s", t.threads, t.why);
    return c->threads;
  }
  snprintf(why, len, "auto: %s", t.why);
  return t.threads;
}

int machine_check(const train_config *c, char *err, size_t errlen) {
  if (!c->deterministic || c->threads != KV_AUTO) return 0;
  errf(err, errlen,
       "selfplay.threads = auto with run.deterministic = 1: a deterministic run's games depend on "
       "its thread count, so it needs a number (selfplay.threads = N)");
  return -1;
}

void machine_resolve(run_machine *m, train_config *c, int learner, int dist) {
  memset(m, 0, sizeof *m);
  m->resolved = 1;
  m->threads_auto = c->threads == KV_AUTO;
  m->dist = dist;
  c->threads = machine_threads(c, learner, &m->usable, m->why, sizeof m->why);
  if (dist) /* rank 0 plays no self-play */
    snprintf(m->why, sizeof m->why, "%s on each actor rank, for its share of its node",
             m->threads_auto ? "auto" : "this number");
  cpu_idle_init(&m->idle, m->usable, IDLE_WINDOW);
}

void machine_json(run_machine *m, const train_config *c, json_writer *w) {
  char sys[4096];
  if (m->said || blas_system_json(sys, sizeof sys) != 0) return;
  m->said = 1;
  json_begin_object(w, "system");
  json_put_raw(w, NULL, sys);
  json_begin_object(w, "selfplay_threads");
  json_put_int(w, "threads", c->threads);
  json_put_string(w, "setting", m->threads_auto ? "auto" : "number");
  json_put_int(w, "usable_cores", m->usable);
  json_put_string(w, "why", m->why);
  json_end_object(w);
  json_end_object(w);
}

/* The threads and the machine, two lines. */
static void banner(const run_machine *m, const train_config *c,
                   void (*say)(void *ctx, const char *line), void *ctx) {
  char line[1200], sys[1024];
  if (m->dist)
    snprintf(line, sizeof line, "self-play threads: %s", m->why);
  else
    snprintf(line, sizeof line, "self-play threads: %d (%s)", c->threads, m->why);
  say(ctx, line);
  blas_system_line(sys, sizeof sys);
  snprintf(line, sizeof line, "machine: %s", sys);
  say(ctx, line);
}

void machine_tick(run_machine *m, const train_config *c, void (*say)(void *ctx, const char *line),
                  void *ctx) {
  if (!m->resolved || !say) return;
  if (!m->banner) {
    m->banner = 1;
    banner(m, c, say, ctx);
  }
  if (m->idle.warned || m->idle.usable < 2) return;
  if (!cpu_idle_feed(&m->idle, clock_wall(), clock_process_cpu())) return;
  char msg[400];
  snprintf(msg, sizeof msg,
           "this run kept %.1f of its %d usable cores busy over the last minute: "
           "selfplay.threads = %d%s; more self-play threads would use the rest",
           m->idle.busy, m->usable, c->threads,
           m->threads_auto ? " (auto)" : " (auto sizes it to the cores)");
  say(ctx, msg);
}

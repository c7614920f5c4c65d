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

/* network.precision = auto made a precision (see machine_resolve). */
static int resolve_precision(run_machine *m, train_config *c, nn_net *best, char *err,
                             size_t errlen) {
  m->prec_auto = c->precision == NN_PRECISION_AUTO;
  if (!m->prec_auto) return 0;
  if (c->deterministic) {
    m->prec.forced = 1;
    m->prec.choice = nn_precision_auto();
  } else {
    int batch[2] = {c->games_per_thread, 2 * ((c->gate_games + 1) / 2)}, nb = 1;
    if (c->gating != GATE_OFF && batch[1] != batch[0]) nb = 2;
    if (nn_auto_choose(best, batch, nb, NULL, NULL, &m->prec, err, errlen) != 0) return -1;
  }
  c->precision = (int)m->prec.choice;
  return 0;
}

int machine_resolve(run_machine *m, train_config *c, int learner, int dist, nn_net *best, char *err,
                    size_t errlen) {
  memset(m, 0, sizeof *m);
  m->resolved = 1;
  m->threads_auto = c->threads == KV_AUTO;
  m->dist = dist;
  c->threads = machine_threads(c, learner, &m->usable, m->why, sizeof m->why);
  if (dist) /* rank 0 plays no self-play */
    snprintf(m->why, sizeof m->why, "%s on each actor rank, for its share of its node",
             m->threads_auto ? "auto" : "this number");
  cpu_idle_init(&m->idle, m->usable, IDLE_WINDOW);
  if (resolve_precision(m, c, best, err, errlen) != 0) return -1;
  return nn_set_precision(best, (nn_precision)c->precision, err, errlen);
}

/* The precision line: what auto took and why. */
static void precision_line(const run_machine *m, const train_config *c, char *buf, size_t len) {
  if (!m->prec_auto)
    snprintf(buf, len, "precision: %s (set in the config)",
             nn_precision_name((nn_precision)c->precision));
  else if (m->prec.forced && c->deterministic)
    snprintf(buf, len,
             "precision auto: %s, the fixed ranking for this CPU (a deterministic run measures "
             "nothing)",
             nn_precision_name(m->prec.choice));
  else
    nn_auto_describe(&m->prec, buf, len);
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
  json_begin_object(w, "precision");
  json_put_string(w, "precision", nn_precision_name((nn_precision)c->precision));
  json_put_string(w, "setting", m->prec_auto ? "auto" : "fixed");
  json_put_int(w, "measured", m->prec_auto && !m->prec.forced);
  for (int b = 0; m->prec_auto && !m->prec.forced && b < m->prec.n_batches; b++) {
    char key[32];
    for (int p = 0; p < NN_AUTO_PATHS; p++) {
      static const char *const names[NN_AUTO_PATHS] = {"fp32", "bf16", "int8"};
      if (!(m->prec.us[b][p] > 0)) continue;
      snprintf(key, sizeof key, "%s_us_batch%d", names[p], m->prec.batch[b]);
      json_put_fixed(w, key, m->prec.us[b][p], 1);
    }
  }
  char line[600];
  precision_line(m, c, line, sizeof line);
  json_put_string(w, "why", line);
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
  precision_line(m, c, line, sizeof line);
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

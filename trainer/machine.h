/* machine: what a run says about the machine it runs on. Resolves
 * `selfplay.threads = auto` for this process (machine_threads), names the
 * threads and why, the CPU, OpenBLAS's core and each precision's kernel
 * (nn/blas_core.h) in the banner and in the first metrics line of each
 * session (a resume may run elsewhere), and says once when the run leaves
 * most of its usable cores idle for a minute. One per run, inside its
 * train_loop, used by the learner's thread only. */
#ifndef SOWZERO_MACHINE_H
#define SOWZERO_MACHINE_H

#include <stddef.h>

#include "base/cpu.h"
#include "base/json.h"
#include "nn/nn.h"
#include "trainer/config.h"

/* The self-play threads this process runs: selfplay.threads when a number,
 * for auto the cores it may use (affinity, cgroup quota, its share of the
 * node under mpirun; base/cpu.h) less `learner` (1, or 0 for an actor
 * rank), at least 1. *usable (may be NULL) gets those cores; why says how. */
int machine_threads(const train_config *c, int learner, int *usable, char *why, size_t len);

/* -1 with a message for a run that cannot size its threads: auto in a
 * deterministic run, whose games depend on the thread count. */
int machine_check(const train_config *c, char *err, size_t errlen);

typedef struct {
  int resolved;        /* machine_resolve ran: a run's, not a benchmark's */
  int threads_auto;    /* the config said auto */
  int usable;          /* cores this process may use */
  int dist;            /* a distributed run's learner: each actor sizes its own threads */
  char why[320];       /* how the threads came about */
  int prec_auto;       /* network.precision was auto */
  nn_auto_report prec; /* with prec_auto: how auto was resolved */
  int said, banner;    /* this session's metrics carried "system"; the banner lines are out */
  cpu_idle_watch idle;
} run_machine;

/* c->threads becomes this process's count (learner: cores kept for the
 * learner, 1), and c->precision a precision: auto is measured on best's
 * shape at self-play's batch (games per thread) and gating's (nn.h,
 * nn_auto_choose), or takes the fixed ranking in a deterministic run,
 * whose games must not depend on a timing. best is converted to it. Call
 * after config.ini is written, which keeps "auto". -1 with a message on a
 * bad SOWZERO_AUTO_PRECISION or out of memory. */
int machine_resolve(run_machine *m, train_config *c, int learner, int dist, nn_net *best, char *err,
                    size_t errlen);
/* The member "system" of the session's first metrics line into w (a
 * member list or an object); nothing on later lines. */
void machine_json(run_machine *m, const train_config *c, json_writer *w);
/* At each status update of a resolved run: the first time, the threads and
 * the machine as two lines through say; then, once, a line when the
 * process kept under half its usable cores busy for a minute. */
void machine_tick(run_machine *m, const train_config *c, void (*say)(void *ctx, const char *line),
                  void *ctx);

#endif

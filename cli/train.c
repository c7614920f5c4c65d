/* `sowzero train`: runs or resumes a training run, with a live status line. */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "trainer/config.h"
#include "trainer/train.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

typedef struct {
  int tty;
  int status_shown;
} progress_ctx;

static void progress(void *ctx, int kind, const train_status *st, const char *line) {
  progress_ctx *p = ctx;
  if (kind == 1) {
    if (p->tty && p->status_shown) fputs("\r\033[K", stderr);
    fprintf(stderr, "%s\n", line);
    p->status_shown = 0;
    return;
  }
  if (!p->tty) return;
  char eta[32] = "";
  if (st->budget_min > 0) {
    double left = st->budget_min - st->elapsed_min;
    snprintf(eta, sizeof eta, ", %.0f min left", left > 0 ? left : 0);
  }
  fprintf(stderr,
          "\r\033[Kiter %d | %s | %llu games, %llu samples (%d held) | %llu steps, loss %.3f | "
          "%s%s",
          st->iteration, st->phase, (unsigned long long)st->games,
          (unsigned long long)st->samples, st->buffer, (unsigned long long)st->steps, st->loss,
          st->last_gate[0] ? st->last_gate : "no gating yet", eta);
  fflush(stderr);
  p->status_shown = 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sowzero train CONFIG [--run DIR] [--set section.key=value ...]\n"
          "                            [--minutes M] [--iterations N]\n"
          "  Trains in DIR (default runs/NAME for configs/NAME.ini); a DIR that already holds\n"
          "  a run is resumed with its own config.ini (overrides still apply).\n"
          "  Ctrl-C stops cleanly; so does the end of the budget.\n"
          "  'sowzero train --keys' lists every config key with its default.\n");
}

int cmd_train(int argc, char **argv) {
  const char *config = NULL, *dir = NULL;
  char *over[64], buf[64][96];
  int n_over = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--keys")) {
      config_describe(stdout);
      return 0;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--run") && i + 1 < argc) {
      dir = argv[++i];
    } else if ((!strcmp(a, "--set") || !strcmp(a, "--minutes") || !strcmp(a, "--iterations")) &&
               i + 1 < argc) {
      if (n_over == 64) {
        fprintf(stderr, "sowzero train: too many overrides\n");
        return 2;
      }
      if (!strcmp(a, "--set"))
        snprintf(buf[n_over], sizeof buf[n_over], "%s", argv[++i]);
      else
        snprintf(buf[n_over], sizeof buf[n_over], "run.%s=%s", a + 2, argv[++i]);
      over[n_over] = buf[n_over];
      n_over++;
    } else if (a[0] != '-' && !config) {
      config = a;
    } else {
      fprintf(stderr, "sowzero train: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!config && !dir) {
    usage(stderr);
    return 2;
  }
  char dirbuf[512];
  if (!dir) {
    /* runs/NAME for .../NAME.ini */
    const char *base = strrchr(config, '/');
    base = base ? base + 1 : config;
    size_t n = strcspn(base, ".");
    snprintf(dirbuf, sizeof dirbuf, "runs/%.*s", (int)n, base);
    dir = dirbuf;
    if (mkdir("runs", 0755) != 0 && errno != EEXIST) {
      fprintf(stderr, "sowzero train: cannot create runs/\n");
      return 1;
    }
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  progress_ctx pc = {isatty(2), 0};
  train_args ta = {config, dir, n_over, over, progress, &pc, &stop_requested};
  char err[1024];
  int rc = train_run(&ta, err, sizeof err);
  if (pc.status_shown) fputs("\n", stderr);
  if (rc != 0) {
    fprintf(stderr, "sowzero train: %s\n", err);
    return 1;
  }
  if (dir == dirbuf)
    fprintf(stderr, "%s: saved; 'sowzero train %s' resumes it.\n", dir, config);
  else
    fprintf(stderr, "%s: saved; 'sowzero train --run %s' resumes it.\n", dir, dir);
  return 0;
}

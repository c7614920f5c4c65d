/* `sowzero train`: runs or resumes a training run, with a live status line. */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ini.h"
#include "cli/cli.h"
#include "egdb/egdb.h"
#include "trainer/config.h"
#include "trainer/dist.h"
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
  char streak[48] = "";
  if (st->reject_streak > 1)
    snprintf(streak, sizeof streak, ", %d rejected in a row", st->reject_streak);
  fprintf(stderr,
          "\r\033[Kiter %d | %s | %llu games, %llu samples (%d held) | %llu steps, loss %.3f, "
          "entropy %.2f | %s%s | %.2f cores: net %.0f%% search %.0f%% learn %.0f%% gate %.0f%%%s",
          st->iteration, st->phase, (unsigned long long)st->games, (unsigned long long)st->samples,
          st->buffer, (unsigned long long)st->steps, st->loss, st->entropy,
          st->last_gate[0] ? st->last_gate : "no gating yet", streak, st->cores_used,
          100 * st->share[0], 100 * st->share[1], 100 * st->share[2], 100 * st->share[3], eta);
  fflush(stderr);
  p->status_shown = 1;
}

typedef struct {
  /* The trainer keeps a run directory's name in 512 bytes (trainer/train.c);
   * a longer one is refused here rather than cut there. */
  char run[512];
  char minutes[64], iterations[64], egdb[CLI_EGDB_MAX];
  int keys;
} train_opts;

#define O_(kind, name, F, ...) kind(name, train_opts, F, __VA_ARGS__)
static const kv_key train_keys[] = {
    O_(KV_S, "run", run, NULL,
       "DIR  the run directory (default runs/NAME for CONFIG .../NAME.ini); a DIR that holds "
       "a run is resumed with its own config.ini, and CONFIG may then be left out"),
    O_(KV_S, "minutes", minutes, NULL, "M  the budget in wall minutes: --set run.minutes=M"),
    O_(KV_S, "iterations", iterations, NULL, "N  stop after N iterations: --set run.iterations=N"),
    O_(KV_B, "keys", keys, NULL, "list every config key with its default, and do nothing else"),
    CLI_EGDB_KEY(train_opts, egdb, "of [egdb] and of egdb=on: --set egdb.dir=DIR"),
};
#undef O_
static const kv_table train_table = KV_TABLE(train_keys);

/* An override's parts; -1 unless it is SECTION.KEY=VALUE. */
static int split_override(const char *s, size_t *sec, size_t *key, size_t *val) {
  const char *dot = strchr(s, '.'), *eq = strchr(s, '=');
  if (!dot || !eq || dot > eq || dot == s || eq == dot + 1) return -1;
  *sec = (size_t)(dot - s);
  *key = (size_t)(eq - dot - 1);
  *val = strlen(eq + 1);
  return 0;
}

/* A message naming "--set run.minutes=M" for what --minutes M set: the
 * option the user gave is named instead. */
static void name_option(char *err, size_t len, const char *over, const char *option) {
  char from[96], *at;
  snprintf(from, sizeof from, "--set %s", over);
  if (!(at = strstr(err, from))) return;
  char rest[1024];
  snprintf(rest, sizeof rest, "%s", at + strlen(from));
  snprintf(at, len - (size_t)(at - err), "%s %s%s", option, strchr(over, '=') + 1, rest);
}

int cmd_train(int argc, char **argv) {
  train_opts o;
  memset(&o, 0, sizeof o);
  char *sets[64], *pos[1];
  cli_list set = {"set",
                  "SECTION.KEY=VALUE",
                  "a config setting over the file's ('sowzero train --keys' lists them)",
                  1,
                  64,
                  sets,
                  0};
  cli_cmd c = {.name = "train",
               .synopsis =
                   "train CONFIG [--run DIR] [--set SECTION.KEY=VALUE ...] [--minutes M] "
                   "[--iterations N]",
               .about =
                   "  Trains a run from CONFIG in DIR (default runs/NAME for configs/NAME.ini);\n"
                   "  a DIR that already holds a run is resumed with its own config.ini\n"
                   "  (overrides still apply): 'sowzero train --run DIR' resumes it.\n"
                   "  Ctrl-C stops cleanly; so does the end of the budget.\n"
                   "  'sowzero train --keys' lists every config key with its default.\n",
               .opts = &train_table,
               .base = &o,
               .lists = &set,
               .n_lists = 1,
               .pos_name = "CONFIG",
               .max_pos = 1,
               .pos = pos};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  if (o.keys) {
    if (c.n_pos || set.n || cli_given(&c, "run") || cli_given(&c, "minutes") ||
        cli_given(&c, "iterations"))
      return cli_fail(&c, 2, "--keys lists the config keys and takes no other argument");
    config_describe(stdout);
    return 0;
  }
  const char *config = c.n_pos ? pos[0] : NULL, *dir = o.run[0] ? o.run : NULL;
  if (!config && !dir)
    return cli_fail(&c, 2,
                    "missing CONFIG (or --run DIR of a run to resume; usage: sowzero "
                    "train CONFIG [--run DIR] [options])");
  /* The overrides, each with the argument it came from. */
  char *over[67], minutes[80], iterations[80], egdb[CLI_EGDB_MAX + 16];
  int n_over = 0;
  for (int i = 0; i < set.n; i++) {
    size_t ls, lk, lv;
    ini_entry e;
    if (split_override(sets[i], &ls, &lk, &lv))
      return cli_fail(&c, 2, "bad value '%s' for --set (expected SECTION.KEY=VALUE)", sets[i]);
    if (ls >= sizeof e.section || lk >= sizeof e.key || lv >= sizeof e.value)
      return cli_fail(&c, 2, "--set %.*s: the %s is %zu characters long (at most %zu)",
                      (int)(ls + 1 + lk), sets[i],
                      lv >= sizeof e.value     ? "value"
                      : ls >= sizeof e.section ? "section"
                                               : "key",
                      lv >= sizeof e.value     ? lv
                      : ls >= sizeof e.section ? ls
                                               : lk,
                      (lv >= sizeof e.value     ? sizeof e.value
                       : ls >= sizeof e.section ? sizeof e.section
                                                : sizeof e.key) -
                          1);
    if ((o.minutes[0] && !strncmp(sets[i], "run.minutes=", 12)) ||
        (o.iterations[0] && !strncmp(sets[i], "run.iterations=", 15)) ||
        (o.egdb[0] && !strncmp(sets[i], "egdb.dir=", 9)))
      return cli_fail(&c, 2, "--set %.*s and --%s say the same thing: give one",
                      (int)strcspn(sets[i], "="), sets[i],
                      sets[i][0] == 'e'   ? "egdb"
                      : sets[i][4] == 'm' ? "minutes"
                                          : "iterations");
    over[n_over++] = sets[i];
  }
  if (o.minutes[0]) {
    snprintf(minutes, sizeof minutes, "run.minutes=%s", o.minutes);
    over[n_over++] = minutes;
  }
  if (o.iterations[0]) {
    snprintf(iterations, sizeof iterations, "run.iterations=%s", o.iterations);
    over[n_over++] = iterations;
  }
  if (o.egdb[0]) { /* the run's folder, and where its agents' egdb=on looks */
    snprintf(egdb, sizeof egdb, "egdb.dir=%s", o.egdb);
    over[n_over++] = egdb;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* Under mpirun or srun: a distributed run, rank 0 the learner. */
  dist *d = NULL;
  char err[1024];
  if (dist_launched() && !(d = dist_open(err, sizeof err))) return cli_fail(&c, 1, "%s", err);
  /* One rank alone (mpirun -np 1) has no actors: it trains as one process. */
  dist *spread = d && dist_size(d) > 1 ? d : NULL;
  if (d && dist_rank(d) > 0) {
    train_args ta = {
        .config_path = config, .n_over = n_over, .over = over, .stop = &stop_requested};
    int rc = train_actor(&ta, d, err, sizeof err);
    if (rc < 0) {
      cli_fail(&c, 1, "%s", err);
      dist_abort(d, 1); /* the job ends; the learner's last checkpoint stands */
    }
    if (rc > 0 && err[0]) cli_fail(&c, 1, "%s", err);
    dist_close(d);
    return rc ? 1 : 0;
  }
  char dirbuf[512];
  if (!dir) {
    /* runs/NAME for .../NAME.ini */
    const char *base = strrchr(config, '/');
    base = base ? base + 1 : config;
    size_t n = strcspn(base, ".");
    if (n == 0)
      return cli_fail(&c, 2, "cannot name a run after CONFIG '%s'; give --run DIR", config);
    if (n + 6 >= sizeof dirbuf)
      return cli_fail(&c, 2, "CONFIG '%s' makes too long a run name; give --run DIR", config);
    snprintf(dirbuf, sizeof dirbuf, "runs/%.*s", (int)n, base);
    dir = dirbuf;
  }
  /* Resume or start: the trainer resumes a DIR that has a config.ini. */
  char cfg_path[600];
  struct stat st;
  snprintf(cfg_path, sizeof cfg_path, "%s/config.ini", dir);
  int dir_exists = stat(dir, &st) == 0;
  if (dir_exists && !S_ISDIR(st.st_mode))
    return cli_fail(&c, 2, "run directory '%s' is not a directory", dir);
  int resume = dir_exists && stat(cfg_path, &st) == 0;
  if (!resume && !config) {
    if (!dir_exists)
      return cli_fail(&c, 2,
                      "--run '%s': no such run to resume; to start one there, name "
                      "its CONFIG: sowzero train CONFIG --run DIR",
                      dir);
    return cli_fail(&c, 2,
                    "--run '%s' holds no run to resume (no config.ini); to start one "
                    "there, name its CONFIG: sowzero train CONFIG --run DIR",
                    dir);
  }
  if (resume && config && o.run[0])
    cli_fail(&c, 0, "%s holds a run: resuming it with its own config.ini (%s is not read)", dir,
             config);
  const char *load = resume ? cfg_path : config;

  /* Checked before anything starts: the file and every override together,
   * as the run will read them (a rule between two keys holds for the final
   * values, whichever set them); the message names where each came from. */
  train_config *tc = malloc(sizeof *tc);
  if (!tc) return cli_fail(&c, 1, "out of memory");
  int bad = config_load(tc, load, n_over, over, err, sizeof err);
  free(tc);
  if (bad) {
    int usage = n_over && strstr(err, "--set ");
    if (o.minutes[0]) name_option(err, sizeof err, minutes, "--minutes");
    if (o.iterations[0]) name_option(err, sizeof err, iterations, "--iterations");
    if (o.egdb[0]) name_option(err, sizeof err, egdb, "--egdb");
    return cli_fail(&c, usage ? 2 : 1, "%s", err);
  }
  if (dir == dirbuf && mkdir("runs", 0755) != 0 && errno != EEXIST)
    return cli_fail(&c, 1, "cannot create runs/: %s", strerror(errno));
  progress_ctx pc = {isatty(2), 0};
  train_args ta = {.config_path = config,
                   .run_dir = dir,
                   .n_over = n_over,
                   .over = over,
                   .progress = progress,
                   .progress_ctx = &pc,
                   .stop = &stop_requested,
                   .dist = spread};
  int rc = train_run(&ta, err, sizeof err);
  if (pc.status_shown) fputs("\n", stderr);
  if (rc != 0) {
    cli_fail(&c, 1, "%s", err);
  } else {
    const char *how = dir == dirbuf ? config : "--run";
    fprintf(stderr, "%s: saved; 'sowzero train %s%s%s' resumes it%s.\n", dir, how,
            dir == dirbuf ? "" : " ", dir == dirbuf ? "" : dir, d ? " (under mpirun again)" : "");
  }
  dist_close(d);
  return rc ? 1 : 0;
}

/* `sowzero analysis`: the JSON analysis engine on stdin/stdout
 * (docs/ANALYSIS.md). The main thread reads query lines into a queue;
 * --threads workers answer them, each answer printed whole when it is
 * done, so answers come in any order, tagged with their ids. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kv.h"
#include "cli/cli.h"
#include "egdb/egdb.h"
#include "protocol/analysis.h"

typedef struct {
  int threads;
  char egdb[CLI_EGDB_MAX];
} analysis_cli_opts;

static const kv_key analysis_keys[] = {
    KV_I("threads", analysis_cli_opts, threads, 1, 256, NULL, "queries worked on at once"),
    CLI_EGDB_KEY(analysis_cli_opts, egdb, "of agents' egdb=on and of the exact values"),
};
static const kv_table analysis_table = KV_TABLE(analysis_keys);

typedef struct line_item {
  struct line_item *next;
  size_t len;
  char text[];
} line_item;

/* The queue of read lines and the one lock around stdout. */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t ready;
  line_item *head, *tail;
  int closed; /* stdin ended */
  pthread_mutex_t out_lock;
  analysis_opts opts;
  int failed; /* memory ran out answering a query */
} work;

static void *worker(void *arg) {
  work *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    while (!w->head && !w->closed) pthread_cond_wait(&w->ready, &w->lock);
    line_item *it = w->head;
    if (it) {
      w->head = it->next;
      if (!w->head) w->tail = NULL;
    }
    pthread_mutex_unlock(&w->lock);
    if (!it) return NULL;
    char *answer;
    int rc = analysis_answer(&w->opts, it->text, it->len, &answer);
    free(it);
    pthread_mutex_lock(&w->out_lock);
    if (answer) {
      fputs(answer, stdout);
      fflush(stdout);
    }
    if (rc < 0) w->failed = 1;
    pthread_mutex_unlock(&w->out_lock);
    free(answer);
  }
}

int cmd_analysis(int argc, char **argv) {
  analysis_cli_opts o = {1, ""};
  cli_cmd c = {.name = "analysis",
               .synopsis = "analysis [--threads N] [--egdb DIR]",
               .about =
                   "  The JSON analysis engine: one query a line on stdin, one answer a line\n"
                   "  on stdout, in the order they finish (docs/ANALYSIS.md). The endgame\n"
                   "  database: --egdb, else $SOWZERO_EGDB, else the default folder if it\n"
                   "  holds one (docs/EGDB.md).\n",
               .opts = &analysis_table,
               .base = &o};
  int status;
  if (cli_parse(&c, argc, argv, &status)) return status;
  char err[1024];
  egdb *db = NULL;
  if (cli_egdb_open(o.egdb, &db, err, sizeof err)) return cli_fail(&c, 1, "%s", err);
  cli_precision_to_stderr();
  work w;
  memset(&w, 0, sizeof w);
  pthread_mutex_init(&w.lock, NULL);
  pthread_cond_init(&w.ready, NULL);
  pthread_mutex_init(&w.out_lock, NULL);
  w.opts.egdb = db;
  w.opts.egdb_dir = o.egdb; /* for egdb=on in agent specs */
  pthread_t *tid = calloc((size_t)o.threads, sizeof *tid);
  int started = 0;
  while (tid && started < o.threads && pthread_create(&tid[started], NULL, worker, &w) == 0)
    started++;
  int rc = 0;
  if (started == 0) {
    rc = cli_fail(&c, 1, "cannot start a worker thread");
  } else {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
      line_item *it = malloc(sizeof *it + (size_t)n + 1);
      if (!it) {
        rc = cli_fail(&c, 1, "out of memory");
        break;
      }
      it->next = NULL;
      it->len = (size_t)n;
      memcpy(it->text, line, (size_t)n + 1);
      pthread_mutex_lock(&w.lock);
      if (w.tail)
        w.tail->next = it;
      else
        w.head = it;
      w.tail = it;
      pthread_cond_signal(&w.ready);
      pthread_mutex_unlock(&w.lock);
    }
    free(line);
  }
  pthread_mutex_lock(&w.lock);
  w.closed = 1;
  pthread_cond_broadcast(&w.ready);
  pthread_mutex_unlock(&w.lock);
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  free(tid);
  if (w.failed && rc == 0) rc = cli_fail(&c, 1, "out of memory answering a query");
  pthread_mutex_destroy(&w.lock);
  pthread_cond_destroy(&w.ready);
  pthread_mutex_destroy(&w.out_lock);
  egdb_close(db);
  return rc;
}

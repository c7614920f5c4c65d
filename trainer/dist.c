/* MPI under the dist interface: sends are copies kept until MPI completes
 * them; receives go through matched probes (MPI_Improbe/MPI_Mrecv), so
 * that the message probed is the one received. */
#include "trainer/dist.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

typedef struct {
  MPI_Request req;
  void *buf;
} send_slot;

#define HOST_LEN 64

struct dist {
  int rank, size;
  char (*host)[HOST_LEN]; /* every rank's */
  send_slot *sends;
  int n_sends, cap_sends;
  MPI_Message msg; /* probed, not yet received: from, tag, len */
  int have_msg, from, tag;
  size_t len;
};

int dist_launched(void) {
  /* Open MPI's mpirun, and srun (PMIx or PMI-2) under Slurm. */
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

static int mpi_failed(int rc, const char *what, char *err, size_t errlen) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", rc);
  errf(err, errlen, "MPI: %s failed: %s", what, s);
  return -1;
}

dist *dist_open(char *err, size_t errlen) {
  int provided = 0;
  int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) {
    errf(err, errlen, "MPI: MPI_Init_thread failed (error %d)", rc);
    return NULL;
  }
  if (provided < MPI_THREAD_FUNNELED) {
    errf(err, errlen, "MPI: this MPI library gives no thread support (FUNNELED needed)");
    MPI_Finalize();
    return NULL;
  }
  dist *d = calloc(1, sizeof *d);
  if (!d) {
    errf(err, errlen, "out of memory");
    MPI_Finalize();
    return NULL;
  }
  /* Errors come back as codes, to be reported with the rank's context. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &d->size);
  char mine[HOST_LEN] = "?";
  if (gethostname(mine, sizeof mine - 1) != 0) snprintf(mine, sizeof mine, "?");
  rc = (d->host = calloc((size_t)d->size, sizeof *d->host))
           ? MPI_Allgather(mine, HOST_LEN, MPI_CHAR, d->host, HOST_LEN, MPI_CHAR, MPI_COMM_WORLD)
           : MPI_ERR_NO_MEM;
  if (rc != MPI_SUCCESS) {
    mpi_failed(rc, "gathering the host names", err, errlen);
    free(d->host);
    free(d);
    MPI_Finalize();
    return NULL;
  }
  return d;
}

void dist_close(dist *d) {
  if (!d) return;
  char e[256];
  dist_flush(d, e, sizeof e);
  free(d->sends);
  free(d->host);
  free(d);
  MPI_Finalize();
}

void dist_abort(dist *d, int code) {
  (void)d;
  MPI_Abort(MPI_COMM_WORLD, code);
}

int dist_rank(const dist *d) { return d->rank; }
int dist_size(const dist *d) { return d->size; }
const char *dist_host(const dist *d, int rank) {
  return rank >= 0 && rank < d->size ? d->host[rank] : "?";
}

int dist_allgather_u64(dist *d, uint64_t mine, uint64_t *all, char *err, size_t errlen) {
  (void)d;
  int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "MPI_Allgather", err, errlen);
}

int dist_bcast(dist *d, void **buf, size_t *len, char *err, size_t errlen) {
  uint64_t n = d->rank == 0 ? (uint64_t)*len : 0;
  int rc = MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Bcast", err, errlen);
  if (n > INT_MAX)
    return errf(err, errlen, "broadcast of %llu bytes too long", (unsigned long long)n), -1;
  if (d->rank != 0) {
    *len = (size_t)n;
    if (!(*buf = malloc(n ? n : 1))) return errf(err, errlen, "out of memory"), -1;
  }
  rc = MPI_Bcast(*buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "MPI_Bcast", err, errlen);
}

int dist_send(dist *d, int dest, int tag, const void *buf, size_t len, char *err, size_t errlen) {
  if (len > INT_MAX) return errf(err, errlen, "message of %zu bytes too long", len), -1;
  if (d->n_sends == d->cap_sends) {
    int cap = d->cap_sends ? 2 * d->cap_sends : 16;
    send_slot *s = realloc(d->sends, sizeof *s * (size_t)cap);
    if (!s) return errf(err, errlen, "out of memory"), -1;
    d->sends = s;
    d->cap_sends = cap;
  }
  send_slot *s = &d->sends[d->n_sends];
  if (!(s->buf = malloc(len ? len : 1))) return errf(err, errlen, "out of memory"), -1;
  memcpy(s->buf, buf, len);
  int rc = MPI_Isend(s->buf, (int)len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &s->req);
  if (rc != MPI_SUCCESS) {
    free(s->buf);
    return mpi_failed(rc, "MPI_Isend", err, errlen);
  }
  d->n_sends++;
  return 0;
}

void dist_progress(dist *d) {
  int k = 0;
  for (int i = 0; i < d->n_sends; i++) {
    int done = 0;
    MPI_Test(&d->sends[i].req, &done, MPI_STATUS_IGNORE);
    if (done)
      free(d->sends[i].buf);
    else
      d->sends[k++] = d->sends[i]; /* keeps the order of posting */
  }
  d->n_sends = k;
}

int dist_flush(dist *d, char *err, size_t errlen) {
  int bad = 0;
  for (int i = 0; i < d->n_sends; i++) {
    if (MPI_Wait(&d->sends[i].req, MPI_STATUS_IGNORE) != MPI_SUCCESS) bad = 1;
    free(d->sends[i].buf);
  }
  d->n_sends = 0;
  if (bad) return errf(err, errlen, "MPI: a send failed"), -1;
  return 0;
}

int dist_probe(dist *d, int src, int *from, int *tag, size_t *len) {
  if (!d->have_msg) {
    int flag = 0, count = 0;
    MPI_Status st;
    if (MPI_Improbe(src < 0 ? MPI_ANY_SOURCE : src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &d->msg,
                    &st) != MPI_SUCCESS ||
        !flag)
      return 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    d->have_msg = 1;
    d->from = st.MPI_SOURCE;
    d->tag = st.MPI_TAG;
    d->len = (size_t)count;
  }
  *from = d->from;
  *tag = d->tag;
  *len = d->len;
  return 1;
}

int dist_recv(dist *d, unsigned char **buf, size_t *cap, char *err, size_t errlen) {
  if (!d->have_msg) return errf(err, errlen, "dist_recv without a probed message"), -1;
  if (d->len > *cap) {
    unsigned char *b = realloc(*buf, d->len);
    if (!b) return errf(err, errlen, "out of memory"), -1;
    *buf = b;
    *cap = d->len;
  }
  d->have_msg = 0;
  int rc = MPI_Mrecv(*buf, (int)d->len, MPI_BYTE, &d->msg, MPI_STATUS_IGNORE);
  return rc == MPI_SUCCESS ? 0 : mpi_failed(rc, "MPI_Mrecv", err, errlen);
}

/* dist: the processes of one run, started together by mpirun (or srun),
 * talking over MPI (docs/DISTRIBUTED.md). Rank 0 is the learner, the others
 * are self-play actors; what they say to each other is the run's business
 * (train_internal.h), this module only carries bytes.
 *
 * The only file that includes mpi.h. Only the thread that called dist_open
 * may call the other functions (MPI_THREAD_FUNNELED): the workers of a rank
 * never touch MPI. Sends are non-blocking and copy their bytes, so the
 * caller's buffer is free again at once; dist_progress completes them. */
#ifndef SOWZERO_DIST_H
#define SOWZERO_DIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct dist dist;

/* 1 if this process was started by mpirun or srun (their environment), so
 * that a plain `sowzero train` never initialises MPI. */
int dist_launched(void);

/* MPI_Init_thread, and every rank's host name (collective); NULL with a
 * message if MPI cannot start. */
dist *dist_open(char *err, size_t errlen);
/* Waits for this rank's sends, then MPI_Finalize. */
void dist_close(dist *d);
/* Ends every rank of the job at once (MPI_Abort). */
void dist_abort(dist *d, int code);

int dist_rank(const dist *d);
int dist_size(const dist *d);
/* The host name of a rank (gathered once, by dist_open). */
const char *dist_host(const dist *d, int rank);

/* Collective: every rank's value, in rank order (all: dist_size values). */
int dist_allgather_u64(dist *d, uint64_t mine, uint64_t *all, char *err, size_t errlen);
/* Collective: rank 0's bytes to every rank. On rank 0 *buf and *len are
 * its bytes; elsewhere they receive a malloc'd copy (the caller frees). */
int dist_bcast(dist *d, void **buf, size_t *len, char *err, size_t errlen);

/* Posts a copy of len bytes to rank dest with tag (non-blocking). */
int dist_send(dist *d, int dest, int tag, const void *buf, size_t len, char *err, size_t errlen);
/* Completes what it can of this rank's sends. */
void dist_progress(dist *d);
/* Waits until every send of this rank has completed. */
int dist_flush(dist *d, char *err, size_t errlen);

/* A message waiting for this rank (from src; -1: any)? 1 with its source,
 * tag and length, and then dist_recv must take it before the next probe;
 * 0 if none. */
int dist_probe(dist *d, int src, int *from, int *tag, size_t *len);
/* Takes the message dist_probe found into *buf, grown (realloc) to at
 * least its length; *cap is *buf's size. */
int dist_recv(dist *d, unsigned char **buf, size_t *cap, char *err, size_t errlen);

#endif

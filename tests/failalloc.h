/* Allocation failure on demand for the fault-injection suite
 * (tests/test_faults.c), and thread starts that fail alike. Linked only
 * into that suite, with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=posix_memalign
 *   -Wl,--wrap=pthread_create
 * so every call the library's objects (and the suite's) make to those six
 * goes through here first. Allocations made inside the C library (fopen,
 * open_memstream, getline, strdup) or by shared libraries (OpenBLAS) are
 * not wrapped and never fail. Thread-safe: the countdown is atomic, so
 * worker threads' allocations count in the order they happen. */
#ifndef SOWZERO_TESTS_FAILALLOC_H
#define SOWZERO_TESTS_FAILALLOC_H

/* What the countdown counts and fails: allocations (the default) or
 * thread starts (pthread_create then returns EAGAIN, as on a machine out
 * of threads). */
enum { FAILALLOC_MEMORY = 0, FAILALLOC_THREADS = 1 };
void failalloc_target(int what);
/* The n-th allocation from now fails (0: the next one), once; those
 * before and after it succeed. n < 0 disarms. */
void failalloc_arm(long n);
/* Disarms; 1 if an allocation failed since the last failalloc_arm. */
int failalloc_disarm(void);
/* Allocations made since the last failalloc_arm (failed one included). */
long failalloc_count(void);

#endif

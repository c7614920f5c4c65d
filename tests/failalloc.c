/* The wrapped allocators and thread start of tests/failalloc.h: each asks
 * the countdown whether it is the one to fail (when it is what the
 * countdown counts), then calls the real function. */
#include "tests/failalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
int __real_posix_memalign(void **out, size_t align, size_t size);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
int __wrap_posix_memalign(void **out, size_t align, size_t size);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static _Atomic long countdown = -1; /* allocations left before the failing one; < 0: disarmed */
static _Atomic long seen;
static _Atomic int failed;
static _Atomic int target = FAILALLOC_MEMORY;

void failalloc_target(int what) { atomic_store(&target, what); }

void failalloc_arm(long n) {
  atomic_store(&failed, 0);
  atomic_store(&seen, 0);
  atomic_store(&countdown, n);
}

int failalloc_disarm(void) {
  atomic_store(&countdown, -1);
  return atomic_load(&failed);
}

long failalloc_count(void) { return atomic_load(&seen); }

/* 1 for the call (of the kind counted) that must fail. The countdown is
 * taken down by compare-and-swap so that of two threads exactly one sees 0. */
static int fail_now(int kind) {
  long c = atomic_load(&countdown);
  if (c < 0 || atomic_load(&target) != kind) return 0;
  atomic_fetch_add(&seen, 1);
  while (c >= 0) {
    if (atomic_compare_exchange_weak(&countdown, &c, c - 1)) {
      if (c != 0) return 0;
      atomic_store(&failed, 1);
      return 1;
    }
  }
  return 0;
}

/* NULL with errno ENOMEM, as the real allocators fail. */
static void *refused(void) {
  errno = ENOMEM;
  return NULL;
}

void *__wrap_malloc(size_t size) {
  return fail_now(FAILALLOC_MEMORY) ? refused() : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size) {
  return fail_now(FAILALLOC_MEMORY) ? refused() : __real_calloc(n, size);
}

/* A failed realloc leaves p as it was, as the real one does. */
void *__wrap_realloc(void *p, size_t size) {
  return fail_now(FAILALLOC_MEMORY) ? refused() : __real_realloc(p, size);
}

void *__wrap_aligned_alloc(size_t align, size_t size) {
  return fail_now(FAILALLOC_MEMORY) ? refused() : __real_aligned_alloc(align, size);
}

int __wrap_posix_memalign(void **out, size_t align, size_t size) {
  return fail_now(FAILALLOC_MEMORY) ? ENOMEM : __real_posix_memalign(out, align, size);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
  return fail_now(FAILALLOC_THREADS) ? EAGAIN : __real_pthread_create(t, a, fn, arg);
}

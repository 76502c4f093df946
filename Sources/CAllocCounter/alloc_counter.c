// Interposes the allocator: the executable's definitions win over the C library's, for every library in the
// process (the Swift runtime included), and forward to glibc's own entry points.
#include "alloc_counter.h"
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_long allocations;
static atomic_int counting;

/* The process probe's: counting on this thread only, inside a probed call. */
static _Thread_local int thread_counting;
static _Thread_local long probe_start;
static atomic_long probe_allocations, probe_calls, probe_total_ns, probe_max_ns;

static inline void count(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
    if (thread_counting) {
        atomic_fetch_add_explicit(&probe_allocations, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void tempera_alloc_count_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}

long tempera_alloc_count_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000000000L + ts.tv_nsec;
}

void tempera_process_probe(int begin) {
    if (begin) {
        probe_start = now_ns();
        thread_counting = 1;
        return;
    }
    thread_counting = 0;
    long d = now_ns() - probe_start;
    atomic_fetch_add_explicit(&probe_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&probe_total_ns, d, memory_order_relaxed);
    long m = atomic_load_explicit(&probe_max_ns, memory_order_relaxed);
    while (d > m && !atomic_compare_exchange_weak(&probe_max_ns, &m, d)) {}
}

void tempera_process_probe_reset(void) {
    atomic_store(&probe_allocations, 0);
    atomic_store(&probe_calls, 0);
    atomic_store(&probe_total_ns, 0);
    atomic_store(&probe_max_ns, 0);
}

long tempera_process_probe_read(long *calls, long *total_ns, long *max_ns) {
    *calls = atomic_load(&probe_calls);
    *total_ns = atomic_load(&probe_total_ns);
    *max_ns = atomic_load(&probe_max_ns);
    return atomic_load(&probe_allocations);
}

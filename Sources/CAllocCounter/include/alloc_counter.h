#ifndef TEMPERA_ALLOC_COUNTER_H
#define TEMPERA_ALLOC_COUNTER_H
/// Counts calls to malloc, calloc, realloc and the aligned allocators made by any thread of the process while
/// counting is on. Linked into the benchmark only: it replaces the C library's allocator entry points.
void tempera_alloc_count_start(void);
long tempera_alloc_count_stop(void);

/// A probe around one call of a real-time callback (the JACK process callback's hook): `begin` 1 as the call
/// starts, 0 as it ends, on the callback's thread. Between the two, that thread's allocations are counted, and
/// the call's duration is measured.
void tempera_process_probe(int begin);
/// Forgets what the probe measured so far.
void tempera_process_probe_reset(void);
/// What the probe measured since the reset: the calls, their total and longest durations (nanoseconds); returns
/// the allocations counted inside them.
long tempera_process_probe_read(long *calls, long *total_ns, long *max_ns);
#endif

#ifndef TEMPERA_ALLOC_COUNTER_H
#define TEMPERA_ALLOC_COUNTER_H
/// Counts calls to malloc, calloc, realloc and the aligned allocators made by any thread of the process while
/// counting is on. Linked into the benchmark only: it replaces the C library's allocator entry points.
void tempera_alloc_count_start(void);
long tempera_alloc_count_stop(void);
#endif

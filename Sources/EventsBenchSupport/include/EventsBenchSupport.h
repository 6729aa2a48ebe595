// Measurement helpers for the events-bench executable: a heap allocation counter and a reading
// of the heap's live bytes. Both work on Linux with glibc; elsewhere they report "unsupported"
// and the benchmark prints "n/a on this platform" instead of a number.
#ifndef EVENTS_BENCH_SUPPORT_H
#define EVENTS_BENCH_SUPPORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when allocations can be counted on this platform (this executable replaces the C
/// allocator's entry points), 0 otherwise.
int ebs_allocation_counting_supported(void);

/// Starts counting heap allocations made by the calling thread, from zero.
void ebs_allocation_counting_begin(void);

/// Stops counting on the calling thread and returns the number of allocation calls (malloc,
/// calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc) made since the matching
/// `ebs_allocation_counting_begin`.
uint64_t ebs_allocation_counting_end(void);

/// 1 when `ebs_heap_bytes_in_use` reports real figures, 0 otherwise.
int ebs_heap_usage_supported(void);

/// Bytes the allocator currently has handed out: `mallinfo2()`'s `uordblks` (small blocks in
/// every arena) plus `hblkhd` (large blocks served by mmap). 0 when unsupported.
uint64_t ebs_heap_bytes_in_use(void);

#ifdef __cplusplus
}
#endif

#endif

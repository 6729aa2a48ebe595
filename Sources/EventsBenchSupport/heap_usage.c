// Reads how many bytes the heap has handed out, to measure the memory a batch of registrations
// keeps alive: read before, register, read after, divide the difference.

#include "EventsBenchSupport.h"

#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))

#include <malloc.h>

int ebs_heap_usage_supported(void) { return 1; }

uint64_t ebs_heap_bytes_in_use(void) {
    // mallinfo2 sums every arena. `uordblks` is the space in use in the arenas' chunks (chunk
    // headers included); `hblkhd` is the space in blocks big enough that malloc served them with
    // mmap, such as the storage of an array of 100,000 references.
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
}

#else

int ebs_heap_usage_supported(void) { return 0; }

uint64_t ebs_heap_bytes_in_use(void) { return 0; }

#endif

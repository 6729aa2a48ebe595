// Counts heap allocations by replacing the C allocator's entry points in the executable.
//
// How it works: on Linux, a symbol defined in the executable takes precedence over the same
// symbol in any shared library, for every library in the process (ELF symbol interposition).
// So `malloc` below is the `malloc` that libswiftCore, Foundation and Dispatch call too. Each
// replacement forwards to glibc's own implementation through its exported `__libc_*` entry
// points (no dlsym, which could itself allocate and recurse) and, when the calling thread has
// counting switched on, adds one to that thread's counter.
//
// Why per thread: the scenarios measured this way are synchronous dispatches on the measuring
// thread, so a thread-local flag and counter attribute exactly their allocations and nothing a
// background thread (Dispatch's workers, the Swift concurrency pool) happens to do meanwhile.
// The thread-local variables use the initial-exec model: their storage is reserved when the
// thread starts, so reading them from inside malloc can never allocate.
//
// `free` is left alone: glibc's free releases blocks from `__libc_malloc` and friends as usual.

#include "EventsBenchSupport.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread int counting __attribute__((tls_model("initial-exec")));
static __thread uint64_t counted __attribute__((tls_model("initial-exec")));

static inline void note_allocation(void) {
    if (counting) {
        counted += 1;
    }
}

void *malloc(size_t size) {
    note_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note_allocation();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note_allocation();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note_allocation();
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
    note_allocation();
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // The contract of posix_memalign: a power of two that is a multiple of sizeof(void *).
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    note_allocation();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

int ebs_allocation_counting_supported(void) { return 1; }

void ebs_allocation_counting_begin(void) {
    counted = 0;
    counting = 1;
}

uint64_t ebs_allocation_counting_end(void) {
    counting = 0;
    return counted;
}

#else

// No replacement allocator here: on Apple platforms two-level namespaces stop an executable
// from interposing libSystem's malloc, and other C libraries do not export the entry points
// used above. Report "unsupported" and count nothing.

int ebs_allocation_counting_supported(void) { return 0; }

void ebs_allocation_counting_begin(void) {}

uint64_t ebs_allocation_counting_end(void) { return 0; }

#endif

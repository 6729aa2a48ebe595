#if canImport(Darwin)
    import Darwin
#else
    import Synchronization
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif
#endif

// The lock for critical sections of a few instructions that are almost never contended: the
// read stripes (a stripe belongs to one dispatching thread, and writers take it briefly), the
// registry's table (held for one table operation; dispatch reads through the stripes) and the
// stream buffer (its producer and consumer each take it briefly). These are on the dispatch
// path, so an uncontended acquire and release must cost as little as the platform allows.
//
// Same rule as `Lock`: never run user code while holding it.

#if canImport(Darwin)
    /// On Apple platforms, an `os_unfair_lock`: its uncontended acquire is one atomic operation,
    /// and a waiter blocks in the kernel, which knows the owner and lends it the waiter's
    /// priority. A spinning or yielding waiter could keep a lower-priority owner from ever
    /// running again (the scheduler's QoS classes make that inversion real there).
    final class SpinLock: @unchecked Sendable {
        // Why @unchecked is safe: the lock lives at a stable heap address for the object's whole
        // life and is only touched through the `os_unfair_lock` calls, which are thread-safe.
        //
        // The storage is two cache lines of its own, aligned to them: the stripes' locks are
        // written by different threads, and sharing a line would bring back the contention
        // they exist to avoid.
        private let unfair: os_unfair_lock_t

        init() {
            unfair = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
                .bindMemory(to: os_unfair_lock.self, capacity: 1)
            unfair.initialize(to: os_unfair_lock())
        }

        deinit {
            unfair.deinitialize(count: 1)
            UnsafeMutableRawPointer(unfair).deallocate()
        }

        @inline(__always)
        func lock() {
            os_unfair_lock_lock(unfair)
        }

        @inline(__always)
        func unlock() {
            os_unfair_lock_unlock(unfair)
        }

        @inline(__always)
        func withLock<T>(_ body: () throws -> T) rethrows -> T {
            lock()
            defer { unlock() }
            return try body()
        }
    }
#else
    /// Elsewhere, a test-and-set lock on an `Atomic`, which the thread sanitizer understands: an
    /// uncontended acquire is one atomic exchange, where a pthread mutex costs a library call.
    /// Under contention a waiter yields the processor instead of spinning hot; Linux's fair
    /// scheduler gives every runnable thread its share, so the owner still runs and releases.
    final class SpinLock: Sendable {
        // Padding on both sides keeps `held` on a cache line of its own: the stripes' locks are
        // written by different threads, and sharing a line would bring back the contention they
        // exist to avoid.
        private let paddingBefore: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0)
        private let held = Atomic<Bool>(false)
        private let paddingAfter: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0)

        @inline(__always)
        func lock() {
            while held.exchange(true, ordering: .acquiring) {
                // Wait for a release without writing, then try again.
                while held.load(ordering: .relaxed) { sched_yield() }
            }
        }

        @inline(__always)
        func unlock() {
            held.store(false, ordering: .releasing)
        }

        @inline(__always)
        func withLock<T>(_ body: () throws -> T) rethrows -> T {
            lock()
            defer { unlock() }
            return try body()
        }
    }
#endif

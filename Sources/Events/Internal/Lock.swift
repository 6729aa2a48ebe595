#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutual-exclusion lock whose waiters sleep in the kernel: for critical sections that may be
/// contended or longer than a few instructions.
///
/// On Apple platforms it is an `os_unfair_lock`, which lends a waiter's priority to the owner,
/// so a low-priority owner cannot hold up a high-priority waiter indefinitely. Elsewhere it is a
/// `pthread_mutex_t`. `Synchronization.Mutex` would do the same job, but the thread sanitizer
/// shipped with the Linux toolchain does not see its lock operations and reports false races; a
/// pthread mutex is intercepted by the sanitizer, so the suite stays clean under
/// `--sanitize=thread`.
///
/// Rule for every caller: never run user code (handlers, `==` of user types, deinitializers
/// reachable through a released reference) while holding it. Unlock on the thread that locked.
package final class Lock: @unchecked Sendable {
    // Safe to share: the lock lives at a stable heap address for the object's whole life and is
    // only touched through the platform's lock calls, which are thread-safe by definition.
    #if canImport(Darwin)
        private let unfair: os_unfair_lock_t

        package init() {
            unfair = .allocate(capacity: 1)
            unfair.initialize(to: os_unfair_lock())
        }

        deinit {
            unfair.deinitialize(count: 1)
            unfair.deallocate()
        }

        @inline(__always)
        package func lock() {
            os_unfair_lock_lock(unfair)
        }

        @inline(__always)
        package func unlock() {
            os_unfair_lock_unlock(unfair)
        }
    #else
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>

        package init() {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        @inline(__always)
        package func lock() {
            let status = pthread_mutex_lock(mutex)
            assert(status == 0, "pthread_mutex_lock failed: \(status)")
        }

        @inline(__always)
        package func unlock() {
            let status = pthread_mutex_unlock(mutex)
            assert(status == 0, "pthread_mutex_unlock failed: \(status)")
        }
    #endif

    /// Runs `body` with the lock held. `body` must not call user code.
    @inline(__always)
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

// Foundation brings the platform's C library (pthreads) on every platform the package
// supports, so this file, and every other in this module, has no platform branches.
import Foundation

/// A mutual-exclusion lock whose waiters sleep in the kernel: for critical sections that may be
/// contended or longer than a few instructions.
///
/// It is a `pthread_mutex_t`, which exists on every platform the package supports, so one
/// implementation is compiled and tested everywhere. `Synchronization.Mutex` would do the same
/// job, but the thread sanitizer shipped with the Linux toolchain does not see its lock
/// operations and reports false races; a pthread mutex is intercepted by the sanitizer, so the
/// suite stays clean under `--sanitize=thread`.
///
/// Rule for every caller: never run user code (handlers, `==` of user types, deinitializers
/// reachable through a released reference) while holding it. Unlock on the thread that locked.
package final class Lock: @unchecked Sendable {
    // Safe to share: the mutex lives at a stable heap address for the object's whole life and is
    // only touched through the pthread calls, which are thread-safe by definition.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
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

    /// Runs `body` with the lock held. `body` must not call user code.
    @inline(__always)
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

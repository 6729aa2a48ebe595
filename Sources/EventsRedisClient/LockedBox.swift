import Foundation

/// A value that is only ever read or written with its own lock held.
///
/// The box is how the client's classes stay `Sendable` by construction: their mutable state
/// lives in one of these, and the only way to reach it is ``withLock(_:)``. The bridge keeps
/// some of its own state in one too, which is why it is `package`.
///
/// The lock is a `pthread_mutex_t` (Foundation brings the POSIX calls on every platform the
/// package supports, so no platform branch is needed). `Synchronization.Mutex` would do the
/// same job, but the thread sanitizer shipped with the Linux toolchain does not see its lock
/// operations and reports false races; a pthread mutex is intercepted by the sanitizer. The
/// client has its own lock rather than the `Events` one so that it depends on the toolchain
/// alone.
package final class LockedBox<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
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

    /// Runs `body` with exclusive access to the value. `body` must not resume continuations,
    /// yield to streams or call user code.
    @inline(__always)
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
        defer {
            let status = pthread_mutex_unlock(mutex)
            assert(status == 0, "pthread_mutex_unlock failed: \(status)")
        }
        return try body(&value)
    }
}

// Safe to share when the value itself may cross threads: `value` is private and every access
// goes through `withLock`, which holds the mutex for the whole access. The mutex lives at a
// stable heap address for the box's whole life and is only touched through the pthread calls.
extension LockedBox: @unchecked Sendable where Value: Sendable {}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock over `pthread_mutex_t` for the Redis client's shared state.
///
/// The thread sanitizer on the Linux toolchain does not see `Synchronization.Mutex`, so a
/// pthread mutex keeps the suite clean under `--sanitize=thread`.
///
/// Rule for every caller: never resume a continuation, yield to a stream or run user code while
/// holding it; copy what you need, unlock, then act.
final class RedisLock: @unchecked Sendable {
    // Safe to share: the mutex lives at a stable heap address for the lock's whole life and is
    // only touched through pthread calls, which are thread-safe by definition.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
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
    func lock() {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    @inline(__always)
    func unlock() {
        let status = pthread_mutex_unlock(mutex)
        assert(status == 0, "pthread_mutex_unlock failed: \(status)")
    }

    /// Runs `body` with the lock held.
    @inline(__always)
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

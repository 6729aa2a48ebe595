import Events

/// The stream entries whose listeners failed, waiting for their next delivery. They stay
/// pending in Redis meanwhile; this only says when to fetch each again.
///
/// Only the consumer's task changes it; the lock lets ``count`` be read from elsewhere (the
/// statistics, and a stopping bridge reporting what it leaves pending).
final class RetrySchedule: Sendable {
    struct Retry: Sendable {
        let key: String
        let id: String
        let due: ContinuousClock.Instant
        /// How long it waits since its last delivery: the least idle time to claim it with, so
        /// that an entry another consumer took meanwhile is left with it.
        let wait: Duration
    }

    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var retries: [Retry] = []

    var count: Int { lock.withLock { retries.count } }

    /// When the next retry is due, if any.
    var nextDue: ContinuousClock.Instant? { lock.withLock { retries.lazy.map(\.due).min() } }

    func add(_ retry: Retry) {
        lock.withLock { retries.append(retry) }
    }

    /// Removes and returns the retries due at `now`, in the order they were scheduled.
    func takeDue(at now: ContinuousClock.Instant) -> [Retry] {
        lock.withLock {
            let due = retries.filter { $0.due <= now }
            guard !due.isEmpty else { return [] }
            retries.removeAll { $0.due <= now }
            return due
        }
    }

    /// Removes and returns every retry (the consumer sets up again, and re-reads every pending
    /// entry of its own, these included).
    func removeAll() -> [Retry] {
        lock.withLock {
            defer { retries = [] }
            return retries
        }
    }
}

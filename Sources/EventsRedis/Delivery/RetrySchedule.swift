import Events

/// The stream entries whose listeners failed, waiting for their next delivery. They stay
/// pending in Redis meanwhile; this only says when to fetch each again, and when to reset its
/// idle time so that no claim takes it from this live consumer before then.
///
/// Only the consumer's task changes it; the lock lets ``count`` be read from elsewhere (the
/// statistics, and a stopping bridge reporting what it leaves pending).
final class RetrySchedule: Sendable {
    struct Retry: Sendable {
        let key: String
        let id: String
        let due: ContinuousClock.Instant
        /// The delivery count Redis had for it after the delivery that failed.
        let deliveryCount: Int
        /// When Redis last reset its idle time, at the latest (a local instant taken after
        /// Redis did): its idle time in Redis is at least the time since, the least idle time
        /// to claim it with, so that an entry another consumer took meanwhile is left with it.
        var touched: ContinuousClock.Instant
        /// When to reset its idle time next: at once for a new retry (it was idle while its
        /// listeners ran), then a keeping interval after each reset.
        var keepBy: ContinuousClock.Instant

        /// The least idle time, in milliseconds, that the entry has in Redis at `now` if no
        /// other consumer took it since ``touched``.
        func idleMilliseconds(at now: ContinuousClock.Instant) -> Int {
            // Redis counts whole milliseconds: one less leaves room for the rounding.
            max(0, (now - touched).wholeMilliseconds - 1)
        }

        /// Whether it must be touched again before it falls due.
        var needsKeeping: Bool { keepBy < due }
    }

    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var retries: [Retry] = []

    var count: Int { lock.withLock { retries.count } }

    /// When the next retry is due, if any.
    var nextDue: ContinuousClock.Instant? { lock.withLock { retries.lazy.map(\.due).min() } }

    /// When the next retry that is not yet due must be touched.
    var nextKeeping: ContinuousClock.Instant? {
        lock.withLock { retries.lazy.filter(\.needsKeeping).map(\.keepBy).min() }
    }

    func add(_ retry: Retry) {
        lock.withLock { retries.append(retry) }
    }

    /// The retry of the entry `id` of stream `key`, if it waits here.
    func retry(key: String, id: String) -> Retry? {
        lock.withLock { retries.first { $0.id == id && $0.key == key } }
    }

    /// The retries to touch at `now`, in the order they were scheduled.
    func toKeep(at now: ContinuousClock.Instant) -> [Retry] {
        lock.withLock { retries.filter { $0.needsKeeping && $0.keepBy <= now } }
    }

    /// Notes that Redis reset the idle time of the entry `id` of stream `key` before `instant`,
    /// to be reset again `interval` later.
    func touch(key: String, id: String, at instant: ContinuousClock.Instant, keepingEvery interval: Duration) {
        lock.withLock {
            for index in retries.indices where retries[index].id == id && retries[index].key == key {
                retries[index].touched = instant
                retries[index].keepBy = instant + interval
            }
        }
    }

    /// Removes the retry of the entry `id` of stream `key` (no longer pending with this
    /// consumer).
    func remove(key: String, id: String) {
        lock.withLock { retries.removeAll { $0.id == id && $0.key == key } }
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

import Events

extension RedisBridge {
    /// A snapshot of ``statistics`` at once and then every `interval`, until the bridge has
    /// stopped: for feeding a metrics system that expects values pushed to it.
    ///
    /// ```swift
    /// let reporting = Task {
    ///     for await statistics in bridge.statisticsUpdates(every: .seconds(10)) {
    ///         print(statistics)
    ///     }
    /// }
    /// ```
    ///
    /// Rules:
    /// - The first snapshot comes at once; each next one `interval` after the one before it
    ///   was due (a slow consumer is given the current snapshot when it asks, not a backlog of
    ///   old ones).
    /// - After ``stop(drainTimeout:)`` (or ``shutdown(drainTimeout:)``) has finished, the
    ///   sequence gives one last snapshot (with what the stop left, in
    ///   ``Statistics/unpublishedAtStop``) and ends. It ends too when the bridge is let go, and
    ///   when the task iterating it is cancelled.
    /// - The sequence does not keep the bridge alive. Iterate it from one task.
    public func statisticsUpdates(every interval: Duration) -> AsyncStream<Statistics> {
        let schedule = SnapshotSchedule(interval: interval)
        return AsyncStream(unfolding: { [weak self] in
            guard case .after(let wait) = schedule.next(), !Task.isCancelled else { return nil }
            if wait > .zero {
                // Checks for a stop while waiting, so that the last snapshot comes soon after it.
                let deadline = ContinuousClock.now + wait
                while ContinuousClock.now < deadline, self?.isStopped == false {
                    try? await Task.sleep(for: min(deadline - .now, .milliseconds(50)))
                    if Task.isCancelled { return nil }
                }
            }
            guard let bridge = self else { return nil }
            if bridge.isStopped { schedule.finish() }
            return bridge.statistics
        })
    }
}

/// When `statisticsUpdates(every:)` gives its next snapshot.
private final class SnapshotSchedule: Sendable {
    private let interval: Duration
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var nextDue: ContinuousClock.Instant?
    nonisolated(unsafe) private var finished = false

    init(interval: Duration) {
        self.interval = max(interval, .milliseconds(1))
    }

    enum Next {
        /// The next snapshot is due after this wait (zero for the first).
        case after(Duration)
        /// The last snapshot was given.
        case done
    }

    func next() -> Next {
        lock.withLock {
            guard !finished else { return .done }
            let now = ContinuousClock.now
            guard var due = nextDue else {
                nextDue = now + interval
                return .after(.zero)
            }
            // A consumer that fell behind skips the snapshots it missed.
            while due + interval <= now { due += interval }
            nextDue = due + interval
            return .after(max(due - now, .zero))
        }
    }

    /// The snapshot being given is the last one.
    func finish() {
        lock.withLock { finished = true }
    }
}

/// What a ``TestClock`` holds behind its lock: its time, its sleepers and the tasks waiting for
/// sleepers.
///
/// A sleep or an observer is reserved (an id) before its task suspends, so that a cancellation
/// arriving in between is kept and honoured when it suspends. Every transition returns the
/// continuations to resume after the lock is released.
struct ClockState {
    typealias Resumption = (CheckedContinuation<Void, any Error>, Result<Void, any Error>)

    var now = TestClock.Instant.zero
    private var nextID: UInt64 = 0
    private var sleepers: [UInt64: Entry] = [:]
    private var observers: [UInt64: Observer] = [:]

    private enum Entry {
        /// Reserved; the task has not suspended yet.
        case reserved
        /// Cancelled before the task suspended.
        case cancelled
        case sleeping(deadline: TestClock.Instant, CheckedContinuation<Void, any Error>)
    }

    private struct Observer {
        let count: Int
        var continuation: CheckedContinuation<Void, any Error>?
        var isCancelled = false
    }

    var sleeperCount: Int {
        sleepers.values.count { if case .sleeping = $0 { true } else { false } }
    }

    /// The suspended sleepers' deadlines, earliest first.
    var deadlines: [TestClock.Instant] {
        sleepingByDeadline.map(\.deadline)
    }

    /// The sleepers in the order they wake: by deadline, then in the order they began.
    private var sleepingByDeadline: [(id: UInt64, deadline: TestClock.Instant)] {
        sleepers.compactMap { id, entry in
            if case .sleeping(let deadline, _) = entry { (id, deadline) } else { nil }
        }
        .sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
    }

    mutating func reserve() -> UInt64 {
        nextID += 1
        sleepers[nextID] = .reserved
        return nextID
    }

    /// The task of sleep `id` suspends. Returns the outcome to resume it with at once (its
    /// deadline has passed, or it was cancelled), and the observers its sleep satisfies.
    mutating func suspend(
        _ id: UInt64, until deadline: TestClock.Instant, _ continuation: CheckedContinuation<Void, any Error>
    ) -> (Result<Void, any Error>?, [Resumption]) {
        guard case .reserved = sleepers[id] else {
            sleepers[id] = nil
            return (.failure(CancellationError()), [])
        }
        if deadline <= now {
            sleepers[id] = nil
            return (.success(()), [])
        }
        sleepers[id] = .sleeping(deadline: deadline, continuation)
        return (nil, satisfiedObservers())
    }

    /// Cancels sleep `id`: returns its continuation when it is suspended.
    mutating func cancel(_ id: UInt64) -> [Resumption]? {
        switch sleepers[id] {
        case .reserved?:
            sleepers[id] = .cancelled
            return nil
        case .sleeping(_, let continuation)?:
            sleepers[id] = nil
            return [(continuation, .failure(CancellationError()))]
        case .cancelled?, nil:
            return nil
        }
    }

    /// Sets the time to `instant` (unless it is earlier) and returns the sleepers it wakes, in
    /// deadline order.
    mutating func advance(to instant: TestClock.Instant) -> [Resumption] {
        guard instant > now else { return [] }
        now = instant
        var due: [Resumption] = []
        for (id, deadline) in sleepingByDeadline where deadline <= now {
            if case .sleeping(_, let continuation)? = sleepers.removeValue(forKey: id) {
                due.append((continuation, .success(())))
            }
        }
        return due
    }

    /// Reserves an observer waiting for `count` sleepers, or returns nil when there are that
    /// many already.
    mutating func reserveObserver(count: Int) -> UInt64? {
        guard sleeperCount < count else { return nil }
        nextID += 1
        observers[nextID] = Observer(count: count)
        return nextID
    }

    mutating func suspendObserver(
        _ id: UInt64, _ continuation: CheckedContinuation<Void, any Error>
    ) -> Result<Void, any Error>? {
        guard let observer = observers[id] else { return .success(()) }
        if observer.isCancelled {
            observers[id] = nil
            return .failure(CancellationError())
        }
        if sleeperCount >= observer.count {
            observers[id] = nil
            return .success(())
        }
        observers[id]?.continuation = continuation
        return nil
    }

    mutating func cancelObserver(_ id: UInt64) -> [Resumption]? {
        guard let observer = observers[id] else { return nil }
        guard let continuation = observer.continuation else {
            observers[id]?.isCancelled = true
            return nil
        }
        observers[id] = nil
        return [(continuation, .failure(CancellationError()))]
    }

    private mutating func satisfiedObservers() -> [Resumption] {
        let sleeping = sleeperCount
        var satisfied: [Resumption] = []
        for (id, observer) in observers where observer.count <= sleeping {
            guard let continuation = observer.continuation else { continue }
            observers[id] = nil
            satisfied.append((continuation, .success(())))
        }
        return satisfied
    }
}

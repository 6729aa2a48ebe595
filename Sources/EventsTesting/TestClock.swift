/// A clock whose time moves only when the test moves it: timeouts and delays in a test then
/// take no real time and happen exactly when the test says.
///
/// Pass it wherever a wait takes a clock, then advance it past the deadline:
///
/// ```swift
/// let clock = TestClock()
/// let recorder = EventRecorder(of: PostWritten.self, in: center)
/// let waiting = Task { try await recorder.next(timeout: .seconds(5), clock: clock) }
/// try await clock.waitForSleepers(count: 1)   // the wait has started its timeout
/// clock.advance(by: .seconds(5))               // and now it has passed
/// await #expect(throws: EventRecorderError.self) { try await waiting.value }
/// ```
///
/// Rules:
/// - ``now`` starts at ``Instant/zero`` and changes only through ``advance(by:)`` and
///   ``advance(to:)``; time never goes back.
/// - A sleeper wakes when time reaches or passes its deadline. The sleepers one advance wakes
///   are resumed in deadline order (equal deadlines in the order they began sleeping), after
///   `now` has taken its new value; they then run as their executors schedule them.
/// - `sleep` honours cancellation: a cancelled sleeper wakes at once with `CancellationError`
///   and no longer counts as a sleeper.
/// - To advance without racing the code under test, first wait until it sleeps:
///   ``waitForSleepers(count:)``.
public final class TestClock: Clock, Sendable, CustomStringConvertible {
    public typealias Duration = Swift.Duration

    /// A point in the time of a ``TestClock``: how far it has been advanced from its start.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// The time since the clock's start.
        public let offset: Duration

        /// Creates the instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The clock's start.
        public static var zero: Instant { Instant(offset: .zero) }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// The offset from the clock's start: `2.5 seconds`.
        public var description: String { "\(offset)" }
    }

    private let state = LockedState(ClockState())

    /// Creates a clock at ``Instant/zero``.
    public init() {}

    /// The current time: the clock's start plus every advance so far.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock keeps every deadline exactly.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are suspended in ``sleep(until:tolerance:)`` right now.
    public var sleeperCount: Int { state.withLock { $0.sleeperCount } }

    /// The deadlines of the suspended sleepers, earliest first.
    public var deadlines: [Instant] { state.withLock { $0.deadlines } }

    /// Suspends until the clock's time reaches `deadline`; returns at once when it already has.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before, or while, it sleeps.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.reserve() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (ready, observers) = state.withLock { $0.suspend(id, until: deadline, continuation) }
                observers.resumeAll()
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            state.withLock { $0.cancel(id) }?.resumeAll()
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline it reaches.
    /// A negative duration does nothing: time never goes back.
    public func advance(by duration: Duration) {
        let due = state.withLock { $0.advance(to: $0.now.advanced(by: max(duration, .zero))) }
        due.resumeAll()
    }

    /// Moves time forward to `instant` and wakes every sleeper whose deadline it reaches. An
    /// instant before ``now`` does nothing: time never goes back.
    public func advance(to instant: Instant) {
        let due = state.withLock { $0.advance(to: instant) }
        due.resumeAll()
    }

    /// Moves time to the earliest deadline of a suspended sleeper, and wakes the sleepers of
    /// that deadline. Returns false, and does nothing, when nothing sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        let due = state.withLock { state -> [ClockState.Resumption]? in
            guard let next = state.deadlines.first else { return nil }
            return state.advance(to: next)
        }
        due?.resumeAll()
        return due != nil
    }

    /// Waits until at least `count` tasks are suspended in ``sleep(until:tolerance:)``.
    ///
    /// ```swift
    /// let waiting = Task { try await recorder.waitFor(count: 2, timeout: .seconds(1), clock: clock) }
    /// try await clock.waitForSleepers(count: 1)
    /// clock.advance(by: .seconds(1))
    /// ```
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func waitForSleepers(count: Int) async throws {
        try Task.checkCancellation()
        guard let id = state.withLock({ $0.reserveObserver(count: count) }) else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if let ready = state.withLock({ $0.suspendObserver(id, continuation) }) {
                    continuation.resume(with: ready)
                }
            }
        } onCancel: {
            state.withLock { $0.cancelObserver(id) }?.resumeAll()
        }
    }

    /// `TestClock(now: 1.5 seconds, 2 sleepers)`.
    public var description: String {
        let (now, sleepers) = state.withLock { ($0.now, $0.sleeperCount) }
        return "TestClock(now: \(now), \(sleepers) \(sleepers == 1 ? "sleeper" : "sleepers"))"
    }
}

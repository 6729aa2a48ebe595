/// The meeting point of ``EventCenter/next(_:from:where:timeout:isolation:file:line:)``: the
/// first of event, timeout or cancellation wins, whether it comes before the task waits or after.
final class NextEventWaiter<E: Event>: @unchecked Sendable {
    // Why @unchecked is safe: `state` is only touched inside `lock`; a continuation leaves the
    // state in the same hold of the lock that hands it out, and is resumed once, after unlocking.
    private let lock = Lock()
    private var state = State.waiting(nil)

    /// *waiting*, with the task's continuation once it suspends; *finished* with the outcome that
    /// won. Only the first `finish` moves from one to the other.
    private enum State {
        case waiting(CheckedContinuation<E, any Error>?)
        case finished(Result<E, any Error>)

        /// The first outcome wins; returns the suspended task to resume with it, if any.
        mutating func finish(_ outcome: Result<E, any Error>) -> CheckedContinuation<E, any Error>? {
            guard case .waiting(let continuation) = self else { return nil }
            self = .finished(outcome)
            return continuation
        }

        /// The task suspends; returns the outcome to resume it with at once when one has won.
        mutating func suspend(_ continuation: CheckedContinuation<E, any Error>) -> Result<E, any Error>? {
            switch self {
            case .waiting:
                self = .waiting(continuation)
                return nil
            case .finished(let outcome):
                return outcome
            }
        }
    }

    func finish(_ outcome: Result<E, any Error>) {
        let waiting = lock.withLock { state.finish(outcome) }
        waiting?.resume(with: outcome)
    }

    func wait() async throws -> E {
        try await withCheckedThrowingContinuation { continuation in
            let ready = lock.withLock { state.suspend(continuation) }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

import Events

/// A value behind the package's pthread lock: the state of a recorder or a test clock.
///
/// `Synchronization.Mutex` would do, but the thread sanitizer of the Linux toolchain does not
/// see its lock operations; the package's `Lock` it does.
final class LockedState<State>: @unchecked Sendable {
    // Why @unchecked is safe: `state` is only read or written inside `withLock`, which holds
    // `lock` for the whole access, and no reference to it escapes the closure.
    private let lock = Lock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the lock held. `body` must not run user code or resume a continuation:
    /// it returns what to do once the lock is released.
    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&state) }
    }
}

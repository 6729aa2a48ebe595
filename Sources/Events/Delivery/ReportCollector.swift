/// Collects the outcome of one awaitable dispatch: handlers finish on many threads and actors,
/// and the dispatching task resumes once the last one is done.
///
/// The state and its transitions are ``ReportCollectorStateMachine``; this class holds it
/// behind a lock and resumes the dispatching task, when a transition says so, after unlocking.
@usableFromInline
final class ReportCollector: @unchecked Sendable {
    // Why @unchecked is safe: `state` is only touched inside `lock`; the continuation a
    // transition hands out has left the state in the same hold of the lock, and is resumed
    // once, after unlocking.
    private let lock = Lock()
    private var state = ReportCollectorStateMachine()

    /// A queued delivery has been handed to its context; `recordRun` or `recordSkip` must follow
    /// for it, with `queued: true`.
    func begin() {
        lock.withLock { state.begin() }
    }

    /// A handler ran (synchronously, or from a queued delivery that had called `begin`).
    @usableFromInline
    func recordRun(_ failure: ListenerFailure?, queued: Bool) {
        // A synchronous run cannot end the wait (the dispatching task has not sealed yet), so it
        // builds no action: an action holds a `CheckedContinuation`, whose layout is opaque
        // outside its module, and every dispatch would handle one through value witnesses.
        guard queued else {
            lock.withLock { state.recordRun(failure) }
            return
        }
        let action = lock.withLock {
            state.recordRun(failure)
            return state.finishQueued()
        }
        action.run()
    }

    /// A posting-thread listener stopped propagation; the dispatch reached no listener after it.
    @usableFromInline
    func recordStop(by listener: ListenerRecord) {
        lock.withLock { state.stopper = listener }
    }

    /// A delivery was skipped (its listener ended before its turn).
    func recordSkip(queued: Bool) {
        guard queued else { return }
        let action = lock.withLock { state.finishQueued() }
        action.run()
    }

    /// Waits until every delivery begun so far has finished, on the caller's executor.
    nonisolated(nonsending) func wait() async -> DispatchReport {
        // When every handler ran synchronously, there is nothing to wait for: returning without
        // a continuation, and without leaving the caller's actor, spares the task a suspension
        // and its rescheduling, which cost more than the dispatch itself (a bridge reading a
        // stream pays it per event).
        if let finished = lock.withLock({ state.seal() }) { return finished }
        return await withCheckedContinuation { continuation in
            let action = lock.withLock { state.suspend(continuation) }
            action.run()
        }
    }
}

/// The state of a ``ReportCollector``: what the handlers reported, how many queued deliveries
/// are still out, and the dispatching task once it waits.
///
/// Every transition runs under the collector's lock and returns what to do after unlocking;
/// none resumes the continuation itself. States: *collecting* (the dispatch is still handing
/// the event out), *sealed* (the dispatching task asked for the report; it waits while queued
/// deliveries are out) and *reported* (the task was resumed, or returned the report at once).
struct ReportCollectorStateMachine {
    private var pending = 0
    private var received = 0
    private var failures: [ListenerFailure] = []
    /// The listener that stopped propagation, if one did.
    var stopper: ListenerRecord?
    private var sealed = false
    private var continuation: CheckedContinuation<DispatchReport, Never>?

    /// What the caller of a transition does after unlocking.
    enum Action {
        case none
        /// Resume the dispatching task with its report.
        case resume(CheckedContinuation<DispatchReport, Never>, DispatchReport)

        func run() {
            if case .resume(let continuation, let report) = self { continuation.resume(returning: report) }
        }
    }

    private var report: DispatchReport { DispatchReport(received: received, failures: failures, stopper: stopper) }

    /// A queued delivery was handed to its context.
    mutating func begin() {
        pending += 1
    }

    /// A handler ran. A queued delivery then also calls `finishQueued()`.
    mutating func recordRun(_ failure: ListenerFailure?) {
        received += 1
        if let failure { failures.append(failure) }
    }

    /// A queued delivery finished (it ran, or was skipped). The last one after the seal resumes
    /// the waiting task.
    mutating func finishQueued() -> Action {
        pending -= 1
        guard sealed, pending == 0, let continuation else { return .none }
        self.continuation = nil
        return .resume(continuation, report)
    }

    /// The dispatching task asks for the report: returns it when nothing is out (the task then
    /// does not suspend), nil when it must wait.
    mutating func seal() -> DispatchReport? {
        sealed = true
        return pending == 0 ? report : nil
    }

    /// The dispatching task waits with `continuation`, after `seal()` returned nil. The last
    /// queued delivery may have finished since (it found no continuation): then it resumes at once.
    mutating func suspend(_ continuation: CheckedContinuation<DispatchReport, Never>) -> Action {
        if pending == 0 { return .resume(continuation, report) }
        self.continuation = continuation
        return .none
    }
}

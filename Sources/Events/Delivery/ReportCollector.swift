/// Collects the outcome of one awaitable dispatch: handlers finish on many threads and actors,
/// and the dispatching task resumes once the last one is done.
@usableFromInline
final class ReportCollector: @unchecked Sendable {
    // Why @unchecked is safe: every mutable property is only touched inside `lock`, and the
    // continuation is resumed outside it, exactly once (it is taken out under the lock).
    private let lock = Lock()
    private var pending = 0
    private var received = 0
    private var failures: [ListenerFailure] = []
    private var sealed = false
    private var continuation: CheckedContinuation<DispatchReport, Never>?

    /// A queued delivery has been handed to its context; `finish` must be called for it.
    func begin() {
        lock.withLock { pending += 1 }
    }

    /// A handler ran (synchronously, or from a queued delivery that had called `begin`).
    @usableFromInline
    func recordRun(_ failure: ListenerFailure?, queued: Bool) {
        let resume: (CheckedContinuation<DispatchReport, Never>, DispatchReport)? = lock.withLock {
            received += 1
            if let failure { failures.append(failure) }
            return queued ? finishLocked() : nil
        }
        if let resume { resume.0.resume(returning: resume.1) }
    }

    /// A delivery was skipped (its listener ended before its turn).
    func recordSkip(queued: Bool) {
        guard queued else { return }
        let resume = lock.withLock { finishLocked() }
        if let resume { resume.0.resume(returning: resume.1) }
    }

    private func finishLocked() -> (CheckedContinuation<DispatchReport, Never>, DispatchReport)? {
        pending -= 1
        guard sealed, pending == 0, let continuation else { return nil }
        self.continuation = nil
        return (continuation, reportLocked)
    }

    private var reportLocked: DispatchReport { DispatchReport(received: received, failures: failures) }

    /// Waits until every delivery begun so far has finished, on the caller's executor.
    nonisolated(nonsending) func wait() async -> DispatchReport {
        // When every handler ran synchronously, there is nothing to wait for: returning without
        // a continuation, and without leaving the caller's actor, spares the task a suspension
        // and its rescheduling, which cost more than the dispatch itself (a bridge reading a
        // stream pays it per event).
        let finished: DispatchReport? = lock.withLock {
            sealed = true
            return pending == 0 ? reportLocked : nil
        }
        if let finished { return finished }
        return await withCheckedContinuation { continuation in
            let ready: DispatchReport? = lock.withLock {
                // The last queued delivery may have finished since: it found no continuation.
                if pending == 0 { return reportLocked }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

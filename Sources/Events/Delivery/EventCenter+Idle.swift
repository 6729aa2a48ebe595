extension EventCenter {
    /// Waits until every delivery this center queued before the call has run, in every context.
    ///
    /// A handler in another context than the posting thread runs after `dispatch` has returned.
    /// `idle()` is the way to know that it has: in a test, before checking what the listeners
    /// did; at shutdown, before letting go of what they use. It does not return while a stream
    /// holds an event its consumer has not taken: to see what a long wait is waiting for, use
    /// ``idle(reportingAfter:isolation:_:)``.
    ///
    /// ```swift
    /// let stored = center.listen(to: DownloadFinished.self, on: .background) { finished in
    ///     archive.store(finished.name)
    /// }
    /// center.dispatch(DownloadFinished(name: "report.pdf"))
    /// await center.idle()
    /// // The background listener has stored "report.pdf".
    /// ```
    ///
    /// It waits for:
    /// - deliveries queued for ``Delivery/background``, ``Delivery/queue(_:)`` and
    ///   ``Delivery/operationQueue(_:)`` listeners, for main-actor listeners (``MainActorDelivery``;
    ///   a `.main` delivery made inline, inside `dispatch`, is done before `dispatch` returns), and
    ///   for listeners isolated to an actor (`listen(to:isolatedTo:...)`), of typed and named
    ///   events alike;
    /// - events buffered in streams (``events(of:from:bufferingPolicy:receivingCurrent:file:line:)``,
    ///   ``events(named:from:bufferingPolicy:receivingCurrent:file:line:)``).
    ///
    /// Rules:
    /// - A queued delivery is done when its handler has returned or thrown, or when it was
    ///   skipped because its listener was cancelled or removed, or its owner went away, while it
    ///   waited. A buffered event is done when the consumer has taken it from `next()`, or when it
    ///   was dropped: the consumer was cancelled, the stream was let go, or its buffering policy
    ///   discarded it.
    /// - Only what was queued before the call counts. Deliveries queued after `idle()` began do
    ///   not keep it waiting, so it returns even while other threads keep dispatching; that
    ///   includes deliveries queued by the handlers it waits for. To wait for those too, call
    ///   `idle()` again: each call covers one more round. (A delivery queued on another thread at
    ///   the very moment of the call may count either way.)
    /// - A stream that is kept but not iterated keeps `idle()` waiting while it holds buffered
    ///   events, even after its listener was removed (its consumer may still take them); a
    ///   stream whose consumer was cancelled, or that was let go, never does. Do not await
    ///   `idle()` in the task that consumes a stream with events buffered: it would wait for
    ///   itself.
    /// - It suspends, never blocks: called on the main actor (or any actor), it lets main-actor
    ///   (or that actor's) deliveries run while it waits. When nothing is pending it returns at
    ///   once, without suspending.
    /// - A queue that never runs its work (a suspended `DispatchQueue` or `OperationQueue`) or
    ///   an actor kept busy keeps it waiting. An operation queue's `cancelAllOperations()` does
    ///   not: the deliveries still run there (see ``Delivery/operationQueue(_:)``).
    /// - Cancelling the waiting task makes `idle()` return at once, before the deliveries have
    ///   run; it leaves nothing behind.
    /// - It covers this center only, and posting-thread listeners need no waiting: they have run
    ///   when `dispatch` returns.
    ///
    /// - Parameter isolation: The caller's actor, where `idle()` resumes. Leave the default.
    public func idle(isolation: isolated (any Actor)? = #isolation) async {
        await pendingDeliveries.wait(isolation: isolation)
    }

    /// Waits as ``idle(isolation:)`` does, and if the wait still goes on after `delay`, calls
    /// `report` with what it is waiting for: each listener with deliveries not run yet, and each
    /// stream holding events its consumer has not taken, with its event, context and call site.
    ///
    /// ```swift
    /// await center.idle(reportingAfter: .seconds(5)) { report in
    ///     print(report)
    ///     // idle() is waiting for 1 listener:
    ///     // - stream of Tick made at App/Feed.swift:12: 1 event not taken
    /// }
    /// ```
    ///
    /// In a test, record the report as an issue, so that a wait that hangs says why:
    /// `Issue.record("\(report)")`.
    ///
    /// Rules:
    /// - `report` is called at most once, on a task of its own (not on the caller's actor), and
    ///   never after this method returns: when the wait ends while `report` runs, it returns
    ///   after `report` has.
    /// - The report lists what is pending at the moment it is made, which includes what the
    ///   wait is waiting for; deliveries queued after the wait began may be listed too.
    /// - The wait itself follows the rules of ``idle(isolation:)``, cancellation included.
    ///
    /// - Parameters:
    ///   - delay: How long to wait before reporting.
    ///   - isolation: The caller's actor, where the wait resumes. Leave the default.
    ///   - report: Receives what the wait is still waiting for.
    public func idle(
        reportingAfter delay: Duration, isolation: isolated (any Actor)? = #isolation,
        _ report: @escaping @Sendable (IdleReport) -> Void
    ) async {
        let pending = pendingDeliveries
        // Nothing pending: the wait is over at once, and there is nothing to report.
        guard let waiter = pending.beginWaiting() else { return }
        let reporter = Task.detached {
            do {
                try await Task.sleep(for: delay)
            } catch {
                return  // The wait ended first.
            }
            report(pending.report())
        }
        await pending.suspendUntilDone(waiter, isolation: isolation)
        reporter.cancel()
        await reporter.value
    }
}

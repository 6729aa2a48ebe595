extension EventCenter {
    /// Dispatches `event` and returns once every listener has finished with it, in every
    /// context: posting-thread, main-actor, actor and queue listeners alike.
    ///
    /// ```swift
    /// let report = await center.dispatchAndWait(CacheInvalidated(), from: self)
    /// print("\(report.received) listeners ran, \(report.failures.count) failed")
    /// for failure in report.failures { print(failure) }   // error and call site of each
    /// ```
    ///
    /// Use it where the next step depends on the listeners being done: flushing before
    /// shutdown, tests, sequencing work across actors. The waiting suspends, it does not
    /// block, so main-actor listeners can run while the main actor awaits here. When every
    /// listener ran synchronously during the dispatch, there is nothing to wait for: the call
    /// returns without suspending, so no other work interleaves on the caller's actor.
    ///
    /// Failures also go to ``errorHandler``, as with a plain `dispatch`.
    ///
    /// - Returns: How many handlers ran and which failed with what error.
    @discardableResult
    public func dispatchAndWait<E: Event>(
        _ event: E, from sender: AnyObject? = nil, isolation: isolated (any Actor)? = #isolation
    ) async -> DispatchReport {
        let collector = ReportCollector()
        dispatch(event, from: sender, reportingTo: collector)
        return await collector.wait()
    }

    /// Dispatches `event`, reporting every handler's outcome to `collector`.
    func dispatch<E: Event>(_ event: E, from sender: AnyObject?, reportingTo collector: ReportCollector) {
        if let named = event as? NamedEvent {
            return dispatch(
                named.name, from: sender, data: named.data, payload: named.payload, reportingTo: collector)
        }
        // The snapshot first, then the flags: a stopping listener in the snapshot has set its flag.
        let listeners = registry.snapshot(for: EventKey(E.self))
        if needsSlowDispatch {
            _ = slowDispatch(event, to: listeners, from: sender, callSite: nil, collector: collector)
        } else if let listeners {
            _ = deliver(event, to: listeners, from: sender, collector: collector)
        }
    }
}

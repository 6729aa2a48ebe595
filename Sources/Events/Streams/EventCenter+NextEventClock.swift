extension EventCenter {
    /// Waits for the next event of type `E` that matches `predicate`, for at most `timeout` as
    /// measured by `clock`.
    ///
    /// ```swift
    /// let login = try await center.next(LoggedIn.self, timeout: .seconds(5), clock: ContinuousClock())
    /// ```
    ///
    /// The same wait as ``next(_:from:where:timeout:isolation:file:line:)``, on a clock of the
    /// caller's choice: a test passes a clock it advances itself (`TestClock` of the
    /// `EventsTesting` product), so that the timeout takes no real time.
    ///
    /// The listener is registered before this function suspends, so an event dispatched right
    /// after the call starts is not missed. The predicate runs on the dispatching thread.
    ///
    /// - Throws: ``EventTimeoutError`` when `timeout` passes on `clock` first; `CancellationError`
    ///   when the waiting task is cancelled. Either way the listener is removed.
    public func next<E: Event>(
        _ type: E.Type,
        from sender: AnyObject? = nil,
        where predicate: @escaping @Sendable (E) -> Bool = { _ in true },
        timeout: Duration,
        clock: some Clock<Duration>,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> E {
        // The deadline is read before the timer task starts, so that a clock advanced right
        // after this call still counts from the call.
        let deadline = clock.now.advanced(by: timeout)
        return try await awaitNext(type, from: sender, where: predicate, callSite: CallSite(fileID: file, line: line)) {
            waiter in
            Task {
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                    waiter.finish(.failure(EventTimeoutError(event: String(describing: E.self), timeout: timeout)))
                } catch {
                    // Cancelled because the event arrived first.
                }
            }
        }
    }
}

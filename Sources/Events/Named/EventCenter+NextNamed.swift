extension EventCenter {
    /// Waits for the next event dispatched under `name` that matches `predicate`.
    ///
    /// ```swift
    /// let signedIn = try await center.next(named: "user.signedIn", from: session, timeout: .seconds(5))
    /// let user = try signedIn.data(as: String.self)
    /// ```
    ///
    /// The named counterpart of ``next(_:from:where:timeout:isolation:file:line:)``, with its
    /// rules: the listener is registered before this function suspends, so an event dispatched
    /// right after the call starts is not missed; the predicate runs on the dispatching thread;
    /// listeners of every name are not involved.
    ///
    /// - Parameters:
    ///   - name: The name to wait for.
    ///   - sender: When given, only an event dispatched `from:` this object counts (held weakly).
    ///   - predicate: Which event counts; defaults to the first one.
    ///   - timeout: How long to wait at most; nil (the default) waits until the event comes or
    ///     the task is cancelled.
    ///   - isolation: The actor the caller runs on; leave the default.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    /// - Throws: ``EventTimeoutError`` (whose `event` is the name) when `timeout` passes first;
    ///   `CancellationError` when the waiting task is cancelled. Either way the listener is removed.
    public func next(
        named name: EventName,
        from sender: AnyObject? = nil,
        where predicate: @escaping @Sendable (NamedEvent) -> Bool = { _ in true },
        timeout: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> NamedEvent {
        try await awaitNext(
            NamedEvent.self, eventKey: .name(name.rawValue), from: sender, where: predicate,
            callSite: CallSite(fileID: file, line: line)
        ) {
            waiter in
            timeout.map { timeout in
                Task {
                    do {
                        try await Task.sleep(for: timeout)
                        waiter.finish(.failure(EventTimeoutError(event: name.rawValue, timeout: timeout)))
                    } catch {
                        // Cancelled because the event arrived first.
                    }
                }
            }
        }
    }

    /// Waits for the next event dispatched under `name` that matches `predicate`, for at most
    /// `timeout` as measured by `clock`.
    ///
    /// ```swift
    /// let signedIn = try await center.next(named: "user.signedIn", timeout: .seconds(5), clock: ContinuousClock())
    /// ```
    ///
    /// The same wait as ``next(named:from:where:timeout:isolation:file:line:)``, on a clock of
    /// the caller's choice: a test passes a clock it advances itself (`TestClock` of the
    /// `EventsTesting` product), so that the timeout takes no real time. The timeout counts
    /// from the call.
    ///
    /// - Throws: ``EventTimeoutError`` (whose `event` is the name) when `timeout` passes on
    ///   `clock` first; `CancellationError` when the waiting task is cancelled. Either way the
    ///   listener is removed.
    public func next(
        named name: EventName,
        from sender: AnyObject? = nil,
        where predicate: @escaping @Sendable (NamedEvent) -> Bool = { _ in true },
        timeout: Duration,
        clock: some Clock<Duration>,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> NamedEvent {
        // Read before the timer task starts, so that a clock advanced right after this call
        // still counts from the call.
        let deadline = clock.now.advanced(by: timeout)
        return try await awaitNext(
            NamedEvent.self, eventKey: .name(name.rawValue), from: sender, where: predicate,
            callSite: CallSite(fileID: file, line: line)
        ) { waiter in
            Task {
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                    waiter.finish(.failure(EventTimeoutError(event: name.rawValue, timeout: timeout)))
                } catch {
                    // Cancelled because the event arrived first.
                }
            }
        }
    }
}

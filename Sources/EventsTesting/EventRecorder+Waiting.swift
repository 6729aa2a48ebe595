extension EventRecorder {
    /// Returns the first event not consumed yet, waiting for it when every recorded event has
    /// been consumed, and marks it consumed.
    ///
    /// ```swift
    /// center.dispatch(PostWritten(title: "A"))
    /// center.dispatch(PostWritten(title: "B"))
    /// #expect(try await recorder.next().title == "A")
    /// #expect(try await recorder.next().title == "B")
    /// ```
    ///
    /// It waits at most the recorder's ``timeout``, three seconds unless the recorder was
    /// created with another, measured on the recorder's clock (the `clock:` of its initializer,
    /// `ContinuousClock` by default). So a test that expects an event that never comes fails
    /// with an error that says so, rather than waiting forever. For another bound on one wait,
    /// use ``next(timeout:clock:)``.
    ///
    /// - Throws: ``EventRecorderError`` (reason ``EventRecorderError/Reason/timedOut(after:)``)
    ///   when the recorder's timeout passes first, saying how many events did arrive;
    ///   ``EventRecorderError`` (reason ``EventRecorderError/Reason/stopped``) when the recorder
    ///   is stopped before the event comes; `CancellationError` when the waiting task is
    ///   cancelled.
    public func next() async throws -> E {
        try await nextRecord().event
    }

    /// Returns the first event not consumed yet, waiting at most `timeout` on `clock` for it,
    /// and marks it consumed.
    ///
    /// ```swift
    /// let post = try await recorder.next(timeout: .seconds(1))
    /// ```
    ///
    /// The recorder's own ``timeout`` and clock do not apply: this wait is measured on `clock`,
    /// `ContinuousClock` unless one is passed.
    ///
    /// - Throws: ``EventRecorderError`` (reason ``EventRecorderError/Reason/timedOut(after:)``)
    ///   when the timeout passes first, saying how many events did arrive; `CancellationError`
    ///   when the waiting task is cancelled.
    public func next(timeout: Duration, clock: some Clock<Duration> = ContinuousClock()) async throws -> E {
        try await nextRecord(timeout: timeout, clock: clock).event
    }

    /// ``next()`` with the event's sender and order: the first record not consumed yet.
    ///
    /// It waits at most the recorder's ``timeout``, on the recorder's clock, as ``next()`` does.
    public func nextRecord() async throws -> RecordedEvent<E> {
        try await nextRecord(until: WaitDeadline(after: timeout, on: clock))
    }

    /// ``next(timeout:clock:)`` with the event's sender and order.
    public func nextRecord(
        timeout: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> RecordedEvent<E> {
        try await nextRecord(until: WaitDeadline(after: timeout, on: clock))
    }

    /// Waits until the recorder holds `count` events in all, consumed or not, then returns the
    /// first `count` and marks them consumed.
    ///
    /// ```swift
    /// model.refresh()                       // dispatches three events, from another task
    /// let posts = try await recorder.waitFor(count: 3, timeout: .seconds(2))
    /// #expect(posts.map(\.title) == ["A", "B", "C"])
    /// ```
    ///
    /// Events past the first `count` stay unconsumed. The count includes events consumed
    /// before: after a ``next()``, `waitFor(count: 3)` waits for two more.
    ///
    /// - Parameters:
    ///   - count: How many events the recorder must hold.
    ///   - timeout: How long to wait at most, on `clock`. Defaults to ten seconds, whatever the
    ///     recorder's own ``timeout``.
    ///   - clock: The clock that measures the timeout. Defaults to `ContinuousClock()`, whatever
    ///     the recorder's own clock.
    /// - Throws: ``EventRecorderError`` when the timeout passes first, with ``EventRecorderError/recordedCount``
    ///   saying how many arrived; `CancellationError` when the waiting task is cancelled.
    @discardableResult
    public func waitFor(
        count: Int, timeout: Duration = .seconds(10), clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> [E] {
        try await waitForRecords(count: count, timeout: timeout, clock: clock).map(\.event)
    }

    /// ``waitFor(count:timeout:clock:)`` with the events' senders and order.
    @discardableResult
    public func waitForRecords(
        count: Int, timeout: Duration = .seconds(10), clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> [RecordedEvent<E>] {
        let wanted = max(count, 0)
        try await wait(untilCount: wanted, until: WaitDeadline(after: timeout, on: clock))
        return state.withLock { state in
            state.consumed = max(state.consumed, wanted)
            return Array(state.records[..<wanted])
        }
    }

    // MARK: Waiting

    private func nextRecord(until deadline: WaitDeadline) async throws -> RecordedEvent<E> {
        while true {
            let (taken, recorded) = state.withLock { state -> (RecordedEvent<E>?, Int) in
                guard state.consumed < state.records.count else { return (nil, state.records.count) }
                state.consumed += 1
                return (state.records[state.consumed - 1], state.records.count)
            }
            if let taken { return taken }
            // Another task waiting on the same recorder may take the event first: then wait for
            // the one after.
            try await wait(untilCount: recorded + 1, until: deadline)
        }
    }

    /// Suspends until the recorder holds `minimumCount` records, `deadline` passes, the recorder
    /// stops or the task is cancelled.
    func wait(untilCount minimumCount: Int, until deadline: WaitDeadline) async throws {
        let description = self.description
        let registered = state.withLock { state in
            let recorded = state.records.count
            return state.register(minimumCount: minimumCount) {
                EventRecorderError(
                    reason: .stopped, expectedCount: minimumCount, recordedCount: recorded, recorder: description)
            }
        }
        guard let registered else { return }
        let id = try registered.get()
        defer { state.withLock { $0.forget(id) } }

        let timer = Task { [state] in
            do {
                try await deadline.sleep()
            } catch {
                return  // The wait ended first and cancelled the timer.
            }
            let resumption = state.withLock { state in
                state.finish(
                    id,
                    with: .failure(
                        EventRecorderError(
                            reason: .timedOut(after: deadline.timeout), expectedCount: minimumCount,
                            recordedCount: state.records.count, recorder: description)))
            }
            resumption.map { [$0] }?.resumeAll()
        }
        defer { timer.cancel() }

        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if let ready = state.withLock({ $0.suspend(id, continuation) }) {
                    continuation.resume(with: ready)
                }
            }
        } onCancel: {
            let resumption = state.withLock { $0.finish(id, with: .failure(CancellationError())) }
            resumption.map { [$0] }?.resumeAll()
        }
    }
}

/// When a wait gives up: `timeout` after the wait began, on the clock that measures it.
///
/// The clock's type is erased here, so that a recorder can keep the clock it was given (a
/// `TestClock`, `ContinuousClock` or any other) without being generic over it.
struct WaitDeadline: Sendable {
    /// How long the wait waits, for the error it throws when it gives up.
    let timeout: Duration
    private let sleepUntilDeadline: @Sendable () async throws -> Void

    /// The deadline `timeout` from now on `clock`.
    init<C: Clock<Duration>>(after timeout: Duration, on clock: C) {
        let deadline = clock.now.advanced(by: timeout)
        self.timeout = timeout
        sleepUntilDeadline = { try await clock.sleep(until: deadline, tolerance: nil) }
    }

    /// Suspends until the deadline passes; throws `CancellationError` when cancelled first.
    func sleep() async throws {
        try await sleepUntilDeadline()
    }
}

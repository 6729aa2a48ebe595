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
    /// It waits as long as it takes; bound the wait with ``next(timeout:clock:)``, or the test
    /// with a time limit.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled; ``EventRecorderError``
    ///   when the recorder is stopped before the event comes.
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
    /// - Throws: ``EventRecorderError`` (reason ``EventRecorderError/Reason/timedOut(after:)``)
    ///   when the timeout passes first, saying how many events did arrive; `CancellationError`
    ///   when the waiting task is cancelled.
    public func next(timeout: Duration, clock: some Clock<Duration> = ContinuousClock()) async throws -> E {
        try await nextRecord(timeout: timeout, clock: clock).event
    }

    /// ``next()`` with the event's sender and order: the first record not consumed yet.
    public func nextRecord() async throws -> RecordedEvent<E> {
        try await nextRecord(deadline: nil, timeout: nil, clock: ContinuousClock())
    }

    /// ``next(timeout:clock:)`` with the event's sender and order.
    public func nextRecord(
        timeout: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) async throws -> RecordedEvent<E> {
        try await nextRecord(deadline: clock.now.advanced(by: timeout), timeout: timeout, clock: clock)
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
    ///   - timeout: How long to wait at most, on `clock`. Defaults to ten seconds.
    ///   - clock: The clock that measures the timeout. Defaults to `ContinuousClock()`.
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
        try await wait(
            untilCount: wanted, deadline: clock.now.advanced(by: timeout), timeout: timeout, clock: clock)
        return state.withLock { state in
            state.consumed = max(state.consumed, wanted)
            return Array(state.records[..<wanted])
        }
    }

    // MARK: Waiting

    private func nextRecord<C: Clock<Duration>>(
        deadline: C.Instant?, timeout: Duration?, clock: C
    ) async throws -> RecordedEvent<E> {
        while true {
            let (taken, recorded) = state.withLock { state -> (RecordedEvent<E>?, Int) in
                guard state.consumed < state.records.count else { return (nil, state.records.count) }
                state.consumed += 1
                return (state.records[state.consumed - 1], state.records.count)
            }
            if let taken { return taken }
            // Another task waiting on the same recorder may take the event first: then wait for
            // the one after.
            try await wait(untilCount: recorded + 1, deadline: deadline, timeout: timeout, clock: clock)
        }
    }

    /// Suspends until the recorder holds `minimumCount` records, `deadline` passes on `clock`,
    /// the recorder stops or the task is cancelled.
    func wait<C: Clock<Duration>>(
        untilCount minimumCount: Int, deadline: C.Instant?, timeout: Duration?, clock: C
    ) async throws {
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

        let timer: Task<Void, Never>? =
            if let deadline, let timeout {
                Task { [state] in
                    do {
                        try await clock.sleep(until: deadline, tolerance: nil)
                    } catch {
                        return  // The wait ended first and cancelled the timer.
                    }
                    let resumption = state.withLock { state in
                        state.finish(
                            id,
                            with: .failure(
                                EventRecorderError(
                                    reason: .timedOut(after: timeout), expectedCount: minimumCount,
                                    recordedCount: state.records.count, recorder: description)))
                    }
                    resumption.map { [$0] }?.resumeAll()
                }
            } else {
                nil
            }
        defer { timer?.cancel() }

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

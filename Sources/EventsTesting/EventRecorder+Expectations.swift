public import Testing

extension EventRecorder where E: Equatable {
    /// Checks that the events not consumed yet are exactly `expected`, in order, and consumes
    /// them. On a difference it records a test issue at the caller's line, with a diff.
    ///
    /// ```swift
    /// center.dispatch(PostWritten(title: "A"))
    /// center.dispatch(PostWritten(title: "C"))
    /// recorder.expect([PostWritten(title: "A"), PostWritten(title: "B")])
    /// ```
    ///
    /// fails the test with:
    ///
    /// ```text
    /// EventRecorder<PostWritten> (created at MyAppTests/FeedTests.swift:12): the events differ
    /// from the expected ones (2 expected, 2 recorded)
    ///   matching    #0    PostWritten(title: "A")
    ///   missing           PostWritten(title: "B")  (expected[1])
    ///   unexpected  #1    PostWritten(title: "C")
    /// ```
    ///
    /// It does not wait: to wait for events dispatched from another task first, use
    /// ``expect(_:within:clock:sourceLocation:)``.
    ///
    /// - Returns: Whether the events matched.
    @discardableResult
    public func expect(_ expected: [E], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        expect(expected, comparing: { $0 }, sourceLocation: sourceLocation)
    }

    /// Waits at most `timeout` on `clock` until `expected.count` events not consumed yet are
    /// there, then checks them as ``expect(_:sourceLocation:)`` does.
    ///
    /// ```swift
    /// model.refresh()   // dispatches from another task
    /// await recorder.expect([PostWritten(title: "A"), PostWritten(title: "B")], within: .seconds(2))
    /// ```
    ///
    /// When the timeout passes first, the diff lists the events that did not come as missing.
    ///
    /// - Returns: Whether the events matched.
    @discardableResult
    public func expect(
        _ expected: [E], within timeout: Duration, clock: some Clock<Duration> = ContinuousClock(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        await expect(expected, comparing: { $0 }, within: timeout, clock: clock, sourceLocation: sourceLocation)
    }
}

extension EventRecorder {
    /// Checks that one property of each event not consumed yet matches `expected`, in order,
    /// and consumes them: for events that are not `Equatable`, such as `NamedEvent`.
    ///
    /// ```swift
    /// let recorder = EventRecorder(everyNameIn: center)
    /// center.dispatch("opened")
    /// center.dispatch("closed")
    /// recorder.expect(["opened", "closed"], comparing: \.name)
    /// ```
    ///
    /// On a difference it records a test issue at the caller's line, with a diff of the
    /// compared values.
    ///
    /// - Returns: Whether the events matched.
    @discardableResult
    public func expect<Value: Equatable>(
        _ expected: [Value], comparing value: (E) -> Value, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let recorded = state.withLock { state in
            let unconsumed = Array(state.records[state.consumed...])
            state.consumed = state.records.count
            return unconsumed
        }
        let diff = EventDiff(expected: expected, recorded: recorded, value: value)
        guard !diff.isMatch else { return true }
        Issue.record(
            Comment(
                rawValue: """
                    \(description): the events differ from the expected ones \
                    (\(expected.count) expected, \(recorded.count) recorded)
                    \(diff.text)
                    """),
            sourceLocation: sourceLocation)
        return false
    }

    /// Waits at most `timeout` on `clock` for `expected.count` events not consumed yet, then
    /// checks them as ``expect(_:comparing:sourceLocation:)`` does.
    ///
    /// - Returns: Whether the events matched.
    @discardableResult
    public func expect<Value: Equatable>(
        _ expected: [Value], comparing value: (E) -> Value, within timeout: Duration,
        clock: some Clock<Duration> = ContinuousClock(), sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        let wanted = state.withLock { $0.consumed } + expected.count
        // A timeout, a stop or a cancellation ends the wait early: the diff then shows what is
        // missing, which says more than the error would.
        try? await wait(untilCount: wanted, until: WaitDeadline(after: timeout, on: clock))
        return expect(expected, comparing: value, sourceLocation: sourceLocation)
    }

    /// Checks that no event comes for `duration` on `clock`, and that none is waiting
    /// unconsumed; records a test issue listing the events otherwise, and consumes them.
    ///
    /// ```swift
    /// model.saveWithoutChanges()
    /// await recorder.expectNoEvents(within: .milliseconds(200))
    /// ```
    ///
    /// It returns as soon as an event arrives, without waiting for the rest of `duration`.
    /// Waits of this kind prove only that nothing came in that time: pass a ``TestClock`` and
    /// advance it to make the time an event would take under the test's control, or use
    /// `await center.idle()` first so that queued deliveries have run.
    ///
    /// - Returns: Whether no event came.
    @discardableResult
    public func expectNoEvents(
        within duration: Duration, clock: some Clock<Duration> = ContinuousClock(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        let (recorded, consumed) = state.withLock { ($0.records.count, $0.consumed) }
        if consumed == recorded {
            do {
                try await wait(untilCount: recorded + 1, until: WaitDeadline(after: duration, on: clock))
            } catch {
                // The duration passed (or the recorder stopped, or the task was cancelled)
                // without an event: what was expected.
                return true
            }
        }
        return reportUnconsumed(
            "expected no event within \(duration), but", sourceLocation: sourceLocation)
    }

    /// Checks that every recorded event has been consumed (by ``next()``,
    /// ``waitFor(count:timeout:clock:)`` or an expectation); records a test issue listing the
    /// others otherwise, and consumes them.
    ///
    /// ```swift
    /// let first = try await recorder.next()
    /// recorder.expectAllConsumed()   // fails when a second event came
    /// ```
    ///
    /// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``
    /// calls it when its body returns.
    ///
    /// - Returns: Whether every event had been consumed.
    @discardableResult
    public func expectAllConsumed(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        reportUnconsumed("", sourceLocation: sourceLocation)
    }

    /// Records an issue listing the unconsumed events, if there are any, and consumes them.
    private func reportUnconsumed(_ prefix: String, sourceLocation: SourceLocation) -> Bool {
        EventRecorder.reportUnconsumed(in: state, of: description, prefix, sourceLocation: sourceLocation)
    }

    /// Records an issue listing the unconsumed events of `state`, the state of the recorder
    /// `description`, if there are any, and consumes them.
    @discardableResult
    static func reportUnconsumed(
        in state: LockedState<RecorderState<E>>, of description: String, _ prefix: String,
        sourceLocation: SourceLocation
    ) -> Bool {
        let unconsumed = state.withLock { state in
            let unconsumed = Array(state.records[state.consumed...])
            state.consumed = state.records.count
            return unconsumed
        }
        guard !unconsumed.isEmpty else { return true }
        let count = unconsumed.count == 1 ? "1 event was" : "\(unconsumed.count) events were"
        let lead = prefix.isEmpty ? "\(count) recorded and never consumed" : "\(prefix) \(count) recorded"
        let list = unconsumed.map { "  \($0)" }.joined(separator: "\n")
        Issue.record(Comment(rawValue: "\(description): \(lead)\n\(list)"), sourceLocation: sourceLocation)
        return false
    }
}

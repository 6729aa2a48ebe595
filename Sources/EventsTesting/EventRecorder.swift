public import Events
public import Testing

/// Records the events an `EventCenter` delivers, so that a test can wait for them, read them
/// and check them.
///
/// Create a recorder before the code under test runs; it listens from its initializer on:
///
/// ```swift
/// let center = EventCenter()
/// let recorder = EventRecorder(of: PostWritten.self, in: center)
/// center.dispatch(PostWritten(title: "Hi"))
///
/// let post = try await recorder.next()                 // the first event not consumed yet
/// #expect(post.title == "Hi")
/// try await recorder.waitFor(count: 3, timeout: .seconds(1))
/// recorder.expect([PostWritten(title: "Hi"), ...])     // records an issue with a diff
/// ```
///
/// A recorder records all events of one type (optionally only those `from:` one sender), all
/// events of one name, or every named event. Each record keeps the event, its sender (identity
/// and type name, not the object) and its place in the order (``RecordedEvent``).
///
/// Consuming: ``next()``, ``waitFor(count:timeout:clock:)`` and the expectations hand events
/// to the test and mark them consumed; reading ``events`` does not. Events never consumed can
/// fail the test at its end, as
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``
/// does, so that an unexpected extra event is not missed. When the events that are left do not
/// matter, ``stopIgnoringRemainingEvents()`` accepts them.
///
/// Rules:
/// - The listener is registered before the initializer returns: an event dispatched right after
///   is recorded. It runs on the dispatching thread, before the dispatch returns.
/// - Every method is safe from any thread or task. A wait suspends without blocking a thread;
///   cancelling its task ends it with `CancellationError`.
/// - No wait lasts forever. ``next()`` and ``nextRecord()`` wait at most the recorder's
///   ``timeout`` (three seconds unless the initializer is given another), measured on the
///   recorder's clock (`ContinuousClock` unless the initializer is given one, such as a
///   ``TestClock``); then they throw ``EventRecorderError`` with reason
///   ``EventRecorderError/Reason/timedOut(after:)``. Every wait that takes a timeout or a
///   duration of its own measures it on the clock passed with it, `ContinuousClock` by default.
/// - ``stop()``, ``stopIgnoringRemainingEvents()``, or the recorder's deinitialization,
///   removes the listener; waits still pending then throw ``EventRecorderError`` with reason
///   ``EventRecorderError/Reason/stopped``.
public final class EventRecorder<E: Event>: Sendable, CustomStringConvertible {
    let state: LockedState<RecorderState<E>>
    private let subscription: LockedState<Subscription?>
    /// What the recorder records, for messages: "PostWritten", "events named saved".
    let subject: String

    /// Where the recorder was created.
    public let callSite: SourceLocation

    /// How long ``next()`` and ``nextRecord()`` wait for an event before they throw
    /// ``EventRecorderError`` (reason ``EventRecorderError/Reason/timedOut(after:)``): three
    /// seconds unless the initializer, or `withEventRecorder`, is given another.
    ///
    /// It is measured on the clock given with it (`ContinuousClock` by default), so that a test
    /// that expects an event that never comes fails, saying so, rather than waiting forever.
    public let timeout: Duration

    /// The clock that measures ``timeout``.
    let clock: any Clock<Duration>

    private init(
        subject: String, callSite: SourceLocation, timeout: Duration, clock: any Clock<Duration>,
        listen: (LockedState<RecorderState<E>>) -> Subscription
    ) {
        let state = LockedState(RecorderState<E>())
        self.state = state
        self.subject = subject
        self.callSite = callSite
        self.timeout = timeout
        self.clock = clock
        // The listener captures the state, not the recorder, so that dropping the recorder
        // ends the listener (its deinit cancels the subscription).
        self.subscription = LockedState(listen(state))
        if let registry = RecorderRegistry.current {
            let description = self.description
            registry.add {
                EventRecorder.reportUnconsumed(in: state, of: description, "", sourceLocation: callSite)
            }
        }
    }

    /// Records every event of type `type` dispatched in `center` from now on.
    ///
    /// ```swift
    /// let recorder = EventRecorder(of: PostWritten.self, in: center)
    /// let fromEditor = EventRecorder(of: PostWritten.self, in: center, from: editor)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type to record.
    ///   - center: The center to listen to.
    ///   - sender: When given, only events dispatched `from:` this object are recorded. It is
    ///     held weakly, as by `listen(to:from:)`.
    ///   - timeout: How long ``next()`` and ``nextRecord()`` wait for an event before they throw;
    ///     see ``timeout``. Defaults to three seconds.
    ///   - clock: The clock that measures `timeout`: pass a ``TestClock`` to make the timeout
    ///     happen when the test advances it. Defaults to `ContinuousClock()`.
    ///   - fileID: The call site, for messages and for the center's list of registrations.
    ///     Leave the default.
    ///   - filePath: The call site. Leave the default.
    ///   - line: The call site. Leave the default.
    ///   - column: The call site. Leave the default.
    public convenience init(
        of type: E.Type,
        in center: EventCenter,
        from sender: AnyObject? = nil,
        timeout: Duration = .seconds(3),
        clock: some Clock<Duration> = ContinuousClock(),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            subject: "\(E.self)" + fromDescription(sender),
            callSite: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            timeout: timeout, clock: clock
        ) { state in
            center.listen(to: Sent<E>.self, from: sender, file: fileID, line: line) { sent in
                state.record(sent.event, sender: sent.sender)
            }
        }
    }

    /// All events recorded so far, in order, consumed or not.
    public var events: [E] { state.withLock { state in state.records.map { $0.event } } }

    /// All events recorded so far with their senders and order (``RecordedEvent``).
    public var records: [RecordedEvent<E>] { state.withLock { $0.records } }

    /// The events recorded but not consumed yet (by ``next()``, ``waitFor(count:timeout:clock:)``
    /// or an expectation), in order.
    public var unconsumed: [RecordedEvent<E>] { state.withLock { Array($0.records[$0.consumed...]) } }

    /// How many events have been recorded so far.
    public var count: Int { state.withLock { $0.records.count } }

    /// Whether the recorder still records: neither ``stop()`` nor
    /// ``stopIgnoringRemainingEvents()`` has been called.
    public var isRecording: Bool { state.withLock { !$0.isStopped } }

    /// Stops recording: removes the listener and ends every pending wait with
    /// ``EventRecorderError`` (``EventRecorderError/Reason/stopped``). The events recorded so far
    /// stay readable. Calling it again does nothing.
    ///
    /// The events not consumed yet stay unconsumed: `withEventRecorder`, the
    /// `.failsOnUnconsumedEvents` trait and ``expectAllConsumed(sourceLocation:)`` still report
    /// them. To end a test without checking what is left, call
    /// ``stopIgnoringRemainingEvents()`` instead.
    public func stop() {
        stop(ignoringRemainingEvents: false)
    }

    /// Stops recording, as ``stop()`` does, and accepts every event not consumed yet, so that
    /// nothing is reported as left over.
    ///
    /// ```swift
    /// try await withEventRecorder(of: Progress.self, in: center) { recorder in
    ///     download.start()
    ///     let first = try await recorder.next()
    ///     #expect(first.fraction == 0)
    ///     recorder.stopIgnoringRemainingEvents()   // the later progress events do not matter
    /// }
    /// ```
    ///
    /// Use it when a test has checked what it is about and the events that follow are not
    /// part of it. Rules:
    /// - The listener is removed and pending waits end with ``EventRecorderError``
    ///   (``EventRecorderError/Reason/stopped``), as with ``stop()``.
    /// - Every event recorded until then, up to the last one the listener delivered, counts as
    ///   consumed: ``unconsumed`` is empty, and neither `withEventRecorder`, the
    ///   `.failsOnUnconsumedEvents` trait nor ``expectAllConsumed(sourceLocation:)`` reports it.
    ///   ``events`` and ``records`` still list it.
    /// - Calling it after ``stop()`` accepts the events left then. Calling it again does nothing.
    public func stopIgnoringRemainingEvents() {
        stop(ignoringRemainingEvents: true)
    }

    private func stop(ignoringRemainingEvents: Bool) {
        subscription.withLock { subscription in
            let ending = subscription
            subscription = nil
            return ending
        }?.cancel()
        let description = self.description
        let resumptions = state.withLock { state in
            // Under the same lock as the stop, so that no event slips in between the two.
            if ignoringRemainingEvents { state.consumed = state.records.count }
            let recorded = state.records.count
            return state.stop { expected in
                EventRecorderError(
                    reason: .stopped, expectedCount: expected, recordedCount: recorded, recorder: description)
            }
        }
        resumptions.resumeAll()
    }

    deinit {
        stop()
    }

    /// `EventRecorder<Type> (created at Module/File.swift:line)`.
    public var description: String {
        "EventRecorder<\(subject)> (created at \(callSite.fileID):\(callSite.line))"
    }
}

extension EventRecorder where E == NamedEvent {
    /// Records every event dispatched under `name` in `center` from now on.
    ///
    /// ```swift
    /// let recorder = EventRecorder(named: "postWritten", in: center)
    /// center.dispatch("postWritten", from: editor)
    /// #expect(try await recorder.next().name == "postWritten")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The name to record.
    ///   - center: The center to listen to.
    ///   - sender: When given, only events dispatched `from:` this object (held weakly).
    ///   - timeout: How long ``next()`` and ``nextRecord()`` wait for an event before they throw;
    ///     see ``timeout``. Defaults to three seconds.
    ///   - clock: The clock that measures `timeout`: pass a ``TestClock`` to make the timeout
    ///     happen when the test advances it. Defaults to `ContinuousClock()`.
    ///   - fileID: The call site. Leave the default.
    ///   - filePath: The call site. Leave the default.
    ///   - line: The call site. Leave the default.
    ///   - column: The call site. Leave the default.
    public convenience init(
        named name: EventName,
        in center: EventCenter,
        from sender: AnyObject? = nil,
        timeout: Duration = .seconds(3),
        clock: some Clock<Duration> = ContinuousClock(),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            subject: "events named \(name)" + fromDescription(sender),
            callSite: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            timeout: timeout, clock: clock
        ) { state in
            center.listen(to: name, from: sender, file: fileID, line: line) { event in
                state.record(event, sender: event.sender)
            }
        }
    }

    /// Records every named event dispatched in `center` from now on, whatever its name.
    ///
    /// ```swift
    /// let recorder = EventRecorder(everyNameIn: center)
    /// center.dispatch("opened")
    /// center.dispatch("closed")
    /// recorder.expect(["opened", "closed"], comparing: \.name)
    /// ```
    ///
    /// Typed events are not recorded: record them with ``init(of:in:from:timeout:clock:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - center: The center to listen to.
    ///   - sender: When given, only events dispatched `from:` this object (held weakly).
    ///   - timeout: How long ``next()`` and ``nextRecord()`` wait for an event before they throw;
    ///     see ``timeout``. Defaults to three seconds.
    ///   - clock: The clock that measures `timeout`: pass a ``TestClock`` to make the timeout
    ///     happen when the test advances it. Defaults to `ContinuousClock()`.
    ///   - fileID: The call site. Leave the default.
    ///   - filePath: The call site. Leave the default.
    ///   - line: The call site. Leave the default.
    ///   - column: The call site. Leave the default.
    public convenience init(
        everyNameIn center: EventCenter,
        from sender: AnyObject? = nil,
        timeout: Duration = .seconds(3),
        clock: some Clock<Duration> = ContinuousClock(),
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            subject: "every named event" + fromDescription(sender),
            callSite: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            timeout: timeout, clock: clock
        ) { state in
            center.listen(to: NamedEvent.self, from: sender, file: fileID, line: line) { event in
                state.record(event, sender: event.sender)
            }
        }
    }
}

/// " from Editor" for a recorder filtering on a sender, for its description.
private func fromDescription(_ sender: AnyObject?) -> String {
    sender.map { " from \(type(of: $0))" } ?? ""
}

extension LockedState {
    /// Records `event` and resumes the waits it completes, after unlocking: the body of every
    /// recorder's listener.
    func record<E: Event>(_ event: E, sender: Sender?) where State == RecorderState<E> {
        let resumptions = withLock { $0.append(event, sender: sender.map(RecordedSender.init)) }
        resumptions.resumeAll()
    }
}

extension SourceLocation {
    init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        self.init(
            fileID: fileID.description, filePath: filePath.description, line: Int(line), column: Int(column))
    }
}

extension Array {
    /// Resumes each continuation with its outcome: called after the lock is released.
    func resumeAll<Value: Sendable>()
    where Element == (CheckedContinuation<Value, any Error>, Result<Value, any Error>) {
        for (continuation, outcome) in self { continuation.resume(with: outcome) }
    }
}

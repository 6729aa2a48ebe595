public import Events
import Testing

/// Records the events of type `type` while `body` runs, and fails the test if any recorded
/// event is left unconsumed when it returns.
///
/// ```swift
/// @Test func savingPostsOneEvent() async throws {
///     let center = EventCenter()
///     try await withEventRecorder(of: PostWritten.self, in: center) { recorder in
///         Editor(center: center).save("Hi")
///         let post = try await recorder.next()
///         #expect(post.title == "Hi")
///     }   // a second PostWritten would fail the test here
/// }
/// ```
///
/// (Inside a closure, bind what a throwing call returns before `#expect` compares it: a
/// closure whose only `try` is inside `#expect(...)` does not compile.)
///
/// Every event must be accounted for: taken with ``EventRecorder/next()``,
/// ``EventRecorder/waitFor(count:timeout:clock:)`` or an expectation, or accepted all at once
/// with ``EventRecorder/stopIgnoringRemainingEvents()``. Those left over are listed in an
/// issue recorded at the line of this call, once `body` returns. When `body` throws, its error
/// is rethrown and the leftovers are not reported (the test fails already). The recorder stops
/// when `body` returns.
///
/// - Parameters:
///   - type: The event type to record.
///   - center: The center to listen to.
///   - sender: When given, only events dispatched `from:` this object (held weakly).
///   - timeout: How long ``EventRecorder/next()`` waits for an event before it throws
///     (``EventRecorder/timeout``). Defaults to three seconds.
///   - clock: The clock that measures `timeout`, such as a ``TestClock``. Defaults to
///     `ContinuousClock()`.
///   - isolation: The caller's actor, on which `body` runs. Leave the default.
///   - fileID: The call site. Leave the default.
///   - filePath: The call site. Leave the default.
///   - line: The call site. Leave the default.
///   - column: The call site. Leave the default.
///   - body: The test's steps, given the recorder.
/// - Returns: What `body` returns.
public func withEventRecorder<E: Event, Result>(
    of type: E.Type,
    in center: EventCenter,
    from sender: AnyObject? = nil,
    timeout: Duration = .seconds(3),
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: (EventRecorder<E>) async throws -> Result
) async rethrows -> Result {
    let recorder = EventRecorder(
        of: type, in: center, from: sender, timeout: timeout, clock: clock, fileID: fileID, filePath: filePath,
        line: line, column: column)
    return try await recorder.finishing(body)
}

/// Records the events named `name` while `body` runs, and fails the test if any is left
/// unconsumed when it returns; see ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)``.
///
/// ```swift
/// await withEventRecorder(named: "postWritten", in: center) { recorder in
///     center.dispatch("postWritten")
///     recorder.expect(["postWritten"], comparing: \.name)
/// }
/// ```
public func withEventRecorder<Result>(
    named name: EventName,
    in center: EventCenter,
    from sender: AnyObject? = nil,
    timeout: Duration = .seconds(3),
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: (EventRecorder<NamedEvent>) async throws -> Result
) async rethrows -> Result {
    let recorder = EventRecorder(
        named: name, in: center, from: sender, timeout: timeout, clock: clock, fileID: fileID, filePath: filePath,
        line: line, column: column)
    return try await recorder.finishing(body)
}

/// Records every named event while `body` runs, and fails the test if any is left unconsumed
/// when it returns; see ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)``.
public func withEventRecorder<Result>(
    everyNameIn center: EventCenter,
    from sender: AnyObject? = nil,
    timeout: Duration = .seconds(3),
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: (EventRecorder<NamedEvent>) async throws -> Result
) async rethrows -> Result {
    let recorder = EventRecorder(
        everyNameIn: center, from: sender, timeout: timeout, clock: clock, fileID: fileID, filePath: filePath,
        line: line, column: column)
    return try await recorder.finishing(body)
}

extension EventRecorder {
    /// Runs `body`, stops, and reports what `body` left unconsumed at the recorder's call site.
    func finishing<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (EventRecorder<E>) async throws -> Result
    ) async rethrows -> Result {
        let result = try await body(self)
        stop()
        expectAllConsumed(sourceLocation: callSite)
        return result
    }
}

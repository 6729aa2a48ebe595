public import Events
import Testing

// Each `withEventRecorder` comes twice: generic over what its body returns, and for a body that
// returns nothing. The second one is what lets a one-line body such as
// `{ _ in center.dispatch(Saved()) }`, whose call returns a discardable value, sit where a
// `Void` closure is expected (`withKnownIssue { ... }`): with the generic function alone, the
// compiler finds two ways to type the closure and rejects the call as ambiguous. The compiler
// picks the `Void` one only where the call itself must produce nothing, so a body that returns
// a value keeps its type. The generic one's result is discardable for the same one-liners
// written as a statement.

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
/// The body may return a value, which this function returns; a one-line body that only
/// dispatches, `{ _ in center.dispatch(Saved()) }`, works as well, inside `withKnownIssue { }`
/// too.
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
@discardableResult
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

/// Records the events of type `type` while `body` runs, and fails the test if any is left
/// unconsumed when it returns: the form for a body that returns nothing.
///
/// ```swift
/// await withKnownIssue {
///     await withEventRecorder(of: PostWritten.self, in: center) { _ in center.dispatch(PostWritten(title: "Hi")) }
/// }   // the PostWritten nobody consumed is the known issue
/// ```
///
/// It behaves as
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``
/// does, and takes the same parameters. The compiler picks it where the call must produce
/// nothing, as the only line of a closure that returns nothing (`withKnownIssue { }`), so that
/// a one-line body whose call returns something, such as `center.dispatch(_:)`, fits there.
public func withEventRecorder<E: Event>(
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
    _ body: (EventRecorder<E>) async throws -> Void
) async rethrows {
    let recorder = EventRecorder(
        of: type, in: center, from: sender, timeout: timeout, clock: clock, fileID: fileID, filePath: filePath,
        line: line, column: column)
    try await recorder.finishing(body)
}

/// Records the events named `name` while `body` runs, and fails the test if any is left
/// unconsumed when it returns; see
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``.
///
/// ```swift
/// await withEventRecorder(named: "postWritten", in: center) { recorder in
///     center.dispatch("postWritten")
///     recorder.expect(["postWritten"], comparing: \.name)
/// }
/// ```
@discardableResult
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

/// Records the events named `name` while `body` runs, and fails the test if any is left
/// unconsumed when it returns: the form for a body that returns nothing.
///
/// ```swift
/// await withKnownIssue {
///     await withEventRecorder(named: "postWritten", in: center) { _ in center.dispatch("postWritten") }
/// }
/// ```
///
/// See
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``
/// for the rules, and
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->()``
/// for when the compiler picks this form.
public func withEventRecorder(
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
    _ body: (EventRecorder<NamedEvent>) async throws -> Void
) async rethrows {
    let recorder = EventRecorder(
        named: name, in: center, from: sender, timeout: timeout, clock: clock, fileID: fileID, filePath: filePath,
        line: line, column: column)
    try await recorder.finishing(body)
}

/// Records every named event while `body` runs, and fails the test if any is left unconsumed
/// when it returns; see
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``.
@discardableResult
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

/// Records every named event while `body` runs, and fails the test if any is left unconsumed
/// when it returns: the form for a body that returns nothing.
///
/// See
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->Result``
/// for the rules, and
/// ``withEventRecorder(of:in:from:timeout:clock:isolation:fileID:filePath:line:column:_:)->()``
/// for when the compiler picks this form.
public func withEventRecorder(
    everyNameIn center: EventCenter,
    from sender: AnyObject? = nil,
    timeout: Duration = .seconds(3),
    clock: some Clock<Duration> = ContinuousClock(),
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column,
    _ body: (EventRecorder<NamedEvent>) async throws -> Void
) async rethrows {
    let recorder = EventRecorder(
        everyNameIn: center, from: sender, timeout: timeout, clock: clock, fileID: fileID, filePath: filePath,
        line: line, column: column)
    try await recorder.finishing(body)
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

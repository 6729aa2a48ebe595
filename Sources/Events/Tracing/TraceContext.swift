import Synchronization

/// A W3C Trace Context: the `traceparent` and `tracestate` values that tie work done in many
/// processes to one distributed trace.
///
/// Tracing systems (OpenTelemetry, Jaeger, Zipkin, swift-distributed-tracing) pass these two
/// values along with every request. Events carry them too: the trace context that is current
/// when an event is dispatched is current again while its listeners run, in every delivery
/// context, and a bridge to another process (such as the Redis bridge) writes it on the wire and
/// restores it for the listeners over there.
///
/// Make a context from the header values your tracer gives you, and run the work inside it:
///
/// ```swift
/// let trace = try TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
/// TraceContext.withCurrent(trace) {
///     center.dispatch(OrderPlaced(id: "A-1001"))   // its listeners see `trace` as current
/// }
/// ```
///
/// A listener, or anything it calls, reads it without a parameter:
///
/// ```swift
/// center.listen(to: OrderPlaced.self, on: .background) { order in
///     if let trace = TraceContext.current {
///         log("order \(order.id) in trace \(trace.traceID)")
///     }
/// }
/// ```
///
/// Rules:
/// - ``current`` is a task-local value: it flows into child tasks and into `Task { }` blocks
///   started inside ``withCurrent(_:operation:)``, and is nil outside any.
/// - A listener on the posting thread runs inside the dispatch, so it sees what the dispatching
///   code sees. A listener in another context (a queue, the main actor, an actor) sees the
///   context that was current when the event was dispatched, not the one current where its
///   handler happens to run. Consumers of `events(of:)` sequences read their own task's value.
/// - The values are kept exactly as given (the text of a later version too); the type only
///   checks them, as the W3C Trace Context recommendation says a receiver must.
public struct TraceContext: Sendable, Hashable, CustomStringConvertible {
    /// The `traceparent` value, exactly as given: `version-traceid-parentid-flags`, such as
    /// `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
    public let traceparent: String
    /// The `tracestate` value, exactly as given: vendor-specific `key=value` entries separated by
    /// commas. Nil when there is none (an empty or blank value is kept as none).
    public let tracestate: String?

    /// The most list members a `tracestate` may have, as the recommendation allows.
    public static let maxTracestateMembers = 32
    /// The longest `tracestate` accepted, in characters: the length the recommendation asks
    /// every system to pass on. A longer one is refused rather than cut, since which entries a
    /// cut may drop is the business of the tracer that wrote them.
    public static let maxTracestateLength = 512

    /// Checks `traceparent` (and `tracestate`, when given) against the W3C Trace Context rules,
    /// and makes a context of them.
    ///
    /// - `traceparent`: two lowercase hex digits of version (not `ff`), then `-`, 32 hex digits
    ///   of trace id (not all zero), `-`, 16 hex digits of parent id (not all zero), `-` and two
    ///   hex digits of flags; all hex digits lowercase. Version `00` has exactly that, 55
    ///   characters. A later version is read the same way and may go on after a further `-`
    ///   (what follows is kept, not read), so that a context from a newer tracer still passes.
    /// - `tracestate`: at most ``maxTracestateMembers`` comma-separated `key=value` members and
    ///   at most ``maxTracestateLength`` characters; keys are lowercase (`vendor` or
    ///   `tenant@vendor`), appear once, and values are printable ASCII without `,` or `=`.
    ///   Spaces and tabs around members, and empty members, are allowed.
    ///
    /// ```swift
    /// let trace = try TraceContext(
    ///     traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ///     tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
    /// ```
    ///
    /// - Throws: ``TraceContextError``, naming what is wrong.
    public init(traceparent: String, tracestate: String? = nil) throws(TraceContextError) {
        try TraceContext.validate(traceparent: traceparent)
        var state = tracestate
        if let given = tracestate {
            if try TraceContext.validate(tracestate: given) == 0 { state = nil }
        }
        self.traceparent = traceparent
        self.tracestate = state
    }

    /// The version: `0` for the layout the recommendation defines today.
    public var version: UInt8 { byte(at: 0) }

    /// The 32 lowercase hex digits that identify the whole trace.
    public var traceID: String { String(decoding: traceparent.utf8.dropFirst(3).prefix(32), as: UTF8.self) }

    /// The 16 lowercase hex digits that identify the caller's span: the parent of the work done
    /// with this context.
    public var parentID: String { String(decoding: traceparent.utf8.dropFirst(36).prefix(16), as: UTF8.self) }

    /// The trace flags byte; bit 0 is ``isSampled``.
    public var flags: UInt8 { byte(at: 53) }

    /// Whether the caller may have recorded its part of the trace (the `sampled` flag): a hint
    /// for recording this part too.
    public var isSampled: Bool { flags & 0x01 != 0 }

    /// `traceparent`, and `tracestate` after a space when there is one.
    public var description: String {
        guard let tracestate else { return traceparent }
        return traceparent + " " + tracestate
    }

    /// The value of the two hex digits at `offset` of `traceparent` (checked on creation).
    private func byte(at offset: Int) -> UInt8 {
        let digits = traceparent.utf8.dropFirst(offset)
        let high = digits.first.flatMap(Self.hexValue) ?? 0
        let low = digits.dropFirst().first.flatMap(Self.hexValue) ?? 0
        return high << 4 | low
    }
}

extension TraceContext {
    /// The trace context of the work running now: of the dispatch whose listener is running, or
    /// the one given to the innermost ``withCurrent(_:operation:)``. Nil outside any.
    ///
    /// A task-local value: child tasks and `Task { }` blocks started inside inherit it; detached
    /// tasks do not.
    public static var current: TraceContext? {
        // Until a context has been made current once in the process, no task can hold one: the
        // flag spares every queued delivery of an app that never traces the task-local lookup.
        guard everBound.load(ordering: .relaxed) else { return nil }
        return storage
    }

    /// The task-local value behind ``current``, bound only through `withCurrent` and
    /// `restoring` (which binds only contexts read from `current`, so `everBound` is set).
    @TaskLocal static var storage: TraceContext?

    /// Whether a context has ever been made current. Relaxed is enough: a task-local value is
    /// seen only by the code that bound it and by tasks it starts afterwards, which are ordered
    /// after the store.
    private static let everBound = Atomic<Bool>(false)

    /// Binds `context` as the task-local value for `operation`. Not generic, so that the
    /// inlined `withCurrent` specializes at its call site and this never looks up metadata.
    @usableFromInline
    static func bind(_ context: TraceContext?, _ operation: () -> Void) {
        if context != nil, !everBound.load(ordering: .relaxed) { everBound.store(true, ordering: .relaxed) }
        $storage.withValue(context, operation: operation)
    }

    /// Runs `operation` with `context` as ``current`` (nil runs it outside any trace), and
    /// returns what it returns.
    ///
    /// ```swift
    /// TraceContext.withCurrent(trace) {
    ///     center.dispatch(OrderPlaced(id: "A-1001"))
    /// }
    /// ```
    // Inlinable: unspecialized, its generic result cost a metadata lookup per call.
    // Discardable: the operation is often a dispatch, whose result is itself discardable.
    @inlinable
    @discardableResult
    public static func withCurrent<R, Failure: Error>(
        _ context: TraceContext?, operation: () throws(Failure) -> R
    ) throws(Failure) -> R {
        var result: Result<R, Failure>?
        bind(context) { result = Result { () throws(Failure) in try operation() } }
        return try result.unsafelyUnwrapped.get()
    }

    /// Runs the asynchronous `operation` with `context` as ``current`` (nil runs it outside any
    /// trace), and returns what it returns.
    ///
    /// ```swift
    /// try await TraceContext.withCurrent(trace) {
    ///     try await center.dispatchAndWait(OrderPlaced(id: "A-1001"))
    /// }
    /// ```
    @discardableResult
    public static func withCurrent<R>(
        _ context: TraceContext?, isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        if context != nil, !everBound.load(ordering: .relaxed) { everBound.store(true, ordering: .relaxed) }
        return try await $storage.withValue(context, operation: operation, isolation: isolation)
    }
}

public import Events
public import Foundation

/// The sender of every event that a ``RedisBridge`` received from Redis.
///
/// Listeners that care where an event came from listen to `Sent<E>` and ask its sender:
///
/// ```swift
/// let subscription = center.listen(to: Sent<OrderPlaced>.self) { sent in
///     if let origin = sent.sender?.object(as: RemoteOrigin.self) {
///         print("from \(origin.source), event \(origin.id)")
///     } else {
///         print("dispatched in this process")
///     }
/// }
/// ```
///
/// The bridge never publishes an event whose sender is a `RemoteOrigin`, which is what keeps
/// events that came in from Redis from being echoed back out (by this bridge or any other
/// bridge attached to the same center).
public final class RemoteOrigin: Sendable, CustomStringConvertible {
    /// The CloudEvents `id` of the event.
    public var id: String { text(scanned.id) }
    /// The CloudEvents `source`: the app and instance that published it.
    public var source: String { text(scanned.source) }
    /// The CloudEvents `type`: the event's wire name.
    public var type: String { text(scanned.type) }
    /// A description of the object that dispatched it in the publishing process, if any.
    public var subject: String? { scanned.subject.map(text) }
    /// When it was published, if the message said.
    public var time: Date? { scanned.time }
    /// The trace context the publisher wrote (the CloudEvents distributed tracing extension's
    /// `traceparent` and `tracestate` attributes), if any: the context that was current where
    /// the event was dispatched, in another process.
    ///
    /// It is also `TraceContext.current` while the event's listeners run, so code that
    /// only needs to pass it on never reads it here. Nil when the message has no
    /// `traceparent`, or one that is not valid (the event is delivered all the same); an invalid
    /// `tracestate` is left out.
    ///
    /// ```swift
    /// center.listen(to: Sent<OrderPlaced>.self) { sent in
    ///     if let trace = sent.sender?.object(as: RemoteOrigin.self)?.traceContext {
    ///         print("order \(sent.event.id) continues trace \(trace.traceID)")
    ///     }
    /// }
    /// ```
    public var traceContext: TraceContext? {
        guard let traceparent = scanned.traceparent else { return nil }
        return TraceContext.received(traceparent: text(traceparent), tracestate: scanned.tracestate.map(text))
    }
    /// Whether the message has a `traceparent` string: costs nothing to ask, unlike
    /// ``traceContext``, which reads and checks it.
    var hasTraceparent: Bool { scanned.traceparent != nil }
    /// The Redis channel (Pub/Sub) or stream key (Streams) it arrived on.
    public let key: String
    /// The stream entry ID, for events that arrived through a stream.
    public let streamEntryID: String?
    /// How many times this event's stream entry has been delivered, this delivery included, as
    /// Redis counts it for the consumer group: 1 the first time; more when the entry comes
    /// back after a failed listener, a restart, or from a consumer that died. Always 1 for
    /// Pub/Sub. A handler whose effect must not be repeated checks it (or the event's ``id``).
    public let deliveryCount: Int

    /// The message the event came in, and where its attributes are in it. The attributes are
    /// made into strings when asked for: most listeners never ask, and making them for every
    /// event (and freeing them after) was a visible share of what receiving an event cost.
    private let message: [UInt8]
    private let scanned: CloudEvent.Scanned

    /// `scanned` holds positions in `message`.
    init(message: [UInt8], scanned: CloudEvent.Scanned, key: String, streamEntryID: String?, deliveryCount: Int = 1) {
        self.message = message
        self.scanned = scanned
        self.key = key
        self.streamEntryID = streamEntryID
        self.deliveryCount = deliveryCount
    }

    private func text(_ token: JSONScanner.StringToken) -> String {
        message.withUnsafeBufferPointer { JSONScanner($0).string(token) }
    }

    public var description: String { "\(type) \(id) from \(source) via \(key)" }
}

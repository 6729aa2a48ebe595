import Foundation

/// The sender of every event that a ``RedisBridge`` received from Redis.
///
/// Listeners that care where an event came from take the sender parameter and ask for it:
///
/// ```swift
/// let subscription = center.listen(to: OrderPlaced.self) { order, sender in
///     if let origin = sender?.object(as: RemoteOrigin.self) {
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
    public let id: String
    /// The CloudEvents `source`: the app and instance that published it.
    public let source: String
    /// The CloudEvents `type`: the event's wire name.
    public let type: String
    /// A description of the object that dispatched it in the publishing process, if any.
    public let subject: String?
    /// When it was published, if the message said.
    public let time: Date?
    /// The Redis channel (Pub/Sub) or stream key (Streams) it arrived on.
    public let key: String
    /// The stream entry ID, for events that arrived through a stream.
    public let streamEntryID: String?

    init(_ event: CloudEvent, key: String, streamEntryID: String?) {
        id = event.id
        source = event.source
        type = event.type
        subject = event.subject
        time = event.time
        self.key = key
        self.streamEntryID = streamEntryID
    }

    public var description: String { "\(type) \(id) from \(source) via \(key)" }
}

public import Events

/// An event that can cross process boundaries through a ``RedisBridge``.
///
/// A remote event is `Codable` (its JSON encoding becomes the CloudEvents `data` member) and
/// declares a stable ``wireName``: the CloudEvents `type` other processes, possibly written in
/// other languages, use to recognise it. The wire name is independent of the Swift type name,
/// so renaming or moving the type never changes what goes over the wire.
///
/// The `data` JSON is what Foundation's `JSONEncoder()` writes with its default settings (a
/// `Date` is a number of seconds since 2001-01-01, `Data` is Base64), with object members in
/// the order the type encodes them; incoming `data` is read as `JSONDecoder()` reads it. The
/// bridge codes common values itself, without Foundation's intermediate tree, and hands
/// anything else to Foundation, so the result is the same either way.
///
/// ```swift
/// struct OrderPlaced: RemoteEvent {
///     static let wireName = "com.example.shop.order-placed"
///     let orderID: String
///     let total: Int
/// }
/// ```
///
/// Rules:
/// - Two event types bridged by the same ``RedisBridge`` must have different wire names;
///   the bridge rejects the second one with ``RedisBridgeError/duplicateWireName(_:)``.
/// - Change the wire name only together with every process that uses it: a process that
///   receives an unknown `type` reports it and acknowledges the message without delivering it.
public protocol RemoteEvent: Event, Codable {
    /// The stable name of this event on the wire (the CloudEvents `type` attribute).
    static var wireName: String { get }
}

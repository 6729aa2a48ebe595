/// An event together with the object that dispatched it: listen to `Sent<E>` instead of `E` when
/// a handler needs to know who sent each event.
///
/// ```swift
/// let audit = center.listen(to: Sent<PostWritten>.self) { sent in
///     print(sent.event.title, "from", sent.sender?.description ?? "nobody")
/// }
/// ```
///
/// `Sent<E>` hears exactly what `E` hears (an event type, every event of a protocol written as
/// `Sent<any CartEvent>`, or every named event as `Sent<NamedEvent>`), in every context and with
/// every option of `listen(to:)`: an owner, `on: .main`, `isolatedTo:`, `from:`, `once`,
/// current values, coalescing (a coalesced listener receives the newest event with its sender).
/// It works with ``EventCenter/intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)`` too.
///
/// The sender is held only for the length of the delivery: `Sent` keeps the object strongly, as
/// `dispatch(_:from:)` did while it ran, so do not store a `Sent` where it would keep a sender
/// alive. Events that arrive from another process through a bridge carry the bridge's origin
/// object as their sender.
public struct Sent<Wrapped: Sendable>: Sendable {
    /// The event as it was dispatched.
    public let event: Wrapped
    /// The object the event was dispatched `from:`, or nil when it was dispatched without one.
    public let sender: Sender?

    init(event: Wrapped, sender: Sender?) {
        self.event = event
        self.sender = sender
    }
}

extension Sent: CustomStringConvertible {
    public var description: String {
        "\(event) from \(sender?.description ?? "nobody")"
    }
}

extension Sent: Equatable where Wrapped: Equatable {}
extension Sent: Hashable where Wrapped: Hashable {}

/// An event a center keeps after its dispatch: a current value, or an event held for its first
/// listener. It can be delivered to one record later, in that record's context.
struct KeptEvent: Sendable {
    /// The order of keeping, across every event type and name of the center.
    let sequence: UInt64
    /// Compared without loading the sender (a weak load under a lock could end the object's
    /// life there, and run its deinitializer under the lock).
    let senderID: ObjectIdentifier?
    let sender: WeakObject?
    /// The event itself, and how to deliver it: one allocation per kept event, where two
    /// closures over the event took one each.
    let payload: KeptPayload
    /// Whether it is a current value kept for its sender, which goes away with the sender.
    var isPerSender = false

    /// Delivers the event to a record of its key, from the given sender; returns whether it
    /// was received.
    func deliver(_ center: EventCenter, _ record: ListenerRecord, _ sender: AnyObject?) -> Bool {
        payload.deliver(center, record, sender)
    }

    /// The event as listeners see it, from the given sender.
    func value(_ sender: AnyObject?) -> any Event { payload.value(sender) }

    /// What the event is, for messages: its type or its name. Described only when a message
    /// needs it, since `String(describing:)` of a type costs many times a whole dispatch.
    var identity: EventIdentity { payload.identity }
    /// The event, for messages.
    var description: String { identity.description }

    /// Keeps a typed event.
    static func typed<E: Event>(_ event: E, from sender: AnyObject?, sequence: UInt64) -> KeptEvent {
        typed(TypedPayload(event), from: sender, sequence: sequence)
    }

    /// Keeps a typed event whose payload the caller made.
    static func typed(_ payload: KeptPayload, from sender: AnyObject?, sequence: UInt64) -> KeptEvent {
        KeptEvent(
            sequence: sequence, senderID: sender.map(ObjectIdentifier.init), sender: sender.map(WeakObject.init),
            payload: payload)
    }

    /// Keeps a named event without its sender, which is held weakly and put back when the
    /// event is delivered or read: a ``NamedEvent`` holds its sender strongly.
    static func named(
        _ name: EventName, data: Payload.Entry?, payload: Payload, from sender: AnyObject?, sequence: UInt64
    ) -> KeptEvent {
        KeptEvent(
            sequence: sequence, senderID: sender.map(ObjectIdentifier.init), sender: sender.map(WeakObject.init),
            payload: NamedPayload(name: name, data: data, payload: payload))
    }

    /// Whether a listener with the sender filter `filter` (nil: none) could receive it.
    func matches(filter: ObjectIdentifier?) -> Bool {
        filter == nil || filter == senderID
    }

    /// Whether this is one of `current`, the current values a registration takes (which stay
    /// kept), rather than a held event (which leaves the hold).
    func isCurrentValue(in current: [KeptEvent]) -> Bool {
        current.contains { $0.sequence == sequence }
    }

    /// Delivers the event to a family listener, whose record takes it boxed.
    func deliverToFamily(_ center: EventCenter, _ record: ListenerRecord, _ sender: AnyObject?) -> Bool {
        // Unchecked: a family listener's record is a `TypedListenerRecord<FamilyEvent>`, as
        // every record in a family's list.
        center.deliver(
            FamilyEvent(event: value(sender)), to: unsafeDowncast(record, to: TypedListenerRecord<FamilyEvent>.self),
            from: sender, sender.map(Sender.init), nil
        ).delivered
    }
}

/// A weak reference that can be shared across threads.
final class WeakObject: @unchecked Sendable {
    // Why @unchecked is safe: the one stored property is an immutable weak reference, whose
    // loads are atomic; the object is only compared by identity or handed to listeners as the
    // sender of an event, as `dispatch` does.
    weak let object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}

/// What a ``KeptEvent`` holds of its event. Subclassed per kind of event; immutable.
@usableFromInline
class KeptPayload: @unchecked Sendable {
    // Why @unchecked is safe: the class has no stored state, and its subclasses only `let`
    // properties of Sendable types.

    var identity: EventIdentity { preconditionFailure("subclasses describe their event") }

    func deliver(_ center: EventCenter, _ record: ListenerRecord, _ sender: AnyObject?) -> Bool {
        preconditionFailure("subclasses deliver their event")
    }

    func value(_ sender: AnyObject?) -> any Event {
        preconditionFailure("subclasses give their event")
    }
}

/// A typed event, kept.
// Usable from inlinable code so that `dispatch`, specialized in the caller, makes it there:
// made in the unspecialized flow-control path, each one looked up its generic metadata in the
// runtime's table, which cost more than the rest of keeping the event.
@usableFromInline
final class TypedPayload<E: Event>: KeptPayload, @unchecked Sendable {
    // Why @unchecked is safe: `event` is an immutable `Sendable` value.
    let event: E

    @usableFromInline
    init(_ event: E) {
        self.event = event
    }

    override var identity: EventIdentity { .type(TypeIdentity(E.self)) }

    override func deliver(_ center: EventCenter, _ record: ListenerRecord, _ sender: AnyObject?) -> Bool {
        // Unchecked: a kept event is only ever delivered to records of its own key, which are
        // all `TypedListenerRecord<E>` (see the dispatch loop).
        center.deliver(
            event, to: unsafeDowncast(record, to: TypedListenerRecord<E>.self), from: sender, sender.map(Sender.init),
            nil
        ).delivered
    }

    override func value(_ sender: AnyObject?) -> any Event { event }
}

/// A named event, kept without its sender (see ``KeptEvent/named(_:data:payload:from:sequence:)``).
final class NamedPayload: KeptPayload, @unchecked Sendable {
    // Why @unchecked is safe: every property is an immutable `Sendable` value.
    let name: EventName
    let data: Payload.Entry?
    let payload: Payload

    init(name: EventName, data: Payload.Entry?, payload: Payload) {
        self.name = name
        self.data = data
        self.payload = payload
    }

    override var identity: EventIdentity { .name(name.rawValue) }

    override func deliver(_ center: EventCenter, _ record: ListenerRecord, _ sender: AnyObject?) -> Bool {
        // Unchecked: records of a name, or of every name, are `TypedListenerRecord<NamedEvent>`s.
        center.deliver(
            make(sender), to: unsafeDowncast(record, to: TypedListenerRecord<NamedEvent>.self), from: sender,
            sender.map(Sender.init), nil
        ).delivered
    }

    override func value(_ sender: AnyObject?) -> any Event { make(sender) }

    private func make(_ sender: AnyObject?) -> NamedEvent {
        NamedEvent(name: name, sender: sender.map(Sender.init), data: data, payload: payload)
    }
}

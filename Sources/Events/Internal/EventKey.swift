/// What a listener is registered for; the registry keeps one list of listeners per key, so a
/// dispatch only ever looks at the listeners of its own key.
@usableFromInline
enum EventKey: Hashable, Sendable {
    /// A typed event, identified by its exact static type.
    case type(ObjectIdentifier)
    /// A named event (`NamedEvent`) with this name.
    case name(String)
    /// Listeners of every named event, whatever its name (like a nil name in `NotificationCenter`).
    case anyName

    @inlinable
    init<E: Event>(_ type: E.Type) {
        self = .type(ObjectIdentifier(type))
    }
}

/// The `key:` of an owner-bound registration, type-erased. A class, so that records without a
/// key pay one nil reference for it rather than an inline existential.
final class ListenerKey: Hashable, @unchecked Sendable {
    // Why @unchecked is safe: `base` is only ever built from a `Hashable & Sendable` value (see
    // the initializer), so the erased value inside is Sendable; `AnyHashable` itself just cannot
    // say so.
    let base: AnyHashable
    /// Computed once, outside any lock: hashing a user's key runs user code.
    let hash: Int

    init(_ value: some Hashable & Sendable) {
        base = AnyHashable(value)
        hash = base.hashValue
    }

    static func == (lhs: ListenerKey, rhs: ListenerKey) -> Bool {
        lhs.hash == rhs.hash && lhs.base == rhs.base
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}

/// Where duplicate detection looks for keyed registrations that may equal a new one. Built only
/// from integers and identities, so the registry can hash it under its lock; the keys
/// themselves are compared afterwards, outside the lock.
struct DuplicateSlot: Hashable, Sendable {
    let eventKey: EventKey
    let ownerID: ObjectIdentifier
    let senderID: ObjectIdentifier?
    let keyHash: Int
}

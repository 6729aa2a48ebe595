/// The parts of a registration that most listeners do not have: a key, an owner or a sender
/// (held weakly), a priority other than the default, or a named event key. A record points to
/// one only when it needs one, so that the common closure listener pays one nil reference for
/// all of them.
@usableFromInline
final class ListenerDetails: @unchecked Sendable {
    // Why @unchecked is safe: every stored property is a `let` of a Sendable type or a weak
    // reference whose loads are atomic; the non-Sendable `sender` is only compared by identity,
    // never used.

    /// The key of a named listener (a name, or every name); nil for a typed listener, whose key
    /// follows from its class.
    let eventKey: EventKey?
    /// Registration order of a named listener, to merge the lists of a name and of every name;
    /// 0 for typed listeners, whose list order alone is registration order.
    let sequence: UInt64
    let priority: Priority
    let key: ListenerKey?
    /// Set for owner-bound listeners; compared without touching the owner.
    let ownerID: ObjectIdentifier?
    @usableFromInline weak let owner: (any AnyObject & Sendable)?
    /// Set when the listener was registered with `from: sender`; the object is held weakly and
    /// only compared by identity, never used.
    let senderID: ObjectIdentifier?
    @usableFromInline weak let sender: AnyObject?
    /// The family a family listener hears: what kept events it may take, and the type
    /// diagnostics name in place of the boxed event its record is generic over.
    let family: FamilyKind?

    private init(
        eventKey: EventKey?, sequence: UInt64, priority: Priority, key: ListenerKey?,
        owner: (any AnyObject & Sendable)?, sender: AnyObject?, family: FamilyKind?
    ) {
        self.family = family
        self.eventKey = eventKey
        self.sequence = sequence
        self.priority = priority
        self.key = key
        self.ownerID = owner.map { ObjectIdentifier($0) }
        self.owner = owner
        self.senderID = sender.map { ObjectIdentifier($0) }
        self.sender = sender
    }

    /// The details of a registration, or nil when it has none (a typed listener with the
    /// default priority, no key, no owner, no sender). `owner` is the owner kept here, not one
    /// that the record keeps itself.
    static func make(
        eventKey: EventKey?, sequence: UInt64 = 0, priority: Priority, key: ListenerKey?,
        owner: (any AnyObject & Sendable)?, sender: AnyObject?, family: FamilyKind? = nil
    ) -> ListenerDetails? {
        if eventKey == nil, priority == .default, key == nil, owner == nil, sender == nil { return nil }
        return ListenerDetails(
            eventKey: eventKey, sequence: sequence, priority: priority, key: key, owner: owner, sender: sender,
            family: family)
    }

    /// The details of a typed closure listener, which has no key and no owner.
    @usableFromInline
    static func make(priority: Priority, sender: AnyObject?) -> ListenerDetails? {
        make(eventKey: nil, priority: priority, key: nil, owner: nil, sender: sender)
    }
}

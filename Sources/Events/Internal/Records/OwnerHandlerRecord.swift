/// A posting-thread listener bound to an owner: it keeps the user's closure with the owner's
/// real type, so a call needs no wrapper closure and no cast beyond an unchecked downcast.
///
/// It keeps its owner itself rather than in its details, so that the usual owner-bound
/// registration (no key, no sender, default priority) needs no details object.
final class OwnerHandlerRecord<E: Sendable, Owner: AnyObject & Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    let body: @Sendable (Owner, E, Sender?) throws -> Void
    private let storedOwnerID: ObjectIdentifier
    private weak let storedOwner: Owner?

    init(
        registry: Registry, once: Bool, callSite: CallSite, owner: Owner, details: ListenerDetails?,
        body: @escaping @Sendable (Owner, E, Sender?) throws -> Void
    ) {
        self.body = body
        self.storedOwnerID = ObjectIdentifier(owner)
        self.storedOwner = owner
        super.init(
            registry: registry, shape: .ownerKeptByRecord, once: once, callSite: callSite, details: details)
    }

    override var ownerID: ObjectIdentifier? { storedOwnerID }
    override var owner: (any AnyObject & Sendable)? { storedOwner }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        // Unchecked: a checked cast is a runtime call for every owner-bound listener of every
        // dispatch. Safe because the dispatch loop passes the owner it loaded from this very
        // record (`owner` above, from `storedOwner`, an `Owner?`), and only after checking that
        // it is not nil.
        try body(unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self), event, sender)
    }
}

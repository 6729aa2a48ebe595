import Synchronization

/// Why a listener no longer receives events. Stored in one atomic byte per listener; every
/// transition is away from `.active` and happens at most once.
@usableFromInline
enum ListenerState: UInt8, Sendable {
    case active = 0
    /// `cancel()` or one of the `remove` calls.
    case cancelled
    /// A `once` listener that has received its event.
    case consumed
    /// The owner of an owner-bound listener deinitialized.
    case ownerGone
    /// The sender named in `from:` deinitialized, so the filter can never match again.
    case senderGone
}

/// One registration: everything dispatch, removal and diagnostics need to know about a listener.
///
/// The handler lives in the generic subclass ``TypedListenerRecord``; the registry stores the
/// base class so that lists of any event type share one representation, and dispatch, which
/// knows the event type from the list's key, downcasts without a dynamic check.
@usableFromInline
class ListenerRecord: @unchecked Sendable {
    // Why @unchecked is safe: every stored property is a `let` of a Sendable type, an `Atomic`,
    // or a weak reference whose loads are atomic (the non-Sendable `sender` is only compared by
    // identity, never used); the class is non-final only so that
    // `TypedListenerRecord` can add its typed handler, itself a `let` of a `@Sendable` closure.

    let eventKey: EventKey
    /// The event type, for diagnostics.
    let eventType: Any.Type
    let priority: Priority
    /// Ties in priority run in ascending sequence: registration order.
    let sequence: UInt64
    @usableFromInline let once: Bool
    let callSite: CallSite
    let key: ListenerKey?

    /// Set for owner-bound listeners; compared without touching the owner.
    @usableFromInline let ownerID: ObjectIdentifier?
    @usableFromInline weak let owner: (any AnyObject & Sendable)?
    /// Set when the listener was registered with `from: sender`; the object is held weakly and
    /// only compared by identity, never used.
    @usableFromInline let senderID: ObjectIdentifier?
    @usableFromInline weak let sender: AnyObject?

    @usableFromInline let rawState = Atomic<UInt8>(ListenerState.active.rawValue)

    init(
        eventKey: EventKey, eventType: Any.Type, priority: Priority, sequence: UInt64, once: Bool,
        callSite: CallSite, key: ListenerKey?, owner: (any AnyObject & Sendable)?, sender: AnyObject?
    ) {
        self.eventKey = eventKey
        self.eventType = eventType
        self.priority = priority
        self.sequence = sequence
        self.once = once
        self.callSite = callSite
        self.key = key
        self.ownerID = owner.map { ObjectIdentifier($0) }
        self.owner = owner
        self.senderID = sender.map { ObjectIdentifier($0) }
        self.sender = sender
    }

    /// The event this listener hears, for messages: a type name, or a quoted event name.
    var eventDescription: String {
        switch eventKey {
        case .type: String(describing: eventType)
        case .name(let name): "named event \"\(name)\""
        case .anyName: "every named event"
        }
    }

    /// The slot of a keyed owner-bound registration in the registry's duplicate index.
    var duplicateSlot: DuplicateSlot? {
        guard let key, let ownerID else { return nil }
        return DuplicateSlot(eventKey: eventKey, ownerID: ownerID, senderID: senderID, keyHash: key.hash)
    }

    var state: ListenerState {
        ListenerState(rawValue: rawState.load(ordering: .acquiring)) ?? .cancelled
    }

    @inlinable var isActive: Bool { rawState.load(ordering: .acquiring) == ListenerState.active.rawValue }

    /// Moves an active listener to `reason`. Returns false when it had already stopped, so that
    /// exactly one caller performs the follow-up work (purging it from the registry).
    @discardableResult @usableFromInline
    func retire(_ reason: ListenerState) -> Bool {
        let retired = rawState.compareExchange(
            expected: ListenerState.active.rawValue, desired: reason.rawValue, ordering: .acquiringAndReleasing
        ).exchanged
        if !retired, reason == .cancelled, once {
            // A once listener whose event is still queued in its context: cancelling must stop
            // that pending delivery too (rule 7), so consumed becomes cancelled.
            _ = rawState.compareExchange(
                expected: ListenerState.consumed.rawValue, desired: ListenerState.cancelled.rawValue,
                ordering: .acquiringAndReleasing)
        }
        return retired
    }

    /// Whether a queued delivery may still run when its turn comes: the listener is active, or
    /// it is a once listener whose single event this is.
    var acceptsQueuedDelivery: Bool {
        let state = rawState.load(ordering: .acquiring)
        return state == ListenerState.active.rawValue || (once && state == ListenerState.consumed.rawValue)
    }

    /// Claims one delivery. This is the instant a handler call begins: a listener whose claim
    /// succeeds is called; `cancel()` linearizes against it, so after `cancel()` returns no
    /// claim can succeed. A `once` listener's claim consumes it, so only one thread ever wins.
    @inlinable
    func claim() -> Bool {
        if once { return retire(.consumed) }
        return isActive
    }

    /// Whether the listener could still receive an event: active, its owner (if any) alive, its
    /// sender filter (if any) alive. Loads weak references, so never call it under the registry
    /// lock: the temporary strong reference may be the last one and run a deinitializer.
    /// Retires the listener when it finds the owner or sender gone.
    func checkLiveness() -> Bool {
        guard isActive else { return false }
        if ownerID != nil, owner == nil {
            retire(.ownerGone)
            return false
        }
        if senderID != nil, sender == nil {
            retire(.senderGone)
            return false
        }
        return true
    }

    /// Whether this registration has the identity that duplicate detection compares: same
    /// owner, same key, same sender filter. Event type is implied by the list it sits in.
    /// Call only while the caller holds `owner` and `sender` strongly (so the weak loads here
    /// cannot release a last reference) and outside the registry lock (`==` of a key is user code).
    func isDuplicate(owner: AnyObject, key: ListenerKey, sender: AnyObject?) -> Bool {
        guard isActive, ownerID == ObjectIdentifier(owner), self.key == key else { return false }
        guard self.owner === owner else { return false }
        guard let sender else { return senderID == nil }
        return senderID == ObjectIdentifier(sender) && self.sender === sender
    }
}

/// A listener of the event type `E`, holding its handler.
///
/// Exactly one of `handler` and `route` is set: `handler` for listeners that run on the
/// dispatching thread, `route` for listeners whose handler runs in another context (main
/// actor, an actor, a queue), which the route enqueues to.
@usableFromInline
class TypedListenerRecord<E: Event>: ListenerRecord, @unchecked Sendable {
    /// Called with the owner (nil for closure listeners), the event and its sender.
    @usableFromInline let handler: (@Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void)?
    @usableFromInline let route: (any AsyncRoute<E>)?
    /// Whether `route` is set (a flag, so the loop need not copy the existential to find out).
    @usableFromInline let isRouted: Bool

    init(
        eventKey: EventKey = EventKey(E.self), priority: Priority, sequence: UInt64, once: Bool,
        callSite: CallSite, key: ListenerKey?, owner: (any AnyObject & Sendable)?, sender: AnyObject?,
        handler: (@Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void)?,
        route: (any AsyncRoute<E>)?
    ) {
        precondition(handler == nil || route == nil, "a listener has a handler or a route, not both")
        self.handler = handler
        self.route = route
        self.isRouted = route != nil
        super.init(
            eventKey: eventKey, eventType: E.self, priority: priority, sequence: sequence, once: once,
            callSite: callSite, key: key, owner: owner, sender: sender)
    }

    /// Runs the handler of a posting-thread listener. A method rather than a closure call, so
    /// that the dispatch loop calls it on a borrowed record without retaining a closure context.
    @usableFromInline
    func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        try handler!(owner, event, sender)
    }
}

/// A posting-thread listener whose handler takes the event alone (the most common form): it
/// stores the user's closure as is, with no wrapper closure around it.
final class EventHandlerRecord<E: Event>: TypedListenerRecord<E>, @unchecked Sendable {
    let body: @Sendable (E) throws -> Void

    init(
        eventKey: EventKey, priority: Priority, sequence: UInt64, once: Bool, callSite: CallSite,
        sender: AnyObject?, body: @escaping @Sendable (E) throws -> Void
    ) {
        self.body = body
        super.init(
            eventKey: eventKey, priority: priority, sequence: sequence, once: once, callSite: callSite, key: nil,
            owner: nil, sender: sender, handler: nil, route: nil)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        try body(event)
    }
}

/// A posting-thread listener bound to an owner: it keeps the user's closure with the owner's
/// real type, so a call needs no wrapper closure and no cast beyond an unchecked downcast.
final class OwnerHandlerRecord<E: Event, Owner: AnyObject & Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    let body: @Sendable (Owner, E, Sender?) throws -> Void

    init(
        priority: Priority, sequence: UInt64, once: Bool, callSite: CallSite, key: ListenerKey?, owner: Owner,
        sender: AnyObject?, body: @escaping @Sendable (Owner, E, Sender?) throws -> Void
    ) {
        self.body = body
        super.init(
            eventKey: EventKey(E.self), priority: priority, sequence: sequence, once: once, callSite: callSite,
            key: key, owner: owner, sender: sender, handler: nil, route: nil)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        // The dispatch loop passes the owner it loaded for this record: an `Owner`.
        try body(unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self), event, sender)
    }
}

import Synchronization

/// Why a listener no longer receives events. Stored in one atomic byte per listener; every
/// transition is away from `.active` and happens at most once.
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
    let once: Bool
    let callSite: CallSite
    let key: ListenerKey?

    /// Set for owner-bound listeners; compared without touching the owner.
    let ownerID: ObjectIdentifier?
    weak let owner: (any AnyObject & Sendable)?
    /// Set when the listener was registered with `from: sender`; the object is held weakly and
    /// only compared by identity, never used.
    let senderID: ObjectIdentifier?
    weak let sender: AnyObject?

    private let rawState = Atomic<UInt8>(ListenerState.active.rawValue)

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

    /// The slot of a keyed owner-bound registration in the registry's duplicate index.
    var duplicateSlot: DuplicateSlot? {
        guard let key, let ownerID else { return nil }
        return DuplicateSlot(eventKey: eventKey, ownerID: ownerID, senderID: senderID, keyHash: key.hash)
    }

    var state: ListenerState {
        ListenerState(rawValue: rawState.load(ordering: .acquiring)) ?? .cancelled
    }

    var isActive: Bool { rawState.load(ordering: .acquiring) == ListenerState.active.rawValue }

    /// Moves an active listener to `reason`. Returns false when it had already stopped, so that
    /// exactly one caller performs the follow-up work (purging it from the registry).
    @discardableResult
    func retire(_ reason: ListenerState) -> Bool {
        rawState.compareExchange(
            expected: ListenerState.active.rawValue, desired: reason.rawValue, ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Claims one delivery. This is the instant a handler call begins: a listener whose claim
    /// succeeds is called; `cancel()` linearizes against it, so after `cancel()` returns no
    /// claim can succeed. A `once` listener's claim consumes it, so only one thread ever wins.
    @inline(__always)
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
final class TypedListenerRecord<E: Event>: ListenerRecord, @unchecked Sendable {
    /// Called with the owner (nil for closure listeners), the event and its sender.
    let handler: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) -> Void

    init(
        eventKey: EventKey = EventKey(E.self), priority: Priority, sequence: UInt64, once: Bool,
        callSite: CallSite, key: ListenerKey?, owner: (any AnyObject & Sendable)?, sender: AnyObject?,
        handler: @escaping @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) -> Void
    ) {
        self.handler = handler
        super.init(
            eventKey: eventKey, eventType: E.self, priority: priority, sequence: sequence, once: once,
            callSite: callSite, key: key, owner: owner, sender: sender)
    }
}

import Synchronization

/// Why a listener no longer receives events. Stored in one atomic byte per listener; every
/// transition is away from `.active` and happens at most once.
@usableFromInline
enum ListenerState: UInt8, Sendable {
    case active = 0
    /// `cancel()` or one of the `remove` calls.
    case cancelled
    /// A `once` listener that has received its event. For a listener in another context this
    /// means its event is on its way: the record stays listed, so that `remove` can still find
    /// it and stop that delivery, until the context takes it (``delivered``) or it is cancelled.
    case consumed
    /// The owner of an owner-bound listener deinitialized.
    case ownerGone
    /// The sender named in `from:` deinitialized, so the filter can never match again.
    case senderGone
    /// A `once` listener in another context whose event its context has taken: run, or skipped
    /// because the owner was gone.
    case delivered
}

/// What kind of listener a record is, in one byte read by every delivery.
@usableFromInline
struct ListenerTraits: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    // Computed rather than stored `static let`s: a stored one is a lazily initialized global,
    // reached through an accessor and `swift_once` on every dispatch.

    /// Ends after its first event.
    @inlinable static var once: ListenerTraits { ListenerTraits(rawValue: 1 << 0) }
    /// The handler runs in another context, reached through the record's route.
    @inlinable static var routed: ListenerTraits { ListenerTraits(rawValue: 1 << 1) }
    /// Bound to an owner (held weakly): never called after the owner is gone.
    @inlinable static var ownerBound: ListenerTraits { ListenerTraits(rawValue: 1 << 2) }
    /// Registered with `from: sender`: hears only events dispatched from that object.
    @inlinable static var filtersSender: ListenerTraits { ListenerTraits(rawValue: 1 << 3) }
    /// An `EventHandlerRecord`, whose handler takes the event alone: dispatch calls it directly.
    @inlinable static var eventOnly: ListenerTraits { ListenerTraits(rawValue: 1 << 4) }
    /// Overrides `didCancel()`: only such records are called there when they are cancelled.
    @inlinable static var cancelHook: ListenerTraits { ListenerTraits(rawValue: 1 << 5) }
}

/// The parts of a registration that most listeners do not have: a key, an owner or a sender
/// (held weakly), a priority other than the default, or a named event key. A record points to
/// one only when it needs one, so that the common closure listener pays 8 bytes for all of them.
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

    private init(
        eventKey: EventKey?, sequence: UInt64, priority: Priority, key: ListenerKey?,
        owner: (any AnyObject & Sendable)?, sender: AnyObject?
    ) {
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
        owner: (any AnyObject & Sendable)?, sender: AnyObject?
    ) -> ListenerDetails? {
        if eventKey == nil, priority == .default, key == nil, owner == nil, sender == nil { return nil }
        return ListenerDetails(
            eventKey: eventKey, sequence: sequence, priority: priority, key: key, owner: owner, sender: sender)
    }

    /// The details of a typed closure listener, which has no key and no owner.
    @usableFromInline
    static func make(priority: Priority, sender: AnyObject?) -> ListenerDetails? {
        make(eventKey: nil, priority: priority, key: nil, owner: nil, sender: sender)
    }
}

/// One registration: everything dispatch, removal and diagnostics need to know about a listener.
///
/// The handler lives in the generic subclass ``TypedListenerRecord``; the registry stores the
/// base class so that lists of any event type share one representation, and dispatch, which
/// knows the event type from the list's key, downcasts without a dynamic check.
///
/// A record is small, because every registration keeps one alive: the call site, one byte of
/// state, one of traits, the registry and the optional details, 56 bytes with the object
/// header (72 with a closure, an 80-byte heap block). The event key of a typed listener follows
/// from its class; everything rare sits in ``ListenerDetails``.
@usableFromInline
class ListenerRecord: @unchecked Sendable {
    // Why @unchecked is safe: every stored property is a `let` of a Sendable type or an
    // `Atomic`; the class is non-final only so that `TypedListenerRecord` can add its typed
    // handler, itself a `let` of a `@Sendable` closure.
    //
    // What dispatch calls is `final`, so that it inlines into the caller's specialized loop.

    let callSite: CallSite
    @usableFromInline let rawState = Atomic<UInt8>(ListenerState.active.rawValue)
    @usableFromInline let traits: ListenerTraits
    /// Whether the record is in its registry's list. Written only under the registry lock, set
    /// false as the registry's last touch of the record; read without the lock by a
    /// subscription's `deinit` (see ``isKeptByList``).
    let listed = Atomic<Bool>(false)
    /// The registry the record goes into, for `cancel()`. Strong: a registry holds no
    /// reference back to its center, and the center empties it when it deinitializes, which
    /// breaks the cycle through the lists (a weak reference cost several atomic operations on
    /// every registration and cancel).
    let registry: Registry
    @usableFromInline let details: ListenerDetails?

    init(
        registry: Registry, once: Bool, isRouted: Bool, ownsOwner: Bool = false, eventOnly: Bool = false,
        hasCancelHook: Bool = false, callSite: CallSite, details: ListenerDetails?
    ) {
        var traits: ListenerTraits = eventOnly ? .eventOnly : []
        if hasCancelHook { traits.insert(.cancelHook) }
        if once { traits.insert(.once) }
        if isRouted { traits.insert(.routed) }
        if ownsOwner || details?.ownerID != nil { traits.insert(.ownerBound) }
        if details?.senderID != nil { traits.insert(.filtersSender) }
        self.traits = traits
        self.registry = registry
        self.callSite = callSite
        self.details = details
    }

    @inlinable final var once: Bool { traits.contains(.once) }
    /// Whether the handler runs in another context, reached through the record's route.
    @inlinable final var isRouted: Bool { traits.contains(.routed) }
    @inlinable final var isOwnerBound: Bool { traits.contains(.ownerBound) }
    /// Whether the registry's list holds a reference to the record. An owner-bound listener lives
    /// as long as its owner, so its list keeps it. Any other listener lives exactly as long as
    /// its subscription, which cancels it on deinit: its list holds it unretained, which saves a
    /// retain and a release (two atomic operations) per listen + cancel, and the subscription
    /// takes it out of the list before letting it go.
    @inlinable final var isKeptByList: Bool { isOwnerBound }
    /// Whether `cancel()` is the only way this listener can end: it has no `once`, no owner and
    /// no sender filter, the other causes of retirement. Such a record's state is changed only
    /// by `Registry.cancel(_:)`, under the registry lock.
    @inlinable final var isRetiredOnlyByCancel: Bool {
        traits.isDisjoint(with: [.once, .ownerBound, .filtersSender])
    }

    var priority: Priority { details?.priority ?? .default }
    /// Ties in priority run in ascending sequence (named listeners; typed ones keep list order).
    var sequence: UInt64 { details?.sequence ?? 0 }
    var key: ListenerKey? { details?.key }
    var eventKey: EventKey { details?.eventKey ?? .type(typedEventID) }
    /// The identity of the record's event type, its key when it has no named one; known to the
    /// typed subclass.
    var typedEventID: ObjectIdentifier { preconditionFailure("every record is a TypedListenerRecord") }

    /// The owner of an owner-bound listener; overridden by records that keep it themselves.
    @usableFromInline var ownerID: ObjectIdentifier? { details?.ownerID }
    @usableFromInline var owner: (any AnyObject & Sendable)? { details?.owner }
    /// The sender filter (only with `.filtersSender`).
    var senderID: ObjectIdentifier? { details?.senderID }
    @inlinable final var sender: AnyObject? { details?.sender }

    /// Called once by the `cancel()` that ends the listener, after it left the registry: lets a
    /// bridge tear down what it set up outside the center. Never called under a lock. Called
    /// only on records created with `hasCancelHook` (most records have nothing to tear down, and
    /// the call was measurable on every cancel).
    func didCancel() {}

    /// The event type, for diagnostics (known to the typed subclass; not stored, to keep records small).
    var eventType: Any.Type { preconditionFailure("every record is a TypedListenerRecord") }

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
        guard let key = details?.key, let ownerID else { return nil }
        return DuplicateSlot(eventKey: eventKey, ownerID: ownerID, senderID: senderID, keyHash: key.hash)
    }

    var state: ListenerState {
        ListenerState(rawValue: rawState.load(ordering: .acquiring)) ?? .cancelled
    }

    @inlinable final var isActive: Bool { rawState.load(ordering: .acquiring) == ListenerState.active.rawValue }

    /// Moves an active listener to `reason`. Returns false when it had already stopped, so that
    /// exactly one caller performs the follow-up work (purging it from the registry).
    /// Never used on a record that ``isRetiredOnlyByCancel``: `Registry.cancel(_:)` retires
    /// those, under the registry lock.
    @discardableResult @usableFromInline
    final func retire(_ reason: ListenerState) -> Bool {
        // A plain load first: no state ever returns to `.active`, so when this one has left it
        // the exchange below would fail anyway, and a failed exchange still costs a locked
        // instruction (a subscription's deinit cancels again after an explicit `cancel()`).
        let current = rawState.load(ordering: .acquiring)
        let retired =
            current == ListenerState.active.rawValue
            && rawState.compareExchange(
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

    /// Whether the record must stay in its list although it is no longer active: an owner-bound
    /// `once` listener in another context whose event is still queued. `remove` finds listeners
    /// through the lists, and must be able to stop that delivery (rule 7). The record leaves
    /// this state when its context takes the event or when it is cancelled or removed.
    var awaitsQueuedDelivery: Bool {
        rawState.load(ordering: .acquiring) == ListenerState.consumed.rawValue && isRouted && isOwnerBound
    }

    /// Whether the registry's list keeps the record: it is active, or awaits its queued delivery.
    var belongsInList: Bool { isActive || awaitsQueuedDelivery }

    /// Claims a queued delivery when its turn comes in the listener's context: this is the
    /// instant that call begins. A listener cancelled or removed since the event was queued
    /// loses. A `once` listener's single event was claimed at dispatch (``consumed``); its
    /// context takes it for good here, in one exchange that `cancel()` and `remove`, which turn
    /// a consumed listener into a cancelled one, are ordered against.
    func claimQueuedDelivery() -> Bool {
        guard once else { return isActive }
        return rawState.compareExchange(
            expected: ListenerState.consumed.rawValue, desired: ListenerState.delivered.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Claims one delivery. This is the instant a handler call begins: a listener whose claim
    /// succeeds is called; `cancel()` linearizes against it, so after `cancel()` returns no
    /// claim can succeed. A `once` listener's claim consumes it, so only one thread ever wins.
    @inlinable
    final func claim() -> Bool {
        if once { return retire(.consumed) }
        return isActive
    }

    /// Whether the listener could still receive an event: active, its owner (if any) alive, its
    /// sender filter (if any) alive. Loads weak references, so never call it under the registry
    /// lock: the temporary strong reference may be the last one and run a deinitializer.
    /// Retires the listener when it finds the owner or sender gone.
    func checkLiveness() -> Bool {
        guard isActive else { return false }
        if isOwnerBound, owner == nil {
            retire(.ownerGone)
            return false
        }
        if traits.contains(.filtersSender), sender == nil {
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

/// A listener of the event type `E`.
///
/// Subclasses hold the handler in the shape the listener was registered with, so that a call
/// goes straight to the user's closure: `EventHandlerRecord` (the event alone),
/// `OwnerHandlerRecord` (owner-bound), `HandlerRecord` (any other posting-thread shape), and
/// `RoutedRecord` for listeners whose handler runs in another context (main actor, an actor, a
/// queue), reached through their route. Keeping each shape in its own class keeps records small.
@usableFromInline
class TypedListenerRecord<E: Event>: ListenerRecord, @unchecked Sendable {
    override var eventType: Any.Type { E.self }
    override var typedEventID: ObjectIdentifier { ObjectIdentifier(E.self) }

    /// Runs the handler of a posting-thread listener. A method rather than a closure call, so
    /// that the dispatch loop calls it on a borrowed record without retaining a closure context.
    @usableFromInline
    func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        preconditionFailure("a routed listener is reached through its route")
    }

    /// The route of a listener in another context; only routed records have one.
    @usableFromInline
    var route: any AsyncRoute<E> { preconditionFailure("a posting-thread listener has no route") }
}

/// A posting-thread listener with a handler of the general shape (owner, event, sender).
final class HandlerRecord<E: Event>: TypedListenerRecord<E>, @unchecked Sendable {
    let handler: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        handler: @escaping @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void
    ) {
        self.handler = handler
        super.init(registry: registry, once: once, isRouted: false, callSite: callSite, details: details)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        try handler(owner, event, sender)
    }
}

/// A listener whose handler runs in another context, reached through its route.
final class RoutedRecord<E: Event>: TypedListenerRecord<E>, @unchecked Sendable {
    let storedRoute: any AsyncRoute<E>

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?, route: any AsyncRoute<E>
    ) {
        self.storedRoute = route
        super.init(registry: registry, once: once, isRouted: true, callSite: callSite, details: details)
    }

    override var route: any AsyncRoute<E> { storedRoute }
}

/// A posting-thread listener whose handler takes the event alone (the most common form): it
/// stores the user's closure as is, with no wrapper closure around it.
@usableFromInline
final class EventHandlerRecord<E: Event>: TypedListenerRecord<E>, @unchecked Sendable {
    @usableFromInline let body: @Sendable (E) throws -> Void

    @usableFromInline
    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        body: @escaping @Sendable (E) throws -> Void
    ) {
        self.body = body
        super.init(
            registry: registry, once: once, isRouted: false, eventOnly: true, callSite: callSite, details: details)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        try body(event)
    }
}

/// A posting-thread listener bound to an owner: it keeps the user's closure with the owner's
/// real type, so a call needs no wrapper closure and no cast beyond an unchecked downcast.
///
/// It keeps its owner itself rather than in its details, so that the usual owner-bound
/// registration (no key, no sender, default priority) needs no details object.
final class OwnerHandlerRecord<E: Event, Owner: AnyObject & Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
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
            registry: registry, once: once, isRouted: false, ownsOwner: true, callSite: callSite, details: details)
    }

    override var ownerID: ObjectIdentifier? { storedOwnerID }
    override var owner: (any AnyObject & Sendable)? { storedOwner }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        // The dispatch loop passes the owner it loaded for this record: an `Owner`.
        try body(unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self), event, sender)
    }
}

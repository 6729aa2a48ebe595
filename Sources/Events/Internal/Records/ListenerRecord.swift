public import Synchronization

/// One registration: everything dispatch, removal and diagnostics need to know about a listener.
///
/// The handler lives in the generic subclass ``TypedListenerRecord``; the registry stores the
/// base class so that lists of any event type share one representation, and dispatch, which
/// knows the event type from the list's key, downcasts without a dynamic check.
///
/// A record is small, because every registration keeps one alive: the call site, one byte of
/// state, one of traits, the registry and the optional details, plus the handler in the
/// subclass. The event key of a typed listener follows from its class; everything rare sits in
/// ``ListenerDetails``.
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
    /// Deliveries counted while diagnostics count them. Declared here, after the three bytes
    /// above, so that it fills the padding before `registry` and the record does not grow.
    /// Failures, rarer, are counted in the center's diagnostics state.
    let deliveries = Atomic<UInt32>(0)
    /// The registry the record goes into, for `cancel()`. Strong: a registry holds no
    /// reference back to its center, and the center empties it when it deinitializes, which
    /// breaks the cycle through the lists (a weak reference cost several atomic operations on
    /// every registration and cancel).
    let registry: Registry
    @usableFromInline let details: ListenerDetails?

    /// `shape` is what the subclass is (fixed by its class); `once` and the details add the
    /// traits of the registration.
    init(registry: Registry, shape: Shape, once: Bool, callSite: CallSite, details: ListenerDetails?) {
        var traits = shape.traits
        if once { traits.insert(.once) }
        if details?.ownerID != nil { traits.insert(.ownerBound) }
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

    /// Where the handler runs; overridden by records of listeners in another context.
    var context: ListenerContext { .postingThread }

    /// Counts one delivery (only while diagnostics count deliveries: the dispatch loop of a
    /// plain center does not touch this word). Wraps after 2^32.
    final func countDelivery() {
        deliveries.wrappingAdd(1, ordering: .relaxed)
    }

    var deliveryCount: Int { Int(deliveries.load(ordering: .relaxed)) }

    /// Called once by the `cancel()` that ends the listener, after it left the registry: lets a
    /// bridge tear down what it set up outside the center. Never called under a lock. Called
    /// only on records whose shape has the cancel hook (most records have nothing to tear down,
    /// and the virtual call would otherwise sit on every cancel).
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

extension ListenerRecord {
    /// The traits a record has because of its class, whatever the registration: how dispatch
    /// reaches the handler, whether the record keeps its owner itself, whether it has a cancel
    /// hook. Each subclass passes its own to `init`, so the call site names the shape instead of
    /// a row of flags.
    struct Shape {
        let traits: ListenerTraits

        private init(_ traits: ListenerTraits) {
            self.traits = traits
        }

        /// A posting-thread handler of the general shape (owner, event, sender), reached through
        /// the virtual `invoke`.
        static var general: Shape { Shape([]) }
        /// A posting-thread handler of the event alone, which dispatch calls directly.
        static var eventOnly: Shape { Shape(.eventOnly) }
        /// A posting-thread handler bound to an owner that the record keeps itself, not in its
        /// details.
        static var ownerKeptByRecord: Shape { Shape(.ownerBound) }
        /// A handler in another context, reached through the record's route.
        static var routed: Shape { Shape(.routed) }
        /// A posting-thread handler that may stop propagation, which dispatch calls directly.
        static var stopping: Shape { Shape(.stops) }

        /// This shape, for a record that overrides `didCancel()`.
        var withCancelHook: Shape { Shape(traits.union(.cancelHook)) }
    }
}

import Dispatch
public import Synchronization

/// What one delivery did: whether the listener received the event, whether its list now
/// holds a retired record to purge, and whether the listener stopped propagation.
@usableFromInline
struct DeliveryOutcome {
    @usableFromInline let delivered: Bool
    @usableFromInline let needsPurge: Bool
    @usableFromInline let stopped: Bool

    @inlinable
    init(delivered: Bool, needsPurge: Bool, stopped: Bool = false) {
        self.delivered = delivered
        self.needsPurge = needsPurge
        self.stopped = stopped
    }
}

/// What a dispatch loop did: how many listeners received the event, and which one stopped
/// propagation, if one did.
@usableFromInline
struct LoopOutcome {
    @usableFromInline let delivered: Int
    @usableFromInline let stoppedBy: ListenerRecord?

    @inlinable
    init(delivered: Int, stoppedBy: ListenerRecord?) {
        self.delivered = delivered
        self.stoppedBy = stoppedBy
    }
}

/// The hub that carries events from the code that dispatches them to the listeners that want them.
///
/// Use ``default`` for an app-wide center, or create centers of your own to keep parts of an app
/// (or tests) apart.
///
/// ```swift
/// struct PostWritten: Event { let title: String }
///
/// let center = EventCenter()
/// let subscription = center.listen(to: PostWritten.self) { post in
///     print("written:", post.title)
/// }
/// center.dispatch(PostWritten(title: "Hello"))   // prints "written: Hello", returns 1
/// subscription.cancel()
/// ```
///
/// ## Rules
/// 1. Listeners of an event run synchronously on the dispatching thread, higher ``Priority``
///    first, ties in registration order. (Listeners registered for another context, see
///    ``Delivery`` and ``MainActorDelivery``, are handed their event in that same order and run
///    later in their context, one event at a time, in dispatch order.)
/// 2. `from: sender` on `listen` filters by identity: the listener hears only events dispatched
///    from that very object. The sender is held weakly; once it is gone the listener can never
///    match and is removed.
/// 3. An owner-bound registration with the same owner, key, event type and sender as a live one
///    is ignored and returns the existing subscription. Registrations without a key are always
///    distinct.
/// 4. An owner-bound listener is never called after its owner deinitializes, and is removed
///    without anyone calling `remove` (`listenerCount(for:)` drops at once; the memory is
///    reclaimed on the next dispatch of that event, or by a sweep that runs after a number of
///    owner-bound or sender-filtered registrations proportional to the live listeners).
/// 5. A `once` listener receives at most one event, even when several threads dispatch at the
///    same moment.
/// 6. A handler may dispatch (nested events are delivered immediately, depth-first), listen,
///    cancel and remove. A listener added during a dispatch does not receive that dispatch; a
///    listener cancelled or removed during a dispatch is not called afterwards, in that same
///    dispatch too.
/// 7. After ``Subscription/cancel()`` or a `remove` returns, the handler is not started again on
///    any thread. (A call that had already started on another thread is not waited for; see
///    ``Subscription``.)
/// 8. Every method is safe from any thread. No lock is held while user code runs, so a handler
///    that calls back into the center, from any thread, cannot deadlock.
/// 9. The cost of a dispatch depends only on the listeners of that event type (and, while family
///    listeners exist, of the families it belongs to; see <doc:Families>).
public final class EventCenter: Sendable {
    /// The app-wide center.
    public static let `default` = EventCenter()

    @usableFromInline let registry = Registry()
    private let sequence = Atomic<UInt64>(0)
    let errorHandlerBox = ErrorHandlerBox()
    /// Why dispatches must leave the plain loop, one bit per reason (see ``SlowPathFlags``):
    /// diagnostics are on or a tracer is installed, or family listeners exist. Read once on
    /// every dispatch; each bit has one writer, which changes it with an atomic or/and.
    @usableFromInline let flags = Atomic<UInt8>(0)
    /// Whether dispatches go through the observed loop: diagnostics are on or a tracer is installed.
    @inlinable var isObserved: Bool { flags.load(ordering: .relaxed) & SlowPathFlags.observed != 0 }
    /// Whether a dispatch must take the slow path (``slowDispatch(_:to:from:callSite:collector:)``).
    @inlinable var needsSlowDispatch: Bool { flags.load(ordering: .relaxed) != 0 }
    /// Whether the only reason for the slow path is a stopping listener (no families, no
    /// diagnostics): the loop that can stop runs, and nothing else.
    @inlinable var onlyStopsPropagation: Bool { flags.load(ordering: .relaxed) == SlowPathFlags.stoppers }
    let diagnosticsState = DiagnosticsState()
    /// The serial queue of `Delivery.background` listeners.
    let backgroundQueue = DispatchQueue(label: "swift-events.background")
    let pendingDeliveries = PendingDeliveries()
    /// Current values and events held for their first listener.
    let flowControl = FlowControlState()

    /// Receives every error thrown by a listener's handler, from any context and thread.
    ///
    /// A throwing handler never stops the other listeners. The default prints one line to
    /// standard error naming the event, the error and the listener's call site. Replace it to
    /// log or count failures; it runs on the thread or actor where the handler ran, and must
    /// not block.
    ///
    /// ```swift
    /// center.errorHandler = { failure in logger.error("\(failure)") }
    /// ```
    public var errorHandler: @Sendable (ListenerFailure) -> Void {
        get { errorHandlerBox.value }
        set { errorHandlerBox.value = newValue }
    }

    /// Creates an empty center, independent of ``default``.
    public init() {}

    deinit {
        // Nothing can dispatch to a center that is gone: its listeners end as
        // `removeAllListeners()` ends them, so that what a listener keeps running on its own
        // ends too (a stream's consumer leaves its `for await` loop after the events buffered,
        // a coalesced listener's pending flush is dropped, a NotificationCenter forwarding
        // stops observing).
        removeAllListeners()
        // Records keep their registry (so that `cancel()` reaches it without a weak reference):
        // emptying it here breaks the cycle through its lists.
        registry.removeAll()
    }

    func nextSequence() -> UInt64 {
        sequence.wrappingAdd(1, ordering: .relaxed).newValue
    }

    // MARK: Dispatching

    /// Delivers `event` to its listeners, synchronously on this thread, and returns how many
    /// received it.
    ///
    /// ```swift
    /// center.dispatch(PostWritten(title: "Hello"), from: self)
    /// ```
    ///
    /// Two options change what happens to an event beyond this dispatch (pass one at most):
    /// `keepingCurrent:` keeps it as the current value of its type, for listeners that register
    /// later with `receivingCurrent: true`; `holdingIfUnheard:` keeps it, if no listener heard
    /// it, for the first one that comes (see <doc:FlowControl>). A ``NamedEvent`` is dispatched
    /// under its name, with this call's sender: a way to pass a received named event on.
    ///
    /// - Parameters:
    ///   - event: The event. Listeners of exactly its static type `E` receive it, and the
    ///     listeners of every family it belongs to.
    ///   - sender: The object dispatching it, if any: listeners registered with `from:` hear
    ///     only their sender, and listeners of ``Sent`` receive it with the event. It is not
    ///     retained beyond the call unless a handler keeps its ``Sender``.
    ///   - scope: When given, the event becomes the current value of its type (``CurrentValueScope``).
    ///   - hold: When given and no listener receives the event, it is held for the first listener
    ///     that registers (``EventHold``).
    ///   - file: The file of the call, recorded by diagnostics (``EventCenter/diagnostics``,
    ///     ``EventCenter/tracer``); leave the default.
    ///   - line: The line of the call, likewise.
    /// - Returns: The number of listeners that received the event: handlers called, plus
    ///   listeners in other contexts to which it was handed (nested dispatches not included).
    // Inlinable so that the dispatch loop is specialized for the event type in the caller: the
    // unspecialized generic loop passes every event through its metadata and value witnesses.
    // The call site is only materialized on the observed path.
    @inlinable @discardableResult
    public func dispatch<E: Event>(
        _ event: E,
        from sender: AnyObject? = nil,
        keepingCurrent scope: CurrentValueScope? = nil,
        holdingIfUnheard hold: EventHold? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Int {
        // Both tests fold away where the call is specialized: with the defaults, and for any type
        // but `NamedEvent`, the plain path below is all that is left.
        if _slowPath(scope != nil || hold != nil || E.self == NamedEvent.self) {
            // A current value's payload is made here, where `E` is known (see `TypedPayload`).
            let payload = scope != nil && hold == nil && E.self != NamedEvent.self ? TypedPayload(event) : nil
            return dispatch(
                event, from: sender, keepingCurrent: scope, holdingIfUnheard: hold,
                callSite: CallSite(fileID: file, line: line), payload: payload)
        }
        let flags = flags.load(ordering: .relaxed)
        if _slowPath(flags != 0) { return flaggedDispatch(event, flags: flags, from: sender, file: file, line: line) }
        guard let listeners = registry.snapshot(for: EventKey(E.self)) else { return 0 }
        return deliver(event, to: listeners, from: sender)
    }

    /// `dispatch` on a center whose flags are not all clear (`flags`, as read by the caller).
    ///
    /// A center whose only reasons are family listeners (and stopping listeners) looks up the
    /// event's listeners together with whether its type is known to belong to no family; if it
    /// is, it dispatches through the loop of a center without families, and a feature that this
    /// dispatch does not use costs it next to nothing.
    // Inlinable, as `dispatch`, so that the loops are specialized for `E` here. The call site is
    // only materialized where a loop may record it.
    @inlinable
    func flaggedDispatch<E: Event>(
        _ event: E, flags: UInt8, from sender: AnyObject?, file: StaticString, line: UInt
    ) -> Int {
        let key = EventKey(E.self)
        // Membership is cached by the static type, valid only when it is the dynamic type: a
        // test that folds away for a struct.
        if flags & ~SlowPathFlags.stoppers == SlowPathFlags.families, type(of: event) == E.self {
            let (listeners, familyFree) = registry.snapshotIfFamilyFree(for: key)
            if familyFree {
                guard let listeners else { return 0 }
                if flags & SlowPathFlags.stoppers != 0 {
                    return deliverStoppable(event, to: listeners, from: sender).delivered
                }
                return deliver(event, to: listeners, from: sender)
            }
            return slowDispatch(event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
                .delivered
        }
        let listeners = registry.snapshot(for: key)
        if flags == SlowPathFlags.stoppers {
            guard let listeners else { return 0 }
            return deliverStoppable(event, to: listeners, from: sender).delivered
        }
        return slowDispatch(event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
            .delivered
    }

    /// The dispatch loop: delivers `event` to `listeners` (a snapshot, in delivery order) and
    /// returns how many received it (handlers run, or queued for their context). Every record
    /// must be a `TypedListenerRecord<E>`. With a `collector`, outcomes are reported to it.
    ///
    /// No record here may stop propagation: a center with stopping listeners dispatches through
    /// its slow path (``SlowPathFlags/stoppers``) and ``deliverStoppable(_:to:from:collector:)``.
    /// A loop that can stop early costs every listener of every dispatch a few instructions, so
    /// the usual loop does not.
    @inlinable
    func deliver<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>, from sender: AnyObject?,
        collector: ReportCollector? = nil
    ) -> Int {
        let senderInfo = sender.map(Sender.init)
        // The snapshot keeps every record alive for the whole loop, so records are borrowed
        // (+0) rather than retained and released one by one: with several threads dispatching,
        // those reference-count writes are what makes cores fight over cache lines. The closures
        // capture nothing mutable, so nothing is boxed on the heap.
        let (delivered, needsPurge) = listeners.withUnsafeBufferPointer { buffer -> (Int, Bool) in
            var delivered = 0
            var needsPurge = false
            for index in buffer.indices {
                // Unchecked downcast: a checked one is a runtime call per listener of every
                // dispatch. Safe because a list holds the records of one event key, and only
                // `register` for `E` creates records for `EventKey(E.self)` (a `.name` or
                // `.anyName` list holds `TypedListenerRecord<NamedEvent>`s only), so every record
                // here is a `TypedListenerRecord<E>`, as this function's contract says.
                let outcome = Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef { record in
                    deliver(
                        event, to: unsafeDowncast(record, to: TypedListenerRecord<E>.self), from: sender,
                        senderInfo, collector)
                }
                if outcome.delivered { delivered += 1 }
                if outcome.needsPurge { needsPurge = true }
            }
            return (delivered, needsPurge)
        }
        if needsPurge { purgeRetired(in: listeners) }
        return delivered
    }

    /// The dispatch loop of a center with stopping listeners: as ``deliver(_:to:from:collector:)``,
    /// and it stops after a listener that returns ``Propagation/stop``, saying which one did.
    @inlinable
    func deliverStoppable<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>, from sender: AnyObject?,
        collector: ReportCollector? = nil
    ) -> LoopOutcome {
        let senderInfo = sender.map(Sender.init)
        let (delivered, needsPurge, stopIndex) = listeners.withUnsafeBufferPointer { buffer -> (Int, Bool, Int) in
            var delivered = 0
            var needsPurge = false
            var stopIndex = -1
            for index in buffer.indices {
                // Unchecked downcast, for the reason given in `deliver`.
                let outcome = Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef { record in
                    deliver(
                        event, to: unsafeDowncast(record, to: TypedListenerRecord<E>.self), from: sender,
                        senderInfo, collector)
                }
                if outcome.delivered { delivered += 1 }
                // A stop comes with `needsPurge` set, so that a listener that does not stop pays
                // one test; the purge after a stop finds nothing to do unless a record retired.
                if outcome.needsPurge {
                    needsPurge = true
                    if outcome.stopped {
                        stopIndex = index
                        break
                    }
                }
            }
            return (delivered, needsPurge, stopIndex)
        }
        if needsPurge { purgeRetired(in: listeners) }
        guard stopIndex >= 0 else { return LoopOutcome(delivered: delivered, stoppedBy: nil) }
        let stopper = listeners[stopIndex]
        collector?.recordStop(by: stopper)
        return LoopOutcome(delivered: delivered, stoppedBy: stopper)
    }

    /// Delivers `event` to one listener: checks its sender filter and owner, claims the call,
    /// then runs the handler here or hands the event to the listener's context.
    @inlinable
    func deliver<E: Event>(
        _ event: E, to listener: TypedListenerRecord<E>, from sender: AnyObject?, _ senderInfo: Sender?,
        _ collector: ReportCollector?
    ) -> DeliveryOutcome {
        if listener.traits == .eventOnly {
            // The most common listener (a closure of the event alone, no once, owner, sender or
            // context) takes one test instead of one per trait, and no owner to hold and release.
            guard listener.isActive else { return DeliveryOutcome(delivered: false, needsPurge: false) }
            do {
                // Unchecked downcast, here and below: a checked one is a runtime call on the
                // path of the most common listener. Safe because only `EventOnlyHandlerRecord`
                // is built with the `.eventOnly` shape, the only source of that trait.
                try unsafeDowncast(listener, to: EventOnlyHandlerRecord<E>.self).body(event)
                collector?.recordRun(nil, queued: false)
            } catch {
                reportThrown(error, by: listener, to: collector, queued: false)
            }
            return DeliveryOutcome(delivered: true, needsPurge: false)
        }
        if listener.traits.contains(.filtersSender) {
            guard let expected = listener.sender else {
                return DeliveryOutcome(delivered: false, needsPurge: listener.retire(.senderGone))
            }
            guard expected === sender else { return DeliveryOutcome(delivered: false, needsPurge: false) }
        }
        // Held strongly until the handler returns, so the owner cannot vanish mid-call.
        var owner: AnyObject? = nil
        if listener.isOwnerBound {
            guard let alive = listener.owner else {
                return DeliveryOutcome(delivered: false, needsPurge: listener.retire(.ownerGone))
            }
            owner = alive
        }
        guard listener.claim() else { return DeliveryOutcome(delivered: false, needsPurge: false) }
        var stopped = false
        if !listener.isRouted {
            do {
                if listener.traits.contains(.eventOnly) {
                    // The most common shape, called without the virtual `invoke` in between,
                    // a hop that every listener of every dispatch would take.
                    try unsafeDowncast(listener, to: EventOnlyHandlerRecord<E>.self).body(event)
                } else if listener.traits.contains(.stops) {
                    // Unchecked: only `StoppingHandlerRecord` is built with the `.stops` shape.
                    stopped =
                        try unsafeDowncast(listener, to: StoppingHandlerRecord<E>.self).handler(
                            owner, event, senderInfo) == .stop
                } else {
                    try listener.invoke(owner, event, senderInfo)
                }
                collector?.recordRun(nil, queued: false)
            } catch {
                reportThrown(error, by: listener, to: collector, queued: false)
            }
        } else {
            listener.route.deliver(listener, event, senderInfo, center: self, collector: collector)
        }
        return DeliveryOutcome(delivered: true, needsPurge: listener.once || stopped, stopped: stopped)
    }

    /// Purges the lists that `listeners` came from (usually one; several for merged snapshots).
    @usableFromInline
    func purgeRetired(in listeners: ContiguousArray<ListenerRecord>) {
        var keys: [EventKey] = []
        for record in listeners where !record.isActive && !keys.contains(record.eventKey) {
            keys.append(record.eventKey)
        }
        registry.purge(keys)
    }

    // MARK: Inspecting

    /// How many listeners would currently receive an event of type `E` from some sender.
    ///
    /// Listeners whose owner or sender has deinitialized are not counted (and are reclaimed).
    public func listenerCount<E: Sendable>(for type: E.Type) -> Int {
        liveListenerCount(for: Hearing.listKey(of: type))
    }

    /// Counts the live listeners of `key`, reclaiming the dead ones it finds.
    func liveListenerCount(for key: EventKey) -> Int {
        guard let records = registry.snapshot(for: key) else { return 0 }
        var live = 0
        var sawDead = false
        for record in records {
            if record.checkLiveness() { live += 1 } else { sawDead = true }
        }
        if sawDead { registry.purge(key) }
        return live
    }

    /// Whether any listener would currently receive an event of type `E`.
    public func hasListeners<E: Sendable>(for type: E.Type) -> Bool {
        listenerCount(for: type) > 0
    }
}

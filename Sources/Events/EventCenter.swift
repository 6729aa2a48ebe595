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
/// 9. The cost of a dispatch depends only on the listeners of that event type.
public final class EventCenter: Sendable {
    /// The app-wide center.
    public static let `default` = EventCenter()

    @usableFromInline let registry = Registry()
    private let sequence = Atomic<UInt64>(0)
    let errorHandlerBox = ErrorHandlerBox()
    /// Whether dispatches go through the observed loop: diagnostics are on or a tracer is
    /// installed. Read on every dispatch, written only by ``diagnosticsState`` under its lock.
    @usableFromInline let isObservedFlag = Atomic<Bool>(false)
    /// See ``isObservedFlag``.
    @inlinable var isObserved: Bool { isObservedFlag.load(ordering: .relaxed) }
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
    /// - Parameters:
    ///   - event: The event. Listeners of exactly its static type `E` receive it.
    ///   - sender: The object dispatching it, if any: listeners registered with `from:` hear
    ///     only their sender, and any listener can read it through the ``Sender`` handler
    ///     parameter. It is not retained beyond the call unless a handler keeps its ``Sender``.
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
        _ event: E, from sender: AnyObject? = nil, file: StaticString = #fileID, line: UInt = #line
    ) -> Int {
        guard let listeners = registry.snapshot(for: EventKey(E.self)) else {
            guard _slowPath(isObserved) else { return 0 }
            return observedDispatch(event, to: nil, from: sender, callSite: CallSite(fileID: file, line: line))
                .delivered
        }
        if _slowPath(isObserved) {
            return observedDispatch(
                event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line)
            ).delivered
        }
        return deliver(event, to: listeners, from: sender)
    }

    /// The dispatch loop: delivers `event` to `listeners` (a snapshot, in delivery order) and
    /// returns how many received it (handlers run, or queued for their context). Every record
    /// must be a `TypedListenerRecord<E>`. With a `collector`, outcomes are reported to it.
    @inlinable
    func deliver<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>, from sender: AnyObject?,
        collector: ReportCollector? = nil
    ) -> Int {
        deliverStoppable(event, to: listeners, from: sender, collector: collector).delivered
    }

    /// The dispatch loop, also saying which listener stopped propagation, if one did: the
    /// listeners after it are not reached.
    @inlinable
    func deliverStoppable<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>, from sender: AnyObject?,
        collector: ReportCollector? = nil
    ) -> LoopOutcome {
        let senderInfo = sender.map(Sender.init)
        // The snapshot keeps every record alive for the whole loop, so records are borrowed
        // (+0) rather than retained and released one by one: with several threads dispatching,
        // those reference-count writes are what makes cores fight over cache lines. The closures
        // capture nothing mutable, so nothing is boxed on the heap.
        let (delivered, needsPurge, stopIndex) = listeners.withUnsafeBufferPointer { buffer -> (Int, Bool, Int?) in
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
                // One test for both rare outcomes, so that the usual listener pays no more than before.
                if _slowPath(outcome.needsPurge || outcome.stopped) {
                    if outcome.needsPurge { needsPurge = true }
                    if outcome.stopped { return (delivered, needsPurge, index) }
                }
            }
            return (delivered, needsPurge, nil)
        }
        if needsPurge { purgeRetired(in: listeners) }
        guard let stopIndex else { return LoopOutcome(delivered: delivered, stoppedBy: nil) }
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
        return DeliveryOutcome(delivered: true, needsPurge: listener.once, stopped: stopped)
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
    public func listenerCount<E: Event>(for type: E.Type) -> Int {
        liveListenerCount(for: EventKey(type))
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
    public func hasListeners<E: Event>(for type: E.Type) -> Bool {
        listenerCount(for: type) > 0
    }
}

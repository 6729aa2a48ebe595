/// Receives what a center does, dispatch by dispatch: install one as ``EventCenter/tracer``.
///
/// ```swift
/// center.tracer = TimelineTracer()   // prints a compact timeline to standard output
/// ```
///
/// Rules:
/// - ``didDispatch(_:)`` is called on the dispatching thread right after a dispatch delivered
///   its event (nested dispatches, which run inside it, report first; ``DispatchTrace/parent``
///   links them). ``didRunQueuedDelivery(_:)`` is called in the listener's context after a
///   queued delivery ran or was skipped.
/// - Both must be quick and must not block: they run on the dispatch path of a traced center.
///   A tracer may dispatch, though events it dispatches are traced as well.
/// - With no tracer installed (and ``EventCenter/diagnostics`` off) a dispatch does no tracing
///   work at all.
public protocol EventTracer: Sendable {
    /// One dispatch, after its listeners ran or were handed the event.
    func didDispatch(_ trace: DispatchTrace)
    /// One queued delivery, after it ran (or was skipped) in its listener's context.
    func didRunQueuedDelivery(_ trace: DeliveryTrace)
}

extension EventTracer {
    public func didRunQueuedDelivery(_ trace: DeliveryTrace) {}
}

/// What one dispatch did; handed to ``EventTracer/didDispatch(_:)``.
///
/// Names (of the event, the sender, each listener's owner and context) are made when you read
/// them, so a tracer that reads few of them costs little.
public struct DispatchTrace: Sendable {
    /// Numbers dispatches of the center in the order they began, from 1.
    public let id: UInt64
    /// The dispatch running on this thread that this one is nested in (a handler of it
    /// dispatched), or nil for a dispatch from outside any handler.
    public let parent: UInt64?
    /// How many dispatches this one is nested in: 0 for a top-level dispatch.
    public let depth: Int
    /// The event as dispatched (a ``NamedEvent`` for a named one).
    public let event: any Event
    let eventIdentity: EventIdentity
    let sender: TypeIdentity?
    /// Where `dispatch` was called, when known.
    public let callSite: CallSite?
    /// Each listener the dispatch considered, in delivery order.
    public var listeners: [ListenerTrace] { listenerTraces }
    // Filled in a buffer that the dispatching thread reuses (see `DispatchFrames.takeTraceBuffer`),
    // so that a tracer which reads the list and lets it go costs no allocation per dispatch.
    let listenerTraces: [ListenerTrace]
    /// When the dispatch began, on the continuous clock.
    public let start: ContinuousClock.Instant
    /// How long the dispatch took, from ``start`` until its last listener returned or was
    /// handed the event: nested dispatches and posting-thread handlers included, zero when no
    /// listener was reached.
    public let duration: Duration
    /// Whether it ran on the main thread (or the main queue).
    public let isOnMainThread: Bool
    /// The position in ``listeners`` of the listener that stopped propagation, if one did: it
    /// is the last one listed, since the listeners after it were not reached.
    let stopIndex: Int?

    /// The listener that returned ``Propagation/stop``, or nil when none stopped this dispatch.
    public var stoppedBy: ListenerTrace? {
        guard stopIndex != nil else { return nil }
        return listenerTraces.last
    }

    /// The event's type name, or the quoted name of a named event.
    public var eventDescription: String { eventIdentity.description }
    /// The type of the `from:` sender, or nil without one.
    public var senderType: String? { sender?.description }
    /// How many listeners received the event: ran, or were handed it for their context.
    public var received: Int { listenerTraces.count { $0.outcome != .skipped } }
}

/// One listener's part in a dispatch.
public struct ListenerTrace: Sendable {
    /// What happened to the event at this listener.
    public enum Outcome: Sendable, Hashable {
        /// The handler ran during the dispatch and returned.
        case ran
        /// The handler ran during the dispatch and threw.
        case failed
        /// The event was handed to the listener's context, where it runs later (see
        /// ``EventTracer/didRunQueuedDelivery(_:)``).
        case queued
        /// Not delivered: the listener's sender filter did not match, or it had ended.
        case skipped
    }

    /// Where the listener was registered.
    public let callSite: CallSite
    let owner: TypeIdentity?
    let listenerContext: ListenerContext
    public let outcome: Outcome
    /// How long the listener took within the dispatch (for a queued one, the hand-over only).
    public let duration: Duration

    /// The type of its owner, for an owner-bound or actor-isolated listener.
    public var ownerType: String? { owner?.description }
    /// Where its handler runs: "posting thread", "main actor", "queue com.app.db", ...
    public var context: String { listenerContext.description }
}

/// One queued delivery, run in its listener's context; handed to
/// ``EventTracer/didRunQueuedDelivery(_:)``.
public struct DeliveryTrace: Sendable {
    /// The ``DispatchTrace/id`` of the dispatch that queued it.
    public let dispatchID: UInt64
    let eventIdentity: EventIdentity
    /// Where the listener was registered.
    public let callSite: CallSite
    let owner: TypeIdentity?
    let listenerContext: ListenerContext
    /// True when the handler ran; false when it was skipped, because the listener ended or its
    /// owner was gone by the time its turn came.
    public let ran: Bool
    /// True when the handler threw.
    public let failed: Bool
    /// How long the delivery waited between the dispatch and its turn.
    public let waited: Duration
    /// How long the handler ran.
    public let duration: Duration

    /// The event's type name, or the quoted name of a named event.
    public var eventDescription: String { eventIdentity.description }
    /// The type of its owner, for an owner-bound or actor-isolated listener.
    public var ownerType: String? { owner?.description }
    /// Where the handler ran.
    public var context: String { listenerContext.description }
}

import Dispatch
import Foundation

/// One event a coalescer holds, with what its delivery reports to: the dispatch's collector (for
/// `dispatchAndWait`) and stamp (for tracing).
struct CoalescedEvent<E: Sendable>: Sendable {
    let event: E
    let sender: Sender?
    let collector: ReportCollector?
    let stamp: QueueStamp?
    /// The trace context current at its dispatch, current again while the handler runs.
    let trace: TraceContext?

    /// The event was replaced by a newer one, or dropped: it was not received.
    func skip() {
        collector?.recordSkip(queued: true)
    }
}

/// What a flush takes from its coalescer when its turn comes: the newest handed event (nil when
/// a cancel dropped it meanwhile) and the run of pending deliveries opened for its trip through
/// the main actor, to close once the delivery is done.
struct CoalescedFlush<E: Sendable>: Sendable {
    let event: CoalescedEvent<E>?
    let heldRun: PendingDeliveries.Epoch?
}

/// The context a coalesced listener's handler runs in, reached through the listener's own
/// mailbox. A flush queued there takes the newest event only when its turn comes, which is what
/// lets newer events replace an older one while it waits.
protocol CoalescedContext<E>: Sendable {
    associatedtype E: Sendable

    /// Whether the handler runs on the main actor (a flush then needs no hop to it).
    var isMainActor: Bool { get }

    /// Whether a delivery may run inline, inside `dispatch`, right now: a `.main` listener
    /// dispatched to on the main actor with nothing queued.
    var mayRunInline: Bool { get }

    /// Runs the handler inline with `event` (only when `mayRunInline` said so).
    func runInline(_ listener: TypedListenerRecord<E>, _ event: CoalescedEvent<E>, center: EventCenter)

    /// Queues a flush in the listener's context, counted by `idle()` until it has run: there it
    /// calls `take` and delivers what it returns.
    func enqueueFlush(
        _ listener: TypedListenerRecord<E>, center: EventCenter, take: @escaping @Sendable () -> CoalescedFlush<E>)
}

extension CoalescedContext {
    /// Runs a taken flush in the listener's context (after the hop to its actor, for an actor).
    func perform(
        _ flush: CoalescedFlush<E>, _ listener: TypedListenerRecord<E>, center: EventCenter,
        _ body: (AnyObject?, CoalescedEvent<E>) throws -> Void
    ) {
        if let event = flush.event {
            // The delivered event is the newest one handed, so its dispatch's trace context is
            // the one current. An actor's drain task inherited the context of the dispatch that
            // started it, which a delivery outside any trace must not see.
            let trace = event.trace
            if trace != nil || TraceContext.current != nil {
                TraceContext.withCurrent(trace) {
                    center.runQueued(listener, collector: event.collector, stamp: event.stamp) { owner in
                        try body(owner, event)
                    }
                }
            } else {
                center.runQueued(listener, collector: event.collector, stamp: event.stamp) { owner in
                    try body(owner, event)
                }
            }
        }
        if let run = flush.heldRun { center.pendingDeliveries.closeRun(run) }
    }
}

/// A listener served by a serial mailbox: a dispatch queue, an operation queue, the main queue.
struct SerialCoalescedContext<E: Sendable>: CoalescedContext {
    let mailbox: ClosureMailbox
    let isMainActor: Bool
    let inlineOnMainThread: Bool
    let run: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void

    var mayRunInline: Bool { inlineOnMainThread && isOnMainActor() && mailbox.isIdle }

    func runInline(_ listener: TypedListenerRecord<E>, _ event: CoalescedEvent<E>, center: EventCenter) {
        center.runNow(listener, collector: event.collector) { owner in try run(owner, event.event, event.sender) }
    }

    func enqueueFlush(
        _ listener: TypedListenerRecord<E>, center: EventCenter, take: @escaping @Sendable () -> CoalescedFlush<E>
    ) {
        let run = self.run
        mailbox.enqueue(for: listener, pending: center.pendingDeliveries) {
            perform(take(), listener, center: center) { owner, event in try run(owner, event.event, event.sender) }
        }
    }
}

/// A listener isolated to an actor (its owner), served by a mailbox drained by one task.
struct ActorCoalescedContext<E: Sendable, A: Actor>: CoalescedContext {
    let mailbox = ActorMailbox()
    let handler: @Sendable (isolated A, E, Sender?) throws -> Void

    var isMainActor: Bool { false }
    var mayRunInline: Bool { false }

    func runInline(_ listener: TypedListenerRecord<E>, _ event: CoalescedEvent<E>, center: EventCenter) {
        preconditionFailure("an actor listener never runs inline")
    }

    func enqueueFlush(
        _ listener: TypedListenerRecord<E>, center: EventCenter, take: @escaping @Sendable () -> CoalescedFlush<E>
    ) {
        let handler = self.handler
        mailbox.enqueue(for: listener, pending: center.pendingDeliveries) {
            guard let actor = listener.owner else {
                // The actor is gone: the delivery is skipped, and the record retired, as for an
                // uncoalesced actor listener.
                perform(take(), listener, center: center) { _, _ in }
                return
            }
            // The event is taken on the actor, after the hop: events dispatched while the job
            // waited for the actor still replace it. A checked cast, once per delivery.
            await runOnActor(actor as! A) { actor in
                perform(take(), listener, center: center) { _, event in try handler(actor, event.event, event.sender) }
            }
        }
    }
}

/// Hops to `actor` and runs `body` there.
private func runOnActor<A: Actor>(_ actor: isolated A, _ body: @Sendable (isolated A) -> Void) {
    body(actor)
}

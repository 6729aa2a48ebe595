import Dispatch
import Foundation

/// How an event reaches a listener whose handler runs in another context. The dispatch loop
/// has already checked the sender and owner and claimed the delivery; the route queues the
/// call (or, for `MainActorDelivery.main` on the main thread, makes it at once).
@usableFromInline
protocol AsyncRoute<E>: Sendable {
    associatedtype E: Sendable

    /// Delivers `event`; when `collector` is set, reports the outcome to it.
    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?)
}

/// A listener served by a serial mailbox on a dispatch queue, an operation queue or the main
/// queue. `run` executes in that context (for main-actor listeners it asserts the isolation).
struct SerialRoute<E: Sendable>: AsyncRoute {
    let mailbox: SerialMailbox<QueuedDelivery>
    let inlineOnMainThread: Bool
    let run: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void

    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?
    ) {
        // The mailbox first: in a burst it is busy, and then the question of which thread this
        // is, the costlier of the two, is never asked.
        if inlineOnMainThread, mailbox.isIdle, isOnMainActor() {
            center.runNow(listener, collector: collector) { owner in try run(owner, event, sender) }
            return
        }
        collector?.begin()
        // The handler runs elsewhere, later: it sees the trace context of this dispatch.
        let delivery = QueuedDelivery(
            event: event, sender: sender, collector: collector, stamp: center.queueStamp(), trace: TraceContext.current)
        if mailbox.push(delivery, for: listener, pending: center.pendingDeliveries) {
            // What every delivery of the listener shares is captured here, once per block of
            // the drain rather than once per event.
            let run = self.run
            mailbox.startDrain { delivery in
                TraceContext.restoring(delivery.trace) {
                    center.runQueued(listener, collector: delivery.collector, stamp: delivery.stamp) { owner in
                        // Only this route queues for this mailbox, and it queues events of `E`.
                        try run(owner, delivery.event as! E, delivery.sender)
                    }
                }
            }
        }
    }
}

/// One event waiting in a listener's ``SerialMailbox``, with what its delivery needs from the
/// dispatch that queued it.
///
/// Not generic over the event: a generic job type would be looked up in the runtime's metadata
/// cache on every push and pop, since the mailbox code is not specialized for the user's event
/// types. An event of up to three words fits the existential's inline storage, so most events
/// wait with no allocation of their own.
struct QueuedDelivery: Sendable {
    let event: any Sendable
    let sender: Sender?
    /// Where an awaited dispatch wants the outcome; nil for a plain dispatch.
    let collector: ReportCollector?
    /// The observed dispatch's id and when it queued the event; nil on a plain center.
    let stamp: QueueStamp?
    /// The trace context current at the dispatch, made current again for the handler.
    let trace: TraceContext?
}

/// A listener isolated to an actor (its owner), served by a mailbox drained by one task.
struct ActorRoute<E: Sendable, A: Actor>: AsyncRoute {
    let mailbox = ActorMailbox()
    let handler: @Sendable (isolated A, E, Sender?) throws -> Void

    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?
    ) {
        collector?.begin()
        let handler = self.handler
        let stamp = center.queueStamp()
        let trace = TraceContext.current
        mailbox.enqueue(for: listener, pending: center.pendingDeliveries) {
            // The turn of a queued delivery comes on the actor, not before the hop to it: a
            // listener cancelled or removed while this job waited for the actor is skipped.
            guard let actor = listener.owner else {
                center.runQueued(listener, collector: collector, stamp: stamp) { _ in }
                return
            }
            // A checked cast: it runs once per delivery, after the hop to the actor.
            await TraceContext.restoring(trace) {
                await runIsolated(actor as! A) { actor in
                    center.runQueued(listener, collector: collector, stamp: stamp) { _ in
                        try handler(actor, event, sender)
                    }
                }
            }
        }
    }
}

/// Hops to `actor` and runs `body` there.
private func runIsolated<A: Actor>(_ actor: isolated A, _ body: @Sendable (isolated A) -> Void) {
    body(actor)
}

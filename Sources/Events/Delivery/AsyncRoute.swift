import Dispatch
import Foundation

/// How an event reaches a listener whose handler runs in another context. The dispatch loop
/// has already checked the sender and owner and claimed the delivery; the route queues the
/// call (or, for `MainActorDelivery.main` on the main thread, makes it at once).
@usableFromInline
protocol AsyncRoute<E>: Sendable {
    associatedtype E: Event

    /// Delivers `event`; when `collector` is set, reports the outcome to it.
    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?)
}

/// A listener served by a serial mailbox on a dispatch queue, an operation queue or the main
/// queue. `run` executes in that context (for main-actor listeners it asserts the isolation).
struct SerialRoute<E: Event>: AsyncRoute {
    let mailbox: SerialMailbox
    let inlineOnMainThread: Bool
    let run: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void

    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?
    ) {
        if inlineOnMainThread, isOnMainActor(), mailbox.isIdle {
            center.runNow(listener, collector: collector) { owner in try run(owner, event, sender) }
            return
        }
        collector?.begin()
        mailbox.enqueue {
            center.runQueued(listener, collector: collector) { owner in try run(owner, event, sender) }
        }
    }
}

/// A listener isolated to an actor (its owner), served by a mailbox drained by one task.
struct ActorRoute<E: Event, A: Actor>: AsyncRoute {
    let mailbox = ActorMailbox()
    let handler: @Sendable (isolated A, E, Sender?) throws -> Void

    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?
    ) {
        collector?.begin()
        let handler = self.handler
        mailbox.enqueue {
            // The turn of a queued delivery comes on the actor, not before the hop to it: a
            // listener cancelled or removed while this job waited for the actor is skipped.
            guard let actor = listener.owner else {
                center.runQueued(listener, collector: collector) { _ in }
                return
            }
            await runIsolated(unsafeDowncast(actor, to: A.self)) { actor in
                center.runQueued(listener, collector: collector) { _ in try handler(actor, event, sender) }
            }
        }
    }
}

/// Marks the main queue, so that code running on it can be recognised even on Linux, where the
/// main queue is drained by a worker thread once the main thread has handed over to
/// `dispatchMain()` (as async `main` programs and test runners do).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main actor: on the main thread, or inside a block of the main
/// queue (the main actor's executor).
func isOnMainActor() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// Hops to `actor` and runs `body` there.
private func runIsolated<A: Actor>(_ actor: isolated A, _ body: @Sendable (isolated A) -> Void) {
    body(actor)
}

extension EventCenter {
    /// The mailbox that serves one listener in `delivery`'s context.
    func makeMailbox(for delivery: Delivery.Kind) -> SerialMailbox {
        switch delivery {
        case .postingThread:
            preconditionFailure("posting-thread listeners have no mailbox")
        case .background:
            let queue = backgroundQueue
            return SerialMailbox { queue.async(execute: $0) }
        case .queue(let queue):
            return SerialMailbox { queue.async(execute: $0) }
        case .operationQueue(let queue):
            return SerialMailbox { queue.addOperation($0) }
        }
    }

    /// The mailbox of one main-actor listener.
    func makeMainMailbox() -> SerialMailbox {
        SerialMailbox { DispatchQueue.main.async(execute: $0) }
    }

    /// Runs a delivery synchronously on this thread (posting-thread listeners, and main-actor
    /// listeners dispatched on the main thread), reporting a thrown error.
    func runNow<E: Event>(
        _ listener: TypedListenerRecord<E>, collector: ReportCollector?, _ body: (AnyObject?) throws -> Void
    ) {
        // The dispatch loop checked the owner a moment ago; load it again to hold it strongly
        // for the call.
        var owner: AnyObject? = nil
        // A `once` listener's claim in the dispatch loop was the start of this call: its event
        // is taken here, so that the record leaves its list (see `awaitsQueuedDelivery`).
        if listener.once { _ = listener.claimQueuedDelivery() }
        if listener.isOwnerBound {
            guard let alive = listener.owner else {
                collector?.recordSkip(queued: false)
                return
            }
            owner = alive
        }
        do {
            try body(owner)
            collector?.recordRun(nil, queued: false)
        } catch {
            reportThrown(error, by: listener, to: collector, queued: false)
        }
    }

    /// Runs a queued delivery when its turn comes: skipped if the listener was cancelled or
    /// removed, or its owner died, since it was queued.
    func runQueued<E: Event>(
        _ listener: TypedListenerRecord<E>, collector: ReportCollector?, _ body: (AnyObject?) throws -> Void
    ) {
        guard let owner = ownerForQueuedDelivery(listener) else {
            collector?.recordSkip(queued: true)
            return
        }
        do {
            try body(owner.object)
            collector?.recordRun(nil, queued: true)
        } catch {
            reportThrown(error, by: listener, to: collector, queued: true)
        }
    }

    /// Whether a queued delivery may run now, and the owner to hold during it. Nil means skip.
    /// Call it in the listener's context, when the delivery's turn has come.
    private func ownerForQueuedDelivery(_ listener: ListenerRecord) -> HeldOwner? {
        let claimed = listener.claimQueuedDelivery()
        // An owner-bound `once` listener stayed in its list for this turn; its event is taken or
        // its listener cancelled by now, so the list can let it go.
        if listener.once, listener.isOwnerBound { registry.purge(listener.eventKey) }
        guard claimed else { return nil }
        guard listener.isOwnerBound else { return HeldOwner(object: nil) }
        guard let owner = listener.owner else {
            if listener.retire(.ownerGone) { registry.purge(listener.eventKey) }
            return nil
        }
        return HeldOwner(object: owner)
    }

    /// Sends a handler's error to the error handler and, for an awaitable dispatch, to its report.
    @usableFromInline
    func reportThrown(_ error: any Error, by listener: ListenerRecord, to collector: ReportCollector?, queued: Bool) {
        let failure = self.failure(of: listener, error)
        reportFailure(failure)
        collector?.recordRun(failure, queued: queued)
    }

    @usableFromInline
    func failure(of listener: ListenerRecord, _ error: any Error) -> ListenerFailure {
        ListenerFailure(error: error, event: listener.eventDescription, callSite: listener.callSite)
    }

    @usableFromInline
    func reportFailure(_ failure: ListenerFailure) {
        errorHandlerBox.value(failure)
    }
}

/// An owner kept alive for the length of one queued call (nil for closure listeners).
private struct HeldOwner {
    let object: AnyObject?
}

import Dispatch
import Foundation
import Synchronization

extension EventCenter {
    /// The mailbox that serves one listener in `delivery`'s context.
    func makeMailbox<Job>(for delivery: Delivery.Kind) -> SerialMailbox<Job> {
        switch delivery {
        case .postingThread:
            preconditionFailure("posting-thread listeners have no mailbox")
        case .background:
            let queue = backgroundQueue
            return SerialMailbox { queue.async(execute: $0) }
        case .queue(let queue):
            return SerialMailbox { queue.async(execute: $0) }
        case .operationQueue(let queue):
            return SerialMailbox { addDrain($0, to: queue) }
        }
    }

    /// The mailbox of one main-actor listener.
    func makeMainMailbox<Job>() -> SerialMailbox<Job> {
        SerialMailbox { DispatchQueue.main.async(execute: $0) }
    }

    /// Runs a delivery synchronously on this thread (posting-thread listeners, and main-actor
    /// listeners dispatched on the main thread), reporting a thrown error.
    func runNow<E: Sendable>(
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
        // The observed dispatch loop times this call as the listener's; it needs to know the
        // handler ran here rather than being queued.
        if isObserved { DispatchFrames.current.ranInline = true }
        do {
            try body(owner)
            collector?.recordRun(nil, queued: false)
        } catch {
            reportThrown(error, by: listener, to: collector, queued: false)
        }
    }

    /// Runs a queued delivery when its turn comes: skipped if the listener was cancelled or
    /// removed, or its owner died, since it was queued.
    func runQueued<E: Sendable>(
        _ listener: TypedListenerRecord<E>, collector: ReportCollector?, stamp: QueueStamp? = nil,
        _ body: (AnyObject?) throws -> Void
    ) {
        if _slowPath(isObserved) {
            runQueuedObserved(listener, collector: collector, stamp: stamp, body)
            return
        }
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

    /// `runQueued` with diagnostics on or a tracer installed: the same steps, timed, checked
    /// for slowness and traced; the running listener is known to dispatches made from it.
    private func runQueuedObserved<E: Sendable>(
        _ listener: TypedListenerRecord<E>, collector: ReportCollector?, stamp: QueueStamp?,
        _ body: (AnyObject?) throws -> Void
    ) {
        let observation = diagnosticsState.observation
        let began = ContinuousClock.now
        let beganUptime = stamp == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        var ran = false
        var failed = false
        if let owner = ownerForQueuedDelivery(listener) {
            ran = true
            let frames = DispatchFrames.current
            frames.frames.append(
                DispatchFrames.Frame(
                    dispatchID: stamp?.dispatchID ?? 0, listener: listener, center: ObjectIdentifier(self),
                    isQueuedDelivery: true))
            do {
                try body(owner.object)
                collector?.recordRun(nil, queued: true)
            } catch {
                failed = true
                reportThrown(error, by: listener, to: collector, queued: true)
            }
            frames.frames.removeLast()
        } else {
            collector?.recordSkip(queued: true)
        }
        let elapsed = ContinuousClock.now - began
        let options = observation.options
        if ran, let threshold = options.slowListenerThreshold, elapsed > threshold,
            options.slowListenerScope == .everyContext || listener.context.isMainActor
        {
            diagnosticsState.warn(Self.slowWarning(listener, event: EventIdentity(of: listener), took: elapsed))
        }
        observation.tracer?.didRunQueuedDelivery(
            DeliveryTrace(
                dispatchID: stamp?.dispatchID ?? 0, eventIdentity: EventIdentity(of: listener),
                callSite: listener.callSite, owner: listener.owner.map { TypeIdentity(of: $0) },
                listenerContext: listener.context, ran: ran, failed: failed,
                waited: stamp.map { $0.waited(until: beganUptime) } ?? .zero, duration: elapsed))
    }

    /// What an observed dispatch tells the delivery it queues: its id and when. Nil on a plain
    /// center, where nothing is traced.
    func queueStamp() -> QueueStamp? {
        guard _slowPath(isObserved) else { return nil }
        let frame = DispatchFrames.current.frames.last { $0.center == ObjectIdentifier(self) }
        return QueueStamp(dispatchID: frame?.dispatchID ?? 0, queuedAt: DispatchTime.now().uptimeNanoseconds)
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
}

/// Adds a mailbox's drain to `queue` as an operation that cancelling the queue's operations
/// cannot lose.
///
/// `cancelAllOperations()` finishes every operation that has not started without running it. A
/// drain carries deliveries its queue's owner did not add and cannot see, and while it is
/// scheduled the mailbox schedules no other (it runs one drain at a time, to keep the listener's
/// order): a lost drain would strand every delivery queued for the listener, and any `idle()`
/// waiting for them. So the operation notes when it starts, and its completion block, which
/// runs for a cancelled operation too, adds the drain again if it never started. A drain that
/// was running when the queue was cancelled carries on: cancellation stops no running block.
private func addDrain(_ drain: @escaping @Sendable () -> Void, to queue: OperationQueue) {
    let started = DrainStart()
    let operation = BlockOperation {
        started.mark()
        drain()
    }
    operation.completionBlock = {
        if !started.happened { addDrain(drain, to: queue) }
    }
    queue.addOperation(operation)
}

/// Whether an operation's block has started, set on the queue's thread and read by its
/// completion block.
private final class DrainStart: Sendable {
    private let flag = Atomic<Bool>(false)
    func mark() { flag.store(true, ordering: .releasing) }
    var happened: Bool { flag.load(ordering: .acquiring) }
}

/// An owner kept alive for the length of one queued call (nil for closure listeners).
private struct HeldOwner {
    let object: AnyObject?
}

/// When a queued delivery was queued, and by which dispatch (see `queueStamp()`).
///
/// The time is `DispatchTime`'s uptime in nanoseconds rather than a clock's `Instant`, whose
/// layout is not fixed at compile time: with an integer the stamp is plain data, and the nil
/// stamp that every delivery of an unobserved center carries costs no value-witness calls.
struct QueueStamp: Sendable {
    let dispatchID: UInt64
    let queuedAt: UInt64

    /// How long the delivery waited, until `uptime` (`DispatchTime` nanoseconds).
    func waited(until uptime: UInt64) -> Duration {
        .nanoseconds(Int64(bitPattern: uptime &- queuedAt))
    }
}

import Dispatch

/// The state machine of one coalesced listener: which events wait, where, and the timer of the
/// timed modes.
///
/// An event waits in one of two slots. `handed` is the event a flush already queued in the
/// listener's context will take when its turn comes (at most one such flush is queued at a
/// time); newer events replace it in the modes that say so, and a timer's event replaces it
/// when the timer fires before the flush has run. `waiting` is the event a timer holds
/// (``Coalescing/once(per:clock:)`` within an interval, ``Coalescing/debounce(for:clock:)``
/// before the quiet period ends); it moves to `handed` when the timer fires. A flush takes
/// `handed` in the listener's context, so what it delivers is the newest event moved there
/// before it ran, and a newer event can never be delivered before an older one.
///
/// The timer is one task per listener, alive only while an interval or a quiet period runs. It
/// holds the coalescer weakly, so it keeps nothing alive: when the record goes, the coalescer's
/// deinit cancels it. A cancelled listener drops both slots and cancels the timer at once.
final class Coalescer<E: Sendable>: @unchecked Sendable {
    // Why @unchecked is safe: every `var` is only touched inside `lock`. Events that leave a
    // slot are moved out and released, and their collectors told, after unlocking.
    private let lock = Lock()
    private let mode: Coalescing.Mode
    private let context: any CoalescedContext<E>
    private var handed: CoalescedEvent<E>?
    /// The run of pending deliveries opened for a flush on its way through the main actor (for
    /// ``Coalescing/mainActorTurn`` in another context), so that `idle()` waits for it.
    private var handedRun: PendingDeliveries.Epoch?
    private var waiting: CoalescedEvent<E>?
    /// When the timer next acts, as the mode's clock reads time; nil when no timer runs.
    private var deadline: Duration?
    private var timer: Task<Void, Never>?
    private var closed = false
    /// Set by the first delivery (a coalescer serves one listener of one center); weak, because
    /// the record owns the coalescer.
    private weak var listener: TypedListenerRecord<E>?
    private weak var center: EventCenter?

    init(mode: Coalescing.Mode, context: any CoalescedContext<E>) {
        self.mode = mode
        self.context = context
    }

    deinit {
        // The record is gone, so no flush is queued (a flush holds the coalescer): only a timer's
        // event can be left. Nothing will deliver it.
        timer?.cancel()
        waiting?.skip()
        if let handedRun { center?.pendingDeliveries.closeRun(handedRun) }
    }

    /// What `accept` does once it has unlocked.
    private enum Step {
        case none
        case runInline(CoalescedEvent<E>)
        case flush
        case flushAfterMainTurn
    }

    /// Takes an event the dispatch loop has claimed for the listener.
    func accept(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?
    ) {
        let item = CoalescedEvent(
            event: event, sender: sender, collector: collector, stamp: center.queueStamp(), trace: TraceContext.current)
        var replaced: CoalescedEvent<E>? = nil
        var step = Step.none
        lock.lock()
        if closed {
            lock.unlock()
            return
        }
        if self.listener == nil {
            self.listener = listener
            self.center = center
        }
        switch mode {
        case .latest, .mainActorTurn:
            if handed != nil {
                replaced = handed
                handed = item
            } else if case .latest = mode, context.mayRunInline {
                step = .runInline(item)
            } else {
                handed = item
                if case .mainActorTurn = mode, !context.isMainActor {
                    handedRun = center.pendingDeliveries.openRun()
                    step = .flushAfterMainTurn
                } else {
                    step = .flush
                }
            }
        case .throttle(let interval, let clock):
            if deadline == nil {
                // The first event of a burst goes at once, and opens the interval.
                if handed != nil {
                    replaced = handed
                    handed = item
                } else {
                    handed = item
                    step = .flush
                }
                let end = clock.now() + interval
                deadline = end
                timer = startTimer(clock, until: end)
            } else {
                replaced = waiting
                waiting = item
            }
        case .debounce(let period, let clock):
            replaced = waiting
            waiting = item
            let end = clock.now() + period
            deadline = end
            if timer == nil { timer = startTimer(clock, until: end) }
        }
        // Counted as out for `dispatchAndWait` before any other thread can see the event go.
        if case .runInline = step {} else { collector?.begin() }
        lock.unlock()
        replaced?.skip()
        switch step {
        case .none: break
        case .runInline(let item): context.runInline(listener, item, center: center)
        case .flush: enqueueFlush(listener, center: center)
        case .flushAfterMainTurn:
            DispatchQueue.main.async { self.enqueueFlush(listener, center: center) }
        }
    }

    private func enqueueFlush(_ listener: TypedListenerRecord<E>, center: EventCenter) {
        context.enqueueFlush(listener, center: center) { self.takeHanded() }
    }

    /// The flush's turn has come in the listener's context.
    private func takeHanded() -> CoalescedFlush<E> {
        lock.withLock {
            defer {
                handed = nil
                handedRun = nil
            }
            return CoalescedFlush(event: handed, heldRun: handedRun)
        }
    }

    /// Starts the timer task: it sleeps until `end`, then asks `timerFired` what to do next.
    /// Call with the lock held (creating a task runs no user code).
    private func startTimer(_ clock: CoalescingClock, until end: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            var next = end
            while true {
                do { try await clock.sleep(next) } catch { return }
                guard let following = self?.timerFired() else { return }
                next = following
            }
        }
    }

    /// The timer has reached its deadline: moves the timer's event to `handed` when it is due,
    /// and returns the next deadline to sleep until, or nil when the timer ends.
    private func timerFired() -> Duration? {
        let (listener, center) = lock.withLock { (self.listener, self.center) }
        // Liveness loads the owner, whose release may run its deinit: outside the lock.
        guard let listener, let center, isLive(listener) else {
            close()
            return nil
        }
        var replaced: CoalescedEvent<E>? = nil
        var flush = false
        lock.lock()
        guard !closed, let deadline else {
            lock.unlock()
            return nil
        }
        let next: Duration?
        switch mode {
        case .latest, .mainActorTurn:
            next = nil
        case .throttle(let interval, let clock):
            let now = clock.now()
            if now < deadline {
                next = deadline
            } else if let event = waiting.take() {
                // The trailing event of the interval goes, and opens the next interval.
                (replaced, flush) = hand(event)
                next = now + interval
            } else {
                next = nil
            }
        case .debounce(_, let clock):
            if clock.now() < deadline {
                // A newer event moved the deadline while the timer slept.
                next = deadline
            } else {
                if let event = waiting.take() { (replaced, flush) = hand(event) }
                next = nil
            }
        }
        self.deadline = next
        if next == nil { timer = nil }
        lock.unlock()
        replaced?.skip()
        if flush { enqueueFlush(listener, center: center) }
        return next
    }

    /// Moves `event` to `handed`; returns the event it replaced, and whether a flush must be
    /// queued (none is). Call with the lock held.
    private func hand(_ event: CoalescedEvent<E>) -> (CoalescedEvent<E>?, Bool) {
        let replaced = handed
        handed = event
        return (replaced, replaced == nil)
    }

    /// Whether the listener can still receive its events: not cancelled or removed, its owner
    /// alive. A `once` listener whose event is on its way counts as live.
    private func isLive(_ listener: TypedListenerRecord<E>) -> Bool {
        switch listener.state {
        case .active: break
        case .consumed where listener.once: break
        default: return false
        }
        return !listener.isOwnerBound || listener.owner != nil
    }

    /// The listener was cancelled: drops every waiting event and cancels the timer.
    func close() {
        lock.lock()
        closed = true
        let dropped = (handed.take(), waiting.take())
        let run = handedRun.take()
        let timer = self.timer.take()
        let center = self.center
        deadline = nil
        lock.unlock()
        timer?.cancel()
        dropped.0?.skip()
        dropped.1?.skip()
        if let run { center?.pendingDeliveries.closeRun(run) }
    }
}

/// The route of a coalesced listener: the dispatch loop hands each claimed event to its
/// coalescer.
struct CoalescingRoute<E: Sendable>: AsyncRoute {
    let coalescer: Coalescer<E>

    func deliver(
        _ listener: TypedListenerRecord<E>, _ event: E, _ sender: Sender?, center: EventCenter,
        collector: ReportCollector?
    ) {
        coalescer.accept(listener, event, sender, center: center, collector: collector)
    }
}

/// The queue between the listener of an ``EventStream`` (which pushes on dispatching threads)
/// and its consumer (which takes in a task).
///
/// Why not `AsyncStream`: a consumer of an `AsyncStream` fed from a tight loop falls into
/// lockstep with its producer, suspending after every element, so each event costs a thread
/// wake-up. This queue's consumer takes events without any suspension while some are buffered,
/// and suspends only when it has caught up, so a burst costs one wake-up in all.
///
/// The state and its transitions are ``EventBufferStateMachine``; this class holds it behind a
/// lock and carries out, after unlocking, what each transition returns: resuming consumers, and
/// letting go of dropped events, whose deinitializers may be user code.
///
/// The code is generic over the user's event type and not specialized for it, so it is written
/// to need no type metadata beyond `E`'s own on the common paths (a push that buffers, a take):
/// the lock is taken and released by hand rather than through a closure returning a generic
/// value, and what needs other metadata sits in functions of its own.
@usableFromInline
final class EventBuffer<E: Sendable>: PendingStream, @unchecked Sendable {
    // Why @unchecked is safe: `state` is read and written only while `lock` is held; every
    // continuation it hands out is removed from it in the same hold of the lock, and resumed
    // once, after unlocking.
    //
    // A `SpinLock`: the producer and the consumer take it for a few instructions each, from two
    // threads at once. On Linux a contended pthread mutex put one of them to sleep in the kernel,
    // where the spin lock's waiter only yields; on Apple platforms both are an `os_unfair_lock`.
    private let lock = SpinLock()
    private let state: EventBufferStateMachine<E>
    /// The center's record of pending deliveries, for a stream's buffer: `EventCenter.idle()`
    /// waits for the events buffered when it starts.
    private let pending: PendingDeliveries?
    /// The stream, as an ``IdleReport`` names it.
    private let label: PendingLabel?

    init(policy: EventBufferingPolicy, pending: PendingDeliveries? = nil, label: PendingLabel? = nil) {
        state = EventBufferStateMachine(policy: policy)
        self.pending = pending
        self.label = label
        pending?.register(self)
    }

    deinit {
        // Let go without `cancel()` (a buffer that outlived its stream): its events are gone.
        guard let pending else { return }
        state.reachAllMarks()
        if state.hasReachedMarks { pending.marksReached(state.takeReachedMarks()) }
        pending.unregister(self)
    }

    // MARK: Waiting `idle()` calls

    func placeMark(for waiter: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return state.placeMark(for: waiter)
    }

    var hasBufferedEvents: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !state.isEmpty
    }

    func pendingListener() -> IdleReport.Listener? {
        lock.lock()
        let count = state.count
        lock.unlock()
        guard count > 0, let label else { return nil }
        return label.listener(pending: count)
    }

    /// Reports the marks the last transition reached, after unlocking. Kept out of the paths
    /// that call it, which need it only while an `idle()` waits on this buffer.
    @inline(never)
    private func reportReachedMarks(_ reached: [UInt64]) {
        pending?.marksReached(reached)
    }

    /// How many events the buffering policy dropped.
    var droppedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return state.dropped
    }

    /// How many consumers are suspended in `next(isolation:)`, waiting for an event.
    var waitingConsumers: Int {
        lock.lock()
        defer { lock.unlock() }
        return state.waitingCount
    }

    /// Hands `event` to a waiting consumer, or buffers it under the policy.
    func push(_ event: E) {
        lock.lock()
        switch state.push(event) {
        case .none:
            lock.unlock()
        case .resume(let waiter):
            lock.unlock()
            Self.resume(waiter, with: event)
        case .replaceOldest:
            replaceOldestUnlocking(with: event)
        }
    }

    /// Kept out of `push`: resuming needs the metadata of `E?`, which unspecialized code looks
    /// up in the runtime's cache, and the compiler requests a function's metadata on entry, so
    /// inside `push` every event would pay that lookup, waiter or not.
    @inline(never)
    private static func resume(_ waiter: UnsafeContinuation<E?, Never>, with event: E) {
        waiter.resume(returning: event)
    }

    /// Drops the oldest buffered event to make room for `event`, and releases the lock before
    /// the dropped event is destroyed. Call with the lock held.
    @inline(never)
    private func replaceOldestUnlocking(with event: E) {
        let oldest = state.replaceOldest(with: event)
        let reached = state.hasReachedMarks ? state.takeReachedMarks() : nil
        lock.unlock()
        withExtendedLifetime(oldest) {}
        if let reached { reportReachedMarks(reached) }
    }

    /// Ends the sequence after the events buffered now: the stream's listener was removed. The
    /// consumer takes what is left, then gets nil; a consumer waiting now gets nil at once.
    func finish() {
        lock.lock()
        let waiters = state.finish()
        lock.unlock()
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// Ends the sequence at once, dropping what is buffered: the consumer was cancelled.
    func cancel() {
        lock.lock()
        let action = state.cancel()
        let reached = state.hasReachedMarks ? state.takeReachedMarks() : nil
        lock.unlock()
        action.destroyDiscarded()
        if let reached { reportReachedMarks(reached) }
        for waiter in action.waiters { waiter.resume(returning: nil) }
    }

    /// The next event, waiting for one if none is buffered; nil once the sequence has ended or
    /// the calling task is cancelled. Runs on the caller's executor. The iterator calls it after
    /// `takeBuffered()` found nothing.
    @usableFromInline
    func next(isolation actor: isolated (any Actor)?) async -> E? {
        if Task.isCancelled {
            cancel()
            return nil
        }
        // No look at the buffer first: the iterator has just found it empty (`takeBuffered`),
        // and the suspension below takes an event that arrived meanwhile, or the end.
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<E?, Never>) in
                lock.lock()
                let action = state.suspend(continuation)
                let reached = state.hasReachedMarks ? state.takeReachedMarks() : nil
                lock.unlock()
                if let reached { reportReachedMarks(reached) }
                switch action {
                case .none:
                    break
                case .resume(let continuation, let event):
                    continuation.resume(returning: event)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The oldest buffered event, or nil when none is buffered.
    @usableFromInline
    func takeBuffered() -> E? {
        lock.lock()
        // In a `defer`, not after a local holding the event: a local of type `E?` would make
        // this unspecialized function look up that type's metadata on every call.
        defer {
            if state.hasReachedMarks {
                let reached = state.takeReachedMarks()
                lock.unlock()
                reportReachedMarks(reached)
            } else {
                lock.unlock()
            }
        }
        return state.takeBuffered()
    }
}

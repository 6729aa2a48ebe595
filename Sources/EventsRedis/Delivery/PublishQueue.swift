import Events

/// A bounded FIFO of messages waiting for Redis, read by one ``Publisher``.
///
/// A message stays in the queue until the publisher has a verdict for it (acknowledged, or given
/// up for Pub/Sub), so the capacity bounds what waits for Redis and what is in flight together.
/// `flush()` waits for every message enqueued before the call to leave the queue, and can be
/// abandoned by cancelling the waiting task.
///
/// The state and its transitions are ``PublishQueueStateMachine``; this class holds it behind a
/// lock and carries out, after unlocking, what each transition returns: waking the publisher,
/// resuming flushes.
final class PublishQueue: Sendable {
    let capacity: Int
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive, so the run-time exclusivity
    // checks can never fail. They are off because every published event pays them on enqueue,
    // a measurable share of what the queue costs per event.
    @exclusivity(unchecked) nonisolated(unsafe) private var state: PublishQueueStateMachine

    init(capacity: Int) {
        precondition(capacity > 0, "the publish buffer needs room for at least one event")
        self.capacity = capacity
        state = PublishQueueStateMachine(capacity: capacity)
    }

    /// The route for messages of `type` to `key` with ids starting with `idPrefix`, which this
    /// queue keeps for as long as it exists (a message does not keep its route: see
    /// `OutboundMessage.route`).
    func route(type: String, key: String, idPrefix: String) -> OutboundRoute {
        lock.withLock { state.route(type: type, key: key, idPrefix: idPrefix) }
    }

    /// Sets what runs after every enqueue (the publisher picking the message up).
    func setWaker(_ waker: (@Sendable () -> Void)?) {
        let replaced = lock.withLock { state.setWaker(waker) }
        withExtendedLifetime(replaced) {}
    }

    /// Adds a message and wakes the publisher; false when the queue is full or closed.
    func enqueue(_ message: OutboundMessage, ignoringCapacity: Bool = false) -> Bool {
        lock.lock()
        let action = state.enqueue(message, ignoringCapacity: ignoringCapacity)
        lock.unlock()
        switch action {
        case .refuse:
            return false
        case .accept:
            return true
        case .acceptAndWake(let waker):
            waker()
            return true
        }
    }

    /// A copy of the oldest messages after the first `skipping` (those already in flight), up
    /// to `limit`; empty when there are none (or the queue is closed). They stay queued until
    /// `removeFirst(_:keeping:)`.
    func peekBatch(skipping: Int = 0, limit: Int) -> [OutboundMessage] {
        lock.withLock { state.peekBatch(skipping: skipping, limit: limit) }
    }

    /// Removes the `count` oldest messages (the head of the last batch), except those at the
    /// offsets `kept` (ascending), which stay at the head in order; wakes the flushes this
    /// completes.
    func removeFirst(_ count: Int, keeping kept: [Int] = []) {
        guard count > kept.count else { return }
        lock.withLock { state.removeFirst(count, keeping: kept) }.run()
    }

    /// `removeFirst(_:keeping:)` for a caller that holds a lock of its own: returns the flushes
    /// to wake, for the caller to resume once it has released that lock.
    func removeFirstDeferringWakeups(_ count: Int, keeping kept: [Int] = []) -> [CheckedContinuation<Void, Never>] {
        guard count > kept.count else { return [] }
        return lock.withLock { state.removeFirst(count, keeping: kept) }.continuations
    }

    /// Waits until every message enqueued before this call has been removed; returns false when
    /// the calling task was cancelled first.
    @discardableResult
    func flush() async -> Bool {
        let (id, through) = lock.withLock { state.beginFlush() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // `Task.isCancelled` is read with the lock held: see `suspendFlush`.
                lock.withLock {
                    state.suspendFlush(id: id, through: through, isCancelled: Task.isCancelled, continuation)
                }.run()
            }
        } onCancel: {
            lock.withLock { state.cancelFlush(id: id) }.run()
        }
        return lock.withLock { state.isGone(through: through) }
    }

    /// Stops accepting messages and wakes every flush; returns how many messages were still
    /// queued (they will not be published).
    func close() -> Int {
        let action = lock.withLock { state.close() }
        action.flushes.run()
        withExtendedLifetime(action.waker) {}
        return action.left
    }

    var count: Int { lock.withLock { state.count } }

    /// Whether `close()` was called.
    var isClosed: Bool { lock.withLock { state.isClosed } }

    /// How many flushes are waiting (for tests that must know a flush has begun).
    var waitingFlushes: Int { lock.withLock { state.waitingFlushes } }
}

import Events

/// A bounded FIFO of messages waiting for Redis, read by one ``Publisher``.
///
/// A message stays in the queue until the publisher has a verdict for it (acknowledged, or given
/// up for Pub/Sub), so the capacity bounds what waits for Redis and what is in flight together.
/// `flush()` waits for every message enqueued before the call to leave the queue, and can be
/// abandoned by cancelling the waiting task.
final class PublishQueue: Sendable {
    /// A queued message and its sequence number.
    private struct Slot {
        let message: OutboundMessage
        let sequence: Int
    }

    private struct State {
        /// The queue, in a ring: `count` messages from `slots[head]` on, wrapping around. The
        /// ring keeps the room its longest backlog needed (at most `capacity` slots, rounded up
        /// to a power of two): a burst that outruns Redis grew an array again every time, and
        /// moved its tail down every 1024 messages, touching fresh pages all the way.
        var slots: [Slot?] = []
        var head = 0
        var count = 0
        /// Sequence number of the next message enqueued; sequence numbers ascend from the head.
        var enqueued = 0
        var closed = false
        /// Called after each enqueue, outside the lock: the publisher's `kick`.
        var waker: (@Sendable () -> Void)?
        var flushWaiters: [(id: Int, through: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextFlushWaiterID = 0
        /// Every route made for this queue's messages, kept for as long as the queue (see
        /// `OutboundMessage.route`); one per type, key and prefix, however often it is asked for.
        var routes: [RouteKey: OutboundRoute] = [:]

        /// Where the message `offset` places after the head lies in `slots`.
        func position(_ offset: Int) -> Int {
            (head + offset) & (slots.count - 1)
        }

        subscript(offset: Int) -> Slot {
            get { slots[position(offset)]! }
            set { slots[position(offset)] = newValue }
        }

        mutating func append(_ slot: Slot) {
            if count == slots.count {
                // Twice the room, the messages moved (not copied: no retain and release of
                // each) and laid out from the start again.
                var larger = [Slot?](repeating: nil, count: max(16, slots.count * 2))
                for offset in 0..<count { swap(&larger[offset], &slots[position(offset)]) }
                slots = larger
                head = 0
            }
            slots[position(count)] = slot
            count += 1
        }

        /// Forgets the `removed` messages at the head.
        mutating func dropFirst(_ removed: Int) {
            for offset in 0..<removed { slots[position(offset)] = nil }
            head = position(removed)
            count -= removed
        }

        /// Every message with a lower sequence number is gone (published, given up, or dropped
        /// by `close()`).
        var gone: Int { closed || count == 0 ? enqueued : self[0].sequence }
    }

    private struct RouteKey: Hashable {
        let type: String
        let key: String
        let idPrefix: String
    }

    let capacity: Int
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive, so the run-time exclusivity
    // checks can never fail. They are off because every published event pays them on enqueue,
    // a measurable share of what the queue costs per event.
    @exclusivity(unchecked) nonisolated(unsafe) private var state = State()

    init(capacity: Int) {
        precondition(capacity > 0, "the publish buffer needs room for at least one event")
        self.capacity = capacity
    }

    /// The route for messages of `type` to `key` with ids starting with `idPrefix`, which this
    /// queue keeps for as long as it exists (a message does not keep its route: see
    /// `OutboundMessage.route`).
    func route(type: String, key: String, idPrefix: String) -> OutboundRoute {
        lock.withLock {
            let routeKey = RouteKey(type: type, key: key, idPrefix: idPrefix)
            if let route = state.routes[routeKey] { return route }
            let route = OutboundRoute(type: type, key: key, idPrefix: idPrefix)
            state.routes[routeKey] = route
            return route
        }
    }

    /// Sets what runs after every enqueue (the publisher picking the message up).
    func setWaker(_ waker: (@Sendable () -> Void)?) {
        lock.withLock { state.waker = waker }
    }

    /// Adds a message and wakes the publisher; false when the queue is full or closed.
    func enqueue(_ message: OutboundMessage) -> Bool {
        let waker: (@Sendable () -> Void)?
        lock.lock()
        guard !state.closed, state.count < capacity else {
            lock.unlock()
            return false
        }
        state.append(Slot(message: message, sequence: state.enqueued))
        state.enqueued += 1
        waker = state.waker
        lock.unlock()
        waker?()
        return true
    }

    /// A copy of the oldest messages after the first `skipping` (those already in flight), up
    /// to `limit`; empty when there are none (or the queue is closed). They stay queued until
    /// `removeFirst(_:keeping:)`.
    func peekBatch(skipping: Int = 0, limit: Int) -> [OutboundMessage] {
        lock.withLock {
            guard !state.closed else { return [] }
            let start = min(skipping, state.count)
            let end = min(start + limit, state.count)
            var batch: [OutboundMessage] = []
            batch.reserveCapacity(end - start)
            for offset in start..<end { batch.append(state[offset].message) }
            return batch
        }
    }

    /// Removes the `count` oldest messages (the head of the last batch), except those at the
    /// offsets `kept` (ascending), which stay at the head in order; wakes the flushes this
    /// completes.
    func removeFirst(_ count: Int, keeping kept: [Int] = []) {
        for continuation in removeFirstDeferringWakeups(count, keeping: kept) { continuation.resume() }
    }

    /// `removeFirst(_:keeping:)` for a caller that holds a lock of its own: returns the flushes
    /// to wake, for the caller to resume once it has released that lock.
    func removeFirstDeferringWakeups(_ count: Int, keeping kept: [Int] = []) -> [CheckedContinuation<Void, Never>] {
        guard count > kept.count else { return [] }
        return lock.withLock {
            guard !state.closed else { return [] }
            // Kept messages move up to just before the first message after the batch, so the
            // sequence numbers stay ascending and a flush waits for the oldest kept one.
            for (position, offset) in kept.enumerated().reversed() {
                state[count - kept.count + position] = state[offset]
            }
            state.dropFirst(count - kept.count)
            return takeCompletedFlushes()
        }
    }

    /// Waits until every message enqueued before this call has been removed; returns false when
    /// the calling task was cancelled first.
    @discardableResult
    func flush() async -> Bool {
        let (id, through): (Int, Int) = lock.withLock {
            defer { state.nextFlushWaiterID += 1 }
            return (state.nextFlushWaiterID, state.enqueued)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if state.gone >= through || Task.isCancelled {
                    lock.unlock()
                    continuation.resume()
                } else {
                    state.flushWaiters.append((id, through, continuation))
                    lock.unlock()
                }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
                guard let index = state.flushWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.flushWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
        return lock.withLock { state.gone >= through }
    }

    /// Stops accepting messages and wakes every flush; returns how many messages were still
    /// queued (they will not be published).
    func close() -> Int {
        let (waiters, left): ([CheckedContinuation<Void, Never>], Int) = lock.withLock {
            let left = state.count
            state.closed = true
            state.waker = nil
            return (takeCompletedFlushes(), left)
        }
        for continuation in waiters { continuation.resume() }
        return left
    }

    var count: Int { lock.withLock { state.count } }

    /// Whether `close()` was called.
    var isClosed: Bool { lock.withLock { state.closed } }

    /// How many flushes are waiting (for tests that must know a flush has begun).
    var waitingFlushes: Int { lock.withLock { state.flushWaiters.count } }

    /// Must be called with the lock held.
    private func takeCompletedFlushes() -> [CheckedContinuation<Void, Never>] {
        guard !state.flushWaiters.isEmpty else { return [] }
        var done: [CheckedContinuation<Void, Never>] = []
        let gone = state.gone
        state.flushWaiters.removeAll { waiter in
            guard waiter.through <= gone else { return false }
            done.append(waiter.continuation)
            return true
        }
        return done
    }
}

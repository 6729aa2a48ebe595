/// The state of a ``PublishQueue``: the queued messages, the flushes waiting for them to leave,
/// the publisher's waker, and whether the queue is closed.
///
/// Every transition runs with the queue's lock held, changes only this value, and returns what
/// the caller must do once it has released the lock: wake the publisher, resume flushes, let go
/// of a waker. No transition resumes a continuation or calls a closure itself.
///
/// States: *open* (messages are accepted up to the capacity, flushes wait for the messages
/// enqueued before them to leave) and *closed* (nothing is accepted, every message counts as
/// gone, so no flush waits). The only way from open to closed is `close()`.
struct PublishQueueStateMachine {
    /// A queued message and its sequence number.
    private struct Slot {
        let message: OutboundMessage
        let sequence: Int
    }

    private struct FlushWaiter {
        let id: Int
        /// The flush ends once every message with a lower sequence number is gone.
        let through: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct RouteKey: Hashable {
        let type: String
        let key: String
        let idPrefix: String
    }

    private let capacity: Int
    /// The queue, in a ring: `count` messages from `slots[head]` on, wrapping around. The ring
    /// keeps the room its longest backlog needed (at most `capacity` slots, rounded up to a
    /// power of two): a burst that outruns Redis grew an array again every time, and moved its
    /// tail down every 1024 messages, touching fresh pages all the way.
    private var slots: [Slot?] = []
    private var head = 0
    private(set) var count = 0
    /// Sequence number of the next message enqueued; sequence numbers ascend from the head.
    private var enqueued = 0
    private(set) var isClosed = false
    /// Called after each enqueue, outside the lock: the publisher's `kick`.
    private var waker: (@Sendable () -> Void)?
    private var flushWaiters: [FlushWaiter] = []
    private var nextFlushWaiterID = 0
    /// Every route made for this queue's messages, kept for as long as the queue (see
    /// `OutboundMessage.route`); one per type, key and prefix, however often it is asked for.
    private var routes: [RouteKey: OutboundRoute] = [:]

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// How many flushes are waiting.
    var waitingFlushes: Int { flushWaiters.count }

    // MARK: Actions (run each after releasing the lock)

    /// Flushes to resume, now that the messages they waited for are gone (or the queue closed,
    /// or the flush was cancelled).
    enum ResumeAction {
        case none
        case resume([CheckedContinuation<Void, Never>])

        func run() {
            guard case .resume(let continuations) = self else { return }
            for continuation in continuations { continuation.resume() }
        }

        /// The continuations, for a caller that resumes them after releasing a lock of its own.
        var continuations: [CheckedContinuation<Void, Never>] {
            guard case .resume(let continuations) = self else { return [] }
            return continuations
        }
    }

    /// What the enqueuer does after unlocking.
    enum EnqueueAction {
        /// The queue is full or closed: the message was not taken.
        case refuse
        /// Taken; no publisher to wake.
        case accept
        /// Taken; call the publisher's waker.
        case acceptAndWake(@Sendable () -> Void)
    }

    // MARK: Transitions (call each with the queue's lock held)

    /// The route for messages of `type` to `key` with ids starting with `idPrefix`, made once.
    mutating func route(type: String, key: String, idPrefix: String) -> OutboundRoute {
        let routeKey = RouteKey(type: type, key: key, idPrefix: idPrefix)
        if let route = routes[routeKey] { return route }
        let route = OutboundRoute(type: type, key: key, idPrefix: idPrefix)
        routes[routeKey] = route
        return route
    }

    /// Installs the publisher's waker; returns the one it replaces, to let go of after
    /// unlocking (releasing a closure may release what it captured).
    mutating func setWaker(_ newWaker: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
        defer { waker = newWaker }
        return waker
    }

    /// A message arrives from a publishing thread. Runs for every published event.
    @inline(__always)
    /// `ignoringCapacity` is for what an outbox held from an earlier run: it was accepted then,
    /// and a smaller buffer now must not drop it.
    mutating func enqueue(_ message: OutboundMessage, ignoringCapacity: Bool = false) -> EnqueueAction {
        guard !isClosed, ignoringCapacity || count < capacity else { return .refuse }
        append(Slot(message: message, sequence: enqueued))
        enqueued += 1
        guard let waker else { return .accept }
        return .acceptAndWake(waker)
    }

    /// A copy of the oldest messages after the first `skipping`, up to `limit`; empty when
    /// there are none, or the queue is closed.
    @inline(__always)
    func peekBatch(skipping: Int, limit: Int) -> [OutboundMessage] {
        guard !isClosed else { return [] }
        let start = min(skipping, count)
        let end = min(start + limit, count)
        var batch: [OutboundMessage] = []
        batch.reserveCapacity(end - start)
        for offset in start..<end { batch.append(self[offset].message) }
        return batch
    }

    /// The publisher is done with the `removed` oldest messages, except those at the offsets
    /// `kept` (ascending), which stay at the head in order; resumes the flushes this completes.
    @inline(__always)
    mutating func removeFirst(_ removed: Int, keeping kept: [Int]) -> ResumeAction {
        guard removed > kept.count, !isClosed else { return .none }
        // Kept messages move up to just before the first message after the batch, so the
        // sequence numbers stay ascending and a flush waits for the oldest kept one.
        for (position, offset) in kept.enumerated().reversed() {
            self[removed - kept.count + position] = self[offset]
        }
        dropFirst(removed - kept.count)
        return takeCompletedFlushes()
    }

    /// A flush begins: its id, and the sequence number every message before it is below.
    mutating func beginFlush() -> (id: Int, through: Int) {
        defer { nextFlushWaiterID += 1 }
        return (nextFlushWaiterID, enqueued)
    }

    /// The flush `id` suspends with `continuation`; resumed at once when what it waits for is
    /// gone already, or when its task was cancelled before its cancellation handler could find
    /// it waiting. `isCancelled` must be read with the lock held, so that the handler either
    /// runs before (and this sees the task cancelled) or finds the flush waiting.
    mutating func suspendFlush(
        id: Int, through: Int, isCancelled: Bool, _ continuation: CheckedContinuation<Void, Never>
    ) -> ResumeAction {
        if isGone(through: through) || isCancelled { return .resume([continuation]) }
        flushWaiters.append(FlushWaiter(id: id, through: through, continuation: continuation))
        return .none
    }

    /// The task of the flush `id` was cancelled: resume it if it waits (it may not have
    /// suspended yet, or have been resumed already).
    mutating func cancelFlush(id: Int) -> ResumeAction {
        guard let index = flushWaiters.firstIndex(where: { $0.id == id }) else { return .none }
        return .resume([flushWaiters.remove(at: index).continuation])
    }

    /// Whether every message with a sequence number below `through` is gone (published, given
    /// up, or dropped by `close()`).
    func isGone(through: Int) -> Bool { gone >= through }

    /// What the closer does after unlocking.
    struct CloseAction {
        /// How many messages were still queued (they will not be published).
        let left: Int
        /// Every waiting flush: nothing is left to wait for.
        let flushes: ResumeAction
        /// The waker let go of, to release after unlocking.
        let waker: (@Sendable () -> Void)?
    }

    /// The queue stops accepting messages. Idempotent (a second close reports the same count).
    mutating func close() -> CloseAction {
        let left = count
        isClosed = true
        let oldWaker = waker
        waker = nil
        return CloseAction(left: left, flushes: takeCompletedFlushes(), waker: oldWaker)
    }

    // MARK: The ring

    /// Where the message `offset` places after the head lies in `slots`.
    private func position(_ offset: Int) -> Int {
        (head + offset) & (slots.count - 1)
    }

    private subscript(offset: Int) -> Slot {
        get { slots[position(offset)]! }
        set { slots[position(offset)] = newValue }
    }

    private mutating func append(_ slot: Slot) {
        if count == slots.count {
            // Twice the room, the messages moved (not copied: no retain and release of each)
            // and laid out from the start again.
            var larger = [Slot?](repeating: nil, count: max(16, slots.count * 2))
            for offset in 0..<count { swap(&larger[offset], &slots[position(offset)]) }
            slots = larger
            head = 0
        }
        slots[position(count)] = slot
        count += 1
    }

    /// Forgets the `removed` messages at the head.
    private mutating func dropFirst(_ removed: Int) {
        for offset in 0..<removed { slots[position(offset)] = nil }
        head = position(removed)
        count -= removed
    }

    /// Every message with a lower sequence number is gone.
    private var gone: Int { isClosed || count == 0 ? enqueued : self[0].sequence }

    private mutating func takeCompletedFlushes() -> ResumeAction {
        guard !flushWaiters.isEmpty else { return .none }
        var done: [CheckedContinuation<Void, Never>] = []
        let gone = gone
        flushWaiters.removeAll { waiter in
            guard waiter.through <= gone else { return false }
            done.append(waiter.continuation)
            return true
        }
        return done.isEmpty ? .none : .resume(done)
    }
}

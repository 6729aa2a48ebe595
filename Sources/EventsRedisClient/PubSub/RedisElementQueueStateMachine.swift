/// The state a ``RedisElementQueue``'s producer and consumer share: the buffered elements, the
/// consumer waiting for one, the end, and what runs at termination.
///
/// Every transition runs with the queue's shared lock held, changes only this value, and
/// returns what the caller must do once it has released the lock: resume the consumer, run
/// `onTermination`, let go of discarded elements. No transition resumes a continuation or calls
/// a closure itself.
///
/// States: *open* (elements are buffered, the oldest dropped beyond the limit; the consumer
/// waits only when nothing is buffered), *finished* (`end` is set: later pushes are ignored, the
/// consumer drains what is buffered, then gets the end), and *terminated* (nothing buffered,
/// nobody waiting, every later push ignored). `finish` leads from open to finished, `terminate`
/// from either to terminated.
struct RedisElementQueueStateMachine<Element: Sendable> {
    private let limit: Int
    private var buffer: [Element] = []
    /// How far the consumer has taken `buffer`: dropping the oldest only moves this.
    private var head = 0
    private var waiter: CheckedContinuation<Void, Never>?
    /// Set by `finish`; `.some(nil)` for an end without an error.
    private var end: RedisError??
    private(set) var isTerminated = false
    private var onTermination: (@Sendable () -> Void)?

    init(limit: Int, onTermination: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.onTermination = onTermination
    }

    /// Whether the consumer is suspended, waiting for an element or the end.
    var hasWaitingConsumer: Bool { waiter != nil }

    // MARK: Actions (run each after releasing the lock)

    /// Whether to resume the waiting consumer.
    enum WakeAction {
        case none
        case resume(CheckedContinuation<Void, Never>)

        func run() {
            if case .resume(let continuation) = self { continuation.resume() }
        }
    }

    // MARK: Transitions (call each with the shared lock held)

    /// The reader thread pushes `element`; `kept` is false when that dropped the oldest
    /// buffered element. Runs for every element.
    mutating func push(_ element: Element) -> (kept: Bool, action: WakeAction) {
        guard !isTerminated, end == nil else { return (true, .none) }
        buffer.append(element)
        var kept = true
        if buffer.count - head > limit {
            head += 1
            kept = false
            compact()
        }
        return (kept, takeWaiter())
    }

    /// The producer ends the queue with `error`, or without one. Ignored after the first call.
    mutating func finish(throwing error: RedisError?) -> WakeAction {
        guard end == nil else { return .none }
        end = .some(error)
        return takeWaiter()
    }

    /// What the consumer finds when it refills its batch.
    enum Refill {
        /// Elements were moved into the batch.
        case refilled
        /// Nothing is buffered and the queue goes on: wait.
        case empty
        /// The end, with the error to throw (once: the calls after it see a plain end).
        case end(RedisError?)
    }

    /// Moves up to `maxBatch` buffered elements into `batch`, which must be empty.
    mutating func refill(into batch: inout [Element], maxBatch: Int) -> Refill {
        if isTerminated { return .end(nil) }
        let available = buffer.count - head
        if available > 0 {
            if head == 0 && available <= maxBatch {
                // Swap buffers so that neither side allocates in the steady state.
                swap(&buffer, &batch)
            } else {
                let taken = head + min(available, maxBatch)
                batch.append(contentsOf: buffer[head..<taken])
                head = taken
                compact()
            }
            return .refilled
        }
        guard let end else { return .empty }
        self.end = .some(nil)
        return .end(end)
    }

    /// The consumer found nothing and suspends with `continuation`; resumed at once when an
    /// element, the end or the termination came meanwhile.
    mutating func suspend(_ continuation: CheckedContinuation<Void, Never>) -> WakeAction {
        guard buffer.count == head, end == nil, !isTerminated else { return .resume(continuation) }
        waiter = continuation
        return .none
    }

    /// What the terminator does after unlocking, in this order: let go of the discarded
    /// elements, resume the waiting consumer, run `onTermination` (nil after the first
    /// termination).
    struct TerminateAction {
        let discarded: [Element]
        let waiter: WakeAction
        let onTermination: (@Sendable () -> Void)?

        func run() {
            withExtendedLifetime(discarded) {}
            waiter.run()
            onTermination?()
        }
    }

    /// The queue stops for good: the consumer was cancelled or went away, or got the end.
    /// Idempotent.
    mutating func terminate() -> TerminateAction {
        isTerminated = true
        let discarded = buffer
        buffer = []
        head = 0
        defer { onTermination = nil }
        return TerminateAction(discarded: discarded, waiter: takeWaiter(), onTermination: onTermination)
    }

    // MARK: Helpers

    private mutating func takeWaiter() -> WakeAction {
        guard let waiter else { return .none }
        self.waiter = nil
        return .resume(waiter)
    }

    /// Releases the taken or dropped prefix of `buffer` once that is cheap or worth it.
    private mutating func compact() {
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= buffer.count {
            buffer.removeSubrange(0..<head)
            head = 0
        }
    }
}

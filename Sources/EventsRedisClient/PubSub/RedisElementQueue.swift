/// The buffer between a subscription's reader thread and the task that iterates its stream:
/// one producer pushes elements, one consumer takes them, oldest first.
///
/// ```swift
/// let queue = RedisElementQueue<Int>(limit: 100, onTermination: { stopReading() })
/// queue.push(1)                                 // reader thread
/// queue.finish(throwing: nil)
/// let stream = queue.stream()                   // what the caller iterates: 1, then the end
/// ```
///
/// Why not `AsyncThrowingStream.makeStream`: its `yield` runs unspecialized generic code that
/// looks up type metadata on every element, and each `yield` and `next` takes its lock, so the
/// reader and the consumer contend once per element; profiling the subscriber under load put
/// most of the reader thread's time in `yield`. Here `push` appends to a plain
/// array under a short lock, and the consumer takes up to ``maxBatch`` buffered elements at
/// once, then hands them out without touching the shared lock.
///
/// Rules, as the `bufferingNewest` stream they replace:
/// - Beyond `limit` elements waiting, the oldest is dropped and `push` returns `false`. The
///   consumer's current batch (at most ``maxBatch`` elements) no longer waits: it is delivered.
/// - After ``finish(throwing:)`` the consumer receives what is buffered, then the error if
///   any, then `nil` for good.
/// - `onTermination` runs once, when the consumer's task is cancelled while waiting, or when
///   the stream and its iterators are released (the consumer went away), or after the end was
///   delivered. Pushes after that are ignored.
///
/// The state the producer and the consumer share, and its transitions, are
/// ``RedisElementQueueStateMachine``; this class holds it behind a lock and carries out, after
/// unlocking, what each transition returns: resuming the consumer, running `onTermination`.
final class RedisElementQueue<Element: Sendable>: Sendable {
    /// What only the consumer touches: the batch it took from `shared`. Locked all the same,
    /// because nothing stops two tasks from iterating copies of one stream; the lock is then
    /// uncontended, since the producer never takes it.
    private struct Batch {
        var elements: [Element] = []
        var index = 0
    }

    /// The most elements the consumer takes at once. Elements it has taken no longer count
    /// against `limit`, so this bounds how far a slow consumer can exceed it; 256 is plenty to
    /// make the shared lock's cost per element negligible.
    static var maxBatch: Int { 256 }

    private let shared: LockedBox<RedisElementQueueStateMachine<Element>>
    private let batch = LockedBox(Batch())

    init(limit: Int, onTermination: @escaping @Sendable () -> Void) {
        shared = LockedBox(RedisElementQueueStateMachine(limit: max(limit, 1), onTermination: onTermination))
    }

    // MARK: Producer

    /// Appends `element`; `false` when that dropped the oldest buffered element.
    @discardableResult
    func push(_ element: Element) -> Bool {
        let (kept, action) = shared.withLock { $0.push(element) }
        action.run()
        return kept
    }

    /// Ends the queue: the consumer gets the buffered elements, then `error` (if any), then the
    /// end. Later calls are ignored.
    func finish(throwing error: RedisError?) {
        shared.withLock { $0.finish(throwing: error) }.run()
    }

    // MARK: Consumer

    /// The stream a caller iterates.
    func stream() -> AsyncThrowingStream<Element, any Error> {
        // The token lives as long as the stream or one of its iterators: when the consumer
        // drops them all, its deinit terminates the queue (the reader stops).
        let token = ReleaseToken(self)
        return AsyncThrowingStream(unfolding: { try await token.queue.next() })
    }

    private final class ReleaseToken: Sendable {
        let queue: RedisElementQueue

        init(_ queue: RedisElementQueue) {
            self.queue = queue
        }

        deinit {
            queue.terminate()
        }
    }

    /// The next element, `nil` at the end or after cancellation; throws the error `finish`
    /// was given, once.
    func next() async throws(RedisError) -> Element? {
        while true {
            let taken: Element? = batch.withLock { batch in
                guard batch.index < batch.elements.count else { return nil }
                defer { batch.index += 1 }
                return batch.elements[batch.index]
            }
            if let taken { return taken }
            switch refill() {
            case .refilled: continue
            case .end(let error):
                terminate()
                if let error { throw error }
                return nil
            case .empty:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        shared.withLock { $0.suspend(continuation) }.run()
                    }
                } onCancel: {
                    terminate()
                }
                if shared.withLock({ $0.isTerminated }) { return nil }
            }
        }
    }

    /// Moves up to ``maxBatch`` buffered elements into the consumer's batch, in one short hold
    /// of the shared lock.
    private func refill() -> RedisElementQueueStateMachine<Element>.Refill {
        batch.withLock { batch in
            batch.elements.removeAll(keepingCapacity: true)
            batch.index = 0
            return shared.withLock { $0.refill(into: &batch.elements, maxBatch: Self.maxBatch) }
        }
    }

    /// Stops the queue for good and runs `onTermination` once. Idempotent.
    func terminate() {
        shared.withLock { $0.terminate() }.run()
    }

    /// Whether the consumer is suspended, waiting (for tests that must know it waits).
    var hasWaitingConsumer: Bool { shared.withLock { $0.hasWaitingConsumer } }
}

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
final class RedisElementQueue<Element: Sendable>: Sendable {
    private struct Shared {
        var buffer: [Element] = []
        /// How far the consumer has taken `buffer`: dropping the oldest only moves this.
        var head = 0
        var waiter: CheckedContinuation<Void, Never>?
        /// Set by `finish`; `.some(nil)` for an end without an error.
        var end: RedisError??
        var isTerminated = false
        var onTermination: (@Sendable () -> Void)?

        /// Releases the taken or dropped prefix of `buffer` once that is cheap or worth it.
        mutating func compact() {
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= buffer.count {
                buffer.removeSubrange(0..<head)
                head = 0
            }
        }
    }

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

    private let limit: Int
    private let shared: LockedBox<Shared>
    private let batch = LockedBox(Batch())

    init(limit: Int, onTermination: @escaping @Sendable () -> Void) {
        self.limit = max(limit, 1)
        self.shared = LockedBox(Shared(onTermination: onTermination))
    }

    // MARK: Producer

    /// Appends `element`; `false` when that dropped the oldest buffered element.
    @discardableResult
    func push(_ element: Element) -> Bool {
        var kept = true
        let waiter: CheckedContinuation<Void, Never>? = shared.withLock { shared in
            guard !shared.isTerminated, shared.end == nil else { return nil }
            shared.buffer.append(element)
            if shared.buffer.count - shared.head > limit {
                shared.head += 1
                kept = false
                shared.compact()
            }
            defer { shared.waiter = nil }
            return shared.waiter
        }
        waiter?.resume()
        return kept
    }

    /// Ends the queue: the consumer gets the buffered elements, then `error` (if any), then the
    /// end. Later calls are ignored.
    func finish(throwing error: RedisError?) {
        let waiter: CheckedContinuation<Void, Never>? = shared.withLock { shared in
            guard shared.end == nil else { return nil }
            shared.end = .some(error)
            defer { shared.waiter = nil }
            return shared.waiter
        }
        waiter?.resume()
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
                        let ready: Bool = shared.withLock { shared in
                            guard shared.buffer.count == shared.head, shared.end == nil, !shared.isTerminated
                            else { return true }
                            shared.waiter = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    terminate()
                }
                if shared.withLock({ $0.isTerminated }) { return nil }
            }
        }
    }

    private enum Refill {
        case refilled
        case empty
        case end(RedisError?)
    }

    /// Moves everything buffered into the consumer's batch, in one short hold of the shared
    /// lock.
    private func refill() -> Refill {
        batch.withLock { batch in
            batch.elements.removeAll(keepingCapacity: true)
            batch.index = 0
            return shared.withLock { shared in
                if shared.isTerminated { return .end(nil) }
                let available = shared.buffer.count - shared.head
                if available > 0 {
                    if shared.head == 0 && available <= Self.maxBatch {
                        // Swap buffers so that neither side allocates in the steady state.
                        swap(&shared.buffer, &batch.elements)
                    } else {
                        let end = shared.head + min(available, Self.maxBatch)
                        batch.elements.append(contentsOf: shared.buffer[shared.head..<end])
                        shared.head = end
                        shared.compact()
                    }
                    return .refilled
                }
                guard let end = shared.end else { return .empty }
                // Deliver the error once; the calls after it see a plain end.
                shared.end = .some(nil)
                return .end(end)
            }
        }
    }

    /// Stops the queue for good and runs `onTermination` once. Idempotent.
    func terminate() {
        let (onTermination, waiter): ((@Sendable () -> Void)?, CheckedContinuation<Void, Never>?) = shared.withLock {
            shared in
            shared.isTerminated = true
            shared.buffer = []
            shared.head = 0
            defer {
                shared.onTermination = nil
                shared.waiter = nil
            }
            return (shared.onTermination, shared.waiter)
        }
        waiter?.resume()
        onTermination?()
    }
}

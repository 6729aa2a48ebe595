import Events

/// One event waiting to be published: its encoded CloudEvent and where it goes.
struct OutboundMessage: Sendable {
    let type: String
    let id: String
    let key: String
    let payload: [UInt8]
}

/// A bounded FIFO of messages waiting for Redis, with one reader (a publish loop).
///
/// A message stays in the queue until the loop has a verdict for it (acknowledged, or given up
/// for Pub/Sub), so the capacity bounds what waits for Redis and what is in flight together.
/// `flush()` waits for every message enqueued before the call to leave the queue.
///
/// Both waits end early when the waiting task is cancelled: a publish loop whose task is
/// cancelled stops even while the queue stays open, and a flush can be abandoned.
final class PublishQueue: Sendable {
    private struct State {
        var messages: [OutboundMessage] = []
        /// The sequence number of each message in `messages`, ascending from `head` on.
        var sequences: [Int] = []
        var head = 0
        /// Sequence number of the next message enqueued.
        var enqueued = 0
        var closed = false
        var reader: CheckedContinuation<Void, Never>?
        var flushWaiters: [(id: Int, through: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextFlushWaiterID = 0

        var count: Int { messages.count - head }
        /// Every message with a lower sequence number is gone (published, given up, or dropped
        /// by `close()`).
        var gone: Int { closed || count == 0 ? enqueued : sequences[head] }
    }

    let capacity: Int
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()

    init(capacity: Int) {
        precondition(capacity > 0, "the publish buffer needs room for at least one event")
        self.capacity = capacity
    }

    /// Adds a message; false when the queue is full or closed.
    func enqueue(_ message: OutboundMessage) -> Bool {
        let reader: CheckedContinuation<Void, Never>?
        lock.lock()
        guard !state.closed, state.count < capacity else {
            lock.unlock()
            return false
        }
        state.messages.append(message)
        state.sequences.append(state.enqueued)
        state.enqueued += 1
        reader = state.reader
        state.reader = nil
        lock.unlock()
        reader?.resume()
        return true
    }

    /// The oldest messages, up to `limit`, once there is at least one; `nil` once the queue is
    /// closed or the calling task is cancelled. The messages stay queued until `removeFirst(_:)`.
    func nextBatch(limit: Int) async -> [OutboundMessage]? {
        while true {
            if Task.isCancelled { return nil }
            // A copy, not a slice: a slice would keep the queue's buffer shared and make every
            // enqueue during the round trip copy it.
            let batch: [OutboundMessage]?? = lock.withLock {
                if state.closed { return .some(nil) }
                guard state.count > 0 else { return nil }
                return .some(Array(state.messages[state.head..<min(state.head + limit, state.messages.count)]))
            }
            if let batch { return batch }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    lock.lock()
                    if state.count > 0 || state.closed || Task.isCancelled {
                        lock.unlock()
                        continuation.resume()
                    } else {
                        state.reader = continuation
                        lock.unlock()
                    }
                }
            } onCancel: {
                let reader: CheckedContinuation<Void, Never>? = lock.withLock {
                    defer { state.reader = nil }
                    return state.reader
                }
                reader?.resume()
            }
        }
    }

    /// Removes the `count` oldest messages (the head of the last batch), except those at the
    /// offsets `kept` (ascending), which stay at the head in order; wakes the flushes this
    /// completes.
    func removeFirst(_ count: Int, keeping kept: [Int] = []) {
        guard count > kept.count else { return }
        var done: [CheckedContinuation<Void, Never>] = []
        lock.withLock {
            // Kept messages move up to just before the first message after the batch, so the
            // sequence numbers stay ascending and a flush waits for the oldest kept one.
            for (position, offset) in kept.enumerated().reversed() {
                let from = state.head + offset
                let to = state.head + count - kept.count + position
                state.messages[to] = state.messages[from]
                state.sequences[to] = state.sequences[from]
            }
            state.head += count - kept.count
            if state.head >= 1024 && state.head * 2 >= state.messages.count {
                state.messages.removeFirst(state.head)
                state.sequences.removeFirst(state.head)
                state.head = 0
            }
            done = takeCompletedFlushes()
        }
        for continuation in done { continuation.resume() }
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

    /// Stops accepting messages and wakes the reader and every flush; returns how many
    /// messages were still queued (they will not be published).
    func close() -> Int {
        let (reader, waiters, left): (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>], Int) =
            lock.withLock {
                state.closed = true
                let left = state.count
                let reader = state.reader
                state.reader = nil
                return (reader, takeCompletedFlushes(), left)
            }
        reader?.resume()
        for continuation in waiters { continuation.resume() }
        return left
    }

    var count: Int { lock.withLock { state.count } }

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

import RedisTestSupport
import Testing

@testable import EventsRedis

/// The transitions of the publish queue's state machine that end a flush some other way than
/// its messages leaving: its task cancelled, the queue closed.
@Suite("Publish queue state")
struct PublishQueueStateTests {
    /// Keeps the routes of the messages these tests make, for the whole run.
    static let routes = PublishQueue(capacity: 1)

    func message(_ n: Int) -> OutboundMessage {
        OutboundMessage(
            route: Self.routes.route(type: "t", key: "k", idPrefix: ""), idNumber: UInt64(n),
            payload: Array("\(n)".utf8))
    }

    @Test("A flush cancelled while it waits returns false, leaves the queue as it was, and a later flush still waits")
    func cancelledWhileWaiting() async {
        let queue = PublishQueue(capacity: 10)
        _ = queue.enqueue(message(1))
        let flushing = Task { await queue.flush() }
        #expect(await eventually { queue.waitingFlushes == 1 })
        flushing.cancel()
        let flushed = await flushing.value
        #expect(!flushed, "message 1 was never removed")
        #expect(queue.waitingFlushes == 0, "the cancelled flush no longer waits")
        #expect(queue.count == 1)

        let second = Task { await queue.flush() }
        #expect(await eventually { queue.waitingFlushes == 1 })
        queue.removeFirst(1)
        let secondFlushed = await second.value
        #expect(secondFlushed)
    }

    @Test("A flush whose task is cancelled before it begins returns false without waiting")
    func cancelledBeforeWaiting() async {
        let queue = PublishQueue(capacity: 10)
        _ = queue.enqueue(message(1))
        let flushing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await queue.flush()
        }
        let flushed = await flushing.value
        #expect(!flushed)
        #expect(queue.waitingFlushes == 0)
    }

    @Test("A flush on an empty queue returns true at once, cancelled or not")
    func nothingToWaitFor() async {
        let queue = PublishQueue(capacity: 10)
        let flushed = await queue.flush()
        #expect(flushed)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await queue.flush()
        }
        let cancelledFlushed = await cancelled.value
        #expect(cancelledFlushed, "nothing was enqueued before it, so nothing is left to wait for")
    }

    @Test("close ends every waiting flush, and a flush after close does not wait")
    func closeWithWaitingFlushes() async {
        let queue = PublishQueue(capacity: 10)
        _ = queue.enqueue(message(1))
        _ = queue.enqueue(message(2))
        let first = Task { await queue.flush() }
        let second = Task { await queue.flush() }
        #expect(await eventually { queue.waitingFlushes == 2 })
        #expect(queue.close() == 2)
        // The closed queue's messages count as gone: they will never be published.
        let firstFlushed = await first.value
        let secondFlushed = await second.value
        #expect(firstFlushed && secondFlushed)
        #expect(queue.waitingFlushes == 0)
        let afterClose = await queue.flush()
        #expect(afterClose)
        #expect(queue.close() == 2, "a second close reports the same messages")
    }

    @Test("A waker let go of, by setWaker or by close, is released outside the queue's lock")
    func wakerReleasedOutsideLock() {
        let queue = PublishQueue(capacity: 10)
        let released = Counter()
        // Each probe reads the queue as it is destroyed: under the queue's lock, that would
        // deadlock.
        do {
            let probe = ReleaseProbe(queue: queue, released: released)
            queue.setWaker { probe.touch() }
        }
        queue.setWaker(nil)
        #expect(released.value == 1, "setWaker let go of the first waker")
        do {
            let probe = ReleaseProbe(queue: queue, released: released)
            queue.setWaker { probe.touch() }
        }
        _ = queue.close()
        #expect(released.value == 2, "close let go of the second waker")
    }
}

/// Reads the queue when it is destroyed, and counts that it was.
private final class ReleaseProbe: Sendable {
    let queue: PublishQueue
    let released: Counter

    init(queue: PublishQueue, released: Counter) {
        self.queue = queue
        self.released = released
    }

    func touch() {}

    deinit {
        _ = queue.isClosed
        released.increment()
    }
}

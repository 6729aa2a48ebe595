import RedisTestSupport
import Testing

@testable import EventsRedisClient

/// The transitions of the subscriber element queue's state machine that meet a waiting
/// consumer: the end, the termination.
@Suite("Subscriber element queue state")
struct RedisElementQueueStateTests {
    @Test("terminating the queue while its consumer waits ends the stream and runs onTermination once")
    func terminateWithWaitingConsumer() async throws {
        let terminations = Counter()
        let queue = RedisElementQueue<Int>(limit: 10, onTermination: { terminations.increment() })
        let stream = queue.stream()
        let consumer = Task {
            var received: [Int] = []
            for try await n in stream { received.append(n) }
            return received
        }
        #expect(await eventually { queue.hasWaitingConsumer }, "the consumer never began to wait")
        queue.terminate()
        #expect(try await consumer.value == [])
        #expect(!queue.hasWaitingConsumer)
        queue.terminate()
        #expect(terminations.value == 1, "a second termination runs nothing")
        #expect(queue.push(1), "a push after the end is ignored, not counted as a drop")
    }

    @Test("finishing the queue while its consumer waits delivers the error, then the end")
    func finishWithWaitingConsumer() async throws {
        let queue = RedisElementQueue<Int>(limit: 10, onTermination: {})
        let consumer = Task { () -> RedisError? in
            var iterator = queue.stream().makeAsyncIterator()
            do {
                while try await iterator.next() != nil {}
            } catch let error as RedisError {
                return try await iterator.next() == nil ? error : nil
            }
            return nil
        }
        #expect(await eventually { queue.hasWaitingConsumer }, "the consumer never began to wait")
        queue.finish(throwing: .connectionClosed)
        #expect(try await consumer.value == .connectionClosed)
    }

    @Test("onTermination and the consumer's wake-up run outside the queue's lock")
    func terminationOutsideLock() async throws {
        let box = LockedBox<RedisElementQueue<Int>?>(nil)
        let reentered = Counter()
        // Pushing from onTermination would deadlock if it ran under the queue's lock.
        let queue = RedisElementQueue<Int>(
            limit: 10,
            onTermination: {
                _ = box.withLock { $0 }?.push(99)
                reentered.increment()
            })
        box.withLock { $0 = queue }
        let stream = queue.stream()
        let consumer = Task {
            var received: [Int] = []
            for try await n in stream { received.append(n) }
            return received
        }
        #expect(await eventually { queue.hasWaitingConsumer }, "the consumer never began to wait")
        queue.terminate()
        #expect(try await consumer.value == [])
        #expect(reentered.value == 1)
        box.withLock { $0 = nil }
    }
}

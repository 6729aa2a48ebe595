import Foundation
import RedisTestSupport
import Testing

@testable import EventsRedisClient

/// Counts `onTermination` calls across threads.
private final class Terminations: Sendable {
    private let count = LockedBox(0)
    func record() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite("Subscriber element queue")
struct RedisElementQueueTests {
    @Test("delivers pushed elements in order, then the end")
    func ordered() async throws {
        let terminations = Terminations()
        let count = 3 * RedisElementQueue<Int>.maxBatch + 5  // several batches
        let queue = RedisElementQueue<Int>(limit: count, onTermination: { terminations.record() })
        for n in 0..<count { #expect(queue.push(n)) }
        queue.finish(throwing: nil)
        var received: [Int] = []
        for try await n in queue.stream() { received.append(n) }
        #expect(received == Array(0..<count))
        #expect(terminations.value == 1)
    }

    @Test("beyond the limit drops the oldest elements and reports each drop")
    func dropsOldest() async throws {
        let queue = RedisElementQueue<Int>(limit: 3, onTermination: {})
        let kept = (0..<3000).map { queue.push($0) }
        #expect(kept.filter { !$0 }.count == 2997)
        queue.finish(throwing: nil)
        var received: [Int] = []
        for try await n in queue.stream() { received.append(n) }
        #expect(received == [2997, 2998, 2999])
    }

    @Test("delivers the buffered elements before the error, and the error once")
    func errorAfterElements() async throws {
        let queue = RedisElementQueue<Int>(limit: 10, onTermination: {})
        queue.push(1)
        queue.finish(throwing: .connectionClosed)
        queue.push(2)  // ignored after the end
        var iterator = queue.stream().makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        await #expect(throws: RedisError.connectionClosed) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("wakes a waiting consumer for elements pushed from another thread")
    func wakesConsumer() async throws {
        let queue = RedisElementQueue<Int>(limit: 1_000_000, onTermination: {})
        let consumer = Task {
            var sum = 0
            for try await n in queue.stream() { sum += n }
            return sum
        }
        Thread.detachNewThread {
            for n in 1...10_000 { queue.push(n) }
            queue.finish(throwing: nil)
        }
        #expect(try await consumer.value == 50_005_000)
    }

    @Test("cancelling the waiting consumer ends its stream and terminates the queue")
    func cancellation() async throws {
        let terminations = Terminations()
        let queue = RedisElementQueue<Int>(limit: 10, onTermination: { terminations.record() })
        let stream = queue.stream()
        let taken = Counter()
        let consumer = Task {
            for try await _ in stream { taken.increment() }
            return taken.value
        }
        queue.push(1)
        // The consumer takes 1, then waits for more (whether it is already suspended there is not
        // visible from outside; a cancellation just before the wait must end the stream the same).
        #expect(await eventually { taken.value == 1 })
        #expect(terminations.value == 0)
        consumer.cancel()
        _ = try await consumer.value
        #expect(terminations.value == 1)
        #expect(queue.push(2))  // ignored, and no second termination
        #expect(terminations.value == 1)
    }

    @Test("dropping the stream unconsumed terminates the queue")
    func droppedStream() async {
        let terminations = Terminations()
        let queue = RedisElementQueue<Int>(limit: 10, onTermination: { terminations.record() })
        do {
            let stream = queue.stream()
            withExtendedLifetime(stream) {}
        }
        #expect(terminations.value == 1)
    }
}

import Dispatch
import Testing

@testable import Events

@Suite("Async sequences and waiting for events")
struct AsyncEventTests {
    @Test func streamDeliversEventsInOrderAndEndingTheLoopRemovesTheListener() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        #expect(center.listenerCount(for: Tick.self) == 1)
        for n in 1...5 { center.dispatch(Tick(n: n)) }
        var received: [Int] = []
        for await tick in stream {
            received.append(tick.n)
            if tick.n == 3 { break }
        }
        #expect(received == [1, 2, 3])
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func cancellingTheIteratingTaskRemovesTheListener() async {
        let center = EventCenter()
        let started = Counter()
        let stream = center.events(of: Tick.self)
        let task = Task {
            var count = 0
            for await _ in stream {
                count += 1
                started.increment()
            }
            return count
        }
        center.dispatch(Tick(n: 1))
        #expect(await eventually { started.value > 0 }, "the consumer never started")
        task.cancel()
        let count = await task.value
        #expect(count == 1)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func droppingAStreamThatIsNeverIteratedRemovesTheListener() {
        let center = EventCenter()
        do {
            let stream = center.events(of: Tick.self)
            #expect(center.listenerCount(for: Tick.self) == 1)
            withExtendedLifetime(stream) {}
        }
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func dropNewestKeepsTheFirstEventsAndCountsTheRest() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self, bufferingPolicy: .dropNewest(capacity: 2))
        for n in 1...5 { center.dispatch(Tick(n: n)) }
        #expect(stream.droppedCount == 3)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 1)
        #expect(await iterator.next()?.n == 2)
        center.dispatch(Tick(n: 6))
        #expect(await iterator.next()?.n == 6)
        #expect(stream.droppedCount == 3)
    }

    @Test func dropOldestKeepsTheLatestEventsAndCountsTheRest() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self, bufferingPolicy: .dropOldest(capacity: 2))
        for n in 1...5 { center.dispatch(Tick(n: n)) }
        #expect(stream.droppedCount == 3)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 4)
        #expect(await iterator.next()?.n == 5)
    }

    @Test func unboundedStreamKeepsEverythingFromAnotherThreadInOrder() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                for n in 0..<1_000 { center.dispatch(Tick(n: n)) }
                continuation.resume()
            }
        }
        var received: [Int] = []
        for await tick in stream {
            received.append(tick.n)
            if received.count == 1_000 { break }
        }
        #expect(received == Array(0..<1_000))
        #expect(stream.droppedCount == 0)
    }

    @Test func aConsumerThatKeepsUpWithABurstFromAnotherThreadGetsEveryEventInOrder() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        let started = Counter()
        let consumer = Task {
            var received: [Int] = []
            started.increment()
            for await tick in stream {
                received.append(tick.n)
                if received.count == 20_000 { break }
            }
            return received
        }
        // The consumer is on its way to wait (suspended) before the burst starts, so the buffer
        // is exercised both while the consumer sleeps and while it drains. The moment it
        // suspends is not visible from outside; the burst must arrive whole either way.
        #expect(await eventually { started.value == 1 })
        DispatchQueue.global().async {
            for n in 0..<20_000 { center.dispatch(Tick(n: n)) }
        }
        #expect(await consumer.value == Array(0..<20_000))
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func dropOldestUnderALongBurstKeepsOnlyTheLatest() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self, bufferingPolicy: .dropOldest(capacity: 3))
        for n in 0..<1_000 { center.dispatch(Tick(n: n)) }
        #expect(stream.droppedCount == 997)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 997)
        #expect(await iterator.next()?.n == 998)
        #expect(await iterator.next()?.n == 999)
    }

    @Test func zeroCapacityDeliversOnlyToAWaitingConsumer() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self, bufferingPolicy: .dropNewest(capacity: 0))
        center.dispatch(Tick(n: 1))
        #expect(stream.droppedCount == 1)
        let consumer = Task {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()?.n
        }
        // Only a consumer already waiting can take an event that may not be buffered: offer
        // event 2 until one is taken rather than dropped.
        let taken = await eventually {
            let dropped = stream.droppedCount
            center.dispatch(Tick(n: 2))
            return stream.droppedCount == dropped
        }
        #expect(taken, "the consumer came to wait and took event 2")
        #expect(await consumer.value == 2)
    }

    @Test func aCancelledConsumerGetsNilAndTheListenerIsRemoved() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        for n in 1...3 { center.dispatch(Tick(n: n)) }
        let consumer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = stream.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return (first?.n, second?.n)
        }
        let (first, second) = await consumer.value
        #expect(first == nil)
        #expect(second == nil)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func severalTasksIteratingOneStreamShareItsEventsAndEndTogether() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        let ready = Counter()
        let consumers = (0..<3).map { _ in
            Task {
                var received: [Int] = []
                var iterator = stream.makeAsyncIterator()
                ready.increment()
                while let tick = await iterator.next() {
                    // A negative tick tells its taker to stop, which ends the others too.
                    if tick.n < 0 { break }
                    received.append(tick.n)
                }
                return received
            }
        }
        #expect(await eventually { ready.value >= 3 }, "the three consumers never got ready")
        for n in 0..<1_000 { center.dispatch(Tick(n: n)) }
        center.dispatch(Tick(n: -1))
        var all: [Int] = []
        for consumer in consumers { all += await consumer.value }
        #expect(all.sorted() == Array(0..<1_000))
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func streamFromSenderHearsOnlyThatSender() async {
        let center = EventCenter()
        let writer = Probe()
        let stream = center.events(of: Tick.self, from: writer)
        center.dispatch(Tick(n: 1), from: Probe())
        center.dispatch(Tick(n: 2), from: writer)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 2)
    }

    @Test func nextReturnsTheFirstMatchingEvent() async throws {
        let center = EventCenter()
        let waiting = Task {
            try await center.next(Tick.self, where: { $0.n.isMultiple(of: 3) }, timeout: .seconds(30))
        }
        #expect(await eventually { center.listenerCount(for: Tick.self) > 0 }, "next(_:) never registered its listener")
        for n in 1...4 { center.dispatch(Tick(n: n)) }
        let tick = try await waiting.value
        #expect(tick.n == 3)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func nextThrowsAClearErrorOnTimeout() async {
        let center = EventCenter()
        do {
            _ = try await center.next(Tick.self, timeout: .milliseconds(50))
            Issue.record("expected a timeout")
        } catch let error as EventTimeoutError {
            #expect(error.event == "Tick")
            #expect(error.timeout == .milliseconds(50))
            #expect(error.description == "timed out after 0.05 seconds waiting for Tick")
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func cancellingNextThrowsCancellationAndRemovesTheListener() async {
        let center = EventCenter()
        let waiting = Task { try await center.next(Tick.self) }
        #expect(await eventually { center.listenerCount(for: Tick.self) > 0 }, "next(_:) never registered its listener")
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(center.listenerCount(for: Tick.self) == 0)
    }
}

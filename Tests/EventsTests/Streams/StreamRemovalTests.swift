import Testing

@testable import Events

/// The ways of removing every listener of an event that reach a stream's listener.
enum StreamRemoval: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case byType, byName, everything

    var testDescription: String { rawValue }

    static let name: EventName = "streams.removed"

    /// A stream that this removal ends: of `Tick` when removing by type, of the name otherwise.
    func makeStream(_ center: EventCenter) -> StreamUnderTest {
        switch self {
        case .byType, .everything:
            let stream = center.events(of: Tick.self)
            return StreamUnderTest(
                waitingConsumers: { stream.buffer.waitingConsumers },
                consume: {
                    var received: [Int] = []
                    for await tick in stream { received.append(tick.n) }
                    return received
                })
        case .byName:
            let stream = center.events(named: Self.name)
            return StreamUnderTest(
                waitingConsumers: { stream.buffer.waitingConsumers },
                consume: {
                    var received: [Int] = []
                    for await event in stream { received.append((try? event.data(as: Int.self)) ?? -1) }
                    return received
                })
        }
    }

    func dispatch(_ center: EventCenter, _ n: Int) {
        switch self {
        case .byType, .everything: center.dispatch(Tick(n: n))
        case .byName: center.dispatch(Self.name, data: n)
        }
    }

    func remove(from center: EventCenter) {
        switch self {
        case .byType: center.removeAllListeners(for: Tick.self)
        case .byName: center.removeAllListeners(for: Self.name)
        case .everything: center.removeAllListeners()
        }
    }
}

/// A stream of either kind, seen through what the tests need of it.
struct StreamUnderTest: Sendable {
    let waitingConsumers: @Sendable () -> Int
    /// Iterates the stream with `for await` until it ends; returns what it received.
    let consume: @Sendable () async -> [Int]
}

@Suite("Removing every listener of an event ends its streams", .timeLimit(.minutes(1)))
struct StreamRemovalTests {
    @Test(
        "a consumer suspended in its for-await loop leaves the loop when the stream's listeners are removed",
        arguments: StreamRemoval.allCases)
    func suspendedConsumerLeavesTheLoop(removal: StreamRemoval) async {
        let center = EventCenter()
        let stream = removal.makeStream(center)
        let (consumer, ended) = Self.consume(stream)
        #expect(await eventually { stream.waitingConsumers() == 1 }, "the consumer never came to wait")
        removal.remove(from: center)
        let leftTheLoop = await eventually { ended.value == 1 }
        #expect(leftTheLoop, "the for-await loop is still suspended after the removal")
        // Ends a loop that is still stuck, so that the test finishes either way.
        if !leftTheLoop { consumer.cancel() }
        #expect(await consumer.value == [])
    }

    @Test(
        "a loop started after the removal, on a stream made before it, takes the events buffered and ends",
        arguments: StreamRemoval.allCases)
    func laterLoopTakesBufferedEventsThenEnds(removal: StreamRemoval) async {
        let center = EventCenter()
        let stream = removal.makeStream(center)
        removal.dispatch(center, 1)
        removal.dispatch(center, 2)
        removal.remove(from: center)
        removal.dispatch(center, 3)  // no listener any more: not buffered
        let (consumer, ended) = Self.consume(stream)
        let leftTheLoop = await eventually { ended.value == 1 }
        #expect(leftTheLoop, "the for-await loop did not end after the buffered events")
        if !leftTheLoop { consumer.cancel() }
        #expect(await consumer.value == [1, 2])
    }

    @Test("a consumer suspended in its for-await loop leaves the loop when its center goes away")
    func suspendedConsumerLeavesWhenTheCenterGoes() async {
        var center: EventCenter? = EventCenter()
        weak let watched = center
        let stream = StreamRemoval.byType.makeStream(center!)
        let (consumer, ended) = Self.consume(stream)
        #expect(await eventually { stream.waitingConsumers() == 1 }, "the consumer never came to wait")
        center?.dispatch(Tick(n: 1))
        #expect(await eventually { stream.waitingConsumers() == 1 })
        center = nil
        #expect(watched == nil, "the stream keeps its center alive")
        let leftTheLoop = await eventually(timeout: .seconds(10)) { ended.value == 1 }
        #expect(leftTheLoop, "the for-await loop is still suspended after its center went away")
        if !leftTheLoop { consumer.cancel() }
        #expect(await consumer.value == [1])
    }

    @Test("a loop over a stream whose center is gone takes what was buffered, then ends")
    func loopAfterTheCenterWent() async {
        var center: EventCenter? = EventCenter()
        let stream = StreamRemoval.byType.makeStream(center!)
        center?.dispatch(Tick(n: 1))
        center?.dispatch(Tick(n: 2))
        center = nil
        let (consumer, ended) = Self.consume(stream)
        let leftTheLoop = await eventually(timeout: .seconds(10)) { ended.value == 1 }
        #expect(leftTheLoop, "the for-await loop did not end after the buffered events")
        if !leftTheLoop { consumer.cancel() }
        #expect(await consumer.value == [1, 2])
    }

    /// Iterates `stream` on a task of its own until the loop ends; `ended` counts 1 once it has.
    private static func consume(_ stream: StreamUnderTest) -> (consumer: Task<[Int], Never>, ended: Counter) {
        let ended = Counter()
        let consumer = Task.detached {
            let received = await stream.consume()
            ended.increment()
            return received
        }
        return (consumer, ended)
    }

    @Test("the events a removed stream still holds keep idle() waiting until they are taken")
    func removedStreamHoldingEventsKeepsIdleWaiting() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        center.dispatch(Tick(n: 1))
        center.removeAllListeners(for: Tick.self)
        let returned = Counter()
        let waiter = Task.detached {
            await center.idle()
            returned.increment()
        }
        #expect(await eventually { center.pendingDeliveries.waiterCount == 1 || returned.value == 1 })
        #expect(returned.value == 0, "idle() returned while the removed stream held an event")
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 1)
        #expect(await iterator.next() == nil)
        await waiter.value
        #expect(center.pendingDeliveries.isEmpty)
    }
}

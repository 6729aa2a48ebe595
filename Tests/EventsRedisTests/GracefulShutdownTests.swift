import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Synchronization
import Testing

@testable import EventsRedis

/// What a listener of a received event dispatches, for the bridge to publish.
private struct Echo: RemoteEvent {
    static let wireName = "com.example.test.echo"
    let n: Int
}

/// A center whose `Sequenced` listener, on a queue of its own, waits at `gate` before it
/// records the event and runs `then`.
private struct HeldListener {
    let center: EventCenter
    let gate: Gate
    let finished: Log<Int>
    let subscription: Subscription

    init(then: @escaping @Sendable (EventCenter, Int) -> Void = { _, _ in }) {
        let (center, gate, finished) = (EventCenter(), Gate(), Log<Int>())
        self.center = center
        self.gate = gate
        self.finished = finished
        subscription = center.listen(to: Sequenced.self, on: .queue(DispatchQueue(label: "held listener"))) { event in
            gate.pass()
            finished.append(event.n)
            then(center, event.n)
        }
    }
}

/// Publishes `Sequenced(1)` as another service would, until `held`'s listener has it.
private func publishUntilHeld(_ admin: RedisClient, _ held: HeldListener) async -> Bool {
    await eventually {
        _ = try? await admin.send(
            "PUBLISH", RedisArgument("test:" + Sequenced.wireName), foreignMessage(type: Sequenced.wireName, n: 1))
        return held.gate.isReached
    }
}

/// `shutdown(drainTimeout:)`: reading stops, deliveries in flight finish and are acknowledged,
/// queued events are flushed within the timeout, and the report says exactly what was left.
@Suite(
    "Redis bridge graceful shutdown", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
struct GracefulShutdownTests {
    @Test("A shutdown with Redis unreachable reports the events it could not publish, and reaches its deadline")
    func reportsUnpublishedEvents() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await bridge.start()
        center.dispatch(Sequenced(n: 0))
        #expect(await bridge.flush(timeout: .seconds(10)))

        server.stop()
        for n in 1...3 { center.dispatch(Sequenced(n: n)) }
        let report = await bridge.shutdown(drainTimeout: .milliseconds(200))

        #expect(report.unpublishedStreamEvents == 3, "\(report)")
        #expect(report.unpublishedPubSubEvents == 0)
        #expect(report.unpublishedEvents == 3)
        #expect(report.deadlineReached)
        #expect(!report.isClean)
        #expect(report.duration >= .milliseconds(200))
        #expect(bridge.statistics.unpublishedAtStop == 3)
        #expect(bridge.statistics.published == 1)
        #expect(errors.all.contains(.stoppedWithUnpublishedEvents(3)), "\(errors.all)")
        // Later calls return the same report at once.
        #expect(await bridge.shutdown() == report)
    }

    @Test("A clean shutdown of both modes reports nothing left", arguments: [RedisBridge.Mode.stream, .pubSub])
    func cleanShutdown(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let publisherCenter = EventCenter()
        let publisher = RedisBridge(
            center: publisherCenter, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: mode, direction: .outgoing)
        try await publisher.start()
        let consumerCenter = EventCenter()
        let received = Log<Int>()
        let listener = consumerCenter.listen(to: Sequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(
            center: consumerCenter, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try consumer.carry(Sequenced.self, mode: mode, direction: .incoming)
        try await consumer.start()

        for n in 1...5 { publisherCenter.dispatch(Sequenced(n: n)) }
        let published = await publisher.shutdown()
        #expect(published == RedisBridge.ShutdownReport(duration: published.duration))
        #expect(published.isClean)
        #expect(publisher.statistics.published == 5)
        #expect(await eventually { received.count == 5 })
        let consumed = await consumer.shutdown()
        #expect(consumed.isClean, "\(consumed)")
        #expect(!consumed.deadlineReached)
        #expect(errors.all.isEmpty, "\(errors.all)")
        withExtendedLifetime(listener) {}
    }

    @Test("A listener still running at shutdown is waited for, and its entry is acknowledged")
    func inFlightDeliveryFinishesAndIsAcknowledged() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let admin = RedisClient(server.configuration)
        let listener = HeldListener()
        let (center, held, finished) = (listener.center, listener.gate, listener.finished)
        let consumer = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try consumer.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await consumer.start()
        let stream = RedisArgument("test:" + Sequenced.wireName)
        _ = try await admin.send("XADD", stream, "*", "event", foreignMessage(type: Sequenced.wireName, n: 1))
        #expect(await eventually { held.isReached })

        let stopReturned = Atomic<Bool>(false)
        let stopping = Task {
            let report = await consumer.shutdown(drainTimeout: .seconds(1))
            stopReturned.store(true, ordering: .sequentiallyConsistent)
            return report
        }
        #expect(await eventually { consumer.hasBegunStopping })
        await waitToShowNothingArrives()
        let returnedEarly = stopReturned.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly, "shutdown returned before the listener ended")
        #expect(finished.count == 0)
        // The entry is still pending while its listener runs.
        #expect((try await admin.send("XPENDING", stream, "c")).array?.first?.int == 1)

        held.open()
        let report = await stopping.value
        #expect(finished.values == [1])
        #expect(report.isClean, "\(report)")
        #expect(consumer.statistics.delivered == 1)
        #expect((try await admin.send("XPENDING", stream, "c")).array?.first?.int == 0)
        #expect(errors.all.isEmpty, "\(errors.all)")
        withExtendedLifetime(listener) {}
        admin.close()
    }

    @Test("A received Pub/Sub event's listener on a queue is waited for, and what it dispatches is published")
    func queuedPubSubDeliveryFinishes() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let listener = HeldListener { center, n in center.dispatch(Echo(n: n)) }
        let (center, held) = (listener.center, listener.gate)
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try bridge.carry(Sequenced.self, mode: .pubSub, direction: .incoming)
        try bridge.carry(Echo.self, mode: .pubSub, direction: .outgoing)
        try await bridge.start()
        let echoes = RedisSubscriber(server.configuration)
        defer { echoes.close() }
        let heard = Log<String>()
        let reading = Task {
            for try await message in echoes.messages(channels: ["test:" + Echo.wireName]) {
                heard.append(message.string)
            }
        }
        defer { reading.cancel() }
        #expect(await publishUntilHeld(admin, listener))

        let stopReturned = Atomic<Bool>(false)
        let stopping = Task {
            let report = await bridge.shutdown(drainTimeout: .seconds(30))
            stopReturned.store(true, ordering: .sequentiallyConsistent)
            return report
        }
        #expect(await eventually { bridge.hasBegunStopping })
        await waitToShowNothingArrives()
        let returnedEarly = stopReturned.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly, "shutdown returned before the listener ran")

        held.open()
        let report = await stopping.value
        #expect(!report.deliveriesStillQueued)
        #expect(report.isClean, "\(report)")
        #expect(await eventually { heard.values.contains { $0.contains(#""n":1"#) } }, "\(heard.values)")
        withExtendedLifetime(listener) {}
    }

    @Test("Local deliveries still queued at the drain deadline are reported, and run later all the same")
    func queuedDeliveriesPastTheDeadlineAreReported() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let listener = HeldListener()
        let (center, held, finished) = (listener.center, listener.gate, listener.finished)
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try bridge.carry(Sequenced.self, mode: .pubSub, direction: .incoming)
        try await bridge.start()
        #expect(await publishUntilHeld(admin, listener))
        let report = await bridge.shutdown(drainTimeout: .milliseconds(200))
        #expect(report.deliveriesStillQueued)
        #expect(report.deadlineReached)
        #expect(!report.isClean)
        #expect(report.description.contains("local deliveries still queued"))
        held.open()
        #expect(await eventually { finished.count >= 1 })
        withExtendedLifetime(listener) {}
    }

    @Test("stop() and stop(drainTimeout:) still compile and stop as before, with no report to read")
    func stopStaysSourceCompatible() async throws {
        let errors = ErrorLog()
        var configuration = RedisBridge.Configuration(source: "compat")
        configuration.errorHandler = { errors.record($0) }
        let center = EventCenter()
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        center.dispatch(Sequenced(n: 1))
        async let stopped: Void = bridge.stop(drainTimeout: .seconds(1))
        await stopped
        await bridge.stop()
        #expect(errors.all == [.stoppedWithUnpublishedEvents(1)])
        // A never-started bridge gives up at once; the report says what was given up.
        #expect(await bridge.shutdown().unpublishedEvents == 1)
    }
}

import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Synchronization
import Testing

@testable import EventsRedis

/// A listener error with a recognisable description.
struct ListenerBroke: Error, CustomStringConvertible {
    let attempt: Int
    var description: String { "listener broke on attempt \(attempt)" }
}

/// A consumer of `Sequenced` on stream mode whose listener fails as `fails` says, recording
/// each delivery's count and when it came.
struct FailingConsumer {
    let center = EventCenter()
    let bridge: RedisBridge
    let deliveries = Log<(n: Int, count: Int, at: ContinuousClock.Instant)>()
    let subscription: Subscription

    init(
        _ server: RedisServer, errors: ErrorLog, policy: RedisBridge.FailurePolicy,
        configure: (inout RedisBridge.Configuration) -> Void = { _ in },
        fails: @escaping @Sendable (_ n: Int, _ deliveryCount: Int) -> Bool
    ) async throws {
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configuration.failurePolicy = policy
        configure(&configuration)
        bridge = RedisBridge(center: center, configuration: configuration)
        // Ignore the listener errors the center reports: the test reads them from the bridge.
        center.errorHandler = { _ in }
        subscription = center.listen(to: Sequenced.self) { [deliveries] event, sender in
            let count = sender?.object(as: RemoteOrigin.self)?.deliveryCount ?? 0
            deliveries.append((event.n, count, .now))
            if fails(event.n, count) { throw ListenerBroke(attempt: count) }
        }
        try bridge.carry(Sequenced.self, mode: .stream)
        try await bridge.start()
    }
}

func pendingCount(_ client: RedisClient, stream: String, group: String = "c") async throws -> Int? {
    try await client.send("XPENDING", RedisArgument(stream), RedisArgument(group)).array?.first?.int
}

@Suite("Failing stream listeners", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct FailurePolicyTests {
    static let stream = "test:" + Sequenced.wireName
    static let fast = RedisBridge.FailurePolicy.retry(maxDeliveries: 4, backoff: .constant(.milliseconds(50)))

    func publisher(_ server: RedisServer, errors: ErrorLog) async throws -> (EventCenter, RedisBridge) {
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await bridge.start()
        return (center, bridge)
    }

    @Test("a listener that fails twice then succeeds is delivered three times, counted by Redis, and acknowledged")
    func failsTwiceThenSucceeds() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(server, errors: errors, policy: Self.fast) { n, count in
            n == 1 && count < 3
        }
        let (center, publisher) = try await publisher(server, errors: errors)
        center.dispatch(Sequenced(n: 1))
        #expect(await eventually { consumer.deliveries.values.contains { $0.n == 1 && $0.count == 3 } })
        // A later event arrives once; by then the first is not delivered a fourth time.
        center.dispatch(Sequenced(n: 2))
        let admin = RedisClient(server.configuration)
        #expect(await eventually { consumer.deliveries.values.contains { $0.n == 2 } })
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        #expect(consumer.deliveries.values.filter { $0.n == 1 }.map(\.count) == [1, 2, 3])
        #expect(consumer.deliveries.values.filter { $0.n == 2 }.map(\.count) == [1])
        let counters = consumer.bridge.counters
        #expect(counters.redelivered.load(ordering: .relaxed) == 2)
        #expect(counters.retriesScheduled.load(ordering: .relaxed) == 2)
        #expect(counters.deadLettered.load(ordering: .relaxed) == 0)
        #expect(try await consumer.bridge.deadLetters(of: Sequenced.self).isEmpty)
        await publisher.stop()
        await consumer.bridge.stop()
    }

    @Test(
        "a listener that always fails ends in the dead-letter stream after exactly the maximum, across a consumer restart"
    )
    func alwaysFailsAcrossRestart() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let (center, publisher) = try await publisher(server, errors: errors)
        // A long backoff in the first life, so that it stops while the entry waits for a retry.
        let patient = RedisBridge.FailurePolicy.retry(maxDeliveries: 4, backoff: .constant(.seconds(60)))
        let first = try await FailingConsumer(
            server, errors: errors, policy: patient, configure: { $0.claimMinimumIdle = .seconds(120) }
        ) { _, _ in true }
        center.dispatch(Sequenced(n: 7))
        #expect(await eventually { first.deliveries.count == 1 })
        #expect(await publisher.flush(timeout: .seconds(5)))
        await first.bridge.stop()
        let admin = RedisClient(server.configuration)
        #expect(try await pendingCount(admin, stream: Self.stream) == 1, "left pending by the stopped consumer")

        // The second life, same consumer name, re-reads it (delivery 2) and retries it twice.
        let second = try await FailingConsumer(server, errors: errors, policy: Self.fast) { _, _ in true }
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        let counts = (first.deliveries.values + second.deliveries.values).map(\.count)
        #expect(counts == [1, 2, 3, 4])
        let letters = try await second.bridge.deadLetters(of: Sequenced.self)
        #expect(letters.count == 1)
        let letter = try #require(letters.first)
        #expect(letter.deliveries == 4)
        #expect(letter.error == "listener broke on attempt 4")
        #expect(letter.listener?.hasPrefix("EventsRedisTests/FailurePolicyTests.swift:") == true)
        #expect(letter.group == "c" && letter.consumer == "c")
        #expect(letter.stream == Self.stream)
        #expect(letter.deadLetterStream == Self.stream + ":dead")
        #expect(letter.time.map { abs($0.timeIntervalSinceNow) < 60 } == true)
        // The event as it arrived, byte for byte, and the id of the entry it was.
        let original = try await admin.send("XRANGE", RedisArgument(Self.stream), "-", "+")
        let entry = try #require(original.array?.first?.array)
        #expect(letter.entry == entry[0].string)
        #expect(letter.event == entry[1].array?[1].bytes)
        #expect(second.bridge.counters.deadLettered.load(ordering: .relaxed) == 1)
        await second.bridge.stop()
        await publisher.stop()
    }

    @Test("a dead letter is readable by any client, with every field, under events:<wire name>:dead")
    func deadLetterFieldsForPlainClients() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(
            server, errors: errors, policy: .retry(maxDeliveries: 1), configure: { $0.keyPrefix = "events:" }
        ) { _, _ in true }
        let center = EventCenter()
        var configuration = bridgeConfiguration(server, source: "p", errors: errors)
        configuration.keyPrefix = "events:"
        let publisher = RedisBridge(center: center, configuration: configuration)
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await publisher.start()
        center.dispatch(Sequenced(n: 3))
        let admin = RedisClient(server.configuration)
        let key = RedisArgument("events:" + Sequenced.wireName + ":dead")
        #expect(try await eventually { (try await admin.send("XLEN", key)).int == 1 })
        let reply = try await admin.send("XRANGE", key, "-", "+")
        let fields = try #require(reply.array?.first?.array?[1].array).compactMap(\.string)
        let names = stride(from: 0, to: fields.count, by: 2).map { fields[$0] }
        #expect(
            Set(names) == ["event", "error", "listener", "deliveries", "entry", "stream", "group", "consumer", "time"])
        let values = Dictionary(
            uniqueKeysWithValues: stride(from: 0, to: fields.count, by: 2).map { (fields[$0], fields[$0 + 1]) })
        #expect(values["deliveries"] == "1")
        #expect(values["event"]?.contains(#""type":"com.example.test.sequenced""#) == true)
        #expect(values["time"].flatMap { RFC3339.date(from: $0) } != nil)
        #expect(consumer.deliveries.count == 1)
        await publisher.stop()
        await consumer.bridge.stop()
    }

    @Test("a replayed dead letter is delivered again with the same CloudEvent id, and leaves the dead letters")
    func replayDeliversAgain() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let broken = Log<Bool>()
        broken.append(true)
        let consumer = try await FailingConsumer(
            server, errors: errors, policy: .retry(maxDeliveries: 2, backoff: .constant(.milliseconds(20)))
        ) { _, _ in
            broken.values.last == true
        }
        let (center, publisher) = try await publisher(server, errors: errors)
        let ids = Log<String>()
        let idListener = consumer.center.listen(to: Sequenced.self) { _, sender in
            if let origin = sender?.object(as: RemoteOrigin.self) { ids.append(origin.id) }
        }
        center.dispatch(Sequenced(n: 5))
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 1 })
        let letter = try #require(try await consumer.bridge.deadLetters(of: Sequenced.self).first)

        broken.append(false)
        let newEntry = try await consumer.bridge.replay(letter)
        #expect(newEntry != letter.entry)
        #expect(await eventually { consumer.deliveries.count == 3 })
        #expect(Set(ids.values).count == 1, "the same CloudEvent every time")
        #expect(try await consumer.bridge.deadLetters(of: Sequenced.self).isEmpty)
        let admin = RedisClient(server.configuration)
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        _ = idListener
        await publisher.stop()
        await consumer.bridge.stop()
    }

    @Test("purging removes the dead letters and says how many there were")
    func purge() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(server, errors: errors, policy: .retry(maxDeliveries: 1)) { _, _ in
            true
        }
        let (center, publisher) = try await publisher(server, errors: errors)
        for n in 1...3 { center.dispatch(Sequenced(n: n)) }
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 3 })
        let letters = try await consumer.bridge.deadLetters(of: Sequenced.self, limit: 2)
        #expect(letters.count == 2)
        try await consumer.bridge.purge(letters[0])
        #expect(try await consumer.bridge.purgeDeadLetters(of: Sequenced.self) == 2)
        #expect(try await consumer.bridge.deadLetters(of: Sequenced.self).isEmpty)
        #expect(try await consumer.bridge.purgeDeadLetters(of: Sequenced.self) == 0)
        await publisher.stop()
        await consumer.bridge.stop()
    }

    @Test("with .acknowledge a failed event is acknowledged at once: no retry, no dead letter")
    func acknowledgePolicy() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(server, errors: errors, policy: .acknowledge) { n, _ in n == 1 }
        let (center, publisher) = try await publisher(server, errors: errors)
        center.dispatch(Sequenced(n: 1))
        center.dispatch(Sequenced(n: 2))
        let admin = RedisClient(server.configuration)
        #expect(await eventually { consumer.deliveries.count == 2 })
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        #expect(consumer.deliveries.values.map(\.n) == [1, 2])
        #expect(consumer.bridge.counters.retriesScheduled.load(ordering: .relaxed) == 0)
        #expect(try await consumer.bridge.deadLetters(of: Sequenced.self).isEmpty)
        await publisher.stop()
        await consumer.bridge.stop()
    }

    @Test("a failure in a queued listener counts: the event is retried, and every listener receives it again")
    func queuedListenerFailureCounts() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(server, errors: errors, policy: Self.fast) { _, _ in false }
        let queued = Log<Int>()
        let queue = DispatchQueue(label: "failing")
        let failing = consumer.center.listen(to: Sequenced.self, on: .queue(queue)) { _, sender in
            let count = sender?.object(as: RemoteOrigin.self)?.deliveryCount ?? 0
            queued.append(count)
            if count < 2 { throw ListenerBroke(attempt: count) }
        }
        let (center, publisher) = try await publisher(server, errors: errors)
        center.dispatch(Sequenced(n: 9))
        let admin = RedisClient(server.configuration)
        #expect(await eventually { queued.values == [1, 2] })
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        #expect(consumer.deliveries.values.map(\.count) == [1, 2], "the listener that succeeded sees it again")
        _ = failing
        await publisher.stop()
        await consumer.bridge.stop()
    }

    @Test("carry(onFailure:) sets one event's policy over the configuration's")
    func perEventPolicy() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configuration.failurePolicy = .acknowledge
        let center = EventCenter()
        center.errorHandler = { _ in }
        let deliveries = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { _, sender in
            let count = sender?.object(as: RemoteOrigin.self)?.deliveryCount ?? 0
            deliveries.append(count)
            throw ListenerBroke(attempt: count)
        }
        let consumer = RedisBridge(center: center, configuration: configuration)
        try consumer.carry(
            Sequenced.self, mode: .stream, onFailure: .retry(maxDeliveries: 2, backoff: .constant(.milliseconds(20))))
        try await consumer.start()
        let (publisherCenter, publisher) = try await publisher(server, errors: errors)
        publisherCenter.dispatch(Sequenced(n: 1))
        #expect(try await eventually { try await consumer.deadLetters(of: Sequenced.self).count == 1 })
        #expect(deliveries.values == [1, 2])
        _ = listener
        await publisher.stop()
        await consumer.stop()
    }

    @Test("dead letters written by any client are read safely, and a forged stream field cannot redirect a replay")
    func forgedDeadLetters() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(server, errors: errors, policy: .retry()) { _, _ in false }
        let admin = RedisClient(server.configuration)
        let dead = RedisArgument(Self.stream + ":dead")
        _ = try await admin.send(
            "XADD", dead, "*", "event", foreignMessage(type: Sequenced.wireName, n: 11), "stream", "elsewhere",
            "deliveries", "many", "time", "yesterday")
        _ = try await admin.send("XADD", dead, "*", "odd", "fields")
        let letters = try await consumer.bridge.deadLetters(of: Sequenced.self)
        #expect(letters.count == 2)
        #expect(letters[0].deliveries == 0 && letters[0].time == nil && letters[0].stream == Self.stream)
        #expect(letters[1].event.isEmpty)
        try await consumer.bridge.replay(letters[0])
        #expect(await eventually { consumer.deliveries.values.map(\.n) == [11] })
        #expect(try await admin.send("EXISTS", "elsewhere").int == 0)
        await consumer.bridge.stop()
    }
}

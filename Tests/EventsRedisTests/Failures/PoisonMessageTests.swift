import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Synchronization
import Testing

@testable import EventsRedis

@Suite("Poison messages", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct PoisonMessageTests {
    static let stream = RedisArgument("test:" + Sequenced.wireName)
    static let deadStream = RedisArgument("test:" + Sequenced.wireName + ":dead")

    /// Writes, as a plain client would: not JSON, a CloudEvent of a type not carried, data that
    /// does not decode, an entry without an `event` field, then a good event.
    func writePoison(_ admin: RedisClient) async throws {
        _ = try await admin.send("XADD", Self.stream, "*", "event", "{not json")
        _ = try await admin.send(
            "XADD", Self.stream, "*", "event", foreignMessage(type: "com.example.other", id: "u1", data: "{}"))
        _ = try await admin.send(
            "XADD", Self.stream, "*", "event", foreignMessage(type: Sequenced.wireName, id: "d1", data: #"{"n":"x"}"#))
        _ = try await admin.send("XADD", Self.stream, "*", "payload", "no event field")
        _ = try await admin.send("XADD", Self.stream, "*", "event", foreignMessage(type: Sequenced.wireName, n: 42))
    }

    @Test(
        "poison input goes to the dead-letter stream when so configured, with its reason; reporting and counting stay")
    func poisonToDeadLetters() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(
            server, errors: errors, policy: .retry(), configure: { $0.poisonMessages = .deadLetter }
        ) { _, _ in false }
        let admin = RedisClient(server.configuration)
        try await writePoison(admin)
        #expect(await eventually { consumer.deliveries.values.map(\.n) == [42] })
        #expect(try await eventually { try await pendingCount(admin, stream: "test:" + Sequenced.wireName) == 0 })
        let letters = try await consumer.bridge.deadLetters(of: Sequenced.self)
        #expect(letters.count == 4)
        #expect(letters.map(\.eventJSON).first == "{not json")
        #expect(letters[0].error.hasPrefix("not a valid CloudEvent"))
        #expect(letters[1].error.contains("does not carry type \"com.example.other\""))
        #expect(letters[2].error.contains("does not decode"))
        #expect(letters[3].error.contains("no \"event\" field"))
        #expect(letters.allSatisfy { $0.listener == nil && $0.deliveries == 1 })
        // Reported and counted as before.
        let counters = consumer.bridge.counters
        #expect(counters.invalidMessages.load(ordering: .relaxed) == 2)
        #expect(counters.unknownTypes.load(ordering: .relaxed) == 1)
        #expect(counters.undecodable.load(ordering: .relaxed) == 1)
        #expect(counters.deadLettered.load(ordering: .relaxed) == 4)
        #expect(errors.all.count >= 4)
        await consumer.bridge.stop()
    }

    @Test("by default poison input is reported and acknowledged, and nothing is dead-lettered")
    func poisonAcknowledgedByDefault() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(server, errors: errors, policy: .retry()) { _, _ in false }
        let admin = RedisClient(server.configuration)
        try await writePoison(admin)
        #expect(await eventually { consumer.deliveries.values.map(\.n) == [42] })
        #expect(try await eventually { try await pendingCount(admin, stream: "test:" + Sequenced.wireName) == 0 })
        #expect(try await admin.send("EXISTS", Self.deadStream).int == 0)
        #expect(consumer.bridge.counters.invalidMessages.load(ordering: .relaxed) == 2)
        await consumer.bridge.stop()
    }

    @Test("a batched entry with a poison event and a retried one dead-letters the poison once, when it is settled")
    func poisonInRetriedBatch() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumer = try await FailingConsumer(
            server, errors: errors, policy: .retry(maxDeliveries: 4, backoff: .constant(.milliseconds(50))),
            configure: { $0.poisonMessages = .deadLetter }
        ) { n, count in n == 7 && count < 3 }
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let retried =
            #"{"specversion":"1.0","id":"b7","source":"other","type":"\#(Sequenced.wireName)","data":{"n":7}}"#
        let poison = #"{"specversion":"1.0","id":"u1","source":"other","type":"com.example.other","data":{}}"#
        _ = try await admin.send("XADD", Self.stream, "*", "event", RedisArgument("[" + retried + "," + poison + "]"))
        #expect(await eventually { consumer.deliveries.values.map(\.count) == [1, 2, 3] })
        #expect(try await eventually { try await pendingCount(admin, stream: "test:" + Sequenced.wireName) == 0 })
        let letters = try await consumer.bridge.deadLetters(of: Sequenced.self)
        #expect(letters.count == 1, "\(letters)")
        #expect(letters.first?.eventJSON == poison)
        #expect(letters.first?.error.contains("does not carry type \"com.example.other\"") == true)
        await consumer.bridge.stop()
    }

    @Test("an entry delivered more often than the maximum without an acknowledgement is dead-lettered undelivered")
    func crashLoopingEntry() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let admin = RedisClient(server.configuration)
        // A consumer that died while handling the entry, three times over: three deliveries.
        _ = try await admin.send("XGROUP", "CREATE", Self.stream, "c", "$", "MKSTREAM")
        _ = try await admin.send("XADD", Self.stream, "*", "event", foreignMessage(type: Sequenced.wireName, n: 1))
        _ = try await admin.send("XREADGROUP", "GROUP", "c", "c", "STREAMS", Self.stream, ">")
        for _ in 0..<2 { _ = try await admin.send("XREADGROUP", "GROUP", "c", "c", "STREAMS", Self.stream, "0") }
        let consumer = try await FailingConsumer(server, errors: errors, policy: .retry(maxDeliveries: 3)) { _, _ in
            false
        }
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 1 })
        #expect(consumer.deliveries.count == 0)
        let letter = try #require(try await consumer.bridge.deadLetters(of: Sequenced.self).first)
        #expect(letter.deliveries == 4)
        #expect(letter.error.contains("without being acknowledged"))
        await consumer.bridge.stop()
    }
}

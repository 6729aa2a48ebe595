import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite(
    "Redis bridge: events packed into batches",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct RedisBridgeBatchTests {
    /// How many events each message (or stream entry) under `key` carries, in order.
    private func eventsPerEntry(_ client: RedisClient, stream key: String) async throws -> [[CloudEvent]] {
        let reply = try await client.send("XRANGE", RedisArgument(key), "-", "+")
        return try (reply.array ?? []).map { entry in
            let message = try #require(entry.array?[1].array?[1].bytes)
            guard let elements = try CloudEventBatch.elements(of: message)?.get() else {
                return [try CloudEvent(json: message)]
            }
            return try elements.map { range in try CloudEvent(json: Array(message[range])) }
        }
    }

    /// A started bridge on `server` that publishes `Sequenced` events from its center (to a
    /// stream by default), packing up to `maxEventsPerMessage` of them per message, and
    /// receives nothing.
    private func packingPublisher(
        _ server: RedisServer, errors: ErrorLog, maxEventsPerMessage: Int, mode: RedisBridge.Mode = .stream
    ) async throws -> (EventCenter, RedisBridge) {
        let center = EventCenter()
        var configuration = bridgeConfiguration(server, source: "p", errors: errors)
        configuration.maxEventsPerMessage = maxEventsPerMessage
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: mode, direction: .outgoing)
        try await bridge.start()
        return (center, bridge)
    }

    @Test(
        "A burst packed into batches arrives once and in order, in fewer messages, in both modes",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func burstArrivesPacked(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let receiving = EventCenter()
        // The receiver keeps the default: bridges read batches whatever they send.
        let receiver = RedisBridge(
            center: receiving, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try receiver.carry(Sequenced.self, mode: mode, direction: .incoming)
        try await receiver.start()
        let (sending, sender) = try await packingPublisher(server, errors: errors, maxEventsPerMessage: 16, mode: mode)
        let received = Log<(Int, RemoteOrigin?)>()
        let listener = receiving.listen(to: Sequenced.self) { event, sender in
            received.append((event.n, sender?.object(as: RemoteOrigin.self)))
        }

        let client = RedisClient(server.configuration)
        _ = try await client.send("CONFIG", "RESETSTAT")
        let count = 500
        try await withWritesHeld(by: client) {
            for n in 1...count { sending.dispatch(Sequenced(n: n)) }
            #expect(sender.statistics.publishBufferDepth == count, "the whole burst is queued")
        }
        #expect(await sender.flush(timeout: .seconds(15)))
        #expect(await eventually { received.count == count })
        #expect(received.values.map(\.0) == Array(1...count))
        #expect(Set(received.values.compactMap { $0.1?.id }).count == count, "every event keeps its own id")
        #expect(sender.statistics.published == count)
        #expect(receiver.statistics.delivered == count)
        #expect(errors.all.isEmpty)

        // The events went out in fewer messages than events, none over the limit.
        let command = mode == .pubSub ? "publish" : "xadd"
        let stats = try #require(try await client.send("INFO", "commandstats").string)
        let calls = try #require(
            stats.split(whereSeparator: \.isNewline).first { $0.hasPrefix("cmdstat_\(command):") }
                .flatMap { $0.split(separator: "=")[1].split(separator: ",").first }.flatMap { Int($0) })
        #expect(calls < count / 4, "\(calls) \(command) commands for \(count) events")
        if mode == .stream {
            let entries = try await eventsPerEntry(client, stream: "test:" + Sequenced.wireName)
            #expect(entries.count == calls)
            #expect(entries.allSatisfy { $0.count <= 16 })
            #expect(entries.flatMap { $0 }.count == count)
            // A stream entry's events share its id as their origin.
            let origins = received.values.compactMap { $0.1?.streamEntryID }
            #expect(Set(origins).count == entries.count)
        }
        withExtendedLifetime(listener) {}
        client.close()
        await sender.stop()
        await receiver.stop()
    }

    @Test("A lone event goes out as a single CloudEvent, not as a batch of one")
    func loneEventIsSingle() async throws {
        let server = try RedisServer()
        let (center, bridge) = try await packingPublisher(server, errors: ErrorLog(), maxEventsPerMessage: 16)
        center.dispatch(Sequenced(n: 1))
        #expect(await bridge.flush(timeout: .seconds(15)))
        let client = RedisClient(server.configuration)
        let reply = try await client.send("XRANGE", RedisArgument("test:" + Sequenced.wireName), "-", "+")
        let message = try #require(reply.array?.first?.array?[1].array?[1].bytes)
        #expect(message.first == UInt8(ascii: "{"))
        #expect(try CloudEvent(json: message).type == Sequenced.wireName)
        client.close()
        await bridge.stop()
    }

    @Test("A batch written by another service is read: good events arrive, bad ones are reported, all acknowledged")
    func foreignBatches() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        try bridge.carry(Sequenced.self, mode: .stream)
        try bridge.carry(PubSubSequenced.self, mode: .pubSub)
        try await bridge.start()
        let received = Log<String>()
        let streamed = center.listen(to: Sequenced.self) { received.append("s\($0.n)") }
        let published = center.listen(to: PubSubSequenced.self) { received.append("p\($0.n)") }

        func batch(_ elements: [RedisArgument]) -> RedisArgument {
            RedisArgument("[" + elements.map { String(decoding: $0.bytes, as: UTF8.self) }.joined(separator: ",") + "]")
        }
        let stream = RedisArgument("test:" + Sequenced.wireName)
        let channel = RedisArgument("test:" + PubSubSequenced.wireName)
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline([
            [
                "XADD", stream, "*", "event",
                batch([
                    foreignMessage(type: Sequenced.wireName, n: 1), "42",
                    foreignMessage(type: "com.unknown", id: "x", data: "{}"),
                    foreignMessage(type: Sequenced.wireName, n: 2),
                ]),
            ],
            [
                "XADD", stream, "*", "event",
                RedisArgument(
                    "[" + String(decoding: foreignMessage(type: Sequenced.wireName, n: 3).bytes, as: UTF8.self)),
            ],
            ["XADD", stream, "*", "event", batch([foreignMessage(type: Sequenced.wireName, n: 4)])],
            ["PUBLISH", channel, batch([foreignMessage(type: PubSubSequenced.wireName, n: 5), "{}"])],
        ])
        #expect(await eventually { received.count == 4 && errors.all.count == 4 })
        #expect(Set(received.values) == ["s1", "s2", "s4", "p5"])
        let statistics = bridge.statistics
        #expect(statistics.delivered == 4)
        #expect(statistics.invalidMessages == 3, "42, the unclosed batch, and {}")
        #expect(statistics.unknownTypes == 1)
        #expect(
            try await eventually {
                try await client.send("XPENDING", stream, "b").array?.first?.int == 0
            }, "every entry acknowledged, bad ones included")
        _ = (streamed, published)
        client.close()
        await bridge.stop()
    }

    @Test("A refused batch is retried whole, and each of its events is stored once")
    func refusedBatchIsRetried() async throws {
        let server = try RedisServer()
        let (center, publisher) = try await packingPublisher(server, errors: ErrorLog(), maxEventsPerMessage: 8)
        let key = "test:" + Sequenced.wireName
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline([["DEL", RedisArgument(key)], ["SET", RedisArgument(key), "not a stream"]])

        // All twenty wait in the queue before Redis refuses the first.
        try await withWritesHeld(by: client) {
            for n in 1...20 { center.dispatch(Sequenced(n: n)) }
        }
        #expect(await eventually { publisher.statistics.redisErrors >= 2 }, "refused and retried")
        #expect(publisher.statistics.published == 0)
        _ = try await client.send("DEL", RedisArgument(key))
        #expect(await publisher.flush(timeout: .seconds(15)))
        #expect(publisher.statistics.published == 20)
        let entries = try await eventsPerEntry(client, stream: key)
        #expect(entries.count < 20, "packed")
        #expect(entries.flatMap { $0 }.map(\.id).count == Set(entries.flatMap { $0 }.map(\.id)).count)
        let numbers = try entries.flatMap { $0 }.map { event in
            try JSONDecoder().decode(Sequenced.self, from: Data(try #require(event.data)))
        }
        #expect(numbers.map(\.n) == Array(1...20))
        client.close()
        await publisher.stop()
    }
}

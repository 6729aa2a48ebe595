import Events
import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@Suite("events-redis status", needsRedis)
struct StatusCommandTests {
    static let stream = "events:" + Sequenced.wireName

    @Test("status reports the length, pending entries, lag and dead letters that the bridges left")
    func numbersMatchWhatTheBridgesLeft() async throws {
        let server = try RedisServer()
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let consumer = try await Consumer(server.configuration, group: "billing", failing: [2])
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait(1...5)
        #expect(await eventually { consumer.received.values.sorted() == [1, 3, 4, 5] })
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 1 })
        await consumer.stop()
        // A second group that has read two entries and acknowledged none: 2 pending, 3 unread.
        try await admin.send("XGROUP", "CREATE", RedisArgument(Self.stream), "audit", "0")
        try await admin.send(
            "XREADGROUP", "GROUP", "audit", "auditor", "COUNT", "2", "STREAMS", RedisArgument(Self.stream), ">")

        let result = try await runCommand(urlArguments(server) + ["status", Sequenced.wireName, "--json"])
        #expect(result.status == 0, "\(result)")
        let types = try #require(try result.object()["types"] as? [[String: Any]])
        let type = try #require(types.first)
        #expect(types.count == 1)
        #expect(type["type"] as? String == Sequenced.wireName)
        #expect(type["mode"] as? String == "stream")
        #expect(type["partitions"] as? Int == 1)
        #expect(type["length"] as? Int == 5)
        #expect(type["pending"] as? Int == 2)
        #expect(type["lag"] as? Int == 3)
        #expect(type["deadLetters"] as? Int == 1)
        #expect((type["oldestPendingAgeMilliseconds"] as? Int).map { $0 >= 0 } == true)
        let groups = try #require(type["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["audit", "billing"])
        #expect(groups.map { $0["pending"] as? Int } == [2, 0])
        #expect(groups.map { $0["lag"] as? Int } == [3, 0])
        #expect(groups.map { $0["consumers"] as? [String] } == [["auditor"], ["billing"]])
        let streams = try #require(type["streams"] as? [[String: Any]])
        #expect(streams.map { $0["key"] as? String } == [Self.stream])
        #expect(streams.map { $0["deadLetterStream"] as? String } == [Self.stream + ":dead"])

        let text = try await runCommand(urlArguments(server) + ["status"])
        #expect(text.status == 0, "\(text)")
        #expect(text.outputLines.first == "\(Sequenced.wireName): stream, 1 stream")
        #expect(text.output.contains("length 5, pending 2, lag 3, dead letters 1, oldest pending "))
        #expect(text.output.contains("group audit: 1 consumer (auditor), pending 2, lag 3"))
        #expect(text.output.contains("group billing: 1 consumer (billing), pending 0, lag 0"))
    }

    @Test("status finds partitioned streams and subscribed Pub/Sub types by itself")
    func discoversTypes() async throws {
        let server = try RedisServer()
        let (consumer, _) = try await carry(on: server, group: "billing", reading: 4, publishing: 4, events: 0..<12)
        let listener = RedisBridge(
            center: EventCenter(), configuration: bridgeConfiguration(server.configuration, source: "pinged"))
        try listener.carry(Pinged.self, mode: .pubSub, direction: .incoming)
        try await listener.start()

        let result = try await runCommand(urlArguments(server) + ["status", "--json"])
        #expect(result.status == 0, "\(result)")
        let types = try #require(try result.object()["types"] as? [[String: Any]])
        #expect(types.map { $0["type"] as? String } == [Sequenced.wireName, Pinged.wireName])
        #expect(types.first?["partitions"] as? Int == 4)
        #expect(types.first?["length"] as? Int == 12)
        #expect(types.first?["pending"] as? Int == 0)
        #expect(types.first?["lag"] as? Int == 0)
        let keys = (types.first?["streams"] as? [[String: Any]])?.compactMap { $0["key"] as? String }
        #expect(keys == (0..<4).map { "events:{\(Sequenced.wireName):\($0)}" })
        #expect(types.last?["mode"] as? String == "pubsub")
        #expect(types.last?["subscribers"] as? Int == 1)
        await listener.stop()
        await consumer.stop()
    }

    @Test("status of a type found nowhere says so and exits 1")
    func missingType() async throws {
        let server = try RedisServer()
        let result = try await runCommand(urlArguments(server) + ["status", "com.example.nothing"])
        #expect(result.status == 1, "\(result)")
        #expect(result.output.contains("com.example.nothing: not found"))
    }

    @Test("the key prefix option reads another bridge's keys, and only those")
    func keyPrefix() async throws {
        let server = try RedisServer()
        var redis = server.configuration
        redis.clientName = "prefixed"
        var configuration = bridgeConfiguration(redis, source: "other")
        configuration.keyPrefix = "shop:"
        let bridge = RedisBridge(center: EventCenter(), configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream)
        try await bridge.start()
        let prefixed = try await runCommand(urlArguments(server) + ["status", "--key-prefix", "shop:", "--json"])
        let types = try #require(try prefixed.object()["types"] as? [[String: Any]])
        #expect(types.map { $0["type"] as? String } == [Sequenced.wireName])
        let plain = try await runCommand(urlArguments(server) + ["status", "--json"])
        #expect(plain.status == 1, "\(plain)")
        #expect((try plain.object()["types"] as? [Any])?.isEmpty == true)
        await bridge.stop()
    }
}

import Events
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

/// An entry a consumer reads again (its own pending entries after a reconnect, a claim, a retry)
/// may have moved on between the read and the look at its delivery count: its first consumer,
/// slow to reach Redis, acknowledged it after this one claimed it, or another consumer took it.
/// Delivered all the same, it came with a delivery count of 1, a first delivery after later
/// events of its key.
@Suite(
    "Entries read again that moved on meanwhile",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct ClaimedEntryTests {
    @Test("only entries still pending with this consumer are delivered, with the count Redis keeps")
    func onlyOwnPendingEntriesAreDelivered() async throws {
        let server = try RedisServer()
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let key = "test:claimed"
        _ = try await admin.send(["XGROUP", "CREATE", RedisArgument(key), "g", "0", "MKSTREAM"])
        var ids: [String] = []
        for n in 1...3 {
            let id = try await admin.send(["XADD", RedisArgument(key), "*", "event", RedisArgument("e\(n)")])
            ids.append(try #require(id.string))
        }
        // All three read by this consumer, then each goes its own way.
        _ = try await admin.send(["XREADGROUP", "GROUP", "g", "me", "COUNT", "3", "STREAMS", RedisArgument(key), ">"])
        // The first stays here, delivered once more by a read of the history.
        _ = try await admin.send(["XREADGROUP", "GROUP", "g", "me", "COUNT", "1", "STREAMS", RedisArgument(key), "0"])
        // The second is acknowledged, as by its first consumer after this one claimed it.
        _ = try await admin.send(["XACK", RedisArgument(key), "g", RedisArgument(ids[1])])
        // The third is taken by another consumer.
        _ = try await admin.send(["XCLAIM", RedisArgument(key), "g", "other", "0", RedisArgument(ids[2]), "JUSTID"])

        let client = RedisClient(server.configuration)
        defer { client.close() }
        let configuration = RedisBridge.Configuration(redis: server.configuration, source: "me")
        let counters = BridgeCounters()
        let errors = ErrorLog()
        let consumer = StreamConsumer(
            client: client, keys: [key], group: "g", consumer: "me",
            inbound: Inbound(
                center: EventCenter(), source: "me", ownIDPrefix: "me-", carried: [:], deduplicationWindow: 100,
                counters: counters, report: { errors.record($0) }),
            configuration: configuration, counters: counters, report: { errors.record($0) })
        let read = ids.map { StreamConsumer.Entry(key: key, id: $0, message: Array("x".utf8), deleted: false) }
        let counted = try await consumer.withDeliveryCounts(read)
        #expect(counted.map(\.id) == [ids[0]])
        #expect(counted.map(\.deliveryCount) == [2])
        #expect(errors.all.isEmpty)
    }
}

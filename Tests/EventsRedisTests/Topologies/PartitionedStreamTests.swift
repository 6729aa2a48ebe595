import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis
@testable import EventsRedisClient

struct KeyedTick: RemoteEvent, Equatable {
    static let wireName = "com.example.test.keyed-tick"
    let key: String
    let n: Int
}

struct PartitionedBroke: Error {}

/// Whether every key's numbers arrived in increasing order.
func inOrderPerKey(_ ticks: [KeyedTick]) -> Bool {
    Dictionary(grouping: ticks, by: \.key).values.allSatisfy { events in
        zip(events, events.dropFirst()).allSatisfy { $0.n < $1.n }
    }
}

/// A started bridge on `server` carrying `KeyedTick` as a stream on `partitions` partitions in
/// `direction`, keyed by `key` (nil: by the sender's subject), with `configure` applied to the
/// test configuration.
func startedKeyedTickBridge(
    _ server: RedisServer, source: String, partitions: Int, direction: RedisBridge.Direction,
    center: EventCenter = EventCenter(), errors: ErrorLog = ErrorLog(),
    by key: (@Sendable (KeyedTick) -> String)? = { $0.key }, onFailure policy: RedisBridge.FailurePolicy? = nil,
    configure: (inout RedisBridge.Configuration) -> Void = { _ in }
) async throws -> RedisBridge {
    var configuration = bridgeConfiguration(server, source: source, errors: errors)
    configure(&configuration)
    let bridge = RedisBridge(center: center, configuration: configuration)
    try bridge.carry(
        KeyedTick.self, mode: .stream, partitions: partitions, by: key, direction: direction, onFailure: policy)
    try await bridge.start()
    return bridge
}

@Suite("Stream partitions, by key")
struct StreamPartitionKeyTests {
    @Test("partition keys are hash tags of their own, and one partition is the plain stream")
    func keys() {
        #expect(StreamPartitions.keys(prefix: "p:", wireName: "t", count: 1) == ["p:t"])
        #expect(StreamPartitions.keys(prefix: "p:", wireName: "t", count: 3) == ["p:{t:0}", "p:{t:1}", "p:{t:2}"])
        // Each partition on a slot of its own name; its dead letters on the same slot.
        let keys = StreamPartitions.keys(prefix: "events:", wireName: KeyedTick.wireName, count: 8)
        #expect(Set(keys.map(ClusterSlot.of)).count > 1)
        for key in keys { #expect(ClusterSlot.of(key) == ClusterSlot.of(key + ":dead")) }
    }

    @Test("a partition key picks the same partition in every process: FNV-1a, not the seeded Hasher")
    func stableIndex() {
        // FNV-1a (64 bits) of "a" is 0xaf63dc4c8601ec8c.
        #expect(StreamPartitions.index(of: "a", count: 1000) == Int(0xaf63_dc4c_8601_ec8c as UInt64 % 1000))
        #expect(StreamPartitions.index(of: "anything", count: 1) == 0)
        let used = Set((0..<1000).map { StreamPartitions.index(of: "customer-\($0)", count: 8) })
        #expect(used == Set(0..<8))
    }

    @Test("entry ids order as Redis orders them, and malformed ones sort first without failing")
    func entryIDs() {
        #expect(StreamEntryID("1700000000000-2") < StreamEntryID("1700000000000-10"))
        #expect(StreamEntryID("999-5") < StreamEntryID("1000-0"))
        #expect(StreamEntryID("garbage") < StreamEntryID("1-0"))
    }
}

@Suite("Stream partitions", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct PartitionedStreamTests {
    static let partitions = 4

    func keyCounts(_ admin: RedisClient, prefix: String = "test:") async throws -> [Int] {
        var counts: [Int] = []
        for key in StreamPartitions.keys(prefix: prefix, wireName: KeyedTick.wireName, count: Self.partitions) {
            counts.append(try await admin.send("XLEN", RedisArgument(key)).int ?? -1)
        }
        return counts
    }

    @Test("a partitioned type is spread by its key, read together, delivered once, and in order per key")
    func spreadAndOrdered() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumerCenter = EventCenter()
        let received = Log<KeyedTick>()
        let listener = consumerCenter.listen(to: KeyedTick.self) { received.append($0) }
        let consumer = try await startedKeyedTickBridge(
            server, source: "c", partitions: Self.partitions, direction: .incoming, center: consumerCenter,
            errors: errors)
        let center = EventCenter()
        let publisher = try await startedKeyedTickBridge(
            server, source: "p", partitions: Self.partitions, direction: .outgoing, center: center, errors: errors)

        let keys = (0..<12).map { "customer-\($0)" }
        let perKey = 40
        for n in 1...perKey {
            for key in keys { center.dispatch(KeyedTick(key: key, n: n)) }
        }
        #expect(await publisher.flush(timeout: .seconds(20)))
        let total = keys.count * perKey
        #expect(await eventually { received.count >= total })
        await waitToShowNothingArrives()
        let ticks = received.values
        #expect(ticks.count == total)
        #expect(Set(ticks.map { "\($0.key)/\($0.n)" }).count == total)
        #expect(inOrderPerKey(ticks))

        // Every key's events sit in its partition, and the plain stream is not used.
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        var expected = Array(repeating: 0, count: Self.partitions)
        for key in keys { expected[StreamPartitions.index(of: key, count: Self.partitions)] += perKey }
        #expect(try await keyCounts(admin) == expected)
        #expect(expected.filter { $0 > 0 }.count > 1)
        #expect(try await admin.send("EXISTS", RedisArgument("test:" + KeyedTick.wireName)).int == 0)
        #expect(errors.all.isEmpty, "\(errors.all)")
        await publisher.stop()
        await consumer.stop()
        _ = listener
    }

    @Test("without a partition key, a sender's events go to its subject's partition and stay in order")
    func bySenderSubject() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumerCenter = EventCenter()
        let received = Log<KeyedTick>()
        let listener = consumerCenter.listen(to: KeyedTick.self) { received.append($0) }
        let consumer = try await startedKeyedTickBridge(
            server, source: "c", partitions: Self.partitions, direction: .incoming, center: consumerCenter,
            errors: errors)
        let center = EventCenter()
        let publisher = try await startedKeyedTickBridge(
            server, source: "p", partitions: Self.partitions, direction: .outgoing, center: center, errors: errors,
            by: nil,
            configure: { configuration in
                configuration.subject = { sender in sender.object(as: Checkout.self) == nil ? "none" : "checkout" }
            })

        let checkout = Checkout()
        for n in 1...100 {
            center.dispatch(KeyedTick(key: "from-checkout", n: n), from: checkout)
            center.dispatch(KeyedTick(key: "no-sender", n: n))
        }
        #expect(await publisher.flush(timeout: .seconds(20)))
        #expect(await eventually { received.count >= 200 })
        await waitToShowNothingArrives()
        #expect(received.count == 200)
        #expect(inOrderPerKey(received.values))
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        var expected = Array(repeating: 0, count: Self.partitions)
        expected[StreamPartitions.index(of: "checkout", count: Self.partitions)] += 100
        expected[StreamPartitions.index(of: "p", count: Self.partitions)] += 100
        #expect(try await keyCounts(admin) == expected)
        await publisher.stop()
        await consumer.stop()
        _ = listener
    }

    @Test("failed events of every partition are dead-lettered, listed together, oldest first, and purged")
    func deadLettersAcrossPartitions() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let consumerCenter = EventCenter()
        consumerCenter.errorHandler = { _ in }
        let attempts = Log<String>()
        let listener = consumerCenter.listen(to: KeyedTick.self) { event, _ in
            attempts.append(event.key)
            if event.n % 2 == 0 { throw PartitionedBroke() }
        }
        let consumer = try await startedKeyedTickBridge(
            server, source: "c", partitions: Self.partitions, direction: .incoming, center: consumerCenter,
            errors: errors, onFailure: .retry(maxDeliveries: 2, backoff: .constant(.milliseconds(50))))
        let center = EventCenter()
        let publisher = try await startedKeyedTickBridge(
            server, source: "p", partitions: Self.partitions, direction: .outgoing, center: center, errors: errors)

        let keys = (0..<8).map { "k\($0)" }
        for key in keys { center.dispatch(KeyedTick(key: key, n: 2)) }
        for key in keys { center.dispatch(KeyedTick(key: key, n: 1)) }
        #expect(await publisher.flush(timeout: .seconds(20)))
        // Each failing event is delivered twice, then dead-lettered.
        #expect(await eventually { attempts.count >= keys.count * 3 })
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let partitionKeys = StreamPartitions.keys(
            prefix: "test:", wireName: KeyedTick.wireName, count: Self.partitions)
        var letters: [RedisBridge.DeadLetter] = []
        #expect(
            await eventually {
                letters = (try? await consumer.deadLetters(of: KeyedTick.self)) ?? []
                return letters.count == keys.count
            })
        #expect(Set(letters.map(\.eventJSON).map { $0.contains(#""n":2"#) }) == [true])
        #expect(Set(letters.map(\.stream)).count > 1)
        #expect(Set(letters.map(\.stream)).isSubset(of: partitionKeys))
        #expect(letters.allSatisfy { $0.deadLetterStream == $0.stream + ":dead" && $0.deliveries == 2 })
        let times = letters.map { StreamEntryID($0.id) }
        #expect(zip(times, times.dropFirst()).allSatisfy { !($1 < $0) })
        #expect(try await consumer.deadLetters(of: KeyedTick.self, limit: 3).count == 3)

        // Replayed to its own partition, and purged across all of them.
        let replayed = letters[0]
        try await consumer.replay(replayed)
        // It fails again, twice, and comes back as a new letter on its own partition.
        #expect(await eventually { attempts.count >= keys.count * 3 + 2 })
        // Letters on different partitions' dead-letter streams can share an entry id (written
        // in the same millisecond): a letter is its stream and its id.
        #expect(
            await eventually {
                letters = (try? await consumer.deadLetters(of: KeyedTick.self)) ?? []
                return letters.count == keys.count
                    && !letters.contains { $0.deadLetterStream == replayed.deadLetterStream && $0.id == replayed.id }
            },
            "\(letters.map { "\($0.stream) \($0.id) \($0.deliveries) \($0.eventJSON)" }), attempts \(attempts.count), \(consumer.statistics)"
        )
        #expect(letters.contains { $0.stream == replayed.stream && $0.eventJSON == replayed.eventJSON })
        #expect(try await consumer.purgeDeadLetters(of: KeyedTick.self) == keys.count)
        #expect(try await consumer.deadLetters(of: KeyedTick.self).isEmpty)
        await publisher.stop()
        await consumer.stop()
        _ = listener
    }

    @Test("partitions outside 1...1024, or with Pub/Sub, are refused with the reason")
    func refused() throws {
        let server = try RedisServer()
        let bridge = RedisBridge(
            center: EventCenter(), configuration: bridgeConfiguration(server, source: "x", errors: ErrorLog()))
        for (count, mode) in [(0, RedisBridge.Mode.stream), (1025, .stream), (2, .pubSub)] {
            let error = #expect(throws: RedisBridgeError.self) {
                try bridge.carry(KeyedTick.self, mode: mode, partitions: count)
            }
            guard error?.code == .invalidConfiguration, let reason = error?.reason else {
                Issue.record("\(String(describing: error)) is not invalidConfiguration")
                continue
            }
            #expect(reason.contains(KeyedTick.wireName))
        }
        // One partition is the plain type, in either mode.
        try bridge.carry(KeyedTick.self, mode: .pubSub, partitions: 1)
    }
}

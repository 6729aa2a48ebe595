import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

/// Bridges that carry a type on different numbers of partitions never meet; the one that
/// starts last says so: to its error handler, in its statistics and in its log.
@Suite(
    "Stream partitions: mismatched layouts are reported",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct PartitionLayoutCheckTests {
    let plainStream = "test:" + KeyedTick.wireName

    func partition(_ index: Int) -> String {
        StreamPartitions.key(prefix: "test:", wireName: KeyedTick.wireName, partition: index)
    }

    /// A started bridge carrying `KeyedTick` on `partitions` in `direction`, logging into `log`.
    func bridge(
        _ server: RedisServer, source: String, partitions: Int, direction: RedisBridge.Direction,
        center: EventCenter = EventCenter(), group: String? = nil, log: LogRecords? = nil
    ) async throws -> RedisBridge {
        try await startedKeyedTickBridge(
            server, source: source, partitions: partitions, direction: direction, center: center,
            configure: { configuration in
                if let group { configuration.consumerGroup = group }
                if let log { configuration.logHandler = { log.record($0) } }
            })
    }

    /// The warnings of `log` once its bridge's check is done (it logs that last).
    func warnings(_ log: LogRecords) async -> [RedisBridge.LogRecord]? {
        let done = await eventually { log.all.contains { $0.message.contains("checked the partition layouts") } }
        return done ? log.all.filter { $0.level == .warning } : nil
    }

    /// A key whose events go to partition `index` of `count`.
    func key(inPartition index: Int, of count: Int) -> String {
        (0...).lazy.map { "key-\($0)" }.first { StreamPartitions.index(of: $0, count: count) == index }!
    }

    @Test("a consumer on partitions names the events an unpartitioned publisher left on the plain stream")
    func unreadOnPlainStream() async throws {
        let server = try RedisServer()
        let center = EventCenter()
        let publisher = try await bridge(server, source: "p", partitions: 1, direction: .outgoing, center: center)
        for n in 1...5 { center.dispatch(KeyedTick(key: "a", n: n)) }
        #expect(await publisher.flush(timeout: .seconds(15)))

        let log = LogRecords()
        let consumer = try await bridge(server, source: "c", partitions: 4, direction: .incoming, log: log)
        let found = try #require(await warnings(log))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.metadata["stream"] == plainStream)
        #expect(found.first?.metadata["entries"] == "5")
        #expect(found.first?.metadata["type"] == KeyedTick.wireName)
        await consumer.stop()
        await publisher.stop()
    }

    @Test("a publisher on partitions names the groups that read the plain stream, and one that reads fewer partitions")
    func readersOfOtherLayouts() async throws {
        let server = try RedisServer()
        let plainReader = try await bridge(server, source: "c1", partitions: 1, direction: .incoming, group: "old")
        let fewer = try await bridge(server, source: "c2", partitions: 2, direction: .incoming, group: "two")
        let same = try await bridge(server, source: "c3", partitions: 4, direction: .incoming, group: "four")

        let log = LogRecords()
        let publisher = try await bridge(server, source: "p", partitions: 4, direction: .outgoing, log: log)
        let found = try #require(await warnings(log))
        #expect(found.count == 2, "\(found)")
        // The plain stream and the first and last partitions, each asked about once.
        #expect(log.all.last { $0.message.contains("checked the partition layouts") }?.metadata["streams"] == "3")
        let onPlain = found.first { $0.metadata["stream"] == plainStream }
        #expect(onPlain?.metadata["groups"] == "old")
        let onPartitions = found.first { $0.metadata["stream"] == partition(0) }
        #expect(onPartitions?.metadata["groups"] == "two", "the group reading four partitions is not named")
        for bridge in [publisher, plainReader, fewer, same] { await bridge.stop() }
    }

    @Test("a consumer on fewer partitions names a partition beyond its count; an unpartitioned one, partition 0")
    func unreadOnOtherPartitions() async throws {
        let server = try RedisServer()
        let center = EventCenter()
        let publisher = try await bridge(server, source: "p", partitions: 4, direction: .outgoing, center: center)
        // Events on partition 2 (beyond a two-partition reader's) and on partition 0.
        for n in 1...3 { center.dispatch(KeyedTick(key: key(inPartition: 2, of: 4), n: n)) }
        for n in 1...2 { center.dispatch(KeyedTick(key: key(inPartition: 0, of: 4), n: n)) }
        #expect(await publisher.flush(timeout: .seconds(15)))

        let twoLog = LogRecords()
        let two = try await bridge(server, source: "c2", partitions: 2, direction: .incoming, group: "two", log: twoLog)
        let twoFound = try #require(await warnings(twoLog))
        #expect(twoFound.map { $0.metadata["stream"] } == [partition(2)])
        #expect(twoFound.first?.metadata["entries"] == "3")

        let plainLog = LogRecords()
        let plain = try await bridge(
            server, source: "c1", partitions: 1, direction: .incoming, group: "plain", log: plainLog)
        let plainFound = try #require(await warnings(plainLog))
        #expect(plainFound.map { $0.metadata["stream"] } == [partition(0)])
        #expect(plainFound.first?.metadata["entries"] == "2")
        for bridge in [publisher, two, plain] { await bridge.stop() }
    }

    @Test("bridges that agree warn of nothing, and a drained old partition stops being named")
    func agreeingLayouts() async throws {
        let server = try RedisServer()
        let received = Log<KeyedTick>()
        let consumerCenter = EventCenter()
        let listener = consumerCenter.listen(to: KeyedTick.self) { received.append($0) }
        // The consumer read the plain stream before it moved to partitions, and drained it.
        let oldCenter = EventCenter()
        let oldPublisher = try await bridge(
            server, source: "p", partitions: 1, direction: .outgoing, center: oldCenter)
        let oldConsumer = try await bridge(
            server, source: "c", partitions: 1, direction: .incoming, center: consumerCenter)
        for n in 1...3 { oldCenter.dispatch(KeyedTick(key: "a", n: n)) }
        #expect(await oldPublisher.flush(timeout: .seconds(15)))
        #expect(await eventually { received.count == 3 })
        await oldConsumer.stop()
        await oldPublisher.stop()

        let consumerLog = LogRecords()
        let consumer = try await bridge(
            server, source: "c", partitions: 4, direction: .incoming, center: consumerCenter, log: consumerLog)
        let publisherLog = LogRecords()
        let center = EventCenter()
        let publisher = try await bridge(
            server, source: "p", partitions: 4, direction: .outgoing, center: center, log: publisherLog)
        #expect(try #require(await warnings(consumerLog)).isEmpty)
        #expect(try #require(await warnings(publisherLog)).isEmpty)
        for n in 4...6 { center.dispatch(KeyedTick(key: "a", n: n)) }
        #expect(await eventually { received.count == 6 })
        #expect(received.values.map(\.n) == Array(1...6))
        await publisher.stop()
        await consumer.stop()
        withExtendedLifetime(listener) {}
    }

    @Test("a publishing bridge checks after start() returns, and stopping ends a check Redis has not answered")
    func checkEndsWithStop() async throws {
        let server = try RedisServer()
        // A network that swallows every byte: the check that start() leaves running waits for
        // its reply.
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        proxy.mode = .blackHole
        let log = LogRecords()
        let publisher = try await startedKeyedTickBridge(
            server, source: "p", partitions: 4, direction: .outgoing,
            configure: { configuration in
                configuration.redis.port = proxy.port
                configuration.redis.replyTimeout = .seconds(60)
                configuration.logHandler = { log.record($0) }
            })
        #expect(await eventually { proxy.openCount > 0 }, "the check connected")
        let began = ContinuousClock.now
        await publisher.stop()
        let stopping = ContinuousClock.now - began
        // Closing the check's connection ends it: the stop did not wait for its reply timeout.
        #expect(stopping < .seconds(30), "stop waited \(stopping)")
        let messages = log.all.map(\.message)
        #expect(!messages.contains { $0.contains("checked the partition layouts") }, "\(messages)")
        #expect(messages.last?.hasPrefix("Redis bridge stopped") == true, "\(messages)")
    }

    @Test(
        "without a log handler a mismatch still reaches the error handler and the statistics; agreeing layouts report none"
    )
    func reportedWithoutALogHandler() async throws {
        let server = try RedisServer()
        let center = EventCenter()
        let publisher = try await startedKeyedTickBridge(
            server, source: "p", partitions: 1, direction: .outgoing, center: center)
        let agreeing = ErrorLog()
        let plainReader = try await startedKeyedTickBridge(
            server, source: "d", partitions: 1, direction: .incoming, errors: agreeing,
            configure: { $0.consumerGroup = "plain-readers" })
        for n in 1...5 { center.dispatch(KeyedTick(key: "a", n: n)) }
        #expect(await publisher.flush(timeout: .seconds(15)))
        #expect(await eventually { plainReader.statistics.delivered == 5 })
        #expect(agreeing.all.isEmpty, "\(agreeing.all)")
        #expect(plainReader.statistics.partitionLayoutMismatches == 0)

        let errors = ErrorLog()
        let consumer = try await startedKeyedTickBridge(
            server, source: "c", partitions: 4, direction: .incoming, errors: errors)
        // A consumer runs the check before start() returns.
        let mismatches = errors.all.filter { $0.code == .partitionLayoutMismatch }
        #expect(mismatches.count == 1, "\(errors.all)")
        #expect(mismatches.first?.stream == plainStream)
        #expect(mismatches.first?.type == KeyedTick.wireName)
        #expect(mismatches.first?.reason?.contains("5 entries") == true, "\(String(describing: mismatches.first))")
        #expect(consumer.statistics.partitionLayoutMismatches == 1)
        #expect(consumer.statistics.description.contains("partition layout mismatches 1"))
        for bridge in [publisher, plainReader, consumer] { await bridge.stop() }
    }

    @Test("the probes: what each layout looks at")
    func probes() throws {
        let prefix = "p:"
        let wire = KeyedTick.wireName
        func carried(_ count: Int) -> CarriedEvent {
            .typed(
                KeyedTick.self, mode: .stream,
                keys: StreamPartitions.keys(prefix: prefix, wireName: wire, count: count), partitionKey: nil)
        }
        let streams = { (check: PartitionLayoutCheck) in check.probes.map(\.stream) }
        let read4 = PartitionLayoutCheck(received: [carried(4)], published: [], keyPrefix: prefix, group: "g")
        #expect(streams(read4) == ["p:" + wire, "p:{\(wire):4}"])
        let read1 = PartitionLayoutCheck(received: [carried(1)], published: [], keyPrefix: prefix, group: "g")
        #expect(streams(read1) == ["p:{\(wire):0}"])
        let write4 = PartitionLayoutCheck(received: [], published: [carried(4)], keyPrefix: prefix, group: "g")
        #expect(streams(write4) == ["p:" + wire, "p:{\(wire):0}"])
        #expect(
            write4.probes.map(\.concern) == [
                .readersMissingFrom(stream: "p:{\(wire):0}"), .readersMissingFrom(stream: "p:{\(wire):3}"),
            ])
        let write1 = PartitionLayoutCheck(received: [], published: [carried(1)], keyPrefix: prefix, group: "g")
        #expect(
            write1.probes == [
                .init(wireType: wire, stream: "p:{\(wire):0}", concern: .readersMissingFrom(stream: "p:" + wire))
            ])
        // Pub/Sub has no partitions to check.
        let pubSub = CarriedEvent.typed(KeyedTick.self, mode: .pubSub, key: "p:" + wire)
        #expect(
            PartitionLayoutCheck(received: [pubSub], published: [pubSub], keyPrefix: prefix, group: "g").probes.isEmpty)
    }
}

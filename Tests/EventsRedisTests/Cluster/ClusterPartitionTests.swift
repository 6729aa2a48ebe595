import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

extension ClusterTopologyTests {
    @Suite("Stream partitions on a cluster")
    struct ClusterPartitionTests {
        @Test("a type's partitions sit on several shards, are read together, once each, in order per key")
        func partitionsOnSeveralShards() async throws {
            let cluster = try RedisCluster(masters: 3)
            let partitions = 6
            let prefix = "parts:"
            let keys = StreamPartitions.keys(prefix: prefix, wireName: KeyedTick.wireName, count: partitions)
            let owners = try keys.map { try cluster.owner(ofKey: $0).port }
            #expect(Set(owners).count > 1, "the partitions should spread over the shards: \(owners)")
            let errors = ErrorLog()
            let consumerCenter = EventCenter()
            consumerCenter.errorHandler = { _ in }
            let received = Log<KeyedTick>()
            let listener = consumerCenter.listen(to: KeyedTick.self) { event, _ in
                received.append(event)
                if event.key == "poison" { throw PartitionedBroke() }
            }
            // Another layout's leftovers, written as an unpartitioned publisher and one on more
            // partitions would write them, each on the shard of its own slot.
            let plain = prefix + KeyedTick.wireName
            let beyond = StreamPartitions.key(prefix: prefix, wireName: KeyedTick.wireName, partition: partitions)
            for (key, count) in [(plain, 2), (beyond, 1)] {
                for _ in 0..<count {
                    _ = try cluster.command(
                        on: cluster.owner(ofKey: key), ["XADD", RedisArgument(key), "*", "event", "x"])
                }
            }
            var consumerConfiguration = cluster.bridgeConfiguration(source: "c", prefix: prefix, errors: errors)
            let log = LogRecords()
            consumerConfiguration.logHandler = { log.record($0) }
            let consumer = RedisBridge(center: consumerCenter, configuration: consumerConfiguration)
            try consumer.carry(
                KeyedTick.self, mode: .stream, partitions: partitions, direction: .incoming,
                onFailure: .retry(maxDeliveries: 1))
            try await consumer.start()
            // The check of the other layouts' streams, on their shards, names both before start() returns.
            let warned = log.all.filter { $0.level == .warning }
            #expect(warned.count == 2, "\(log.all)")
            #expect(warned.first { $0.metadata["stream"] == plain }?.metadata["entries"] == "2")
            #expect(warned.first { $0.metadata["stream"] == beyond }?.metadata["entries"] == "1")
            let center = EventCenter()
            let publisher = RedisBridge(
                center: center, configuration: cluster.bridgeConfiguration(source: "p", prefix: prefix, errors: errors))
            try publisher.carry(KeyedTick.self, mode: .stream, partitions: partitions, by: \.key, direction: .outgoing)
            try await publisher.start()

            let customers = (0..<10).map { "customer-\($0)" }
            let perKey = 30
            for n in 1...perKey {
                for customer in customers { center.dispatch(KeyedTick(key: customer, n: n)) }
            }
            center.dispatch(KeyedTick(key: "poison", n: 1))
            #expect(await publisher.flush(timeout: .seconds(20)))
            let total = customers.count * perKey + 1
            #expect(await eventually { received.count >= total })
            await waitToShowNothingArrives()
            let ticks = received.values
            #expect(ticks.count == total)
            #expect(Set(ticks.map { "\($0.key)/\($0.n)" }).count == total)
            #expect(inOrderPerKey(ticks))
            var lengths = 0
            for (key, port) in zip(keys, owners) {
                let owner = try #require(cluster.masters.first { $0.port == port })
                lengths += try cluster.command(on: owner, ["XLEN", RedisArgument(key)]).int ?? 0
            }
            #expect(lengths == total)
            // The failed event's letter is on its partition's slot, found through the type.
            var letters: [RedisBridge.DeadLetter] = []
            #expect(
                await eventually {
                    letters = (try? await consumer.deadLetters(of: KeyedTick.self)) ?? []
                    return letters.count == 1
                })
            let poisonKey = keys[StreamPartitions.index(of: "poison", count: partitions)]
            #expect(letters.first?.stream == poisonKey)
            #expect(try await consumer.purgeDeadLetters(of: KeyedTick.self) == 1)
            // The two mismatches reached the error handler too, and nothing else did.
            #expect(errors.all.filter { $0.code == .partitionLayoutMismatch }.count == 2, "\(errors.all)")
            #expect(errors.all.filter { $0.code != .partitionLayoutMismatch }.isEmpty, "\(errors.all)")
            #expect(consumer.statistics.partitionLayoutMismatches == 2)
            await publisher.stop()
            await consumer.stop()
            _ = listener
        }
    }
}

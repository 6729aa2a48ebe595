import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis
@testable import EventsRedisClient

struct ClusterTick: RemoteEvent, Equatable {
    static let wireName = "com.example.test.cluster-tick"
    let n: Int
}

extension RedisCluster {
    /// A key prefix under which the streams of `wireNames` hash to as many different masters.
    func prefixSpreading(_ wireNames: [String]) throws -> String {
        for attempt in 0..<500 {
            let prefix = "c\(attempt):"
            let owners = try wireNames.map { try owner(ofSlot: ClusterSlot.of(prefix + $0)).port }
            if Set(owners).count == min(wireNames.count, masters.count) { return prefix }
        }
        throw TopologyFailure(description: "no prefix spreads the streams")
    }

    /// A bridge configuration on this cluster, with the short times of the other bridge tests.
    func bridgeConfiguration(source: String, prefix: String, errors: ErrorLog) -> RedisBridge.Configuration {
        var configuration = RedisBridge.Configuration(redis: clientConfiguration, source: source)
        configuration.keyPrefix = prefix
        configuration.readBlock = .milliseconds(100)
        configuration.claimInterval = .milliseconds(100)
        configuration.claimMinimumIdle = .milliseconds(200)
        configuration.errorHandler = { errors.record($0) }
        return configuration
    }
}

extension ClusterTopologyTests {
    @Suite("Bridge on a cluster")
    struct ClusterBridgeTests {
        @Test("events of several types whose streams sit on different shards are delivered exactly once")
        func streamsOnEveryShard() async throws {
            let cluster = try RedisCluster(masters: 3)
            let names = [Sequenced.wireName, ShipmentSent.wireName, ClusterTick.wireName]
            let prefix = try cluster.prefixSpreading(names)
            let errors = ErrorLog()
            let consumerCenter = EventCenter()
            let sequenced = Log<Int>()
            let shipped = Log<String>()
            let ticks = Log<Int>()
            let listeners = [
                consumerCenter.listen(to: Sequenced.self) { sequenced.append($0.n) },
                consumerCenter.listen(to: ShipmentSent.self) { shipped.append($0.orderID) },
                consumerCenter.listen(to: ClusterTick.self) { ticks.append($0.n) },
            ]
            let consumer = RedisBridge(
                center: consumerCenter,
                configuration: cluster.bridgeConfiguration(source: "c", prefix: prefix, errors: errors))
            try consumer.carry(Sequenced.self, mode: .stream, direction: .incoming)
            try consumer.carry(ShipmentSent.self, mode: .stream, direction: .incoming)
            try consumer.carry(ClusterTick.self, mode: .stream, direction: .incoming)
            try await consumer.start()
            let center = EventCenter()
            let publisher = RedisBridge(
                center: center, configuration: cluster.bridgeConfiguration(source: "p", prefix: prefix, errors: errors))
            try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
            try publisher.carry(ShipmentSent.self, mode: .stream, direction: .outgoing)
            try publisher.carry(ClusterTick.self, mode: .stream, direction: .outgoing)
            try await publisher.start()

            let total = 200
            for n in 1...total {
                // Interleaved, so that every publish batch spans the three shards.
                center.dispatch(Sequenced(n: n))
                center.dispatch(ShipmentSent(orderID: "o\(n)"))
                center.dispatch(ClusterTick(n: n))
            }
            #expect(await publisher.flush(timeout: .seconds(20)))
            #expect(
                await eventually {
                    sequenced.count >= total && shipped.count >= total && ticks.count >= total
                })
            await waitToShowNothingArrives()
            // Exactly once, and in order per stream: one consumer reads each stream.
            #expect(sequenced.values == Array(1...total))
            #expect(shipped.values == (1...total).map { "o\($0)" })
            #expect(ticks.values == Array(1...total))
            for name in names {
                let length = try cluster.command(
                    on: cluster.owner(ofSlot: ClusterSlot.of(prefix + name)), ["XLEN", RedisArgument(prefix + name)])
                #expect(length.int == total)
            }
            #expect(errors.all.isEmpty, "\(errors.all)")
            await publisher.stop()
            await consumer.stop()
            _ = listeners
        }

        @Test("replicated publishing is refused on a cluster with the reason")
        func refusedOnCluster() async throws {
            var redis = RedisConfiguration()
            redis.cluster = RedisClusterConfiguration(nodes: [.init(host: "127.0.0.1", port: 1)])
            var configuration = RedisBridge.Configuration(redis: redis, source: "x")
            configuration.replicatedPublishing = .init(replicas: 1, timeout: .milliseconds(100))
            #expect(throws: RedisBridgeError.self) { try configuration.validated() }
        }

        @Test("Pub/Sub events on channels of different shards cross the cluster (sharded Pub/Sub)")
        func pubSubOnEveryShard() async throws {
            let cluster = try RedisCluster(masters: 3)
            let names = [Sequenced.wireName, ClusterTick.wireName]
            let prefix = try cluster.prefixSpreading(names)
            let errors = ErrorLog()
            let consumerCenter = EventCenter()
            let sequenced = Log<Int>()
            let ticks = Log<Int>()
            let listeners = [
                consumerCenter.listen(to: Sequenced.self) { sequenced.append($0.n) },
                consumerCenter.listen(to: ClusterTick.self) { ticks.append($0.n) },
            ]
            let consumer = RedisBridge(
                center: consumerCenter,
                configuration: cluster.bridgeConfiguration(source: "c", prefix: prefix, errors: errors))
            try consumer.carry(Sequenced.self, mode: .pubSub, direction: .incoming)
            try consumer.carry(ClusterTick.self, mode: .pubSub, direction: .incoming)
            try await consumer.start()
            let center = EventCenter()
            let publisher = RedisBridge(
                center: center, configuration: cluster.bridgeConfiguration(source: "p", prefix: prefix, errors: errors))
            try publisher.carry(Sequenced.self, mode: .pubSub, direction: .outgoing)
            try publisher.carry(ClusterTick.self, mode: .pubSub, direction: .outgoing)
            try await publisher.start()

            let total = 100
            for n in 1...total {
                center.dispatch(Sequenced(n: n))
                center.dispatch(ClusterTick(n: n))
            }
            #expect(await publisher.flush(timeout: .seconds(20)))
            #expect(await eventually { sequenced.count >= total && ticks.count >= total })
            await waitToShowNothingArrives()
            #expect(sequenced.values == Array(1...total))
            #expect(ticks.values == Array(1...total))
            // Each channel's messages went to its own shard: the publishing master counts them.
            for name in names {
                let owner = try cluster.owner(ofSlot: ClusterSlot.of(prefix + name))
                let numbers = try cluster.command(
                    on: owner, ["PUBSUB", "SHARDNUMSUB", RedisArgument(prefix + name)])
                #expect(numbers.array?.last?.int == 1, "\(name): \(numbers)")
            }
            #expect(errors.all.isEmpty, "\(errors.all)")
            await publisher.stop()
            await consumer.stop()
            _ = listeners
        }

        @Test("a sharded subscription follows its channel's slot to another master")
        func shardedSubscriptionFollowsMigration() async throws {
            let cluster = try RedisCluster(masters: 3)
            let channel = "news:{migrating}"
            let slot = ClusterSlot.of(channel)
            let subscriber = RedisSubscriber(cluster.clientConfiguration)
            defer { subscriber.close() }
            let received = Log<String>()
            let subscribed = Log<String>()
            let reading = Task {
                for try await event in subscriber.events(channels: [channel]) {
                    switch event {
                    case .message(let message): received.append(message.string)
                    case .subscribed(let name, _): subscribed.append(name)
                    case .reconnected: break
                    }
                }
            }
            defer { reading.cancel() }
            #expect(await eventually { subscribed.count == 1 })
            let client = RedisClient(cluster.clientConfiguration)
            defer { client.close() }
            _ = try await client.send("SPUBLISH", RedisArgument(channel), "before")
            #expect(await eventually { received.values == ["before"] })

            let source = try cluster.owner(ofSlot: slot)
            let target = try #require(cluster.masters.first { $0.port != source.port })
            try cluster.migrate(slot: slot, to: target)
            // The old owner ends the subscription; it is made again at the new one.
            #expect(await eventually { subscriber.reconnectCount >= 1 && subscribed.count >= 2 })
            let numbers = try cluster.command(on: target, ["PUBSUB", "SHARDNUMSUB", RedisArgument(channel)])
            #expect(numbers.array?.last?.int == 1, "\(numbers)")
            #expect(
                await eventually {
                    _ = try? await client.send("SPUBLISH", RedisArgument(channel), "after")
                    return received.values.contains("after")
                })
        }
    }
}

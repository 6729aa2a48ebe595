import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis
@testable import EventsRedisClient

/// A publishing and a consuming bridge on one busy stream of a cluster, for disrupting the
/// stream's shard mid-way.
private struct BusyStream {
    let cluster: RedisCluster
    let errors = ErrorLog()
    let received = Log<Int>()
    let center = EventCenter()
    let consumerCenter = EventCenter()
    let publisher: RedisBridge
    let consumer: RedisBridge
    let listener: Subscription
    let key: String

    init(cluster: RedisCluster) async throws {
        self.cluster = cluster
        let prefix = "busy:"
        key = prefix + Sequenced.wireName
        let received = received
        listener = consumerCenter.listen(to: Sequenced.self) { received.append($0.n) }
        consumer = RedisBridge(
            center: consumerCenter,
            configuration: cluster.bridgeConfiguration(source: "c", prefix: prefix, errors: errors))
        try consumer.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await consumer.start()
        publisher = RedisBridge(
            center: center, configuration: cluster.bridgeConfiguration(source: "p", prefix: prefix, errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await publisher.start()
    }

    func dispatch(_ numbers: ClosedRange<Int>) {
        for n in numbers { center.dispatch(Sequenced(n: n)) }
    }

    /// Dispatches `numbers` from another task, while the caller disrupts the shard.
    func dispatchMeanwhile(_ numbers: ClosedRange<Int>) -> Task<Void, Never> {
        let center = center
        return Task.detached {
            for n in numbers {
                center.dispatch(Sequenced(n: n))
                await Task.yield()
            }
        }
    }

    /// Waits for `mustArrive`, then counts and prints what arrived of `1...total`.
    func settle(total: Int, mustArrive: Set<Int>, label: String) async -> (lost: Set<Int>, duplicated: Int) {
        #expect(await publisher.flush(timeout: .seconds(30)))
        #expect(await eventually { Set(received.values).isSuperset(of: mustArrive) })
        let delivered = Set(received.values)
        let lost = Set(1...total).subtracting(delivered)
        let duplicated = received.count - delivered.count
        print(
            "\(label): \(total) events dispatched, \(publisher.statistics.published) publishes acknowledged, "
                + "\(delivered.count) delivered, \(lost.count) lost, \(duplicated) duplicated, "
                + "\(errors.all.count) errors reported \(errors.all.map { "\($0)" })")
        await publisher.stop()
        await consumer.stop()
        _ = listener
        return (lost, duplicated)
    }
}

extension ClusterTopologyTests {
    @Suite("Bridge through resharding and failover")
    struct ClusterReshardingTests {
        @Test("a busy stream's slot migrates mid-stream: nothing lost, nothing delivered twice")
        func streamThroughMigration() async throws {
            let cluster = try RedisCluster(masters: 3)
            let stream = try await BusyStream(cluster: cluster)
            // 1...200 before the disruption, 201...400 during it, 401...450 after it.
            let total = 450
            stream.dispatch(1...200)
            #expect(await eventually { stream.received.count >= 25 })
            let slot = ClusterSlot.of(stream.key)
            let owner = try cluster.owner(ofSlot: slot)
            let target = try #require(cluster.masters.first { $0 !== owner })
            // The second half is dispatched while the slot moves.
            let dispatching = stream.dispatchMeanwhile(201...400)
            try cluster.migrate(slot: slot, to: target)
            await dispatching.value
            #expect(try cluster.owner(ofSlot: slot) === target)
            stream.dispatch(401...total)
            let (lost, duplicated) = await stream.settle(
                total: total, mustArrive: Set(1...total), label: "Cluster slot migration")
            #expect(duplicated == 0, "no event delivered twice")
            // MIGRATE moves the stream whole, with its group and pending entries.
            #expect(lost.isEmpty, "nothing lost: \(lost.sorted())")
            #expect(try cluster.command(on: target, ["XLEN", RedisArgument(stream.key)]).int == total)
        }

        @Test(
            "a busy stream's master is killed mid-stream: its replica takes over, losses are counted, nothing delivered twice"
        )
        func streamThroughFailover() async throws {
            let cluster = try RedisCluster(masters: 3, replicasPerMaster: 1)
            let stream = try await BusyStream(cluster: cluster)
            // 1...200 before the disruption, 201...400 during it, 401...450 after it.
            let total = 450
            stream.dispatch(1...200)
            #expect(await eventually { stream.received.count >= 25 })
            let owner = try cluster.owner(ofSlot: ClusterSlot.of(stream.key))
            let dispatching = stream.dispatchMeanwhile(201...400)
            let promoted = try cluster.killAndFailOver(owner)
            await dispatching.value
            #expect(try cluster.owner(ofSlot: ClusterSlot.of(stream.key)) === promoted)
            stream.dispatch(401...total)
            let (lost, duplicated) = await stream.settle(
                total: total, mustArrive: Set(401...total), label: "Cluster master failover")
            #expect(duplicated == 0, "no event delivered twice")
            // Replication is asynchronous: only what reached the old master before it died may be lost.
            #expect(lost.allSatisfy { $0 <= 400 }, "lost only what the old master held: \(lost.sorted())")
        }
    }
}

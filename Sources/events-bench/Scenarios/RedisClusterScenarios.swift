import Events
import EventsRedis
import Foundation
import RedisServerSupport

// Three carried types, so that a cluster of three masters can hold each one's stream on its own
// shard; a single node holds all three.
private struct ShardPingA: RemoteEvent {
    static let wireName = "bench.shard-ping-a"
    let n: Int
    let body: String
}

private struct ShardPingB: RemoteEvent {
    static let wireName = "bench.shard-ping-b"
    let n: Int
    let body: String
}

private struct ShardPingC: RemoteEvent {
    static let wireName = "bench.shard-ping-c"
    let n: Int
    let body: String
}

private let shardBody = String(repeating: "x", count: 128 - #"{"n":0,"body":""}"#.count)
private let shardNames = [ShardPingA.wireName, ShardPingB.wireName, ShardPingC.wireName]

/// The bridge's stream throughput with three carried types, on one node against a cluster of
/// three masters where each type's stream has a shard of its own; and one type spread over
/// partition streams that cover the three shards.
@MainActor
func redisClusterThroughputScenario(effort: Effort) async -> ScenarioReport {
    var report = ScenarioReport(
        id: "redis-cluster-stream-throughput", title: "Redis Streams throughput, one node against three shards",
        unit: .nanosecondsPerOperation,
        operation: "one 128-byte event of a burst, over three carried types in turn or one type over"
            + " partitions, dispatched to a publishing bridge until a receiving bridge's listener has the last",
        rows: [])
    let nodeName = "RedisBridge .stream, 3 types, one node"
    let clusterName = "RedisBridge .stream, 3 types, a shard each"
    let partitionedName = "RedisBridge .stream, 1 type, partitions on 3 shards"
    guard RedisServer.executable != nil else {
        report.rows = [nodeName, clusterName, partitionedName].enumerated().map { index, name in
            Row(name: name, role: index == 0 ? .baseline : .subject, value: nil, status: "n/a: no redis-server on PATH")
        }
        return report
    }
    let persistence = ["--appendfsync", "everysec", "--auto-aof-rewrite-percentage", "0"]
    let count = effort.isQuick ? 300 : 20_000
    let rounds = effort.isQuick ? 1 : 5
    var node: [Double] = []
    var sharded: [Double] = []
    var partitioned: [Double] = []
    var partitionCount = 3
    do {
        let server = try RedisServer(extraArguments: persistence)
        defer { server.stop() }
        let cluster = try RedisCluster(masters: 3, extraArguments: persistence)
        defer { cluster.nodes.forEach { $0.stop() } }
        var clusterConfiguration = cluster.masters[0].configuration
        clusterConfiguration.cluster = RedisClusterConfiguration(
            nodes: cluster.masters.map { .init(host: "127.0.0.1", port: $0.port) })
        var clusterPrefix = "shard0:"
        for attempt in 0..<500 {
            let prefix = "shard\(attempt):"
            let owners = try shardNames.map { try cluster.owner(ofKey: prefix + $0).port }
            if Set(owners).count == 3 {
                clusterPrefix = prefix
                break
            }
        }
        // A partition's slot comes from its hash tag alone (the prefix does not move it): the
        // fewest partitions whose streams cover all three shards.
        for candidate in 3...64 {
            let keys = (0..<candidate).map { "{\(ShardPingA.wireName):\($0)}" }
            if try Set(keys.map { try cluster.owner(ofKey: $0).port }).count == 3 {
                partitionCount = candidate
                break
            }
        }
        enum Layout: CaseIterable { case node, cluster, partitioned }
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? Layout.allCases : Layout.allCases.reversed()
            for layout in order {
                let path = try await ShardedPath(
                    redis: layout == .node ? server.configuration : clusterConfiguration,
                    prefix: (layout == .node ? "node:" : clusterPrefix) + "\(round):",
                    partitions: layout == .partitioned ? partitionCount : nil)
                _ = await path.burst(count / 10)
                let cost = await path.burst(count)
                await path.close()
                switch layout {
                case .node: node.append(cost)
                case .cluster: sharded.append(cost)
                case .partitioned: partitioned.append(cost)
                }
            }
        }
    } catch {
        report.rows = [nodeName, clusterName, partitionedName].enumerated().map { index, name in
            Row(name: name, role: index == 0 ? .baseline : .subject, value: nil, status: "failed: \(error)")
        }
        return report
    }
    let nodeFigure = median(node)
    let clusterFigure = median(sharded)
    let partitionedFigure = median(partitioned)
    report.rows = [
        Row(
            name: nodeName, role: .baseline, value: nodeFigure, status: Row.measured,
            detail: formatFigure(1e9 / nodeFigure) + " events/s; " + spreadDetail(node)),
        Row(
            name: clusterName, role: .subject, value: clusterFigure, status: Row.measured,
            detail: formatFigure(1e9 / clusterFigure) + " events/s; " + formatRatio(clusterFigure / nodeFigure)
                + " of one node; " + spreadDetail(sharded)),
        Row(
            name: partitionedName, role: .subject, value: partitionedFigure, status: Row.measured,
            detail: formatFigure(1e9 / partitionedFigure) + " events/s over \(partitionCount) partitions; "
                + formatRatio(partitionedFigure / nodeFigure) + " of one node; " + spreadDetail(partitioned)),
    ]
    report.note =
        "All processes share this machine's cores: three shards here show what routing and a reader per"
        + " stream cost, not the capacity that three machines would add."
    return report
}

/// A publishing bridge and a receiving one carrying the three types as streams, or with
/// `partitions`, the first type alone on that many partition streams (keyed by its number).
@MainActor
private final class ShardedPath {
    let sending = EventCenter()
    let receiving = EventCenter()
    let sender: RedisBridge
    let receiver: RedisBridge
    let arrivals = ShardArrivals()
    var listeners: [Subscription] = []
    let isPartitioned: Bool

    init(redis: RedisConfiguration, prefix: String, partitions: Int? = nil) async throws {
        isPartitioned = partitions != nil
        func configuration(_ source: String) -> RedisBridge.Configuration {
            var configuration = RedisBridge.Configuration(redis: redis, source: source)
            configuration.keyPrefix = prefix
            configuration.publishBufferCapacity = 1_000_000
            return configuration
        }
        sender = RedisBridge(center: sending, configuration: configuration("bench/sender"))
        receiver = RedisBridge(center: receiving, configuration: configuration("bench/receiver"))
        for (bridge, direction) in [(receiver, RedisBridge.Direction.incoming), (sender, .outgoing)] {
            if let partitions {
                try bridge.carry(
                    ShardPingA.self, mode: .stream, partitions: partitions, by: { String($0.n % 64) },
                    direction: direction)
            } else {
                try bridge.carry(ShardPingA.self, mode: .stream, direction: direction)
                try bridge.carry(ShardPingB.self, mode: .stream, direction: direction)
                try bridge.carry(ShardPingC.self, mode: .stream, direction: direction)
            }
            try await bridge.start()
        }
        let arrivals = arrivals
        listeners = [
            receiving.listen(to: ShardPingA.self) { _ in arrivals.arrive() },
            receiving.listen(to: ShardPingB.self) { _ in arrivals.arrive() },
            receiving.listen(to: ShardPingC.self) { _ in arrivals.arrive() },
        ]
    }

    /// Dispatches `count` events and returns the wall time per event until the last arrives, in
    /// nanoseconds.
    func burst(_ count: Int) async -> Double {
        let expected = arrivals.count + count
        let clock = ContinuousClock()
        let start = clock.now
        for n in 0..<count {
            if isPartitioned {
                sending.dispatch(ShardPingA(n: n, body: shardBody))
                continue
            }
            switch n % 3 {
            case 0: sending.dispatch(ShardPingA(n: n, body: shardBody))
            case 1: sending.dispatch(ShardPingB(n: n, body: shardBody))
            default: sending.dispatch(ShardPingC(n: n, body: shardBody))
            }
        }
        await arrivals.wait(untilCount: expected)
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
            / Double(count)
    }

    func close() async {
        listeners.forEach { $0.cancel() }
        await sender.stop()
        await receiver.stop()
    }
}

/// Counts arrivals and wakes the measuring task once a given count is reached (one resume per
/// wait, no stream hop per event).
// @unchecked Sendable: `count`, `target` and `waiter` are only read or written with `lock` held,
// and the continuation is resumed after the lock is released.
private final class ShardArrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived = 0
    private var target = Int.max
    private var waiter: CheckedContinuation<Void, Never>?

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return arrived
    }

    func arrive() {
        lock.lock()
        arrived += 1
        guard arrived >= target, let waiter else { return lock.unlock() }
        self.waiter = nil
        lock.unlock()
        waiter.resume()
    }

    func wait(untilCount count: Int) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if arrived >= count {
                lock.unlock()
                continuation.resume()
                return
            }
            target = count
            waiter = continuation
            lock.unlock()
        }
    }
}

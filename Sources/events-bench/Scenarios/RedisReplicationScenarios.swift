import EventsRedis
import Foundation
import RedisServerSupport

/// What waiting for a replica costs a stream publish: a master with one replica of its own (so
/// the shared server's rows are not slowed by replication), the raw client's `XADD`, the
/// bridge, and the bridge with replicated publishing, whose every write ends in `WAIT 1`.
@MainActor
func redisReplicationScenario(effort: Effort) async -> ScenarioReport {
    var report = ScenarioReport(
        id: "redis-stream-replication", title: "Redis Streams throughput with a replica",
        unit: .nanosecondsPerOperation,
        operation: "one 128-byte event of a burst to a master with one replica, until the last arrives"
            + " (baseline: the bridge without waiting for the replica)", rows: [])
    let rawName = "raw client pipelined XADD -> XREADGROUP"
    let bridgeName = "RedisBridge .stream, replication not awaited"
    let waitingName = "RedisBridge .stream, replicatedPublishing(replicas: 1): WAIT in every write"
    guard RedisServer.executable != nil else {
        let reason = "n/a: no redis-server on PATH"
        report.rows = [rawName, bridgeName, waitingName].map {
            Row(name: $0, role: .subject, value: nil, status: reason)
        }
        report.finish(quick: effort.isQuick)
        return report
    }
    do {
        let quick = ["--repl-diskless-sync-delay", "0", "--appendonly", "no", "--save", ""]
        let master = try RedisServer(extraArguments: quick)
        defer { master.stop() }
        let replica = try RedisServer(extraArguments: quick + ["--replicaof", "127.0.0.1", String(master.port)])
        defer { replica.stop() }
        let replicaClient = RedisClient(replica.configuration)
        defer { replicaClient.close() }
        for _ in 0..<200 {
            let info = (try? await replicaClient.send("INFO", "replication"))?.string ?? ""
            if info.contains("master_link_status:up") { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        let redis = BenchRedis(configuration: master.configuration, server: nil)
        let infoClient = RedisClient(master.configuration)
        defer { infoClient.close() }
        let count = effort.isQuick ? 500 : 20_000
        let rounds = effort.isQuick ? 1 : 5
        enum Contender: CaseIterable { case raw, bridge, waiting }
        var costs: [Contender: [BurstCost]] = [:]
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? Contender.allCases : Contender.allCases.reversed()
            for contender in order {
                let path: any RedisPath
                switch contender {
                case .raw: path = try await RawStream(redis, payloads: .cloudEvents(type: BenchStreamPing.wireName))
                case .bridge: path = try await BridgePath(redis, mode: .stream)
                case .waiting:
                    path = try await BridgePath(
                        redis, mode: .stream, replication: RedisBridge.ReplicatedPublishing(replicas: 1))
                }
                _ = await throughput(path, count: count / 10, redis: infoClient)
                costs[contender, default: []].append(await throughput(path, count: count, redis: infoClient))
                await finish(path, on: redis)
            }
        }
        let raw = median(costs[.raw]!.map(\.wall))
        let bridge = median(costs[.bridge]!.map(\.wall))
        let waiting = median(costs[.waiting]!.map(\.wall))
        report.rows = [
            Row(
                name: rawName, role: .subject, value: raw, status: Row.measured,
                detail: formatFigure(1e9 / raw) + " events/s; " + cpuDetail(costs[.raw]!)),
            Row(
                name: bridgeName, role: .baseline, value: bridge, status: Row.measured,
                detail: formatFigure(1e9 / bridge) + " events/s; " + formatRatio(bridge / raw) + " of raw; "
                    + cpuDetail(costs[.bridge]!)),
            Row(
                name: waitingName, role: .subject, value: waiting, status: Row.measured,
                detail: formatFigure(1e9 / waiting) + " events/s; " + formatRatio(waiting / bridge)
                    + " of the bridge without waiting; " + cpuDetail(costs[.waiting]!)),
        ]
    } catch {
        report.rows = [Row(name: rawName, role: .subject, value: nil, status: "failed: \(error)")]
    }
    report.finish(quick: effort.isQuick)
    return report
}

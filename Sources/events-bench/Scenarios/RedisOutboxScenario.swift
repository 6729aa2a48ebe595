import EventsRedis
import Foundation

/// What the durable outbox costs a stream publish: the bridge without one, with one synced
/// every interval (a `write(2)` per event), and with one synced before every dispatch returns
/// (a `write(2)` and an `fsync` per event when one thread publishes alone). The file lives in
/// the system's temporary directory, so the figures are that disk's.
@MainActor
func redisOutboxScenario(effort: Effort) async -> ScenarioReport {
    var report = ScenarioReport(
        id: "redis-stream-outbox", title: "Redis Streams throughput with a durable outbox",
        unit: .nanosecondsPerOperation,
        operation: "one 128-byte event of a burst dispatched on one thread, until the last arrives"
            + " (baseline: the bridge without an outbox)", rows: [])
    let plainName = "RedisBridge .stream, no outbox"
    let intervalName = "RedisBridge .stream, outbox synced every 100 ms"
    let everyName = "RedisBridge .stream, outbox synced before each dispatch returns"
    let redis: BenchRedis
    switch BenchRedis.obtain() {
    case .success(let shared): redis = shared
    case .failure(let skip):
        report.rows = [plainName, intervalName, everyName].map {
            Row(name: $0, role: .subject, value: nil, status: skip.reason)
        }
        report.finish(quick: effort.isQuick)
        return report
    }
    do {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("events-bench-outbox-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let infoClient = RedisClient(redis.configuration)
        defer { infoClient.close() }
        let count = effort.isQuick ? 300 : 5_000
        let rounds = effort.isQuick ? 1 : 5
        enum Contender: CaseIterable { case plain, interval, every }
        var costs: [Contender: [BurstCost]] = [:]
        var files = 0
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? Contender.allCases : Contender.allCases.reversed()
            for contender in order {
                files += 1
                let path = directory.appendingPathComponent("\(files).outbox").path
                let outbox: RedisBridge.Outbox? =
                    switch contender {
                    case .plain: nil
                    case .interval: RedisBridge.Outbox(path: path, sync: .interval(.milliseconds(100)))
                    case .every: RedisBridge.Outbox(path: path, sync: .everyEvent)
                    }
                let bridge = try await BridgePath(redis, mode: .stream, outbox: outbox)
                _ = await throughput(bridge, count: count / 10, redis: infoClient)
                costs[contender, default: []].append(await throughput(bridge, count: count, redis: infoClient))
                await finish(bridge, on: redis)
            }
        }
        let plain = median(costs[.plain]!.map(\.wall))
        func row(_ name: String, _ contender: Contender) -> Row {
            let value = median(costs[contender]!.map(\.wall))
            return Row(
                name: name, role: .subject, value: value, status: Row.measured,
                detail: formatFigure(1e9 / value) + " events/s; " + formatRatio(value / plain)
                    + " of the bridge without an outbox; " + cpuDetail(costs[contender]!))
        }
        report.rows = [
            Row(
                name: plainName, role: .baseline, value: plain, status: Row.measured,
                detail: formatFigure(1e9 / plain) + " events/s; " + cpuDetail(costs[.plain]!)),
            row(intervalName, .interval), row(everyName, .every),
        ]
    } catch {
        report.rows = [Row(name: plainName, role: .subject, value: nil, status: "failed: \(error)")]
    }
    report.finish(quick: effort.isQuick)
    return report
}

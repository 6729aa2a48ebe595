import EventsRedis
import EventsRedisTLS
import Foundation
import RedisServerSupport

/// The throughput rows over TLS beside the same rows in plaintext: two servers started alike,
/// one listening with TLS only (a throwaway authority, mutual TLS), the raw client and the
/// bridge on each.
@MainActor
func redisTLSScenario(mode: RedisBridge.Mode, effort: Effort) async -> ScenarioReport {
    let name = mode == .pubSub ? "Pub/Sub" : "Streams"
    var report = ScenarioReport(
        id: mode == .pubSub ? "redis-pubsub-tls" : "redis-stream-tls", title: "Redis \(name) throughput over TLS",
        unit: .nanosecondsPerOperation,
        operation: "one 128-byte event of a burst, until the last arrives, in plaintext and over TLS 1.3"
            + " (baseline: the raw client in plaintext)", rows: [])
    let raw = mode == .pubSub ? "raw client pipelined PUBLISH -> subscriber" : "raw client pipelined XADD -> XREADGROUP"
    let names = [raw, raw + " over TLS", "RedisBridge, plaintext", "RedisBridge over TLS"]
    guard RedisServer.executable != nil, TLSCertificates.isAvailable() else {
        let reason = "n/a: " + TLSCertificates.skipReason
        report.rows = names.map { Row(name: $0, role: .subject, value: nil, status: reason) }
        report.finish(quick: effort.isQuick)
        return report
    }
    do {
        let arguments = ["--appendfsync", "everysec", "--auto-aof-rewrite-percentage", "0"]
        let plainServer = try RedisServer(extraArguments: arguments)
        defer { plainServer.stop() }
        let tlsServer = try RedisServer(
            tls: .init(certificates: try TLSCertificates.shared(), requiresClientCertificates: true),
            extraArguments: arguments)
        defer { tlsServer.stop() }
        let plain = BenchRedis(configuration: plainServer.configuration, server: nil)
        let secure = BenchRedis(configuration: tlsServer.configuration, server: nil)
        let plainInfo = RedisClient(plainServer.configuration)
        defer { plainInfo.close() }
        let secureInfo = RedisClient(tlsServer.configuration)
        defer { secureInfo.close() }
        let count = effort.isQuick ? 500 : 20_000
        let rounds = effort.isQuick ? 1 : 5
        var costs: [[BurstCost]] = Array(repeating: [], count: names.count)
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? Array(names.indices) : names.indices.reversed()
            for index in order {
                let redis = index.isMultiple(of: 2) ? plain : secure
                let info = index.isMultiple(of: 2) ? plainInfo : secureInfo
                let path: any RedisPath
                switch (index < 2, mode) {
                case (true, .pubSub):
                    path = try await RawPubSub(redis, payloads: .cloudEvents(type: BenchPing.wireName))
                case (true, .stream):
                    path = try await RawStream(redis, payloads: .cloudEvents(type: BenchStreamPing.wireName))
                case (false, _): path = try await BridgePath(redis, mode: mode)
                }
                _ = await throughput(path, count: count / 10, redis: info)
                costs[index].append(await throughput(path, count: count, redis: info))
                await finish(path, on: redis)
            }
        }
        let figures = costs.map { median($0.map(\.wall)) }
        report.rows = names.indices.map { index in
            var detail = formatFigure(1e9 / figures[index]) + " events/s; "
            switch index {
            case 1: detail += formatRatio(figures[1] / figures[0]) + " of plaintext; "
            case 2: detail += formatRatio(figures[2] / figures[0]) + " of raw; "
            case 3:
                detail +=
                    formatRatio(figures[3] / figures[2]) + " of the plaintext bridge, "
                    + formatRatio(figures[3] / figures[1]) + " of raw over TLS; "
            default: break
            }
            return Row(
                name: names[index], role: index == 0 ? .baseline : .subject, value: figures[index],
                status: Row.measured, detail: detail + cpuDetail(costs[index]))
        }
    } catch {
        report.rows = [Row(name: names[0], role: .subject, value: nil, status: "failed: \(error)")]
    }
    report.finish(quick: effort.isQuick)
    return report
}

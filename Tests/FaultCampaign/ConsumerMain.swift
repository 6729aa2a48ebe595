import Events
import EventsRedis
import Foundation
import RedisTestSupport

/// The consumer mode of the campaign executable:
///
///     events-fault-campaign consumer --redis SPEC --group G --name N --file F --seed S
///
/// It carries ``CampaignOrder`` (incoming, on its partitions, in group G as consumer N) and
/// ``CampaignTick`` (Pub/Sub), fails deliveries as ``CampaignRules`` says, and appends one
/// line per record to F, each written straight to the descriptor so that a SIGKILL loses no
/// line of a delivery made before it:
///
///     ready
///     delivery <key> <seq> <delivery count> ok|fail
///     tick <seq>
///     error <description on one line>
///     stats delivered=<n> deadLettered=<n>     after "stop" on standard input
package enum ConsumerMain {
    package static func run(_ arguments: [String]) async -> Int32 {
        var options: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            options[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let spec = options["--redis"], let redis = Deployment.configuration(spec: spec),
            let group = options["--group"], let name = options["--name"], let path = options["--file"],
            let seed = options["--seed"].flatMap({ UInt64($0) }), let log = LineFile(path: path)
        else {
            FileHandle.standardError.write(
                Data("usage: consumer --redis SPEC --group G --name N --file F --seed S\n".utf8))
            return 2
        }
        // Bounded in time whatever the driver does.
        DispatchQueue.global().asyncAfter(deadline: .now() + 600) { exit(3) }

        var configuration = RedisBridge.Configuration(redis: redis, source: "campaign-\(group)-\(name)")
        configuration.keyPrefix = CampaignRules.keyPrefix
        configuration.consumerGroup = group
        configuration.consumerName = name
        configuration.readBlock = .milliseconds(100)
        configuration.readBatchSize = 16
        configuration.claimInterval = .milliseconds(300)
        configuration.claimMinimumIdle = .milliseconds(1500)
        configuration.healthCheckInterval = .seconds(1)
        configuration.failurePolicy = .retry(
            maxDeliveries: CampaignRules.maxDeliveries, backoff: .constant(.milliseconds(200)))
        configuration.errorHandler = { error in
            log.write("error " + "\(error)".replacingOccurrences(of: "\n", with: " "))
        }
        let center = EventCenter()
        center.errorHandler = { _ in }  // a failing listener is the point here
        let bridge = RedisBridge(center: center, configuration: configuration)
        let orders = center.listen(to: Sent<CampaignOrder>.self) { sent in
            let count = sent.sender?.object(as: RemoteOrigin.self)?.deliveryCount ?? 0
            let fails = CampaignRules.fails(sent.event, deliveryCount: count, seed: seed)
            log.write("delivery \(sent.event.key) \(sent.event.seq) \(count) \(fails ? "fail" : "ok")")
            if fails { throw ListenerFailed() }
        }
        let ticks = center.listen(to: CampaignTick.self) { tick in log.write("tick \(tick.seq)") }
        do {
            try CampaignRules.carry(on: bridge, direction: .incoming)
            try await bridge.start()
        } catch {
            log.write("error start: \(error)")
            return 1
        }
        log.write("ready")
        await waitForStopOnStandardInput()
        await bridge.stop()
        let statistics = bridge.statistics
        log.write("stats delivered=\(statistics.delivered) deadLettered=\(statistics.deadLettered)")
        withExtendedLifetime((orders, ticks)) {}
        return 0
    }

    struct ListenerFailed: Error {}
}

import Events
import EventsRedis
import Foundation
import RedisTestSupport
import Synchronization

/// The publisher mode of the campaign executable, one life of the run's publisher:
///
///     events-fault-campaign publisher --redis SPEC --seed S --outbox PATH --file F
///                                     --from-step N --for-ms M
///
/// It carries ``CampaignOrder`` (outgoing, on its partitions) and ``CampaignTick`` (Pub/Sub)
/// with a durable outbox at PATH, the same file for every life, so that a life the nemesis
/// kills leaves what Redis had not acknowledged to the next, which publishes it again under
/// the same ids. It dispatches the steps of ``CampaignWorkload`` from step N on for M
/// milliseconds, and appends one line per record to F, each written straight to the
/// descriptor so that a SIGKILL loses no line written before it:
///
///     ready republished=<n>       once the bridge has started
///     order <key> <seq>           before dispatching an order (it was attempted)
///     sent <key> <seq>            once that dispatch returned: the order is in the outbox
///     refused <key> <seq>         instead, when the bridge reported it did not keep the order
///     tick <seq>                  before dispatching a tick
///     error <code> <description>  per error the bridge reports, on one line
///     done <steps>                at the end of the window: the steps of every life so far
///
/// Then it reads standard input: `flush` waits for Redis to acknowledge everything and writes
/// `flushed ok|timeout`; `stop` (or the end of the input) stops the bridge and exits 0.
package enum PublisherMain {
    package static func run(_ arguments: [String]) async -> Int32 {
        var options: [String: String] = [:]
        var index = 0
        while index + 1 < arguments.count {
            options[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let spec = options["--redis"], let redis = Deployment.configuration(spec: spec),
            let seed = options["--seed"].flatMap({ UInt64($0) }), let outbox = options["--outbox"],
            let fromStep = options["--from-step"].flatMap({ Int($0) }),
            let window = options["--for-ms"].flatMap({ Int($0) }), let path = options["--file"],
            let log = LineFile(path: path)
        else {
            FileHandle.standardError.write(
                Data("usage: publisher --redis SPEC --seed S --outbox PATH --file F --from-step N --for-ms M\n".utf8))
            return 2
        }
        // Bounded in time whatever the driver does.
        DispatchQueue.global().asyncAfter(deadline: .now() + 600) { exit(3) }
        let commands = standardInputLines()

        var configuration = RedisBridge.Configuration(redis: redis, source: "campaign-publisher")
        configuration.keyPrefix = CampaignRules.keyPrefix
        configuration.outbox = RedisBridge.Outbox(path: outbox, sync: .everyEvent)
        if spec.hasPrefix("sentinel:") {
            // Acknowledged only once a replica has it, so that a failover loses nothing the
            // outbox has let go of.
            configuration.replicatedPublishing = .init(replicas: 1, timeout: .milliseconds(500))
        }
        let refusals = Refusals()
        configuration.errorHandler = { error in
            // A refusal is reported on the dispatching thread, before `dispatch` returns: the
            // count tells the dispatch loop that the event it just dispatched is not kept.
            if Refusals.codes.contains(error.code) { refusals.count.add(1, ordering: .relaxed) }
            log.write("error \(error.code) " + "\(error)".replacingOccurrences(of: "\n", with: " "))
        }
        let center = EventCenter()
        let bridge = RedisBridge(center: center, configuration: configuration)
        do {
            try CampaignRules.carry(on: bridge, direction: .outgoing)
            try await start(bridge, log: log, within: .seconds(30))
        } catch {
            log.write("error start: " + "\(error)".replacingOccurrences(of: "\n", with: " "))
            return 1
        }
        log.write("ready republished=\(bridge.statistics.republishedFromOutbox)")

        // On a thread of its own: with `.everyEvent`, each dispatch waits for the disk.
        let end = ContinuousClock.now + .milliseconds(window)
        let steps = await blocking {
            dispatch(on: center, seed: seed, from: fromStep, until: end, refusals: refusals, log: log)
        }
        log.write("done \(steps)")

        for await command in commands {
            if command == "stop" { break }
            if command == "flush" {
                let flushed = await bridge.flush(timeout: .seconds(30))
                log.write("flushed \(flushed ? "ok" : "timeout")")
            }
        }
        await bridge.stop()
        return 0
    }

    /// Starts `bridge`, again and again while it fails to (Redis down at a restart, a failover
    /// under way), until `timeout`: a supervisor would do the same.
    private static func start(_ bridge: RedisBridge, log: LineFile, within timeout: Duration)
        async throws(RedisBridgeError)
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                try await bridge.start()
                return
            } catch {
                guard error.code == .startFailed, ContinuousClock.now < deadline else { throw error }
                log.write("error start: " + "\(error)".replacingOccurrences(of: "\n", with: " "))
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Dispatches the workload's steps from `first` until `end`, pausing after each round;
    /// returns the index of the next step.
    private static func dispatch(
        on center: EventCenter, seed: UInt64, from first: Int, until end: ContinuousClock.Instant,
        refusals: Refusals, log: LineFile
    ) -> Int {
        var workload = CampaignWorkload(seed: seed)
        workload.skip(first)
        while ContinuousClock.now < end, let step = workload.next() {
            switch step {
            case .order(let order):
                log.write("order \(order.key) \(order.seq)")
                let before = refusals.count.load(ordering: .relaxed)
                center.dispatch(order)
                let refused = refusals.count.load(ordering: .relaxed) != before
                log.write("\(refused ? "refused" : "sent") \(order.key) \(order.seq)")
            case .tick(let seq):
                log.write("tick \(seq)")
                center.dispatch(CampaignTick(seq: seq))
            }
            if workload.index % CampaignWorkload.stepsPerRound == 0 { Thread.sleep(forTimeInterval: 0.04) }
        }
        return workload.index
    }

    /// The lines of standard input, read on a thread of its own so that no thread of the
    /// concurrency pool blocks; the stream ends with the input (the driver went away).
    private static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            Thread.detachNewThread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
        }
    }
}

/// How many events the bridge refused at their dispatch (and so did not keep in the outbox).
final class Refusals: Sendable {
    static let codes: Set<RedisBridgeError.Code> = [
        .publishBufferFull, .outboxFull, .outboxUnavailable, .cannotEncode, .stoppedWithUnpublishedEvents,
    ]
    let count = Atomic<Int>(0)
}

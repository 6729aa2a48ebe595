import Events
import EventsRedis
import Foundation
import Synchronization

/// The publishing process of a run (the driver itself): it dispatches orders of random keys
/// and Pub/Sub ticks, and flushes now and then; a flush that returns true confirms every
/// event dispatched before it.
final class Publisher: @unchecked Sendable {
    // @unchecked: `lock` guards every var.

    private let center = EventCenter()
    private let bridge: RedisBridge
    private let seed: UInt64
    private let lock = NSLock()
    private var dispatched: [CampaignOrder] = []
    private var confirmedCount = 0
    private var ticks = 0
    private let errors = ErrorCount()
    private let pubSubLosses = ErrorCount()

    init(topology: Topology, spec: String, seed: UInt64) {
        self.seed = seed
        var configuration = RedisBridge.Configuration(
            redis: Deployment.configuration(spec: spec)!, source: "campaign-publisher")
        configuration.keyPrefix = CampaignRules.keyPrefix
        if topology == .sentinel {
            // Acknowledged only once a replica has it, so that a failover loses nothing confirmed.
            configuration.replicatedPublishing = .init(replicas: 1, timeout: .milliseconds(500))
        }
        let errors = errors
        let pubSubLosses = pubSubLosses
        configuration.errorHandler = { error in
            errors.count.add(1, ordering: .relaxed)
            if error.code == .pubSubEventLost { pubSubLosses.count.add(1, ordering: .relaxed) }
        }
        bridge = RedisBridge(center: center, configuration: configuration)
    }

    func start() async throws {
        try CampaignRules.carry(on: bridge, direction: .outgoing)
        try await bridge.start()
    }

    /// Dispatches about 100 orders and 25 ticks a second until `deadline`.
    func dispatch(until deadline: ContinuousClock.Instant) async {
        var random = SeededRandom(seed: seed ^ 0x5EED)
        var next: [String: Int] = [:]
        var round = 0
        while ContinuousClock.now < deadline {
            round += 1
            for _ in 0..<4 {
                let key = CampaignRules.keys.randomElement(using: &random)!
                next[key, default: 0] += 1
                let order = CampaignOrder(key: key, seq: next[key]!)
                lock.withLock { dispatched.append(order) }
                center.dispatch(order)
            }
            let tick = lock.withLock {
                ticks += 1
                return ticks
            }
            center.dispatch(CampaignTick(seq: tick))
            if round % 5 == 0 {
                let upTo = lock.withLock { dispatched.count }
                if await bridge.flush(timeout: .milliseconds(500)) {
                    lock.withLock { confirmedCount = max(confirmedCount, upTo) }
                }
            }
            try? await Task.sleep(for: .milliseconds(40))
        }
    }

    /// Waits for Redis to acknowledge everything dispatched, once the faults are over.
    func confirmEverything(within timeout: Duration) async {
        let upTo = lock.withLock { dispatched.count }
        if await bridge.flush(timeout: timeout) {
            lock.withLock { confirmedCount = max(confirmedCount, upTo) }
        }
    }

    func deadLetters() async throws -> [History.DeadLetter] {
        try await bridge.deadLetters(of: CampaignOrder.self, limit: 1_000_000).compactMap { letter in
            guard let order = FinalState.order(inEventJSON: letter.event) else { return nil }
            return History.DeadLetter(group: letter.group, order: order, deliveries: letter.deliveries)
        }
    }

    var errorsReported: Int { errors.count.load(ordering: .relaxed) }

    func record(into history: inout History) {
        lock.withLock {
            history.dispatched = dispatched
            history.confirmed = Set(dispatched.prefix(confirmedCount))
            history.ticksDispatched = ticks
            history.pubSubLossesReported = pubSubLosses.count.load(ordering: .relaxed)
        }
    }

    func stop() async {
        await bridge.stop()
    }
}

final class ErrorCount: Sendable {
    let count = Atomic<Int>(0)
}

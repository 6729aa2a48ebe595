import EventsRedis

/// The stream event of the campaign: the `seq`-th event of `key`, published by one process,
/// so that `key` and `seq` name it in every record of a run.
package struct CampaignOrder: RemoteEvent, Hashable {
    package static let wireName = "com.example.campaign.order"
    package let key: String
    package let seq: Int

    package init(key: String, seq: Int) {
        self.key = key
        self.seq = seq
    }

    /// How the checker names it.
    package var name: String { "\(key)#\(seq)" }
}

/// The Pub/Sub event of the campaign: the `seq`-th tick of the publisher.
package struct CampaignTick: RemoteEvent, Hashable {
    package static let wireName = "com.example.campaign.tick"
    package let seq: Int

    package init(seq: Int) {
        self.seq = seq
    }
}

/// What every process of a run agrees on: key prefix, partitions, failure policy, and which
/// deliveries fail.
package enum CampaignRules {
    package static let keyPrefix = "campaign:"
    package static let partitions = 4
    package static let maxDeliveries = 3
    package static let keys = (0..<8).map { "customer-\($0)" }
    /// One event in this many always fails: it must end as a dead letter.
    package static let poisonOneIn: UInt64 = 50
    /// Otherwise a delivery fails with this chance in a thousand.
    package static let failurePerMille: UInt64 = 100

    /// Whether the listener fails the `deliveryCount`-th delivery of `order` in a run of `seed`.
    package static func fails(_ order: CampaignOrder, deliveryCount: Int, seed: UInt64) -> Bool {
        if isPoison(order, seed: seed) { return true }
        let draw = SeededRandom.hash(seed: seed, [order.key.stableHash, UInt64(order.seq), UInt64(deliveryCount)])
        return draw % 1000 < failurePerMille
    }

    /// Whether every delivery of `order` fails.
    package static func isPoison(_ order: CampaignOrder, seed: UInt64) -> Bool {
        SeededRandom.hash(seed: seed &+ 1, [order.key.stableHash, UInt64(order.seq)]) % poisonOneIn == 0
    }

    /// The partition streams of ``CampaignOrder``, as the bridge names them.
    package static var streamKeys: [String] {
        (0..<partitions).map { "\(keyPrefix){\(CampaignOrder.wireName):\($0)}" }
    }
}

extension CampaignRules {
    /// Carries both events on `bridge` in `direction`, as every process of a run must, with the
    /// same partitions: the orders on their partitions by key, the ticks on Pub/Sub.
    static func carry(on bridge: RedisBridge, direction: RedisBridge.Direction) throws(RedisBridgeError) {
        try bridge.carry(
            CampaignOrder.self, mode: .stream, partitions: partitions, by: { $0.key }, direction: direction)
        try bridge.carry(CampaignTick.self, mode: .pubSub, direction: direction)
    }
}

/// Everything a run recorded, read by ``Checker`` once the run is over.
package struct History: Sendable {
    /// One call of a consumer's listener.
    package struct Delivery: Sendable, Hashable {
        /// The consumer process's life: group, consumer name and incarnation, `a/a1#2`.
        package var life: String
        package var group: String
        package var order: CampaignOrder
        /// What Redis counted (`RemoteOrigin.deliveryCount`).
        package var deliveryCount: Int
        package var succeeded: Bool

        package init(life: String, group: String, order: CampaignOrder, deliveryCount: Int, succeeded: Bool) {
            self.life = life
            self.group = group
            self.order = order
            self.deliveryCount = deliveryCount
            self.succeeded = succeeded
        }
    }

    /// A Pub/Sub tick a consumer heard.
    package struct TickArrival: Sendable, Hashable {
        package var life: String
        package var seq: Int

        package init(life: String, seq: Int) {
            self.life = life
            self.seq = seq
        }
    }

    /// A dead letter Redis holds at the end.
    package struct DeadLetter: Sendable, Hashable {
        package var group: String
        package var order: CampaignOrder
        package var deliveries: Int

        package init(group: String, order: CampaignOrder, deliveries: Int) {
            self.group = group
            self.order = order
            self.deliveries = deliveries
        }
    }

    /// A consumer life: how it ended, and, when it stopped cleanly, its statistics.
    package struct Life: Sendable, Hashable {
        package var life: String
        package var group: String
        /// `nil` for a life that was killed (its statistics died with it).
        package var statistics: Statistics?
        /// Errors it reported: a failed acknowledgement is among them, when there was one.
        package var redisErrors: Int

        package init(life: String, group: String, statistics: Statistics?, redisErrors: Int) {
            self.life = life
            self.group = group
            self.statistics = statistics
            self.redisErrors = redisErrors
        }

        package struct Statistics: Sendable, Hashable {
            package var delivered: Int
            package var deadLettered: Int

            package init(delivered: Int, deadLettered: Int) {
                self.delivered = delivered
                self.deadLettered = deadLettered
            }
        }
    }

    package var seed: UInt64
    package var topology: Topology
    /// Every stream event dispatched, in dispatch order.
    package var dispatched: [CampaignOrder] = []
    /// The stream events a flush confirmed Redis had acknowledged.
    package var confirmed: Set<CampaignOrder> = []
    package var ticksDispatched = 0
    /// In the order each consumer wrote them.
    package var deliveries: [Delivery] = []
    package var ticks: [TickArrival] = []
    package var deadLetters: [DeadLetter] = []
    package var lives: [Life] = []
    /// How many entries of each event the streams hold at the end.
    package var finalStreams: [CampaignOrder: Int] = [:]
    package var groups: [String] = []
    /// What the nemesis did, in order, as one line each.
    package var faults: [String] = []
    /// Whether a master's role moved to a replica during the run (a failover asked for, a
    /// killed master whose replica was promoted, or one Sentinel started when the network hid
    /// the master).
    package var failedOver = false
    /// Pub/Sub events the publisher reported as possibly not published (a connection that
    /// failed before Redis answered): such a publish can still reach Redis, late.
    package var pubSubLossesReported = 0

    package init(seed: UInt64, topology: Topology) {
        self.seed = seed
        self.topology = topology
    }
}

/// The Redis deployments a run can use.
package enum Topology: String, Sendable, CaseIterable, CustomStringConvertible {
    /// One server.
    case single
    /// A master, a replica and a sentinel.
    case sentinel
    /// Three masters, each with a replica.
    case cluster

    package var description: String { rawValue }
}

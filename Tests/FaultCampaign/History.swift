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

    /// A life of the publisher process: where it took the workload up and how far it got.
    package struct PublisherLife: Sendable, Hashable {
        /// `publisher#2` for the second.
        package var life: String
        /// How many workload steps the lives before it attempted.
        package var fromStep: Int
        /// Orders and ticks it began to dispatch.
        package var attempted = 0
        /// Orders whose dispatch returned, and so were in the outbox.
        package var sent = 0
        /// Events the outbox held from earlier lives when it started, published again.
        package var republished = 0
        /// Whether it lived to the end of its dispatch window (the nemesis did not kill it first).
        package var finishedWindow = false

        package init(life: String, fromStep: Int) {
            self.life = life
            self.fromStep = fromStep
        }
    }

    package var seed: UInt64
    package var topology: Topology
    /// Every stream event the publisher attempted, across its lives, in dispatch order: a
    /// life killed during a dispatch may or may not have left that event in Redis.
    package var dispatched: [CampaignOrder] = []
    /// The stream events whose dispatch returned: they were in the publisher's outbox, so a
    /// later life publishes them again if Redis had not acknowledged them, and none may be lost.
    package var confirmed: Set<CampaignOrder> = []
    /// Which publisher life attempted each stream event (to show beside a violation).
    package var attemptedBy: [CampaignOrder: String] = [:]
    /// Ticks the publisher attempted: they are numbered 1 to this, across its lives.
    package var ticksDispatched = 0
    /// In the order they lived.
    package var publisherLives: [PublisherLife] = []
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

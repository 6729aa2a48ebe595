/// The faults the nemesis can play.
package enum FaultKind: String, Sendable, CaseIterable, Comparable {
    case killRedis = "kill Redis"
    case failover = "failover"
    case migrateSlot = "migrate a slot"
    case killConsumer = "kill a consumer"
    case pauseConsumer = "pause a consumer"
    case killPublisher = "kill the publisher"
    case stall = "stall the network"
    case slow = "slow the network"
    case blackHole = "black-hole the network"
    case reset = "reset connections"

    package static func < (a: FaultKind, b: FaultKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The faults that mean something on `topology`.
    package static func available(on topology: Topology) -> [FaultKind] {
        switch topology {
        case .single: allCases.filter { $0 != .failover && $0 != .migrateSlot }
        case .sentinel: allCases.filter { $0 != .migrateSlot }
        case .cluster: allCases
        }
    }
}

/// The faults of one run and when they come, drawn from its seed alone.
package struct Schedule: Sendable, CustomStringConvertible {
    package struct Step: Sendable {
        /// How long the nemesis waits after the last fault ended.
        package var after: Duration
        package var kind: FaultKind
        /// How long the fault lasts, where it lasts.
        package var duration: Duration
        /// Which node or consumer it hits, modulo their number.
        package var target: Int
    }

    package let seed: UInt64
    package let steps: [Step]

    /// Faults over about `length`, one every 0.3 to 1.5 s of quiet.
    package init(seed: UInt64, topology: Topology, length: Duration) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let kinds = FaultKind.available(on: topology)
        var steps: [Step] = []
        var planned = Duration.zero
        while planned < length {
            let after = Duration.milliseconds(Int.random(in: 300...1500, using: &random))
            let kind = kinds.randomElement(using: &random)!
            let duration = Duration.milliseconds(Int.random(in: 200...2500, using: &random))
            steps.append(
                Step(after: after, kind: kind, duration: duration, target: Int.random(in: 0..<64, using: &random)))
            planned += after + duration
        }
        self.steps = steps
    }

    package var description: String {
        steps.map { "+\($0.after) \($0.kind.rawValue) (\($0.duration), target \($0.target))" }.joined(separator: "; ")
    }
}

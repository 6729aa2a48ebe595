/// What the publisher dispatches, step by step: a function of the seed alone, so that a
/// publisher life started after a kill can regenerate the steps its earlier lives attempted,
/// skip them, and go on with the same sequence (each key's `seq` continuing where it was).
///
/// Every fifth step is a Pub/Sub tick with the next tick number; the others are orders of a
/// key drawn from the seed, with that key's next `seq`.
package struct CampaignWorkload: Sequence, IteratorProtocol, Sendable {
    package enum Step: Sendable, Hashable {
        case order(CampaignOrder)
        case tick(Int)
    }

    /// How many steps a round holds; the publisher pauses after each round.
    package static let stepsPerRound = 5

    private var random: SeededRandom
    private var nextSeq: [String: Int] = [:]
    private var ticks = 0
    /// The index of the step `next()` returns.
    package private(set) var index = 0

    package init(seed: UInt64) {
        random = SeededRandom(seed: seed ^ 0x5EED)
    }

    package mutating func next() -> Step? {
        defer { index += 1 }
        if index % Self.stepsPerRound == Self.stepsPerRound - 1 {
            ticks += 1
            return .tick(ticks)
        }
        let key = CampaignRules.keys.randomElement(using: &random)!
        nextSeq[key, default: 0] += 1
        return .order(CampaignOrder(key: key, seq: nextSeq[key]!))
    }

    /// Passes over the first `count` steps, drawing what they drew, so that the next step is
    /// the one a single life would have dispatched after them.
    package mutating func skip(_ count: Int) {
        while index < count { _ = next() }
    }
}

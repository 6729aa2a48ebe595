import FaultCampaign
import Testing

/// The checker must find each kind of broken promise in a history made to break it, and
/// nothing in one that keeps them all: a campaign whose checker cannot fail proves nothing.
@Suite("Fault campaign checker")
struct CheckerTests {
    static let a1 = "a/a1#1"
    static let b1 = "b/b1#1"
    static let orders = (1...3).map { CampaignOrder(key: "k", seq: $0) }

    /// Three orders of one key, confirmed, each delivered once in groups a and b; one tick
    /// heard by each consumer; every life stopped cleanly with matching statistics (which
    /// count ticks and stream deliveries alike).
    static func keptHistory(topology: Topology = .single) -> History {
        var history = History(seed: 7, topology: topology)
        history.groups = ["a", "b"]
        history.dispatched = orders
        history.confirmed = Set(orders)
        history.ticksDispatched = 1
        for order in orders {
            history.finalStreams[order] = 1
            history.deliveries.append(.init(life: a1, group: "a", order: order, deliveryCount: 1, succeeded: true))
            history.deliveries.append(.init(life: b1, group: "b", order: order, deliveryCount: 1, succeeded: true))
        }
        history.ticks = [.init(life: a1, seq: 1), .init(life: b1, seq: 1)]
        history.lives = [
            .init(life: a1, group: "a", statistics: .init(delivered: 4, deadLettered: 0), redisErrors: 0),
            .init(life: b1, group: "b", statistics: .init(delivered: 4, deadLettered: 0), redisErrors: 0),
        ]
        return history
    }

    @Test("a history that keeps every promise has no violation")
    func keptPromises() {
        #expect(Checker.check(Self.keptHistory()).isEmpty)
    }

    struct Breakage: Sendable, CustomTestStringConvertible {
        let name: String
        let rule: Checker.Rule
        let change: @Sendable (inout History) -> Void
        var testDescription: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(name: "a confirmed order missing from the streams", rule: .lost) { history in
            history.finalStreams[orders[1]] = nil
            history.deliveries.removeAll { $0.order == orders[1] }
        },
        Breakage(name: "a delivery of an order never dispatched", rule: .phantom) { history in
            history.deliveries.append(
                .init(life: a1, group: "a", order: CampaignOrder(key: "k", seq: 9), deliveryCount: 1, succeeded: true))
        },
        Breakage(name: "an order group b never settled", rule: .unsettled) { history in
            history.deliveries.removeAll { $0.group == "b" && $0.order == orders[2] }
        },
        Breakage(name: "an order delivered twice in one life", rule: .duplicateInLife) { history in
            history.deliveries.append(
                .init(life: a1, group: "a", order: orders[0], deliveryCount: 2, succeeded: true))
        },
        Breakage(name: "first deliveries of a key out of order", rule: .outOfOrder) { history in
            history.deliveries.swapAt(0, 2)  // a1 hears k#2 before k#1
        },
        Breakage(name: "a dead letter after fewer deliveries than the maximum", rule: .deadLetterTooEarly) {
            history in
            history.deliveries.removeAll { $0.group == "a" && $0.order == orders[0] }
            history.deadLetters.append(.init(group: "a", order: orders[0], deliveries: 1))
        },
        Breakage(name: "one order dead-lettered twice", rule: .duplicateDeadLetter) { history in
            history.deadLetters += [
                .init(group: "a", order: orders[0], deliveries: 3), .init(group: "a", order: orders[0], deliveries: 3),
            ]
        },
        Breakage(name: "dead letters Redis holds that no life counted", rule: .statistics) { history in
            history.deadLetters.append(.init(group: "b", order: orders[0], deliveries: 3))
        },
        Breakage(name: "a life counting deliveries its listener never heard", rule: .statistics) { history in
            history.lives[0].statistics?.delivered += 2
        },
        Breakage(name: "a tick never sent", rule: .pubSubPhantom) { history in
            history.ticks.append(.init(life: a1, seq: 2))
        },
        Breakage(name: "a tick heard twice", rule: .pubSubDuplicate) { history in
            history.ticks.append(.init(life: a1, seq: 1))
        },
        Breakage(name: "ticks out of order", rule: .pubSubOutOfOrder) { history in
            history.ticksDispatched = 2
            history.ticks = [.init(life: a1, seq: 2), .init(life: a1, seq: 1)]
        },
    ]

    @Test("each broken promise is found, by its rule", arguments: breakages)
    func brokenPromiseIsFound(_ breakage: Breakage) {
        var history = Self.keptHistory()
        breakage.change(&history)
        // Only the statistics breakages leave the counts wrong on purpose.
        if breakage.rule != .statistics { history.recountStatistics() }
        let violations = Checker.check(history)
        #expect(violations.map(\.rule) == [breakage.rule], "\(violations)")
    }

    @Test("a violation shows the records of its event, to read without the rest of the history")
    func violationShowsItsWindow() throws {
        var history = Self.keptHistory()
        history.finalStreams[Self.orders[1]] = nil
        let violation = try #require(Checker.check(history).first { $0.rule == .lost })
        #expect(violation.message == "k#2")
        #expect(violation.window.contains("a/a1#1: k#2 delivery 1 succeeded"))
        #expect(violation.window.allSatisfy { !$0.contains("k#1") && !$0.contains("k#3") })
    }

    @Test("a second dead letter is excused only where it can happen: a cluster after a failed acknowledgement")
    func duplicateDeadLetterOnACluster() {
        for (topology, errors, expected) in [(Topology.cluster, 1, 0), (.cluster, 0, 1), (.single, 1, 1)] {
            var history = Self.keptHistory(topology: topology)
            history.deadLetters += [
                .init(group: "a", order: Self.orders[0], deliveries: 3),
                .init(group: "a", order: Self.orders[0], deliveries: 3),
            ]
            history.recountStatistics()
            history.lives[0].redisErrors = errors
            #expect(
                Checker.check(history).filter { $0.rule == .duplicateDeadLetter }.count == expected,
                "\(topology), \(errors) errors")
        }
    }

    @Test("retried deliveries within a life are not duplicates, and may come after later events")
    func retriesAreNotDuplicates() {
        var history = Self.keptHistory()
        // a1 fails k#1 at first, hears k#2 and k#3, then k#1 again (count 2) and succeeds.
        history.deliveries.removeAll { $0.group == "a" }
        history.deliveries += [
            .init(life: Self.a1, group: "a", order: Self.orders[0], deliveryCount: 1, succeeded: false),
            .init(life: Self.a1, group: "a", order: Self.orders[1], deliveryCount: 1, succeeded: true),
            .init(life: Self.a1, group: "a", order: Self.orders[2], deliveryCount: 1, succeeded: true),
            .init(life: Self.a1, group: "a", order: Self.orders[0], deliveryCount: 2, succeeded: true),
        ]
        history.recountStatistics()
        #expect(Checker.check(history).isEmpty)
    }
}

@Suite("Fault campaign checker, Pub/Sub after a reported loss")
struct CheckerPubSubLossTests {
    @Test("a tick out of order is allowed only when the publisher reported a possible loss")
    func lateTickAllowedOnlyAfterAReportedLoss() {
        for (losses, allowed) in [(0, false), (1, true)] {
            var history = CheckerTests.keptHistory()
            history.ticksDispatched = 2
            history.ticks = [.init(life: CheckerTests.a1, seq: 2), .init(life: CheckerTests.a1, seq: 1)]
            history.pubSubLossesReported = losses
            history.recountStatistics()
            let found = Checker.check(history)
            #expect(found.map(\.rule) == [.pubSubOutOfOrder])
            #expect(found.first?.allowed == allowed)
        }
    }
}

extension History {
    /// Sets each life's statistics to what its records say, as a bridge that counts right
    /// would (each group here has one life).
    mutating func recountStatistics() {
        for index in lives.indices {
            let life = lives[index]
            let heard = deliveries.count { $0.life == life.life } + ticks.count { $0.life == life.life }
            lives[index].statistics = .init(
                delivered: heard, deadLettered: deadLetters.count { $0.group == life.group })
        }
    }
}

@Suite("Fault campaign checker after a failover")
struct CheckerFailoverTests {
    @Test("after a failover, a group rolled back is allowed to reorder; without one, or on one server, it is not")
    func reorderAllowedOnlyAfterAFailover() {
        for (topology, failedOver, allowed) in [
            (Topology.sentinel, true, true), (.sentinel, false, false), (.single, true, false),
        ] {
            var history = CheckerTests.keptHistory(topology: topology)
            history.failedOver = failedOver
            history.deliveries.swapAt(0, 2)
            let found = Checker.check(history)
            #expect(found.map(\.rule) == [.outOfOrder])
            #expect(found.first?.allowed == allowed, "\(topology), failed over: \(failedOver)")
        }
    }

    @Test("a copy published again may come after later events, to a consumer that never had the first")
    func republishedCopyMayComeLate() {
        var history = CheckerTests.keptHistory()
        history.deliveries.swapAt(0, 2)
        #expect(Checker.check(history).first?.allowed == false)
        history.finalStreams[CheckerTests.orders[0]] = 2
        let found = Checker.check(history)
        #expect(found.map(\.rule) == [.outOfOrder])
        #expect(found.first?.allowed == true)
    }

    @Test("after a failover, fewer dead letters than counted is allowed; more never is")
    func lostDeadLetterAllowedOnlyAfterAFailover() {
        for (extraInRedis, allowed) in [(false, true), (true, false)] {
            var history = CheckerTests.keptHistory(topology: .cluster)
            history.failedOver = true
            history.recountStatistics()
            if extraInRedis {
                history.deadLetters.append(.init(group: "a", order: CheckerTests.orders[0], deliveries: 3))
            } else {
                history.lives[0].statistics?.deadLettered = 1
            }
            let found = Checker.check(history).filter { $0.rule == .statistics }
            #expect(found.count == 1)
            #expect(found.first?.allowed == allowed)
        }
    }
}

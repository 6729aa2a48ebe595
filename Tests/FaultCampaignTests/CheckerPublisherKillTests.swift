import FaultCampaign
import Testing

/// The publisher is a process the nemesis kills: an order it attempted may or may not have
/// reached Redis, one whose dispatch returned was in its outbox and must not be lost, and a
/// new life publishes again what Redis had not acknowledged, under the same ids.
@Suite("Fault campaign checker after a publisher kill")
struct CheckerPublisherKillTests {
    static let attempted = CampaignOrder(key: "k", seq: 4)

    /// The kept history, with a fourth order of the key that the first publisher life
    /// attempted before it was killed, and a second life that went on after it.
    static func killedHistory(sent: Bool) -> History {
        var history = CheckerTests.keptHistory()
        history.dispatched.append(attempted)
        history.attemptedBy[attempted] = "publisher#1"
        if sent { history.confirmed.insert(attempted) }
        history.publisherLives = [
            .init(life: "publisher#1", fromStep: 0), .init(life: "publisher#2", fromStep: 5),
        ]
        return history
    }

    @Test("an order attempted but not sent, which never reached Redis, breaks no promise")
    func attemptedNotSentNeverInRedis() {
        #expect(Checker.check(Self.killedHistory(sent: false)).isEmpty)
    }

    @Test("an order attempted but not sent, which reached Redis all the same, is settled like any other")
    func attemptedNotSentInRedis() {
        var history = Self.killedHistory(sent: false)
        history.finalStreams[Self.attempted] = 1
        #expect(Checker.check(history).map(\.rule) == [.unsettled, .unsettled])
        history.deliveries += ["a", "b"].map {
            .init(
                life: $0 == "a" ? CheckerTests.a1 : CheckerTests.b1, group: $0, order: Self.attempted,
                deliveryCount: 1, succeeded: true)
        }
        history.recountStatistics()
        #expect(Checker.check(history).isEmpty)
    }

    @Test("a sent order missing from the streams is lost, though its publisher life was killed")
    func sentOrderMissingIsLost() throws {
        let found = Checker.check(Self.killedHistory(sent: true))
        #expect(found.map(\.rule) == [.lost])
        let violation = try #require(found.first)
        #expect(violation.message == "k#4")
        #expect(!violation.allowed)
        #expect(violation.window.contains("publisher#1 dispatched it, the dispatch returned"))
        #expect(
            violation.window.last == "0 entries in the streams", "the rest of the window follows: \(violation.window)")
    }

    @Test("a copy the next life published again, heard by another consumer of the group, is no violation")
    func republishedCopyHeardElsewhere() {
        var history = CheckerTests.keptHistory()
        let copy = CheckerTests.orders[0]
        history.finalStreams[copy] = 2
        history.deliveries.append(.init(life: "a/a2#1", group: "a", order: copy, deliveryCount: 1, succeeded: true))
        history.lives.append(.init(life: "a/a2#1", group: "a", statistics: nil, redisErrors: 0))
        history.recountStatistics()
        #expect(Checker.check(history).isEmpty)
    }
}

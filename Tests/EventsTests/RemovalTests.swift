import Testing

@testable import Events

@Suite("Removal by owner, event type and key")
struct RemovalTests {
    /// Registers, for one owner, keyed and unkeyed listeners of two event types; returns a log.
    private func register(_ center: EventCenter, _ owner: Probe, log: Recorder<String>) {
        center.listen(to: Tick.self, owner: owner, key: "a") { _, _ in log.record("tick a") }
        center.listen(to: Tick.self, owner: owner, key: "b") { _, _ in log.record("tick b") }
        center.listen(to: Tick.self, owner: owner) { _, _ in log.record("tick") }
        center.listen(to: Tock.self, owner: owner, key: "a") { _, _ in log.record("tock a") }
        center.listen(to: Tock.self, owner: owner) { _, _ in log.record("tock") }
    }

    private func fire(_ center: EventCenter) {
        center.dispatch(Tick(n: 0))
        center.dispatch(Tock(n: 0))
    }

    @Test("a type's only listener coming and going, while another type's does too, hears its own events alone")
    func listsEmptiedAndMadeAgain() {
        // A type's list goes when it empties and is made again with the next listener, while
        // dispatch reads per-thread copies of the lists: neither may ever show one type's
        // listeners to another.
        let center = EventCenter()
        let log = Recorder<String>()
        for round in 0..<200 {
            let tick = center.listen(to: Tick.self) { log.record("tick \($0.n)") }
            center.dispatch(Tick(n: round))
            tick.cancel()
            center.dispatch(Tick(n: -1))
            let tock = center.listen(to: Tock.self) { log.record("tock \($0.n)") }
            center.dispatch(Tick(n: -2))
            center.dispatch(Tock(n: round))
            if round.isMultiple(of: 3) {
                // Both lists alive at once: one from the spare, one made new.
                let again = center.listen(to: Tick.self) { log.record("again \($0.n)") }
                center.dispatch(Tick(n: round))
                again.cancel()
            }
            tock.cancel()
            center.dispatch(Tock(n: -3))
            #expect(center.listenerCount(for: Tick.self) == 0 && center.listenerCount(for: Tock.self) == 0)
        }
        let expected = (0..<200).flatMap { round in
            ["tick \(round)", "tock \(round)"] + (round.isMultiple(of: 3) ? ["again \(round)"] : [])
        }
        #expect(log.values == expected)
    }

    @Test func removeOwnerEndsAllItsListeners() {
        let center = EventCenter()
        let owner = Probe()
        let bystander = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.listen(to: Tick.self, owner: bystander) { _, _ in log.record("bystander") }
        center.remove(owner)
        fire(center)
        #expect(log.values == ["bystander"])
    }

    @Test func removeOwnerForEventTypeKeepsOtherTypes() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, for: Tick.self)
        fire(center)
        #expect(log.values == ["tock a", "tock"])
    }

    @Test func removeOwnerKeyEndsThatKeyForEveryType() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, key: "a")
        fire(center)
        #expect(log.values == ["tick b", "tick", "tock"])
    }

    @Test func removeOwnerKeyForEventTypeEndsExactlyOne() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, key: "a", for: Tock.self)
        fire(center)
        #expect(log.values == ["tick a", "tick b", "tick", "tock"])
    }

    @Test func removingWhatIsNotRegisteredDoesNothing() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        center.remove(owner)
        center.remove(owner, for: Tick.self)
        center.remove(owner, key: "nothing")
        center.remove(owner, key: 3, for: Tock.self)
        register(center, owner, log: log)
        center.remove(Probe())
        center.remove(owner, key: "missing")
        center.remove(owner, key: 1, for: Tick.self)
        fire(center)
        #expect(log.values.count == 5)
    }

    @Test func removeDoesNotTouchClosureListeners() {
        let center = EventCenter()
        let owner = Probe()
        let calls = Counter()
        let subscription = center.listen(to: Tick.self) { _ in calls.increment() }
        center.remove(owner)
        center.dispatch(Tick(n: 1))
        #expect(calls.value == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test func removedSubscriptionReportsInactive() {
        let center = EventCenter()
        let owner = Probe()
        let subscription = center.listen(to: Tick.self, owner: owner, key: "k") { _, _ in }
        center.remove(owner, key: "k")
        #expect(!subscription.isActive)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }
}

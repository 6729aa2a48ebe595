import Testing

@testable import Events

@Suite("Rule 4: owner-bound listeners end with their owner")
struct OwnerLifetimeTests {
    @Test func listenerIsNeverCalledAfterItsOwnerDeinitializes() {
        let center = EventCenter()
        let calls = Counter()
        let deinits = Counter()
        var owner: Probe? = Probe { deinits.increment() }
        center.listen(to: Tick.self, owner: owner!) { _, _ in calls.increment() }
        center.dispatch(Tick(n: 1))
        #expect(calls.value == 1)
        owner = nil
        #expect(deinits.value == 1, "the center holds the owner weakly")
        #expect(center.dispatch(Tick(n: 2)) == 0)
        #expect(calls.value == 1)
    }

    @Test func deadOwnersListenerIsRemovedWithoutCallingRemove() {
        let center = EventCenter()
        var owner: Probe? = Probe()
        let subscription = center.listen(to: Tick.self, owner: owner!) { _, _ in }
        #expect(center.listenerCount(for: Tick.self) == 1)
        #expect(subscription.isActive)
        owner = nil
        #expect(center.listenerCount(for: Tick.self) == 0)
        #expect(center.hasListeners(for: Tick.self) == false)
        #expect(!subscription.isActive)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test func handlerCapturesAreReleasedOnceTheOwnerIsGone() {
        let center = EventCenter()
        let captureDeinits = Counter()
        var owner: Probe? = Probe()
        do {
            let captured = Probe { captureDeinits.increment() }
            center.listen(to: Tick.self, owner: owner!) { _, _ in _ = captured.name }
        }
        #expect(captureDeinits.value == 0)
        owner = nil
        center.dispatch(Tick(n: 1))  // notices the dead owner and reclaims the record
        #expect(captureDeinits.value == 1, "no leak: the record and its handler are gone")
    }

    @Test func sweepReclaimsDeadListenersOfEventsThatAreNeverDispatchedAgain() {
        let center = EventCenter()
        for _ in 0..<50 {
            let owner = Probe()
            center.listen(to: Tock.self, owner: owner) { _, _ in }
        }
        #expect(storedRecords(center, Tock.self) == 50, "not yet noticed")
        // Registrations of an unrelated type eventually trigger the amortized sweep.
        let keep = Probe()
        for _ in 0..<200 {
            center.listen(to: Tick.self, owner: keep) { _, _ in }
        }
        #expect(storedRecords(center, Tock.self) == 0)
        #expect(center.listenerCount(for: Tick.self) == 200)
    }

    @Test func deinitializedCenterReleasesItsListenersHandlers() {
        // Records keep their registry strongly (for cancel); the center's deinit must still
        // release every listener it holds, and a later cancel must do nothing.
        let captureDeinits = Counter()
        let owner = Probe()
        var center: EventCenter? = EventCenter()
        var kept: Subscription?
        do {
            let captured = Probe { captureDeinits.increment() }
            center!.listen(to: Tick.self, owner: owner) { _, _ in _ = captured.name }
            center!.listen(to: Tock.self, owner: owner, key: "k") { _, _ in _ = captured.name }
            kept = center!.listen(to: Tick.self) { _ in _ = captured.name }
            center!.dispatch(Tick(n: 1))  // fills a read stripe, which must be emptied too
        }
        center = nil
        #expect(captureDeinits.value == 0, "the kept subscription still holds its handler")
        kept!.cancel()
        kept = nil
        #expect(captureDeinits.value == 1, "no leak: every record and handler is gone")
    }

    @Test func sweepStillRunsWhenOnlySenderFilteredListenersAreRegistered() {
        let center = EventCenter()
        for _ in 0..<50 {
            let owner = Probe()
            center.listen(to: Tock.self, owner: owner) { _, _ in }
        }
        // Closure listeners cannot die unnoticed and do not count towards the sweep ...
        var subscriptions: [Subscription] = []
        for _ in 0..<200 { subscriptions.append(center.listen(to: Tick.self) { _ in }) }
        #expect(storedRecords(center, Tock.self) == 50, "not yet noticed")
        // ... listeners with a sender do.
        let sender = Probe()
        for _ in 0..<300 { subscriptions.append(center.listen(to: Tick.self, from: sender) { _ in }) }
        #expect(storedRecords(center, Tock.self) == 0)
        #expect(center.listenerCount(for: Tick.self) == 500)
    }

    @Test func droppingAnOwnerBoundSubscriptionDoesNotEndTheListener() {
        let center = EventCenter()
        let owner = Probe()
        do {
            _ = center.listen(to: Tick.self, owner: owner) { owner, _ in owner.received.increment() }
        }
        center.dispatch(Tick(n: 1))
        #expect(owner.received.value == 1)
    }

    @Test func ownerIsHeldStronglyForTheDurationOfItsHandler() {
        let center = EventCenter()
        let events = Recorder<String>()
        nonisolated(unsafe) var owner: Probe? = Probe { events.record("deinit") }
        center.listen(to: Tick.self, owner: owner!) { _, _ in
            owner = nil  // drop the last outside reference while the handler runs
            events.record("handler still has its owner")
        }
        center.dispatch(Tick(n: 1))
        #expect(events.values == ["handler still has its owner", "deinit"])
    }
}

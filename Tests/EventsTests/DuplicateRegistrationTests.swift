import Testing

@testable import Events

@Suite("Rule 3: duplicate registrations are ignored")
struct DuplicateRegistrationTests {
    @Test func sameOwnerKeyTypeAndSenderReturnsTheExistingSubscription() {
        let center = EventCenter()
        let owner = Probe()
        let calls = Recorder<String>()
        let first = center.listen(to: Tick.self, owner: owner, key: "refresh") { _, _ in calls.record("first") }
        let second = center.listen(to: Tick.self, owner: owner, key: "refresh") { _, _ in calls.record("second") }
        #expect(first == second)
        #expect(center.listenerCount(for: Tick.self) == 1)
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(calls.values == ["first"], "the duplicate's handler is discarded")
    }

    @Test func differentKeySenderOrEventTypeAreDistinct() {
        let center = EventCenter()
        let owner = Probe()
        let writer = Probe()
        let a = center.listen(to: Tick.self, owner: owner, key: "a") { _, _ in }
        let b = center.listen(to: Tick.self, owner: owner, key: "b") { _, _ in }
        let c = center.listen(to: Tick.self, owner: owner, key: "a", from: writer) { _, _ in }
        let d = center.listen(to: Tock.self, owner: owner, key: "a") { _, _ in }
        let e = center.listen(to: Tick.self, owner: Probe(), key: "a") { _, _ in }
        #expect(Set([a, b, c, d, e]).count == 5)
        #expect(center.listenerCount(for: Tick.self) == 3, "the last owner died at once")
        let again = center.listen(to: Tick.self, owner: owner, key: "a", from: writer) { _, _ in }
        #expect(again == c)
    }

    @Test func registrationsWithoutKeyAreDistinct() {
        let center = EventCenter()
        let owner = Probe()
        let first = center.listen(to: Tick.self, owner: owner) { _, _ in }
        let second = center.listen(to: Tick.self, owner: owner) { _, _ in }
        let closureA = center.listen(to: Tick.self) { _ in }
        let closureB = center.listen(to: Tick.self) { _ in }
        #expect(first != second)
        #expect(closureA != closureB)
        #expect(center.dispatch(Tick(n: 1)) == 4)
    }

    @Test func aCancelledRegistrationDoesNotBlockANewOne() {
        let center = EventCenter()
        let owner = Probe()
        let first = center.listen(to: Tick.self, owner: owner, key: 1) { _, _ in }
        first.cancel()
        let second = center.listen(to: Tick.self, owner: owner, key: 1) { _, _ in }
        #expect(first != second)
        #expect(second.isActive)
        #expect(center.listenerCount(for: Tick.self) == 1)
    }

    @Test func concurrentDuplicateRegistrationsLeaveExactlyOne() async {
        let center = EventCenter()
        let owner = Probe()
        let subscriptions = Recorder<Subscription>()
        await runOnThreads(8) { _ in
            for _ in 0..<200 {
                subscriptions.record(
                    center.listen(to: Tick.self, owner: owner, key: "only") { owner, _ in
                        owner.received.increment()
                    })
            }
        }
        #expect(Set(subscriptions.values).count == 1)
        #expect(center.listenerCount(for: Tick.self) == 1)
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(owner.received.value == 1)
    }
}

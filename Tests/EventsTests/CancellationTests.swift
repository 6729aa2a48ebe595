import Synchronization
import Testing

@testable import Events

@Suite("Rule 7: subscriptions and cancellation")
struct CancellationTests {
    @Test func cancelIsIdempotentAndEndsTheListener() {
        let center = EventCenter()
        let calls = Counter()
        let subscription = center.listen(to: Tick.self) { _ in calls.increment() }
        #expect(subscription.isActive)
        subscription.cancel()
        subscription.cancel()
        #expect(!subscription.isActive)
        #expect(center.dispatch(Tick(n: 1)) == 0)
        #expect(calls.value == 0)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test func droppingAClosureSubscriptionCancelsIt() {
        let center = EventCenter()
        let calls = Counter()
        do {
            _ = center.listen(to: Tick.self) { _ in calls.increment() }
        }
        #expect(center.dispatch(Tick(n: 1)) == 0)
        #expect(center.listenerCount(for: Tick.self) == 0)
        #expect(calls.value == 0)
    }

    @Test func storedSubscriptionsLiveAsLongAsTheirSet() {
        let center = EventCenter()
        let calls = Counter()
        var set = Set<Subscription>()
        center.listen(to: Tick.self) { _ in calls.increment() }.store(in: &set)
        center.listen(to: Tock.self) { _ in calls.increment() }.store(in: &set)
        var array: [Subscription] = []
        center.listen(to: Tick.self) { _ in calls.increment() }.store(in: &array)
        center.dispatch(Tick(n: 1))
        center.dispatch(Tock(n: 1))
        #expect(calls.value == 3)
        set.removeAll()
        array.removeAll()
        #expect(center.dispatch(Tick(n: 2)) == 0)
        #expect(center.dispatch(Tock(n: 2)) == 0)
    }

    @Test func subscriptionsAreHashableByRegistration() {
        let center = EventCenter()
        let a = center.listen(to: Tick.self) { _ in }
        let b = center.listen(to: Tick.self) { _ in }
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, b, a]).count == 2)
    }

    @Test func noDispatchThatBeginsAfterCancelReturnsCallsTheHandler() async {
        let center = EventCenter()
        // The last round whose cancel() has returned; dispatchers stamp it into each event
        // before dispatching, so a handler can tell whether its dispatch began after the cancel.
        let lastCancelledRound = Atomic<Int>(-1)
        let finished = Counter()
        let violations = Counter()
        let calls = Counter()
        await runOnThreads(3) { thread in
            if thread == 0 {
                for round in 0..<400 {
                    let roundCalls = Counter()
                    let subscription = center.listen(to: Tick.self) { tick in
                        calls.increment()
                        roundCalls.increment()
                        if tick.n >= round { violations.increment() }
                    }
                    // Let the dispatchers reach this listener before cancelling, so that cancel()
                    // really races with deliveries (bounded, so a starved machine cannot hang).
                    var spins = 0
                    while roundCalls.value == 0, spins < 10_000 {
                        yieldThread()
                        spins += 1
                    }
                    subscription.cancel()
                    lastCancelledRound.store(round, ordering: .sequentiallyConsistent)
                }
                finished.increment()
            } else {
                while finished.value == 0 {
                    center.dispatch(Tick(n: lastCancelledRound.load(ordering: .sequentiallyConsistent)))
                }
            }
        }
        #expect(violations.value == 0)
        #expect(center.listenerCount(for: Tick.self) == 0)
        // The test only means something if dispatches raced with the listeners.
        #expect(calls.value > 0)
    }

    @Test func everyRegistrationRecordsItsCallSite() {
        let center = EventCenter()
        let line = #line + 1
        let subscription = center.listen(to: Tick.self) { _ in }
        #expect(subscription.callSite.fileID == "EventsTests/CancellationTests.swift")
        #expect(subscription.callSite.line == line)
        #expect(subscription.callSite.description == "EventsTests/CancellationTests.swift:\(line)")
        let owner = Probe()
        let ownedLine = #line + 1
        let owned = center.listen(to: Tick.self, owner: owner, key: "k") { _, _ in }
        #expect(owned.callSite.line == ownedLine)
        #expect(subscription.description.contains("Tick"))
    }

    // The registry's list holds a listener without an owner unretained: its subscription keeps
    // it alive and takes it out of the list before letting go. These cases are the ones where
    // something other than `cancel()` retired the listener first, so the list still holds it
    // when the subscription goes.

    @Test func aSubscriptionDroppedAfterItsSenderDiedLeavesNothingInTheList() {
        let center = EventCenter()
        let capturesFreed = Counter()
        var sender: Probe? = Probe("sender")
        var subscription: Subscription? = nil
        do {
            let capture = Probe("capture") { capturesFreed.increment() }
            subscription = center.listen(to: Tick.self, from: sender!) { _ in _ = capture.name }
        }
        center.dispatch(Tick(n: 1), from: sender!)  // fills this thread's read copy of the list
        sender = nil
        // Retires the listener (its sender is gone) without purging the list.
        #expect(subscription?.isActive == false)
        #expect(storedRecords(center, Tick.self) == 1)
        subscription = nil
        #expect(capturesFreed.value == 1)
        #expect(storedRecords(center, Tick.self) == 0)
        #expect(center.dispatch(Tick(n: 2)) == 0)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func aOnceSubscriptionDroppedAfterItFiredLeavesNothingInTheList() {
        let center = EventCenter()
        let capturesFreed = Counter()
        let calls = Counter()
        var subscription: Subscription? = nil
        do {
            let capture = Probe("capture") { capturesFreed.increment() }
            subscription = center.listen(to: Tick.self, once: true) { _ in
                _ = capture.name
                calls.increment()
            }
        }
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(subscription?.isActive == false)
        subscription = nil
        #expect(capturesFreed.value == 1)
        #expect(storedRecords(center, Tick.self) == 0)
        #expect(center.dispatch(Tick(n: 2)) == 0)
        #expect(calls.value == 1)
    }

    @Test func anOwnerBoundListenerOutlivesItsDroppedSubscription() {
        let center = EventCenter()
        let owner = Probe("owner")
        do {
            _ = center.listen(to: Tick.self, owner: owner) { owner, _ in owner.received.increment() }
        }
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(owner.received.value == 1)
        center.remove(owner)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test func subscriptionsThatOutliveTheirCenterCancelQuietly() {
        let capturesFreed = Counter()
        var center: EventCenter? = EventCenter()
        var plain: Subscription? = nil
        var once: Subscription? = nil
        do {
            let capture = Probe("capture") { capturesFreed.increment() }
            plain = center!.listen(to: Tick.self) { _ in _ = capture.name }
            once = center!.listen(to: Tock.self, once: true) { _ in _ = capture.name }
        }
        center!.dispatch(Tick(n: 1))
        center = nil
        plain!.cancel()
        #expect(plain?.isActive == false)
        plain = nil
        #expect(capturesFreed.value == 0)  // `once` still holds the capture
        withExtendedLifetime(once) {}
        once = nil
        #expect(capturesFreed.value == 1)
    }
}

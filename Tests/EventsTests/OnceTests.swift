import Testing

@testable import Events

@Suite("Rule 5: once listeners fire at most once")
struct OnceTests {
    @Test func onceListenerReceivesOnlyTheFirstEvent() {
        let center = EventCenter()
        let received = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, once: true) { tick in received.record(tick.n) }
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(center.dispatch(Tick(n: 2)) == 0)
        #expect(received.values == [1])
        #expect(!subscription.isActive)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test func onceListenerWithSenderFilterIsNotConsumedByOtherSenders() {
        let center = EventCenter()
        let writer = Probe()
        let received = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, from: writer, once: true) { tick in received.record(tick.n) }
        center.dispatch(Tick(n: 1), from: Probe())
        center.dispatch(Tick(n: 2))
        center.dispatch(Tick(n: 3), from: writer)
        center.dispatch(Tick(n: 4), from: writer)
        #expect(received.values == [3])
        withExtendedLifetime(subscription) {}
    }

    @Test func onceHoldsUnderConcurrentDispatch() async {
        for _ in 0..<20 {
            let center = EventCenter()
            let received = Counter()
            let owner = Probe()
            let subscriptions = (0..<10).map { _ in
                center.listen(to: Tick.self, once: true) { _ in received.increment() }
            }
            for _ in 0..<10 {
                center.listen(to: Tick.self, owner: owner, once: true) { _, _ in received.increment() }
            }
            let deliveries = Counter()
            await runOnThreads(4) { thread in
                for n in 0..<50 { deliveries.increment(by: center.dispatch(Tick(n: thread * 100 + n))) }
            }
            #expect(received.value == 20)
            #expect(deliveries.value == 20)
            #expect(center.listenerCount(for: Tick.self) == 0)
            withExtendedLifetime(subscriptions) {}
        }
    }
}

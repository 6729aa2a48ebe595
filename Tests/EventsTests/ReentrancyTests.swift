import Dispatch
import Testing

@testable import Events

@Suite("Rule 6: handlers may dispatch, listen, cancel and remove")
struct ReentrancyTests {
    @Test func nestedDispatchIsDeliveredImmediatelyDepthFirst() {
        let center = EventCenter()
        let log = Recorder<String>()
        let subscriptions = [
            center.listen(to: Tick.self, priority: 1) { tick in
                log.record("tick-a \(tick.n)")
                if tick.n == 1 { center.dispatch(Tock(n: 1)) }
                log.record("tick-a done \(tick.n)")
            },
            center.listen(to: Tick.self) { tick in log.record("tick-b \(tick.n)") },
            center.listen(to: Tock.self) { tock in
                log.record("tock \(tock.n)")
                center.dispatch(Tick(n: 2))
            },
        ]
        center.dispatch(Tick(n: 1))
        #expect(
            log.values == [
                "tick-a 1", "tock 1", "tick-a 2", "tick-a done 2", "tick-b 2", "tick-a done 1", "tick-b 1",
            ])
        withExtendedLifetime(subscriptions) {}
    }

    @Test func listenerAddedDuringDispatchMissesThatDispatchButGetsTheNext() {
        let center = EventCenter()
        let log = Recorder<String>()
        let added = Recorder<Subscription>()
        let subscription = center.listen(to: Tick.self) { tick in
            log.record("first \(tick.n)")
            if tick.n == 1 {
                added.record(center.listen(to: Tick.self) { tick in log.record("added \(tick.n)") })
            }
        }
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(center.dispatch(Tick(n: 2)) == 2)
        #expect(log.values == ["first 1", "first 2", "added 2"])
        withExtendedLifetime(subscription) {}
    }

    @Test func listenerCancelledDuringDispatchIsNotCalledInThatDispatch() {
        let center = EventCenter()
        let log = Recorder<String>()
        let later = Recorder<Subscription>()
        let first = center.listen(to: Tick.self, priority: 1) { _ in
            log.record("first")
            later.values.forEach { $0.cancel() }
        }
        later.record(center.listen(to: Tick.self) { _ in log.record("second") })
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(log.values == ["first"])
        withExtendedLifetime(first) {}
    }

    @Test func ownerRemovedDuringDispatchIsNotCalledInThatDispatch() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        let first = center.listen(to: Tick.self, priority: 1) { _ in
            log.record("first")
            center.remove(owner)
        }
        center.listen(to: Tick.self, owner: owner) { _, _ in log.record("owned") }
        center.dispatch(Tick(n: 1))
        center.dispatch(Tick(n: 2))
        #expect(log.values == ["first", "first"])
        withExtendedLifetime(first) {}
    }

    @Test func handlerMayCancelItself() {
        let center = EventCenter()
        let calls = Counter()
        let box = Recorder<Subscription>()
        box.record(
            // Weak: the box keeps the subscription, whose handler would otherwise keep the box.
            center.listen(to: Tick.self) { [weak box] _ in
                calls.increment()
                box?.values.first?.cancel()
            })
        center.dispatch(Tick(n: 1))
        center.dispatch(Tick(n: 2))
        #expect(calls.value == 1)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func handlerCallingBackFromAnotherThreadDoesNotDeadlock() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        let other = center.listen(to: Tock.self) { _ in log.record("tock") }
        let subscription = center.listen(to: Tick.self) { _ in
            // Wait for another thread that uses the center: would deadlock if any lock were held.
            DispatchQueue.global().sync {
                center.dispatch(Tock(n: 1))
                let extra = center.listen(to: Tock.self) { _ in }
                extra.cancel()
                center.listen(to: Tock.self, owner: owner) { _, _ in }
                center.remove(owner)
                other.cancel()
                log.record("count \(center.listenerCount(for: Tock.self))")
            }
        }
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(log.values == ["tock", "count 0"])
        withExtendedLifetime(subscription) {}
    }

    @Test func deinitializerRunByTheCenterMayUseTheCenter() {
        // Releasing the last reference to a handler's capture runs user code: it must happen
        // outside the registry lock, or this deinit would deadlock.
        let center = EventCenter()
        let log = Recorder<String>()
        var subscription: Subscription?
        do {
            let captured = Probe {
                log.record("deinit dispatches \(center.dispatch(Tock(n: 1)))")
            }
            subscription = center.listen(to: Tick.self) { _ in _ = captured.name }
        }
        subscription?.cancel()
        subscription = nil
        #expect(log.values == ["deinit dispatches 0"])
    }
}

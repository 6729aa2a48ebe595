import Foundation
import Synchronization
import Testing

@testable import Events

@Suite("Rules 8 and 9: any thread, exact counts, isolation between event types")
struct ConcurrencyStressTests {
    @Test func dispatchersListenersCancellersAndDyingOwnersKeepExactCounts() async {
        let center = EventCenter()
        let dispatchers = 3
        let dispatchesEach = 2_000
        let total = dispatchers * dispatchesEach

        let steady = (0..<4).map { _ in Counter() }
        let steadySubscriptions = steady.map { counter in
            center.listen(to: Tick.self) { _ in counter.increment() }
        }
        let steadyOwner = Probe("steady owner")
        center.listen(to: Tick.self, owner: steadyOwner) { owner, _ in owner.received.increment() }
        let onceCounters = (0..<5).map { _ in Counter() }
        let onceSubscriptions = onceCounters.map { counter in
            center.listen(to: Tick.self, once: true) { _ in counter.increment() }
        }

        let allHandlerCalls = Counter()
        let countedSubscription = center.listen(to: Tick.self) { _ in allHandlerCalls.increment() }
        let delivered = Counter()
        let churnViolations = Counter()
        let ownerViolations = Counter()
        let dispatchersDone = Counter()
        let lastCancelledRound = Atomic<Int>(-1)

        await runOnThreads(dispatchers + 2) { thread in
            switch thread {
            case 0..<dispatchers:
                // Each event carries the last churn round whose cancel() had returned when this
                // dispatch began.
                for _ in 0..<dispatchesEach {
                    let stamp = lastCancelledRound.load(ordering: .sequentiallyConsistent)
                    delivered.increment(by: center.dispatch(Tick(n: stamp)))
                }
                dispatchersDone.increment()
            case dispatchers:
                // Listen and cancel while events fly: no dispatch that begins after cancel()
                // returned may call the cancelled listener (rule 7; a call already claimed on
                // another thread may still finish).
                var round = 0
                while dispatchersDone.value < dispatchers {
                    let thisRound = round
                    let subscription = center.listen(to: Tick.self) { tick in
                        if tick.n >= thisRound { churnViolations.increment() }
                        allHandlerCalls.increment()
                    }
                    yieldThread()
                    subscription.cancel()
                    lastCancelledRound.store(thisRound, ordering: .sequentiallyConsistent)
                    round += 1
                }
            default:
                // Owners that come and go: each owner's count is final once it deinitializes.
                while dispatchersDone.value < dispatchers {
                    let countAtDeinit = Atomic<Int>(-1)
                    let calls = Counter()
                    do {
                        let owner = Probe { countAtDeinit.store(calls.value, ordering: .sequentiallyConsistent) }
                        center.listen(to: Tick.self, owner: owner) { _, _ in
                            calls.increment()
                            allHandlerCalls.increment()
                        }
                        yieldThread()
                    }
                    for _ in 0..<3 { yieldThread() }
                    let final = countAtDeinit.load(ordering: .sequentiallyConsistent)
                    if final >= 0, calls.value != final { ownerViolations.increment() }
                }
            }
        }

        for counter in steady { #expect(counter.value == total) }
        #expect(steadyOwner.received.value == total)
        for counter in onceCounters { #expect(counter.value == 1) }
        #expect(churnViolations.value == 0)
        #expect(ownerViolations.value == 0)
        // Every counted delivery was a handler call: steady (4) + owner (1) + counted (1) per
        // dispatch, 5 once-listeners, plus every churn and dying-owner call (also in allHandlerCalls).
        #expect(delivered.value == total * 5 + onceCounters.count + allHandlerCalls.value)
        #expect(center.listenerCount(for: Tick.self) == 6)
        _ = (steadySubscriptions, onceSubscriptions, countedSubscription)
    }

    @Test func concurrentListenAndCancelOnManyTypesLeavesNothingBehind() async {
        let center = EventCenter()
        await runOnThreads(4) { thread in
            for n in 0..<500 {
                let owner = Probe()
                let a = center.listen(to: Tick.self) { _ in }
                center.listen(to: Tock.self, owner: owner, key: n % 7) { _, _ in }
                center.dispatch(Tick(n: n))
                center.dispatch(Tock(n: n))
                if n % 2 == thread % 2 { center.remove(owner) }
                a.cancel()
            }
        }
        #expect(center.listenerCount(for: Tick.self) == 0)
        #expect(center.listenerCount(for: Tock.self) == 0)
    }

    @Test func dispatchOnlyLooksAtTheListenersOfItsOwnType() {
        let center = EventCenter()
        let owner = Probe()
        for n in 0..<10_000 {
            center.listen(to: Tock.self, owner: owner, key: n) { _, _ in }
        }
        let calls = Counter()
        let subscription = center.listen(to: Tick.self) { _ in calls.increment() }
        // The list a Tick dispatch walks holds its own listener only.
        #expect(center.registry.snapshot(for: EventKey(Tick.self))?.count == 1)
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(center.listenerCount(for: Tock.self) == 10_000)
        withExtendedLifetime(subscription) {}
    }

    @Test func everyThreadSeesAListenerAddedAfterItDispatchedAndNoneSeesACancelledOne() async {
        // Dispatching threads keep per-thread copies of the listener lists; a change must reach
        // all of them before `listen` or `cancel` returns.
        let center = EventCenter()
        let first = Counter()
        let subscription = center.listen(to: Tick.self) { _ in first.increment() }
        let threads = 6
        await runOnThreads(threads) { _ in center.dispatch(Tick(n: 0)) }  // every thread caches the list
        #expect(first.value == threads)

        let second = Counter()
        let added = center.listen(to: Tick.self) { _ in second.increment() }
        let delivered = Counter()
        await runOnThreads(threads) { _ in delivered.increment(by: center.dispatch(Tick(n: 1))) }
        #expect(second.value == threads)
        #expect(delivered.value == threads * 2)

        subscription.cancel()
        await runOnThreads(threads) { _ in delivered.increment(by: center.dispatch(Tick(n: 2))) }
        #expect(first.value == threads * 2, "no thread's copy still holds the cancelled listener")
        #expect(second.value == threads * 2)
        withExtendedLifetime(added) {}
    }

    @Test func aCancelledListenersCapturesAreReleasedEvenAfterManyThreadsDispatched() async {
        let center = EventCenter()
        let deinits = Counter()
        var subscription: Subscription?
        do {
            let captured = Probe { deinits.increment() }
            subscription = center.listen(to: Tick.self) { _ in _ = captured.name }
        }
        await runOnThreads(4) { _ in center.dispatch(Tick(n: 0)) }
        subscription = nil
        #expect(deinits.value == 1, "per-thread copies must not keep a cancelled listener alive")
        withExtendedLifetime(subscription) {}
    }
}

import Dispatch
import EventsTesting
import Foundation
import Testing

@testable import Events

@Suite("Coalescing: throttle and debounce on a test clock")
struct CoalescingTimedTests {
    @Test("once(per:) delivers the first event at once and the newest of the interval when it ends")
    func throttleLeadingAndTrailing() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        let subscription = center.listen(
            to: Tick.self, on: .background, coalescing: .once(per: .seconds(1), clock: clock)
        ) { heard.record($0.n) }
        center.dispatch(Tick(n: 1))
        await center.idle()
        #expect(heard.values == [1])
        center.dispatch(Tick(n: 2))
        center.dispatch(Tick(n: 3))
        // idle() does not wait for the clock: the interval holds 3.
        await center.idle()
        #expect(heard.values == [1])
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        #expect(await eventually { heard.values == [1, 3] })
        // The trailing delivery opened a new interval: 4 waits for its end.
        try await clock.waitForSleepers(count: 1)
        center.dispatch(Tick(n: 4))
        await center.idle()
        #expect(heard.values == [1, 3])
        clock.advance(by: .seconds(1))
        #expect(await eventually { heard.values == [1, 3, 4] })
        subscription.cancel()
    }

    @Test("debounce delivers nothing before the quiet period, the newest after; a new event restarts the wait")
    func debounceWaitsForQuiet() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        let subscription = center.listen(
            to: Tick.self, on: .background, coalescing: .debounce(for: .seconds(1), clock: clock)
        ) { heard.record($0.n) }
        center.dispatch(Tick(n: 1))
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .milliseconds(500))
        center.dispatch(Tick(n: 2))
        clock.advance(by: .milliseconds(600))
        // The timer woke at the first deadline, saw the newer one and sleeps again.
        try await clock.waitForSleepers(count: 1)
        await center.idle()
        #expect(heard.values.isEmpty)
        clock.advance(by: .milliseconds(400))
        #expect(await eventually { heard.values == [2] })
        center.dispatch(Tick(n: 3))
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        #expect(await eventually { heard.values == [2, 3] })
        subscription.cancel()
    }

    @Test("once with debounce: the first event is delivered after the quiet period, and ends the listener")
    func onceWithDebounce() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        let subscription = center.listen(
            to: Tick.self, on: .background, once: true, coalescing: .debounce(for: .seconds(1), clock: clock)
        ) { heard.record($0.n) }
        center.dispatch(Tick(n: 1))
        center.dispatch(Tick(n: 2))
        try await clock.waitForSleepers(count: 1)
        await center.idle()
        #expect(heard.values.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(await eventually { heard.values == [1] })
        #expect(!subscription.isActive)
        center.dispatch(Tick(n: 3))
        await center.idle()
        #expect(heard.values == [1])
    }

    @Test("once with latest: only the first event is delivered")
    func onceWithLatest() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .queue(shut.queue), once: true, coalescing: .latest) {
            heard.record($0.n)
        }
        for n in 1...3 { center.dispatch(Tick(n: n)) }
        shut.open()
        await center.idle()
        #expect(heard.values == [1])
        #expect(!subscription.isActive)
    }

    @Test("dispatchAndWait waits for a debounced event until the quiet period ends")
    func dispatchAndWaitWaitsForTimer() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        let subscription = center.listen(
            to: Tick.self, on: .background, coalescing: .debounce(for: .seconds(1), clock: clock)
        ) { heard.record($0.n) }
        let waiting = Task { await center.dispatchAndWait(Tick(n: 1)) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        #expect(await waiting.value.received == 1)
        #expect(heard.values == [1])
        subscription.cancel()
    }

    @Test("a listener isolated to an actor debounces too")
    func actorListenerDebounces() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let tally = CoalescedTally()
        center.listen(to: Tick.self, isolatedTo: tally, coalescing: .debounce(for: .seconds(1), clock: clock)) {
            tally, tick in tally.add(tick.n)
        }
        center.listen(to: "named", isolatedTo: tally, coalescing: .debounce(for: .seconds(1), clock: clock)) {
            tally, event in tally.add(100 + ((try? event.data(as: Int.self)) ?? 0))
        }
        for n in 1...3 {
            center.dispatch(Tick(n: n))
            center.dispatch("named", data: n)
        }
        try await clock.waitForSleepers(count: 2)
        clock.advance(by: .seconds(1))
        #expect(await eventually { await tally.heard.sorted() == [3, 103] })
        center.remove(tally)
    }
}

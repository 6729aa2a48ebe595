import Dispatch
import EventsTesting
import Foundation
import Testing

@testable import Events

@Suite("Coalescing: cancel, remove and owner death drop what waits")
struct CoalescingLifetimeTests {
    @Test("cancel drops the event a debounce holds and cancels its timer")
    func cancelDropsTimer() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        let subscription = center.listen(
            to: Carried.self, on: .background, coalescing: .debounce(for: .seconds(1), clock: clock)
        ) { heard.record($0.n) }
        var payload: Probe? = Probe("payload")
        let weakPayload = WeakBox(payload!)
        center.dispatch(Carried(n: 1, payload: payload!))
        payload = nil
        try await clock.waitForSleepers(count: 1)
        subscription.cancel()
        #expect(weakPayload.object == nil)
        #expect(await eventually { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(5))
        await center.idle()
        #expect(heard.values.isEmpty)
    }

    @Test("remove drops the event a throttle holds, cancels its timer and keeps nothing of the owner")
    func removeDropsTimer() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        var owner: Probe? = Probe("owner")
        let weakOwner = WeakBox(owner!)
        let weakPayload: WeakBox<Probe>
        do {
            center.listen(
                to: Carried.self, owner: owner!, on: .background, coalescing: .once(per: .seconds(1), clock: clock)
            ) { _, carried in heard.record(carried.n) }
            let payload = Probe("payload")
            weakPayload = WeakBox(payload)
            center.dispatch(Carried(n: 1, payload: Probe("first")))
            center.dispatch(Carried(n: 2, payload: payload))
        }
        await center.idle()
        #expect(heard.values == [1])
        try await clock.waitForSleepers(count: 1)
        center.remove(owner!)
        #expect(await eventually { clock.sleeperCount == 0 })
        #expect(weakPayload.object == nil)
        owner = nil
        #expect(weakOwner.object == nil)
        clock.advance(by: .seconds(5))
        await center.idle()
        #expect(heard.values == [1])
    }

    @Test("remove cancels the timer and drops the waiting event even while the subscription is kept")
    func removeWithKeptSubscription() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        let owner = Probe("owner")
        let subscription = center.listen(
            to: Carried.self, owner: owner, on: .background, coalescing: .debounce(for: .seconds(1), clock: clock)
        ) { _, carried in heard.record(carried.n) }
        var payload: Probe? = Probe("payload")
        let weakPayload = WeakBox(payload!)
        center.dispatch(Carried(n: 1, payload: payload!))
        payload = nil
        try await clock.waitForSleepers(count: 1)
        center.remove(owner)
        #expect(weakPayload.object == nil)
        #expect(await eventually { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(5))
        await center.idle()
        #expect(heard.values.isEmpty)
        #expect(!subscription.isActive)
    }

    @Test("an owner that dies while a debounce waits is released, and its event is never delivered")
    func ownerDeathDropsEvent() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let heard = Recorder<Int>()
        var owner: Probe? = Probe("owner")
        let weakOwner = WeakBox(owner!)
        center.listen(
            to: Tick.self, owner: owner!, on: .background, coalescing: .debounce(for: .seconds(1), clock: clock)
        ) { _, tick in heard.record(tick.n) }
        center.dispatch(Tick(n: 1))
        try await clock.waitForSleepers(count: 1)
        owner = nil
        #expect(weakOwner.object == nil)
        clock.advance(by: .seconds(1))
        // The timer finds the owner gone and ends.
        #expect(await eventually { clock.sleeperCount == 0 })
        await center.idle()
        #expect(heard.values.isEmpty)
    }

    @Test("an owner that dies while a latest event is queued is skipped")
    func ownerDeathSkipsQueued() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let heard = Recorder<Int>()
        var owner: Probe? = Probe("owner")
        let weakOwner = WeakBox(owner!)
        center.listen(to: Tick.self, owner: owner!, on: .queue(shut.queue), coalescing: .latest) { _, tick in
            heard.record(tick.n)
        }
        center.dispatch(Tick(n: 1))
        owner = nil
        #expect(weakOwner.object == nil)
        shut.open()
        await center.idle()
        #expect(heard.values.isEmpty)
    }
}

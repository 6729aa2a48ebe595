import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Events

protocol CartChange: Event { var cart: String { get } }
protocol Unheard: Event {}
struct ItemAdded: CartChange { let cart: String }
struct CartEmptied: CartChange { let cart: String }
struct PriceChanged: Event { let sku: String }
/// Larger than an existential's inline buffer, so that boxing it for families allocates.
struct BigCartChange: CartChange {
    let cart: String
    let a: Int, b: Int, c: Int
}

class ShopEvent: Event, @unchecked Sendable {
    // Why @unchecked is safe: no stored state.
    var label: String { "shop" }
}
final class ShopOpened: ShopEvent, @unchecked Sendable {
    // Why @unchecked is safe: no stored state.
    override var label: String { "opened" }
}

@Suite("Families of events")
struct FamilyTests {
    @Test("a protocol family hears every conforming type and nothing else")
    func protocolFamily() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let subscription = center.listen(to: (any CartChange).self) { event in
            heard.record("\(type(of: event)) \(event.cart)")
        }
        center.dispatch(ItemAdded(cart: "a"))
        center.dispatch(PriceChanged(sku: "tea"))
        center.dispatch(CartEmptied(cart: "b"))
        #expect(heard.values == ["ItemAdded a", "CartEmptied b"])
        subscription.cancel()
    }

    @Test("a type found in no family is heard by a family listened to later, on every thread")
    func familyAddedAfterMembershipWasCached() async {
        let center = EventCenter()
        let heard = Recorder<String>()
        let unheard = center.listen(to: (any Unheard).self) { _ in heard.record("unheard") }
        let own = center.listen(to: ItemAdded.self) { event in heard.record("own " + event.cart) }
        // Dispatched from two threads, so that both stripes note ItemAdded as in no family.
        center.dispatch(ItemAdded(cart: "a"))
        await Task.detached { center.dispatch(ItemAdded(cart: "b")) }.value
        let family = center.listen(to: (any CartChange).self) { event in heard.record("family " + event.cart) }
        center.dispatch(ItemAdded(cart: "c"))
        await Task.detached { center.dispatch(ItemAdded(cart: "d")) }.value
        #expect(heard.values == ["own a", "own b", "own c", "family c", "own d", "family d"])
        withExtendedLifetime((unheard, own, family)) {}
    }

    @Test("a base class found in no family does not hide a subclass instance's family")
    func subclassInstanceOfFamilyFreeClass() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let unheard = center.listen(to: (any Unheard).self) { _ in heard.record("unheard") }
        let opened = center.listen(toAll: ShopOpened.self) { event in heard.record("opened family " + event.label) }
        center.dispatch(ShopEvent())
        center.dispatch(ShopEvent())
        center.dispatch(ShopOpened() as ShopEvent)
        #expect(heard.values == ["opened family opened"])
        withExtendedLifetime((unheard, opened)) {}
    }

    @Test("a class family hears the class and its subclasses, by the instance's own class")
    func classFamily() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let all = center.listen(toAll: ShopEvent.self) { event in heard.record(event.label) }
        let opened = center.listen(toAll: ShopOpened.self) { event in heard.record("only " + event.label) }
        center.dispatch(ShopEvent())
        center.dispatch(ShopOpened())
        // Dispatched as its base class: the instance is a ShopOpened, so that family hears it.
        center.dispatch(ShopOpened() as ShopEvent)
        #expect(heard.values == ["shop", "opened", "only opened", "opened", "only opened"])
        withExtendedLifetime((all, opened)) {}
    }

    @Test("every event (any Event) hears typed events and named events")
    func everyEvent() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let log = center.listen(to: (any Event).self) { event in
            if let named = event as? NamedEvent {
                heard.record("name \(named.name)")
            } else {
                heard.record("\(type(of: event))")
            }
        }
        #expect(center.dispatch(PriceChanged(sku: "tea")) == 1)
        #expect(center.dispatch(EventName("shop.closed")) == 1)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 1)
        #expect(heard.values == ["PriceChanged", "name shop.closed", "ItemAdded"])
        log.cancel()
    }

    @Test(
        "family listeners run by priority with the event's own; at a tie own first, then families in registration order"
    )
    func ordering() {
        let center = EventCenter()
        let order = Recorder<String>()
        var subscriptions: [Subscription] = []
        subscriptions.append(center.listen(to: (any Event).self) { _ in order.record("all default 1") })
        subscriptions.append(center.listen(to: ItemAdded.self) { _ in order.record("own default") })
        subscriptions.append(
            center.listen(to: (any CartChange).self, priority: .high) { _ in order.record("cart high") })
        subscriptions.append(center.listen(to: (any CartChange).self) { _ in order.record("cart default 2") })
        subscriptions.append(center.listen(to: ItemAdded.self, priority: .low) { _ in order.record("own low") })
        subscriptions.append(center.listen(to: (any Event).self, priority: .low) { _ in order.record("all low") })
        subscriptions.append(center.listen(to: ItemAdded.self, priority: .high) { _ in order.record("own high") })
        subscriptions.append(center.listen(to: (any Event).self) { _ in order.record("all default 3") })
        #expect(center.dispatch(ItemAdded(cart: "a")) == 8)
        #expect(
            order.values == [
                "own high", "cart high", "own default", "all default 1", "cart default 2", "all default 3", "own low",
                "all low",
            ])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("a family listener registered from: a sender hears only that sender")
    func senderFilter() {
        let center = EventCenter()
        let cartScreen = Probe("cart")
        let other = Probe("other")
        let heard = Recorder<String>()
        let subscription = center.listen(to: Sent<any CartChange>.self, from: cartScreen) { sent in
            heard.record(sent.event.cart + " " + (sent.sender?.object(as: Probe.self)?.name ?? "nobody"))
        }
        #expect(center.dispatch(ItemAdded(cart: "a"), from: other) == 0)
        #expect(center.dispatch(ItemAdded(cart: "b")) == 0)
        #expect(center.dispatch(ItemAdded(cart: "c"), from: cartScreen) == 1)
        #expect(heard.values == ["c cart"])
        subscription.cancel()
    }

    @Test("an owner-bound family listener is never called after its owner deinitializes, and is removed")
    func ownerDeath() {
        let center = EventCenter()
        var owner: Probe? = Probe()
        center.listen(to: (any CartChange).self, owner: owner!) { owner, _ in owner.received.increment() }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 1)
        #expect(owner?.received.value == 1)
        #expect(center.listenerCount(for: (any CartChange).self) == 1)
        owner = nil
        #expect(center.listenerCount(for: (any CartChange).self) == 0)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 0)
        #expect(center.listenerCount == 0)
    }

    @Test("a keyed owner-bound family registration repeated is ignored; remove by family and key ends it")
    func keyedRegistrationAndRemoval() {
        let center = EventCenter()
        let owner = Probe()
        let first = center.listen(to: (any CartChange).self, owner: owner, key: "badge") { owner, _ in
            owner.received.increment()
        }
        let second = center.listen(to: (any CartChange).self, owner: owner, key: "badge") { _, _ in
            Issue.record("the repeated registration must be ignored")
        }
        #expect(first == second)
        center.listen(to: (any Event).self, owner: owner) { owner, _ in owner.received.increment() }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 2)
        center.remove(owner, key: "badge", for: (any CartChange).self)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 1)
        center.remove(owner, for: (any Event).self)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 0)
        #expect(owner.received.value == 3)
        center.listen(to: (any Event).self, owner: owner) { owner, _ in owner.received.increment() }
        center.remove(owner)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 0)
    }

    @Test("a type that matches no family reaches its own listeners only")
    func noMatch() {
        let center = EventCenter()
        let unheard = center.listen(to: (any Unheard).self) { _ in Issue.record("no event is Unheard") }
        let own = Counter()
        let subscription = center.listen(to: PriceChanged.self) { _ in own.increment() }
        #expect(center.dispatch(PriceChanged(sku: "tea")) == 1)
        #expect(center.dispatch(PriceChanged(sku: "tea")) == 1)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 0)
        #expect(own.value == 2)
        withExtendedLifetime((unheard, subscription)) {}
    }

    @Test("a family listened to after a type was dispatched (and its matches cached) hears the next dispatch")
    func cacheInvalidation() {
        let center = EventCenter()
        let unheard = center.listen(to: (any Unheard).self) { _ in }
        // Caches "ItemAdded matches no family".
        #expect(center.dispatch(ItemAdded(cart: "a")) == 0)
        let heard = Counter()
        let cart = center.listen(to: (any CartChange).self) { _ in heard.increment() }
        #expect(center.dispatch(ItemAdded(cart: "b")) == 1)
        let all = center.listen(to: (any Event).self) { _ in heard.increment() }
        #expect(center.dispatch(ItemAdded(cart: "c")) == 2)
        #expect(heard.value == 3)
        withExtendedLifetime((unheard, cart, all)) {}
    }

    @Test("cancelled family listeners are not called; once none is left, dispatch takes the plain path again")
    func removalClearsTheFlag() {
        let center = EventCenter()
        let first = center.listen(to: (any CartChange).self) { _ in }
        let second = center.listen(to: (any Event).self, once: true) { _ in }
        #expect(center.flags.load(ordering: .relaxed) & SlowPathFlags.families != 0)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 2)  // ends the once listener
        first.cancel()
        #expect(center.dispatch(ItemAdded(cart: "a")) == 0)
        // That dispatch found no family list left and cleared the flag.
        #expect(center.flags.load(ordering: .relaxed) & SlowPathFlags.families == 0)
        let third = center.listen(to: (any CartChange).self) { _ in }
        #expect(center.flags.load(ordering: .relaxed) & SlowPathFlags.families != 0)
        #expect(center.dispatch(ItemAdded(cart: "a")) == 1)
        withExtendedLifetime((second, third)) {}
    }

    @Test("a listener cancelled during a dispatch is not called later in it, own or family")
    func cancelDuringDispatch() {
        let center = EventCenter()
        let calls = Recorder<String>()
        let family = Mutex<Subscription?>(nil)
        let own = center.listen(to: ItemAdded.self, priority: .high) { _ in
            calls.record("own")
            family.withLock { $0?.cancel() }
        }
        family.withLock { $0 = center.listen(to: (any CartChange).self) { _ in calls.record("family") } }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 1)
        #expect(calls.values == ["own"])
        let late = Mutex<Subscription?>(nil)
        let canceller = center.listen(to: (any Event).self, priority: .high) { _ in
            calls.record("all")
            late.withLock { $0?.cancel() }
        }
        late.withLock { $0 = center.listen(to: PriceChanged.self) { _ in calls.record("price") } }
        #expect(center.dispatch(PriceChanged(sku: "tea")) == 1)
        #expect(calls.values == ["own", "all"])
        withExtendedLifetime((own, canceller)) {}
    }

    @Test("a once family listener receives one event while threads dispatch at once")
    func onceUnderConcurrency() async {
        let center = EventCenter()
        let received = Counter()
        let results = Counter()
        let subscription = center.listen(to: (any CartChange).self, once: true) { _ in received.increment() }
        await runOnThreads(8) { _ in
            for _ in 0..<200 { results.increment(by: center.dispatch(ItemAdded(cart: "a"))) }
        }
        #expect(received.value == 1)
        #expect(results.value == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test("family listeners come and go while threads dispatch, and each dispatch's count matches its calls")
    func churnUnderConcurrency() async {
        let center = EventCenter()
        let calls = Counter()
        let counted = Counter()
        let own = center.listen(to: ItemAdded.self) { _ in calls.increment() }
        await runOnThreads(4) { thread in
            for round in 0..<150 {
                if thread == 0 {
                    let family = center.listen(to: (any CartChange).self) { _ in calls.increment() }
                    if round % 2 == 0 { family.cancel() }
                    let all = center.listen(to: (any Event).self, owner: Probe()) { _, _ in calls.increment() }
                    all.cancel()
                } else {
                    counted.increment(by: center.dispatch(ItemAdded(cart: "a")))
                    counted.increment(by: center.dispatch(PriceChanged(sku: "tea")))
                }
            }
        }
        #expect(calls.value == counted.value)
        withExtendedLifetime(own) {}
    }

    @Test("dispatch counts family listeners; dispatchAndWait reports them, queued ones included")
    func countsAndReports() async {
        let center = EventCenter()
        struct Refused: Error {}
        let ranInBackground = Counter()
        let own = center.listen(to: ItemAdded.self) { _ in }
        let family = center.listen(to: (any CartChange).self) { _ in throw Refused() }
        let queued = center.listen(to: (any Event).self, on: .background) { _ in ranInBackground.increment() }
        center.errorHandler = { _ in }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 3)
        let report = await center.dispatchAndWait(ItemAdded(cart: "b"))
        #expect(report.received == 3)
        #expect(report.failures.count == 1)
        #expect(ranInBackground.value == 2)
        let named = await center.dispatchAndWait(EventName("cart.saved"))
        #expect(named.received == 1)
        await center.idle()
        #expect(ranInBackground.value == 3)
        withExtendedLifetime((own, family, queued)) {}
    }

    @Test("registrations list family listeners under their family; listenerCount(for:) counts one exact type")
    func diagnosticsListThem() {
        let center = EventCenter()
        let owner = Probe()
        let own = center.listen(to: ItemAdded.self) { _ in }
        center.listen(to: (any CartChange).self, owner: owner, key: "badge") { _, _ in }
        let all = center.listen(to: (any Event).self) { _ in }
        let registrations = center.registrations()
        #expect(registrations.count == 3)
        let cart = registrations.listeners(to: "Family<CartChange>")
        #expect(cart.count == 1)
        #expect(cart.first?.ownerType == "Probe")
        #expect(cart.first?.key == "badge")
        #expect(registrations.listeners(to: "Family<Event>").count == 1)
        #expect(center.listenerCount(for: ItemAdded.self) == 1)
        #expect(center.listenerCount(for: (any CartChange).self) == 1)
        #expect(center.listenerCount == 3)
        #expect(center.registrations(ownedBy: owner).count == 1)
        withExtendedLifetime((own, all)) {}
    }

    @Test("with diagnostics on, family listeners are traced, counted and drawn")
    func observed() {
        let center = EventCenter()
        let tracer = CollectingTracer()
        center.tracer = tracer
        center.diagnostics = .development
        let own = center.listen(to: ItemAdded.self) { _ in }
        let family = center.listen(to: (any CartChange).self, priority: .high) { _ in }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 2)
        #expect(center.dispatch(PriceChanged(sku: "tea")) == 0)
        let traces = tracer.traces.values
        #expect(traces.count == 2)
        #expect(traces.first?.received == 2)
        #expect(traces.first?.listeners.first?.callSite == family.callSite)
        #expect(center.registrations().listeners(to: "Family<CartChange>").first?.received == 1)
        #expect(center.topology().nodes.contains { $0.label == "Family<CartChange>" })
        center.tracer = nil
        center.diagnostics = .off
        #expect(center.dispatch(ItemAdded(cart: "a")) == 2)
        withExtendedLifetime((own, family)) {}
    }

    @Test("events too large for an existential's buffer reach family listeners intact")
    func largeEvents() {
        let center = EventCenter()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: (any CartChange).self) { event in
            if let big = event as? BigCartChange { heard.record(big.a + big.b + big.c) }
        }
        center.dispatch(BigCartChange(cart: "a", a: 1, b: 2, c: 3))
        #expect(heard.values == [6])
        subscription.cancel()
    }
}

/// Keeps every dispatch trace.
final class CollectingTracer: EventTracer {
    let traces = Recorder<DispatchTrace>()
    func didDispatch(_ trace: DispatchTrace) { traces.record(trace) }
}

import Events
import Foundation
import Synchronization

// A shop app: the cart announces every change, a badge that appears late still shows the
// cart, a validator refuses an empty checkout before payment hears of it, and a deep link
// that arrives during launch waits for the screen that opens it; a summary panel refreshes once
// per main-actor turn however many changes a turn makes.

struct CartChanged: Event {
    let items: Int
}

struct CheckoutRequested: Event {
    let items: Int
}

struct DeepLinkOpened: Event {
    let path: String
}

/// The cart: keeps its count as the current value of `CartChanged`.
private final class Cart: Sendable {
    private let center: EventCenter

    init(center: EventCenter) {
        self.center = center
    }

    func set(items: Int) {
        center.dispatch(CartChanged(items: items), from: self, keepingCurrent: .perType)
    }
}

@MainActor
func runShopDemo() async {
    let timeline = Timeline("shop: current values, a validator that stops checkout, a held deep link")
    let center = EventFlow.center(for: "shop")
    let cart = Cart(center: center)

    timeline.step("launch: a deep link arrives before any screen listens")
    let heard = center.dispatch(DeepLinkOpened(path: "/orders/7"), holdingIfUnheard: .for(.seconds(30)))
    timeline.note("dispatch reached \(heard) listeners: the link is held for the first one")

    timeline.step("the cart fills up before the badge exists")
    cart.set(items: 1)
    cart.set(items: 2)
    timeline.note("current value kept: \(center.currentValue(of: CartChanged.self)?.items ?? 0) items")

    timeline.step("the badge appears and asks for the current value")
    let badge = center.listen(to: CartChanged.self, on: .mainOrdered, receivingCurrent: true) { cart in
        timeline.call("badge", "shows \(cart.items)")
    }
    await center.idle()

    timeline.step("the cart changes again")
    cart.set(items: 3)
    await center.idle()

    timeline.step("a quick burst of five changes: the summary panel refreshes once per main-actor turn")
    let refreshes = Counter()
    let summary = center.listen(to: CartChanged.self, on: .main, coalescing: .mainActorTurn) { cart in
        refreshes.increment()
        timeline.call("summary panel", "refreshes once, showing \(cart.items) items")
    }
    for items in 4...8 { cart.set(items: items) }
    await center.idle()
    timeline.note("five changes, \(refreshes.value) refresh; the badge, not coalesced, showed each")

    timeline.step("checkout: a validator at high priority guards payment")
    let validator = center.intercept(CheckoutRequested.self, priority: .high) { request in
        guard request.items > 0 else {
            timeline.call("validator", "refuses an empty cart")
            return .stop
        }
        timeline.call("validator", "accepts \(request.items) items")
        return .continue
    }
    let payment = center.listen(to: CheckoutRequested.self) { request in
        timeline.call("payment", "charges for \(request.items) items")
    }
    let accepted = center.dispatchWithResult(CheckoutRequested(items: 3))
    timeline.note("stopped: \(accepted.isStopped), reached \(accepted.received) listeners")
    let refused = center.dispatchWithResult(CheckoutRequested(items: 0))
    timeline.note("stopped: \(refused.isStopped), by the listener at \(refused.stoppedBy?.location ?? "-")")

    timeline.step("the orders screen appears and listens for deep links")
    let router = center.listen(to: DeepLinkOpened.self) { link in
        timeline.call("orders screen", "opens \(link.path) (held since launch)")
    }
    timeline.step("a second screen listens too: the held link was for the first one only")
    let other = center.listen(to: DeepLinkOpened.self) { link in
        timeline.call("second screen", "opens \(link.path)")
    }
    timeline.note("nothing for the second screen")
    withExtendedLifetime((badge, summary, validator, payment, router, other)) {}
}

/// Counts from any thread.
private final class Counter: Sendable {
    private let storage = Atomic<Int>(0)
    func increment() { storage.add(1, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}

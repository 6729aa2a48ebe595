import Dispatch
import Foundation
import Testing

@testable import Events

@MainActor
private final class CartIcon {
    var carts: [String] = []
}

@Suite("Families of events on the main actor")
struct FamilyMainActorTests {
    @Test("a main-actor family listener hears events dispatched on other threads, in order")
    @MainActor
    func mainActorFamily() async {
        let center = EventCenter()
        let icon = CartIcon()
        let subscription = center.listen(to: (any CartChange).self, on: .main) { event in
            icon.carts.append(event.cart)
        }
        await runOnThreads(1) { _ in
            center.dispatch(ItemAdded(cart: "a"))
            center.dispatch(PriceChanged(sku: "tea"))
            center.dispatch(CartEmptied(cart: "b"))
        }
        await center.idle()
        #expect(icon.carts == ["a", "b"])
        // Dispatched on the main thread, a `.main` listener runs inside dispatch.
        center.dispatch(ItemAdded(cart: "c"))
        #expect(icon.carts == ["a", "b", "c"])
        subscription.cancel()
    }

    @Test("an owner-bound main-actor family listener ends with its owner")
    @MainActor
    func mainActorOwner() async {
        let center = EventCenter()
        var icon: CartIcon? = CartIcon()
        weak let watched = icon
        center.listen(to: (any Event).self, owner: icon!, on: .mainOrdered) { icon, event in
            icon.carts.append("\(type(of: event))")
        }
        center.dispatch(ItemAdded(cart: "a"))
        await center.idle()
        #expect(icon?.carts == ["ItemAdded"])
        icon = nil
        #expect(watched == nil)
        #expect(center.dispatch(ItemAdded(cart: "b")) == 0)
        await center.idle()
    }
}

import Testing

@testable import Events

@Suite("Families of events and stop propagation")
struct FamilyStopPropagationTests {
    @Test("an own listener that stops keeps the family listeners after it from the event, not those before")
    func ownStopStopsFamilies() async {
        let center = EventCenter()
        let order = Recorder<String>()
        let before = center.listen(to: (any CartChange).self, priority: .high) { _ in order.record("family high") }
        let validator = center.intercept(ItemAdded.self) { (_: ItemAdded) -> Propagation in
            order.record("validator")
            return .stop
        }
        // Same priority as the validator: own listeners run first, so this one is after it.
        let after = center.listen(to: (any Event).self) { _ in order.record("every event") }
        let late = center.listen(to: (any CartChange).self, priority: .low) { _ in order.record("family low") }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 2)
        #expect(order.values == ["family high", "validator"])
        let result = center.dispatchWithResult(ItemAdded(cart: "b"))
        #expect(result.received == 2)
        #expect(result.isStopped)
        let report = await center.dispatchAndWait(ItemAdded(cart: "c"))
        #expect(report.received == 2)
        // A type the validator does not hear reaches every family listener.
        #expect(center.dispatchWithResult(CartEmptied(cart: "d")).received == 3)
        withExtendedLifetime((before, validator, after, late)) {}
    }

    @Test("with diagnostics on, a stop by an own listener ends the merged loop too")
    func observedStop() {
        let center = EventCenter()
        center.diagnostics = .development
        let heard = Counter()
        let validator = center.intercept(ItemAdded.self, priority: .high) { (_: ItemAdded) -> Propagation in .stop }
        let family = center.listen(to: (any CartChange).self) { _ in heard.increment() }
        #expect(center.dispatch(ItemAdded(cart: "a")) == 1)
        #expect(heard.value == 0)
        #expect(center.dispatch(CartEmptied(cart: "a")) == 1)
        #expect(heard.value == 1)
        withExtendedLifetime((validator, family)) {}
    }
}

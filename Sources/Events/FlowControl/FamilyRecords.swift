/// Names the list of the listeners of every `P` (`listen(to: P.self)` for a protocol or a class), and stands for it in
/// diagnostics: `registrations()` and the topology show such a listener as `Family<P>`. No event
/// has this type, so no typed listener shares the list.
enum Family<P> {
    static var key: EventKey { .type(ObjectIdentifier(Family<P>.self)) }
}

/// What family listeners are handed: the dispatched event, boxed once per dispatch. Each
/// listener's record turns it into its own `P` when it runs (in its own context, for a queued
/// listener), so only a `Sendable` value ever crosses threads.
@usableFromInline
struct FamilyEvent: Event {
    @usableFromInline let event: any Event

    @inlinable
    init(event: any Event) {
        self.event = event
    }
}

extension Event {
    /// This event as a `P`. Only called for an event of a type that the family index found to
    /// be a `P` (`FamilyIndex.keys(for:)`, which tests `is P` on the same dynamic type), so the
    /// cast cannot fail.
    func member<P>(of family: P.Type) -> P {
        self as! P
    }
}

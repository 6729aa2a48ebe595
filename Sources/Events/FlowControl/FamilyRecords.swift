/// Names the list of the listeners of every `P` (`listen(toAll: P.self)`), and stands for it in
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

/// A posting-thread family listener. It is a listener of `FamilyEvent`, so that the dispatch
/// loop's per-listener delivery (sender filter, owner, claim, once, errors, reports) serves it
/// unchanged.
final class FamilyHandlerRecord<P>: TypedListenerRecord<FamilyEvent>, @unchecked Sendable {
    let handler: @Sendable (_ owner: AnyObject?, _ event: P, _ sender: Sender?) throws -> Void

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        handler: @escaping @Sendable (_ owner: AnyObject?, _ event: P, _ sender: Sender?) throws -> Void
    ) {
        self.handler = handler
        super.init(registry: registry, shape: .general, once: once, callSite: callSite, details: details)
    }

    override var eventType: Any.Type { Family<P>.self }
    override var typedEventID: ObjectIdentifier { ObjectIdentifier(Family<P>.self) }

    override func invoke(_ owner: AnyObject?, _ event: FamilyEvent, _ sender: Sender?) throws {
        try handler(owner, event.event.member(of: P.self), sender)
    }
}

/// A family listener whose handler runs in another context, reached through its route.
final class FamilyRoutedRecord<P>: TypedListenerRecord<FamilyEvent>, @unchecked Sendable {
    let storedRoute: any AsyncRoute<FamilyEvent>
    private let storedContext: ListenerContext

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        route: any AsyncRoute<FamilyEvent>, context: ListenerContext
    ) {
        self.storedRoute = route
        self.storedContext = context
        super.init(registry: registry, shape: .routed, once: once, callSite: callSite, details: details)
    }

    override var eventType: Any.Type { Family<P>.self }
    override var typedEventID: ObjectIdentifier { ObjectIdentifier(Family<P>.self) }
    override var route: any AsyncRoute<FamilyEvent> { storedRoute }
    override var context: ListenerContext { storedContext }
}

extension Event {
    /// This event as a `P`. Only called for an event of a type that the family index found to
    /// be a `P` (`FamilyIndex.keys(for:)`, which tests `is P` on the same dynamic type), so the
    /// cast cannot fail.
    func member<P>(of family: P.Type) -> P {
        self as! P
    }
}

/// A posting-thread listener whose handler takes the event alone (the most common form): it
/// stores the user's closure as is, with no wrapper closure around it.
@usableFromInline
final class EventOnlyHandlerRecord<E: Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    @usableFromInline let body: @Sendable (E) throws -> Void

    @usableFromInline
    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        body: @escaping @Sendable (E) throws -> Void
    ) {
        self.body = body
        super.init(registry: registry, shape: .eventOnly, once: once, callSite: callSite, details: details)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        try body(event)
    }
}

/// A posting-thread listener whose handler says whether the event goes on to the listeners
/// after it. Its owner, when it has one, sits in its details.
@usableFromInline
final class StoppingHandlerRecord<E: Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    // Why @unchecked is safe: the only stored property added is a `let` of a `@Sendable` closure.

    @usableFromInline let handler: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Propagation

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        handler: @escaping @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Propagation
    ) {
        self.handler = handler
        super.init(registry: registry, shape: .stopping, once: once, callSite: callSite, details: details)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        _ = try handler(owner, event, sender)
    }
}

/// A posting-thread listener with a handler of the general shape (owner, event, sender).
final class HandlerRecord<E: Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    let handler: @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?,
        handler: @escaping @Sendable (_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws -> Void
    ) {
        self.handler = handler
        super.init(registry: registry, shape: .general, once: once, callSite: callSite, details: details)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        try handler(owner, event, sender)
    }
}

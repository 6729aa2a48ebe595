/// A listener whose handler runs in another context, reached through its route.
final class RoutedRecord<E: Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    let storedRoute: any AsyncRoute<E>
    private let storedContext: ListenerContext

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?, route: any AsyncRoute<E>,
        context: ListenerContext
    ) {
        self.storedRoute = route
        self.storedContext = context
        super.init(registry: registry, shape: .routed, once: once, callSite: callSite, details: details)
    }

    override var route: any AsyncRoute<E> { storedRoute }
    override var context: ListenerContext { storedContext }
}

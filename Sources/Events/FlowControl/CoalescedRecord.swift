/// The record of a coalesced listener: routed through its coalescer, which it owns, and told
/// when it is cancelled, so that the coalescer drops what waits and stops its timer at once.
final class CoalescedRecord<E: Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    // Why @unchecked is safe: both stored properties are immutable and Sendable.
    let coalescer: Coalescer<E>
    private let storedContext: ListenerContext

    init(
        registry: Registry, once: Bool, callSite: CallSite, details: ListenerDetails?, coalescer: Coalescer<E>,
        context: ListenerContext
    ) {
        self.coalescer = coalescer
        self.storedContext = context
        super.init(
            registry: registry, shape: ListenerRecord.Shape.routed.withCancelHook, once: once, callSite: callSite,
            details: details)
    }

    override var route: any AsyncRoute<E> { CoalescingRoute(coalescer: coalescer) }
    override var context: ListenerContext { storedContext }

    override func didCancel() {
        coalescer.close()
    }
}

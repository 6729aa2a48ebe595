/// The listener of an ``EventStream``: it pushes each event into the stream's buffer, and ends
/// the sequence when the listener is cancelled or removed, so that a consumer's `for await`
/// loop ends rather than waiting for events that can no longer come.
///
/// Every removal that ends a listener (its subscription's `cancel()`, `removeAllListeners` by
/// type, by name or of everything) calls `didCancel()` once, after the record left its list.
/// A listener whose sender filter ends it (the sender deinitialized) is not cancelled, and its
/// stream does not end: that is the rule ``EventCenter/events(of:from:bufferingPolicy:receivingCurrent:file:line:)``
/// states.
final class StreamRecord<E: Sendable>: TypedListenerRecord<E>, @unchecked Sendable {
    // Why @unchecked is safe: the one stored property is immutable, and the buffer is Sendable.
    let buffer: EventBuffer<E>

    init(registry: Registry, callSite: CallSite, details: ListenerDetails?, buffer: EventBuffer<E>) {
        self.buffer = buffer
        super.init(
            registry: registry, shape: ListenerRecord.Shape.general.withCancelHook, once: false, callSite: callSite,
            details: details)
    }

    override func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        buffer.push(event)
    }

    override func didCancel() {
        buffer.finish()
    }
}

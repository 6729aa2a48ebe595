/// What one synchronous dispatch did: how many listeners received the event, and whether a
/// listener stopped its propagation.
///
/// Returned by ``EventCenter/dispatchWithResult(_:from:file:line:)``:
///
/// ```swift
/// struct Submitted: Event { let form: String }
///
/// let formCenter = EventCenter()
/// let guardrail = formCenter.listen(to: Submitted.self, priority: .high) { _ in .stop }
/// let outcome = formCenter.dispatchWithResult(Submitted(form: "signup"))
/// if let stopper = outcome.stoppedBy {
///     print("stopped by the listener at", stopper.location)
/// }
/// ```
public struct DispatchResult: Sendable, CustomStringConvertible {
    /// How many listeners received the event, as `dispatch` returns it: handlers called, plus
    /// listeners in other contexts to which it was handed, up to and including the listener
    /// that stopped it.
    public let received: Int
    let stopper: ListenerRecord?

    init(received: Int, stopper: ListenerRecord?) {
        self.received = received
        self.stopper = stopper
    }

    /// Whether a listener returned ``Propagation/stop``, so that the listeners after it did not
    /// receive the event.
    public var isStopped: Bool { stopper != nil }

    /// The registration of the listener that stopped propagation: its event, owner type, key,
    /// priority and call site. Nil when no listener stopped it.
    public var stoppedBy: EventRegistrations.Listener? {
        stopper.map { EventRegistrations.Listener($0, counting: false, failures: 0) }
    }

    public var description: String {
        guard let stoppedBy else { return "DispatchResult(received: \(received))" }
        return "DispatchResult(received: \(received), stopped by \(stoppedBy.location))"
    }
}

/// What happened to one event sent with ``EventCenter/dispatchAndWait(_:from:isolation:)``.
///
/// ```swift
/// let report = await center.dispatchAndWait(Saved(id: 7))
/// if !report.failures.isEmpty { print("some listeners failed:", report.failures) }
/// ```
public struct DispatchReport: Sendable, CustomStringConvertible {
    /// How many handlers ran with the event, in every context (failed ones included). A queued
    /// listener whose owner was gone, or that was cancelled, before its turn is not counted.
    public let received: Int
    /// The handlers that threw, with their errors and call sites.
    public let failures: [ListenerFailure]

    let stopper: ListenerRecord?

    init(received: Int, failures: [ListenerFailure], stopper: ListenerRecord? = nil) {
        self.received = received
        self.failures = failures
        self.stopper = stopper
    }

    /// How many handlers ran and returned normally.
    public var succeeded: Int { received - failures.count }

    /// Whether a posting-thread listener returned ``Propagation/stop``, so that the listeners
    /// after it did not receive the event.
    public var isStopped: Bool { stopper != nil }

    /// The registration of the listener that stopped propagation (its event, owner type, key,
    /// priority and call site), or nil.
    public var stoppedBy: EventRegistrations.Listener? {
        stopper.map { EventRegistrations.Listener($0, counting: false, failures: 0) }
    }

    public var description: String {
        let stop = stoppedBy.map { ", stopped by \($0.location)" } ?? ""
        return "DispatchReport(received: \(received), failures: \(failures.count)\(stop))"
    }
}

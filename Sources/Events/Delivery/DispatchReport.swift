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

    /// How many handlers ran and returned normally.
    public var succeeded: Int { received - failures.count }

    public var description: String {
        "DispatchReport(received: \(received), failures: \(failures.count))"
    }
}

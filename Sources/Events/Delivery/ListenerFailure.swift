import Foundation

/// An error thrown by a listener's handler, with what is needed to find that listener.
///
/// A throwing handler never stops the other listeners of the event. Its error goes to the
/// center's ``EventCenter/errorHandler`` and, for ``EventCenter/dispatchAndWait(_:from:isolation:)``,
/// into the returned ``DispatchReport``.
public struct ListenerFailure: Error, Sendable, CustomStringConvertible {
    /// What the handler threw.
    public let error: any Error
    /// The name of the event type (or "named event \"name\"") the listener was handling.
    public let event: String
    /// Where the failing listener was registered.
    public let callSite: CallSite

    public var description: String {
        "a listener of \(event) registered at \(callSite) threw: \(error)"
    }
}

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

/// The default error handler: one line on standard error, naming the event type, the error and
/// the listener's call site.
func printListenerFailure(_ failure: ListenerFailure) {
    FileHandle.standardError.write(Data("swift-events: \(failure)\n".utf8))
}

/// A settable, thread-safe home for the center's error handler.
final class ErrorHandlerBox: @unchecked Sendable {
    // Why @unchecked is safe: `handler` is only read and written inside `lock`.
    private let lock = Lock()
    private var handler: @Sendable (ListenerFailure) -> Void = printListenerFailure

    var value: @Sendable (ListenerFailure) -> Void {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }
}

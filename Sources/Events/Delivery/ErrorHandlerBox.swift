import Foundation

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

/// A delegate whose call threw during `invokeCollectingFailures`, and what it threw.
///
/// ``MulticastDelegate/invokeCollectingFailures(_:)`` and
/// ``MainActorMulticastDelegate/invokeCollectingFailures(_:)`` call every delegate even when
/// some throw, and return one `DelegateFailure` per delegate that threw, in order of addition:
///
/// ```swift
/// protocol StorageDelegate: AnyObject, Sendable {
///     func flush() throws
/// }
/// let storages = MulticastDelegate<any StorageDelegate>()
/// for failure in storages.invokeCollectingFailures({ try $0.flush() }) {
///     print(failure)                 // "delegate FileCache (0x…) threw: diskFull"
///     storages.remove(failure.delegate)
/// }
/// ```
///
/// A failure holds its delegate strongly, so that the caller can act on it (remove it, retry,
/// report it) even though the multicast delegate itself holds it weakly: a delegate stays alive
/// for as long as a failure that names it is kept. Handle failures and let them go; do not
/// store them for long.
///
/// `DelegateFailure` is `Sendable` when the delegate is. It is not an `Error`: an error must be
/// `Sendable`, and main-actor delegates are not; throw its `error` to pass a failure on.
public struct DelegateFailure<Delegate>: CustomStringConvertible {
    /// The delegate whose call threw, held strongly (see above).
    public let delegate: Delegate
    /// What the call threw.
    public let error: any Error

    /// Creates a failure of `delegate` with `error`.
    public init(delegate: Delegate, error: any Error) {
        self.delegate = delegate
        self.error = error
    }

    /// The delegate's type and identity, then the error, for a log line.
    public var description: String {
        let object = delegate as AnyObject
        let address = String(UInt(bitPattern: ObjectIdentifier(object)), radix: 16)
        return "delegate \(type(of: object)) (0x\(address)) threw: \(error)"
    }
}

extension DelegateFailure: Sendable where Delegate: Sendable {}

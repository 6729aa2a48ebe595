/// Why bytes are not a valid CloudEvent.
public struct CloudEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words.
    public let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "invalid CloudEvent: \(reason)" }
}

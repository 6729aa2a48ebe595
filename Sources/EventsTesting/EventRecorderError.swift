/// Thrown by an ``EventRecorder``'s waits when the events they wait for do not come.
///
/// ```swift
/// do {
///     let posts = try await recorder.waitFor(count: 3, timeout: .seconds(1))
/// } catch let error as EventRecorderError {
///     print(error)   // "EventRecorder<PostWritten> (created at MyAppTests/FeedTests.swift:12):
///                    //  timed out after 1.0 seconds waiting for 3 events; 2 arrived"
/// }
/// ```
///
/// A wait cancelled with its task throws `CancellationError` instead.
public struct EventRecorderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the wait ended without its events.
    ///
    /// Compare reasons with `==` or match them in a `switch`, which needs a `default`: new
    /// releases may add reasons. ``timeout`` tells a timeout of any length.
    ///
    /// ```swift
    /// switch error.reason {
    /// case .stopped: Issue.record("the recorder was stopped early")
    /// case .timedOut(after: .seconds(1)): Issue.record("too slow")
    /// default: Issue.record(error)
    /// }
    /// ```
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case timedOut(after: Duration)
            case stopped
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// The timeout passed first, measured on the clock the wait was given.
        public static func timedOut(after timeout: Duration) -> Reason {
            Reason(.timedOut(after: timeout))
        }

        /// The recorder was stopped (``EventRecorder/stop()``), so no more events can come.
        public static let stopped = Reason(.stopped)

        /// How long the wait waited, for ``timedOut(after:)``; `nil` for every other reason.
        public var timeout: Duration? {
            guard case .timedOut(let timeout) = kind else { return nil }
            return timeout
        }

        /// The reason as it is made: `"stopped"`, or `"timedOut(after: 1.0 seconds)"`.
        public var description: String {
            switch kind {
            case .timedOut(let timeout): "timedOut(after: \(timeout))"
            case .stopped: "stopped"
            }
        }
    }

    /// Why the wait ended.
    public let reason: Reason
    /// How many events the recorder had to hold for the wait to succeed.
    public let expectedCount: Int
    /// How many it held when the wait ended.
    public let recordedCount: Int
    /// The recorder, with the events it records and where it was created.
    public let recorder: String

    public var description: String {
        let why: String
        switch reason.kind {
        case .timedOut(let timeout): why = "timed out after \(timeout)"
        case .stopped: why = "stopped"
        }
        let noun = expectedCount == 1 ? "event" : "events"
        let arrived = recordedCount == 1 ? "1 arrived" : "\(recordedCount) arrived"
        return "\(recorder): \(why) waiting for \(expectedCount) \(noun); \(arrived)"
    }
}

import Events
import Testing

struct Saved: Event, Equatable {
    let id: Int
}

struct Closed: Event, Equatable {}

/// An object to dispatch from; reports nothing, holds nothing.
final class Editor: Sendable {}

/// Another type of sender, to tell senders apart by type.
final class Importer: Sendable {}

/// The text of an issue's comments, for `withKnownIssue(matching:)`.
func message(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. For a step that
/// happens on another task and gives nothing to await (a timer task ending after its cancel).
func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// An ordered log that tasks append to on one actor, so that the order of appends is the
/// order in which the actor ran them.
actor Timeline {
    private(set) var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}

/// The outcome of `task`, cancelling it first when `limit` passes before it ends: a bounded
/// wait for a step that never ends when the code under test is broken, so that the test fails
/// (with `CancellationError`, or the task's own error) instead of hanging.
func outcome<Value: Sendable>(
    of task: Task<Value, any Error>, within limit: Duration = .seconds(60)
) async -> Result<Value, any Error> {
    let watchdog = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        task.cancel()
    }
    defer { watchdog.cancel() }
    return await task.result
}

/// Waits between retries of a failing Redis operation: doubling from 50 ms up to 2 s, back to
/// the start after a success.
struct Backoff {
    private static let initial: Duration = .milliseconds(50)
    private static let maximum: Duration = .seconds(2)
    private var next = Backoff.initial

    mutating func wait() async {
        try? await Task.sleep(for: next)
        next = min(next * 2, Self.maximum)
    }

    mutating func reset() {
        next = Self.initial
    }
}

import Dispatch

/// Counts failures in a row and gives the wait before the next retry, from a reconnect policy:
/// the configuration's own, so that the bridge retries at the pace its clients reconnect.
struct Backoff: Sendable {
    let policy: RedisReconnectPolicy
    private var failures = 0

    init(_ policy: RedisReconnectPolicy) {
        self.policy = policy
    }

    /// Counts one more failure and returns the wait before the next attempt.
    mutating func nextDelay() -> Duration {
        failures += 1
        return policy.delay(afterFailures: failures)
    }

    mutating func wait() async {
        try? await Task.sleep(for: nextDelay())
    }

    mutating func reset() {
        failures = 0
    }
}

/// Runs `body` on a global queue after `delay`: a retry from a thread that must not sleep (the
/// client's I/O thread, a subscription's reader thread).
func runAfter(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
    let parts = delay.components
    let nanoseconds = Int(parts.seconds) * 1_000_000_000 + Int(parts.attoseconds / 1_000_000_000)
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: body)
}

import Foundation

/// How a client waits between attempts to open a new connection after one failed or broke.
///
/// The wait grows exponentially: `initialDelay`, then times `multiplier` per attempt, capped at
/// `maxDelay`, each wait shifted at random by up to `jitter` of itself so that many clients do
/// not reconnect in lockstep.
///
/// ```swift
/// var configuration = RedisConfiguration()
/// configuration.reconnect = RedisReconnectPolicy(initialDelay: .milliseconds(10), maxAttempts: 5)
/// ```
///
/// Rules: the first attempt is made at once; the delays apply between attempts. With
/// `maxAttempts == nil`, ``RedisClient`` keeps trying until the call's own deadline and
/// ``RedisSubscriber`` keeps trying until it is closed.
public struct RedisReconnectPolicy: Sendable, Hashable {
    /// The wait after the first failed attempt. Default 50 ms.
    public var initialDelay: Duration
    /// The factor applied to the wait after each further failure. Default 2.
    public var multiplier: Double
    /// The longest wait between attempts. Default 2 s.
    public var maxDelay: Duration
    /// The fraction, from 0 to 1, by which each wait is shifted at random. Default 0.2.
    public var jitter: Double
    /// How many attempts to make before giving up; `nil` means no count limit. Default `nil`.
    public var maxAttempts: Int?

    public init(
        initialDelay: Duration = .milliseconds(50), multiplier: Double = 2, maxDelay: Duration = .seconds(2),
        jitter: Double = 0.2, maxAttempts: Int? = nil
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxAttempts = maxAttempts
    }

    /// The wait this policy prescribes after failed attempt number `failures` (1 for the first
    /// failure): the initial delay grown by the multiplier per further failure, capped at the
    /// maximum, then shifted at random by up to the jitter.
    ///
    /// The client and subscriber wait this long between reconnection attempts. Use it for a
    /// retry loop of your own that should keep the same pace:
    ///
    /// ```swift
    /// var failures = 0
    /// while true {
    ///     do {
    ///         try await client.send("PING")
    ///         break
    ///     } catch {
    ///         failures += 1
    ///         try await Task.sleep(for: configuration.reconnect.delay(afterFailures: failures))
    ///     }
    /// }
    /// ```
    ///
    /// Each call draws its jitter afresh, so two calls with the same count may differ. Counts
    /// below 1 are treated as 1.
    public func delay(afterFailures failures: Int) -> Duration {
        let initial = max(initialDelay.seconds, 0)
        let cap = max(maxDelay.seconds, 0)
        let growth = pow(max(multiplier, 1), Double(max(failures - 1, 0)))
        var seconds = min(initial * growth, cap)
        let spread = min(max(jitter, 0), 1)
        if spread > 0 {
            seconds *= 1 + Double.random(in: -spread...spread)
        }
        return .nanoseconds(Int64((max(seconds, 0) * 1e9).rounded()))
    }

    /// Whether another attempt is allowed after `attempts` attempts.
    func allowsAttempt(after attempts: Int) -> Bool {
        guard let maxAttempts else { return true }
        return attempts < maxAttempts
    }
}

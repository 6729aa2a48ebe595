/// The state of a ``PubSubReceiver``: whether it has started and been stopped, whether a
/// subscription runs, the callers of `stop()` waiting for it to end, and the backoff between
/// subscriptions.
///
/// Every transition runs with the receiver's lock held, changes only this value, and returns
/// what the caller must do once it has released the lock: resume the stops that waited. No
/// transition resumes a continuation or touches the subscriber itself.
///
/// States: *idle* (no subscription runs: before the first, or between one that ended and its
/// retry), *subscribed* (`active`: its reader thread may be delivering), and *stopped* (no new
/// subscription begins; a stop waits while one still runs). `beginSubscription` leads from idle
/// to subscribed, `subscriptionEnded` back; `stop` and `close` lead to stopped from either.
struct PubSubReceiverStateMachine {
    /// Whether `start` returned: from then on a failed subscription is retried.
    private var started = false
    private var stopped = false
    /// Whether a subscription runs (from `beginSubscription()` until it ends).
    private var active = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Slower than a reconnect: what ends a subscription (refused credentials, a malformed
    /// frame) takes a person or another system to mend.
    private var backoff = Backoff(RedisReconnectPolicy(initialDelay: .seconds(1), maxDelay: .seconds(30), jitter: 0))

    /// How many callers of `stop()` wait for the subscription to end.
    var waitingStops: Int { stopWaiters.count }

    /// Stops to resume.
    enum ResumeAction {
        case none
        case resume([CheckedContinuation<Void, Never>])

        func run() {
            guard case .resume(let continuations) = self else { return }
            for continuation in continuations { continuation.resume() }
        }
    }

    // MARK: Transitions (call each with the receiver's lock held)

    /// The first subscription was confirmed and `start` returns.
    mutating func markStarted() {
        started = true
    }

    /// A subscription is about to begin; false once stopped (a retry after `stop`).
    mutating func beginSubscription() -> Bool {
        guard !stopped else { return false }
        active = true
        return true
    }

    /// The server confirmed a channel: the subscription works, so the next failure waits the
    /// shortest backoff again.
    mutating func subscriptionConfirmed() {
        backoff.reset()
    }

    /// `stop()` was called with `continuation`: it waits while a subscription runs, and is
    /// resumed at once otherwise. The caller closes the subscriber after unlocking, then runs
    /// the action.
    mutating func stop(_ continuation: CheckedContinuation<Void, Never>) -> ResumeAction {
        stopped = true
        guard active else { return .resume([continuation]) }
        stopWaiters.append(continuation)
        return .none
    }

    /// `close()` was called: like `stop`, without waiting.
    mutating func close() {
        stopped = true
    }

    /// The subscription ended; `wasStopped` tells whether that was `stop` or `close` at work
    /// (then nothing is retried). The action resumes every stop that waited.
    mutating func subscriptionEnded() -> (wasStopped: Bool, action: ResumeAction) {
        active = false
        let waiters = stopWaiters
        stopWaiters = []
        return (stopped, waiters.isEmpty ? .none : .resume(waiters))
    }

    /// The wait before subscribing again after a failure, or nil before `start` returned (the
    /// failure is then `start`'s to throw).
    mutating func retryDelay() -> Duration? {
        started ? backoff.nextDelay() : nil
    }
}

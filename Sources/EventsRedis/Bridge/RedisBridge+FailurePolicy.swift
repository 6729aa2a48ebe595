extension RedisBridge {
    /// What a stream consumer does with an event whose local listeners failed (threw).
    ///
    /// ```swift
    /// configuration.failurePolicy = .retry(maxDeliveries: 8, backoff: .exponential(initial: .seconds(2)))
    /// try bridge.carry(AuditRecorded.self, mode: .stream, onFailure: .acknowledge)   // best effort
    /// ```
    ///
    /// An event has failed when any listener that received it threw, in whatever context it
    /// ran: on the posting thread, on the main actor, on an actor, on a queue. The bridge waits
    /// for all of them before it decides, as it does before acknowledging. Listeners that do not
    /// throw cannot fail; one that dispatched something and found failures in its own
    /// `dispatchAndWait` report counts only if it throws. Every thrown error also reaches the
    /// center's `errorHandler`, as without a bridge.
    ///
    /// Pub/Sub events are never retried: Pub/Sub has no acknowledgements.
    public struct FailurePolicy: Sendable, Hashable, CustomStringConvertible {
        /// How many deliveries an event gets in all, first included; nil to acknowledge at once.
        public let maxDeliveries: Int?
        /// How long to wait before each retry.
        public let backoff: RetryBackoff

        /// Acknowledge the entry whatever its listeners did: a failed event is not retried
        /// (each failure still reaches the center's error handler).
        public static let acknowledge = FailurePolicy(maxDeliveries: nil, backoff: .exponential())

        /// Leave the entry pending and deliver it again after `backoff`, until it has been
        /// delivered `maxDeliveries` times (at least 1; 5 by default); after the last failed
        /// delivery, move it to the dead-letter stream (see ``RedisBridge/DeadLetter``) and
        /// acknowledge it.
        ///
        /// Deliveries are counted by Redis (the delivery count of the pending entry), so the
        /// count survives a restart of the consumer and moves with an entry another consumer
        /// claims; a listener reads it as ``RemoteOrigin/deliveryCount``. A retry dispatches
        /// the event again to every local listener of it, those that succeeded included:
        /// handlers of retried events should be idempotent (check `deliveryCount` or the
        /// event's `id`). A retried event is delivered after events that came behind it.
        ///
        /// An entry found with more deliveries than the maximum (its consumer kept stopping
        /// while handling it, for example because it crashes the process) goes to the
        /// dead-letter stream without being delivered again.
        public static func retry(maxDeliveries: Int = 5, backoff: RetryBackoff = .exponential()) -> FailurePolicy {
            FailurePolicy(maxDeliveries: max(1, maxDeliveries), backoff: backoff)
        }

        public var description: String {
            maxDeliveries.map { "retry up to \($0) deliveries, \(backoff)" } ?? "acknowledge"
        }
    }

    /// How long a failed stream event waits before each retry: exponential, with a cap and
    /// jitter.
    public struct RetryBackoff: Sendable, Hashable, CustomStringConvertible {
        /// The wait before the first retry.
        public let initial: Duration
        /// What each wait is multiplied by for the next (at least 1).
        public let multiplier: Double
        /// The longest wait. It may be longer than ``RedisBridge/Configuration/claimMinimumIdle``:
        /// while a consumer runs and reaches Redis, no claim takes an entry that waits with it
        /// for a retry, so that consumer delivers it again once the wait is over, not before
        /// (unless its connection breaks meanwhile: setting up again, a consumer re-reads all
        /// of its pending entries at once). Should the consumer die, or not reach Redis for
        /// `claimMinimumIdle`, another consumer of the group claims the entry once it has been
        /// idle that long, and delivers it then, without waiting out the rest of the wait.
        public let maximum: Duration
        /// How much each wait varies at random, as a fraction of it (0 to 1): 0.2 waits from 80%
        /// to 120% of it, so that events that failed together are not all retried at once.
        public let jitter: Double

        /// Waits of `initial`, then `initial * multiplier`, and so on, never more than
        /// `maximum`, each varied by `jitter`.
        public static func exponential(
            initial: Duration = .seconds(1), multiplier: Double = 2, maximum: Duration = .seconds(20),
            jitter: Double = 0.2
        ) -> RetryBackoff {
            RetryBackoff(
                initial: max(initial, .zero), multiplier: max(multiplier, 1), maximum: max(maximum, .zero),
                jitter: min(max(jitter, 0), 1))
        }

        /// A fixed wait, without jitter.
        public static func constant(_ wait: Duration) -> RetryBackoff {
            exponential(initial: wait, multiplier: 1, maximum: wait, jitter: 0)
        }

        /// The wait before the retry that follows delivery number `delivery` (1 for the first).
        func delay(afterDelivery delivery: Int, random: Double = Double.random(in: -1...1)) -> Duration {
            let exponent = Double(max(0, delivery - 1))
            let base = min(initial * pow(multiplier, exponent), maximum)
            return base * (1 + jitter * random)
        }

        public var description: String {
            multiplier == 1 && jitter == 0
                ? "every \(initial)" : "backoff from \(initial), x\(multiplier), at most \(maximum), jitter \(jitter)"
        }
    }

    /// What a stream consumer does with a message it cannot deliver at all: one that is not a
    /// valid CloudEvent, of a type this bridge does not carry, or whose data does not decode.
    /// Either way it is reported to the error handler and counted in ``Statistics``.
    public enum PoisonPolicy: Sendable, Hashable {
        /// Acknowledge it and move on.
        case acknowledge
        /// Write it to the dead-letter stream, with the reason, then acknowledge it.
        case deadLetter
    }
}

/// `pow` for the backoff's growth without importing Foundation here.
private func pow(_ base: Double, _ exponent: Double) -> Double {
    guard exponent > 0 else { return 1 }
    var result = 1.0
    for _ in 0..<Int(exponent.rounded(.down)) {
        result *= base
        if result > 1e12 { return result }
    }
    return result
}

extension RedisBridge {
    /// Stream publishing that waits for replicas: a stream event counts as published only once
    /// Redis's `WAIT` says that `replicas` replicas have it, so that a failover to one of them
    /// cannot lose it.
    ///
    /// ```swift
    /// configuration.replicatedPublishing = .init(replicas: 1, timeout: .milliseconds(500))
    /// ```
    ///
    /// Redis replicates asynchronously: without this, an event the master acknowledged but had
    /// not yet sent to its replicas is lost when a replica takes over. With it, each batch of
    /// `XADD`s is followed by `WAIT` on the same connection; when fewer replicas confirm within
    /// `timeout`, the batch is published again after a backoff (receivers suppress the copies by
    /// the event's id), and ``RedisBridge/flush()`` waits until it is confirmed. It costs a
    /// round trip to the replicas per batch; see `Docs/Performance.md`. Even so, `WAIT` does not
    /// make Redis strongly consistent: a failover can still pick a replica that missed a write
    /// (Redis's documentation of `WAIT` says so), which this makes far less likely.
    public struct ReplicatedPublishing: Sendable, Hashable {
        /// How many replicas must confirm each batch (at least 1).
        public var replicas: Int
        /// How long to wait for them per batch.
        public var timeout: Duration

        public init(replicas: Int = 1, timeout: Duration = .seconds(1)) {
            self.replicas = max(1, replicas)
            self.timeout = max(timeout, .milliseconds(1))
        }

        func appendWait(to bytes: inout [UInt8]) {
            let milliseconds = max(1, timeout.wholeMilliseconds)
            RESPEncoder.appendCommandHeader(argumentCount: 3, to: &bytes)
            RESPEncoder.appendArgument("WAIT", to: &bytes)
            for number in [replicas, milliseconds] {
                Array(String(number).utf8).withUnsafeBytes { RESPEncoder.appendArgument($0, to: &bytes) }
            }
        }
    }
}

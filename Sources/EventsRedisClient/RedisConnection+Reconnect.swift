import Dispatch

extension RedisConnection {
    /// Opens a connection, retrying with the configuration's reconnect policy.
    ///
    /// - Parameters:
    ///   - sleeper: waits between attempts; signalling it ends the wait early (used by
    ///     `close()` of the owner, which then makes `isCancelled` true).
    ///   - isCancelled: checked before every attempt; when true the loop throws
    ///     ``RedisError/clientClosed``.
    ///   - shouldRetry: asked after each retryable failure with the error and the delay before
    ///     the next attempt; returning `false` gives up and throws that error.
    ///   - publish: receives each attempt's interruption before its handshake, and `nil` when
    ///     the attempt fails (see `open(_:publishing:)`).
    /// - Throws: the last error when the policy's `maxAttempts` is reached, at once for errors a
    ///   new attempt cannot fix (rejected credentials, a refused `SELECT`), and
    ///   ``RedisError/clientClosed`` when cancelled.
    static func openRetrying(
        _ configuration: RedisConfiguration, shardKey: String? = nil, sleeper: DispatchSemaphore,
        isCancelled: () -> Bool, shouldRetry: (RedisError, Duration) -> Bool,
        publishing publish: (RedisTransportInterruption?) -> Bool = { _ in true }
    ) throws(RedisError) -> RedisConnection {
        var attempts = 0
        while true {
            if isCancelled() { throw .clientClosed }
            attempts += 1
            do throws(RedisError) {
                // On a cluster, a connection for one key (a sharded subscription) goes to the
                // master that owns the key's slot now.
                if let shardKey, let cluster = configuration.cluster {
                    return try openOwner(of: shardKey, in: cluster, configuration, publishing: publish)
                }
                return try openResolved(configuration, publishing: publish)
            } catch {
                guard error.isRetryable, configuration.reconnect.allowsAttempt(after: attempts) else { throw error }
                let delay = configuration.reconnect.delay(afterFailures: attempts)
                guard shouldRetry(error, delay) else { throw error }
                if isCancelled() { throw .clientClosed }
                _ = sleeper.wait(timeout: .now() + .nanoseconds(Int(delay.seconds * 1e9)))
            }
        }
    }
}

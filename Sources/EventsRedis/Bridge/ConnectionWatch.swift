import Events

/// Notices, for the log, when Redis answers again after the bridge lost its connection to it.
///
/// The bridge's connections each reconnect on their own schedule (a stream reader after its
/// backoff, a publisher when it next has something to send, the Pub/Sub subscriber at once),
/// and none of them reports success. So after the first connection error of an outage, and
/// only when a log handler is installed, a probe connection pings Redis at the configuration's
/// reconnect pace until it answers, and the log says so once, with how many connection errors
/// the outage brought. The probe exists only during an outage; without a log handler there is
/// none.
final class ConnectionWatch: Sendable {
    private struct State {
        /// The connection pinging Redis during an outage; nil while Redis is known to answer.
        var probe: RedisClient?
        var errors = 0
        var since = ContinuousClock.now
        var stopped = false
    }

    private let configuration: RedisBridge.Configuration
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()

    init(configuration: RedisBridge.Configuration) {
        self.configuration = configuration
    }

    /// Counts a reported error; the first connection error of an outage starts the probe.
    func note(_ error: RedisBridgeError) {
        guard configuration.logHandler != nil, error.isConnectionLoss else { return }
        let probe: RedisClient? = lock.withLock {
            guard !state.stopped else { return nil }
            state.errors += 1
            guard state.probe == nil else { return nil }
            state.since = .now
            let probe = RedisClient(configuration.redis)
            state.probe = probe
            return probe
        }
        guard let probe else { return }
        Task.detached { await self.ping(probe) }
    }

    /// Whether a probe is pinging Redis (for tests).
    var isProbing: Bool { lock.withLock { state.probe != nil } }

    /// Ends the probe, if one runs; nothing is logged after this.
    func stop() {
        let probe = lock.withLock {
            state.stopped = true
            return state.probe
        }
        probe?.close()
    }

    private func ping(_ probe: RedisClient) async {
        var backoff = Backoff(configuration.redis.reconnect)
        while true {
            do throws(RedisError) {
                _ = try await probe.send(["PING"])
                break
            } catch {
                if error == .clientClosed { return }
                await backoff.wait()
            }
        }
        probe.close()
        let outage: (errors: Int, duration: Duration)? = lock.withLock {
            state.probe = nil
            guard !state.stopped else { return nil }
            defer { state.errors = 0 }
            return (state.errors, .now - state.since)
        }
        guard let outage else { return }
        configuration.log(
            .notice,
            "Redis bridge: Redis answers again after \(outage.errors) connection errors in \(outage.duration); "
                + "the bridge's connections reconnect by themselves",
            metadata: [
                "redis": "\(configuration.redis.host):\(configuration.redis.port)",
                "connectionErrors": String(outage.errors), "outage": "\(outage.duration)",
            ])
    }
}

extension RedisBridgeError {
    /// Whether the error tells of a connection to Redis lost or not made (rather than of a
    /// command Redis refused on a working connection, or of a bad message).
    var isConnectionLoss: Bool {
        // A failed start has a cause too, but it is thrown to the caller, not lived through.
        guard code == .redis || code == .pubSubEventLost, let cause else { return false }
        switch cause.code {
        case .connectFailed, .connectionClosed, .timedOut, .protocolViolation, .frameTooLarge:
            return true
        default:
            return false
        }
    }
}

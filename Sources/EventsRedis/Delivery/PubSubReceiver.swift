import Events

/// Receives the carried Pub/Sub channels and dispatches each message locally, on the
/// subscription's reader thread: no buffer and no thread handoff between the socket and the
/// listeners, which is what keeps the bridge's Pub/Sub latency close to a raw client's.
///
/// A consequence to know: posting-thread listeners of Pub/Sub events run on that reader thread
/// and hold up reading while they run. Give slow listeners a delivery context (`on:
/// .background`, a queue, the main actor); Redis keeps unread messages in the connection's
/// output buffer meanwhile (up to its `client-output-buffer-limit` for Pub/Sub).
///
/// The subscriber reconnects by itself after a broken connection. When a subscription ends
/// with an error it cannot retry (credentials rejected after a password change, a malformed
/// frame, the reconnect policy's attempts used up), the receiver reports it and subscribes
/// again after a backoff (1 s doubling to 30 s), for as long as the bridge runs: a bridge never
/// goes on without its Pub/Sub input.
///
/// ``stop()`` ends the subscription and waits until its reader thread has left the last
/// listener: what the listeners dispatch until then is still heard by the bridge.
final class PubSubReceiver: Sendable {
    let subscriber: RedisSubscriber
    private let channels: [String]
    private let inbound: Inbound
    private let counters: BridgeCounters
    private let report: @Sendable (RedisBridgeError) -> Void
    private let confirm: AsyncStream<Result<Void, RedisError>>.Continuation
    private let pending: PendingChannels
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = PubSubReceiverStateMachine()

    private init(
        configuration: RedisConfiguration, healthCheckInterval: Duration, channels: [String], inbound: Inbound,
        counters: BridgeCounters, report: @escaping @Sendable (RedisBridgeError) -> Void,
        confirm: AsyncStream<Result<Void, RedisError>>.Continuation
    ) {
        subscriber = RedisSubscriber(configuration, healthCheckInterval: healthCheckInterval)
        self.channels = channels
        self.inbound = inbound
        self.counters = counters
        self.report = report
        self.confirm = confirm
        pending = PendingChannels(channels)
    }

    /// Subscribes and returns once the server has confirmed every channel, so that messages
    /// published from then on are received. Throws when the first subscription fails, or is
    /// not confirmed within the configuration's `connectTimeout` plus `replyTimeout`.
    static func start(
        configuration: RedisConfiguration, healthCheckInterval: Duration, channels: [String], inbound: Inbound,
        counters: BridgeCounters, report: @escaping @Sendable (RedisBridgeError) -> Void
    ) async throws(RedisError) -> PubSubReceiver {
        let (confirmed, confirm) = AsyncStream.makeStream(of: Result<Void, RedisError>.self)
        let receiver = PubSubReceiver(
            configuration: configuration, healthCheckInterval: healthCheckInterval, channels: channels,
            inbound: inbound, counters: counters, report: report, confirm: confirm)
        receiver.subscribe()
        // The subscription retries a connection for as long as it takes; starting waits no
        // longer than a command would.
        runAfter(configuration.connectTimeout + configuration.replyTimeout) {
            confirm.yield(.failure(.timedOut("subscribe")))
        }
        for await outcome in confirmed {
            if case .failure(let error) = outcome {
                receiver.subscriber.close()
                throw error
            }
            break
        }
        receiver.lock.withLock { receiver.state.markStarted() }
        return receiver
    }

    /// Ends the subscription and returns once its reader thread no longer delivers.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let action = lock.withLock { state.stop(continuation) }
            subscriber.close()
            action.run()
        }
    }

    /// Ends the subscription without waiting for it (for a bridge's deinit).
    func close() {
        lock.withLock { state.close() }
        subscriber.close()
    }

    private func subscribe() {
        guard lock.withLock({ state.beginSubscription() }) else { return }
        subscriber.subscribe(
            channels: channels,
            handler: { [self] event in
                switch event {
                case .message(let message):
                    inbound.receiveNow(message.payload, key: message.channel)
                case .subscribed(let name, _):
                    lock.withLock { state.subscriptionConfirmed() }
                    if pending.confirm(name) { confirm.yield(.success(())) }
                case .reconnected(let cause):
                    // Messages published during the gap are lost: that is Pub/Sub. Say so.
                    counters.redisErrors.increment()
                    report(.redis(cause))
                }
            },
            finish: { [self] error in ended(error) })
    }

    private func ended(_ error: RedisError?) {
        let (stopped, action) = lock.withLock { state.subscriptionEnded() }
        action.run()
        guard let error, error != .clientClosed, !stopped else {
            // Closed by `stop()`: nothing more to do.
            confirm.yield(.failure(.clientClosed))
            return
        }
        counters.redisErrors.increment()
        report(.redis(error))
        let retry = lock.withLock { state.retryDelay() }
        guard let retry else {
            confirm.yield(.failure(error))
            return
        }
        runAfter(retry) { [self] in subscribe() }
    }
}

/// The channels whose subscription the server has not confirmed yet.
private final class PendingChannels: Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var names: Set<String>

    init(_ channels: [String]) {
        names = Set(channels)
    }

    /// Marks `name` confirmed; true when it was the last one.
    func confirm(_ name: String) -> Bool {
        lock.withLock {
            guard names.remove(name) != nil else { return false }
            return names.isEmpty
        }
    }
}

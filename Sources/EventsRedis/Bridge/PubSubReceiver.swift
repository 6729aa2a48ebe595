import Events

/// Receives the carried Pub/Sub channels and dispatches each message locally, on the
/// subscription's reader thread: no buffer and no thread handoff between the socket and the
/// listeners, which is what keeps the bridge's Pub/Sub latency close to a raw client's.
///
/// A consequence to know: posting-thread listeners of Pub/Sub events run on that reader thread
/// and hold up reading while they run. Give slow listeners a delivery context (`on:
/// .background`, a queue, the main actor); Redis keeps unread messages in the connection's
/// output buffer meanwhile (up to its `client-output-buffer-limit` for Pub/Sub).
struct PubSubReceiver {
    let subscriber: RedisSubscriber

    /// Subscribes and returns once the server has confirmed every channel, so that messages
    /// published from then on are received.
    static func start(
        configuration: RedisConfiguration, channels: [String], inbound: Inbound, counters: BridgeCounters,
        report: @escaping @Sendable (RedisBridgeError) -> Void
    ) async throws(RedisError) -> PubSubReceiver {
        let subscriber = RedisSubscriber(configuration)
        let (confirmed, confirm) = AsyncStream.makeStream(of: Result<Void, RedisError>.self)
        let pending = PendingChannels(channels)
        subscriber.subscribe(
            channels: channels,
            handler: { event in
                switch event {
                case .message(let message):
                    inbound.receiveNow(message.payload, key: message.channel)
                case .subscribed(let name, _):
                    if pending.confirm(name) { confirm.yield(.success(())) }
                case .reconnected(let cause):
                    // Messages published during the gap are lost: that is Pub/Sub. Say so.
                    counters.redisErrors.increment()
                    report(.redis(cause))
                }
            },
            finish: { error in
                if let error {
                    counters.redisErrors.increment()
                    report(.redis(error))
                }
                confirm.yield(.failure(error ?? .clientClosed))
                confirm.finish()
            })
        for await outcome in confirmed {
            if case .failure(let error) = outcome {
                subscriber.close()
                throw error
            }
            break
        }
        return PubSubReceiver(subscriber: subscriber)
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

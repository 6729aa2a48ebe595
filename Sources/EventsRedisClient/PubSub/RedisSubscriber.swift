/// Receives Redis Pub/Sub messages (`SUBSCRIBE` / `PSUBSCRIBE`) as async streams, on
/// connections of its own that it keeps alive.
///
/// Pub/Sub is fire-and-forget: a message reaches the subscribers connected when it is
/// published, and nobody else, ever. Use it for notifications a process can afford to miss
/// (cache invalidation, live updates); use Redis Streams for events that must not be lost.
///
/// ```swift
/// let subscriber = RedisSubscriber(configuration)
/// for try await message in subscriber.messages(channels: ["orders"], patterns: ["audit.*"]) {
///     print("\(message.channel): \(message.string)")
/// }
/// ```
///
/// Rules:
/// - Each stream has its own connection and reader thread, opened when the stream is created
///   and closed when the stream ends: when the consuming task is cancelled, the stream is
///   dropped, or ``close()`` is called. Streams do not depend on the subscriber object staying
///   alive.
/// - Messages arrive in the order the server sent them. A stream buffers up to `bufferLimit`
///   elements for a slow consumer; beyond that it drops the oldest and counts them in
///   ``droppedCount``. (The iterator takes buffered elements in batches of up to 256; a batch
///   it holds no longer counts against the limit.)
/// - When the connection breaks, the stream reconnects with ``RedisConfiguration/reconnect``
///   and subscribes again. **Messages published while it was disconnected are lost.**
///   ``reconnectCount`` counts these gaps, and ``events(channels:patterns:bufferLimit:)``
///   reports each one as ``RedisPubSubEvent/reconnected(cause:)``.
/// - A message over ``RedisConfiguration/limits`` cannot be read: the subscriber drops the
///   connection and subscribes again, reported as `.reconnected(cause: .frameTooLarge(...))`;
///   that message is lost, and so are any published while it reconnects.
/// - A stream ends with an error (always a ``RedisError``) when reconnecting cannot help:
///   rejected credentials, an error reply to `SUBSCRIBE`, or a malformed frame
///   (``RedisError/protocolViolation(_:)``, reported and not retried, since a server that sends
///   one is likely to send it again), or when the policy's `maxAttempts` is used up. After
///   ``close()`` or cancellation it ends without an error.
/// - On a Redis Cluster (``RedisConfiguration/cluster``) a stream subscribes with sharded
///   Pub/Sub (`SSUBSCRIBE`), one connection per slot of its channels, and subscribes again at
///   a slot's new master when the slot moves; see ``RedisClusterConfiguration``.
public final class RedisSubscriber: Sendable {
    struct Counters: Sendable {
        var reconnectCount = 0
        var droppedCount = 0
        var isClosed = false
        var subscriptions: [ObjectIdentifier: RedisSubscription] = [:]
    }

    /// The configuration the subscriber connects with.
    public let configuration: RedisConfiguration
    /// How long a connection may stay silent before the subscriber pings the server to check it.
    public let healthCheckInterval: Duration
    let counters = LockedBox(Counters())

    /// A subscriber for the server `configuration` describes. Nothing connects until a stream is
    /// created.
    ///
    /// - Parameters:
    ///   - configuration: the server to connect to, with credentials, timeouts and the reconnect
    ///     policy.
    ///   - healthCheckInterval: after this much silence the subscriber sends `PING`; when no
    ///     answer arrives within the configuration's `replyTimeout` it reconnects. This notices
    ///     connections that died without the server closing them.
    public init(_ configuration: RedisConfiguration, healthCheckInterval: Duration = .seconds(30)) {
        self.configuration = configuration
        self.healthCheckInterval = healthCheckInterval
    }

    /// How many times the streams of this subscriber reconnected after a broken connection; each
    /// one may have missed messages.
    public var reconnectCount: Int { counters.withLock { $0.reconnectCount } }

    /// How many elements the streams of this subscriber dropped because a consumer fell more
    /// than `bufferLimit` behind.
    public var droppedCount: Int { counters.withLock { $0.droppedCount } }

    /// The messages published to `channels` and to channels matching `patterns` (glob-style, as
    /// `PSUBSCRIBE`), from the moment the server confirms the subscription.
    ///
    /// Reconnections are not visible in this stream; watch ``reconnectCount`` or use
    /// ``events(channels:patterns:bufferLimit:)`` to see them. The error is always a
    /// ``RedisError``.
    public func messages(channels: [String], patterns: [String] = [], bufferLimit: Int = 10_000)
        -> AsyncThrowingStream<RedisPubSubMessage, any Error>
    {
        stream(channels: channels, patterns: patterns, bufferLimit: bufferLimit) { event in
            if case .message(let message) = event { return message }
            return nil
        }
    }

    /// Every event of a subscription to `channels` and `patterns`: messages, subscription
    /// confirmations and reconnections. The error is always a ``RedisError``.
    ///
    /// Wait for ``RedisPubSubEvent/subscribed(name:count:)`` before relying on delivery: a
    /// message published before the server confirmed the subscription is not delivered.
    public func events(channels: [String], patterns: [String] = [], bufferLimit: Int = 10_000)
        -> AsyncThrowingStream<RedisPubSubEvent, any Error>
    {
        stream(channels: channels, patterns: patterns, bufferLimit: bufferLimit) { $0 }
    }

    /// Calls `handler` with every event of a subscription to `channels` and `patterns`, on the
    /// subscription's own reader thread, in order; `finish` runs once at the end, with the error
    /// that ended it or `nil` after ``close()``.
    ///
    /// For code that must not wait on a task: no buffer and no thread handoff between the socket
    /// and `handler` (the bridge dispatches Pub/Sub events this way). `handler` holds up reading
    /// while it runs, so it must be quick.
    package func subscribe(
        channels: [String], patterns: [String] = [], handler: @escaping @Sendable (RedisPubSubEvent) -> Void,
        finish: @escaping @Sendable (RedisError?) -> Void
    ) {
        guard !channels.isEmpty || !patterns.isEmpty else {
            finish(.invalidConfiguration("subscribe to at least one channel or pattern"))
            return
        }
        let subscriptions: [RedisSubscription]
        switch makeSubscriptions(channels: channels, patterns: patterns) {
        case .success(let made): subscriptions = made
        case .failure(let error): return finish(error)
        }
        if !run(subscriptions, deliver: handler, finish: finish) { finish(.clientClosed) }
    }

    /// Ends every stream of this subscriber (without an error) and closes their connections;
    /// streams created later end at once with ``RedisError/clientClosed``. Idempotent.
    public func close() {
        let subscriptions: [RedisSubscription] = counters.withLock { counters in
            counters.isClosed = true
            return Array(counters.subscriptions.values)
        }
        for subscription in subscriptions { subscription.stop() }
    }

    private func stream<Element: Sendable>(
        channels: [String], patterns: [String], bufferLimit: Int,
        transform: @escaping @Sendable (RedisPubSubEvent) -> Element?
    ) -> AsyncThrowingStream<Element, any Error> {
        guard !channels.isEmpty || !patterns.isEmpty else {
            let queue = RedisElementQueue<Element>(limit: 1, onTermination: {})
            queue.finish(throwing: .invalidConfiguration("subscribe to at least one channel or pattern"))
            return queue.stream()
        }
        let subscriptions: [RedisSubscription]
        switch makeSubscriptions(channels: channels, patterns: patterns) {
        case .success(let made): subscriptions = made
        case .failure(let error):
            let queue = RedisElementQueue<Element>(limit: 1, onTermination: {})
            queue.finish(throwing: error)
            return queue.stream()
        }
        // A lock-protected buffer with the rules of a `bufferingNewest` stream, for speed (see
        // RedisElementQueue). When the consumer goes away, the subscriptions stop.
        let queue = RedisElementQueue<Element>(
            limit: bufferLimit, onTermination: { subscriptions.forEach { $0.stop() } })
        let counters = counters
        let running = run(
            subscriptions,
            deliver: { event in
                guard let element = transform(event) else { return }
                if !queue.push(element) {
                    counters.withLock { $0.droppedCount += 1 }
                }
            },
            finish: { error in queue.finish(throwing: error) })
        if !running { queue.finish(throwing: .clientClosed) }
        return queue.stream()
    }

    /// The subscriptions a stream of `channels` and `patterns` needs: one on a single server;
    /// on a cluster, one sharded subscription per slot of the channels (`SSUBSCRIBE` takes the
    /// channels of one slot, at that slot's master). Patterns cannot be sharded.
    private func makeSubscriptions(channels: [String], patterns: [String]) -> Result<[RedisSubscription], RedisError> {
        func subscription(_ channels: [String], _ patterns: [String]) -> RedisSubscription {
            RedisSubscription(
                configuration: configuration, channels: channels, patterns: patterns,
                healthCheckInterval: healthCheckInterval, counters: counters)
        }
        guard configuration.cluster != nil else { return .success([subscription(channels, patterns)]) }
        guard patterns.isEmpty else {
            return .failure(
                .invalidConfiguration("pattern subscriptions cannot be sharded: on a Redis Cluster, name the channels"))
        }
        var slots: [Int: [String]] = [:]
        var order: [Int] = []
        for channel in channels {
            let slot = ClusterSlot.of(channel)
            if slots[slot] == nil { order.append(slot) }
            slots[slot, default: []].append(channel)
        }
        return .success(order.map { subscription(slots[$0]!, []) })
    }

    /// Registers `subscription` (so that `close()` reaches it) and starts its reader thread;
    /// false, with nothing started, when the subscriber is already closed. `finish` gets `nil`
    /// when the subscription was stopped.
    /// ``run(_:deliver:finish:)`` for several subscriptions that deliver to one consumer:
    /// `finish` runs once, after the last has ended, with the first error; an error that ends
    /// one stops the others.
    private func run(
        _ subscriptions: [RedisSubscription], deliver: @escaping @Sendable (RedisPubSubEvent) -> Void,
        finish: @escaping @Sendable (RedisError?) -> Void
    ) -> Bool {
        guard subscriptions.count > 1 else {
            return subscriptions.first.map { run($0, deliver: deliver, finish: finish) } ?? false
        }
        let ending = LockedBox((running: subscriptions.count, error: RedisError?.none))
        let finishOne: @Sendable (RedisError?) -> Void = { error in
            let (last, first): (Bool, RedisError?) = ending.withLock { ending in
                if ending.error == nil { ending.error = error }
                ending.running -= 1
                return (ending.running == 0, ending.error)
            }
            if error != nil { subscriptions.forEach { $0.stop() } }
            if last { finish(first) }
        }
        var started = 0
        for subscription in subscriptions {
            guard run(subscription, deliver: deliver, finish: finishOne) else { break }
            started += 1
        }
        guard started < subscriptions.count else { return true }
        // Closed before the first started: nothing runs, as for a single subscription.
        guard started > 0 else { return false }
        // Closed meanwhile: the started ones are stopped, the others count as ended.
        subscriptions.forEach { $0.stop() }
        for _ in started..<subscriptions.count { finishOne(nil) }
        return true
    }

    private func run(
        _ subscription: RedisSubscription, deliver: @escaping @Sendable (RedisPubSubEvent) -> Void,
        finish: @escaping @Sendable (RedisError?) -> Void
    ) -> Bool {
        let key = ObjectIdentifier(subscription)
        let registered: Bool = counters.withLock { counters in
            guard !counters.isClosed else { return false }
            counters.subscriptions[key] = subscription
            return true
        }
        guard registered else { return false }
        let counters = counters
        subscription.start(
            deliver: deliver,
            finish: { error in
                counters.withLock { _ = $0.subscriptions.removeValue(forKey: key) }
                finish(error == .clientClosed ? nil : error)
            })
        return true
    }
}

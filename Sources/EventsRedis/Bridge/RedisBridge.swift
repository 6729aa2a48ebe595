import Events

/// Carries chosen events between the `EventCenter`s of several processes, possibly on several
/// hosts, through Redis.
///
/// Attach a bridge to a center, say which events cross and how, and start it. From then on,
/// dispatching a carried event locally also publishes it, and events published by other
/// processes are dispatched locally, with the usual rules:
///
/// ```swift
/// struct OrderPlaced: RemoteEvent {
///     static let wireName = "com.example.shop.order-placed"
///     let orderID: String
/// }
///
/// let bridge = RedisBridge(
///     center: center,
///     configuration: .init(redis: RedisConfiguration(host: "127.0.0.1", port: 6379), source: "shop/api-1"))
/// try bridge.carry(OrderPlaced.self, mode: .stream)        // at-least-once, survives restarts
/// try bridge.carry(.cacheCleared, mode: .pubSub)           // fire-and-forget, lowest latency
/// try await bridge.start()
///
/// center.dispatch(OrderPlaced(orderID: "A-1001"), from: checkout)   // local listeners + Redis
/// ```
///
/// On the wire every event is a CloudEvents 1.0 JSON message (see ``CloudEvent``): services in
/// other languages can publish and consume them.
///
/// Rules:
/// - **Local first.** A local dispatch reaches local listeners exactly as without a bridge; the
///   bridge hears it like any listener and publishes it afterwards. This instance does not
///   receive its own events back from Redis.
/// - **No echo.** Events that arrive from Redis are dispatched with a ``RemoteOrigin`` as their
///   sender and are never published again, by this bridge or another one on the same center.
/// - **Pub/Sub** (``Mode/pubSub``) is fire-and-forget: events published while a receiver is
///   disconnected are lost for it.
/// - **Streams** (``Mode/stream``) are at-least-once, with duplicates suppressed: publishing
///   retries until Redis acknowledges, buffering up to
///   ``Configuration/publishBufferCapacity`` events while Redis is down; a receiver
///   acknowledges an entry only after every local listener has finished with it, re-reads its
///   own unacknowledged entries after every reconnect, claims entries that a dead consumer of
///   its group left behind, and delivers each event (by CloudEvents `source` + `id`) once.
///   Trimming never removes an entry a group has not acknowledged.
/// - **Errors** never stop the bridge: they go to ``Configuration/errorHandler`` and are
///   counted in ``statistics``. A message that cannot be delivered is acknowledged and skipped.
/// - **Both ways by default.** Every instance that carries an event publishes it and receives
///   it. A process that only produces (or only consumes) an event says so with
///   `carry(_:mode:direction:)` (see ``Direction``) and skips the other half.
/// - Register every event with `carry` before ``start()``.
public final class RedisBridge: Sendable {
    private enum Phase {
        case idle, starting, running, stopped
    }

    private struct State {
        var phase = Phase.idle
        var carried: [String: CarriedEvent] = [:]
        var subscriptions: [Subscription] = []
        /// The stream reader (the only task a bridge runs), which `stop()` lets finish its batch
        /// before closing connections.
        var consumerTask: Task<Void, Never>?
        var publishers: [Publisher] = []
        var clients: [RedisClient] = []
        var subscriber: RedisSubscriber?
    }

    /// The center whose events this bridge carries.
    public let center: EventCenter
    /// The bridge's settings.
    public let configuration: Configuration

    let counters = BridgeCounters()
    let outbound: Outbound
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()

    /// Creates a bridge for `center`. Nothing crosses until events are registered with `carry`
    /// and the bridge is started.
    public init(center: EventCenter = .default, configuration: Configuration) {
        self.center = center
        self.configuration = configuration
        let errorHandler = configuration.errorHandler
        outbound = Outbound(configuration: configuration, counters: counters, report: errorHandler)
    }

    deinit {
        // Without `stop()`: end the loops and connections; queued events are not published.
        state.subscriptions.forEach { $0.cancel() }
        state.consumerTask?.cancel()
        state.publishers.forEach { $0.stop() }
        state.clients.forEach { $0.close() }
        state.subscriber?.close()
        _ = outbound.pubSubQueue.close()
        _ = outbound.streamQueue.close()
    }

    /// Whether `start()` is in progress (for tests of what happens meanwhile).
    var isStarting: Bool { lock.withLock { state.phase == .starting } }

    /// Counters of what the bridge has published, delivered, suppressed and skipped.
    public var statistics: Statistics { counters.snapshot }

    // MARK: - Choosing events

    /// Carries the events of type `type` in `mode`, under their ``RemoteEvent/wireName``.
    public func carry<E: RemoteEvent>(_ type: E.Type, mode: Mode) throws(RedisBridgeError) {
        try add(.typed(type, mode: mode, key: configuration.keyPrefix + E.wireName))
    }

    /// Carries named events that have no data, under the name's string.
    ///
    /// Dispatching the name with data or payload values is reported as
    /// ``RedisBridgeError/cannotEncode(type:reason:)`` and not published; use
    /// ``carry(_:data:mode:)`` for names that carry data.
    public func carry(_ name: EventName, mode: Mode) throws(RedisBridgeError) {
        try add(.named(name, mode: mode, key: configuration.keyPrefix + name.rawValue))
    }

    /// Carries named events whose data, when there is some, is a `Value`.
    ///
    /// ```swift
    /// try bridge.carry(.userSignedIn, data: UserID.self, mode: .pubSub)
    /// center.dispatch(.userSignedIn, data: UserID(raw: 7))   // arrives elsewhere with the same data
    /// ```
    ///
    /// Payload keys do not cross: an event with payload values is reported as
    /// ``RedisBridgeError/cannotEncode(type:reason:)`` and not published, and so is one whose data
    /// is not a `Value`.
    public func carry<Value: Codable & Sendable>(
        _ name: EventName, data: Value.Type, mode: Mode
    ) throws(RedisBridgeError) {
        try add(.named(name, data: data, mode: mode, key: configuration.keyPrefix + name.rawValue))
    }

    /// Carries the events of type `type` in `mode`, only one way or both (see ``Direction``).
    public func carry<E: RemoteEvent>(_ type: E.Type, mode: Mode, direction: Direction) throws(RedisBridgeError) {
        try add(.typed(type, mode: mode, key: configuration.keyPrefix + E.wireName), direction: direction)
    }

    /// Carries named events that have no data, only one way or both (see ``Direction``).
    public func carry(_ name: EventName, mode: Mode, direction: Direction) throws(RedisBridgeError) {
        try add(.named(name, mode: mode, key: configuration.keyPrefix + name.rawValue), direction: direction)
    }

    /// Carries named events whose data is a `Value`, only one way or both (see ``Direction``).
    public func carry<Value: Codable & Sendable>(
        _ name: EventName, data: Value.Type, mode: Mode, direction: Direction
    ) throws(RedisBridgeError) {
        try add(
            .named(name, data: data, mode: mode, key: configuration.keyPrefix + name.rawValue), direction: direction)
    }

    private func add(_ event: CarriedEvent, direction: Direction = .both) throws(RedisBridgeError) {
        var event = event
        event.direction = direction
        let failure: RedisBridgeError? = lock.withLock {
            guard state.phase == .idle else { return .alreadyStarted }
            guard state.carried[event.wireType] == nil else { return .duplicateWireName(event.wireType) }
            state.carried[event.wireType] = event
            return nil
        }
        if let failure { throw failure }
    }

    // MARK: - Running

    /// Connects to Redis and starts carrying events.
    ///
    /// When it returns, the consumer groups of the carried streams exist and the Pub/Sub
    /// channels are subscribed, so events other processes publish from then on are received.
    /// It throws when Redis cannot be reached or refuses the setup; the bridge can then be
    /// started again. Later outages are handled by retrying, not reported as a throw.
    public func start() async throws(RedisBridgeError) {
        let carried: [String: CarriedEvent]? = lock.withLock {
            guard state.phase == .idle else { return nil }
            state.phase = .starting
            return state.carried
        }
        guard let carried else { throw .alreadyStarted }

        let report = configuration.errorHandler
        let received = carried.filter { $0.value.direction.receives }
        let published = carried.values.filter { $0.direction.publishes }
        let inbound = Inbound(
            center: center, source: configuration.source, ownIDPrefix: outbound.idPrefix, carried: received,
            deduplicationWindow: configuration.deduplicationWindow, limits: Inbound.Limits(configuration),
            counters: counters, report: report)
        let streamKeys = received.values.filter { $0.mode == .stream }.map(\.key).sorted()
        let channels = received.values.filter { $0.mode == .pubSub }.map(\.key).sorted()
        var clients: [RedisClient] = []
        var consumerTask: Task<Void, Never>?
        var subscriber: RedisSubscriber?
        var publishers: [Publisher] = []

        do throws(RedisError) {
            if !streamKeys.isEmpty {
                let readClient = RedisClient(configuration.redis)
                clients.append(readClient)
                let consumer = StreamConsumer(
                    client: readClient, keys: streamKeys, group: configuration.consumerGroup,
                    consumer: configuration.consumerName, inbound: inbound, configuration: configuration,
                    counters: counters, report: report)
                try await consumer.createGroups()
                consumerTask = Task.detached { await consumer.run() }
            }
            if !channels.isEmpty {
                let receiver = try await PubSubReceiver.start(
                    configuration: configuration.redis, channels: channels, inbound: inbound, counters: counters,
                    report: report)
                subscriber = receiver.subscriber
            }
            // One publishing connection per mode that has outgoing events.
            for mode in [Mode.stream, .pubSub] where published.contains(where: { $0.mode == mode }) {
                let publishClient = RedisClient(configuration.redis)
                clients.append(publishClient)
                publishers.append(
                    Publisher(
                        queue: mode == .stream ? outbound.streamQueue : outbound.pubSubQueue, client: publishClient,
                        mode: mode, maxEventsPerMessage: configuration.maxEventsPerMessage, counters: counters,
                        report: report,
                        trimming: mode == .stream ? configuration.streamMaxLength.map { ($0, .seconds(1)) } : nil))
            }
        } catch {
            consumerTask?.cancel()
            clients.forEach { $0.close() }
            subscriber?.close()
            // A retry starts a new reader: this one must be gone first.
            await consumerTask?.value
            lock.withLock { state.phase = .idle }
            throw .redis(error)
        }

        // From here on a queued message is picked up as soon as it is queued.
        for publisher in publishers {
            publisher.queue.setWaker { publisher.kick() }
            publisher.kick()
        }
        // Listen last: from here on local dispatches are published.
        let subscriptions = published.map { $0.listen(center, outbound) }
        lock.withLock {
            state.phase = .running
            state.subscriptions = subscriptions
            state.consumerTask = consumerTask
            state.publishers = publishers
            state.clients = clients
            state.subscriber = subscriber
        }
    }

    /// Waits until Redis has acknowledged every event dispatched before the call (or, for
    /// Pub/Sub, until publishing it failed and was reported).
    ///
    /// While Redis is unreachable, stream events wait for it, and so does this call: use
    /// ``flush(timeout:)`` to bound the wait. Cancelling the calling task ends the wait, and so
    /// does ``stop(drainTimeout:)``, which gives up on what is left.
    public func flush() async {
        _ = await flushQueues()
    }

    /// Waits at most `timeout` until Redis has acknowledged every event dispatched before the
    /// call; returns whether it has (false as well when the calling task is cancelled). After
    /// ``stop(drainTimeout:)`` it returns true at once: what was left then was given up and
    /// reported as ``RedisBridgeError/stoppedWithUnpublishedEvents(_:)``.
    ///
    /// ```swift
    /// if await !bridge.flush(timeout: .seconds(2)) {
    ///     logger.warning("Redis has not acknowledged every event yet; they stay buffered")
    /// }
    /// ```
    public func flush(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.flushQueues() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let flushed = await group.next() ?? false
            group.cancelAll()
            return flushed
        }
    }

    private func flushQueues() async -> Bool {
        guard await outbound.streamQueue.flush() else { return false }
        return await outbound.pubSubQueue.flush()
    }

    /// Stops carrying events: local dispatches are no longer published, and events from Redis
    /// no longer arrive. Called while ``start()`` is still running, it waits for it and then
    /// stops what it started.
    ///
    /// Events still waiting for Redis get up to `drainTimeout` to be acknowledged; any left
    /// after it are reported as ``RedisBridgeError/stoppedWithUnpublishedEvents(_:)``. The
    /// stream reader finishes the read in progress (at most ``Configuration/readBlock``) and
    /// acknowledges what it delivered. Entries it could not acknowledge stay pending in Redis
    /// and are delivered again when it restarts with the same consumer name (or claimed by
    /// another consumer).
    public func stop(drainTimeout: Duration = .seconds(5)) async {
        // A `start()` in progress finishes (or fails) first; then this stops what it started.
        while lock.withLock({ state.phase == .starting }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let subscriptions: [Subscription]? = lock.withLock {
            guard state.phase == .running else { return nil }
            state.phase = .stopped
            return state.subscriptions
        }
        guard let subscriptions else { return }
        subscriptions.forEach { $0.cancel() }

        let deadline = ContinuousClock.now + drainTimeout
        while outbound.streamQueue.count + outbound.pubSubQueue.count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let left = outbound.streamQueue.close() + outbound.pubSubQueue.close()
        if left > 0 { configuration.errorHandler(.stoppedWithUnpublishedEvents(left)) }

        let (consumerTask, publishers, clients, subscriber) = lock.withLock {
            (state.consumerTask, state.publishers, state.clients, state.subscriber)
        }
        publishers.forEach { $0.stop() }
        consumerTask?.cancel()
        // The stream reader finishes the read in progress (at most `readBlock`) and acknowledges
        // what it delivered before its connection closes.
        await consumerTask?.value
        clients.forEach { $0.close() }
        subscriber?.close()
    }
}

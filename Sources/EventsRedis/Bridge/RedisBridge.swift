public import Events
import Synchronization

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
/// - **Errors** never stop the bridge: they go to ``Configuration/errorHandler`` (and to
///   ``Configuration/logHandler``, when one is installed) and are counted in ``statistics``. A
///   message that cannot be delivered is acknowledged and skipped.
/// - **Both ways by default.** Every instance that carries an event publishes it and receives
///   it. A process that only produces (or only consumes) an event says so with
///   `carry(_:mode:direction:)` (see ``Direction``) and skips the other half.
/// - **Life cycle.** Register every event with `carry` before ``start()``. An outgoing event
///   is heard from the moment it is carried: what is dispatched before `start()`, while it runs
///   or after it failed waits in the publish buffer and is published once a `start()` has
///   connected. ``stop(drainTimeout:)`` lets the listeners of the last received events finish
///   and publishes what they dispatch; whatever can no longer be published is reported as
///   ``RedisBridgeError/stoppedWithUnpublishedEvents(_:)``, never dropped silently, and
///   ``shutdown(drainTimeout:)`` does the same and returns a ``ShutdownReport`` of it. After
///   `stop()` returns, the bridge no longer hears the center.
public final class RedisBridge: Sendable {
    private enum Phase {
        case idle, starting, running, stopping, stopped
    }

    private struct State {
        var phase = Phase.idle
        var carried: [String: CarriedEvent] = [:]
        /// The local listeners of the outgoing events, attached by `carry` and cancelled by
        /// `stop()` (or deinit).
        var subscriptions: [Subscription] = []
        /// False once `stop()` has cancelled the listeners: a listener attached later by a
        /// `carry` that raced with it is cancelled at once.
        var listening = true
        /// The stream reader (the only task a bridge runs, but for the probe of an outage that
        /// `connectionWatch` runs for the log), which `stop()` lets finish its batch before
        /// closing connections.
        var consumerTask: Task<Void, Never>?
        var publishers: [Publisher] = []
        var clients: [RedisClient] = []
        var receiver: PubSubReceiver?
        /// For tests: runs in `start()` once the stream reader runs, before `start()` returns.
        var whileStarting: (@Sendable () async -> Void)?
        /// What the `stop()` that stopped the bridge left, once it has finished.
        var shutdownReport: ShutdownReport?
        /// The check of the partition layouts, when it runs after `start()` returned.
        var layoutCheck: (task: Task<Void, Never>, client: RedisClient)?
    }

    /// The center whose events this bridge carries.
    public let center: EventCenter
    /// The bridge's settings.
    public let configuration: Configuration

    let counters = BridgeCounters()
    let outbound: Outbound
    /// Why the configured outbox could not be opened: every `carry` and `start()` throw it.
    let outboxFailure: RedisBridgeError?
    /// The failure policies given to `carry` for single events, by stream key.
    let failurePolicies = LockedBox<[String: FailurePolicy]>([:])
    /// Where every component reports its errors: the error handler, then the log.
    let report: @Sendable (RedisBridgeError) -> Void
    /// Tells the log when Redis answers again after an outage.
    let connectionWatch: ConnectionWatch
    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()

    /// Creates a bridge for `center`. Nothing crosses until events are registered with `carry`
    /// and the bridge is started.
    public init(center: EventCenter = .default, configuration: Configuration) {
        self.center = center
        self.configuration = configuration
        let connectionWatch = ConnectionWatch(configuration: configuration)
        self.connectionWatch = connectionWatch
        let report: @Sendable (RedisBridgeError) -> Void = { error in
            configuration.report(error)
            connectionWatch.note(error)
        }
        self.report = report
        var outbox: DurableOutbox?
        var recovered: [OutboxRecord.Entry] = []
        var notes: [RedisBridgeError] = []
        var outboxFailure: RedisBridgeError?
        if let settings = configuration.outbox {
            do {
                (outbox, recovered, notes) = try DurableOutbox.open(settings, report: report)
            } catch {
                outboxFailure = error
            }
        }
        self.outboxFailure = outboxFailure
        outbound = Outbound(configuration: configuration, counters: counters, outbox: outbox, report: report)
        // Ahead of every event this bridge hears: nothing is listened to before `carry`.
        outbound.queueAgain(recovered)
        counters.republishedFromOutbox.increment(by: recovered.count)
        notes.forEach(report)
        if let settings = configuration.outbox, !recovered.isEmpty {
            configuration.log(
                .notice,
                "Redis bridge: \(recovered.count) events left in the outbox by an earlier run will be published again",
                metadata: ["path": settings.path, "count": String(recovered.count)])
        }
    }

    deinit {
        // Without `stop()`: end the loops and connections; queued events are not published, and
        // are reported as such.
        state.subscriptions.forEach { $0.cancel() }
        state.consumerTask?.cancel()
        state.publishers.forEach { $0.stop() }
        state.clients.forEach { $0.close() }
        state.receiver?.close()
        giveUpOnQueuedEvents()
        outbound.outbox?.close()
        connectionWatch.stop()
    }

    /// Whether `start()` is in progress (for tests of what happens meanwhile).
    var isStarting: Bool { lock.withLock { state.phase == .starting } }

    /// Whether `stop()` has begun (for tests of what happens while it runs).
    var hasBegunStopping: Bool { lock.withLock { state.phase == .stopping || state.phase == .stopped } }

    /// Whether `stop()` has finished.
    var isStopped: Bool { lock.withLock { state.phase == .stopped } }

    /// Makes `start()` run `body` once the stream reader runs, before it returns (for tests of
    /// what happens meanwhile).
    func whileStarting(_ body: @escaping @Sendable () async -> Void) {
        lock.withLock { state.whileStarting = body }
    }

    /// Counters of what the bridge has published, delivered, suppressed and skipped, and gauges
    /// of what it holds now (events waiting for Redis, entries not yet acknowledged), read at
    /// this moment. Cheap enough to read as often as a metrics system scrapes: it takes no lock
    /// that delivery or publishing wait for. See ``Statistics`` and
    /// ``statisticsUpdates(every:)``.
    public var statistics: Statistics {
        var statistics = counters.snapshot
        // A closed queue keeps what it gave up on, which is no longer waiting for anything.
        let depth = { (queue: PublishQueue) in queue.isClosed ? 0 : queue.count }
        statistics.streamPublishBufferDepth = depth(outbound.streamQueue)
        statistics.pubSubPublishBufferDepth = depth(outbound.pubSubQueue)
        if let outbox = outbound.outbox { (statistics.outboxEvents, statistics.outboxBytes) = outbox.gauges }
        return statistics
    }

    // MARK: - Choosing events

    /// Carries the events of type `type` in `mode`, under their ``RemoteEvent/wireName``.
    ///
    /// ```swift
    /// try bridge.carry(OrderPlaced.self, mode: .stream)                          // both ways
    /// try shop.carry(OrderPlaced.self, mode: .stream, direction: .outgoing)      // only publishes
    /// ```
    ///
    /// By default the event travels both ways: dispatched here, it is published; published
    /// elsewhere, it is dispatched here. Pass `direction` (see ``Direction``) to only publish or
    /// only receive it.
    ///
    /// Every `carry` throws ``RedisBridgeError/alreadyStarted`` after ``start()``,
    /// ``RedisBridgeError/duplicateWireName(_:)`` for a wire name already carried, and
    /// ``RedisBridgeError/invalidConfiguration(_:)`` when the configuration fails
    /// ``Configuration/validated()``.
    public func carry<E: RemoteEvent>(
        _ type: E.Type, mode: Mode, direction: Direction = .both
    ) throws(RedisBridgeError) {
        try add(.typed(type, mode: mode, key: configuration.keyPrefix + E.wireName), direction: direction)
    }

    /// Carries named events that have no data, under the name's string, both ways unless
    /// `direction` says otherwise (see ``Direction``).
    ///
    /// Dispatching the name with data or payload values is reported as
    /// ``RedisBridgeError/cannotEncode(type:reason:)`` and not published; use
    /// ``carry(_:data:mode:direction:)`` for names that carry data.
    public func carry(_ name: EventName, mode: Mode, direction: Direction = .both) throws(RedisBridgeError) {
        try add(.named(name, mode: mode, key: configuration.keyPrefix + name.rawValue), direction: direction)
    }

    /// Carries named events whose data, when there is some, is a `Value`, both ways unless
    /// `direction` says otherwise (see ``Direction``).
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
        _ name: EventName, data: Value.Type, mode: Mode, direction: Direction = .both
    ) throws(RedisBridgeError) {
        try add(
            .named(name, data: data, mode: mode, key: configuration.keyPrefix + name.rawValue), direction: direction)
    }

    /// The stream keys of the carried wire name: its partitions when it has several, else (and
    /// for a name not carried here) its one stream.
    func streamKeys(ofWireName wireName: String) -> [String] {
        lock.withLock { state.carried[wireName]?.keys } ?? [configuration.keyPrefix + wireName]
    }

    func add(_ event: CarriedEvent, direction: Direction) throws(RedisBridgeError) {
        _ = try configuration.validated()
        if let outboxFailure { throw outboxFailure }
        var event = event
        event.direction = direction
        let failure: RedisBridgeError? = lock.withLock {
            guard state.phase == .idle else { return .alreadyStarted }
            guard state.carried[event.wireType] == nil else { return .duplicateWireName(event.wireType) }
            state.carried[event.wireType] = event
            return nil
        }
        if let failure { throw failure }
        guard direction.publishes else { return }
        // Heard from now on, in every phase: what is dispatched before `start()` (or while it
        // runs, or after it failed) waits in the publish buffer for a publisher.
        let subscription = event.listen(center, outbound)
        let kept = lock.withLock {
            guard state.listening else { return false }
            state.subscriptions.append(subscription)
            return true
        }
        if !kept { subscription.cancel() }
    }

    // MARK: - Running

    /// Connects to Redis and starts carrying events.
    ///
    /// When it returns, the consumer groups of the carried streams exist and the Pub/Sub
    /// channels are subscribed, so events other processes publish from then on are received.
    /// It throws ``RedisBridgeError/invalidConfiguration(_:)`` when the configuration fails
    /// ``Configuration/validated()``, and ``RedisBridgeError/startFailed(_:)`` when Redis cannot
    /// be reached (within the configuration's `connectTimeout` plus `replyTimeout`) or refuses
    /// the setup. A start that failed is not retried by the bridge: nothing is received until
    /// the caller calls `start()` again and it succeeds. Later outages, once started, are
    /// handled by retrying, reported through the error handler, never thrown.
    ///
    /// A bridge whose events are all outgoing has nothing to set up: its `start()` does not
    /// wait for Redis, and its publishers connect (and retry) by themselves.
    ///
    /// ```swift
    /// while true {
    ///     do {
    ///         try await bridge.start()
    ///         break
    ///     } catch let error where error.code == .startFailed {
    ///         logger.warning("Redis not ready (\(error)); trying again")
    ///         try await Task.sleep(for: .seconds(1))
    ///     }
    /// }
    /// ```
    ///
    /// Outgoing events are heard from the moment they are carried, not from `start()` on: what
    /// is dispatched before it, while it runs (by listeners of the stream entries a restarted
    /// consumer finds pending, which it delivers before it returns) or after it failed waits in
    /// the publish buffer (``Configuration/publishBufferCapacity`` per mode; beyond it, events
    /// are reported as ``RedisBridgeError/publishBufferFull(type:id:capacity:)``) and is
    /// published once a `start()` has connected, in order.
    public func start() async throws(RedisBridgeError) {
        let carried: [String: CarriedEvent]? = lock.withLock {
            guard state.phase == .idle else { return nil }
            state.phase = .starting
            return state.carried
        }
        guard let carried else { throw .alreadyStarted }
        do throws(RedisBridgeError) {
            _ = try configuration.validated()
            if let outboxFailure { throw outboxFailure }
        } catch {
            lock.withLock { state.phase = .idle }
            throw error
        }

        let received = carried.filter { $0.value.direction.receives }
        let published = carried.values.filter { $0.direction.publishes }
        let inbound = Inbound(
            center: center, source: configuration.source, ownIDPrefix: outbound.idPrefix, carried: received,
            deduplicationWindow: configuration.deduplicationWindow, limits: Inbound.Limits(configuration),
            counters: counters, report: report)
        let streamKeys = received.values.filter { $0.mode == .stream }.flatMap(\.keys).sorted()
        let channels = received.values.filter { $0.mode == .pubSub }.flatMap(\.keys).sorted()
        let publishedKeys = published.flatMap(\.keys).sorted()
        configuration.log(
            .debug, "Redis bridge starting",
            metadata: startMetadata(streams: streamKeys, channels: channels, publishing: publishedKeys))
        var clients: [RedisClient] = []
        var consumers: [StreamConsumer] = []
        var receiver: PubSubReceiver?

        // Everything that can fail comes first, and nothing is delivered until it is done: a
        // start that fails has delivered nothing it would deliver again.
        do throws(RedisError) {
            // On a cluster, streams in different slots cannot be read by one XREADGROUP: each
            // is read by a consumer of its own, over its own connections, so that one stream's
            // blocking read never holds up another's.
            let readers =
                configuration.redis.cluster == nil || streamKeys.isEmpty ? [streamKeys] : streamKeys.map { [$0] }
            for keys in readers where !keys.isEmpty {
                let readClient = RedisClient(configuration.redis)
                clients.append(readClient)
                let reader = StreamConsumer(
                    client: readClient, keys: keys, group: configuration.consumerGroup,
                    consumer: configuration.consumerName, inbound: inbound, configuration: configuration,
                    counters: counters, report: report, failurePolicies: failurePolicies.withLock { $0 })
                try await reader.createGroups()
                consumers.append(reader)
            }
            if !channels.isEmpty {
                if consumers.isEmpty {
                    // Subscribing retries for as long as Redis is away; a command fails with
                    // the reason once its time is up.
                    let probe = RedisClient(configuration.redis)
                    defer { probe.close() }
                    _ = try await probe.send(["PING"])
                }
                receiver = try await PubSubReceiver.start(
                    configuration: configuration.redis, healthCheckInterval: configuration.healthCheckInterval,
                    channels: channels, inbound: inbound, counters: counters, report: report)
            }
        } catch {
            clients.forEach { $0.close() }
            lock.withLock { state.phase = .idle }
            let failure = RedisBridgeError.startFailed(error)
            configuration.log(failure.logLevel, failure.description, metadata: failure.logMetadata, error: failure)
            throw failure
        }

        // One publishing connection per mode that has outgoing events. From here on a queued
        // message is picked up as soon as it is queued, and what was queued before goes now.
        var publishers: [Publisher] = []
        // And for a mode of which only the outbox holds events, left by a run that carried more.
        for mode in [Mode.stream, .pubSub]
        where published.contains(where: { $0.mode == mode }) || outbound.queue(mode).count > 0 {
            let publishClient = RedisClient(configuration.redis)
            clients.append(publishClient)
            let publisher = Publisher(
                queue: outbound.queue(mode), client: publishClient,
                mode: mode, maxEventsPerMessage: configuration.maxEventsPerMessage, counters: counters,
                report: report,
                trimming: mode == .stream ? configuration.streamMaxLength.map { ($0, .seconds(1)) } : nil,
                replication: configuration.replicatedPublishing, outbox: outbound.outbox)
            publisher.queue.setWaker { publisher.kick() }
            publisher.kick()
            publishers.append(publisher)
        }
        let layoutCheck = await checkPartitionLayouts(
            received: Array(received.values), published: published, connected: !consumers.isEmpty || receiver != nil)
        // Last, the stream reader: a restarted consumer delivers its pending entries first.
        let consumerTask: Task<Void, Never>? =
            consumers.isEmpty
            ? nil
            : Task.detached {
                await withTaskGroup(of: Void.self) { readers in
                    for consumer in consumers { readers.addTask { await consumer.run() } }
                }
            }
        let hook: (@Sendable () async -> Void)? = lock.withLock {
            state.layoutCheck = layoutCheck
            state.consumerTask = consumerTask
            state.publishers = publishers
            state.clients = clients
            state.receiver = receiver
            return state.whileStarting
        }
        if let hook { await hook() }
        lock.withLock { state.phase = .running }
        configuration.log(
            .info,
            streamKeys.isEmpty && channels.isEmpty
                ? "Redis bridge started (publishing only: it connects when it publishes)"
                : "Redis bridge started, connected to Redis",
            metadata: startMetadata(streams: streamKeys, channels: channels, publishing: publishedKeys))
    }

    private func startMetadata(streams: [String], channels: [String], publishing: [String]) -> [String: String] {
        [
            "source": configuration.source, "redis": "\(configuration.redis.host):\(configuration.redis.port)",
            "group": configuration.consumerGroup, "consumer": configuration.consumerName,
            "streams": streams.joined(separator: ","), "channels": channels.joined(separator: ","),
            "publishing": publishing.joined(separator: ","),
        ]
    }

    /// Waits until Redis has acknowledged every event dispatched before the call (or, for
    /// Pub/Sub, until publishing it failed and was reported).
    ///
    /// While Redis is unreachable, stream events wait for it, and so does this call (and before
    /// ``start()``, events wait for it): use ``flush(timeout:)`` to bound the wait. Cancelling the calling task ends the wait, and so
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

    /// Stops carrying events: events from Redis no longer arrive, and once it returns, local
    /// dispatches are no longer heard (they stay local, as without a bridge). A stopped bridge
    /// cannot be started again. Called while ``start()`` is still running, it waits for it and
    /// then stops what it started.
    ///
    /// It is ``shutdown(drainTimeout:)`` without the report: the same steps in the same order
    /// (see there), and what is left is reported to the error handler and the log. Use
    /// `shutdown(drainTimeout:)` to learn in code what was left.
    ///
    /// On a bridge that was never started (or whose `start()` failed), events dispatched since
    /// `carry` cannot be published: they are reported and counted so. A bridge let go without
    /// `stop()` reports what it still held in the same way.
    public func stop(drainTimeout: Duration = .seconds(5)) async {
        _ = await shutdown(drainTimeout: drainTimeout)
    }

    /// Stops carrying events, gracefully, and says what was left: what is being delivered
    /// finishes and is acknowledged, queued events get up to `drainTimeout` to be published,
    /// and the report counts what could not be. Otherwise it is ``stop(drainTimeout:)``:
    /// events from Redis no longer arrive, once it returns local dispatches are no longer heard
    /// (they stay local, as without a bridge), and a stopped bridge cannot be started again.
    /// Called while ``start()`` is still running, it waits for it and then stops what it
    /// started.
    ///
    /// ```swift
    /// let report = await bridge.shutdown(drainTimeout: .seconds(10))
    /// if !report.isClean { print("Redis bridge stopped with work left: \(report)") }
    /// ```
    ///
    /// In this order:
    /// 1. Reception ends, and what is being delivered finishes: the Pub/Sub reader ends after
    ///    the message in hand, and the stream reader delivers the batch it read (at most
    ///    ``Configuration/readBlock`` away), waits for its listeners and acknowledges what they
    ///    finished. Entries it could not acknowledge stay pending in Redis and are delivered
    ///    again when a bridge starts with the same consumer name (or claimed by another
    ///    consumer); nothing is acknowledged that was not delivered. The listeners still run
    ///    meanwhile, and what they dispatch is published like any other event. Then, for a
    ///    bridge receiving Pub/Sub events, the center's queued deliveries (listeners with a
    ///    delivery context of their own, such as a queue or the main actor) get until the
    ///    `drainTimeout` deadline to run, as `center.idle()` waits for them; the report says
    ///    when some had not run by then (``ShutdownReport/deliveriesStillQueued``).
    /// 2. Events still waiting for Redis get what is left of `drainTimeout` to be
    ///    acknowledged.
    /// 3. The bridge stops hearing the center. Whatever is left, and whatever a dispatch racing
    ///    with this step hands over too late, is not published: it is reported as
    ///    ``RedisBridgeError/stoppedWithUnpublishedEvents(_:)`` and counted in
    ///    ``Statistics/unpublishedAtStop``.
    ///
    /// The returned ``ShutdownReport`` counts what was left of the last two steps: events not
    /// published, per mode, and entries still pending (read, not acknowledged). On a bridge
    /// that was never started (or whose `start()` failed), events dispatched since `carry`
    /// cannot be published: they are reported and counted so. A bridge let go without `stop()`
    /// reports what it still held in the same way.
    ///
    /// Call it once, when the process is asked to end (see the "Running in production"
    /// article for a `SIGTERM` handler). Later calls, and calls of `stop()`, return at once:
    /// once the first has finished, with its report; while it still runs, with an empty
    /// report, since what will be left is not known yet.
    public func shutdown(drainTimeout: Duration = .seconds(5)) async -> ShutdownReport {
        let began = ContinuousClock.now
        // A `start()` in progress finishes (or fails) first; then this stops what it started.
        while lock.withLock({ state.phase == .starting }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let wasRunning: Bool?
        let earlier: ShutdownReport?
        (wasRunning, earlier) = lock.withLock {
            switch state.phase {
            case .idle, .running:
                defer { state.phase = .stopping }
                return (state.phase == .running, nil)
            case .starting, .stopping, .stopped:
                return (nil, state.shutdownReport)
            }
        }
        guard let wasRunning else { return earlier ?? ShutdownReport() }
        // A check still running is given up, so that it logs nothing after this point.
        if let layoutCheck = lock.withLock({ state.layoutCheck }) {
            layoutCheck.client.close()
            await layoutCheck.task.value
        }
        configuration.log(
            .notice, "Redis bridge stopping",
            metadata: ["source": configuration.source, "drainTimeout": "\(drainTimeout)"])
        let (consumerTask, receiver, publishers, clients) = lock.withLock {
            (state.consumerTask, state.receiver, state.publishers, state.clients)
        }

        // Reception ends first, while the listeners are still heard and the publishers run:
        // what the listeners of the last events dispatch goes out with the rest.
        await receiver?.stop()
        consumerTask?.cancel()
        await consumerTask?.value

        var deadlineReached = false
        var deliveriesQueued = false
        let deadline = ContinuousClock.now + drainTimeout
        if wasRunning, receiver != nil {
            // Received Pub/Sub events may still be queued for listeners in other contexts (the
            // stream reader waited for its own): they run now, and what they dispatch goes out.
            deliveriesQueued = !(await center.idle(until: deadline))
            deadlineReached = deliveriesQueued
        }
        if wasRunning {
            while outbound.streamQueue.count + outbound.pubSubQueue.count > 0 {
                guard ContinuousClock.now < deadline else {
                    deadlineReached = true
                    break
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let subscriptions = lock.withLock {
            state.listening = false
            defer { state.subscriptions = [] }
            return state.subscriptions
        }
        subscriptions.forEach { $0.cancel() }
        let (unpublishedStream, unpublishedPubSub) = giveUpOnQueuedEvents()
        // What was given up stays in the file, for the next bridge that opens it.
        outbound.outbox?.close()

        publishers.forEach { $0.stop() }
        clients.forEach { $0.close() }
        connectionWatch.stop()
        let report = ShutdownReport(
            unpublishedStreamEvents: unpublishedStream, unpublishedPubSubEvents: unpublishedPubSub,
            pendingEntries: counters.pendingEntries.load(ordering: .relaxed), duration: .now - began,
            deadlineReached: deadlineReached, deliveriesStillQueued: deliveriesQueued)
        lock.withLock {
            state.shutdownReport = report
            state.phase = .stopped
        }
        let statistics = self.statistics
        configuration.log(
            report.isClean ? .info : .warning, "Redis bridge stopped: \(report)",
            metadata: report.logMetadata.merging(
                [
                    "source": configuration.source, "published": String(statistics.published),
                    "delivered": String(statistics.delivered),
                ]) { $1 })
        return report
    }

    /// Closes the publish queues and reports the events still in them as not published;
    /// returns how many were left in each (stream, Pub/Sub).
    @discardableResult
    private func giveUpOnQueuedEvents() -> (stream: Int, pubSub: Int) {
        let stream = outbound.streamQueue.close()
        let pubSub = outbound.pubSubQueue.close()
        let left = stream + pubSub
        guard left > 0 else { return (stream, pubSub) }
        counters.unpublishedAtStop.increment(by: left)
        report(.stoppedWithUnpublishedEvents(left))
        return (stream, pubSub)
    }
}

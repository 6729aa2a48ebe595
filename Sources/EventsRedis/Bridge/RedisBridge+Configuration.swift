public import Events
import Foundation

extension RedisBridge {
    /// How an event crosses to other processes.
    public enum Mode: Sendable, Hashable {
        /// Redis Pub/Sub: fire-and-forget with the lowest latency. An event published while a
        /// receiving process is disconnected is lost for that process, and an event that cannot
        /// be published because this process is disconnected is reported
        /// (``RedisBridgeError/pubSubEventLost(type:id:cause:)``) and dropped.
        case pubSub
        /// Redis Streams with consumer groups: at-least-once delivery, with duplicates suppressed
        /// on the receiving side. Publishing retries until Redis acknowledges; receivers
        /// acknowledge after local delivery and resume unacknowledged entries after reconnecting.
        case stream
    }

    /// Which way an event crosses between this process and Redis.
    ///
    /// ```swift
    /// try bridge.carry(OrderPlaced.self, mode: .stream, direction: .outgoing)   // the shop publishes
    /// try worker.carry(OrderPlaced.self, mode: .stream, direction: .incoming)   // a worker consumes
    /// ```
    public enum Direction: Sendable, Hashable {
        /// Local dispatches are published, and events from other processes are dispatched
        /// locally (the default): every instance hears every event, as listeners do in one
        /// process.
        case both
        /// Local dispatches are published; nothing is received. The bridge neither subscribes
        /// to the channel nor reads the stream, so a process that only produces an event pays
        /// nothing for receiving it (not even for skipping its own events coming back).
        case outgoing
        /// Events from other processes are dispatched locally; local dispatches of the event
        /// stay local.
        case incoming

        var publishes: Bool { self != .incoming }
        var receives: Bool { self != .outgoing }
    }

    /// Settings of a ``RedisBridge``.
    ///
    /// ```swift
    /// var configuration = RedisBridge.Configuration(
    ///     redis: RedisConfiguration(host: "127.0.0.1", port: 6379), source: "shop/api-1")
    /// configuration.consumerGroup = "shop/api-1"   // the default: every instance hears every event
    /// ```
    public struct Configuration: Sendable {
        /// Where Redis is and how to talk to it.
        public var redis: RedisConfiguration
        /// The CloudEvents `source` of events published here: identify the app and the instance
        /// (for example `"shop/api-1"`). Keep it unique per running instance and stable across
        /// restarts: messages with this source are this instance's own and are never delivered
        /// back to it. It must not be empty (see ``validated()``).
        public var source: String
        /// Prefix of the Redis keys and channels the bridge uses: an event with wire name `t`
        /// travels on channel `<prefix>t` (Pub/Sub) or stream `<prefix>t` (Streams).
        public var keyPrefix = "events:"
        /// The consumer group this instance reads streams with. Each group receives every
        /// event once; the default (``source``) gives every instance its own group, so every
        /// instance hears every event. Give a fleet of workers one shared group to have each
        /// event handled by one of them.
        public var consumerGroup: String
        /// This instance's consumer name within the group. Keep it stable across restarts so
        /// that a restarted instance resumes its own unacknowledged entries.
        public var consumerName: String
        /// How many published events may wait for Redis to acknowledge them, per mode (at least
        /// 1). Beyond it, new events are rejected with
        /// ``RedisBridgeError/publishBufferFull(type:id:capacity:)``.
        public var publishBufferCapacity = 10_000
        /// A file where each outgoing stream event is written before `dispatch` returns, so
        /// that the events Redis has not acknowledged yet survive the death of this process;
        /// `nil` (the default) keeps them in memory only. See ``RedisBridge/Outbox``.
        ///
        /// The bridge opens the file when it is created, and queues what an earlier run left
        /// in it ahead of every event dispatched from then on; when the file cannot be used
        /// (another bridge has it open, it is not an outbox file), every `carry` and
        /// ``RedisBridge/start()`` throw ``RedisBridgeError/Code/outboxUnavailable``, so that
        /// nothing is carried without it.
        public var outbox: Outbox? = nil
        /// How many recent event identities are remembered to suppress duplicates. An identity
        /// is an event's `source` and `id`, compared byte for byte. The window's memory grows
        /// with the identities it holds, up to its bound once full (see `Docs/Performance.md`
        /// for measured sizes). Long identities are bounded by bytes as well: see
        /// ``deduplicationWindowBytes``.
        public var deduplicationWindow = 100_000
        /// The most bytes of identities (`source` and `id` together, in UTF-8) the deduplication
        /// window keeps, 16 MiB by default: when a new identity would go beyond it, the oldest
        /// are forgotten first, as when the window holds ``deduplicationWindow`` identities.
        /// Identities of usual lengths fill the count long before the bytes; this bounds what
        /// unusually long ones can take. The window's memory stays within twice this plus about
        /// 50 bytes per remembered identity. Raised, when lower, to one identity at both
        /// ``maxReceivedIDBytes`` and ``maxReceivedSourceBytes``.
        ///
        /// ```swift
        /// configuration.deduplicationWindow = 1_000_000            // a long memory of short ids
        /// configuration.deduplicationWindowBytes = 128 * 1024 * 1024
        /// ```
        public var deduplicationWindowBytes = Inbound.Limits.defaultWindowBytes
        /// The longest `id` a received event may have, in UTF-8 bytes (escapes count as the text
        /// they stand for); 4,096 by default. CloudEvents ids are short identifiers, such as
        /// UUIDs; an event with a longer one is not delivered but reported as
        /// ``RedisBridgeError/invalidMessage(_:key:)`` and counted in
        /// ``RedisBridge/Statistics/invalidMessages``, so that a sender cannot fill the
        /// deduplication window with huge identities.
        ///
        /// ```swift
        /// configuration.maxReceivedIDBytes = 64   // every sender here uses UUIDs
        /// ```
        public var maxReceivedIDBytes = Inbound.Limits.defaultMaxIDBytes
        /// The longest `source` a received event may have, in UTF-8 bytes; 4,096 by default.
        /// Beyond it, an event is refused as with ``maxReceivedIDBytes``. Keep every publishing
        /// instance's ``source`` within the receivers' limit.
        public var maxReceivedSourceBytes = Inbound.Limits.defaultMaxSourceBytes
        /// How deep a received event's `data` may nest (levels of arrays and objects) for the
        /// bridge to decode it; 100 by default, at most 512. Deeper data is not decoded but
        /// reported as ``RedisBridgeError/undecodableData(type:id:source:reason:)`` and counted
        /// in ``RedisBridge/Statistics/undecodable``.
        ///
        /// Decoding a recursive type, such as a tree or a JSON value enum, takes call stack at
        /// every level, in the decoder and in the type's own `init(from:)`. The default keeps
        /// that within the smallest thread stack the bridge's readers run on (512 KiB, that of
        /// a secondary thread on Apple platforms), in a debug build too, while a sender chooses
        /// the depth. Raise it only for data that truly nests deeper, and only where readers
        /// have larger stacks.
        ///
        /// ```swift
        /// configuration.maxReceivedDataDepth = 32   // these events' data is shallow
        /// ```
        public var maxReceivedDataDepth = Inbound.Limits.defaultMaxDataDepth
        /// Most events carried by one Redis message (a Pub/Sub message or a stream entry).
        ///
        /// At 1, the default, every event is a message of its own, a single CloudEvent that any
        /// CloudEvents library reads. Above 1, events queued together for the same channel or
        /// stream go out as one CloudEvents JSON batch (a JSON array of events, the format's
        /// `application/cloudevents-batch+json`), up to this many and about 1 MiB per message.
        /// That is far less work for Redis per event: with Streams, where Redis's own work is
        /// most of the cost of an event, it raises throughput well beyond one message per
        /// event (see `Docs/Performance.md`). The price is for consumers written in other
        /// languages, which must read the batch format; bridges read both forms whatever this
        /// setting is.
        ///
        /// Nothing waits to fill a message: an event dispatched while Redis keeps up goes out
        /// alone, as a single CloudEvent. The events of one message share its fate: on a
        /// stream they are one entry (acknowledged, claimed and trimmed together, and counted as
        /// one entry by ``streamMaxLength``); on Pub/Sub they are delivered or lost together.
        public var maxEventsPerMessage = 1
        /// Streams are trimmed once they grow beyond this many entries, but only of entries that
        /// every consumer group has acknowledged; `nil` never trims.
        public var streamMaxLength: Int? = 100_000
        /// How long an entry must have been pending with another consumer of the group before
        /// this instance claims it (`XAUTOCLAIM`), assuming that consumer died.
        ///
        /// Rules:
        /// - An entry delivered and not acknowledged (its consumer died, or is still handling
        ///   it) is claimed once it has been idle this long, and delivered again at once.
        /// - An entry whose listener failed and that waits for a retry (see
        ///   ``FailurePolicy``) is never claimed from a consumer that runs and reaches Redis,
        ///   however long its backoff: that consumer claims it again to itself every third of
        ///   this time, which resets its idle time in Redis without counting a delivery, and
        ///   delivers it once the backoff is over. From a consumer that died, or that cannot
        ///   reach Redis for this long, it is claimed this long after that consumer last
        ///   reached it, and delivered at once.
        ///
        /// Keep it well above the time a consumer may go without reaching Redis while it runs
        /// (the longest a batch of listeners takes, plus ``readBlock``, plus the Redis
        /// configuration's `replyTimeout`).
        public var claimMinimumIdle: Duration = .seconds(30)
        /// How often to look for stale entries to claim.
        public var claimInterval: Duration = .seconds(10)
        /// What a stream consumer does with an event whose listeners threw: by default it
        /// retries, up to 5 deliveries with a backoff from 1 to 20 seconds, then moves the event
        /// to the dead-letter stream. `carry(_:mode:direction:onFailure:)` sets it per event.
        /// See ``FailurePolicy``.
        public var failurePolicy: FailurePolicy = .retry()
        /// What a stream consumer does with a message it cannot deliver (not a CloudEvent, a
        /// type not carried, data that does not decode): by default it reports and acknowledges
        /// it; ``PoisonPolicy/deadLetter`` moves it to the dead-letter stream as well.
        public var poisonMessages: PoisonPolicy = .acknowledge
        /// The dead-letter stream of a carried stream, given the stream's key: by default the key
        /// followed by `:dead`, so events of wire name `t` fail over to `events:t:dead`. See
        /// ``RedisBridge/DeadLetter``.
        public var deadLetterKey: @Sendable (_ streamKey: String) -> String = { $0 + ":dead" }
        /// Whether a stream event counts as published only once replicas have it too; `nil`
        /// (the default) counts it once the master has it. See ``ReplicatedPublishing``.
        public var replicatedPublishing: ReplicatedPublishing? = nil
        /// Most entries read from the streams at once (`XREADGROUP ... COUNT`). Each read also
        /// carries the acknowledgements of the batch before, so larger batches mean fewer round
        /// trips per event; a read returns as soon as any entry is there, so they add no
        /// latency. The default is the batch the benchmark's raw client reads, and it cost less
        /// CPU per event than smaller batches in the Streams throughput scenario.
        public var readBatchSize = 512
        /// How long a stream read waits for new entries before checking again.
        public var readBlock: Duration = .milliseconds(500)
        /// How long the Pub/Sub connection may stay silent before the bridge sends `PING` to
        /// check it; when the answer takes longer than the Redis configuration's `replyTimeout`,
        /// the bridge drops the connection, subscribes again and reports the gap (messages
        /// published meanwhile are lost for this process). A connection that died without
        /// being closed (a network partition, a frozen server) is so noticed within this
        /// interval plus `replyTimeout`.
        ///
        /// Stream connections need no such check: every read waits at most ``readBlock`` plus
        /// `replyTimeout`, and every publish at most `replyTimeout`, before the connection is
        /// dropped and the work retried on a new one.
        public var healthCheckInterval: Duration = .seconds(30)
        /// Describes the sender of a published event (the CloudEvents `subject`); by default
        /// the sender's type name. Return `nil` to leave `subject` out; an empty string leaves it
        /// out too (CloudEvents requires a `subject` to be non-empty when present).
        public var subject: @Sendable (Sender) -> String? = { sender in String(describing: sender.type) }
        /// Receives every ``RedisBridgeError``; by default prints one line to standard error.
        public var errorHandler: @Sendable (RedisBridgeError) -> Void = { error in
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
        }
        /// Receives the bridge's log: every error that goes to ``errorHandler`` (as a record
        /// with the error attached), and the steps of the bridge's life (starting, started,
        /// Redis answering again after an outage, stopping, stopped with what was left). `nil`,
        /// the default, logs nothing beyond what ``errorHandler`` does.
        ///
        /// After a connection error, the bridge's connections reconnect by themselves, and
        /// none reports it; so that the log can say when an outage ended, a bridge with a log
        /// handler pings Redis on one more connection, during an outage only, until it answers.
        ///
        /// Install it to route everything the bridge has to say to the app's logging system,
        /// and leave ``errorHandler`` to its default or set it to ignore errors, so that each
        /// error is written once:
        ///
        /// ```swift
        /// configuration.errorHandler = { _ in }   // the log handler writes them
        /// configuration.logHandler = { record in
        ///     print("[\(record.level)] \(record.message)")
        /// }
        /// ```
        ///
        /// It is called on the bridge's threads, right after ``errorHandler`` for an error, never
        /// with a lock held: keep it quick and do not wait in it for the bridge (a `stop()` there
        /// would wait for itself). See ``RedisBridge/LogRecord``.
        public var logHandler: (@Sendable (RedisBridge.LogRecord) -> Void)? = nil

        /// A configuration for an app instance identified by `source`.
        public init(redis: RedisConfiguration = RedisConfiguration(), source: String) {
            self.redis = redis
            self.source = source
            self.consumerGroup = source
            self.consumerName = source
        }

        /// This configuration, checked: throws ``RedisBridgeError/invalidConfiguration(_:)`` when
        /// it cannot work.
        ///
        /// Use it where the configuration is made, to fail there rather than at the first
        /// `carry` (every `carry` and ``RedisBridge/start()`` run the same check, so a bridge
        /// never publishes with a configuration that fails it):
        ///
        /// ```swift
        /// let configuration = try RedisBridge.Configuration(
        ///     redis: RedisConfiguration(host: "127.0.0.1", port: 6379), source: instanceName
        /// ).validated()
        /// ```
        ///
        /// Rules: ``source`` must not be empty (CloudEvents requires a non-empty `source`, and
        /// every receiver would reject the bridge's events), ``publishBufferCapacity`` must be
        /// at least 1, ``maxReceivedDataDepth`` must be from 1 to 512, an ``outbox`` needs a path,
        /// at least 4096 ``Outbox/maximumBytes`` and a sync interval above zero, and on a cluster
        /// (`RedisConfiguration.cluster`) ``replicatedPublishing`` must be `nil`: `WAIT` counts
        /// the replicas of one node, and a batch of events spans several.
        public func validated() throws(RedisBridgeError) -> Configuration {
            if redis.cluster != nil, replicatedPublishing != nil {
                throw .invalidConfiguration(
                    "replicatedPublishing cannot be used on a Redis Cluster: WAIT counts one node's replicas")
            }
            if source.isEmpty {
                throw .invalidConfiguration(
                    "source must not be empty: CloudEvents requires every event to name its source; "
                        + "set it to the app and instance, such as \"shop/api-1\"")
            }
            if publishBufferCapacity < 1 {
                throw .invalidConfiguration(
                    "publishBufferCapacity is \(publishBufferCapacity); it must be at least 1")
            }
            if let outbox {
                if outbox.path.isEmpty { throw .invalidConfiguration("outbox.path must not be empty") }
                if outbox.maximumBytes < 4096 {
                    throw .invalidConfiguration(
                        "outbox.maximumBytes is \(outbox.maximumBytes); it must be at least 4096")
                }
                if case .interval(let interval) = outbox.sync.kind, interval <= .zero {
                    throw .invalidConfiguration("outbox.sync is \(outbox.sync); the interval must be above zero")
                }
            }
            if !(1...Inbound.Limits.deepestDataDepth).contains(maxReceivedDataDepth) {
                throw .invalidConfiguration(
                    "maxReceivedDataDepth is \(maxReceivedDataDepth); it must be from 1 to "
                        + "\(Inbound.Limits.deepestDataDepth)")
            }
            return self
        }
    }
}

/// What went wrong in a ``RedisBridge``: reported through
/// ``RedisBridge/Configuration/errorHandler`` and counted in ``RedisBridge/statistics``.
///
/// None of these stop the bridge. A message that cannot be delivered is reported and, on a
/// stream, acknowledged, so one bad message never blocks the ones behind it.
///
/// An error has a ``code`` that says what kind of problem it is, and the facts of that problem
/// as optional properties (``type``, ``id``, ``cause``...; each ``Code`` says which of them it
/// sets). Match on the code, and keep a `default`: new releases add codes, and a `switch` with a
/// `default` goes on compiling.
///
/// ```swift
/// configuration.errorHandler = { error in
///     switch error.code {
///     case .publishBufferFull, .pubSubEventLost:
///         print("not published: \(error.type ?? "?") event \(error.id ?? "?")")
///     case .consumerGroupLost:
///         print("lost unread entries of \(error.stream ?? "?")")
///     default:
///         print(error)
///     }
/// }
///
/// do {
///     try await bridge.start()
/// } catch let error where error.code == .startFailed {
///     if let cause = error.cause { print("Redis not ready (\(cause)); call start() again") }
/// } catch {
///     print(error)
/// }
/// ```
///
/// A code also matches the error itself, so `case .startFailed:` in a `switch` over an error,
/// or `catch .startFailed` where only a ``RedisBridgeError`` can be thrown, works too. Two
/// errors are equal when their codes and all their facts are.
public struct RedisBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem a ``RedisBridgeError`` reports.
    ///
    /// Compare codes with `==` or match them in a `switch`, which needs a `default`: the set of
    /// codes grows with new releases. A code's ``description`` is its name, such as
    /// `"startFailed"`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: String, Sendable {
            case invalidMessage, unknownType, undecodableData, cannotEncode, publishBufferFull, pubSubEventLost,
                redis, consumerGroupLost, stoppedWithUnpublishedEvents, duplicateWireName, alreadyStarted,
                invalidConfiguration, startFailed, partitionLayoutMismatch, outboxUnavailable, outboxFull,
                outboxDamaged, outboxEntriesExpired
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// A message from Redis is not a valid CloudEvent (it is acknowledged and skipped).
        ///
        /// Sets ``RedisBridgeError/cloudEventError`` and ``RedisBridgeError/key``.
        public static let invalidMessage = Code(.invalidMessage)
        /// A valid CloudEvent whose `type` this bridge does not carry (acknowledged and skipped).
        ///
        /// Sets ``RedisBridgeError/type``, ``RedisBridgeError/id`` and ``RedisBridgeError/source``.
        public static let unknownType = Code(.unknownType)
        /// The event's `data` does not decode as the type registered for its wire name
        /// (acknowledged and skipped).
        ///
        /// Sets ``RedisBridgeError/type``, ``RedisBridgeError/id``, ``RedisBridgeError/source``
        /// and ``RedisBridgeError/reason``.
        public static let undecodableData = Code(.undecodableData)
        /// A locally dispatched event could not be encoded, so it was not published.
        ///
        /// Sets ``RedisBridgeError/type`` and ``RedisBridgeError/reason``.
        public static let cannotEncode = Code(.cannotEncode)
        /// The publish buffer is full: an event was not published.
        ///
        /// Sets ``RedisBridgeError/type``, ``RedisBridgeError/id`` and ``RedisBridgeError/capacity``.
        public static let publishBufferFull = Code(.publishBufferFull)
        /// A Pub/Sub event whose publishing Redis did not confirm.
        ///
        /// Sets ``RedisBridgeError/type``, ``RedisBridgeError/id`` and ``RedisBridgeError/cause``.
        public static let pubSubEventLost = Code(.pubSubEventLost)
        /// Talking to Redis failed; the bridge keeps retrying with backoff.
        ///
        /// Sets ``RedisBridgeError/cause``.
        public static let redis = Code(.redis)
        /// A stream's consumer group was gone and was created again from the stream's start.
        ///
        /// Sets ``RedisBridgeError/stream`` and ``RedisBridgeError/group``.
        public static let consumerGroupLost = Code(.consumerGroupLost)
        /// The bridge stopped before Redis acknowledged some queued events.
        ///
        /// Sets ``RedisBridgeError/unpublishedCount``.
        public static let stoppedWithUnpublishedEvents = Code(.stoppedWithUnpublishedEvents)
        /// Two carried event types declare the same wire name.
        ///
        /// Sets ``RedisBridgeError/type`` to that wire name.
        public static let duplicateWireName = Code(.duplicateWireName)
        /// `carry` was called after `start()`.
        ///
        /// Sets none of the facts.
        public static let alreadyStarted = Code(.alreadyStarted)
        /// The bridge's ``RedisBridge/Configuration`` cannot work.
        ///
        /// Sets ``RedisBridgeError/reason``.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// ``RedisBridge/start()`` could not reach Redis, or Redis refused the setup.
        ///
        /// Sets ``RedisBridgeError/cause``.
        public static let startFailed = Code(.startFailed)
        /// Another process carries one of this bridge's stream types on another number of
        /// partitions, so that the two miss each other's events.
        ///
        /// Sets ``RedisBridgeError/type``, ``RedisBridgeError/stream`` and
        /// ``RedisBridgeError/reason``.
        public static let partitionLayoutMismatch = Code(.partitionLayoutMismatch)
        /// The ``RedisBridge/Outbox`` file cannot be used: another bridge has it open, it is not
        /// an outbox file, or reading, writing or syncing it failed. Thrown by `carry` and
        /// ``RedisBridge/start()`` when the file cannot be opened (nothing is carried without
        /// the outbox asked for); reported when a later write fails (the event is still
        /// published, but not kept in the file).
        ///
        /// Sets ``RedisBridgeError/path`` and ``RedisBridgeError/reason``.
        public static let outboxUnavailable = Code(.outboxUnavailable)
        /// The events waiting in the outbox take its ``RedisBridge/Outbox/maximumBytes``: an
        /// event was not published.
        ///
        /// Sets ``RedisBridgeError/type``, ``RedisBridgeError/id`` and ``RedisBridgeError/capacity``
        /// (in bytes).
        public static let outboxFull = Code(.outboxFull)
        /// The outbox file ended in a damaged record (a write torn by a crash of the machine, or
        /// bytes changed on disk): it was cut off there, and the records before it kept.
        ///
        /// Sets ``RedisBridgeError/path`` and ``RedisBridgeError/reason``.
        public static let outboxDamaged = Code(.outboxDamaged)
        /// Events found in the outbox file were older than its ``RedisBridge/Outbox/maximumAge``
        /// and were not published again.
        ///
        /// Sets ``RedisBridgeError/path`` and ``RedisBridgeError/unpublishedCount``.
        public static let outboxEntriesExpired = Code(.outboxEntriesExpired)

        /// The code's name, such as `"startFailed"`: the same as the name of the static member
        /// that makes such an error.
        public var description: String { kind.rawValue }
    }

    /// The problem with its facts; every public property reads from it, and `==` compares it
    /// whole, so that two errors are equal exactly when their code and all their facts are.
    private enum Storage: Equatable, Sendable {
        case invalidMessage(CloudEventError, key: String)
        case unknownType(String, id: String, source: String)
        case undecodableData(type: String, id: String, source: String, reason: String)
        case cannotEncode(type: String, reason: String)
        case publishBufferFull(type: String, id: String, capacity: Int)
        case pubSubEventLost(type: String, id: String, cause: RedisError)
        case redis(RedisError)
        case consumerGroupLost(stream: String, group: String)
        case stoppedWithUnpublishedEvents(Int)
        case duplicateWireName(String)
        case alreadyStarted
        case invalidConfiguration(String)
        case startFailed(RedisError)
        case partitionLayoutMismatch(type: String, stream: String, reason: String)
        case outboxUnavailable(path: String, reason: String)
        case outboxFull(type: String, id: String, capacity: Int)
        case outboxDamaged(path: String, reason: String)
        case outboxEntriesExpired(path: String, count: Int)
    }

    private let storage: Storage

    private init(_ storage: Storage) {
        self.storage = storage
    }

    // MARK: - Making errors

    /// A message from Redis is not a valid CloudEvent (it is acknowledged and skipped).
    public static func invalidMessage(_ error: CloudEventError, key: String) -> RedisBridgeError {
        RedisBridgeError(.invalidMessage(error, key: key))
    }

    /// A valid CloudEvent whose `type` this bridge does not carry (acknowledged and skipped).
    public static func unknownType(_ type: String, id: String, source: String) -> RedisBridgeError {
        RedisBridgeError(.unknownType(type, id: id, source: source))
    }

    /// The event's `data` does not decode as the type registered for its wire name
    /// (acknowledged and skipped).
    public static func undecodableData(type: String, id: String, source: String, reason: String) -> RedisBridgeError {
        RedisBridgeError(.undecodableData(type: type, id: id, source: source, reason: reason))
    }

    /// A locally dispatched event could not be encoded, so it was not published. Local
    /// listeners still received it.
    public static func cannotEncode(type: String, reason: String) -> RedisBridgeError {
        RedisBridgeError(.cannotEncode(type: type, reason: reason))
    }

    /// The publish buffer is full (Redis has been unreachable for a while): this event was not
    /// published. Local listeners still received it.
    public static func publishBufferFull(type: String, id: String, capacity: Int) -> RedisBridgeError {
        RedisBridgeError(.publishBufferFull(type: type, id: id, capacity: capacity))
    }

    /// A Pub/Sub event whose publishing Redis did not confirm: it refused the `PUBLISH`
    /// (`cause`'s code is `.server`), or the connection failed before the reply came
    /// back, in which case the event may or may not have reached subscribers. Pub/Sub is
    /// fire-and-forget, so it is not retried.
    public static func pubSubEventLost(type: String, id: String, cause: RedisError) -> RedisBridgeError {
        RedisBridgeError(.pubSubEventLost(type: type, id: id, cause: cause))
    }

    /// Talking to Redis failed; the bridge keeps retrying with backoff.
    public static func redis(_ error: RedisError) -> RedisBridgeError {
        RedisBridgeError(.redis(error))
    }

    /// The stream reader found its consumer group gone when it set up again after an error
    /// or an outage: Redis lost its data (it restarted without persistence, or came back empty
    /// from a failover), or someone deleted the group or the stream. The bridge created the
    /// group again from the stream's start, so it receives every entry that the stream holds
    /// now; the entries written before the loss that this group had not yet read were lost with
    /// Redis's data.
    public static func consumerGroupLost(stream: String, group: String) -> RedisBridgeError {
        RedisBridgeError(.consumerGroupLost(stream: stream, group: group))
    }

    /// The bridge stopped before Redis acknowledged these many queued events; they were not
    /// published.
    public static func stoppedWithUnpublishedEvents(_ count: Int) -> RedisBridgeError {
        RedisBridgeError(.stoppedWithUnpublishedEvents(count))
    }

    /// Two carried event types declare the same wire name.
    public static func duplicateWireName(_ name: String) -> RedisBridgeError {
        RedisBridgeError(.duplicateWireName(name))
    }

    /// `carry` was called after `start()`; register every event before starting.
    public static let alreadyStarted = RedisBridgeError(.alreadyStarted)

    /// The bridge's ``RedisBridge/Configuration`` cannot work (an empty `source`, say): thrown
    /// by ``RedisBridge/Configuration/validated()``, by every `carry` and by `start()`, so that
    /// nothing is ever published with it.
    public static func invalidConfiguration(_ reason: String) -> RedisBridgeError {
        RedisBridgeError(.invalidConfiguration(reason))
    }

    /// Thrown by ``RedisBridge/start()`` when Redis cannot be reached or refuses the setup (a
    /// consumer group, a subscription). The bridge does not retry by itself: nothing is
    /// received until a later `start()` succeeds, and outgoing events wait in the publish
    /// buffer for it. Call `start()` again.
    public static func startFailed(_ error: RedisError) -> RedisBridgeError {
        RedisBridgeError(.startFailed(error))
    }

    /// Found when the bridge starts: another process carries `type` on another number of
    /// partitions. `stream` is where the two layouts miss each other (entries this bridge does
    /// not read wait there, or groups read there that this bridge does not publish to), and
    /// `reason` says which. Events carried across the mismatch are not lost, they wait unread:
    /// give every process the same number of partitions, or drain the old layout.
    public static func partitionLayoutMismatch(type: String, stream: String, reason: String) -> RedisBridgeError {
        RedisBridgeError(.partitionLayoutMismatch(type: type, stream: stream, reason: reason))
    }

    /// The outbox file at `path` cannot be used, for the `reason` given.
    public static func outboxUnavailable(path: String, reason: String) -> RedisBridgeError {
        RedisBridgeError(.outboxUnavailable(path: path, reason: reason))
    }

    /// Event `id` of `type` was not published: the events waiting in the outbox take its
    /// `capacity` bytes.
    public static func outboxFull(type: String, id: String, capacity: Int) -> RedisBridgeError {
        RedisBridgeError(.outboxFull(type: type, id: id, capacity: capacity))
    }

    /// The outbox file at `path` ended in a damaged record, cut off as `reason` says.
    public static func outboxDamaged(path: String, reason: String) -> RedisBridgeError {
        RedisBridgeError(.outboxDamaged(path: path, reason: reason))
    }

    /// `count` events in the outbox file at `path` were too old to be published again.
    public static func outboxEntriesExpired(path: String, count: Int) -> RedisBridgeError {
        RedisBridgeError(.outboxEntriesExpired(path: path, count: count))
    }

    // MARK: - Reading errors

    /// What kind of problem this is.
    public var code: Code {
        switch storage {
        case .invalidMessage: .invalidMessage
        case .unknownType: .unknownType
        case .undecodableData: .undecodableData
        case .cannotEncode: .cannotEncode
        case .publishBufferFull: .publishBufferFull
        case .pubSubEventLost: .pubSubEventLost
        case .redis: .redis
        case .consumerGroupLost: .consumerGroupLost
        case .stoppedWithUnpublishedEvents: .stoppedWithUnpublishedEvents
        case .duplicateWireName: .duplicateWireName
        case .alreadyStarted: .alreadyStarted
        case .invalidConfiguration: .invalidConfiguration
        case .startFailed: .startFailed
        case .partitionLayoutMismatch: .partitionLayoutMismatch
        case .outboxUnavailable: .outboxUnavailable
        case .outboxFull: .outboxFull
        case .outboxDamaged: .outboxDamaged
        case .outboxEntriesExpired: .outboxEntriesExpired
        }
    }

    /// Why a message is not a valid CloudEvent, for ``Code/invalidMessage``.
    public var cloudEventError: CloudEventError? {
        guard case .invalidMessage(let error, _) = storage else { return nil }
        return error
    }

    /// The Redis key (stream or channel) the message was read from, for ``Code/invalidMessage``.
    public var key: String? {
        guard case .invalidMessage(_, let key) = storage else { return nil }
        return key
    }

    /// The event's wire name (its CloudEvents `type`), for ``Code/unknownType``,
    /// ``Code/undecodableData``, ``Code/cannotEncode``, ``Code/publishBufferFull``,
    /// ``Code/pubSubEventLost``, ``Code/duplicateWireName``, ``Code/partitionLayoutMismatch`` and
    /// ``Code/outboxFull``.
    public var type: String? {
        switch storage {
        case .unknownType(let type, _, _), .undecodableData(let type, _, _, _), .cannotEncode(let type, _),
            .publishBufferFull(let type, _, _), .pubSubEventLost(let type, _, _), .duplicateWireName(let type),
            .partitionLayoutMismatch(let type, _, _), .outboxFull(let type, _, _):
            type
        default:
            nil
        }
    }

    /// The event's CloudEvents `id`, for ``Code/unknownType``, ``Code/undecodableData``,
    /// ``Code/publishBufferFull``, ``Code/pubSubEventLost`` and ``Code/outboxFull``.
    public var id: String? {
        switch storage {
        case .unknownType(_, let id, _), .undecodableData(_, let id, _, _), .publishBufferFull(_, let id, _),
            .pubSubEventLost(_, let id, _), .outboxFull(_, let id, _):
            id
        default:
            nil
        }
    }

    /// The CloudEvents `source` of a received event, for ``Code/unknownType`` and
    /// ``Code/undecodableData``.
    public var source: String? {
        switch storage {
        case .unknownType(_, _, let source), .undecodableData(_, _, let source, _): source
        default: nil
        }
    }

    /// What is wrong, in words: why data did not decode (``Code/undecodableData``) or encode
    /// (``Code/cannotEncode``), what the configuration lacks (``Code/invalidConfiguration``), or
    /// how two partition layouts miss each other (``Code/partitionLayoutMismatch``), or what is
    /// wrong with an outbox file (``Code/outboxUnavailable``, ``Code/outboxDamaged``).
    public var reason: String? {
        switch storage {
        case .undecodableData(_, _, _, let reason), .cannotEncode(_, let reason), .invalidConfiguration(let reason),
            .partitionLayoutMismatch(_, _, let reason), .outboxUnavailable(_, let reason),
            .outboxDamaged(_, let reason):
            reason
        default:
            nil
        }
    }

    /// How many events the full publish buffer holds, for ``Code/publishBufferFull``; how many
    /// bytes the full outbox may hold, for ``Code/outboxFull``.
    public var capacity: Int? {
        switch storage {
        case .publishBufferFull(_, _, let capacity), .outboxFull(_, _, let capacity): capacity
        default: nil
        }
    }

    /// The outbox file's path, for ``Code/outboxUnavailable``, ``Code/outboxDamaged`` and
    /// ``Code/outboxEntriesExpired``.
    public var path: String? {
        switch storage {
        case .outboxUnavailable(let path, _), .outboxDamaged(let path, _), .outboxEntriesExpired(let path, _): path
        default: nil
        }
    }

    /// What Redis or the connection to it did, for ``Code/pubSubEventLost``, ``Code/redis`` and
    /// ``Code/startFailed``.
    public var cause: RedisError? {
        switch storage {
        case .pubSubEventLost(_, _, let cause), .redis(let cause), .startFailed(let cause): cause
        default: nil
        }
    }

    /// The key of the stream whose consumer group was lost (``Code/consumerGroupLost``), or
    /// where two partition layouts miss each other (``Code/partitionLayoutMismatch``).
    public var stream: String? {
        switch storage {
        case .consumerGroupLost(let stream, _), .partitionLayoutMismatch(_, let stream, _): stream
        default: nil
        }
    }

    /// The consumer group that was lost and created again, for ``Code/consumerGroupLost``.
    public var group: String? {
        guard case .consumerGroupLost(_, let group) = storage else { return nil }
        return group
    }

    /// How many events were not published when the bridge stopped, for
    /// ``Code/stoppedWithUnpublishedEvents``, or were found too old in the outbox, for
    /// ``Code/outboxEntriesExpired``.
    public var unpublishedCount: Int? {
        switch storage {
        case .stoppedWithUnpublishedEvents(let count), .outboxEntriesExpired(_, let count): count
        default: nil
        }
    }

    /// Whether `error` has this code: lets a code stand for its errors in a `switch` over an
    /// error, or in a `catch` of a typed throw.
    public static func ~= (code: Code, error: RedisBridgeError) -> Bool {
        error.code == code
    }

    /// One line that says what happened, to what, and what the bridge did about it.
    public var description: String {
        switch storage {
        case .invalidMessage(let error, let key):
            return "Redis bridge: skipped a message on \(key): \(error)"
        case .unknownType(let type, let id, let source):
            return "Redis bridge: skipped event \(id) from \(source): this bridge does not carry type \"\(type)\""
        case .undecodableData(let type, let id, let source, let reason):
            return
                "Redis bridge: skipped event \(id) from \(source): its data does not decode as \"\(type)\": \(reason)"
        case .cannotEncode(let type, let reason):
            return "Redis bridge: could not encode a \"\(type)\" event, it was not published: \(reason)"
        case .publishBufferFull(let type, let id, let capacity):
            return
                "Redis bridge: publish buffer full (\(capacity) events waiting for Redis); \"\(type)\" event \(id) was not published"
        case .pubSubEventLost(let type, let id, let cause):
            if cause.code == .server {
                return "Redis bridge: Pub/Sub event \(id) (\"\(type)\") was not published: \(cause)"
            }
            return
                "Redis bridge: Pub/Sub event \(id) (\"\(type)\") may not have been published (the connection failed before Redis confirmed it), and is not retried: \(cause)"
        case .redis(let error):
            return "Redis bridge: \(error); retrying"
        case .consumerGroupLost(let stream, let group):
            return
                "Redis bridge: consumer group \"\(group)\" of stream \(stream) was gone (Redis lost its data, or the group was deleted) and was created again from the stream's start; entries written before that and not yet read by the group were lost"
        case .stoppedWithUnpublishedEvents(let count):
            return "Redis bridge: stopped with \(count) events not yet acknowledged by Redis; they were not published"
        case .duplicateWireName(let name):
            return "Redis bridge: two event types use the wire name \"\(name)\""
        case .alreadyStarted:
            return "Redis bridge: carry(...) must be called before start()"
        case .invalidConfiguration(let reason):
            return "Redis bridge: invalid configuration: \(reason)"
        case .startFailed(let error):
            return
                "Redis bridge: could not start: \(error) Nothing is received until start() succeeds, and outgoing events wait in the publish buffer: call start() again."
        case .partitionLayoutMismatch(_, _, let reason):
            return "Redis bridge: \(reason)"
        case .outboxUnavailable(let path, let reason):
            return "Redis bridge: outbox \(path): \(reason)"
        case .outboxFull(let type, let id, let capacity):
            return
                "Redis bridge: outbox full (the events waiting for Redis take its \(capacity) bytes); \"\(type)\" event \(id) was not published"
        case .outboxDamaged(let path, let reason):
            return "Redis bridge: outbox \(path) was damaged: \(reason)"
        case .outboxEntriesExpired(let path, let count):
            return
                "Redis bridge: outbox \(path) held \(count) events older than its maximum age; they were not published again"
        }
    }
}

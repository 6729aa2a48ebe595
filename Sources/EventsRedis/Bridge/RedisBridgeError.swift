/// What went wrong in a ``RedisBridge``: reported through
/// ``RedisBridge/Configuration/errorHandler`` and counted in ``RedisBridge/statistics``.
///
/// None of these stop the bridge. A message that cannot be delivered is reported and, on a
/// stream, acknowledged, so one bad message never blocks the ones behind it.
public enum RedisBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message from Redis is not a valid CloudEvent (it is acknowledged and skipped).
    case invalidMessage(CloudEventError, key: String)
    /// A valid CloudEvent whose `type` this bridge does not carry (acknowledged and skipped).
    case unknownType(String, id: String, source: String)
    /// The event's `data` does not decode as the type registered for its wire name
    /// (acknowledged and skipped).
    case undecodableData(type: String, id: String, source: String, reason: String)
    /// A locally dispatched event could not be encoded, so it was not published. Local
    /// listeners still received it.
    case cannotEncode(type: String, reason: String)
    /// The publish buffer is full (Redis has been unreachable for a while): this event was not
    /// published. Local listeners still received it.
    case publishBufferFull(type: String, id: String, capacity: Int)
    /// A Pub/Sub event whose publishing Redis did not confirm: it refused the `PUBLISH`
    /// (`cause`'s code is `.server`), or the connection failed before the reply came
    /// back, in which case the event may or may not have reached subscribers. Pub/Sub is
    /// fire-and-forget, so it is not retried.
    case pubSubEventLost(type: String, id: String, cause: RedisError)
    /// Talking to Redis failed; the bridge keeps retrying with backoff.
    case redis(RedisError)
    /// The stream reader found its consumer group gone when it set up again after an error
    /// or an outage: Redis lost its data (it restarted without persistence, or came back empty
    /// from a failover), or someone deleted the group or the stream. The bridge created the
    /// group again from the stream's start, so it receives every entry that the stream holds
    /// now; the entries written before the loss that this group had not yet read were lost with
    /// Redis's data.
    case consumerGroupLost(stream: String, group: String)
    /// The bridge stopped before Redis acknowledged these many queued events; they were not
    /// published.
    case stoppedWithUnpublishedEvents(Int)
    /// Two carried event types declare the same wire name.
    case duplicateWireName(String)
    /// `carry` was called after `start()`; register every event before starting.
    case alreadyStarted
    /// The bridge's ``RedisBridge/Configuration`` cannot work (an empty `source`, say): thrown
    /// by ``RedisBridge/Configuration/validated()``, by every `carry` and by `start()`, so that
    /// nothing is ever published with it.
    case invalidConfiguration(String)
    /// Thrown by ``RedisBridge/start()`` when Redis cannot be reached or refuses the setup (a
    /// consumer group, a subscription). The bridge does not retry by itself: nothing is
    /// received until a later `start()` succeeds, and outgoing events wait in the publish
    /// buffer for it. Call `start()` again.
    case startFailed(RedisError)

    public var description: String {
        switch self {
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
        }
    }
}

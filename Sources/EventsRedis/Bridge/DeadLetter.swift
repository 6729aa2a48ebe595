public import Foundation

extension RedisBridge {
    /// A stream event that could not be handled, kept in its dead-letter stream.
    ///
    /// An event goes there when its listeners failed on every delivery its
    /// ``FailurePolicy`` allows, and, with ``PoisonPolicy/deadLetter``, a message that cannot be
    /// delivered at all. The dead-letter stream of a carried stream is `<stream key>:dead`
    /// (`events:<wire name>:dead` with the default prefix; see
    /// ``Configuration/deadLetterKey``): a plain Redis stream, which any Redis client can read
    /// (`XRANGE events:com.example.order-placed:dead - +`). Each entry has these fields:
    ///
    /// | Field | Holds |
    /// |---|---|
    /// | `event` | the CloudEvent JSON, exactly as it arrived |
    /// | `error` | a readable description of what failed |
    /// | `listener` | the failing listener's call site (`Module/File.swift:42`), when known |
    /// | `deliveries` | how many times it was delivered |
    /// | `entry` | the original stream entry id |
    /// | `stream` | the original stream key |
    /// | `group`, `consumer` | the consumer group and consumer that gave up on it |
    /// | `time` | when it was dead-lettered (RFC 3339) |
    ///
    /// List them with ``RedisBridge/deadLetters(of:limit:)-(E.Type,_)``, put one back on its stream with
    /// ``RedisBridge/replay(_:)``, and drop them with ``RedisBridge/purgeDeadLetters(of:)-(E.Type)``.
    public struct DeadLetter: Sendable, Hashable, CustomStringConvertible {
        /// The dead letter's own entry id in the dead-letter stream. It is unique within that
        /// stream only: the letters of a type's partitions, listed together, may share one
        /// (written in the same millisecond), so tell letters apart by ``deadLetterStream`` and
        /// `id` together.
        public let id: String
        /// The dead-letter stream's key.
        public let deadLetterStream: String
        /// The CloudEvent JSON, exactly as it arrived.
        public let event: [UInt8]
        /// What failed, readably.
        public let error: String
        /// The failing listener's call site, when known.
        public let listener: String?
        /// How many times the event was delivered before it was given up on.
        public let deliveries: Int
        /// The original stream entry's id.
        public let entry: String
        /// The original stream's key, where ``RedisBridge/replay(_:)`` puts the event back.
        public let stream: String
        /// The consumer group that gave up on it.
        public let group: String
        /// The consumer that gave up on it.
        public let consumer: String
        /// When it was dead-lettered.
        public let time: Date?

        /// The event's JSON as text (it is UTF-8 when it is a CloudEvent at all).
        public var eventJSON: String { String(decoding: event, as: UTF8.self) }

        public var description: String {
            "dead letter \(id) of \(stream) entry \(entry) after \(deliveries) deliveries: \(error)"
        }
    }
}

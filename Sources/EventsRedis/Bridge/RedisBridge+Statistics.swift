extension RedisBridge {
    /// Counters of what a bridge has done since it was created.
    public struct Statistics: Sendable, Equatable, CustomStringConvertible {
        /// Events Redis acknowledged (Pub/Sub `PUBLISH` or stream `XADD`).
        public var published = 0
        /// Events that arrived from Redis and were dispatched locally.
        public var delivered = 0
        /// Arrivals published by this instance itself (same source), which were delivered
        /// locally when they were dispatched and are skipped (and, on a stream, acknowledged).
        public var ownEventsSkipped = 0
        /// Arrivals recognised as events already delivered (same source and id), not delivered again.
        public var duplicatesSuppressed = 0
        /// Messages that were not valid CloudEvents.
        public var invalidMessages = 0
        /// CloudEvents whose type this bridge does not carry.
        public var unknownTypes = 0
        /// CloudEvents whose data did not decode.
        public var undecodable = 0
        /// Local events that were not published because the publish buffer was full.
        public var rejectedBufferFull = 0
        /// Pub/Sub events that could not be published because the connection failed.
        public var pubSubLost = 0
        /// Failed attempts to talk to Redis (each followed by a retry).
        public var redisErrors = 0
        /// Stream entries claimed from other consumers of the group whose entries went stale.
        public var claimed = 0
        /// Local events given up because the bridge stopped (or was let go) before Redis
        /// acknowledged them, or before it was ever started: each is reported in a
        /// ``RedisBridgeError/stoppedWithUnpublishedEvents(_:)``.
        public var unpublishedAtStop = 0
        /// Times the stream reader found its consumer group gone and created it again (each
        /// reported as ``RedisBridgeError/consumerGroupLost(stream:group:)``).
        public var consumerGroupsLost = 0

        public var description: String {
            "published \(published), delivered \(delivered), own skipped \(ownEventsSkipped), "
                + "duplicates suppressed \(duplicatesSuppressed), "
                + "invalid \(invalidMessages), unknown type \(unknownTypes), undecodable \(undecodable), "
                + "rejected (buffer full) \(rejectedBufferFull), Pub/Sub lost \(pubSubLost), "
                + "Redis errors \(redisErrors), claimed \(claimed), unpublished at stop \(unpublishedAtStop), "
                + "consumer groups lost \(consumerGroupsLost)"
        }
    }
}

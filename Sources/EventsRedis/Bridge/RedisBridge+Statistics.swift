extension RedisBridge {
    /// What a bridge has done since it was created (counters) and what it holds right now
    /// (gauges), read at one moment with ``RedisBridge/statistics``.
    ///
    /// Counters only grow: feed them to a metrics library as the increase since the previous
    /// snapshot. Gauges (``publishBufferDepth``, ``streamPublishBufferDepth``,
    /// ``pubSubPublishBufferDepth``, ``pendingEntries``) go up and down: report their current
    /// value. Each field is read on its own, without stopping the bridge, so a snapshot taken
    /// while events flow may count an event in one field and not yet in a related one; every
    /// counter is exact once the bridge is quiet. See ``RedisBridge/statisticsUpdates(every:)``
    /// to read snapshots at a fixed interval.
    ///
    /// ```swift
    /// let statistics = bridge.statistics
    /// if statistics.publishBufferDepth > 1_000 {
    ///     print("Redis is slow or away: \(statistics)")
    /// }
    /// ```
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
        /// Mismatches of partition layouts found when the bridge started: another process
        /// carries one of its stream types on another number of partitions (each reported as
        /// ``RedisBridgeError/partitionLayoutMismatch(type:stream:reason:)``).
        public var partitionLayoutMismatches = 0
        /// Stream events delivered again after an earlier delivery of theirs (a retry after a
        /// listener failed, a restart, an entry claimed from another consumer): counted once
        /// per delivery after the first. A handler sees the same figure for one event in
        /// ``RemoteOrigin/deliveryCount``.
        public var redelivered = 0
        /// Stream events, or messages that could not be delivered at all, moved to a
        /// dead-letter stream (each then acknowledged on its own stream).
        ///
        /// Counts the letters written. On a single server or with Sentinel the letter and the
        /// acknowledgement go in one transaction; on a cluster they sit on different shards, so
        /// the letter is written first: if the acknowledgement then fails, the letter is counted,
        /// the failure is reported, and the entry, still pending, is dead-lettered (and counted)
        /// again when it is next delivered. A dead letter can be written twice there, never lost.
        public var deadLettered = 0
        /// Deliveries of stream events whose listeners failed and that stay pending to be
        /// delivered again after a backoff.
        public var retriesScheduled = 0
        /// A gauge: outgoing stream events waiting for Redis to acknowledge them right now
        /// (queued, or sent and not yet acknowledged). It grows while Redis is slow or away,
        /// up to ``Configuration/publishBufferCapacity``, beyond which events are rejected and
        /// counted in ``rejectedBufferFull``.
        public var streamPublishBufferDepth = 0
        /// A gauge: outgoing Pub/Sub events waiting to be published right now (queued, or sent
        /// and not yet confirmed), up to ``Configuration/publishBufferCapacity``.
        public var pubSubPublishBufferDepth = 0
        /// A gauge: stream entries this consumer has read and not acknowledged yet, because
        /// their listeners are still running or because they wait to be delivered again. Each
        /// stays pending in Redis until it is acknowledged; after ``RedisBridge/shutdown(drainTimeout:)``
        /// the entries still counted here are left for a restart with the same consumer name,
        /// or for another consumer of the group to claim.
        public var pendingEntries = 0
        /// Local events that were not published because the ``Configuration/outbox`` was full
        /// (each reported as ``RedisBridgeError/Code/outboxFull``).
        public var rejectedOutboxFull = 0
        /// Events an earlier run left in the ``Configuration/outbox``, which this bridge read
        /// when it was created and queued to be published again.
        public var republishedFromOutbox = 0
        /// A gauge: events in the ``Configuration/outbox`` that Redis has not acknowledged yet.
        public var outboxEvents = 0
        /// A gauge: the size of the ``Configuration/outbox`` file in bytes.
        public var outboxBytes = 0

        /// Statistics with every counter and gauge at zero: what a bridge reports before it has
        /// done anything, and the starting point for computing increases between snapshots.
        ///
        /// ```swift
        /// var previous = RedisBridge.Statistics()
        /// for await now in bridge.statisticsUpdates(every: .seconds(10)) {
        ///     print("published \(now.published - previous.published) in the last 10 seconds")
        ///     previous = now
        /// }
        /// ```
        public init() {}

        /// A gauge: outgoing events of both modes waiting for Redis right now, the sum of
        /// ``streamPublishBufferDepth`` and ``pubSubPublishBufferDepth``.
        public var publishBufferDepth: Int { streamPublishBufferDepth + pubSubPublishBufferDepth }

        public var description: String {
            "published \(published), delivered \(delivered), own skipped \(ownEventsSkipped), "
                + "duplicates suppressed \(duplicatesSuppressed), "
                + "invalid \(invalidMessages), unknown type \(unknownTypes), undecodable \(undecodable), "
                + "rejected (buffer full) \(rejectedBufferFull), Pub/Sub lost \(pubSubLost), "
                + "Redis errors \(redisErrors), claimed \(claimed), unpublished at stop \(unpublishedAtStop), "
                + "consumer groups lost \(consumerGroupsLost), partition layout mismatches \(partitionLayoutMismatches), redelivered \(redelivered), "
                + "dead-lettered \(deadLettered), retries scheduled \(retriesScheduled); "
                + "now: publish buffer \(publishBufferDepth) (stream \(streamPublishBufferDepth), "
                + "Pub/Sub \(pubSubPublishBufferDepth)), pending entries \(pendingEntries)"
                + (outboxBytes == 0 && republishedFromOutbox == 0 && rejectedOutboxFull == 0
                    ? ""
                    : "; outbox: \(outboxEvents) events waiting, \(outboxBytes) bytes, "
                        + "\(republishedFromOutbox) published again, \(rejectedOutboxFull) rejected (full)")
        }
    }
}

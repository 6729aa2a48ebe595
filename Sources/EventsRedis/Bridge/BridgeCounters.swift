import Synchronization

/// The live counters behind ``RedisBridge/Statistics``: one atomic each, so counting never
/// takes a lock on the delivery path.
final class BridgeCounters: Sendable {
    let published = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let ownEventsSkipped = Atomic<Int>(0)
    let duplicatesSuppressed = Atomic<Int>(0)
    let invalidMessages = Atomic<Int>(0)
    let unknownTypes = Atomic<Int>(0)
    let undecodable = Atomic<Int>(0)
    let rejectedBufferFull = Atomic<Int>(0)
    let pubSubLost = Atomic<Int>(0)
    let redisErrors = Atomic<Int>(0)
    let claimed = Atomic<Int>(0)
    let unpublishedAtStop = Atomic<Int>(0)
    let consumerGroupsLost = Atomic<Int>(0)
    /// Partition layout mismatches found when the bridge started.
    let partitionLayoutMismatches = Atomic<Int>(0)
    /// Stream events delivered again after an earlier delivery of theirs (a retry, a restart,
    /// a claim): each counted once per delivery after the first.
    let redelivered = Atomic<Int>(0)
    /// Stream events (or poison messages) moved to a dead-letter stream.
    let deadLettered = Atomic<Int>(0)
    /// Stream events whose listeners failed and that stay pending for another delivery.
    let retriesScheduled = Atomic<Int>(0)
    /// A gauge: stream entries this consumer has read and not acknowledged (being delivered, or
    /// waiting for a retry).
    let pendingEntries = Atomic<Int>(0)
    /// Local events refused because the outbox was full.
    let rejectedOutboxFull = Atomic<Int>(0)
    /// Events read from the outbox when the bridge opened it, queued to be published again.
    let republishedFromOutbox = Atomic<Int>(0)

    /// The counters and the pending-entries gauge; the publish buffer gauges are the bridge's
    /// to fill in, since the queues are not counted here.
    var snapshot: RedisBridge.Statistics {
        var statistics = RedisBridge.Statistics()
        statistics.published = published.load(ordering: .relaxed)
        statistics.delivered = delivered.load(ordering: .relaxed)
        statistics.ownEventsSkipped = ownEventsSkipped.load(ordering: .relaxed)
        statistics.duplicatesSuppressed = duplicatesSuppressed.load(ordering: .relaxed)
        statistics.invalidMessages = invalidMessages.load(ordering: .relaxed)
        statistics.unknownTypes = unknownTypes.load(ordering: .relaxed)
        statistics.undecodable = undecodable.load(ordering: .relaxed)
        statistics.rejectedBufferFull = rejectedBufferFull.load(ordering: .relaxed)
        statistics.pubSubLost = pubSubLost.load(ordering: .relaxed)
        statistics.redisErrors = redisErrors.load(ordering: .relaxed)
        statistics.claimed = claimed.load(ordering: .relaxed)
        statistics.unpublishedAtStop = unpublishedAtStop.load(ordering: .relaxed)
        statistics.consumerGroupsLost = consumerGroupsLost.load(ordering: .relaxed)
        statistics.partitionLayoutMismatches = partitionLayoutMismatches.load(ordering: .relaxed)
        statistics.redelivered = redelivered.load(ordering: .relaxed)
        statistics.deadLettered = deadLettered.load(ordering: .relaxed)
        statistics.retriesScheduled = retriesScheduled.load(ordering: .relaxed)
        statistics.pendingEntries = pendingEntries.load(ordering: .relaxed)
        statistics.rejectedOutboxFull = rejectedOutboxFull.load(ordering: .relaxed)
        statistics.republishedFromOutbox = republishedFromOutbox.load(ordering: .relaxed)
        return statistics
    }
}

extension Atomic<Int> {
    func increment(by amount: Int = 1) {
        add(amount, ordering: .relaxed)
    }
}

extension RedisBridge {
    /// What ``RedisBridge/shutdown(drainTimeout:)`` left behind: the events it could not publish
    /// and the stream entries it could not acknowledge, and how long it took.
    ///
    /// ```swift
    /// let report = await bridge.shutdown(drainTimeout: .seconds(10))
    /// if !report.isClean {
    ///     print("stopped with work left: \(report)")
    /// }
    /// ```
    ///
    /// Nothing counted here is lost silently: unpublished events were also reported as
    /// ``RedisBridgeError/stoppedWithUnpublishedEvents(_:)`` and counted in
    /// ``Statistics/unpublishedAtStop``; pending entries stay in Redis, where a bridge started
    /// with the same consumer name delivers them again, or another consumer of the group
    /// claims them after ``Configuration/claimMinimumIdle``.
    public struct ShutdownReport: Sendable, Equatable, CustomStringConvertible {
        /// Outgoing stream events Redis had not acknowledged when the bridge gave up on them:
        /// they were not published. (A dispatch on another thread that races with the stop may
        /// hand over one more too late: it is reported and counted in
        /// ``Statistics/unpublishedAtStop``, but not here.)
        public var unpublishedStreamEvents = 0
        /// Outgoing Pub/Sub events still waiting to be published when the bridge gave up on
        /// them: they were not published.
        public var unpublishedPubSubEvents = 0
        /// Stream entries this consumer had read and not acknowledged when it stopped (the
        /// ``Statistics/pendingEntries`` gauge at the end): they stay pending in Redis.
        public var pendingEntries = 0
        /// How long the stop took, from the call to the end.
        public var duration = Duration.zero
        /// Whether the drain timeout passed with outgoing events still waiting for Redis, or
        /// with local deliveries of received events still queued.
        public var deadlineReached = false
        /// Whether local deliveries were still queued in their listeners' contexts when the
        /// drain timeout passed (see ``RedisBridge/shutdown(drainTimeout:)``): they run later,
        /// if the process lives on, and what they dispatch stays local.
        public var deliveriesStillQueued = false

        /// Creates a report (bridges make them; tests of code that reads one may too).
        public init(
            unpublishedStreamEvents: Int = 0, unpublishedPubSubEvents: Int = 0, pendingEntries: Int = 0,
            duration: Duration = .zero, deadlineReached: Bool = false
        ) {
            self.init(
                unpublishedStreamEvents: unpublishedStreamEvents, unpublishedPubSubEvents: unpublishedPubSubEvents,
                pendingEntries: pendingEntries, duration: duration, deadlineReached: deadlineReached,
                deliveriesStillQueued: false)
        }

        /// Creates a report (bridges make them; tests of code that reads one may too).
        public init(
            unpublishedStreamEvents: Int = 0, unpublishedPubSubEvents: Int = 0, pendingEntries: Int = 0,
            duration: Duration = .zero, deadlineReached: Bool = false, deliveriesStillQueued: Bool
        ) {
            self.deliveriesStillQueued = deliveriesStillQueued
            self.unpublishedStreamEvents = unpublishedStreamEvents
            self.unpublishedPubSubEvents = unpublishedPubSubEvents
            self.pendingEntries = pendingEntries
            self.duration = duration
            self.deadlineReached = deadlineReached
        }

        /// Outgoing events of both modes that were not published.
        public var unpublishedEvents: Int { unpublishedStreamEvents + unpublishedPubSubEvents }

        /// Whether nothing was left: every outgoing event was published, every entry read was
        /// acknowledged, and every local delivery of a received event had run.
        public var isClean: Bool { unpublishedEvents == 0 && pendingEntries == 0 && !deliveriesStillQueued }

        public var description: String {
            let ending =
                (deliveriesStillQueued ? ", local deliveries still queued" : "")
                + (deadlineReached ? ", drain timeout reached" : "")
            return "unpublished \(unpublishedEvents) (stream \(unpublishedStreamEvents), "
                + "Pub/Sub \(unpublishedPubSubEvents)), pending entries \(pendingEntries), "
                + "took \(duration)\(ending)"
        }

        /// The report as log metadata.
        var logMetadata: [String: String] {
            [
                "unpublishedStreamEvents": String(unpublishedStreamEvents),
                "unpublishedPubSubEvents": String(unpublishedPubSubEvents),
                "pendingEntries": String(pendingEntries), "duration": "\(duration)",
                "deadlineReached": String(deadlineReached), "deliveriesStillQueued": String(deliveriesStillQueued),
            ]
        }
    }
}

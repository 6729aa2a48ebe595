/// One event waiting to be published: its encoded CloudEvent and where it goes.
struct OutboundMessage: Sendable {
    /// Not counted: every message is made on the dispatching thread and let go on the
    /// publisher's, and with a counted reference to the one route its type shares, each retain
    /// and release there was an atomic operation on a cache line both threads wrote, a large
    /// share of both threads' work in a Streams burst.
    ///
    /// Why the route outlives the message: routes come only from `PublishQueue.route(type:key:
    /// idPrefix:)`, and a queue keeps every route it made until it deinitializes. The bridge
    /// makes each message with a route from the queue it enqueues it in, and reads it only in
    /// that queue and in that queue's `Publisher`, which holds the queue (its batches are
    /// captured, with the publisher, by the functions that write its pipelines and by their
    /// completions): no message is read after its route's queue is gone. (Tests make routes
    /// with a queue that lives for the run.)
    unowned(unsafe) let route: OutboundRoute
    let payload: [UInt8]
    let idNumber: UInt64
    /// The message's entry in the bridge's outbox, to confirm once Redis has it; 0 when it has none.
    let outboxSequence: UInt64

    init(route: OutboundRoute, idNumber: UInt64, payload: [UInt8], outboxSequence: UInt64 = 0) {
        self.route = route
        self.idNumber = idNumber
        self.payload = payload
        self.outboxSequence = outboxSequence
    }

    var type: String { route.type }
    var key: String { route.key }
    /// The event's CloudEvents id: made only for a report.
    var id: String { route.idPrefix + String(idNumber) }
}

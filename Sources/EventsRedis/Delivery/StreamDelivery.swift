import Events

/// What came of dispatching one stream entry whose outcome is tracked event by event: the
/// events handed to their listeners, each with the batch that waits for them, and the entry's
/// poison (what could not be delivered at all).
struct StreamDelivery {
    struct Event {
        /// Where the event lies in the entry's message: nil for a message that is one event,
        /// the element's range for a batch.
        let range: Range<Int>?
        let origin: RemoteOrigin
        let batch: DispatchBatch
    }

    struct Poison {
        let range: Range<Int>?
        let reason: String
    }

    var events: [Event] = []
    var poison: [Poison] = []
}

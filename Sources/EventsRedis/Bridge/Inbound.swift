import Events

/// The receiving half of a bridge: turns a message from Redis into a local dispatch, or into a
/// reported and counted error. Never throws: whatever arrives, the caller acknowledges it and
/// moves on.
final class Inbound: Sendable {
    let center: EventCenter
    let source: String
    let carried: [String: CarriedEvent]
    let deduplication: DeduplicationWindow
    /// How this instance's own messages begin: the bridge writes every message with the
    /// attributes in a fixed order and the id first, and ids start with a prefix random to this
    /// instance. Recognising them by these bytes skips parsing them, which every Pub/Sub
    /// publisher would otherwise do for each of its own messages coming back.
    private let ownMessagePrefix: [UInt8]
    let counters: BridgeCounters
    let report: @Sendable (RedisBridgeError) -> Void

    init(
        center: EventCenter, source: String, ownIDPrefix: String, carried: [String: CarriedEvent],
        deduplicationWindow: Int, counters: BridgeCounters, report: @escaping @Sendable (RedisBridgeError) -> Void
    ) {
        ownMessagePrefix = OutboundEnvelope.head(idPrefix: ownIDPrefix)
        self.center = center
        self.source = source
        self.carried = carried
        self.deduplication = DeduplicationWindow(capacity: deduplicationWindow)
        self.counters = counters
        self.report = report
    }

    /// Dispatches one stream entry through `batch`, whose wait ends once every local listener
    /// has finished with it, so that acknowledging afterwards means "handled". True when the
    /// event was dispatched (the caller counts it delivered after the wait).
    func receive(_ message: [UInt8], key: String, streamEntryID: String, into batch: DispatchBatch) -> Bool {
        guard let (carriedEvent, event, data, origin) = accept(message, key: key, streamEntryID: streamEntryID)
        else { return false }
        do {
            try carriedEvent.dispatchInBatch(center, data, origin, batch)
            return true
        } catch {
            undecodable(event, error)
            return false
        }
    }

    /// Delivers one message on the calling thread (Pub/Sub's reader thread).
    func receiveNow(_ message: [UInt8], key: String) {
        guard let (carriedEvent, event, data, origin) = accept(message, key: key, streamEntryID: nil) else { return }
        do {
            try carriedEvent.dispatchNow(center, data, origin)
            counters.delivered.increment()
        } catch {
            undecodable(event, error)
        }
    }

    /// The carried event, the message and its origin, or nil when the message is invalid,
    /// unknown, this instance's own, or a duplicate (reported and counted where that applies).
    private func accept(
        _ message: [UInt8], key: String, streamEntryID: String?
    ) -> (CarriedEvent, CloudEvent, CarriedEvent.ReceivedData, RemoteOrigin)? {
        if isOwnMessage(message) {
            counters.ownEventsSkipped.increment()
            return nil
        }
        let event: CloudEvent
        var validatedDepth: Int?
        var dataRange: Range<Int>?
        do {
            event = try CloudEvent(json: message, validatedDataDepth: &validatedDepth, dataRange: &dataRange)
        } catch {
            counters.invalidMessages.increment()
            report(.invalidMessage(error, key: key))
            return nil
        }
        // This instance's own events were delivered here when they were dispatched.
        guard event.source != source else {
            counters.ownEventsSkipped.increment()
            return nil
        }
        guard let carriedEvent = carried[event.type] else {
            counters.unknownTypes.increment()
            report(.unknownType(event.type, id: event.id, source: event.source))
            return nil
        }
        guard deduplication.recordFirstSighting(source: event.source, id: event.id) else {
            counters.duplicatesSuppressed.increment()
            return nil
        }
        // JSON data stays in the message and is decoded from there; string and base64 data come
        // as bytes of their own.
        let data =
            dataRange.map { CarriedEvent.ReceivedData(in: message, at: $0, validatedDepth: validatedDepth) }
            ?? CarriedEvent.ReceivedData(bytes: event.data, validatedDepth: validatedDepth)
        return (carriedEvent, event, data, RemoteOrigin(event, key: key, streamEntryID: streamEntryID))
    }

    /// Whether the message begins with this instance's own prefix, compared as raw bytes.
    private func isOwnMessage(_ message: [UInt8]) -> Bool {
        message.withUnsafeBufferPointer { bytes in
            ownMessagePrefix.withUnsafeBufferPointer { bytes.starts(withBytesOf: $0) }
        }
    }

    private func undecodable(_ event: CloudEvent, _ failure: CarriedEvent.CodingFailure) {
        counters.undecodable.increment()
        report(.undecodableData(type: event.type, id: event.id, source: event.source, reason: failure.reason))
    }
}

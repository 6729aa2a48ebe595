import Events

/// The receiving half of a bridge: turns a message from Redis into local dispatches, or into
/// reported and counted errors. Never throws: whatever arrives, the caller acknowledges it and
/// moves on.
///
/// A message is one CloudEvent or a CloudEvents batch (see ``CloudEventBatch``). Each event of
/// a batch is received as a message of its own would be; a batch that is not a well-formed
/// JSON array is one invalid message.
///
/// An event whose `id` or `source` is longer than its limit (see ``Limits``) is an invalid
/// message: it is never remembered, so the deduplication window's memory is bounded by its
/// byte budget whatever arrives.
final class Inbound: Sendable {
    /// What a received event's identity may cost: the longest `id` and `source` accepted (in
    /// UTF-8 bytes, escapes counted as the text they stand for), and the bytes of identities the
    /// deduplication window keeps. See ``RedisBridge/Configuration/maxReceivedIDBytes``.
    struct Limits: Sendable, Equatable {
        static let defaultMaxIDBytes = 4_096
        static let defaultMaxSourceBytes = 4_096
        static let defaultWindowBytes = 16 * 1024 * 1024
        static let defaultMaxDataDepth = 100
        /// The most a configuration may set: as deep as Foundation's `JSONDecoder` reads.
        static let deepestDataDepth = 512
        /// Far above any sensible limit (1 GiB an attribute, 2 GiB the window), and low enough
        /// that one identity at both limits always fits the window, which holds at most 4 GiB.
        private static let ceiling = 1 << 30

        let maxIDBytes: Int
        let maxSourceBytes: Int
        /// Never less than one identity at both limits, so that every accepted identity is
        /// remembered.
        let windowBytes: Int
        /// How deep received data may nest for it to be decoded (levels of arrays and objects).
        let maxDataDepth: Int

        /// Limits clamped to sense: at least one byte each, and a window that holds the longest
        /// identity accepted.
        init(
            maxIDBytes: Int = defaultMaxIDBytes, maxSourceBytes: Int = defaultMaxSourceBytes,
            windowBytes: Int = defaultWindowBytes, maxDataDepth: Int = defaultMaxDataDepth
        ) {
            self.maxDataDepth = min(max(maxDataDepth, 1), Self.deepestDataDepth)
            self.maxIDBytes = min(max(maxIDBytes, 1), Self.ceiling)
            self.maxSourceBytes = min(max(maxSourceBytes, 1), Self.ceiling)
            self.windowBytes = min(max(windowBytes, self.maxIDBytes + self.maxSourceBytes), 2 * Self.ceiling)
        }

        /// The limits a bridge's configuration sets.
        init(_ configuration: RedisBridge.Configuration) {
            self.init(
                maxIDBytes: configuration.maxReceivedIDBytes, maxSourceBytes: configuration.maxReceivedSourceBytes,
                windowBytes: configuration.deduplicationWindowBytes, maxDataDepth: configuration.maxReceivedDataDepth)
        }
    }

    let center: EventCenter
    let source: String
    /// `source` in UTF-8, compared with each message's.
    private let ownSource: [UInt8]
    /// How to deliver each carried type, by wire name.
    private let routes: RouteTable<Route>
    let deduplication: DeduplicationWindow
    let limits: Limits
    /// How this instance's own messages begin: the bridge writes every message with the
    /// attributes in a fixed order and the id first, and ids start with a prefix random to this
    /// instance. Recognising them by these bytes skips parsing them, which every Pub/Sub
    /// publisher would otherwise do for each of its own messages coming back.
    private let ownMessagePrefix: [UInt8]
    let counters: BridgeCounters
    let report: @Sendable (RedisBridgeError) -> Void

    init(
        center: EventCenter, source: String, ownIDPrefix: String, carried: [String: CarriedEvent],
        deduplicationWindow: Int, limits: Limits = Limits(), counters: BridgeCounters,
        report: @escaping @Sendable (RedisBridgeError) -> Void
    ) {
        ownMessagePrefix = OutboundEnvelope.head(idPrefix: ownIDPrefix)
        self.center = center
        self.source = source
        ownSource = Array(source.utf8)
        routes = RouteTable(carried.mapValues(Route.init))
        self.deduplication = DeduplicationWindow(capacity: deduplicationWindow, maxBytes: limits.windowBytes)
        self.limits = limits
        self.counters = counters
        self.report = report
    }

    /// Dispatches the events of one stream entry through `batch`, whose wait ends once every
    /// local listener has finished with them, so that acknowledging afterwards means "handled".
    /// Returns how many were dispatched (the caller counts them delivered after the wait).
    func receive(
        _ message: [UInt8], key: String, streamEntryID: String, deliveryCount: Int = 1, into batch: DispatchBatch
    ) -> Int {
        var dispatched = 0
        forEachEvent(in: message, key: key) { range in
            guard
                case .deliver(let route, let data, let origin) = accept(
                    message, range, key: key, streamEntryID: streamEntryID, deliveryCount: deliveryCount)
            else { return }
            if deliveryCount > 1 { counters.redelivered.increment() }
            do throws(CarriedEvent.CodingFailure) {
                try route.dispatchInBatch(center, data, origin, batch)
                dispatched += 1
            } catch {
                undecodable(origin, error)
            }
        }
        return dispatched
    }

    /// Dispatches the events of one stream entry each through a batch of its own, so that the
    /// caller can tell which of them had a failing listener, and collects the entry's poison
    /// (what could not be delivered at all: invalid, of an unknown type, undecodable), with the
    /// reason, when `collectPoison` says so.
    func receiveTracked(
        _ message: [UInt8], key: String, streamEntryID: String, deliveryCount: Int, collectPoison: Bool
    ) -> StreamDelivery {
        var delivery = StreamDelivery()
        var poison: [StreamDelivery.Poison]? = collectPoison ? [] : nil
        let malformed = forEachEvent(in: message, key: key) { range in
            let acceptance = accept(
                message, range, key: key, streamEntryID: streamEntryID, deliveryCount: deliveryCount)
            switch acceptance {
            case .skip:
                return
            case .poison(let reason):
                poison?.append(.init(range: range, reason: reason))
            case .deliver(let route, let data, let origin):
                let batch = DispatchBatch()
                do throws(CarriedEvent.CodingFailure) {
                    try route.dispatchInBatch(center, data, origin, batch)
                    if deliveryCount > 1 { counters.redelivered.increment() }
                    delivery.events.append(.init(range: range, origin: origin, batch: batch))
                } catch {
                    undecodable(origin, error)
                    // Remembered as seen when it was admitted: a redelivery would be suppressed.
                    poison?.append(.init(range: range, reason: "its data does not decode: \(error.reason)"))
                }
            }
        }
        if let malformed { poison?.append(.init(range: nil, reason: malformed)) }
        delivery.poison = poison ?? []
        return delivery
    }

    /// Delivers the events of one message on the calling thread (Pub/Sub's reader thread).
    func receiveNow(_ message: [UInt8], key: String) {
        forEachEvent(in: message, key: key) { range in
            guard case .deliver(let route, let data, let origin) = accept(message, range, key: key, streamEntryID: nil)
            else { return }
            do throws(CarriedEvent.CodingFailure) {
                try route.dispatchNow(center, data, origin)
                counters.delivered.increment()
            } catch {
                undecodable(origin, error)
            }
        }
    }

    /// Calls `body` with nil for a message that is one event, or with the range of each event
    /// of a batch; reports a malformed batch, and returns why it is one.
    @discardableResult
    private func forEachEvent(in message: [UInt8], key: String, _ body: (Range<Int>?) -> Void) -> String? {
        switch CloudEventBatch.elements(of: message) {
        case nil:
            body(nil)
        case .success(let elements):
            for element in elements { body(element) }
        case .failure(let error):
            counters.invalidMessages.increment()
            report(.invalidMessage(error, key: key))
            return "not a valid CloudEvents batch: \(error)"
        }
        return nil
    }

    /// What to do with one received event.
    private enum Acceptance {
        /// Not delivered, and rightly so: this instance's own event, or a duplicate.
        case skip
        /// Not delivered because it cannot be: invalid, over a limit, or of a type not carried
        /// (reported and counted already).
        case poison(String)
        case deliver(Route, CarriedEvent.ReceivedData, RemoteOrigin)
    }

    /// How to deliver the event, its data and its origin, or nil when the event (all of
    /// `message`, or the batch element at `range`) is invalid, unknown, this instance's own, or
    /// a duplicate (reported and counted where that applies).
    private func accept(
        _ message: [UInt8], _ range: Range<Int>?, key: String, streamEntryID: String?, deliveryCount: Int = 1
    ) -> Acceptance {
        if isOwnMessage(message, from: range?.lowerBound ?? 0) {
            counters.ownEventsSkipped.increment()
            return .skip
        }
        // Read and checked without making strings of its attributes (see `RemoteOrigin`):
        // source, type and id are compared and looked up as they lie in the message.
        let scanned: CloudEvent.Scanned
        do {
            scanned = try CloudEvent.Scanned(json: message, in: range, dataInPlace: true)
        } catch {
            counters.invalidMessages.increment()
            report(.invalidMessage(error, key: key))
            return .poison("not a valid CloudEvent: \(error)")
        }
        let verdict = message.withUnsafeBufferPointer { bytes in admit(scanned, in: bytes) }
        switch verdict {
        case .own:
            // This instance's own events were delivered here when they were dispatched.
            counters.ownEventsSkipped.increment()
            return .skip
        case .unknown:
            let origin = RemoteOrigin(message: message, scanned: scanned, key: key, streamEntryID: streamEntryID)
            counters.unknownTypes.increment()
            report(.unknownType(origin.type, id: origin.id, source: origin.source))
            return .poison("this bridge does not carry type \"\(origin.type)\"")
        case .duplicate:
            counters.duplicatesSuppressed.increment()
            return .skip
        case .overLimit(let attribute, let length, let limit):
            counters.invalidMessages.increment()
            let error = CloudEventError("\"\(attribute)\" is \(length) bytes long, over the \(limit) accepted")
            report(.invalidMessage(error, key: key))
            return .poison("not a valid CloudEvent: \(error)")
        case .new(let route):
            // JSON data stays in the message and is decoded from there; string and base64 data
            // come as bytes of their own.
            let data =
                scanned.dataRange.map {
                    CarriedEvent.ReceivedData(
                        in: message, at: $0, validatedDepth: scanned.validatedDataDepth, maxDepth: limits.maxDataDepth)
                }
                ?? CarriedEvent.ReceivedData(
                    bytes: scanned.data, validatedDepth: scanned.validatedDataDepth, maxDepth: limits.maxDataDepth)
            return .deliver(
                route, data,
                RemoteOrigin(
                    message: message, scanned: scanned, key: key, streamEntryID: streamEntryID,
                    deliveryCount: deliveryCount))
        }
    }

    private enum Admission {
        case own, unknown, duplicate
        /// The attribute's text is `length` bytes, over its `limit`.
        case overLimit(attribute: String, length: Int, limit: Int)
        case new(Route)
    }

    /// Whether the event is this instance's own, has an identity over the limits, is of a type
    /// not carried, a duplicate, or new (and then recorded as seen).
    private func admit(_ event: CloudEvent.Scanned, in message: UnsafeBufferPointer<UInt8>) -> Admission {
        let scanner = JSONScanner(message)
        // Escaped attributes (rare) as strings; the others as the bytes they are.
        func withUTF8<T>(_ token: JSONScanner.StringToken, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
            guard token.hasEscapes else { return body(scanner.bytes.buffer(token.content)) }
            var text = scanner.string(token)
            return text.withUTF8(body)
        }
        return withUTF8(event.source) { source in
            if ownSource.withUnsafeBufferPointer({ source.hasSameBytes(as: $0) }) { return .own }
            // Before anything makes a string of them (an unknown type's report does).
            guard source.count <= limits.maxSourceBytes else {
                return .overLimit(attribute: "source", length: source.count, limit: limits.maxSourceBytes)
            }
            return withUTF8(event.id) { id in
                guard id.count <= limits.maxIDBytes else {
                    return .overLimit(attribute: "id", length: id.count, limit: limits.maxIDBytes)
                }
                guard let route = withUTF8(event.type, { routes.route(for: $0) }) else { return .unknown }
                return deduplication.recordFirstSighting(sourceUTF8: source, idUTF8: id) ? .new(route) : .duplicate
            }
        }
    }

    /// Whether the event at `start` begins with this instance's own prefix, compared as raw
    /// bytes.
    private func isOwnMessage(_ message: [UInt8], from start: Int) -> Bool {
        message.withUnsafeBufferPointer { bytes in
            ownMessagePrefix.withUnsafeBufferPointer {
                CheckedBytes(bytes).buffer(start..<bytes.count).starts(withBytesOf: $0)
            }
        }
    }

    private func undecodable(_ event: RemoteOrigin, _ failure: CarriedEvent.CodingFailure) {
        counters.undecodable.increment()
        report(.undecodableData(type: event.type, id: event.id, source: event.source, reason: failure.reason))
    }

    /// A carried event's delivery, shared rather than copied: looking a `CarriedEvent` up and
    /// handing it on copied its strings and closures through its value witnesses, on every
    /// received event.
    private final class Route: Sendable {
        let dispatchNow:
            @Sendable (EventCenter, CarriedEvent.ReceivedData, RemoteOrigin) throws(CarriedEvent.CodingFailure)
                -> Void
        let dispatchInBatch:
            @Sendable (EventCenter, CarriedEvent.ReceivedData, RemoteOrigin, DispatchBatch) throws(CarriedEvent
                .CodingFailure) -> Void

        init(_ carried: CarriedEvent) {
            dispatchNow = carried.dispatchNow
            dispatchInBatch = carried.dispatchInBatch
        }
    }
}

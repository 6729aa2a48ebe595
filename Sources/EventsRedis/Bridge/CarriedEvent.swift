import Events

/// One event type or name that a bridge carries: how to hear it locally and how to deliver it
/// when it arrives from Redis. Built by `RedisBridge.carry`, generic code captured in closures
/// so the bridge itself handles every carried event the same way.
struct CarriedEvent: Sendable {
    let wireType: String
    let mode: RedisBridge.Mode
    /// Whether local dispatches are published and whether Redis is read, set by `carry`.
    var direction = RedisBridge.Direction.both
    /// The channel or stream keys: one, or a stream's partitions (see `StreamPartitions`).
    let keys: [String]
    /// Starts the local listener that hands each locally dispatched event to `outbound`.
    let listen: @Sendable (EventCenter, Outbound) -> Subscription
    /// Decodes `data` and dispatches the event locally from `origin` through a batch, whose
    /// wait ends once every listener has finished with it (streams acknowledge after that).
    let dispatchInBatch:
        @Sendable (EventCenter, ReceivedData, RemoteOrigin, DispatchBatch) throws(CodingFailure) -> Void
    /// Decodes `data` and dispatches the event locally from `origin`, on the calling thread.
    let dispatchNow: @Sendable (EventCenter, ReceivedData, RemoteOrigin) throws(CodingFailure) -> Void

    struct CodingFailure: Error {
        let reason: String
    }

    /// The data of a received CloudEvent: JSON text, where it lies in `bytes` (the message it
    /// came in, or bytes of its own), or no bytes when the event has none.
    struct ReceivedData {
        let bytes: [UInt8]?
        let range: Range<Int>
        /// How deep the data is nested when reading the CloudEvent already validated it as JSON
        /// (decoding then skips validating it again); nil when it did not.
        let validatedDepth: Int?
        /// How deep the data may nest to be decoded (``RedisBridge/Configuration/maxReceivedDataDepth``).
        let maxDepth: Int

        /// Data of its own, all of `bytes`.
        init(bytes: [UInt8]?, validatedDepth: Int?, maxDepth: Int = Inbound.Limits.defaultMaxDataDepth) {
            self.bytes = bytes
            range = 0..<(bytes?.count ?? 0)
            self.validatedDepth = validatedDepth
            self.maxDepth = maxDepth
        }

        /// Data left in the message, at `range`.
        init(
            in message: [UInt8], at range: Range<Int>, validatedDepth: Int?,
            maxDepth: Int = Inbound.Limits.defaultMaxDataDepth
        ) {
            bytes = message
            self.range = range
            self.validatedDepth = validatedDepth
            self.maxDepth = maxDepth
        }

        /// Whether more than `maxDepth` arrays and objects nest in the data. Measured without
        /// recursion when the CloudEvent's reading did not already measure it. (Depths as the
        /// scanner counts them put a lone scalar at 1, so `maxDepth` containers reach one more.)
        var isTooDeep: Bool {
            if let validatedDepth { return validatedDepth > maxDepth + 1 }
            guard let bytes else { return false }
            return bytes.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(CheckedBytes(buffer), at: range.lowerBound, maxDepth: maxDepth + 2)
                // Invalid JSON is the decoders' to report; only the depth reached matters here.
                try? scanner.skipValue(depth: 1)
                return scanner.deepest > maxDepth + 1
            }
        }

        /// Whether the data is JSON `null`.
        var isNull: Bool { bytes.map { $0[range].elementsEqual("null".utf8) } ?? false }
    }

    static func typed<E: RemoteEvent>(_ type: E.Type, mode: RedisBridge.Mode, key: String) -> CarriedEvent {
        typed(type, mode: mode, keys: [key], partitionKey: nil)
    }

    /// A typed event over `keys`, a stream's partitions when there are several: an event goes
    /// to the partition of `partitionKey(event)`, or without it, of its sender's `subject`, or
    /// without one, of this bridge's `source`.
    static func typed<E: RemoteEvent>(
        _ type: E.Type, mode: RedisBridge.Mode, keys: [String], partitionKey: (@Sendable (E) -> String)?
    ) -> CarriedEvent {
        CarriedEvent(
            wireType: E.wireName, mode: mode, keys: keys,
            listen: { center, outbound in
                let envelope = outbound.envelope(type: E.wireName)
                let routes = keys.map { outbound.route(type: E.wireName, mode: mode, key: $0) }
                let unpartitioned = routes.count == 1 ? routes[0] : nil
                return center.listen(to: Sent<E>.self) { sent in
                    let event = sent.event
                    let sender = sent.sender
                    // Events from Redis are not published again.
                    guard sender?.object(as: RemoteOrigin.self) == nil else { return }
                    let route =
                        unpartitioned
                        ?? routes[
                            StreamPartitions.index(
                                of: partitionKey?(event) ?? sender.flatMap(outbound.subject) ?? outbound.source,
                                count: routes.count)]
                    // A posting-thread listener: the dispatching code's trace context is current.
                    outbound.publish(
                        envelope, route: route, mode: mode, sender: sender, trace: TraceContext.current
                    ) { output in
                        try OutboundEnvelope.appendData(event, to: &output)
                    }
                }
            },
            dispatchInBatch: { center, data, origin, batch throws(CodingFailure) in
                let event = try decode(E.self, from: data)
                inTrace(of: origin) { batch.dispatch(event, from: origin, through: center) }
            },
            dispatchNow: { center, data, origin throws(CodingFailure) in
                let event = try decode(E.self, from: data)
                inTrace(of: origin) { center.dispatch(event, from: origin) }
            })
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from data: ReceivedData) throws(CodingFailure)
        -> Value
    {
        guard let bytes = data.bytes else { throw CodingFailure(reason: "the message has no data") }
        // Decoding a recursive `Decodable` (a tree, a JSON value type) takes call stack at every
        // level, in the decoders and in the type's own `init(from:)`; the limit keeps a reader
        // thread's stack safe whatever depth a sender chooses.
        guard !data.isTooDeep else {
            throw CodingFailure(
                reason: "the data nests deeper than \(data.maxDepth) levels, the most this bridge decodes "
                    + "(Configuration.maxReceivedDataDepth)")
        }
        do {
            return try WireJSON.decode(Value.self, from: bytes, in: data.range, validatedDepth: data.validatedDepth)
        } catch {
            throw CodingFailure(reason: String(describing: error))
        }
    }

    private static func decodeIfPresent<Value: Decodable>(
        _ type: Value.Type, from data: ReceivedData
    ) throws(CodingFailure) -> Value? {
        guard data.bytes != nil else { return nil }
        return try decode(type, from: data)
    }

    static func named<Value: Codable & Sendable>(
        _ name: EventName, data: Value.Type, mode: RedisBridge.Mode, key: String
    ) -> CarriedEvent {
        CarriedEvent(
            wireType: name.rawValue, mode: mode, keys: [key],
            listen: listenNamed(name, mode: mode, key: key) { event, output in
                guard event.payload.isEmpty else {
                    throw CodingFailure(
                        reason: "payload keys \(event.payload.keys) cannot be carried; send one Codable data value")
                }
                guard event.hasData else { return }
                try OutboundEnvelope.appendData(try event.data(as: Value.self), to: &output)
            },
            dispatchInBatch: { center, data, origin, batch throws(CodingFailure) in
                let value = try decodeIfPresent(Value.self, from: data)
                inTrace(of: origin) { batch.dispatch(name, from: origin, data: value, through: center) }
            },
            dispatchNow: { center, data, origin throws(CodingFailure) in
                let value = try decodeIfPresent(Value.self, from: data)
                inTrace(of: origin) { center.dispatch(name, from: origin, data: value) }
            })
    }

    static func named(_ name: EventName, mode: RedisBridge.Mode, key: String) -> CarriedEvent {
        CarriedEvent(
            wireType: name.rawValue, mode: mode, keys: [key],
            listen: listenNamed(name, mode: mode, key: key) { event, _ in
                guard event.payload.isEmpty, !event.hasData else {
                    throw CodingFailure(
                        reason:
                            "the event has data or payload keys, but \"\(name)\" is carried without data; use carry(_:data:mode:)"
                    )
                }
            },
            dispatchInBatch: { center, data, origin, batch throws(CodingFailure) in
                try expectNoData(data, name: name)
                inTrace(of: origin) { batch.dispatch(name, from: origin, through: center) }
            },
            dispatchNow: { center, data, origin throws(CodingFailure) in
                try expectNoData(data, name: name)
                inTrace(of: origin) { center.dispatch(name, from: origin) }
            })
    }

    /// The listener of a carried name: hands each local dispatch, but those from Redis, to
    /// `outbound`, with `appendData` writing the `data` member it makes of the event (or none).
    private static func listenNamed(
        _ name: EventName, mode: RedisBridge.Mode, key: String,
        appendData: @escaping @Sendable (NamedEvent, inout [UInt8]) throws -> Void
    ) -> @Sendable (EventCenter, Outbound) -> Subscription {
        { center, outbound in
            let envelope = outbound.envelope(type: name.rawValue)
            let route = outbound.route(type: name.rawValue, mode: mode, key: key)
            return center.listen(to: name) { event in
                guard event.sender?.object(as: RemoteOrigin.self) == nil else { return }
                outbound.publish(
                    envelope, route: route, mode: mode, sender: event.sender, trace: TraceContext.current
                ) { output in
                    try appendData(event, &output)
                }
            }
        }
    }

    /// Runs the local dispatch of a received event with the trace context its publisher wrote
    /// as the current one, so that its listeners, and the events they dispatch, continue that
    /// trace. A message without one is dispatched outside any trace, even when the reading
    /// task inherited one from the code that started the bridge.
    private static func inTrace(of origin: RemoteOrigin, _ dispatch: () -> Void) {
        let trace = origin.hasTraceparent ? origin.traceContext : nil
        if trace != nil || TraceContext.current != nil {
            TraceContext.withCurrent(trace, operation: dispatch)
        } else {
            dispatch()
        }
    }

    private static func expectNoData(_ data: ReceivedData, name: EventName) throws(CodingFailure) {
        guard data.bytes == nil || data.isNull else {
            throw CodingFailure(reason: "\"\(name)\" is carried without data, but the message has data")
        }
    }
}

public import Events
public import Foundation

/// One event in the CloudEvents 1.0 JSON event format (structured mode): what the bridge puts
/// on the wire and reads back.
///
/// Services written in other languages can publish and consume these messages with their own
/// CloudEvents libraries. A message looks like this:
///
/// ```json
/// {"specversion":"1.0","id":"5A0C3E1B-8F4D-4B7E-9C2A-1D6E0F3B2A91",
///  "source":"shop/api-1","type":"com.example.shop.order-placed","subject":"Checkout",
///  "time":"2026-11-30T08:15:02.125Z","datacontenttype":"application/json",
///  "data":{"orderID":"A-1001","total":4200}}
/// ```
///
/// Rules:
/// - `specversion` must be `"1.0"`; `id`, `source` and `type` must be non-empty strings.
/// - `source` + `id` identify an event: receivers use the pair to suppress duplicates.
/// - `time`, when present, is an RFC 3339 timestamp.
/// - The payload is the `data` member, any JSON value, or `data_base64` (not both); a message
///   may carry no payload at all.
/// - `traceparent` and `tracestate`, the distributed tracing extension's attributes, are kept as
///   they arrive (see ``traceparent``); other members (other extension attributes) are accepted
///   and ignored.
public struct CloudEvent: Sendable, Hashable {
    /// The only CloudEvents version this type reads and writes.
    public static let specVersion = "1.0"

    /// Unique per event within its `source`.
    public var id: String
    /// Identifies the publishing app and instance (a URI reference, such as `shop/api-1`).
    public var source: String
    /// The event's stable wire name: ``RemoteEvent/wireName`` or an `EventName`'s string.
    public var type: String
    /// A description of the object that dispatched the event, when there was one.
    public var subject: String?
    /// When the event was published.
    public var time: Date?
    /// The media type of ``data``; the bridge always writes `application/json`.
    public var dataContentType: String?
    /// The payload's bytes: JSON text for a `data` member, decoded bytes for `data_base64`.
    public var data: [UInt8]?
    /// The W3C `traceparent` of the distributed tracing extension: the trace the event belongs
    /// to, as the publisher wrote it, not checked. ``traceContext`` reads it with ``tracestate``;
    /// a bridge writes the trace context current when the event was dispatched.
    ///
    /// A value that is not a string reads as nil: the attribute is the publisher's hint, never a
    /// reason to refuse its event.
    public var traceparent: String?
    /// The W3C `tracestate` of the distributed tracing extension, as the publisher wrote it, not
    /// checked.
    public var tracestate: String?

    /// The trace context of ``traceparent`` and ``tracestate``; nil when there is no valid
    /// `traceparent`. An invalid `tracestate` is left out, as the W3C recommendation asks.
    public var traceContext: TraceContext? {
        traceparent.flatMap { TraceContext.received(traceparent: $0, tracestate: tracestate) }
    }

    /// Creates an event from its attributes.
    public init(
        id: String, source: String, type: String, subject: String? = nil, time: Date? = nil,
        dataContentType: String? = "application/json", data: [UInt8]? = nil
    ) {
        self.id = id
        self.source = source
        self.type = type
        self.subject = subject
        self.time = time
        self.dataContentType = dataContentType
        self.data = data
    }

    /// Reads an event from its JSON encoding; throws when the bytes are not a valid CloudEvent.
    public init(json: [UInt8]) throws(CloudEventError) {
        var dataDepth: Int?
        try self.init(json: json, validatedDataDepth: &dataDepth)
    }

    /// Reads an event as `init(json:)` does, and tells whether its `data` is JSON text already
    /// validated here as strictly as a whole document is: then `validatedDataDepth` is how deep
    /// it is nested (1 for a scalar), so that decoding it need not validate it again. Nil when
    /// the event has no data, or data from `data_base64` (any bytes).
    init(json: [UInt8], validatedDataDepth: inout Int?) throws(CloudEventError) {
        var inPlace: Range<Int>?
        try self.init(
            json: json, in: nil, dataInPlace: false, validatedDataDepth: &validatedDataDepth, dataRange: &inPlace)
    }

    /// Reads an event as `init(json:validatedDataDepth:)` does, from the bytes at `range` of
    /// `json` (all of them by default: one element of a batch otherwise), except that `data`
    /// holding a JSON value (not a string, not `data_base64`) is left where it is: `data` stays
    /// nil and `dataRange` says where the value lies in `json`. Saves a copy of it for a reader
    /// that decodes it from the message.
    init(
        json: [UInt8], in range: Range<Int>? = nil, validatedDataDepth: inout Int?, dataRange: inout Range<Int>?
    ) throws(CloudEventError) {
        try self.init(
            json: json, in: range, dataInPlace: true, validatedDataDepth: &validatedDataDepth, dataRange: &dataRange)
    }

    private init(
        json: [UInt8], in range: Range<Int>?, dataInPlace: Bool, validatedDataDepth: inout Int?,
        dataRange: inout Range<Int>?
    ) throws(CloudEventError) {
        let scanned = try Scanned(json: json, in: range, dataInPlace: dataInPlace)
        validatedDataDepth = scanned.validatedDataDepth
        dataRange = scanned.dataRange
        self = json.withUnsafeBufferPointer { bytes in
            let scanner = JSONScanner(bytes)
            let dataContentType: String?
            if let token = scanned.dataContentType, scanner.token(token, equals: "application/json") {
                dataContentType = "application/json"  // a literal: no string storage per event
            } else {
                dataContentType = scanned.dataContentType.map(scanner.string)
            }
            var event = CloudEvent(
                id: scanner.string(scanned.id), source: scanner.string(scanned.source),
                type: scanner.string(scanned.type), subject: scanned.subject.map(scanner.string), time: scanned.time,
                dataContentType: dataContentType, data: scanned.data)
            event.traceparent = scanned.traceparent.map(scanner.string)
            event.tracestate = scanned.tracestate.map(scanner.string)
            return event
        }
    }

    /// A valid CloudEvent as read from its JSON, with its string attributes left where they are
    /// in the bytes read (as tokens): a receiving bridge makes strings of only what it needs.
    struct Scanned {
        var id: JSONScanner.StringToken
        var source: JSONScanner.StringToken
        var type: JSONScanner.StringToken
        var subject: JSONScanner.StringToken?
        var time: Date?
        var dataContentType: JSONScanner.StringToken?
        var traceparent: JSONScanner.StringToken?
        var tracestate: JSONScanner.StringToken?
        /// Payload bytes of their own: decoded `data_base64`, a JSON string's text, or a JSON
        /// value when it is not left in place.
        var data: [UInt8]?
        /// Where a JSON value payload lies in the bytes read, when it is left in place.
        var dataRange: Range<Int>?
        /// See `init(json:validatedDataDepth:)`.
        var validatedDataDepth: Int?

        /// Reads and validates the event at `range` of `json` (all of it by default), as
        /// `init(utf8:dataInPlace:)` does; every position is one in all of `json`.
        init(json: [UInt8], in range: Range<Int>? = nil, dataInPlace: Bool) throws(CloudEventError) {
            self = try json.withUnsafeBufferPointer { bytes throws(CloudEventError) in
                let document = range.map { CheckedBytes(bytes).slice($0) } ?? CheckedBytes(bytes)
                var scanned = try Scanned(utf8: document, dataInPlace: dataInPlace)
                // Shifted in place: a copy of the struct to shift (even by nothing) cost a
                // retain and a release of its data.
                if let offset = range?.lowerBound, offset != 0 { scanned.shift(by: offset) }
                return scanned
            }
        }

        /// Reads and validates the event in `json` (see `CloudEvent`'s rules); `dataInPlace` as
        /// in `init(json:in:validatedDataDepth:dataRange:)`.
        private init(utf8 json: CheckedBytes, dataInPlace: Bool) throws(CloudEventError) {
            validatedDataDepth = nil
            dataRange = nil
            // The envelope's own level plus the 512 that Foundation's JSONDecoder accepts: `data`
            // Foundation could decode is never refused for its depth. The scanner follows nesting
            // on a stack of its own, so the depth costs no call stack.
            var scanner = JSONScanner(json, maxDepth: 513)
            let envelope: Envelope
            if let canonical = Envelope(canonical: &scanner) {
                envelope = canonical
            } else {
                scanner = JSONScanner(json, maxDepth: 513)
                do {
                    envelope = try Envelope(scanning: &scanner)
                } catch {
                    throw CloudEventError("not a JSON object: \(error.message) at byte \(error.offset)")
                }
            }
            if let name = envelope.firstNonString {
                throw CloudEventError("attribute \"\(scanner.string(name))\" must be a string")
            }

            guard case .string(let version) = envelope.specversion else {
                throw CloudEventError("missing \"specversion\"")
            }
            guard scanner.token(version, equals: "1.0") || scanner.string(version) == CloudEvent.specVersion else {
                throw CloudEventError("unsupported specversion \"\(scanner.string(version))\" (expected \"1.0\")")
            }
            func required(_ attribute: Envelope.Attribute, _ name: String) throws(CloudEventError)
                -> JSONScanner.StringToken
            {
                // An empty token is an empty string: every escape stands for a character.
                guard case .string(let token) = attribute, !token.content.isEmpty else {
                    throw CloudEventError("missing or empty \"\(name)\"")
                }
                return token
            }
            id = try required(envelope.id, "id")
            source = try required(envelope.source, "source")
            type = try required(envelope.type, "type")
            if case .string(let token) = envelope.subject {
                guard !token.content.isEmpty else { throw CloudEventError("\"subject\" must not be empty") }
                subject = token
            } else {
                subject = nil
            }
            if case .string(let token) = envelope.dataContentType {
                dataContentType = token
            } else {
                dataContentType = nil
            }
            if case .string(let token) = envelope.traceparent {
                traceparent = token
            } else {
                traceparent = nil
            }
            if case .string(let token) = envelope.tracestate {
                tracestate = token
            } else {
                tracestate = nil
            }
            if case .string(let timestamp) = envelope.time {
                let date =
                    timestamp.hasEscapes
                    ? RFC3339.date(from: scanner.string(timestamp))
                    : RFC3339.date(fromUTF8: json.buffer(timestamp.content))
                guard let date else {
                    throw CloudEventError("\"time\" is not an RFC 3339 timestamp: \(scanner.string(timestamp))")
                }
                time = date
            } else {
                time = nil
            }

            let base64 = envelope.dataBase64.string(in: scanner)
            guard base64 == nil || envelope.data.isAbsent else {
                throw CloudEventError("both \"data\" and \"data_base64\" are present")
            }
            if let base64 {
                guard let decoded = Data(base64Encoded: base64) else {
                    throw CloudEventError("\"data_base64\" is not valid base64")
                }
                data = Array(decoded)
            } else {
                switch envelope.data {
                case .absent:
                    data = nil
                case .other(let range, _):
                    if dataInPlace {
                        data = nil
                        dataRange = range
                    } else {
                        data = Array(json.buffer(range))
                    }
                    validatedDataDepth = envelope.dataDepth
                case .string(let token):
                    // A JSON string payload: keep it as JSON text so it decodes like any other value.
                    var encoded: [UInt8] = []
                    appendJSONString(scanner.string(token), to: &encoded)
                    data = encoded
                    validatedDataDepth = 1
                }
            }
        }

        /// Moves every position `offset` bytes later: for an event read from a part of a larger
        /// buffer (one element of a batch), its positions in the whole.
        private mutating func shift(by offset: Int) {
            id = id.shifted(by: offset)
            source = source.shifted(by: offset)
            type = type.shifted(by: offset)
            subject = subject?.shifted(by: offset)
            dataContentType = dataContentType?.shifted(by: offset)
            traceparent = traceparent?.shifted(by: offset)
            tracestate = tracestate?.shifted(by: offset)
            dataRange = dataRange.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
        }
    }

    /// The event in the CloudEvents JSON format. `data` is written as a JSON value, so it must
    /// hold JSON text (which is what the bridge puts there).
    public func jsonBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(160 + id.utf8.count + source.utf8.count + type.utf8.count + (data?.count ?? 0))
        output.append(literal: #"{"specversion":"1.0","id":"#)
        appendJSONString(id, to: &output)
        append(",\"source\":", source, to: &output)
        append(",\"type\":", type, to: &output)
        if let subject { append(",\"subject\":", subject, to: &output) }
        if let time {
            output.append(literal: #","time":""#)
            RFC3339.append(time, to: &output)
            output.append(UInt8(ascii: "\""))
        }
        if let dataContentType { append(",\"datacontenttype\":", dataContentType, to: &output) }
        if let traceparent { append(",\"traceparent\":", traceparent, to: &output) }
        if let tracestate { append(",\"tracestate\":", tracestate, to: &output) }
        if let data {
            output.append(literal: #","data":"#)
            output.append(contentsOf: data)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    private func append(_ prefix: StaticString, _ value: String, to output: inout [UInt8]) {
        output.append(literal: prefix)
        appendJSONString(value, to: &output)
    }
}

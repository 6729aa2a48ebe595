import Events
import Foundation

/// Writes the CloudEvents a bridge publishes for one carried type, byte for byte as
/// `CloudEvent.jsonBytes()` writes them, without building a `CloudEvent`.
///
/// Everything but the id's number, the subject, the time and the data is the same for every
/// event of a type, so it is escaped once, here, instead of once per event; and the event's data
/// is encoded straight into the message, after the envelope, instead of into an array of its
/// own that is then copied. (Building a `CloudEvent`, its id string and a separate data array
/// was a visible share of what the bridge spent per event publishing and receiving it.)
struct OutboundEnvelope: Sendable {
    /// The event's wire name, for reports.
    let type: String
    /// The bytes up to the id's number (see ``head(idPrefix:)``).
    private let head: [UInt8]
    /// From the quote closing the id to the end of `type`.
    private let middle: [UInt8]

    init(type: String, source: String, idPrefix: String) {
        self.type = type
        head = Self.head(idPrefix: idPrefix)
        var middle: [UInt8] = [UInt8(ascii: "\"")]
        middle.append(literal: #","source":"#)
        appendJSONString(source, to: &middle)
        middle.append(literal: #","type":"#)
        appendJSONString(type, to: &middle)
        self.middle = middle
    }

    /// How every message of a bridge instance whose ids start with `idPrefix` begins:
    /// `{"specversion":"1.0","id":"` and the prefix, up to the id's number. A receiving bridge
    /// recognises its own messages by these bytes.
    static func head(idPrefix: String) -> [UInt8] {
        var head = Array(#"{"specversion":"1.0","id":"#.utf8)
        appendJSONString(idPrefix, to: &head)
        head.removeLast()  // the closing quote: the number goes on
        return head
    }

    /// The message for event number `sequence`: the envelope (with the distributed tracing
    /// extension's attributes when `trace` is given), then what `appendData` appends (the
    /// `data` member, or nothing for an event without data), then the closing brace.
    func message(
        sequence: UInt64, subject: String?, time: Date, trace: TraceContext? = nil,
        appendData: (inout [UInt8]) throws -> Void
    ) rethrows -> [UInt8] {
        var output: [UInt8] = []
        var traceLength = 0
        if let trace { traceLength = 20 + trace.traceparent.utf8.count + (trace.tracestate?.utf8.count ?? 0) }
        output.reserveCapacity(head.count + middle.count + (subject?.utf8.count ?? 0) + traceLength + 384)
        output.append(contentsOf: head)
        appendDecimalDigits(sequence, to: &output)
        output.append(contentsOf: middle)
        if let subject {
            output.append(literal: #","subject":"#)
            appendJSONString(subject, to: &output)
        }
        output.append(literal: #","time":""#)
        RFC3339.append(time, to: &output)
        output.append(literal: #"","datacontenttype":"application/json""#)
        if let trace {
            output.append(literal: #","traceparent":"#)
            if trace.traceparent.utf8.count == 55 {
                // A trace context is checked when made: 55 characters are hex digits and dashes
                // only, which JSON never escapes (a later version's longer value may hold more).
                output.append(UInt8(ascii: "\""))
                output.append(contentsOf: trace.traceparent.utf8)
                output.append(UInt8(ascii: "\""))
            } else {
                appendJSONString(trace.traceparent, to: &output)
            }
            if let tracestate = trace.tracestate {
                output.append(literal: #","tracestate":"#)
                appendJSONString(tracestate, to: &output)
            }
        }
        try appendData(&output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Appends the `data` member holding `value`'s JSON.
    static func appendData(_ value: some Encodable, to output: inout [UInt8]) throws {
        output.append(literal: #","data":"#)
        try WireJSON.encode(value, appendingTo: &output)
    }
}

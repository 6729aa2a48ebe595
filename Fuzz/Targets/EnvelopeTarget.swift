// The CloudEvent envelope scan (one event, structured mode) on any bytes.
//
// For an accepted event:
// - the in-place reading (data left in the message) gives the same event, its data range
//   holding exactly the bytes the copying reading copied, and the same validated depth;
// - the message is strictly valid JSON (by the fuzzers' own strict reader, StrictJSON);
// - when Foundation's JSONSerialization reads it too (it refuses numbers out of a Double's
//   range, which JSON allows), it reads an object whose attributes are the event's (strings
//   unescaped alike, `time` the same instant, `data` the same JSON value or `data_base64` the
//   same bytes);
// - a validated depth is the data's real depth (by StrictJSON), and decoding the data with it
//   (the wire decoder skipping validation) gives what decoding it from scratch gives;
// - `jsonBytes()` reads back as the same event.

import Foundation

@testable import Events
@testable import EventsRedis

func string(_ tree: [String: Any], _ name: String) -> String? { tree[name] as? String }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let message = FuzzInput(start, count).bytes
    var copiedDepth: Int?
    guard let event = try? CloudEvent(json: message, validatedDataDepth: &copiedDepth) else {
        // Refused: the in-place reading refuses too.
        var depth: Int?
        var range: Range<Int>?
        fuzzCheck(
            (try? CloudEvent(json: message, validatedDataDepth: &depth, dataRange: &range)) == nil,
            "only the in-place reading accepts \(text(message))")
        return 0
    }
    var depth: Int?
    var range: Range<Int>?
    guard let inPlace = try? CloudEvent(json: message, validatedDataDepth: &depth, dataRange: &range) else {
        fuzzFailure("only the copying reading accepts \(text(message))")
    }
    fuzzCheck(depth == copiedDepth, "validated depths differ: \(String(describing: depth)), \(String(describing: copiedDepth))")
    var placed = inPlace
    if let range {
        fuzzCheck(inPlace.data == nil, "data both in place and copied")
        fuzzCheck(range.lowerBound >= 0 && range.upperBound <= message.count, "data range \(range) outside the message")
        placed.data = Array(message[range])
    }
    fuzzCheck(placed == event, "the in-place reading differs: \(placed) against \(event)")

    fuzzCheck(StrictJSON.depth(of: message) != nil, "an event that is not strictly valid JSON: \(text(message))")
    if let depth, let bytes = event.data {
        fuzzCheck(StrictJSON.depth(of: bytes) == depth, "validated depth \(depth) for \(text(bytes))")
        let validated = Result { try WireJSON.decode(AnyJSON.self, from: bytes, validatedDepth: depth) }
        let scratch = Result { try WireJSON.decode(AnyJSON.self, from: bytes) }
        switch (validated, scratch) {
        case (.success(let a), .success(let b)): fuzzCheck(a == b, "decoding with the depth differs")
        case (.failure, .failure): break
        default: fuzzFailure("decoding with the depth differs from decoding from scratch")
        }
    }
    guard let tree = foundationTree(message) as? [String: Any] else {
        checkRoundTrip(event, depth: depth)
        return 0
    }
    fuzzCheck(string(tree, "specversion") == "1.0", "specversion differs")
    fuzzCheck(string(tree, "id") == event.id, "id differs: \(event.id)")
    fuzzCheck(string(tree, "source") == event.source, "source differs: \(event.source)")
    fuzzCheck(string(tree, "type") == event.type, "type differs: \(event.type)")
    fuzzCheck(string(tree, "subject") == event.subject, "subject differs")
    fuzzCheck(string(tree, "datacontenttype") == event.dataContentType, "datacontenttype differs")
    if let time = string(tree, "time") {
        fuzzCheck(event.time == RFC3339.date(from: time) && event.time != nil, "time differs")
    } else {
        fuzzCheck(event.time == nil, "a time Foundation does not see")
    }
    if let base64 = string(tree, "data_base64") {
        fuzzCheck(tree["data"] == nil, "both data and data_base64 accepted")
        fuzzCheck(event.data == Data(base64Encoded: base64).map { Array($0) }, "data_base64 decoded differently")
        fuzzCheck(depth == nil, "base64 data marked validated")
    } else if let data = tree["data"] {
        guard let bytes = event.data, let value = foundationTree(bytes) else {
            fuzzFailure("the event's data is not JSON Foundation reads: \(String(describing: event.data))")
        }
        fuzzCheck(value.isEqual(data), "data differs from Foundation's: \(value) against \(data)")
        fuzzCheck(depth != nil, "JSON data not marked validated: \(text(message))")
    } else {
        fuzzCheck(event.data == nil, "data Foundation does not see")
    }
    checkRoundTrip(event, depth: depth)
    return 0
}

func checkRoundTrip(_ event: CloudEvent, depth: Int?) {
    if event.data == nil || depth != nil {
        let written = event.jsonBytes()
        guard let again = try? CloudEvent(json: written) else {
            fuzzFailure("jsonBytes() is not read back: \(text(written))")
        }
        // The writer keeps milliseconds.
        var expected = event
        expected.time = event.time.map { RFC3339.date(from: RFC3339.string(from: $0))! }
        fuzzCheck(again == expected, "jsonBytes() reads back as \(again), not \(expected)")
    }
}

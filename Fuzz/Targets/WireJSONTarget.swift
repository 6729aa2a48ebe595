// Differential fuzzing of the wire JSON decoder against Foundation's `JSONDecoder`, and of the
// wire encoder against `JSONEncoder` for every value Foundation decodes.
//
// The first input byte picks a type and a mode; the rest is the document. For each input:
// - whenever the wire decoder itself returns a value, Foundation returns an equal one (same
//   bits for every number: values are compared through a sorted-keys Foundation encoding);
// - `WireJSON.decode` (wire decoder, Foundation when it refuses) gives exactly Foundation's
//   result: an equal value, or an error (Foundation's own);
// - told that unvalidated bytes were validated (a caller's mistake the decoder cannot see), the
//   decoder still reads nothing outside them and never hangs: whatever it returns is not
//   judged, only that it returns (the address sanitizer checks the reads);
// - the wire encoder writes, for a value Foundation decoded, what `JSONEncoder` writes up to
//   member order: the same bytes once sorted, and a document that decodes to the same value.

import Foundation

@testable import Events
@testable import EventsRedis

struct Scalars: Codable, Equatable {
    var b: Bool
    var i: Int
    var i8: Int8
    var i16: Int16
    var i32: Int32
    var i64: Int64
    var u: UInt
    var u8: UInt8
    var u16: UInt16
    var u32: UInt32
    var u64: UInt64
    var d: Double
    var f: Float
    var s: String
}

struct Child: Codable, Equatable {
    var id: Int64
    var note: String?
    var flags: [Bool]?
}

struct Nested: Codable, Equatable {
    var name: String
    var tags: [String]
    var child: Child?
    var values: [Double]
    var map: [String: Int]
    var matrix: [[Int]]?
}

struct Optionals: Codable, Equatable {
    var a: Int?
    var b: String?
    var c: [Int?]?
    var d: Double?
    var e: Bool?
    var f: Child?
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case polygon([Shape])
    case empty
}

/// A hand-written `init(from:)` that uses what synthesized code does not: `try?` around a read,
/// `contains`, `allKeys`, `decodeNil`, nested containers, `count` and `isAtEnd`.
struct Handwritten: Codable, Equatable {
    var fallback: Int
    var keys: [String]
    var hasNull: Bool
    var inner: [String]
    var count: Int?
    var rest: [Double]

    enum CodingKeys: String, CodingKey {
        case fallback, list, inner, maybe
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fallback = (try? container.decode(Int.self, forKey: .fallback)) ?? -1
        keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).sorted()
        hasNull = container.contains(.maybe) ? try container.decodeNil(forKey: .maybe) : false
        if container.contains(.inner) {
            let nested = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .inner)
            inner = try nested.allKeys.map { try nested.decode(String.self, forKey: $0) }.sorted()
        } else {
            inner = []
        }
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        count = list.count
        rest = []
        while !list.isAtEnd {
            if try list.decodeNil() { continue }
            rest.append(try list.decode(Double.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(fallback, forKey: AnyKey(stringValue: "fallback"))
        try container.encode(keys, forKey: AnyKey(stringValue: "keys"))
        try container.encode(hasNull, forKey: AnyKey(stringValue: "hasNull"))
        try container.encode(inner, forKey: AnyKey(stringValue: "inner"))
        try container.encodeIfPresent(count, forKey: AnyKey(stringValue: "count"))
        try container.encode(rest, forKey: AnyKey(stringValue: "rest"))
    }
}

let wireTally = FuzzTally()
/// Set `FUZZ_SKIP_CLAIMS` to fuzz only the differential (for a decoder known to trust its caller).
let skipClaims = ProcessInfo.processInfo.environment["FUZZ_SKIP_CLAIMS"] != nil
let canonicalEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
}()

/// The bytes of `value` as Foundation writes it with sorted keys: equal bytes mean equal
/// values, every number bit for bit (a -0.0 and a 0.0 differ).
func canonical<T: Encodable>(_ value: T) -> [UInt8] {
    guard let data = try? canonicalEncoder.encode(value) else { return Array("<unencodable>".utf8) }
    return Array(data)
}

func differential<T: Codable & Equatable>(_ type: T.Type, _ document: [UInt8], claimValidated: Int?) {
    if let claimValidated {
        // Unvalidated bytes passed as validated: only the absence of a crash, a hang or a stray
        // read is checked.
        let outcome = try? WireJSONDecoder.decode(type, from: document, validatedDepth: claimValidated)
        wireTally.count(outcome == nil ? "claimed:refused" : "claimed:value")
        return
    }
    let foundation = Result { try JSONDecoder().decode(type, from: Data(document)) }
    let wire = Result { try WireJSONDecoder.decode(type, from: document) }
    switch (wire, foundation) {
    case (.success(let wireValue), .success(let foundationValue)):
        fuzzCheck(
            wireValue == foundationValue && canonical(wireValue) == canonical(foundationValue),
            "values differ for \(T.self): wire \(wireValue), Foundation \(foundationValue)")
        wireTally.count("both")
    case (.success(let wireValue), .failure(let error)):
        fuzzFailure("the wire decoder accepted what Foundation refuses (\(T.self)): \(wireValue); \(error)")
    case (.failure, .success):
        // (A type's own `init(from:)` may throw errors of its own, such as a synthesized enum's
        // for a wrong number of keys: every error leads to Foundation.)
        wireTally.count("left-to-foundation")
    case (.failure, .failure):
        wireTally.count("both-refuse")
    }
    // What the bridge calls: exactly Foundation's outcome.
    let combined = Result { try WireJSON.decode(type, from: document) }
    switch (combined, foundation) {
    case (.success(let value), .success(let expected)):
        fuzzCheck(canonical(value) == canonical(expected), "WireJSON.decode differs from Foundation")
    case (.failure, .failure):
        // Foundation's error itself (the wire decoder refused, so Foundation decoded again).
        // Not compared: for a document with several faults, which one Foundation reports
        // depends on the order it visits a dictionary's members, which varies between runs.
        break
    case (.success(let value), .failure(let expected)):
        fuzzFailure("WireJSON.decode returned \(value) where Foundation threw \(expected)")
    case (.failure(let error), .success(let expected)):
        fuzzFailure("WireJSON.decode threw \(error) where Foundation returned \(expected)")
    }
    // The encoder, on a value Foundation decoded.
    if case .success(let value) = foundation {
        checkEncoder(value)
    }
}

func checkEncoder<T: Codable & Equatable>(_ value: T) {
    guard let expected = try? JSONEncoder().encode(value) else { return }
    guard let written = try? WireJSONEncoder.encode(value) else {
        wireTally.count("encode:left-to-foundation")
        return
    }
    fuzzCheck(
        written.sorted() == Array(expected).sorted(),
        "the wire encoder wrote \(String(decoding: written, as: UTF8.self)), Foundation \(String(decoding: expected, as: UTF8.self))"
    )
    // Only for types whose encoding Foundation itself reads back.
    guard (try? JSONDecoder().decode(T.self, from: expected)) != nil else { return }
    guard let back = try? JSONDecoder().decode(T.self, from: Data(written)) else {
        fuzzFailure("Foundation cannot read what the wire encoder wrote: \(String(decoding: written, as: UTF8.self))")
    }
    fuzzCheck(canonical(back) == canonical(value), "the wire encoding does not decode to the value")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let selector = input.byte()
    let document = input.rest
    // One input in eight claims to be validated, at a depth from the selector.
    let claim: Int? = selector & 0x70 == 0x70 && !skipClaims ? Int(selector >> 7) * 255 + 1 : nil
    switch selector & 0x0F {
    case 0: differential(Scalars.self, document, claimValidated: claim)
    case 1: differential(Nested.self, document, claimValidated: claim)
    case 2: differential(Optionals.self, document, claimValidated: claim)
    case 3: differential(Shape.self, document, claimValidated: claim)
    case 4: differential(Handwritten.self, document, claimValidated: claim)
    case 5: differential([String: [String: Double]].self, document, claimValidated: claim)
    case 6: differential([Int?].self, document, claimValidated: claim)
    case 7 where selector & 0x80 != 0: differential(AnyJSON.self, document, claimValidated: claim)
    case 7: differential(String.self, document, claimValidated: claim)
    case 8: differential(Double.self, document, claimValidated: claim)
    case 9: differential([Float].self, document, claimValidated: claim)
    case 10: differential([Int8].self, document, claimValidated: claim)
    case 11: differential([UInt64].self, document, claimValidated: claim)
    case 12: differential([[Shape]].self, document, claimValidated: claim)
    case 13: differential([String: Nested].self, document, claimValidated: claim)
    case 14: differential(Bool.self, document, claimValidated: claim)
    default: differential([Child].self, document, claimValidated: claim)
    }
    return 0
}

import Foundation
import RedisTestSupport
import Testing

@testable import EventsRedis

// Differential tests: the wire coders against Foundation's JSONEncoder and JSONDecoder with
// default settings. Foundation on Linux writes object members in hash order (different from one
// encoding to the next), so outputs are compared after sorting every object's members by name;
// everything else (number formatting, string escaping, structure) must match byte for byte.

// MARK: - Sample types

struct WireScalars: Codable, Equatable {
    var bool = true
    var string = "text"
    var double = 1.5
    var int = -42
    var int8 = Int8.min
    var int16 = Int16.max
    var int32 = Int32.min
    var int64 = Int64.max
    var uint = UInt.max
    var uint8 = UInt8.max
    var uint16: UInt16 = 0
    var uint32 = UInt32.max
    var uint64 = UInt64.max
    var optionalInt: Int? = nil
    var optionalString: String? = "present"
    var optionalDouble: Double? = nil
}

enum WireShape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(Int, Int)
    case labelled(String, tags: [String]?)
    case empty
}

enum WireColor: String, Codable, Equatable {
    case red, green
}

struct WireNested: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var name: String
        var values: [Int?]
    }
    var inner: Inner
    var inners: [Inner]
    var optionalInner: Inner?
    var byName: [String: Int]
    var byNumber: [Int: String]
    var matrix: [[Double]]
    var shapes: [WireShape]
    var color: WireColor
    var colors: [String: WireColor]
    var nothing: [String]
    var deep: [String: [String: [Int]]]
}

struct WireEmpty: Codable, Equatable {}

/// Encodes nothing at all: Foundation refuses it at the top level, writes `{}` when nested.
struct WireEncodesNothing: Codable, Equatable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

struct WireHolder<Value: Codable & Equatable>: Codable, Equatable {
    var value: Value
}

/// Codable misuse that Foundation handles with its tree: the wire encoder must hand it over.
struct WireRepeatedKey: Encodable {
    enum Keys: CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .a)
        try container.encode(2, forKey: .b)
        try container.encode(3, forKey: .a)
    }
}

struct WireLateNestedWrite: Encodable {
    enum Keys: CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var nested = container.nestedUnkeyedContainer(forKey: .a)
        try container.encode(2, forKey: .b)
        try nested.encode(3)
    }
}

struct WireTwoContainers: Encodable {
    enum Keys: CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var first = encoder.container(keyedBy: Keys.self)
        try first.encode(1, forKey: .a)
        var second = encoder.container(keyedBy: Keys.self)
        try second.encode(2, forKey: .b)
    }
}

/// Swallows a decoding error: the wire decoder must not let its own refusals change the result.
struct WireForgiving: Decodable, Equatable {
    enum Keys: CodingKey { case n }
    var n: Int
    init(n: Int) { self.n = n }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        n = (try? container.decode(Int.self, forKey: .n)) ?? -1
    }
}

/// Throws from its `encode(to:)`, before writing anything or after writing a member.
struct WireThrowing: Encodable {
    struct Refused: Error {}
    enum Keys: CodingKey { case x }
    var writesFirst: Bool
    func encode(to encoder: any Encoder) throws {
        if writesFirst {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .x)
        }
        throw Refused()
    }
}

/// Swallows the error of a member or an element and goes on: Foundation leaves it out.
struct WireSwallowsError: Encodable {
    enum Keys: CodingKey { case a, b }
    var inner: WireThrowing
    var unkeyed: Bool
    func encode(to encoder: any Encoder) throws {
        if unkeyed {
            var container = encoder.unkeyedContainer()
            try container.encode(1)
            try? container.encode(inner)
            try container.encode(2)
        } else {
            var container = encoder.container(keyedBy: Keys.self)
            try? container.encode(inner, forKey: .a)
            try container.encode(2, forKey: .b)
        }
    }
}

/// Encodes `count` keys `k0`, `k1`, ... and then `k\(repeating)` again, with the value -1.
struct WireManyKeys: Encodable {
    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    var count: Int
    var repeating: Int
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for index in 0..<count { try container.encode(index, forKey: Key(stringValue: "k\(index)")) }
        try container.encode(-1, forKey: Key(stringValue: "k\(repeating)"))
    }
}

// MARK: - Helpers

/// The JSON text with every object's members sorted by name; everything else as written.
func canonicalJSON(_ bytes: [UInt8]) throws -> String {
    var reader = CanonicalReader(bytes: bytes)
    let text = try reader.value()
    return text
}

private struct CanonicalReader {
    struct Malformed: Error {}
    let bytes: [UInt8]
    var index = 0

    mutating func value() throws -> String {
        guard index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(name: String, text: String)] = []
            while bytes[index] != UInt8(ascii: "}") {
                if bytes[index] == UInt8(ascii: ",") { index += 1 }
                let nameText = try value()
                let name = try JSONDecoder().decode(String.self, from: Data(nameText.utf8))
                guard bytes[index] == UInt8(ascii: ":") else { throw Malformed() }
                index += 1
                members.append((name, nameText + ":" + (try value())))
            }
            index += 1
            return "{" + members.sorted { $0.name < $1.name }.map(\.text).joined(separator: ",") + "}"
        case UInt8(ascii: "["):
            index += 1
            var elements: [String] = []
            while bytes[index] != UInt8(ascii: "]") {
                if bytes[index] == UInt8(ascii: ",") { index += 1 }
                elements.append(try value())
            }
            index += 1
            return "[" + elements.joined(separator: ",") + "]"
        case UInt8(ascii: "\""):
            let start = index
            index += 1
            while bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
            index += 1
            return String(decoding: bytes[start..<index], as: UTF8.self)
        default:
            let start = index
            while index < bytes.count, !",]}:".utf8.contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }
}

/// Checks the fast encoder against Foundation, and the fast decoder on Foundation's output.
func expectSameAsFoundation<Value: Codable & Equatable>(
    _ value: Value, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let foundation = Array(try JSONEncoder().encode(value))
    let wire = try WireJSONEncoder.encode(value)
    #expect(try canonicalJSON(wire) == canonicalJSON(foundation), sourceLocation: sourceLocation)
    let decoded = try WireJSONDecoder.decode(Value.self, from: foundation)
    #expect(decoded == value, sourceLocation: sourceLocation)
    #expect(try WireJSON.decode(Value.self, from: wire) == value, sourceLocation: sourceLocation)
}

// MARK: - Tests

@Suite("Wire JSON coders")
struct WireJSONTests {
    @Test("Every scalar type, at its extremes, is written and read as Foundation does")
    func scalars() throws {
        try expectSameAsFoundation(WireScalars())
        try expectSameAsFoundation(
            WireScalars(
                bool: false, string: "", double: -0.0, int: Int.min, int8: Int8.max, int16: Int16.min, int32: Int32.max,
                int64: Int64.min, uint: 0, uint8: 0, uint16: UInt16.max, uint32: 0, uint64: 0, optionalInt: Int.max,
                optionalString: nil, optionalDouble: 1e300))
    }

    @Test(
        "Doubles are formatted like Foundation: no trailing .0, exponents where Swift uses them",
        arguments: [
            0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 1e15, 1e16, 1e-4, 1e-5, 123_456.789, -1.5e-10, 1e300, -1e-300,
            Double.greatestFiniteMagnitude, Double.leastNormalMagnitude, Double.leastNonzeroMagnitude,
            9_007_199_254_740_992,
            2.5e-308, 4.35, 100, 1e21, 1e22,
        ])
    func doubles(value: Double) throws {
        let foundation = Array(try JSONEncoder().encode(value))
        #expect(try WireJSONEncoder.encode(value) == foundation)
        #expect(try WireJSON.decode(Double.self, from: foundation).bitPattern == value.bitPattern)
        #expect(try JSONDecoder().decode(Double.self, from: Data(foundation)).bitPattern == value.bitPattern)
    }

    @Test("Strings: every control character, quotes, slashes, DEL, non-ASCII text and emoji")
    func strings() throws {
        var all = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        all += "\" \\ / \u{7F} é e\u{301} ü 日本 🎉 👩‍👩‍👧 \u{2028}\u{2029} \u{FEFF} \u{10FFFF} \u{FFFD}"
        try expectSameAsFoundation(WireHolder(value: all))
        try expectSameAsFoundation(WireHolder(value: "plain"))
        try expectSameAsFoundation(WireHolder(value: String(repeating: "a/b", count: 200)))
        let foundation = Array(try JSONEncoder().encode(all))
        #expect(try WireJSONEncoder.encode(all) == foundation)
    }

    @Test("Special characters at every position around the eight-byte steps of the string scanners")
    func specialCharactersAtEveryPosition() throws {
        for special in ["\"", "\\", "/", "\n", "\u{1}", "\u{1F}", " ", "\u{7F}", "é", "🎉", "\u{80}"] {
            for position in 0..<20 {
                var text = String(repeating: "a", count: 20)
                text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                try expectSameAsFoundation(WireHolder(value: text))
                let event = CloudEvent(id: text, source: "s", type: text, subject: text)
                #expect(try CloudEvent(json: event.jsonBytes()) == event)
            }
        }
    }

    @Test("Nested structs, arrays, dictionaries, optionals, enums with associated values")
    func nested() throws {
        let inner = WireNested.Inner(name: "in", values: [1, nil, -3])
        let value = WireNested(
            inner: inner, inners: [inner, WireNested.Inner(name: "two", values: [])], optionalInner: nil,
            byName: ["a": 1, "b/c": 2, "é": 3, "": 4], byNumber: [1: "one", -2: "minus two", 300: "x"],
            matrix: [[1, 2.5], [], [-0.0, 1e-7]],
            shapes: [
                .circle(radius: 2), .rectangle(3, 4), .labelled("x", tags: nil), .labelled("y", tags: ["t"]), .empty,
            ],
            color: .green, colors: ["first": .red], nothing: [], deep: ["a": ["b": [1, 2]], "c": [:]])
        try expectSameAsFoundation(value)
        var withInner = value
        withInner.optionalInner = inner
        try expectSameAsFoundation(withInner)
        try expectSameAsFoundation(WireHolder(value: WireEmpty()))
        try expectSameAsFoundation([WireShape.empty, .rectangle(Int.min, 0)])
        try expectSameAsFoundation(WireHolder(value: Set(["a", "b", "c", "d"])))
    }

    @Test("Top-level fragments and optionals are written as Foundation writes them")
    func fragments() throws {
        try expectSameAsFoundation(5)
        try expectSameAsFoundation("text")
        try expectSameAsFoundation(true)
        try expectSameAsFoundation([Int?.none, 1])
        try expectSameAsFoundation(Int?.none)
        try expectSameAsFoundation([String]())
        try expectSameAsFoundation([String: Int]())
    }

    @Test("Dates, data, URLs, decimals, floats, NaN and Codable misuse are left to Foundation, output unchanged")
    func leftToFoundation() throws {
        struct Special: Codable, Equatable {
            var date = Date(timeIntervalSince1970: 1_000_000.5)
            var data = Data([1, 2, 3])
            var url = URL(string: "https://example.com/a?b=c")!
            var decimal = Decimal(string: "3.14159")!
            var float: Float = 0.1
        }
        #expect(throws: WireJSONUnsupported.self) { try WireJSONEncoder.encode(Special()) }
        #expect(throws: WireJSONUnsupported.self) { try WireJSONEncoder.encode(WireHolder(value: Float(1))) }
        #expect(throws: WireJSONUnsupported.self) { try WireJSONEncoder.encode(WireHolder(value: [Date()])) }
        let foundation = Array(try JSONEncoder().encode(Special()))
        #expect(try canonicalJSON(WireJSON.encode(Special())) == canonicalJSON(foundation))
        #expect(throws: WireJSONUnsupported.self) { try WireJSONDecoder.decode(Special.self, from: foundation) }
        #expect(try WireJSON.decode(Special.self, from: foundation) == Special())

        // 128-bit integers: Foundation writes them as numbers; the wire coders hand them over.
        struct Wide: Codable, Equatable {
            var signed = Int128.min
            var unsigned = UInt128.max
            var list: [Int128] = [1, -1]
        }
        #expect(throws: WireJSONUnsupported.self) { try WireJSONEncoder.encode(Wide()) }
        let wide = Array(try JSONEncoder().encode(Wide()))
        #expect(try canonicalJSON(WireJSON.encode(Wide())) == canonicalJSON(wide))
        #expect(throws: WireJSONUnsupported.self) { try WireJSONDecoder.decode(Wide.self, from: wide) }
        #expect(try WireJSON.decode(Wide.self, from: wide) == Wide())

        for misuse in [WireRepeatedKey() as any Encodable, WireLateNestedWrite(), WireTwoContainers()] {
            #expect(throws: WireJSONUnsupported.self) { try WireJSONEncoder.encode(misuse) }
            #expect(try canonicalJSON(WireJSON.encode(misuse)) == canonicalJSON(Array(JSONEncoder().encode(misuse))))
        }
        // NaN and the infinities: Foundation's error, not a silent value.
        #expect(throws: EncodingError.self) { try WireJSON.encode(WireHolder(value: Double.nan)) }
        #expect(throws: EncodingError.self) { try WireJSON.encode([Double.infinity]) }
        #expect(throws: EncodingError.self) { try WireJSON.encode(WireEncodesNothing()) }
        #expect(try WireJSON.encode(WireHolder(value: WireEncodesNothing())) == Array(#"{"value":{}}"#.utf8))
    }

    @Test(
        "A member or element whose encode(to:) throws, caught by its container's owner, is left out as Foundation does",
        arguments: [false, true], [false, true])
    func swallowedEncodingError(unkeyed: Bool, writesFirst: Bool) throws {
        let value = WireSwallowsError(inner: WireThrowing(writesFirst: writesFirst), unkeyed: unkeyed)
        let wire = try WireJSON.encode(value)
        #expect(try canonicalJSON(wire) == canonicalJSON(Array(try JSONEncoder().encode(value))))
        #expect(String(decoding: wire, as: UTF8.self) == (unkeyed ? "[1,2]" : #"{"b":2}"#))
    }

    @Test("A large object decodes in time linear in its members, as in Foundation (a dictionary from Redis)")
    func largeObject() async throws {
        let growth = try await growthWhenSixteenTimesLarger(from: 1_250) { size in
            let dictionary = Dictionary(uniqueKeysWithValues: (0..<size).map { ("key \($0)", $0) })
            return (dictionary, Array(try JSONEncoder().encode(dictionary)))
        } _: { input throws in
            guard try WireJSONDecoder.decode([String: Int].self, from: input.1) == input.0 else {
                throw WrongResult("decoded a different dictionary")
            }
        }
        // Linear (about 16). A lookup per key that scans every member took about ten seconds for
        // 10,000 members.
        #expect(growth < 64)
        // Repeated names are still refused in large objects, even when they differ as bytes.
        var repeated = (0..<20).map { "\"k\($0)\":\($0)" }
        repeated.append(#""k\u0031":1"#)
        #expect(throws: WireJSONUnsupported.self) {
            try WireJSONDecoder.decode([String: Int].self, from: Array("{\(repeated.joined(separator: ","))}".utf8))
        }
        #expect(
            try WireJSON.decode([String: Int].self, from: Array("{\(repeated.joined(separator: ","))}".utf8)).count
                == 20)
    }

    @Test("A large object encodes in time linear in its members, as in Foundation")
    func largeObjectEncoding() async throws {
        let growth = try await growthWhenSixteenTimesLarger(from: 1_250) { size in
            Dictionary(uniqueKeysWithValues: (0..<size).map { ("key \($0)", $0) })
        } _: { dictionary throws in
            let encoded = try WireJSONEncoder.encode(dictionary)
            guard try JSONDecoder().decode([String: Int].self, from: Data(encoded)) == dictionary else {
                throw WrongResult("encoded a different dictionary")
            }
        }
        // Linear (about 16). Comparing each key with every earlier one took seconds for 20,000.
        #expect(growth < 64)
        // A key repeated after many others is still refused, and Foundation keeps the last value.
        let repeated = WireManyKeys(count: 40, repeating: 3)
        #expect(throws: WireJSONUnsupported.self) { try WireJSONEncoder.encode(repeated) }
        #expect(try JSONDecoder().decode([String: Int].self, from: Data(try WireJSON.encode(repeated)))["k3"] == -1)
    }

    @Test("Input Foundation accepts in forms the fast path leaves to it decodes to Foundation's value")
    func lenientForms() throws {
        let cases: [(String, Int)] = [
            ("1.0", 1), ("1e2", 100), ("100e-2", 1), ("-0", 0), ("[1,]", 0), ("\u{FEFF}7", 7),
        ]
        for (json, expected) in cases where !json.hasPrefix("[") {
            #expect(try WireJSON.decode(Int.self, from: Array(json.utf8)) == expected)
        }
        #expect(try WireJSON.decode([Int].self, from: Array("[1,]".utf8)) == [1])
        #expect(try WireJSON.decode(WireForgiving.self, from: Array(#"{"n":2.0}"#.utf8)) == WireForgiving(n: 2))
        #expect(try WireJSON.decode(WireForgiving.self, from: Array(#"{"n":"x"}"#.utf8)) == WireForgiving(n: -1))
        #expect(try WireJSON.decode([String: Int].self, from: Array(#"{"a":1,"a":2}"#.utf8)) == ["a": 1])
        #expect(
            try WireJSON.decode(WireHolder<Int>.self, from: Array(#" { "value" : 3 } "#.utf8)) == WireHolder(value: 3))
        #expect(
            try WireJSON.decode(String.self, from: Array(#""\ud83c\udf89 \u00e9 \/ \b\f\n\r\t""#.utf8))
                == "🎉 é / \u{8}\u{C}\n\r\t")
        #expect(try WireJSON.decode(Double.self, from: Array("-0".utf8)).sign == .minus)
        #expect(try WireJSON.decode(Float.self, from: Array("0.1".utf8)) == 0.1)
        #expect(try WireJSON.decode(WireHolder<String>.self, from: Array(#"{"v\u0061lue":"x"}"#.utf8)).value == "x")
    }

    @Test("Strings of small and large objects, plain and escaped, decode by key as in Foundation")
    func stringMembersByKey() throws {
        // 5 members are looked up by scanning, 40 through the large-object table.
        for count in [5, 40] {
            var members: [String] = []
            for index in 0..<count {
                let value = index.isMultiple(of: 3) ? #"tab\there \u00e9"# : "plain \(index)"
                members.append(#""k\#(index)":"\#(value)""#)
            }
            let bytes = Array(("{" + members.joined(separator: ",") + "}").utf8)
            let wire = try WireJSONDecoder.decode(WireStrings.self, from: bytes)
            #expect(wire == (try JSONDecoder().decode(WireStrings.self, from: Data(bytes))))
            #expect(wire.values.count == count)
            #expect(wire.values.first == "tab\there é" && wire.values.last == (count == 5 ? "plain 4" : "tab\there é"))
        }
    }

    @Test("Member names match keys as Swift strings compare, canonical equivalents included, as in Foundation")
    func keysMatchAsSwiftStrings() throws {
        // The Kelvin sign (U+212A) is canonically equivalent to "K": as keys they are equal.
        let documents = [#"{"K":1}"#, #"{"\u212A":1}"#, "{\"\u{212A}\":1}", #"{"k":1}"#, #"{"Kelvin":1}"#]
        for document in documents {
            let bytes = Array(document.utf8)
            let foundation = try? JSONDecoder().decode(WireKelvin.self, from: Data(bytes))
            // The wire decoder itself: `WireJSON` would hand a refusal to Foundation.
            let wire = try? WireJSONDecoder.decode(WireKelvin.self, from: bytes)
            #expect(wire == foundation, "\(document)")
        }
        #expect(try WireJSONDecoder.decode(WireKelvin.self, from: Array(#"{"K":1}"#.utf8)).plain == 1)
        #expect(try WireJSONDecoder.decode(WireKelvin.self, from: Array(#"{"\u212A":2}"#.utf8)).kelvin == 2)
    }

    @Test(
        "Malformed or mistyped input throws, as Foundation does",
        arguments: [
            "", " ", "{", "}", "[", "[1", "[1 2]", "{\"value\":}", "{\"value\" 1}", "{value:1}", "{\"value\":1,}x",
            "{\"value\":01}", "{\"value\":1.}", "{\"value\":-}", "{\"value\":1e}", "{\"value\":.5}", "{\"value\":+1}",
            "{\"value\":\"\\x\"}", "{\"value\":tru}", "{\"value\":nul}", "{\"value\":\"a\u{1}\"}",
            "{\"value\":\"\\ud800\"}",
            "{\"value\":\"\\udc00\"}", "{\"value\":\"\\u12\"}", "{\"value\":1}{}", "{\"value\":NaN}",
            "{\"value\":1e400}",
            "{\"value\":9223372036854775808}", "{\"value\":\"1\"}", "{\"value\":null}",
            "{\"value\":true}", "{\"value\":1.5}", "{\"valu\":1}", "[]", "1", "null", "{\"value\":[1]}",
        ])
    func malformed(json: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(WireHolder<Int>.self, from: Data(json.utf8)) }
        #expect(throws: (any Error).self) { try WireJSON.decode(WireHolder<Int>.self, from: Array(json.utf8)) }
    }

    @Test("Invalid UTF-8 is an error, never a crash or a repaired string")
    func invalidUTF8() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let json = Array(#"{"value":""#.utf8) + bad + Array(#""}"#.utf8)
            #expect(throws: (any Error).self) { try WireJSONDecoder.decode(WireHolder<String>.self, from: json) }
            #expect(throws: (any Error).self) { try WireJSON.decode(WireHolder<String>.self, from: json) }
        }
    }

    @Test("Randomized values: the fast encoder matches Foundation and the fast decoder reads Foundation's output")
    func randomized() async throws {
        var generator = SeededGenerator(seed: 0xC0DEC)
        var fastDecodes = 0
        for round in 0..<400 {
            await yieldNow(every: 20, at: round)
            let value = WireRandom.make(using: &generator)
            let foundation = Array(try JSONEncoder().encode(value))
            #expect(try canonicalJSON(WireJSONEncoder.encode(value)) == canonicalJSON(foundation))
            if let decoded = try? WireJSONDecoder.decode(WireRandom.self, from: foundation) {
                #expect(decoded == value)
                fastDecodes += 1
            }
            #expect(try WireJSON.decode(WireRandom.self, from: foundation) == value)
        }
        #expect(fastDecodes > 300, "subnormal doubles are left to Foundation, little else")
    }

    @Test("Every truncation of a document fails to decode, as it does in Foundation")
    func truncations() async throws {
        var generator = SeededGenerator(seed: 0x7A11)
        for round in 0..<20 {
            await yieldNow(every: 1, at: round)
            let bytes = Array(try JSONEncoder().encode(WireRandom.make(using: &generator)))
            for length in 0..<bytes.count {
                let prefix = Array(bytes[..<length])
                #expect((try? WireJSONDecoder.decode(WireRandom.self, from: prefix)) == nil)
                #expect((try? JSONDecoder().decode(WireRandom.self, from: Data(prefix))) == nil)
            }
        }
    }

    @Test("Randomly mutated documents decode exactly when Foundation decodes them, to the same value")
    func mutatedDocuments() async throws {
        var agreed = 0
        try await forEachRandomDocument(seed: 0xF022, rounds: 3_000, mutations: { 1 + $0 % 3 }) { bytes in
            let foundation = try? JSONDecoder().decode(WireRandom.self, from: Data(bytes))
            let fast = try? WireJSONDecoder.decode(WireRandom.self, from: bytes)
            if let fast {
                #expect(foundation == fast, "\(String(decoding: bytes, as: UTF8.self))")
            }
            #expect((try? WireJSON.decode(WireRandom.self, from: bytes)) == foundation)
            if foundation != nil { agreed += 1 }
        }
        #expect(agreed > 0)
    }

    @Test("Data a CloudEvent scan validated decodes without validating it again, exactly as after validation")
    func dataValidatedByTheEnvelope() async throws {
        var decoded = 0
        // Half of them mutated: what the scan accepts must be all the decoder relies on.
        try await forEachRandomDocument(seed: 0xDA7A, rounds: 2_000, mutations: { $0 % 2 == 0 ? 0 : 1 + $0 % 3 }) {
            bytes in
            let message = Array(#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":"#.utf8) + bytes + [0x7D]
            var depth: Int?
            guard let event = try? CloudEvent(json: message, validatedDataDepth: &depth) else { return }
            let data = try #require(event.data)
            let depthKnown = try #require(depth)
            let trusted = try? WireJSONDecoder.decode(WireRandom.self, from: data, validatedDepth: depthKnown)
            let checked = try? WireJSONDecoder.decode(WireRandom.self, from: data)
            #expect(trusted == checked, "\(String(decoding: data, as: UTF8.self))")
            if trusted != nil { decoded += 1 }
        }
        #expect(decoded > 500)
    }

    @Test("Data deeper than the wire decoder reads is still decoded, by Foundation")
    func deepValidatedData() throws {
        let deep = String(repeating: "[", count: 300) + "1" + String(repeating: "]", count: 300)
        let message =
            Array(#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":"#.utf8) + Array(deep.utf8) + [0x7D]
        var depth: Int?
        let event = try CloudEvent(json: message, validatedDataDepth: &depth)
        #expect(depth == 301)
        let data = try #require(event.data)
        #expect(throws: WireJSONUnsupported.self) {
            try WireJSONDecoder.decode(WireDeepList.self, from: data, validatedDepth: depth)
        }
        let nested = try WireJSON.decode(WireDeepList.self, from: data, validatedDepth: depth)
        #expect(nested == (try JSONDecoder().decode(WireDeepList.self, from: Data(data))))
    }
}

/// Runs `body` on `rounds` random documents (Foundation's encoding of a `WireRandom`), the
/// document of round `n` mutated `mutations(n)` times, letting other tests run now and then.
func forEachRandomDocument(
    seed: UInt64, rounds: Int, mutations: (Int) -> Int, _ body: ([UInt8]) throws -> Void
) async throws {
    var generator = SeededGenerator(seed: seed)
    for round in 0..<rounds {
        await yieldNow(every: 50, at: round)
        var bytes = Array(try JSONEncoder().encode(WireRandom.make(using: &generator)))
        mutateJSON(&bytes, times: mutations(round), using: &generator)
        try body(bytes)
    }
}

/// Replaces, removes or inserts a byte `times` times, with bytes that matter to JSON.
func mutateJSON(_ bytes: inout [UInt8], times: Int, using generator: inout SeededGenerator) {
    let alphabet = Array("{}[]\",:\\0123456789.eE+- \nabtrufn".utf8)
    for _ in 0..<times where !bytes.isEmpty {
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: bytes[position] = alphabet.randomElement(using: &generator)!
        case 1: bytes.remove(at: position)
        default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
        }
    }
}

/// Arrays in arrays, as deep as the JSON goes, ending in an integer.
indirect enum WireDeepList: Codable, Equatable {
    case leaf(Int)
    case list([WireDeepList])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) {
            self = .leaf(value)
        } else {
            self = .list(try container.decode([WireDeepList].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .leaf(let value): try container.encode(value)
        case .list(let values): try container.encode(values)
        }
    }
}

/// A value with random contents for the randomized tests.
/// Reads `k0`, `k1`, ... as strings, each with `decode(_:forKey:)`, until one is missing.
struct WireStrings: Decodable, Equatable {
    var values: [String] = []

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireKelvin.Key.self)
        while container.contains(WireKelvin.Key(stringValue: "k\(values.count)")) {
            values.append(try container.decode(String.self, forKey: WireKelvin.Key(stringValue: "k\(values.count)")))
        }
    }
}

/// Reads one member by an ASCII key and by its canonical equivalent, the Kelvin sign.
struct WireKelvin: Decodable, Equatable {
    var plain: Int?
    var kelvin: Int?

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        plain = try container.decodeIfPresent(Int.self, forKey: Key(stringValue: "K"))
        kelvin = try container.decodeIfPresent(Int.self, forKey: Key(stringValue: "\u{212A}"))
    }
}

struct WireRandom: Codable, Equatable {
    var text: String
    var number: Double
    var count: Int
    var small: Int8?
    var flags: [Bool]
    var table: [String: UInt32]
    var child: [WireRandom]
    var shape: WireShape?

    static func make(using generator: inout SeededGenerator, depth: Int = 0) -> WireRandom {
        func text() -> String {
            let scalars = (0..<Int.random(in: 0..<12, using: &generator)).map { _ -> Character in
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: Character(Unicode.Scalar(UInt8.random(in: 0..<0x80, using: &generator)))
                case 1: Character(Unicode.Scalar(UInt32.random(in: 0x80..<0xD800, using: &generator))!)
                case 2: Character(Unicode.Scalar(UInt32.random(in: 0x1F300..<0x1F700, using: &generator))!)
                default: Character(Unicode.Scalar(Array("\"\\/\n\t ".utf8).randomElement(using: &generator)!))
                }
            }
            return String(scalars)
        }
        var number: Double
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            repeat {
                number = Double(bitPattern: generator.next())
            } while !number.isFinite
        case 1: number = Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 100
        default: number = Double.random(in: -1e20...1e20, using: &generator)
        }
        return WireRandom(
            text: text(), number: number, count: Int(truncatingIfNeeded: generator.next()),
            small: Bool.random(using: &generator) ? Int8.random(in: .min ... .max, using: &generator) : nil,
            flags: (0..<Int.random(in: 0..<3, using: &generator)).map { _ in Bool.random(using: &generator) },
            table: Dictionary(
                (0..<Int.random(in: 0..<3, using: &generator)).map { _ in
                    (text(), UInt32.random(in: 0 ... .max, using: &generator))
                },
                uniquingKeysWith: { first, _ in first }),
            child: depth < 2 && Bool.random(using: &generator) ? [make(using: &generator, depth: depth + 1)] : [],
            shape: [nil, .circle(radius: number), .rectangle(1, -1), .labelled(text(), tags: [text()]), .empty]
                .randomElement(using: &generator)!)
    }
}

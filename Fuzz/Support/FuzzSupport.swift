// Shared by every fuzz target: compiled into each target's module by scripts/fuzz.sh.

import Foundation

/// Stops the run with `message`; libFuzzer records the input that led here as a crash.
func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}

/// Fails the run unless `condition` holds.
func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}

/// Reads choices from the front of an input, and hands out the rest.
struct FuzzInput {
    let bytes: [UInt8]
    private(set) var position = 0

    init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = count > 0 ? Array(UnsafeBufferPointer(start: start, count: count)) : []
    }

    /// The next byte, or 0 when none is left.
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A choice among `count` options, from the next byte.
    mutating func choice(_ count: Int) -> Int {
        Int(byte()) % count
    }

    /// The bytes not read yet.
    var rest: [UInt8] { Array(bytes[min(position, bytes.count)...]) }
}

/// Counts outcomes and prints them now and then, so that a run shows what its inputs reach.
final class FuzzTally: @unchecked Sendable {
    // Why @unchecked is safe: libFuzzer calls the target on one thread; nothing else uses it.
    private var counts: [String: Int] = [:]
    private var total = 0

    func count(_ outcome: String) {
        counts[outcome, default: 0] += 1
        total += 1
        if total & (total - 1) == 0 && total >= 1024 {
            let parts = counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            FileHandle.standardError.write(Data("tally after \(total): \(parts.joined(separator: " "))\n".utf8))
        }
    }
}

/// Any JSON value, decoded through a single value container: a type that decodes every
/// document, for comparing decoders on all of them.
indirect enum AnyJSON: Codable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([AnyJSON])
    case object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([AnyJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: AnyJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// How deep the value is nested: 1 for a scalar or an empty container.
    var depth: Int {
        switch self {
        case .array(let elements): return 1 + (elements.map(\.depth).max() ?? 0)
        case .object(let members): return 1 + (members.values.map(\.depth).max() ?? 0)
        default: return 1
        }
    }
}

/// The JSON text's value as Foundation reads it (fragments allowed), or nil when it refuses.
func foundationTree(_ bytes: [UInt8]) -> NSObject? {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) as? NSObject
}

/// How deep a Foundation tree is nested: 1 for a scalar or an empty container.
func treeDepth(_ value: Any) -> Int {
    if let array = value as? [Any] { return 1 + (array.map(treeDepth).max() ?? 0) }
    if let object = value as? [String: Any] { return 1 + (object.values.map(treeDepth).max() ?? 0) }
    return 1
}

func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.prefix(400), as: UTF8.self)
}

/// A strict JSON reader written for the fuzzers from RFC 8259's grammar, as an oracle for the
/// scanners: no trailing commas, no leading zeros, no raw control characters in strings,
/// well-formed UTF-8 (RFC 3629) and paired surrogate escapes only. It builds nothing; it says
/// whether a text is one valid value, how deep it nests (1 for a scalar or an empty
/// container), and where the elements of a top-level array lie.
struct StrictJSON {
    let bytes: [UInt8]
    var index = 0
    var deepest = 0
    var topElements: [Range<Int>] = []

    /// The document's depth when it is exactly one valid value with whitespace around it.
    static func depth(of bytes: [UInt8]) -> Int? {
        var reader = StrictJSON(bytes: bytes)
        guard reader.document() else { return nil }
        return reader.deepest
    }

    /// The element ranges of a valid top-level array; nil for anything else.
    static func arrayElements(of bytes: [UInt8]) -> [Range<Int>]? {
        var reader = StrictJSON(bytes: bytes)
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "["), reader.document() else { return nil }
        return reader.topElements
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func document() -> Bool {
        skipWhitespace()
        guard value(depth: 1) else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    mutating func value(depth: Int) -> Bool {
        guard depth <= 600 else { return false }
        deepest = max(deepest, depth)
        switch peek {
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return true
            }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\""), string() else { return false }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                skipWhitespace()
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                guard let next = peek else { return false }
                index += 1
                if next == UInt8(ascii: "}") { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return true
            }
            while true {
                skipWhitespace()
                let start = index
                guard value(depth: depth + 1) else { return false }
                if depth == 1 { topElements.append(start..<index) }
                skipWhitespace()
                guard let next = peek else { return false }
                index += 1
                if next == UInt8(ascii: "]") { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "\""):
            return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    mutating func literal(_ text: String) -> Bool {
        let expected = Array(text.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            return false
        }
        index += expected.count
        return true
    }

    mutating func digits() -> Int {
        let start = index
        while let byte = peek, byte >= 0x30 && byte <= 0x39 { index += 1 }
        return index - start
    }

    mutating func number() -> Bool {
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else {
            guard let first = peek, first >= 0x31 && first <= 0x39 else { return false }
            _ = digits()
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        guard let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
            bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { return nil }
        index += 4
        return value
    }

    mutating func string() -> Bool {
        index += 1
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    guard let code = hex4() else { return false }
                    if (0xDC00...0xDFFF).contains(code) { return false }
                    if (0xD800...0xDBFF).contains(code) {
                        guard literal("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return false }
                    }
                default:
                    return false
                }
            case 0..<0x20:
                return false
            case 0x20..<0x80:
                index += 1
            default:
                // One UTF-8 sequence, checked by decoding it alone.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                guard bytes.count - index >= length,
                    String(validating: bytes[index..<index + length], as: UTF8.self)?.unicodeScalars.count == 1
                else { return false }
                index += length
            }
        }
        return false
    }
}

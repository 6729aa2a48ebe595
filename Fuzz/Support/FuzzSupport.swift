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

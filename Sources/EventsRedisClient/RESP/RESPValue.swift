/// One value of the Redis serialization protocol (RESP2), as a reply from the server.
///
/// Every reply of ``RedisClient`` and every Pub/Sub frame is a `RESPValue`. Match on the case
/// when the shape matters, or use the accessors (``string``, ``int``, ``array``, ``bytes``) when
/// you only need the payload:
///
/// ```swift
/// let reply = try await client.send("GET", "greeting")
/// if let text = reply.string { print(text) }   // nil when the key does not exist
/// ```
///
/// Rules:
/// - ``null`` stands for both the null bulk string (`$-1`) and the null array (`*-1`).
/// - ``error(_:)`` appears only inside pipeline results; single commands throw
///   ``RedisError/server(_:)`` instead.
public enum RESPValue: Sendable, Hashable {
    /// A simple string such as `OK` or `PONG`.
    case simpleString(String)
    /// An error reply such as `WRONGTYPE Operation against a key holding the wrong kind of value`.
    case error(String)
    /// A signed 64-bit integer.
    case integer(Int)
    /// A binary-safe bulk string, exactly as the server sent it.
    case bulkString([UInt8])
    /// The null bulk string or the null array: "no value".
    case null
    /// An array of values, possibly nested.
    case array([RESPValue])
}

extension RESPValue {
    /// The text of a simple or bulk string, decoded as UTF-8; `nil` for every other case.
    ///
    /// Invalid UTF-8 sequences in a bulk string are replaced with U+FFFD; use ``bytes`` for
    /// binary data.
    public var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The integer, or a simple or bulk string that spells a decimal integer; `nil` otherwise.
    public var int: Int? {
        switch self {
        case .integer(let value): value
        case .simpleString(let text): Int(text)
        case .bulkString(let bytes): Int(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }

    /// The elements of an array; `nil` for every other case, including ``null``.
    public var array: [RESPValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The raw bytes of a bulk string, or the UTF-8 bytes of a simple string; `nil` otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .bulkString(let bytes): bytes
        case .simpleString(let text): Array(text.utf8)
        default: nil
        }
    }

    /// A flat `[name, value, name, value ...]` array (as `CLUSTER SHARDS` and `XINFO` reply, or a
    /// RESP3 map read as one) as a dictionary by name; `nil` for anything else or an odd count.
    package var fields: [String: RESPValue]? {
        guard let items = array, items.count % 2 == 0 else { return nil }
        var fields: [String: RESPValue] = [:]
        var index = 0
        while index + 1 < items.count {
            if let name = items[index].string { fields[name] = items[index + 1] }
            index += 2
        }
        return fields
    }

    /// Whether this is the null bulk string or the null array.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension RESPValue: CustomStringConvertible {
    /// How many bytes of a bulk string ``description`` shows before it truncates.
    static let descriptionByteLimit = 64

    /// A short, readable rendering in the style of `redis-cli`, with long bulk strings
    /// truncated, for logs and test failures.
    public var description: String {
        switch self {
        case .simpleString(let text): return text
        case .error(let message): return "(error) \(message)"
        case .integer(let value): return "(integer) \(value)"
        case .null: return "(nil)"
        case .bulkString(let bytes): return Self.quoted(bytes)
        case .array(let elements):
            return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        }
    }

    private static func quoted(_ bytes: [UInt8]) -> String {
        var text = "\""
        for byte in bytes.prefix(descriptionByteLimit) {
            switch byte {
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\r"): text += "\\r"
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        text += "\""
        if bytes.count > descriptionByteLimit {
            text += "… (\(bytes.count) bytes)"
        }
        return text
    }
}

/// One argument of a Redis command: a binary-safe byte string.
///
/// A command is an array of arguments, the command name first. String and integer literals
/// become arguments on their own, so most commands read like `redis-cli` input:
///
/// ```swift
/// try await client.send("SET", "user:1", "Ada")
/// try await client.send("EXPIRE", "user:1", 60)
/// try await client.send(["SET", "blob", RedisArgument(bytes)])
/// ```
///
/// Rules: an argument is sent as a RESP bulk string, byte for byte, so it may hold any bytes,
/// including CR, LF and NUL. Integers are sent as their decimal text.
public struct RedisArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    // Strings and integers are kept as they are and written straight into the output buffer,
    // so building a command does not allocate a byte array per argument.
    enum Storage: Sendable, Hashable {
        case string(String)
        case bytes([UInt8])
        case integer(Int)
    }

    let storage: Storage

    /// An argument holding the UTF-8 bytes of `string`.
    public init(_ string: String) {
        storage = .string(string)
    }

    /// An argument holding the UTF-8 bytes of `substring`.
    public init(_ substring: Substring) {
        storage = .string(String(substring))
    }

    /// An argument holding `bytes` exactly.
    public init(_ bytes: [UInt8]) {
        storage = .bytes(bytes)
    }

    /// An argument holding the decimal text of `value`, such as `-42`.
    public init(_ value: Int) {
        storage = .integer(value)
    }

    public init(stringLiteral value: String) {
        storage = .string(value)
    }

    public init(integerLiteral value: Int) {
        storage = .integer(value)
    }

    /// The bytes this argument sends.
    public var bytes: [UInt8] {
        switch storage {
        case .string(let string): Array(string.utf8)
        case .bytes(let bytes): bytes
        case .integer(let value): Array(String(value).utf8)
        }
    }

    public static func == (lhs: RedisArgument, rhs: RedisArgument) -> Bool {
        lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
    }
}

extension RedisArgument: CustomStringConvertible {
    public var description: String {
        RESPValue.bulkString(bytes).description
    }
}

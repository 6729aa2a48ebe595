/// Everything that can go wrong when talking to Redis.
///
/// Every throwing API of the Redis client throws this type (typed throws), so a `catch` can
/// switch over the cases:
///
/// ```swift
/// do {
///     try await client.send("XGROUP", "CREATE", "orders", "workers", "$", "MKSTREAM")
/// } catch .server(let message) where message.hasPrefix("BUSYGROUP") {
///     // the group exists already: fine
/// }
/// ```
///
/// Rules:
/// - After ``timedOut(_:)``, ``protocolViolation(_:)``, ``frameTooLarge(limit:declared:)`` or
///   ``connectionClosed`` the connection is closed: replies still in flight on it are lost.
///   ``RedisClient`` opens a new connection for the next command; it never resends a command
///   by itself, because not every Redis command is safe to run twice.
/// - ``server(_:)`` leaves the connection usable: the server answered, with an error.
public enum RedisError: Error, Sendable, Hashable {
    /// No TCP connection could be made to `host:port` (refused, unreachable, unknown host).
    case connectFailed(host: String, port: Int, reason: String)
    /// The server closed the connection or it broke; replies in flight on it are lost.
    case connectionClosed
    /// An operation took longer than allowed: `"connect"`, `"reply"` or `"write"`.
    case timedOut(String)
    /// The server sent bytes that are not valid RESP2; the connection is closed afterwards.
    case protocolViolation(String)
    /// A reply declared a bulk string or array larger than ``RESPLimits`` allows; the
    /// connection is closed afterwards and nothing of that size is allocated.
    case frameTooLarge(limit: Int, declared: Int)
    /// The server answered with an error reply, such as `WRONGTYPE ...` or `NOGROUP ...`.
    /// The message is kept whole; ``serverErrorCode`` is its first word.
    case server(String)
    /// The server rejected the credentials of the configuration (`AUTH` failed).
    case authenticationFailed(String)
    /// A reply had a different shape than the helper that decodes it expects.
    case unexpectedReply(expected: String, got: String)
    /// The client or subscriber was closed with `close()`.
    case clientClosed
    /// The configuration cannot be used, for example a malformed `redis://` URL.
    case invalidConfiguration(String)
}

extension RedisError {
    /// The error code of a server error reply: its first word, such as `"WRONGTYPE"`,
    /// `"NOGROUP"` or `"BUSYGROUP"`; `nil` for every other case.
    public var serverErrorCode: String? {
        guard case .server(let message) = self else { return nil }
        let code = message.prefix { $0 != " " }
        return code.isEmpty ? nil : String(code)
    }

    /// Whether a new connection might succeed where this error happened: connection and
    /// timeout problems, as opposed to rejected credentials or a misbehaving server.
    var isRetryable: Bool {
        switch self {
        case .connectFailed, .connectionClosed, .timedOut: true
        case .server: serverErrorCode == "LOADING"  // the server is starting up
        default: false
        }
    }
}

extension RedisError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .connectFailed(let host, let port, let reason):
            "Could not connect to Redis at \(host):\(port): \(reason). Check that the server runs and the address is right."
        case .connectionClosed:
            "The Redis connection was closed or broke; replies in flight were lost. The next command reconnects."
        case .timedOut(let what):
            "Redis \(what) timed out; the connection was closed. For blocking commands pass a longer timeout."
        case .protocolViolation(let detail):
            "Redis sent a malformed reply (\(detail)); the connection was closed."
        case .frameTooLarge(let limit, let declared):
            "Redis reply declares \(declared) elements or bytes, over the limit of \(limit) (RESPLimits); the connection was closed."
        case .server(let message):
            "Redis error reply: \(message)"
        case .authenticationFailed(let message):
            "Redis authentication failed: \(message). Check the username and password of the configuration."
        case .unexpectedReply(let expected, let got):
            "Unexpected Redis reply: expected \(expected), got \(got)."
        case .clientClosed:
            "The Redis client was closed; create a new one to send more commands."
        case .invalidConfiguration(let detail):
            "Invalid Redis configuration: \(detail)"
        }
    }
}

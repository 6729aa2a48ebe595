/// Everything that can go wrong when talking to Redis.
///
/// Every throwing API of the Redis client throws this type (typed throws). An error carries a
/// ``code`` that says what kind of failure it is, and the details of that kind as properties
/// (``message`` of a server error reply, ``host`` and ``port`` of a failed connection, ...).
/// Match on the code, and keep a `default:` branch: new kinds of failure may be added in a
/// later release without breaking your `switch`.
///
/// ```swift
/// do {
///     try await client.send("XGROUP", "CREATE", "orders", "workers", "$", "MKSTREAM")
/// } catch {
///     switch error.code {
///     case .server where error.serverErrorCode == "BUSYGROUP":
///         break  // the group exists already: fine
///     case .connectFailed:
///         print("no Redis at \(error.host ?? "?"):\(error.port ?? 0): \(error.reason ?? "")")
///     default:
///         throw error
///     }
/// }
/// ```
///
/// Each kind of failure is made by a static member named after its code, with its details:
/// ``server(_:)``, ``connectFailed(host:port:reason:)``, ``connectionClosed`` and so on. Two
/// errors are equal when they have the same code and the same details.
///
/// Rules:
/// - After ``Code-swift.struct/timedOut``, ``Code-swift.struct/protocolViolation``,
///   ``Code-swift.struct/frameTooLarge`` or ``Code-swift.struct/connectionClosed`` the
///   connection is closed: replies still in flight on it are lost. ``RedisClient`` opens a new
///   connection for the next command; it never resends a command by itself, because not every
///   Redis command is safe to run twice.
/// - ``Code-swift.struct/server`` leaves the connection usable: the server answered, with an
///   error.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure a ``RedisError`` is: match on it with `switch error.code`.
    ///
    /// The codes are static members rather than enum cases, so that a later release can add one
    /// without breaking a `switch` that has a `default:` branch. Each code's details are
    /// properties of the error; the documentation of each code names them.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case connectFailed, connectionClosed, timedOut, protocolViolation, frameTooLarge, server
            case authenticationFailed, unexpectedReply, clientClosed, invalidConfiguration
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// No TCP connection could be made (refused, unreachable, unknown host): ``RedisError/host``,
        /// ``RedisError/port`` and ``RedisError/reason`` say where and why.
        public static let connectFailed = Code(.connectFailed)
        /// The server closed the connection or it broke; replies in flight on it are lost.
        public static let connectionClosed = Code(.connectionClosed)
        /// An operation took longer than allowed; ``RedisError/operation`` says which:
        /// `"connect"`, `"reply"` or `"write"`.
        public static let timedOut = Code(.timedOut)
        /// The server sent bytes that are not valid RESP2 (``RedisError/detail`` says how); the
        /// connection is closed afterwards.
        public static let protocolViolation = Code(.protocolViolation)
        /// A reply declared a bulk string or array larger than ``RESPLimits`` allows
        /// (``RedisError/declared`` against ``RedisError/limit``); the connection is closed
        /// afterwards and nothing of that size is allocated.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// The server answered with an error reply, such as `WRONGTYPE ...` or `NOGROUP ...`,
        /// kept whole in ``RedisError/message``; ``RedisError/serverErrorCode`` is its first word.
        public static let server = Code(.server)
        /// The server rejected the credentials of the configuration (`AUTH` failed);
        /// ``RedisError/message`` is its reply.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// A reply had a different shape than the helper that decodes it expects:
        /// ``RedisError/expected`` against what it ``RedisError/got``.
        public static let unexpectedReply = Code(.unexpectedReply)
        /// The client or subscriber was closed with `close()`.
        public static let clientClosed = Code(.clientClosed)
        /// The configuration cannot be used, for example a malformed `redis://` URL;
        /// ``RedisError/detail`` says what is wrong.
        public static let invalidConfiguration = Code(.invalidConfiguration)

        /// The code's name, as in `RedisError.Code.connectFailed`: `"connectFailed"`.
        public var description: String {
            switch value {
            case .connectFailed: "connectFailed"
            case .connectionClosed: "connectionClosed"
            case .timedOut: "timedOut"
            case .protocolViolation: "protocolViolation"
            case .frameTooLarge: "frameTooLarge"
            case .server: "server"
            case .authenticationFailed: "authenticationFailed"
            case .unexpectedReply: "unexpectedReply"
            case .clientClosed: "clientClosed"
            case .invalidConfiguration: "invalidConfiguration"
            }
        }
    }

    // The kind and its details together, so that no error can hold details of another kind,
    // and an error is no larger than the enum it was before.
    private enum Storage: Hashable, Sendable {
        case connectFailed(host: String, port: Int, reason: String)
        case connectionClosed
        case timedOut(String)
        case protocolViolation(String)
        case frameTooLarge(limit: Int, declared: Int)
        case server(String)
        case authenticationFailed(String)
        case unexpectedReply(expected: String, got: String)
        case clientClosed
        case invalidConfiguration(String)
    }

    private let storage: Storage

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// What kind of failure this is. Switch over it, with a `default:` branch.
    public var code: Code {
        switch storage {
        case .connectFailed: .connectFailed
        case .connectionClosed: .connectionClosed
        case .timedOut: .timedOut
        case .protocolViolation: .protocolViolation
        case .frameTooLarge: .frameTooLarge
        case .server: .server
        case .authenticationFailed: .authenticationFailed
        case .unexpectedReply: .unexpectedReply
        case .clientClosed: .clientClosed
        case .invalidConfiguration: .invalidConfiguration
        }
    }
}

// MARK: - Making errors

extension RedisError {
    /// No TCP connection could be made to `host:port` (refused, unreachable, unknown host).
    public static func connectFailed(host: String, port: Int, reason: String) -> RedisError {
        RedisError(.connectFailed(host: host, port: port, reason: reason))
    }

    /// The server closed the connection or it broke; replies in flight on it are lost.
    public static let connectionClosed = RedisError(.connectionClosed)

    /// An operation took longer than allowed: `"connect"`, `"reply"` or `"write"`.
    public static func timedOut(_ operation: String) -> RedisError {
        RedisError(.timedOut(operation))
    }

    /// The server sent bytes that are not valid RESP2; the connection is closed afterwards.
    public static func protocolViolation(_ detail: String) -> RedisError {
        RedisError(.protocolViolation(detail))
    }

    /// A reply declared a bulk string or array larger than ``RESPLimits`` allows; the
    /// connection is closed afterwards and nothing of that size is allocated.
    public static func frameTooLarge(limit: Int, declared: Int) -> RedisError {
        RedisError(.frameTooLarge(limit: limit, declared: declared))
    }

    /// The server answered with an error reply, such as `WRONGTYPE ...` or `NOGROUP ...`.
    /// The message is kept whole; ``serverErrorCode`` is its first word.
    public static func server(_ message: String) -> RedisError {
        RedisError(.server(message))
    }

    /// The server rejected the credentials of the configuration (`AUTH` failed).
    public static func authenticationFailed(_ message: String) -> RedisError {
        RedisError(.authenticationFailed(message))
    }

    /// A reply had a different shape than the helper that decodes it expects.
    public static func unexpectedReply(expected: String, got: String) -> RedisError {
        RedisError(.unexpectedReply(expected: expected, got: got))
    }

    /// The client or subscriber was closed with `close()`.
    public static let clientClosed = RedisError(.clientClosed)

    /// The configuration cannot be used, for example a malformed `redis://` URL.
    public static func invalidConfiguration(_ detail: String) -> RedisError {
        RedisError(.invalidConfiguration(detail))
    }
}

// MARK: - Details

extension RedisError {
    /// The host that could not be reached, for ``Code-swift.struct/connectFailed``; nil for
    /// every other code.
    public var host: String? {
        guard case .connectFailed(let host, _, _) = storage else { return nil }
        return host
    }

    /// The port that could not be reached, for ``Code-swift.struct/connectFailed``; nil for
    /// every other code.
    public var port: Int? {
        guard case .connectFailed(_, let port, _) = storage else { return nil }
        return port
    }

    /// Why no connection could be made (the system's or the TLS library's words), for
    /// ``Code-swift.struct/connectFailed``; nil for every other code.
    public var reason: String? {
        guard case .connectFailed(_, _, let reason) = storage else { return nil }
        return reason
    }

    /// What took too long, `"connect"`, `"reply"` or `"write"`, for
    /// ``Code-swift.struct/timedOut``; nil for every other code.
    public var operation: String? {
        guard case .timedOut(let operation) = storage else { return nil }
        return operation
    }

    /// What is wrong, for ``Code-swift.struct/protocolViolation`` (what the server sent) and
    /// ``Code-swift.struct/invalidConfiguration`` (what the configuration says); nil for every
    /// other code.
    public var detail: String? {
        switch storage {
        case .protocolViolation(let detail), .invalidConfiguration(let detail): detail
        default: nil
        }
    }

    /// The limit of ``RESPLimits`` that a reply exceeded, for
    /// ``Code-swift.struct/frameTooLarge``; nil for every other code.
    public var limit: Int? {
        guard case .frameTooLarge(let limit, _) = storage else { return nil }
        return limit
    }

    /// How many elements or bytes the reply declared, for ``Code-swift.struct/frameTooLarge``;
    /// nil for every other code.
    public var declared: Int? {
        guard case .frameTooLarge(_, let declared) = storage else { return nil }
        return declared
    }

    /// The server's reply, whole: the error reply for ``Code-swift.struct/server`` (such as
    /// `"WRONGTYPE Operation against a key holding the wrong kind of value"`) and the refusal
    /// for ``Code-swift.struct/authenticationFailed``; nil for every other code.
    public var message: String? {
        switch storage {
        case .server(let message), .authenticationFailed(let message): message
        default: nil
        }
    }

    /// The shape the decoding helper expected, for ``Code-swift.struct/unexpectedReply``; nil
    /// for every other code.
    public var expected: String? {
        guard case .unexpectedReply(let expected, _) = storage else { return nil }
        return expected
    }

    /// The reply the decoding helper got instead, for ``Code-swift.struct/unexpectedReply``;
    /// nil for every other code.
    public var got: String? {
        guard case .unexpectedReply(_, let got) = storage else { return nil }
        return got
    }

    /// The error code of a server error reply: its first word, such as `"WRONGTYPE"`,
    /// `"NOGROUP"` or `"BUSYGROUP"`; `nil` for every other code.
    public var serverErrorCode: String? {
        guard case .server(let message) = storage else { return nil }
        let code = message.prefix { $0 != " " }
        return code.isEmpty ? nil : String(code)
    }

    /// Whether a new connection might succeed where this error happened: connection and
    /// timeout problems, as opposed to rejected credentials or a misbehaving server.
    var isRetryable: Bool {
        switch storage {
        case .connectFailed, .connectionClosed, .timedOut: true
        case .server: serverErrorCode == "LOADING"  // the server is starting up
        default: false
        }
    }
}

// MARK: - Describing

extension RedisError {
    /// What went wrong and what to do about it, in a sentence or two, with the details.
    public var description: String {
        switch storage {
        case .connectFailed(let host, 0, let reason):
            // No one server: a Sentinel lookup names the master, a cluster "cluster".
            "Could not connect to Redis (\(host)): \(reason). Check that the servers run and the addresses are right."
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

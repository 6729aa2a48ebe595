import EventsRedisClient
import Testing

/// `RedisError` was an enum; it is a struct with a code now, so that a new kind of failure never
/// breaks a user's `switch`. These tests hold it to what the enum offered: every former case
/// is still made by a member of the same name, keeps its details and describes itself in the
/// same words.
@Suite("RedisError")
struct RedisErrorTests {
    /// Every kind of failure, made as the enum's cases were written, with the code it must
    /// carry and the description the enum gave, word for word.
    static let all: [(error: RedisError, code: RedisError.Code, description: String)] = [
        (
            .connectFailed(host: "cache", port: 6380, reason: "connection refused"), .connectFailed,
            "Could not connect to Redis at cache:6380: connection refused. Check that the server runs and the address is right."
        ),
        (
            .connectionClosed, .connectionClosed,
            "The Redis connection was closed or broke; replies in flight were lost. The next command reconnects."
        ),
        (
            .timedOut("reply"), .timedOut,
            "Redis reply timed out; the connection was closed. For blocking commands pass a longer timeout."
        ),
        (
            .protocolViolation("bad type byte"), .protocolViolation,
            "Redis sent a malformed reply (bad type byte); the connection was closed."
        ),
        (
            .frameTooLarge(limit: 10, declared: 20), .frameTooLarge,
            "Redis reply declares 20 elements or bytes, over the limit of 10 (RESPLimits); the connection was closed."
        ),
        (.server("WRONGTYPE wrong kind"), .server, "Redis error reply: WRONGTYPE wrong kind"),
        (
            .authenticationFailed("WRONGPASS invalid"), .authenticationFailed,
            "Redis authentication failed: WRONGPASS invalid. Check the username and password of the configuration."
        ),
        (
            .unexpectedReply(expected: "an array", got: "3"), .unexpectedReply,
            "Unexpected Redis reply: expected an array, got 3."
        ),
        (
            .clientClosed, .clientClosed,
            "The Redis client was closed; create a new one to send more commands."
        ),
        (.invalidConfiguration("no host"), .invalidConfiguration, "Invalid Redis configuration: no host"),
    ]

    @Test("each former case is made by a member of its name, carries its code and describes itself as before")
    func codesAndDescriptions() {
        for (error, code, description) in Self.all {
            #expect(error.code == code)
            #expect(error.description == description)
            #expect(String(describing: error) == description)
        }
    }

    @Test("a failure to find a server names what was looked for (a Sentinel master, a cluster), without a port")
    func connectFailureWithoutServer() {
        let error = RedisError.connectFailed(host: "orders", port: 0, reason: "no sentinel named the master")
        #expect(
            error.description
                == "Could not connect to Redis (orders): no sentinel named the master. Check that the servers run and the addresses are right."
        )
        #expect(error.port == 0 && error.host == "orders")
    }

    @Test("codes are distinct, and each describes itself by its name")
    func codeNames() {
        let codes = Self.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(
            codes.map(\.description) == [
                "connectFailed", "connectionClosed", "timedOut", "protocolViolation", "frameTooLarge", "server",
                "authenticationFailed", "unexpectedReply", "clientClosed", "invalidConfiguration",
            ])
    }

    @Test("the details of each kind are properties, nil for the other kinds")
    func details() {
        let connect = RedisError.connectFailed(host: "cache", port: 6380, reason: "refused")
        #expect(connect.host == "cache" && connect.port == 6380 && connect.reason == "refused")
        #expect(connect.message == nil && connect.detail == nil && connect.limit == nil)

        #expect(RedisError.timedOut("write").operation == "write")
        #expect(RedisError.protocolViolation("junk").detail == "junk")
        #expect(RedisError.invalidConfiguration("no host").detail == "no host")
        let large = RedisError.frameTooLarge(limit: 10, declared: 20)
        #expect(large.limit == 10 && large.declared == 20)
        #expect(RedisError.server("NOGROUP none").message == "NOGROUP none")
        #expect(RedisError.authenticationFailed("NOAUTH").message == "NOAUTH")
        let unexpected = RedisError.unexpectedReply(expected: "an array", got: "3")
        #expect(unexpected.expected == "an array" && unexpected.got == "3")
        for error in [RedisError.connectionClosed, .clientClosed] {
            #expect(error.host == nil && error.port == nil && error.reason == nil && error.operation == nil)
            #expect(error.detail == nil && error.limit == nil && error.declared == nil && error.message == nil)
            #expect(error.expected == nil && error.got == nil && error.serverErrorCode == nil)
        }
    }

    @Test("errors are equal when code and details are, and the server error code is the reply's first word")
    func equalityAndServerCode() {
        #expect(RedisError.server("BUSYGROUP exists") == .server("BUSYGROUP exists"))
        #expect(RedisError.server("BUSYGROUP exists") != .server("BUSYGROUP other"))
        #expect(RedisError.server("x") != .authenticationFailed("x"))
        #expect(RedisError.protocolViolation("x") != .invalidConfiguration("x"))
        #expect(Set(Self.all.map(\.error)).count == Self.all.count)
        #expect(RedisError.server("BUSYGROUP Consumer Group name already exists").serverErrorCode == "BUSYGROUP")
        #expect(RedisError.server("").serverErrorCode == nil)
    }

    @Test("a switch over the code, with a default branch, tells the kinds apart")
    func switchOverCode() {
        func kind(_ error: RedisError) -> String {
            switch error.code {
            case .server where error.serverErrorCode == "BUSYGROUP": "exists"
            case .server: "refused"
            case .connectFailed, .connectionClosed, .timedOut: "connection"
            default: "other"
            }
        }
        #expect(kind(.server("BUSYGROUP exists")) == "exists")
        #expect(kind(.server("WRONGTYPE")) == "refused")
        #expect(kind(.timedOut("connect")) == "connection")
        #expect(kind(.clientClosed) == "other")
    }
}

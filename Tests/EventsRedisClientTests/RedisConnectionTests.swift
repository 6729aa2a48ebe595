import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite(
    "Redis connection", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)),
    .timeLimit(.minutes(1)))
struct RedisConnectionTests {
    @Test("answers PING")
    func ping() throws {
        let server = try RedisServer()
        let connection = try RedisConnection.open(server.configuration)
        #expect(try connection.command(["PING"]) == .simpleString("PONG"))
        #expect(connection.isOpen)
        connection.close()
        #expect(!connection.isOpen)
        #expect(throws: RedisError.connectionClosed) { try connection.command(["PING"]) }
    }

    @Test("stores and returns binary values with CR, LF and NUL bytes")
    func binaryValues() throws {
        let server = try RedisServer()
        let connection = try RedisConnection.open(server.configuration)
        let value: [UInt8] = [0, 13, 10, 36, 45, 49, 13, 10, 0, 255, 42]
        let key: [UInt8] = [107, 0, 13, 10]
        #expect(try connection.command(["SET", RedisArgument(key), RedisArgument(value)]) == .simpleString("OK"))
        #expect(try connection.command(["GET", RedisArgument(key)]) == .bulkString(value))
        #expect(try connection.command(["GET", "missing"]) == .null)
    }

    @Test("round-trips a 1 MiB value")
    func largeValue() throws {
        let server = try RedisServer()
        let connection = try RedisConnection.open(server.configuration)
        let value = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try connection.command(["SET", "big", RedisArgument(value)])
        #expect(try connection.command(["GET", "big"]).bytes == value)
        #expect(try connection.command(["STRLEN", "big"]) == .integer(1 << 20))
    }

    @Test("pipelines 1,000 commands in one write and reads the replies in order")
    func pipelinesInOrder() throws {
        let server = try RedisServer()
        let connection = try RedisConnection.open(server.configuration)
        let commands: [[RedisArgument]] = (0..<1000).map { ["INCRBY", "counter", RedisArgument($0)] }
        let replies = try connection.pipeline(commands)
        var total = 0
        let expected = (0..<1000).map { index -> RESPValue in
            total += index
            return .integer(total)
        }
        #expect(replies == expected)
    }

    @Test("keeps error replies in place in a pipeline and throws them from command")
    func errorReplies() throws {
        let server = try RedisServer()
        let connection = try RedisConnection.open(server.configuration)
        let replies = try connection.pipeline([["SET", "s", "text"], ["LPUSH", "s", "x"], ["GET", "s"]])
        #expect(replies.count == 3)
        #expect(replies[0] == .simpleString("OK"))
        guard case .error(let message) = replies[1] else {
            Issue.record("expected an error reply, got \(replies[1])")
            return
        }
        #expect(message.hasPrefix("WRONGTYPE"))
        #expect(replies[2] == .bulkString(Array("text".utf8)))

        #expect {
            try connection.command(["LPUSH", "s", "x"])
        } throws: { error in
            (error as? RedisError)?.serverErrorCode == "WRONGTYPE"
        }
        // A server error leaves the connection usable.
        #expect(try connection.command(["PING"]) == .simpleString("PONG"))
    }

    @Test("times out a slow reply and closes the connection")
    func replyTimeout() throws {
        let server = try RedisServer()
        let connection = try RedisConnection.open(server.configuration)
        let start = ContinuousClock.now
        #expect(throws: RedisError.timedOut("reply")) {
            try connection.command(["BLPOP", "nokey", "20"], timeout: .milliseconds(100))
        }
        #expect(ContinuousClock.now - start < .seconds(10))  // the BLPOP would block for 20 s
        #expect(!connection.isOpen)
        #expect(throws: RedisError.connectionClosed) { try connection.command(["PING"]) }
    }

    @Test("waits longer than the reply timeout when a call asks for it")
    func longerPerCallTimeout() throws {
        let server = try RedisServer()
        var configuration = server.configuration
        configuration.replyTimeout = .milliseconds(50)
        let connection = try RedisConnection.open(configuration)
        #expect(try connection.command(["BLPOP", "nokey", "0.2"], timeout: .seconds(2)) == .null)
    }

    @Test("authenticates with a password, and reports a wrong one")
    func passwordAuthentication() throws {
        let server = try RedisServer(password: "s3cret")
        let connection = try RedisConnection.open(server.configuration)
        #expect(try connection.command(["PING"]) == .simpleString("PONG"))

        var wrong = server.configuration
        wrong.password = "nope"
        #expect {
            try RedisConnection.open(wrong)
        } throws: { error in
            guard let error = error as? RedisError, error.code == .authenticationFailed else { return false }
            return error.message?.hasPrefix("WRONGPASS") == true
        }

        var none = server.configuration
        none.password = nil
        #expect {
            try RedisConnection.open(none)
        } throws: { error in
            guard let error = error as? RedisError, error.code == .authenticationFailed else { return false }
            return error.message?.hasPrefix("NOAUTH") == true
        }
    }

    @Test("authenticates as an ACL user, and reports a wrong password")
    func aclAuthentication() throws {
        let server = try RedisServer(user: (name: "worker", password: "w0rk"))
        var configuration = server.configuration
        configuration.username = "worker"
        configuration.password = "w0rk"
        let connection = try RedisConnection.open(configuration)
        #expect(try connection.command(["ACL", "WHOAMI"]) == .bulkString(Array("worker".utf8)))

        configuration.password = "wrong"
        #expect {
            try RedisConnection.open(configuration)
        } throws: { error in
            if (error as? RedisError)?.code == .authenticationFailed { return true }
            return false
        }
    }

    @Test("selects the configured database")
    func selectsDatabase() throws {
        let server = try RedisServer()
        var configuration = server.configuration
        configuration.database = 3
        let database3 = try RedisConnection.open(configuration)
        try database3.command(["SET", "only-in-3", "yes"])
        #expect(try database3.command(["GET", "only-in-3"]) == .bulkString(Array("yes".utf8)))

        let database0 = try RedisConnection.open(server.configuration)
        #expect(try database0.command(["GET", "only-in-3"]) == .null)

        configuration.database = 99
        #expect {
            try RedisConnection.open(configuration)
        } throws: { error in
            (error as? RedisError)?.serverErrorCode == "ERR"
        }
    }

    @Test("sets the client name shown by CLIENT LIST")
    func setsClientName() throws {
        let server = try RedisServer()
        var configuration = server.configuration
        configuration.clientName = "orders-worker-7"
        let connection = try RedisConnection.open(configuration)
        let list = try connection.command(["CLIENT", "LIST"]).string ?? ""
        #expect(list.contains("name=orders-worker-7"))
    }

    @Test("connects through a host name")
    func connectsByHostName() throws {
        let server = try RedisServer()
        var configuration = server.configuration
        configuration.host = "localhost"  // may resolve to ::1 first, where nothing listens
        let connection = try RedisConnection.open(configuration)
        #expect(try connection.command(["PING"]) == .simpleString("PONG"))
    }

    @Test("reports a refused connection as connectFailed")
    func connectFailed() throws {
        let port = try TestSocket.freePort()
        #expect {
            try RedisConnection.open(RedisConfiguration(host: "127.0.0.1", port: port))
        } throws: { error in
            guard let error = error as? RedisError, error.code == .connectFailed else { return false }
            return error.host == "127.0.0.1" && error.port == port && error.reason?.contains("refused") == true
        }
    }
}

@Suite("Redis connection against a misbehaving server", .timeLimit(.minutes(1)))
struct RedisConnectionFaultTests {
    /// The error a PING fails with, on a fake server that passes the connection handshake and
    /// then answers with `reply`.
    private func failure(
        of reply: String, thenClose: Bool = false, limits: RESPLimits = RESPLimits()
    ) throws -> RedisError? {
        let server = try FakeRedisServer(replies: [Array("+PONG\r\n".utf8), Array(reply.utf8)], thenClose: thenClose)
        var configuration = RedisConfiguration(host: "127.0.0.1", port: server.port)
        configuration.limits = limits
        configuration.replyTimeout = .seconds(3)
        let connection = try RedisConnection.open(configuration)
        defer { #expect(!connection.isOpen, "the connection closes after a broken reply") }
        do {
            let value = try connection.command(["PING"])
            Issue.record("expected an error, got \(value)")
            return nil
        } catch {
            return error
        }
    }

    @Test("reports garbage as a protocol violation")
    func garbage() throws {
        #expect(try failure(of: "?garbage\r\n") == .protocolViolation("unknown type byte '?'"))
    }

    @Test("refuses a 10 GB bulk string from its header")
    func hugeBulkString() throws {
        #expect(try failure(of: "$10000000000\r\nabc") == .frameTooLarge(limit: 64 << 20, declared: 10_000_000_000))
    }

    @Test("refuses an array over the configured count")
    func hugeArray() throws {
        let limits = RESPLimits(maxArrayCount: 100)
        #expect(try failure(of: "*5000\r\n", limits: limits) == .frameTooLarge(limit: 100, declared: 5000))
    }

    @Test("reports a connection closed in the middle of a reply")
    func closedMidReply() throws {
        #expect(try failure(of: "$10\r\nabc", thenClose: true) == .connectionClosed)
    }

    @Test("reports garbage during the connection handshake")
    func garbageInHandshake() throws {
        let server = try FakeRedisServer(replies: [Array("+OK\r\n:x\r\n".utf8)], thenClose: false)
        var configuration = RedisConfiguration(host: "127.0.0.1", port: server.port)
        configuration.password = "secret"
        #expect(throws: RedisError.protocolViolation("invalid integer reply 'x'")) {
            try RedisConnection.open(configuration)
        }
    }
}

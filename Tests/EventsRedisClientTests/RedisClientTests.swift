import Dispatch
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite(
    "Redis client", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)),
    .timeLimit(.minutes(1)))
struct RedisClientTests {
    /// Whether `count` clients are blocked in a command on the server, asked on a side
    /// connection.
    private func blockedClients(_ server: RedisServer, count: Int) throws -> Bool {
        let connection = try RedisConnection.open(server.configuration)
        defer { connection.close() }
        let info = try connection.command(["INFO", "clients"]).string ?? ""
        return info.contains("blocked_clients:\(count)\r\n")
    }

    @Test("gives each of 200 concurrent tasks its own reply")
    func concurrentCallers() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let key = RedisArgument("key:\(index)")
                    let value = "value-\(index)-" + String(repeating: "x", count: index)
                    let set = try await client.send("SET", key, RedisArgument(value))
                    let get = try await client.send("GET", key)
                    let total = try await client.send("INCR", "total")
                    #expect(set == .simpleString("OK"))
                    #expect(get.string == value)
                    #expect(total.int != nil)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await client.send("GET", "total").int == 200)
        #expect(client.isConnected)
    }

    @Test("completes callback pipelines in order on its queue, and at once with clientClosed after close")
    func callbackPipelines() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        let results = Log<Result<[RESPValue], RedisError>>()
        for index in 0..<3 {
            client.pipeline([["INCR", "n"], ["ECHO", RedisArgument("call \(index)")]]) { results.append($0) }
        }
        #expect(await eventually { results.count == 3 })
        let replies = results.values.map { try? $0.get() }
        #expect(replies.map { $0?.first?.int } == [1, 2, 3], "FIFO, one completion each")
        #expect(replies.map { $0?.last?.string } == ["call 0", "call 1", "call 2"])

        client.close()
        client.pipeline([["PING"]]) { results.append($0) }
        #expect(results.count == 4)
        if case .failure(let error) = results.values.last {
            #expect(error == .clientClosed)
        } else {
            Issue.record("a closed client must fail the call")
        }
    }

    @Test("throws error replies as server errors and keeps them in pipelines")
    func errorReplies() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        try await client.send("SET", "s", "text")
        await #expect(throws: RedisError.self) { try await client.send("XADD") }
        do {
            try await client.send("LPUSH", "s", "x")
            Issue.record("expected a server error")
        } catch {
            #expect(error.serverErrorCode == "WRONGTYPE")
        }
        let replies = try await client.pipeline([["INCR", "n"], ["LPUSH", "s", "x"], ["INCR", "n"]])
        #expect(replies.count == 3)
        #expect(replies[0] == .integer(1))
        #expect(replies[1].string == nil && !replies[1].isNull)
        #expect(replies[2] == .integer(2))
        #expect(try await client.pipeline([]) == [])
    }

    @Test("fails the call in flight when the server dies, and reconnects for the next")
    func reconnectsAfterServerKill() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        try await client.send("SET", "kept", "in the append-only file")

        let blocked = Task { try await client.send(["BLPOP", "nokey", "10"], timeout: .seconds(20)) }
        #expect(try await eventually { try blockedClients(server, count: 1) })
        server.kill()
        let outcome = await blocked.result
        #expect(throws: RedisError.connectionClosed) { try outcome.get() }
        #expect(!client.isConnected)

        try server.restart()
        #expect(try await client.send("GET", "kept").string == "in the append-only file")
        #expect(client.isConnected)
    }

    @Test("notices a connection the server closed while idle before using it")
    func replacesStaleIdleConnection() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        #expect(try await client.send("PING") == .simpleString("PONG"))
        server.stop()
        try server.restart()
        // The old socket is dead; the command must go out on a new one, not fail.
        #expect(try await client.send("PING") == .simpleString("PONG"))
    }

    @Test("waits for a server that comes up within the call's deadline")
    func waitsForServer() async throws {
        let server = try RedisServer()
        server.stop()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let call = Task { try await client.send("PING") }
        // The server comes back only once the client's worker has taken the call and begun to
        // connect: its attempts until the server listens again are refused.
        #expect(
            await eventually { client.state.withLock { $0.isDraining && $0.pending.isEmpty } },
            "the worker took the call")
        try server.restart()
        #expect(try await call.value == .simpleString("PONG"))
    }

    @Test("opening a connection makes maxAttempts attempts, then throws the connection error")
    func openingCountsAttempts() throws {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: try TestSocket.freePort())
        configuration.reconnect = RedisReconnectPolicy(initialDelay: .milliseconds(5), maxAttempts: 3)
        var retries = 0
        #expect {
            try RedisConnection.openRetrying(
                configuration, sleeper: DispatchSemaphore(value: 0), isCancelled: { false },
                shouldRetry: { _, _ in
                    retries += 1
                    return true
                })
        } throws: { error in
            guard (error as? RedisError)?.code == .connectFailed else { return false }
            return true
        }
        #expect(retries == 2)  // a retry after each of the first two failures, none after the third
    }

    @Test("gives up after maxAttempts with the connection error")
    func givesUpAfterMaxAttempts() async throws {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: try TestSocket.freePort())
        configuration.reconnect = RedisReconnectPolicy(initialDelay: .milliseconds(5), maxAttempts: 3)
        // Without maxAttempts the client would retry until the call's deadline, 45 s from now.
        configuration.connectTimeout = .seconds(40)
        let client = RedisClient(configuration)
        defer { client.close() }
        let start = ContinuousClock.now
        do {
            try await client.send("PING")
            Issue.record("expected a connection error")
        } catch {
            guard error.code == .connectFailed else {
                Issue.record("expected connectFailed, got \(error)")
                return
            }
        }
        // Three refused connects and two short backoffs take milliseconds; the bound only proves
        // that the client gave up before its deadline, with room for a loaded machine (11 s was
        // seen under the thread sanitizer, the whole suite running in parallel on 2 cores).
        #expect(ContinuousClock.now - start < .seconds(25))
    }

    @Test("reports rejected credentials at once")
    func rejectsBadPassword() async throws {
        let server = try RedisServer(password: "right")
        var configuration = server.configuration
        configuration.password = "wrong"
        let client = RedisClient(configuration)
        defer { client.close() }
        await #expect {
            try await client.send("PING")
        } throws: { error in
            if (error as? RedisError)?.code == .authenticationFailed { return true }
            return false
        }
    }

    @Test("times out a slow reply, then reconnects for the next call")
    func timeoutThenReconnect() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        await #expect(throws: RedisError.timedOut("reply")) {
            try await client.send(["BLPOP", "nokey", "5"], timeout: .milliseconds(50))
        }
        #expect(try await client.send(["BLPOP", "nokey", "0.05"], timeout: .seconds(2)) == .null)
        #expect(try await client.send("PING") == .simpleString("PONG"))
    }

    @Test("close ends the call in flight promptly and rejects later calls")
    func closeRejectsCalls() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        #expect(try await client.send("PING") == .simpleString("PONG"))
        let blocked = Task { try await client.send(["BLPOP", "nokey", "40"], timeout: .seconds(50)) }
        #expect(try await eventually { try blockedClients(server, count: 1) })
        let start = ContinuousClock.now
        client.close()
        let outcome = await blocked.result
        #expect(throws: RedisError.clientClosed) { try outcome.get() }
        // Far below the 40 s the BLPOP would block, with room for a loaded machine.
        #expect(ContinuousClock.now - start < .seconds(20))
        await #expect(throws: RedisError.clientClosed) { try await client.send("PING") }
        await #expect(throws: RedisError.clientClosed) { try await client.pipeline([["PING"]]) }
        #expect(!client.isConnected)
        client.close()  // idempotent
    }

    @Test("runs dependent round trips on the client's connection")
    func withConnection() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let value = try client.withConnection { connection throws(RedisError) in
            try connection.command(["SET", "a", "1"])
            return try connection.command(["GET", "a"])
        }
        #expect(value.string == "1")
        #expect(try await client.send("GET", "a").string == "1")
    }

    @Test("a pipeline can hand its last reply's RESP bytes, verbatim, to a parser, after the others' values")
    func verbatimLastReply() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let (replies, last) = try await client.pipeline(
            [["SET", "k", "v\r\n"], ["RPUSH", "list", "a", "b"], ["LRANGE", "list", "0", "-1"]],
            parsingLastReply: { Array($0) })
        #expect(replies == [.simpleString("OK"), .integer(2)])
        #expect(last == Array("*2\r\n$1\r\na\r\n$1\r\nb\r\n".utf8))
        let (none, error) = try await client.pipeline([["GET", "k", "extra"]], parsingLastReply: { Array($0) })
        #expect(none.isEmpty && error.first == UInt8(ascii: "-"), "an error reply comes back verbatim too")
        client.close()
        await #expect(throws: RedisError.clientClosed) {
            _ = try await client.pipeline([["PING"]], parsingLastReply: { Array($0) })
        }
    }

    @Test("commands written in RESP up front go out in one pipeline and get their replies in order")
    func encodedPipeline() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        var bytes: [UInt8] = []
        RESPEncoder.encode([["SET", "k", "1"], ["INCR", "k"], ["GET", "missing", "extra"]], into: &bytes)
        let replies = await withCheckedContinuation { continuation in
            client.pipeline(.encoded(bytes, count: 3), completion: { continuation.resume(returning: $0) })
        }
        let values = try replies.get()
        #expect(values.count == 3 && values[0] == .simpleString("OK") && values[1] == .integer(2))
        guard case .error = values[2] else {
            Issue.record("expected an error reply, got \(values[2])")
            return
        }
        #expect(try await client.send("GET", "k").string == "2", "the connection is in step after them")
    }

    @Test("commands written by a function go out in one pipeline; their replies come back as verdicts, in order")
    func writtenPipelineWithVerdicts() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let commands: [[RedisArgument]] = [
            ["SET", "k", "1"], ["XADD", "s", "*", "f", "v"], ["INCR", "s"], ["GET", "missing", "extra"], ["INCR", "k"],
        ]
        let verdicts = await withCheckedContinuation { continuation in
            client.pipeline(
                .written(count: commands.count) { RESPEncoder.encode(commands, into: &$0) },
                verdicts: { continuation.resume(returning: $0) })
        }
        let values = try verdicts.get()
        #expect(values.count == 5)
        #expect(values[0] == .accepted && values[1] == .accepted && values[4] == .counted(2))
        // The texts are Redis's own error replies, without the leading "-" or the CRLF.
        guard case .refused(let wrongType) = values[2], case .refused(let arity) = values[3] else {
            Issue.record("expected two refusals, got \(values)")
            return
        }
        #expect(wrongType.hasPrefix("WRONGTYPE "))
        #expect(arity.hasPrefix("ERR ") && arity.contains("get") && !arity.hasSuffix("\r\n"))
        #expect(try await client.send("GET", "k").string == "2", "the connection is in step after them")
        client.close()
        let closed = await withCheckedContinuation { continuation in
            client.pipeline(
                .encoded(Array("*1\r\n$4\r\nPING\r\n".utf8), count: 1), verdicts: { continuation.resume(returning: $0) }
            )
        }
        #expect(throws: RedisError.clientClosed) { try closed.get() }
    }
}

import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite(
    "Redis Pub/Sub", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)),
    .timeLimit(.minutes(1)))
struct RedisPubSubTests {
    /// How many subscribers the server counts on `channel`.
    private func subscriberCount(_ client: RedisClient, _ channel: String) async throws -> Int {
        let reply = try await client.send("PUBSUB", "NUMSUB", RedisArgument(channel))
        return reply.array?.last?.int ?? -1
    }

    @Test("delivers messages published by a client, in order")
    func deliversInOrder() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let subscriber = RedisSubscriber(server.configuration)
        var events = subscriber.events(channels: ["orders", "other"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "orders", count: 1))
        #expect(try await events.next() == .subscribed(name: "other", count: 2))

        for index in 0..<100 {
            try await client.send("PUBLISH", "orders", RedisArgument("order \(index)"))
        }
        let binary: [UInt8] = [0, 13, 10, 255]
        try await client.send("PUBLISH", "other", RedisArgument(binary))
        for index in 0..<100 {
            let expected = RedisPubSubMessage(channel: "orders", payload: Array("order \(index)".utf8))
            #expect(try await events.next() == .message(expected))
        }
        #expect(try await events.next() == .message(RedisPubSubMessage(channel: "other", payload: binary)))
        subscriber.close()
        #expect(try await events.next() == nil)
    }

    @Test("delivers messages matching a pattern, with the pattern")
    func patternSubscription() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let subscriber = RedisSubscriber(server.configuration)
        defer { subscriber.close() }
        var events = subscriber.events(channels: [], patterns: ["news.*"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "news.*", count: 1))
        try await client.send("PUBLISH", "weather.today", "ignored")
        try await client.send("PUBLISH", "news.sport", "goal")
        let message = RedisPubSubMessage(channel: "news.sport", pattern: "news.*", payload: Array("goal".utf8))
        #expect(try await events.next() == .message(message))
    }

    @Test("streams only messages from messages(channels:)")
    func messagesStream() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let subscriber = RedisSubscriber(server.configuration)
        defer { subscriber.close() }
        var messages = subscriber.messages(channels: ["jobs"]).makeAsyncIterator()
        // Without subscription events, wait until the server counts the subscriber.
        #expect(try await eventually { try await subscriberCount(client, "jobs") == 1 })
        try await client.send("PUBLISH", "jobs", "first")
        try await client.send("PUBLISH", "jobs", "second")
        #expect(try await messages.next()?.string == "first")
        #expect(try await messages.next()?.string == "second")
    }

    @Test("reconnects and subscribes again after the server dies, and reports the gap")
    func reconnectsAfterServerKill() async throws {
        let server = try RedisServer()
        let subscriber = RedisSubscriber(server.configuration)
        defer { subscriber.close() }
        var events = subscriber.events(channels: ["alerts"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "alerts", count: 1))

        server.kill()
        try server.restart()
        let client = RedisClient(server.configuration)
        defer { client.close() }

        guard case .reconnected(let cause)? = try await events.next() else {
            Issue.record("expected a reconnected event")
            return
        }
        #expect(cause == .connectionClosed)
        #expect(try await events.next() == .subscribed(name: "alerts", count: 1))
        #expect(subscriber.reconnectCount == 1)
        try await client.send("PUBLISH", "alerts", "after restart")
        #expect(
            try await events.next()
                == .message(RedisPubSubMessage(channel: "alerts", payload: Array("after restart".utf8))))
    }

    @Test("cancelling the consuming task closes the subscription's connection")
    func cancellationStops() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let subscriber = RedisSubscriber(server.configuration)
        let consumer = Task {
            var count = 0
            for try await _ in subscriber.messages(channels: ["ticks"]) { count += 1 }
            return count
        }
        #expect(try await eventually { try await subscriberCount(client, "ticks") == 1 })
        consumer.cancel()
        _ = try? await consumer.value
        #expect(try await eventually { try await subscriberCount(client, "ticks") == 0 })
    }

    @Test("close ends every stream without an error, and later streams with clientClosed")
    func closeEndsStreams() async throws {
        let server = try RedisServer()
        let subscriber = RedisSubscriber(server.configuration)
        var events = subscriber.events(channels: ["a"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "a", count: 1))
        let start = ContinuousClock.now
        subscriber.close()
        #expect(try await events.next() == nil)
        #expect(ContinuousClock.now - start < .seconds(20))  // without close the stream never ends

        var late = subscriber.messages(channels: ["a"]).makeAsyncIterator()
        await #expect(throws: RedisError.clientClosed) { try await late.next() }
    }

    @Test("ends the stream with a typed error on rejected credentials")
    func rejectedCredentials() async throws {
        let server = try RedisServer(password: "right")
        var configuration = server.configuration
        configuration.password = "wrong"
        var events = RedisSubscriber(configuration).events(channels: ["a"]).makeAsyncIterator()
        await #expect {
            try await events.next()
        } throws: { error in
            if (error as? RedisError)?.code == .authenticationFailed { return true }
            return false
        }
    }
}

@Suite("Redis Pub/Sub frames", .timeLimit(.minutes(1)))
struct RedisPubSubFrameTests {
    private func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }

    @Test("decodes messages, pattern messages and confirmations")
    func decodesFrames() throws {
        #expect(
            try RedisSubscription.event(from: .array([bulk("message"), bulk("c"), bulk("hi")]))
                == .message(RedisPubSubMessage(channel: "c", payload: Array("hi".utf8))))
        #expect(
            try RedisSubscription.event(from: .array([bulk("pmessage"), bulk("c.*"), bulk("c.1"), bulk("x")]))
                == .message(RedisPubSubMessage(channel: "c.1", pattern: "c.*", payload: Array("x".utf8))))
        #expect(
            try RedisSubscription.event(from: .array([bulk("subscribe"), bulk("c"), .integer(2)]))
                == .subscribed(name: "c", count: 2))
        #expect(try RedisSubscription.event(from: .array([bulk("pong"), bulk("")])) == nil)
    }

    @Test(
        "rejects malformed frames with a typed error",
        arguments: [
            RESPValue.integer(1), .null, .array([]), .array([.integer(1), .integer(2), .integer(3)]),
            .array([.bulkString(Array("message".utf8)), .bulkString(Array("c".utf8))]),
            .array([.bulkString(Array("message".utf8)), .integer(1), .bulkString([])]),
            .array([.bulkString(Array("subscribe".utf8)), .bulkString(Array("c".utf8)), .bulkString([])]),
            .array([.bulkString(Array("hello".utf8)), .integer(1)]),
        ])
    func rejectsMalformedFrames(frame: RESPValue) {
        #expect {
            try RedisSubscription.event(from: frame)
        } throws: { error in
            if (error as? RedisError)?.code == .protocolViolation { return true }
            return false
        }
    }

    @Test("ends the stream with protocolViolation when the server pushes a malformed frame")
    func malformedPushEndsStream() async throws {
        let confirmation = "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"
        let malformed = "*2\r\n$5\r\nhello\r\n:1\r\n"
        let server = try FakeRedisServer(
            replies: [Array("+PONG\r\n".utf8), Array((confirmation + malformed).utf8)], thenClose: false)
        let subscriber = RedisSubscriber(RedisConfiguration(host: "127.0.0.1", port: server.port))
        var events = subscriber.events(channels: ["c"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "c", count: 1))
        await #expect {
            try await events.next()
        } throws: { error in
            if (error as? RedisError)?.code == .protocolViolation { return true }
            return false
        }
    }

    @Test("refuses a subscription to nothing")
    func emptySubscription() async {
        var events = RedisSubscriber(RedisConfiguration()).events(channels: []).makeAsyncIterator()
        await #expect {
            try await events.next()
        } throws: { error in
            if (error as? RedisError)?.code == .invalidConfiguration { return true }
            return false
        }
    }
}

@Suite("Redis Pub/Sub health check", .timeLimit(.minutes(1)))
struct RedisPubSubHealthCheckTests {
    /// What a scripted server saw of its one subscriber, in seconds after it confirmed the
    /// subscription.
    private struct Observation: Sendable {
        var ping: Double?
        var hangUp: Double?
    }

    @Test("After a silence a subscriber pings, and gives the connection up when the ping goes unanswered")
    func pingsAfterSilenceAndGivesUpUnanswered() async throws {
        let (listener, port) = try TestSocket.listen()
        defer { TestSocket.closeDescriptor(listener) }
        let observations = Log<Observation>()
        let serverDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { serverDone.signal() }
            guard let client = TestSocket.acceptClient(listener, milliseconds: 5_000) else { return }
            defer { TestSocket.closeDescriptor(client) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            func receive() -> [UInt8]? {
                guard TestSocket.waitReadable(client, milliseconds: 5_000) else { return nil }
                let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                return count > 0 ? Array(buffer[..<count]) : []
            }
            // The handshake's PING, then SUBSCRIBE; then silence.
            guard receive() != nil else { return }
            TestSocket.writeAll(client, Array("+PONG\r\n".utf8))
            guard receive() != nil else { return }
            TestSocket.writeAll(client, Array("*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n".utf8))
            let confirmed = ContinuousClock.now
            func since() -> Double {
                let elapsed = (ContinuousClock.now - confirmed).components
                return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            }
            var observation = Observation()
            if let request = receive(), String(decoding: request, as: UTF8.self).contains("PING") {
                observation.ping = since()
                // Unanswered: the subscriber must hang up.
                if receive() == [] { observation.hangUp = since() }
            }
            observations.append(observation)
        }
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
        configuration.replyTimeout = .milliseconds(500)
        let subscriber = RedisSubscriber(configuration, healthCheckInterval: .milliseconds(600))
        defer { subscriber.close() }
        var events = subscriber.events(channels: ["c"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "c", count: 1))
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = serverDone.wait(timeout: .now() + 15)
                continuation.resume()
            }
        }
        let observation = try #require(observations.values.first)
        let ping = try #require(observation.ping, "no PING after the silence")
        // The interval, plus up to two read slices (250 ms each) before the silence is noticed.
        #expect(ping >= 0.5 && ping < 2.0, "PING after \(ping) s of silence")
        let hangUp = try #require(observation.hangUp, "the connection was kept after an unanswered PING")
        #expect(hangUp - ping >= 0.4 && hangUp - ping < 2.0, "gave up \(hangUp - ping) s after the PING")
    }
}

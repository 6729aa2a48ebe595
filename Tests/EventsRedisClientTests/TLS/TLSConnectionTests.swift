import EventsRedisTLS
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite(
    "Redis over TLS: verified connections",
    .enabled(if: TLSCertificates.isAvailable(), Comment(rawValue: TLSCertificates.skipReason)),
    .timeLimit(.minutes(1)))
struct TLSConnectionTests {
    @Test("a connection verified against the test authority runs commands and pipelines")
    func commandsAndPipelines() throws {
        let server = try TLSTestSupport.server()
        let connection = try RedisConnection.open(server.configuration)
        defer { connection.close() }
        #expect(try connection.command(["SET", "greeting", "hello over TLS"]) == .simpleString("OK"))
        #expect(try connection.command(["GET", "greeting"]).string == "hello over TLS")
        // A reply larger than one TLS record (16 KiB) and the read buffer, pipelined behind others.
        let large = [UInt8](repeating: UInt8(ascii: "x"), count: 200_000)
        let replies = try connection.pipeline([
            ["SET", "large", RedisArgument(large)], ["GET", "large"], ["INCR", "hits"], ["INCR", "hits"],
        ])
        #expect(replies.count == 4)
        #expect(replies[1].bytes == large)
        #expect(replies[3] == .integer(2))
        // The server saw a TLS connection: the plain port is off (--port 0).
        let info = try connection.command(["CONFIG", "GET", "port"])
        #expect(info.array?.last?.string == "0")
    }

    @Test("the async client works over TLS, reuses its connection while idle, and reconnects after a restart")
    func clientReusesAndReconnects() async throws {
        let server = try TLSTestSupport.server()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let first = try await client.send("CLIENT", "ID").int
        // Between two calls the server's TLS session tickets (sent after the handshake) must not
        // read as unexpected input that would make the client drop an idle connection.
        let second = try await client.send("CLIENT", "ID").int
        #expect(first != nil && first == second)
        let replies = try await client.pipeline([["SET", "k", "v"], ["GET", "k"]])
        #expect(replies.last?.string == "v")

        server.stop()
        try server.restart()
        #expect(try await client.send("GET", "k").string == "v")
        #expect(try await client.send("CLIENT", "ID").int != first)
    }

    @Test("a Pub/Sub subscriber over TLS receives messages in order and resubscribes after a restart")
    func subscriber() async throws {
        let server = try TLSTestSupport.server()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        let subscriber = RedisSubscriber(server.configuration)
        defer { subscriber.close() }
        var events = subscriber.events(channels: ["orders"]).makeAsyncIterator()
        #expect(try await events.next() == .subscribed(name: "orders", count: 1))
        for index in 0..<50 {
            try await client.send("PUBLISH", "orders", RedisArgument("order \(index)"))
        }
        for index in 0..<50 {
            #expect(
                try await events.next()
                    == .message(RedisPubSubMessage(channel: "orders", payload: Array("order \(index)".utf8))))
        }

        server.kill()
        try server.restart()
        guard case .reconnected? = try await events.next() else {
            Issue.record("expected a reconnected event")
            return
        }
        #expect(try await events.next() == .subscribed(name: "orders", count: 1))
        try await client.send("PUBLISH", "orders", "after restart")
        #expect(
            try await events.next()
                == .message(RedisPubSubMessage(channel: "orders", payload: Array("after restart".utf8))))
    }

    @Test("close() wakes a client blocked in a read over TLS")
    func closeInterruptsABlockedRead() async throws {
        let server = try TLSTestSupport.server()
        let client = RedisClient(server.configuration)
        _ = try await client.send("PING")
        let blocked = Task { () -> RedisError? in
            do throws(RedisError) {
                _ = try await client.send(["BLPOP", "never-filled", "30"], timeout: .seconds(40))
                return nil
            } catch {
                return error
            }
        }
        let watcher = RedisClient(server.configuration)
        defer { watcher.close() }
        #expect(
            try await eventually {
                let clients = try await watcher.send("CLIENT", "LIST").string ?? ""
                return clients.contains("cmd=blpop")
            })
        client.close()
        // Without the interruption the read would wait for BLPOP's 30 s, past the time limit.
        #expect(await blocked.value == .clientClosed)
    }

    @Test("a server name given explicitly, a CA given as PEM text and the system store all plug in")
    func trustAndNameSettings() throws {
        let server = try TLSTestSupport.server()
        let certificates = try TLSTestSupport.certificates()
        var byName = server.configuration
        byName.host = "localhost"  // verified as a DNS name, sent as SNI
        #expect(connectionError(byName) == nil)

        var pem = server.configuration
        let authority = try String(contentsOfFile: certificates.authorityFile, encoding: .utf8)
        let client = try String(contentsOfFile: certificates.clientCertificateFile, encoding: .utf8)
        let key = try String(contentsOfFile: certificates.clientKeyFile, encoding: .utf8)
        pem.tls = .init(
            trust: .certificateAuthorityPEM(authority), serverName: "127.0.0.1",
            clientCertificate: .pem(certificate: client, key: key))
        #expect(connectionError(pem) == nil)

        var anything = server.configuration
        anything.tls?.trust = .dangerouslyAcceptAnyCertificate
        anything.tls?.serverName = "not.the.name"
        #expect(connectionError(anything) == nil)

        // The system store does not hold the throwaway authority.
        var system = server.configuration
        system.tls?.trust = .system
        #expect(connectionError(system)?.connectFailureReason?.contains("certificate was rejected") == true)
    }
}

import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

/// Closing a client or a subscriber while its connection is still shaking hands with a server
/// that never answers: the handshake is interrupted like any other read, instead of holding the
/// caller for the whole reply timeout.
@Suite(
    "Closing while connecting to a silent server",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct SilentServerCloseTests {
    /// A configuration through a proxy that swallows every byte, with a reply timeout far
    /// longer than any wait below: only an interruption can end the handshake soon.
    private func silentConfiguration(_ server: RedisServer, _ proxy: FaultProxy) -> RedisConfiguration {
        proxy.mode = .blackHole
        var configuration = server.configuration
        configuration.port = proxy.port
        configuration.replyTimeout = .seconds(120)
        return configuration
    }

    @Test("close() ends a call whose connection is in its handshake, with clientClosed")
    func clientCloseEndsHandshake() async throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        let client = RedisClient(silentConfiguration(server, proxy))
        let call = Task { try await client.send("PING") }
        #expect(await eventually { proxy.openCount > 0 }, "the client connected and sent its handshake")
        let began = ContinuousClock.now
        client.close()
        let outcome = await call.result
        #expect(throws: RedisError.clientClosed) { try outcome.get() }
        // Far below the two minutes the handshake's reply could take, with room for a loaded machine.
        #expect(ContinuousClock.now - began < .seconds(30))
        #expect(!client.isConnected)
    }

    /// Plain, or as a sharded subscription on a cluster whose one node is behind the proxy: the
    /// handshake with the node it asks for the slot map never ends either.
    @Test(
        "close() ends a subscription whose connection is in its handshake, without an error",
        arguments: [false, true])
    func subscriberCloseEndsHandshake(onCluster: Bool) async throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        var configuration = silentConfiguration(server, proxy)
        if onCluster {
            configuration.cluster = RedisClusterConfiguration(nodes: [.init(host: "127.0.0.1", port: proxy.port)])
        }
        let subscriber = RedisSubscriber(configuration)
        let ended = Task { () -> Result<Int, any Error> in
            var count = 0
            do {
                for try await _ in subscriber.events(channels: ["silent"]) { count += 1 }
                return .success(count)
            } catch {
                return .failure(error)
            }
        }
        #expect(await eventually { proxy.openCount > 0 }, "the subscriber connected and sent its handshake")
        let began = ContinuousClock.now
        subscriber.close()
        let outcome = await ended.value
        #expect((try? outcome.get()) == 0, "the stream ends without an error or an event: \(outcome)")
        #expect(ContinuousClock.now - began < .seconds(30))
    }
}

import Events
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite(
    "Redis bridge over TLS",
    .enabled(if: TLSCertificates.isAvailable(), Comment(rawValue: TLSCertificates.skipReason)),
    .timeLimit(.minutes(1)))
struct TLSBridgeTests {
    @Test("stream events cross a mutual-TLS server, and flow again after the server is stopped and started again")
    func streamsAcrossARestart() async throws {
        let server = try TLSTestSupport.server(requiresClientCertificates: true)
        let errors = ErrorLog()
        let pair = try await StreamPair(server, errors: errors)
        pair.publish(1...50)
        #expect(await eventually { Set(pair.received.values) == Set(1...50) })
        server.stop()
        try server.restart()
        pair.publish(51...100)
        #expect(await eventually { Set(pair.received.values) == Set(1...100) })
        #expect(pair.received.count == 100, "no event twice")
        await pair.stop()
    }

    @Test("Pub/Sub events cross a TLS server, and flow again after the server is stopped and started again")
    func pubSubAcrossARestart() async throws {
        let server = try TLSTestSupport.server()
        let errors = ErrorLog()
        let sending = EventCenter()
        let receiving = EventCenter()
        let received = Log<Int>()
        let listener = receiving.listen(to: PubSubSequenced.self) { received.append($0.n) }
        defer { listener.cancel() }
        let receiver = RedisBridge(
            center: receiving, configuration: bridgeConfiguration(server, source: "r", errors: errors))
        try receiver.carry(PubSubSequenced.self, mode: .pubSub)
        try await receiver.start()
        let sender = RedisBridge(
            center: sending, configuration: bridgeConfiguration(server, source: "s", errors: errors))
        try sender.carry(PubSubSequenced.self, mode: .pubSub)
        try await sender.start()
        // Pub/Sub keeps nothing for a subscriber not yet listening: send until one arrives.
        var n = 0
        #expect(
            await eventually {
                n += 1
                sending.dispatch(PubSubSequenced(n: n))
                return received.count > 0
            })
        server.stop()
        try server.restart()
        let before = received.count
        #expect(
            await eventually {
                n += 1
                sending.dispatch(PubSubSequenced(n: n))
                return received.count > before
            })
        await sender.stop()
        await receiver.stop()
    }
}

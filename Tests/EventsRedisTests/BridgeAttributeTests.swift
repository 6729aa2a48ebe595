import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

/// CloudEvents 1.0 requires `source` and, when present, `subject` to be non-empty: the bridge
/// never writes either empty, and refuses both when it reads them.
@Suite(
    "Redis bridge: source and subject",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
struct BridgeAttributeTests {
    @Test(
        "An empty subject is left out of the event, which every receiver accepts",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func emptySubjectIsOmitted(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let receiverCenter = EventCenter()
        let received = Log<RemoteOrigin?>()
        let listener = receiverCenter.listen(to: ShipmentSent.self) { _, sender in
            received.append(sender?.object(as: RemoteOrigin.self))
        }
        let receiver = RedisBridge(
            center: receiverCenter, configuration: bridgeConfiguration(server, source: "receiver", errors: errors))
        try receiver.carry(ShipmentSent.self, mode: mode, direction: .incoming)
        try await receiver.start()
        // A raw reader too, to see the message as other libraries do.
        let key = "test:" + ShipmentSent.wireName
        let subscriber = RedisSubscriber(server.configuration)
        let messages = subscriber.events(channels: [key])
        var iterator = messages.makeAsyncIterator()
        _ = try await iterator.next()  // subscribed

        let center = EventCenter()
        var configuration = bridgeConfiguration(server, source: "publisher", errors: errors)
        configuration.subject = { _ in "" }
        let publisher = RedisBridge(center: center, configuration: configuration)
        try publisher.carry(ShipmentSent.self, mode: mode, direction: .outgoing)
        try await publisher.start()
        center.dispatch(ShipmentSent(orderID: "A-1"), from: Checkout())
        #expect(await publisher.flush(timeout: .seconds(10)))

        #expect(await eventually { received.count == 1 })
        #expect(received.values.first??.subject == nil)
        #expect(receiver.statistics.invalidMessages == 0)
        let json: [UInt8]
        switch mode {
        case .pubSub:
            guard case .message(let message)? = try await iterator.next() else {
                Issue.record("no message")
                return
            }
            json = message.payload
        case .stream:
            let client = RedisClient(server.configuration)
            let reply = try await client.send("XRANGE", RedisArgument(key), "-", "+")
            json = try #require(reply.array?.first?.array?[1].array?.last?.bytes)
            client.close()
        }
        let object = try #require(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["subject"] == nil, "\(String(decoding: json, as: UTF8.self))")
        #expect(try CloudEvent(json: json).subject == nil)
        #expect(errors.all.isEmpty, "\(errors.all)")
        subscriber.close()
        withExtendedLifetime(listener) {}
        await publisher.stop()
        await receiver.stop()
    }

    @Test(
        "A received event with an empty subject or source is reported, counted and skipped (and acknowledged)",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func emptyAttributesAreRefused(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { received.append($0.n) }
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        try bridge.carry(Sequenced.self, mode: mode)
        try await bridge.start()

        let key = RedisArgument("test:" + Sequenced.wireName)
        let type = Sequenced.wireName
        let messages: [String] = [
            #"{"specversion":"1.0","id":"1","source":"other","type":"\#(type)","subject":"","data":{"n":1}}"#,
            #"{"specversion":"1.0","id":"2","source":"","type":"\#(type)","data":{"n":2}}"#,
            #"{"specversion":"1.0","id":"3","source":"other","type":"\#(type)","subject":"s","data":{"n":3}}"#,
        ]
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline(
            messages.map { message in
                mode == .stream
                    ? ["XADD", key, "*", "event", RedisArgument(message)] : ["PUBLISH", key, RedisArgument(message)]
            })
        #expect(await eventually { received.count == 1 && errors.all.count == 2 })
        #expect(received.values == [3])
        #expect(bridge.statistics.invalidMessages == 2)
        let reasons = errors.all.compactMap { $0.code == .invalidMessage ? $0.cloudEventError?.reason : nil }
        #expect(reasons.count == 2)
        #expect(reasons.contains { $0.contains("subject") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("source") }, "\(reasons)")
        if mode == .stream {
            #expect(
                try await eventually {
                    (try await client.send("XPENDING", key, "b")).array?.first?.int == 0
                }, "the refused entries were acknowledged")
        }
        withExtendedLifetime(listener) {}
        client.close()
        await bridge.stop()
    }
}

@Suite("Redis bridge: configuration checks")
struct BridgeConfigurationCheckTests {
    @Test("An empty source is refused with a typed error where the configuration is made, by carry and by start")
    func emptySourceIsRefused() async throws {
        let errors = ErrorLog()
        var configuration = RedisBridge.Configuration(source: "")
        configuration.errorHandler = { errors.record($0) }
        #expect(throws: RedisBridgeError.self) { try configuration.validated() }
        do {
            _ = try configuration.validated()
        } catch {
            guard error.code == .invalidConfiguration, let reason = error.reason else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("source"), "\(reason)")
            #expect(error.description.hasPrefix("Redis bridge: invalid configuration: "), "\(error)")
        }

        let center = EventCenter()
        let bridge = RedisBridge(center: center, configuration: configuration)
        #expect(throws: RedisBridgeError.self) { try bridge.carry(Sequenced.self, mode: .stream) }
        #expect(center.listenerCount(for: Sequenced.self) == 0, "nothing was carried")
        center.dispatch(Sequenced(n: 1))
        await #expect(throws: RedisBridgeError.self) { try await bridge.start() }
        do {
            try await bridge.start()
        } catch {
            #expect(error.description.contains("source"), "\(error)")
        }
        await bridge.stop()
        #expect(errors.all.isEmpty, "nothing was queued to report: \(errors.all)")
    }

    @Test("A valid configuration passes the check unchanged; a publish buffer without room is refused, not a crash")
    func validConfigurationPasses() throws {
        let configuration = try RedisBridge.Configuration(source: "shop/api-1").validated()
        #expect(configuration.source == "shop/api-1")
        var noRoom = configuration
        noRoom.publishBufferCapacity = 0
        #expect(throws: RedisBridgeError.self) { try noRoom.validated() }
        let bridge = RedisBridge(center: EventCenter(), configuration: noRoom)
        #expect(throws: RedisBridgeError.self) { try bridge.carry(Sequenced.self, mode: .pubSub) }
    }
}

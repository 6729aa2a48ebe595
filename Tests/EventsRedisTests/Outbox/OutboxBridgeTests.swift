import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite("Outbox in a bridge", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct OutboxBridgeTests {
    @Test("a second bridge on a file in use cannot carry or start, and says why")
    func secondBridgeRefused() async throws {
        let server = try RedisServer()
        let directory = try OutboxDirectory()
        var configuration = bridgeConfiguration(server, source: "p", errors: ErrorLog())
        configuration.outbox = RedisBridge.Outbox(path: directory.path())
        let first = RedisBridge(center: EventCenter(), configuration: configuration)
        try first.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        let second = RedisBridge(center: EventCenter(), configuration: configuration)
        #expect {
            try second.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        } throws: { error in
            (error as? RedisBridgeError)?.code == .outboxUnavailable
                && (error as? RedisBridgeError)?.path == directory.path()
        }
        await #expect(
            throws: RedisBridgeError.outboxUnavailable(
                path: directory.path(), reason: second.outboxFailure?.reason ?? "")
        ) {
            try await second.start()
        }
        await first.stop()
    }

    @Test(
        "events dispatched while Redis is away, by a bridge let go, are published by the next bridge on the file, in order"
    )
    func eventsOutliveTheirBridge() async throws {
        let server = try RedisServer()
        let directory = try OutboxDirectory()
        let errors = ErrorLog()
        var configuration = bridgeConfiguration(server, source: "p", errors: errors)
        configuration.outbox = RedisBridge.Outbox(path: directory.path(), sync: .interval(.milliseconds(20)))
        server.kill()
        do {
            let center = EventCenter()
            let bridge = RedisBridge(center: center, configuration: configuration)
            try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
            for n in 1...20 { center.dispatch(Sequenced(n: n)) }
            #expect(bridge.statistics.outboxEvents == 20)
            // Never started, never stopped: let go with its events in memory and in the file.
        }
        try server.restart()
        let center = EventCenter()
        let bridge = RedisBridge(center: center, configuration: configuration)
        #expect(bridge.statistics.republishedFromOutbox == 20)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        center.dispatch(Sequenced(n: 21))
        try await bridge.start()
        #expect(await bridge.flush(timeout: .seconds(20)))
        #expect(bridge.statistics.outboxEvents == 0)
        let admin = RedisClient(server.configuration)
        let entries = try await admin.send("XRANGE", RedisArgument("test:" + Sequenced.wireName), "-", "+")
        admin.close()
        let numbers = (entries.array ?? []).compactMap { entry -> Int? in
            guard let bytes = entry.array?[1].array?.last?.bytes,
                let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            else { return nil }
            return (object["data"] as? [String: Any])?["n"] as? Int
        }
        #expect(numbers == Array(1...21))
        await bridge.stop()
    }

    @Test("once a flush returns true, the outbox no longer holds what Redis acknowledged")
    func flushMeansConfirmed() async throws {
        let server = try RedisServer()
        let directory = try OutboxDirectory()
        var configuration = bridgeConfiguration(server, source: "p", errors: ErrorLog())
        configuration.outbox = RedisBridge.Outbox(path: directory.path(), sync: .interval(.milliseconds(20)))
        let center = EventCenter()
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await bridge.start()
        var heldAfterFlush: [Int] = []
        for round in 1...200 {
            center.dispatch(Sequenced(n: round))
            #expect(await bridge.flush(timeout: .seconds(10)))
            if bridge.statistics.outboxEvents != 0 { heldAfterFlush.append(round) }
        }
        #expect(heldAfterFlush == [])
        await bridge.stop()
    }
}

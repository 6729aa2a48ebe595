import Events
import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

// The README's Redis bridge example, compiled and run against a private server: if this file
// stops compiling, the README is wrong.

private struct OrderPlaced: RemoteEvent {
    static let wireName = "com.example.shop.order-placed"
    let orderID: String
}

private final class CheckoutScreen: Sendable {}

@Suite("README: the Redis bridge", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct ReadmeRedisExamplesTests {
    @Test("The README example carries an order to another process's center")
    func bridgeExample() async throws {
        let server = try RedisServer()
        let center = EventCenter()
        let checkout = CheckoutScreen()

        // README: "Across processes: the Redis bridge"
        let bridge = RedisBridge(
            center: center,
            configuration: RedisBridge.Configuration(
                redis: RedisConfiguration(host: "127.0.0.1", port: server.port), source: "shop/api-1"))
        try bridge.carry(OrderPlaced.self, mode: .stream)  // at-least-once, nothing lost
        try bridge.carry("cacheCleared", data: String.self, mode: .pubSub)  // fire-and-forget

        // Another process, played by a second center and bridge.
        let elsewhere = EventCenter()
        let other = RedisBridge(
            center: elsewhere,
            configuration: RedisBridge.Configuration(
                redis: RedisConfiguration(host: "127.0.0.1", port: server.port), source: "shop/api-2"))
        try other.carry(OrderPlaced.self, mode: .stream)
        try other.carry("cacheCleared", data: String.self, mode: .pubSub)
        try await other.start()
        let arrived = Log<String>()
        let listener = elsewhere.listen(to: OrderPlaced.self) { order, sender in
            arrived.append("\(order.orderID) from \(sender?.object(as: RemoteOrigin.self)?.source ?? "here")")
        }

        try await bridge.start()
        center.dispatch(OrderPlaced(orderID: "A-1001"), from: checkout)  // local listeners, then Redis

        #expect(await eventually { arrived.count == 1 })
        #expect(arrived.values == ["A-1001 from shop/api-1"])
        withExtendedLifetime(listener) {}
        await bridge.stop()
        await other.stop()
    }

    @Test("The README's one-way example: the shop publishes, the worker consumes")
    func oneWayExample() async throws {
        let server = try RedisServer()
        let redis = RedisConfiguration(host: "127.0.0.1", port: server.port)
        let shopCenter = EventCenter()
        let workerCenter = EventCenter()
        let bridge = RedisBridge(center: shopCenter, configuration: .init(redis: redis, source: "shop/api-1"))
        let worker = RedisBridge(center: workerCenter, configuration: .init(redis: redis, source: "worker-1"))

        // README: "Across processes: the Redis bridge", one way
        try bridge.carry(OrderPlaced.self, mode: .stream, direction: .outgoing)  // the shop publishes
        try worker.carry(OrderPlaced.self, mode: .stream, direction: .incoming)  // a worker consumes

        try await worker.start()
        try await bridge.start()
        let arrived = Log<String>()
        let listener = workerCenter.listen(to: OrderPlaced.self) { arrived.append($0.orderID) }
        shopCenter.dispatch(OrderPlaced(orderID: "A-1002"))
        await bridge.flush()
        // Generous: under the sanitizer, with the whole suite running in parallel on 2 cores,
        // these tests take 20 s; the wait ends as soon as the event is there.
        #expect(await eventually { arrived.values == ["A-1002"] })
        #expect(bridge.statistics.published == 1)
        #expect(worker.statistics.published == 0)
        withExtendedLifetime(listener) {}
        await bridge.stop()
        await worker.stop()
    }

    @Test("The README's batch example: an order and the next go out in one stream entry")
    func batchExample() async throws {
        let server = try RedisServer()
        let center = EventCenter()

        // README: "Wire format", batches
        var configuration = RedisBridge.Configuration(source: "shop/api-1")
        configuration.maxEventsPerMessage = 64  // consumers in other languages must read batches

        configuration.redis = RedisConfiguration(host: "127.0.0.1", port: server.port)
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(OrderPlaced.self, mode: .stream, direction: .outgoing)
        try await bridge.start()
        let client = RedisClient(configuration.redis)
        // Redis holds the writes until all are queued, so they go out together on any machine.
        try await withWritesHeld(by: client) {
            for n in 1...50 { center.dispatch(OrderPlaced(orderID: "A-\(n)")) }
        }
        await bridge.flush()
        let entries = try await client.send("XLEN", RedisArgument("events:" + OrderPlaced.wireName)).int ?? 0
        #expect(entries >= 1 && entries < 50, "\(entries) entries for 50 events")
        client.close()
        await bridge.stop()
    }
}

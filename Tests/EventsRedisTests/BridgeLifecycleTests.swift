import Events
import EventsTesting
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis
@testable import EventsRedisClient

/// What happens to the outgoing events dispatched in each phase of a bridge's life: before
/// `start()`, while it runs, after it failed, and while and after `stop()` runs.
@Suite("Redis bridge life cycle", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct BridgeLifecycleTests {
    /// A worker that died with three orders read but not acknowledged: the stream
    /// `test:<Sequenced>` in group "worker" holds them pending for consumer "worker".
    private func leavePendingOrders(_ client: RedisClient, count: Int) async throws {
        let stream = RedisArgument("test:" + Sequenced.wireName)
        _ = try await client.send("XGROUP", "CREATE", stream, "worker", "$", "MKSTREAM")
        for n in 1...count {
            _ = try await client.send("XADD", stream, "*", "event", foreignMessage(type: Sequenced.wireName, n: n))
        }
        let read = try await client.send("XREADGROUP", "GROUP", "worker", "worker", "STREAMS", stream, ">")
        #expect(try StreamConsumer.entries(fromRead: read).count == count)
    }

    @Test(
        "A restarted worker's handlers run during start() on its pending entries, and the events they dispatch are published",
        arguments: [RedisBridge.Mode.stream, .pubSub])
    func dispatchesDuringStartArePublished(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let client = RedisClient(server.configuration)
        try await leavePendingOrders(client, count: 3)

        // The shop hears the shipments.
        let shopCenter = EventCenter()
        let shipped = Log<String>()
        let shipments = shopCenter.listen(to: ShipmentSent.self) { shipped.append($0.orderID) }
        let shop = RedisBridge(
            center: shopCenter, configuration: bridgeConfiguration(server, source: "shop", errors: errors))
        try shop.carry(ShipmentSent.self, mode: mode, direction: .incoming)
        try await shop.start()

        let workerCenter = EventCenter()
        var configuration = bridgeConfiguration(server, source: "worker", errors: errors)
        configuration.consumerGroup = "worker"
        let worker = RedisBridge(center: workerCenter, configuration: configuration)
        try worker.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try worker.carry(ShipmentSent.self, mode: mode, direction: .outgoing)
        let handled = Log<Int>()
        let orders = workerCenter.listen(to: Sequenced.self) { order in
            workerCenter.dispatch(ShipmentSent(orderID: "\(order.n)"))
            handled.append(order.n)
        }
        // start() does not return before the handlers have run on every pending entry.
        worker.whileStarting {
            _ = await eventually { handled.count == 3 }
        }
        try await worker.start()
        #expect(handled.values == [1, 2, 3])
        #expect(await worker.flush(timeout: .seconds(10)))
        #expect(worker.statistics.published == 3, "\(worker.statistics)")
        #expect(await eventually { shipped.count == 3 })
        #expect(shipped.values == ["1", "2", "3"])
        #expect(errors.all.isEmpty, "\(errors.all)")
        _ = (shipments, orders)
        client.close()
        await worker.stop()
        await shop.stop()
    }
}

extension BridgeLifecycleTests {
    @Test("Events dispatched before start() are buffered, within the buffer's capacity, and published once it runs")
    func dispatchesBeforeStartArePublished() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let receiverCenter = EventCenter()
        let streamed = Log<Int>()
        let broadcast = Log<Int>()
        let listeners = [
            receiverCenter.listen(to: Sequenced.self) { streamed.append($0.n) },
            receiverCenter.listen(to: PubSubSequenced.self) { broadcast.append($0.n) },
        ]
        let receiver = RedisBridge(
            center: receiverCenter, configuration: bridgeConfiguration(server, source: "receiver", errors: errors))
        try receiver.carry(Sequenced.self, mode: .stream)
        try receiver.carry(PubSubSequenced.self, mode: .pubSub)
        try await receiver.start()

        let center = EventCenter()
        var configuration = bridgeConfiguration(server, source: "publisher", errors: errors)
        configuration.publishBufferCapacity = 3
        let publisher = RedisBridge(center: center, configuration: configuration)
        try publisher.carry(Sequenced.self, mode: .stream)
        try publisher.carry(PubSubSequenced.self, mode: .pubSub)
        for n in 1...4 { center.dispatch(Sequenced(n: n)) }
        for n in 1...2 { center.dispatch(PubSubSequenced(n: n)) }
        #expect(errors.all.count == 1, "the fourth stream event found the buffer full: \(errors.all)")
        #expect(errors.all.first?.code == .publishBufferFull)
        #expect(errors.all.first?.capacity == 3)

        try await publisher.start()
        #expect(await publisher.flush(timeout: .seconds(10)))
        #expect(await eventually { streamed.count == 3 && broadcast.count == 2 })
        #expect(streamed.values == [1, 2, 3])
        #expect(broadcast.values == [1, 2])
        #expect(publisher.statistics.published == 5)
        #expect(publisher.statistics.rejectedBufferFull == 1)
        #expect(errors.all.count == 1, "\(errors.all)")
        withExtendedLifetime(listeners) {}
        await publisher.stop()
        await receiver.stop()
    }

    @Test("Events dispatched before and after a failed start() are published by the start() that works")
    func dispatchesAroundFailedStartArePublished() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        var configuration = bridgeConfiguration(server, source: "publisher", errors: errors)
        // The failing start() gives up once a command would: keep that short.
        configuration.redis.connectTimeout = .milliseconds(200)
        configuration.redis.replyTimeout = .milliseconds(500)
        let publisher = RedisBridge(center: center, configuration: configuration)
        try publisher.carry(Sequenced.self, mode: .stream)
        try publisher.carry(PubSubSequenced.self, mode: .pubSub, direction: .outgoing)
        server.kill()
        center.dispatch(Sequenced(n: 1))
        center.dispatch(PubSubSequenced(n: 1))
        await #expect(throws: RedisBridgeError.self) { try await publisher.start() }
        center.dispatch(Sequenced(n: 2))
        center.dispatch(PubSubSequenced(n: 2))
        try server.restart()

        let receiverCenter = EventCenter()
        let streamed = Log<Int>()
        let broadcast = Log<Int>()
        let listeners = [
            receiverCenter.listen(to: Sequenced.self) { streamed.append($0.n) },
            receiverCenter.listen(to: PubSubSequenced.self) { broadcast.append($0.n) },
        ]
        let receiver = RedisBridge(
            center: receiverCenter, configuration: bridgeConfiguration(server, source: "receiver", errors: errors))
        try receiver.carry(Sequenced.self, mode: .stream)
        try receiver.carry(PubSubSequenced.self, mode: .pubSub)
        try await receiver.start()

        try await publisher.start()
        #expect(await publisher.flush(timeout: .seconds(10)))
        #expect(await eventually { streamed.count == 2 && broadcast.count == 2 })
        #expect(streamed.values == [1, 2])
        #expect(broadcast.values == [1, 2])
        #expect(publisher.statistics.published == 4)
        withExtendedLifetime(listeners) {}
        await publisher.stop()
        await receiver.stop()
    }

    @Test("stop() on a bridge that never started reports the events it buffered; afterwards nothing is heard")
    func stopBeforeStartReportsBufferedEvents() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "a", errors: errors))
        try bridge.carry(Sequenced.self, mode: .stream)
        try bridge.carry(PubSubSequenced.self, mode: .pubSub)
        center.dispatch(Sequenced(n: 1))
        center.dispatch(Sequenced(n: 2))
        center.dispatch(PubSubSequenced(n: 1))
        await bridge.stop()
        #expect(errors.all == [.stoppedWithUnpublishedEvents(3)])
        #expect(bridge.statistics.unpublishedAtStop == 3)
        // Stopped for good: it no longer hears the center, and cannot be started.
        #expect(center.listenerCount(for: Sequenced.self) == 0)
        #expect(center.listenerCount(for: PubSubSequenced.self) == 0)
        await #expect(throws: RedisBridgeError.alreadyStarted) { try await bridge.start() }
    }

    @Test("A bridge let go without stop() reports the events it still held")
    func deinitReportsBufferedEvents() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        do {
            let bridge = RedisBridge(
                center: center, configuration: bridgeConfiguration(server, source: "a", errors: errors))
            try bridge.carry(Sequenced.self, mode: .stream)
            center.dispatch(Sequenced(n: 1))
        }
        #expect(errors.all == [.stoppedWithUnpublishedEvents(1)])
        #expect(center.listenerCount(for: Sequenced.self) == 0)
    }

    @Test(
        "Events that handlers dispatch while stop() lets the last received events finish are published",
        arguments: [RedisBridge.Mode.stream, .pubSub])
    func dispatchesDuringStopArePublished(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let client = RedisClient(server.configuration)
        let workerCenter = EventCenter()
        let worker = RedisBridge(
            center: workerCenter, configuration: bridgeConfiguration(server, source: "worker", errors: errors))
        try worker.carry(Sequenced.self, mode: mode, direction: .incoming)
        try worker.carry(ShipmentSent.self, mode: .stream, direction: .outgoing)
        let entered = Counter()
        let release = DispatchSemaphore(value: 0)
        // On a stream the handler runs on a queue of its own (the reader waits for it before it
        // acknowledges); on Pub/Sub on the subscription's reader thread. Either way it is held
        // until stop() has begun.
        let handler: @Sendable (Sequenced) -> Void = { order in
            entered.increment()
            _ = release.wait(timeout: .now() + 20)
            workerCenter.dispatch(ShipmentSent(orderID: "\(order.n)"))
        }
        let orders =
            mode == .stream
            ? workerCenter.listen(to: Sequenced.self, on: .queue(DispatchQueue(label: "handler")), handler)
            : workerCenter.listen(to: Sequenced.self, handler)
        try await worker.start()

        let key = RedisArgument("test:" + Sequenced.wireName)
        let order = foreignMessage(type: Sequenced.wireName, n: 7)
        _ = try await client.send(mode == .stream ? ["XADD", key, "*", "event", order] : ["PUBLISH", key, order])
        #expect(await eventually { entered.value == 1 })
        async let stopped: Void = worker.stop()
        #expect(await eventually { worker.hasBegunStopping })
        release.signal()
        await stopped

        let shipments = try await client.send("XRANGE", RedisArgument("test:" + ShipmentSent.wireName), "-", "+")
        #expect(shipments.array?.count == 1, "the shipment reached Redis: \(shipments)")
        #expect(worker.statistics.published == 1)
        #expect(errors.all.isEmpty, "\(errors.all)")
        withExtendedLifetime(orders) {}
        client.close()
    }
}

extension BridgeLifecycleTests {
    @Test(
        "A start() that cannot reach Redis throws startFailed, which says to call it again, and retries nothing by itself; called again, it works",
        arguments: [RedisBridge.Mode.stream, .pubSub])
    func failedStartSaysToCallAgain(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configuration.redis.connectTimeout = .milliseconds(200)
        configuration.redis.replyTimeout = .milliseconds(500)
        let center = EventCenter()
        let received = EventRecorder(of: Sequenced.self, in: center)
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: mode, direction: .incoming)
        server.kill()

        var failure: RedisBridgeError?
        do {
            try await bridge.start()
        } catch {
            failure = error
        }
        let error = try #require(failure)
        guard error.code == .startFailed, let cause = error.cause else {
            Issue.record("expected startFailed, got \(error)")
            return
        }
        #expect(cause.isRetryable, "\(cause)")
        #expect(!error.description.hasSuffix("; retrying"), "\(error)")
        #expect(error.description.contains("call start() again"), "\(error)")
        #expect(!bridge.isStarting)

        // Nothing goes on in the background: once Redis is back, the bridge neither reads the
        // stream nor listens on the channel until start() is called again.
        try server.restart()
        let client = RedisClient(server.configuration)
        let key = RedisArgument("test:" + Sequenced.wireName)
        switch mode {
        case .stream: #expect(try await client.send("EXISTS", key).int == 0)
        case .pubSub: #expect(try await client.send("PUBSUB", "NUMSUB", key).array?.last?.int == 0)
        }

        try await bridge.start()
        let event = foreignMessage(type: Sequenced.wireName, n: 1)
        _ = try await client.send(mode == .stream ? ["XADD", key, "*", "event", event] : ["PUBLISH", key, event])
        #expect(try await received.next(timeout: .seconds(15)).n == 1)
        received.expectAllConsumed()
        client.close()
        await bridge.stop()
    }
}

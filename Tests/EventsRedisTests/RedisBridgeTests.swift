import Events
import EventsTesting
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite("Redis bridge", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct RedisBridgeTests {
    @Test(
        "A typed event crosses in both modes, with its sender described and no echo",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func typedEventCrosses(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let centerA = EventCenter()
        let centerB = EventCenter()
        let bridgeA = RedisBridge(
            center: centerA, configuration: bridgeConfiguration(server, source: "shop/a", errors: errors))
        let bridgeB = RedisBridge(
            center: centerB, configuration: bridgeConfiguration(server, source: "shop/b", errors: errors))
        try bridgeA.carry(ShipmentSent.self, mode: mode)
        try bridgeB.carry(ShipmentSent.self, mode: mode)
        try await bridgeA.start()
        try await bridgeB.start()

        let atA = Log<String>()
        let atB = Log<(ShipmentSent, RemoteOrigin?)>()
        let localA = centerA.listen(to: ShipmentSent.self) { event in atA.append(event.orderID) }
        let remoteB = centerB.listen(to: ShipmentSent.self) { event, sender in
            atB.append((event, sender?.object(as: RemoteOrigin.self)))
        }
        let checkout = Checkout()
        centerA.dispatch(ShipmentSent(orderID: "A-1"), from: checkout)
        await bridgeA.flush()

        #expect(await eventually { atB.count == 1 })
        let (event, origin) = try #require(atB.values.first)
        #expect(event == ShipmentSent(orderID: "A-1"))
        #expect(origin?.source == "shop/a")
        #expect(origin?.subject == "Checkout")
        #expect(origin?.type == ShipmentSent.wireName)
        #expect(origin?.key == "test:" + ShipmentSent.wireName)
        #expect((origin?.streamEntryID != nil) == (mode == .stream))

        // A never hears its own event back: once it has read it and skipped it, nothing of it
        // is left to come. B does not publish what it received: anything it would send again
        // is queued by the time the delivery is counted, and its flush waits for that.
        #expect(
            await eventually { bridgeA.statistics.ownEventsSkipped == 1 }, "A's own event came back and was skipped")
        #expect(await eventually { bridgeB.statistics.delivered == 1 })
        await bridgeB.flush()
        #expect(atA.values == ["A-1"])
        #expect(atB.count == 1)
        #expect(bridgeB.statistics.published == 0)
        #expect(bridgeA.statistics.published == 1)
        #expect(bridgeA.statistics.delivered == 0)
        #expect(bridgeB.statistics.delivered == 1)
        #expect(errors.all.isEmpty)
        _ = (localA, remoteB)
        await bridgeA.stop()
        await bridgeB.stop()
    }

    @Test(
        "One way: an outgoing bridge publishes without reading, an incoming one receives without publishing",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func oneWayCarrying(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let shopCenter = EventCenter()
        let workerCenter = EventCenter()
        let shop = RedisBridge(
            center: shopCenter, configuration: bridgeConfiguration(server, source: "shop", errors: errors))
        let worker = RedisBridge(
            center: workerCenter, configuration: bridgeConfiguration(server, source: "worker", errors: errors))
        try shop.carry(ShipmentSent.self, mode: mode, direction: .outgoing)
        try worker.carry(ShipmentSent.self, mode: mode, direction: .incoming)
        try await worker.start()
        try await shop.start()

        let atShop = Log<String>()
        let atWorker = Log<String>()
        let shopListener = shopCenter.listen(to: ShipmentSent.self) { atShop.append($0.orderID) }
        let workerListener = workerCenter.listen(to: ShipmentSent.self) { atWorker.append($0.orderID) }
        workerCenter.dispatch(ShipmentSent(orderID: "W-1"))  // stays in the worker
        shopCenter.dispatch(ShipmentSent(orderID: "S-1"))
        await shop.flush()
        #expect(await eventually { atWorker.values == ["W-1", "S-1"] })

        await waitToShowNothingArrives()
        #expect(atShop.values == ["S-1"], "the shop receives nothing")
        #expect(shop.statistics.published == 1)
        #expect(shop.statistics.ownEventsSkipped == 0, "the shop does not read its own event back")
        #expect(worker.statistics.published == 0)
        #expect(worker.statistics.delivered == 1)

        // What Redis sees: one reader (the worker), and only the shop's event.
        let client = RedisClient(server.configuration)
        let key = RedisArgument("test:" + ShipmentSent.wireName)
        switch mode {
        case .pubSub:
            let subscribers = try await client.send("PUBSUB", "NUMSUB", key)
            #expect(subscribers.array?.last?.int == 1)
        case .stream:
            #expect(try await client.send("XLEN", key).int == 1)
            #expect(try await client.send("XINFO", "GROUPS", key).array?.count == 1)
        }
        #expect(errors.all.isEmpty)
        client.close()
        _ = (shopListener, workerListener)
        await shop.stop()
        await worker.stop()
    }

    @Test("Named events cross with and without data")
    func namedEventsCross() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let centerA = EventCenter()
        let centerB = EventCenter()
        let bridgeA = RedisBridge(
            center: centerA, configuration: bridgeConfiguration(server, source: "a", errors: errors))
        let bridgeB = RedisBridge(
            center: centerB, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        for bridge in [bridgeA, bridgeB] {
            try bridge.carry("cacheCleared", mode: .pubSub)
            try bridge.carry("userSignedIn", data: Int.self, mode: .stream)
        }
        try await bridgeA.start()
        try await bridgeB.start()

        let received = Log<String>()
        let cleared = centerB.listen(to: "cacheCleared") { event in received.append("cleared \(event.hasData)") }
        let signedIn = centerB.listen(to: "userSignedIn") { event in
            received.append("signed in \(try event.data(as: Int.self))")
        }
        centerA.dispatch("userSignedIn", data: 7)
        centerA.dispatch("cacheCleared")
        #expect(await eventually { received.count == 2 })
        #expect(Set(received.values) == ["cleared false", "signed in 7"])

        // What cannot cross is reported, not silently dropped.
        centerA.dispatch("userSignedIn", data: "seven")
        centerA.dispatch("cacheCleared", data: 1)
        #expect(await eventually { errors.all.count == 2 })
        #expect(errors.all.allSatisfy { $0.code == .cannotEncode })
        _ = (cleared, signedIn)
        await bridgeA.stop()
        await bridgeB.stop()
    }

    @Test("Each message is a CloudEvents 1.0 JSON event that other libraries can read")
    func wireFormat() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "shop/a", errors: errors))
        try bridge.carry(ShipmentSent.self, mode: .stream)
        try await bridge.start()
        center.dispatch(ShipmentSent(orderID: "A-9"), from: Checkout())
        await bridge.flush()

        let client = RedisClient(server.configuration)
        let reply = try await client.send("XRANGE", "test:com.example.shop.shipment-sent", "-", "+")
        let fields = try #require(reply.array?.first?.array?[1].array)
        #expect(fields.first?.string == "event")
        let json = try #require(fields.last?.bytes)
        let object = try #require(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        #expect(object["specversion"] as? String == "1.0")
        #expect(object["type"] as? String == "com.example.shop.shipment-sent")
        #expect(object["source"] as? String == "shop/a")
        #expect(object["subject"] as? String == "Checkout")
        #expect(object["datacontenttype"] as? String == "application/json")
        #expect((object["id"] as? String)?.isEmpty == false)
        #expect(RFC3339.date(from: object["time"] as? String ?? "") != nil)
        #expect((object["data"] as? [String: Any])?["orderID"] as? String == "A-9")
        client.close()
        await bridge.stop()
    }

    @Test("Bad messages are reported, counted and acknowledged; good ones behind them still arrive")
    func badMessagesAreSkipped() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        try bridge.carry(ShipmentSent.self, mode: .stream)
        try bridge.carry(PubSubSequenced.self, mode: .pubSub)
        try await bridge.start()
        let received = Log<String>()
        let shipments = center.listen(to: ShipmentSent.self) { received.append($0.orderID) }
        let sequenced = center.listen(to: PubSubSequenced.self) { received.append("n\($0.n)") }

        let stream = "test:" + ShipmentSent.wireName
        let channel = "test:" + PubSubSequenced.wireName
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline([
            ["XADD", RedisArgument(stream), "*", "event", "not json"],
            ["XADD", RedisArgument(stream), "*", "payload", "no event field"],
            ["XADD", RedisArgument(stream), "*", "event", foreignMessage(type: "com.unknown", id: "1", data: "{}")],
            [
                "XADD", RedisArgument(stream), "*", "event",
                foreignMessage(type: ShipmentSent.wireName, id: "2", data: #"{"id":1}"#),
            ],
            [
                "XADD", RedisArgument(stream), "*", "event",
                foreignMessage(type: ShipmentSent.wireName, id: "3", data: #"{"orderID":"ok"}"#),
            ],
            ["PUBLISH", RedisArgument(channel), #"{"specversion":"0.3"}"#],
            [
                "PUBLISH", RedisArgument(channel),
                foreignMessage(type: PubSubSequenced.wireName, id: "4", data: #"{"n":1}"#),
            ],
        ])
        #expect(await eventually { received.count == 2 && errors.all.count == 5 })
        #expect(Set(received.values) == ["ok", "n1"])
        let statistics = bridge.statistics
        #expect(statistics.invalidMessages == 3)
        #expect(statistics.unknownTypes == 1)
        #expect(statistics.undecodable == 1)
        #expect(statistics.delivered == 2)
        #expect(errors.all.contains(.unknownType("com.unknown", id: "1", source: "other")))

        // Everything on the stream was acknowledged, bad entries included.
        #expect(
            try await eventually {
                let pending = try await client.send("XPENDING", RedisArgument(stream), "b")
                return pending.array?.first?.int == 0
            })
        _ = (shipments, sequenced)
        client.close()
        await bridge.stop()
    }

    @Test("On start, a consumer first re-reads its own unacknowledged entries")
    func resumesOwnPendingEntries() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let stream = "test:" + Sequenced.wireName
        let publisherCenter = EventCenter()
        let publisher = RedisBridge(
            center: publisherCenter, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream)
        try await publisher.start()

        // A consumer named "b" read three entries and died before acknowledging them.
        let client = RedisClient(server.configuration)
        _ = try await client.send("XGROUP", "CREATE", RedisArgument(stream), "b", "$", "MKSTREAM")
        for n in 1...3 { publisherCenter.dispatch(Sequenced(n: n)) }
        await publisher.flush()
        let read = try await client.send(
            "XREADGROUP", "GROUP", "b", "b", "COUNT", "10", "STREAMS", RedisArgument(stream), ">")
        #expect(try StreamConsumer.entries(fromRead: read).count == 3)

        let center = EventCenter()
        let received = EventRecorder(of: Sequenced.self, in: center)
        let consumer = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        try consumer.carry(Sequenced.self, mode: .stream)
        try await consumer.start()
        let delivered = try await received.waitFor(count: 3, timeout: .seconds(15))
        #expect(delivered.map(\.n) == [1, 2, 3])
        #expect(
            try await eventually {
                (try await client.send("XPENDING", RedisArgument(stream), "b")).array?.first?.int == 0
            })
        #expect(errors.all.isEmpty)
        client.close()
        await consumer.stop()
        await publisher.stop()
    }

    @Test("A consumer that stopped cleanly and restarts does not deliver what it already handled")
    func stopAcknowledgesDeliveredEntries() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let publisherCenter = EventCenter()
        let publisher = RedisBridge(
            center: publisherCenter, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream)
        try await publisher.start()

        let firstCenter = EventCenter()
        let first = Log<Int>()
        let firstListener = firstCenter.listen(to: Sequenced.self) { first.append($0.n) }
        let firstRun = RedisBridge(
            center: firstCenter, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try firstRun.carry(Sequenced.self, mode: .stream)
        try await firstRun.start()
        for n in 1...20 { publisherCenter.dispatch(Sequenced(n: n)) }
        #expect(await eventually { first.count == 20 })
        await firstRun.stop()

        // A new process with the same consumer name: its deduplication memory is empty, so
        // anything left unacknowledged would arrive again.
        let secondCenter = EventCenter()
        let second = Log<Int>()
        let secondListener = secondCenter.listen(to: Sequenced.self) { second.append($0.n) }
        let secondRun = RedisBridge(
            center: secondCenter, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try secondRun.carry(Sequenced.self, mode: .stream)
        try await secondRun.start()
        publisherCenter.dispatch(Sequenced(n: 21))
        #expect(await eventually { second.count == 1 })
        await waitToShowNothingArrives(for: .milliseconds(200))
        #expect(second.values == [21])
        #expect(errors.all.isEmpty)
        _ = (firstListener, secondListener)
        await secondRun.stop()
        await publisher.stop()
    }

    @Test("Entries a dead consumer of the group left pending are claimed and delivered")
    func claimsStaleEntries() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let stream = "test:" + Sequenced.wireName
        let publisherCenter = EventCenter()
        let publisher = RedisBridge(
            center: publisherCenter, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream)
        try await publisher.start()

        let client = RedisClient(server.configuration)
        _ = try await client.send("XGROUP", "CREATE", RedisArgument(stream), "workers", "$", "MKSTREAM")
        for n in 1...2 { publisherCenter.dispatch(Sequenced(n: n)) }
        await publisher.flush()
        _ = try await client.send("XREADGROUP", "GROUP", "workers", "ghost", "STREAMS", RedisArgument(stream), ">")

        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { received.append($0.n) }
        var configuration = bridgeConfiguration(server, source: "worker-1", errors: errors)
        configuration.consumerGroup = "workers"
        let worker = RedisBridge(center: center, configuration: configuration)
        try worker.carry(Sequenced.self, mode: .stream)
        try await worker.start()
        #expect(await eventually { received.count == 2 })
        #expect(received.values == [1, 2])
        #expect(worker.statistics.claimed == 2)
        withExtendedLifetime(listener) {}
        client.close()
        await worker.stop()
        await publisher.stop()
    }

    @Test("A claim pass never takes back this consumer's own entries that are delivered but not yet acknowledged")
    func claimLeavesOwnDeliveredEntriesAlone() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        // A claim pass after every read, claiming whatever is pending at all: the acknowledgements
        // of the last read must reach Redis before it, or the pass claims and redelivers them.
        let pair = try await StreamPair(server, errors: errors) { configuration in
            configuration.claimInterval = .zero
            configuration.claimMinimumIdle = .zero
        }
        for n in 1...20 {
            pair.publish(n...n)
            await pair.publisher.flush()
            #expect(await eventually { pair.received.count == n })
        }
        await waitToShowNothingArrives()  // no claim pass takes an entry back and delivers it again
        #expect(pair.received.values == Array(1...20))
        #expect(pair.consumer.statistics.claimed == 0)
        #expect(pair.consumer.statistics.duplicatesSuppressed == 0)
        #expect(errors.all.isEmpty)
        await pair.stop()
    }

    @Test("A burst read in many small batches, each read ahead while the last is delivered, arrives once and in order")
    func burstInSmallBatches() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let pair = try await StreamPair(server, errors: errors) { $0.readBatchSize = 7 }
        let count = 1_500
        pair.publish(1...count)
        await pair.publisher.flush()
        #expect(await eventually { pair.received.count >= count })
        await waitToShowNothingArrives()  // nothing past the burst, no entry twice
        #expect(pair.received.values == Array(1...count))
        #expect(pair.consumer.statistics.delivered == count)
        #expect(pair.consumer.statistics.duplicatesSuppressed == 0)
        #expect(pair.consumer.statistics.claimed == 0)
        #expect(errors.all.isEmpty)
        await pair.consumer.stop()

        // Every entry was acknowledged, the last batch included: nothing is left pending.
        let client = RedisClient(server.configuration)
        let pending = try await client.send(
            "XPENDING", RedisArgument("test:" + Sequenced.wireName),
            RedisArgument(pair.consumerConfiguration.consumerGroup))
        #expect(pending.array?.first?.int == 0)
        client.close()
        await pair.publisher.stop()
    }

    @Test("Entries of two streams read together are each delivered and acknowledged on their own stream")
    func twoStreamsAcknowledged() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let publisher = RedisBridge(
            center: EventCenter(), configuration: bridgeConfiguration(server, source: "pub", errors: errors))
        let consumerCenter = EventCenter()
        let consumer = RedisBridge(
            center: consumerCenter, configuration: bridgeConfiguration(server, source: "sub", errors: errors))
        for bridge in [publisher, consumer] {
            try bridge.carry(Sequenced.self, mode: .stream)
            try bridge.carry(ShipmentSent.self, mode: .stream)
        }
        try await consumer.start()
        try await publisher.start()
        let numbers = Log<Int>()
        let orders = Log<String>()
        let listeners = [
            consumerCenter.listen(to: Sequenced.self) { numbers.append($0.n) },
            consumerCenter.listen(to: ShipmentSent.self) { orders.append($0.orderID) },
        ]
        // Queued before the consumer reads, so that its reads hold entries of both streams.
        for n in 1...300 {
            publisher.center.dispatch(Sequenced(n: n))
            publisher.center.dispatch(ShipmentSent(orderID: "O-\(n)"))
        }
        await publisher.flush()
        #expect(await eventually { numbers.count == 300 && orders.count == 300 })
        #expect(numbers.values == Array(1...300))
        #expect(orders.values == (1...300).map { "O-\($0)" })
        let client = RedisClient(server.configuration)
        for stream in [Sequenced.wireName, ShipmentSent.wireName] {
            #expect(
                try await eventually {
                    let pending = try await client.send("XPENDING", RedisArgument("test:" + stream), "sub")
                    return pending.array?.first?.int == 0
                }, "nothing left pending on \(stream)")
        }
        #expect(errors.all.isEmpty)
        withExtendedLifetime(listeners) {}
        client.close()
        await publisher.stop()
        await consumer.stop()
    }

    @Test("While Redis is down, stream events wait in a bounded buffer; overflow is reported")
    func buffersWhileDown() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let publisherCenter = EventCenter()
        var configuration = bridgeConfiguration(server, source: "p", errors: errors)
        configuration.publishBufferCapacity = 3
        let publisher = RedisBridge(center: publisherCenter, configuration: configuration)
        try publisher.carry(Sequenced.self, mode: .stream)
        try await publisher.start()
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try consumer.carry(Sequenced.self, mode: .stream)
        try await consumer.start()

        server.kill()
        for n in 1...5 { publisherCenter.dispatch(Sequenced(n: n)) }
        let rejected = errors.all.compactMap { error -> String? in
            error.code == .publishBufferFull && error.capacity == 3 ? error.id : nil
        }
        #expect(rejected.count == 2)
        #expect(publisher.statistics.rejectedBufferFull == 2)

        try server.restart()
        await publisher.flush()
        #expect(await eventually { received.count == 3 })
        #expect(received.values == [1, 2, 3])
        withExtendedLifetime(listener) {}
        await consumer.stop()
        await publisher.stop()
    }

    @Test("Trimming keeps every entry a group has not acknowledged")
    func trimmingKeepsUnacknowledged() async throws {
        let server = try RedisServer()
        let stream = "test:trim"
        let client = RedisClient(server.configuration)
        _ = try await client.send("XGROUP", "CREATE", RedisArgument(stream), "slow", "$", "MKSTREAM")
        _ = try await client.send("XGROUP", "CREATE", RedisArgument(stream), "fast", "$", "MKSTREAM")
        for n in 1...50 { _ = try await client.send("XADD", RedisArgument(stream), "*", "n", RedisArgument(n)) }
        // "fast" read and acknowledged everything; "slow" read 20 and acknowledged 10.
        let fast = try StreamConsumer.entries(
            fromRead: try await client.send("XREADGROUP", "GROUP", "fast", "f", "STREAMS", RedisArgument(stream), ">"))
        _ = try await client.send(["XACK", RedisArgument(stream), "fast"] + fast.map { RedisArgument($0.id) })
        let slow = try StreamConsumer.entries(
            fromRead: try await client.send(
                "XREADGROUP", "GROUP", "slow", "s", "COUNT", "20", "STREAMS", RedisArgument(stream), ">"))
        _ = try await client.send(
            ["XACK", RedisArgument(stream), "slow"] + slow.prefix(10).map { RedisArgument($0.id) })

        let trimmer = StreamTrimmer(client: client, maxLength: 5, report: { _ in })
        _ = await trimmer.trim([stream])
        // Entries 11... are pending with "slow" (11-20) or not yet delivered to it (21-50).
        let remaining = try await client.send("XRANGE", RedisArgument(stream), "-", "+")
        let ids = try #require(remaining.array).compactMap { $0.array?.first?.string }
        #expect(ids == fast.suffix(40).map(\.id))

        // Once "slow" acknowledges everything, the length limit applies.
        let rest = try StreamConsumer.entries(
            fromRead: try await client.send("XREADGROUP", "GROUP", "slow", "s", "STREAMS", RedisArgument(stream), ">"))
        _ = try await client.send(
            ["XACK", RedisArgument(stream), "slow"] + (slow.suffix(10) + rest).map { RedisArgument($0.id) })
        _ = await trimmer.trim([stream])
        #expect(try await client.send("XLEN", RedisArgument(stream)).int == 5)
        client.close()
    }

    @Test("Trimming keeps every entry while a group has read nothing yet (last delivered ID 0-0)")
    func trimmingWithUnreadGroup() async throws {
        let server = try RedisServer()
        let stream = "test:trim-unread"
        let client = RedisClient(server.configuration)
        // A group created on an empty stream starts at 0-0; its consumer has not read since.
        _ = try await client.send("XGROUP", "CREATE", RedisArgument(stream), "idle", "$", "MKSTREAM")
        for n in 1...10 { _ = try await client.send("XADD", RedisArgument(stream), "*", "n", RedisArgument(n)) }

        let errors = ErrorLog()
        let trimmer = StreamTrimmer(client: client, maxLength: 5, report: { errors.record($0) })
        _ = await trimmer.trim([stream])
        #expect(errors.all.isEmpty)
        #expect(try await client.send("XLEN", RedisArgument(stream)).int == 10)
        client.close()
    }

    @Test("A consumer group lost with the server's data is created again from the stream's start")
    func recreatesLostGroupFromStart() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try consumer.carry(Sequenced.self, mode: .stream)
        try await consumer.start()

        // The server loses its data (as after a restart without persistence), and another
        // process publishes before the consumer has set its group up again: the stream exists,
        // the group does not.
        let stream = "test:" + Sequenced.wireName
        func event(_ n: Int) -> RedisArgument { foreignMessage(type: Sequenced.wireName, n: n) }
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline([["FLUSHALL"], ["XADD", RedisArgument(stream), "*", "event", event(1)]])
        // The reader notices the lost group on its next read and backs off before re-creating
        // it: well under a second alone, but 2 s ran out once in eight sanitizer runs of the
        // whole suite. The wait ends as soon as the events are there.
        #expect(await eventually { received.values == [1] })
        _ = try await client.send("XADD", RedisArgument(stream), "*", "event", event(2))
        #expect(await eventually { received.values == [1, 2] })
        #expect(errors.all.contains(.consumerGroupLost(stream: stream, group: "c")), "the loss is reported")
        #expect(consumer.statistics.consumerGroupsLost == 1)
        withExtendedLifetime(listener) {}
        client.close()
        await consumer.stop()
    }

    @Test("flush waits while Redis is down, and returns when its task is cancelled or its timeout passes")
    func flushWhileDown() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let publisher = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream)
        try await publisher.start()
        server.kill()
        center.dispatch(Sequenced(n: 1))

        let flushed = Counter()
        let flushing = Task {
            await publisher.flush()
            flushed.increment()
        }
        #expect(await !publisher.flush(timeout: .milliseconds(100)))
        #expect(flushed.value == 0, "nothing was acknowledged")
        flushing.cancel()
        #expect(await eventually { flushed.value == 1 })

        try server.restart()
        #expect(await publisher.flush(timeout: .seconds(15)))
        await publisher.stop()
    }

    @Test("A refused XADD is retried alone: events on other streams are stored once and not held back")
    func refusedPublishIsRetriedAlone() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let publisher = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        // Outgoing only: a consumer of these streams would fail on the overwritten key too, and
        // its errors would count with the publisher's below.
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try publisher.carry(ShipmentSent.self, mode: .stream, direction: .outgoing)
        try await publisher.start()
        // Someone overwrote one stream's key with a string: XADD to it fails with WRONGTYPE.
        let blocked = RedisArgument("test:" + Sequenced.wireName)
        let open = RedisArgument("test:" + ShipmentSent.wireName)
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline([["DEL", blocked], ["SET", blocked, "not a stream"]])

        center.dispatch(Sequenced(n: 1))
        center.dispatch(ShipmentSent(orderID: "A-1"))
        #expect(await eventually { publisher.statistics.redisErrors >= 3 }, "retried")
        #expect(try await client.send("XLEN", open).int == 1)
        #expect(await !publisher.flush(timeout: .milliseconds(50)), "the refused event is not acknowledged")

        center.dispatch(ShipmentSent(orderID: "A-2"))
        #expect(try await eventually { try await client.send("XLEN", open).int == 2 })

        _ = try await client.send("DEL", blocked)
        #expect(await publisher.flush(timeout: .seconds(15)))
        #expect(try await client.send("XLEN", blocked).int == 1)
        #expect(try await client.send("XLEN", open).int == 2)
        client.close()
        await publisher.stop()
    }

    @Test("An entry over the client's frame limit is reported and acknowledged; the stream goes on")
    func oversizedEntryDoesNotStall() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let stream = "test:" + Sequenced.wireName
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configuration.redis.limits.maxBulkBytes = 4_096
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(center: center, configuration: configuration)
        try consumer.carry(Sequenced.self, mode: .stream)
        try await consumer.start()

        let client = RedisClient(server.configuration)
        func event(_ n: Int, padding: Int = 0) -> RedisArgument {
            foreignMessage(type: Sequenced.wireName, n: n, padding: padding)
        }
        _ = try await client.pipeline([
            ["XADD", RedisArgument(stream), "*", "event", event(1)],
            ["XADD", RedisArgument(stream), "*", "event", event(2, padding: 10_000)],
            ["XADD", RedisArgument(stream), "*", "event", event(3)],
        ])
        #expect(await eventually { received.count == 2 })
        #expect(received.values == [1, 3])
        #expect(
            await eventually {
                errors.all.contains { error in
                    error.code == .invalidMessage && error.cloudEventError?.reason.contains("frame limit") == true
                }
            })
        #expect(consumer.statistics.invalidMessages == 1)
        #expect(
            try await eventually {
                (try await client.send("XPENDING", RedisArgument(stream), "c")).array?.first?.int == 0
            })
        withExtendedLifetime(listener) {}
        client.close()
        await consumer.stop()
    }

    @Test("A Pub/Sub message over the frame limit is reported; Pub/Sub reception goes on")
    func oversizedPubSubMessageDoesNotStall() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let channel = "test:" + PubSubSequenced.wireName
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configuration.redis.limits.maxBulkBytes = 4_096
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: PubSubSequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(center: center, configuration: configuration)
        try consumer.carry(PubSubSequenced.self, mode: .pubSub)
        try await consumer.start()

        let client = RedisClient(server.configuration)
        func event(_ n: Int, padding: Int = 0) -> RedisArgument {
            foreignMessage(type: PubSubSequenced.wireName, n: n, padding: padding)
        }
        _ = try await client.send("PUBLISH", RedisArgument(channel), event(1, padding: 10_000))
        #expect(
            await eventually {
                errors.all.contains { error in
                    error.code == .redis && error.cause?.code == .frameTooLarge
                }
            })
        // Publish until one arrives: messages sent while the subscription reconnects are lost.
        var n = 2
        let arrived = await eventually {
            _ = try? await client.send("PUBLISH", RedisArgument(channel), event(n))
            n += 1
            return received.count > 0
        }
        #expect(arrived)
        #expect(!received.values.contains(1))
        withExtendedLifetime(listener) {}
        client.close()
        await consumer.stop()
    }

    @Test("A Pub/Sub subscription refused after a password change is retried until it works again")
    func pubSubSurvivesCredentialRotation() async throws {
        let server = try RedisServer(user: (name: "bridge", password: "first"))
        let errors = ErrorLog()
        let channel = "test:" + PubSubSequenced.wireName
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configuration.redis.username = "bridge"
        configuration.redis.password = "first"
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: PubSubSequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(center: center, configuration: configuration)
        try consumer.carry(PubSubSequenced.self, mode: .pubSub)
        try await consumer.start()

        // The password changes and the bridge's connections are dropped: reconnecting is refused.
        let admin = RedisClient(server.configuration)
        _ = try await admin.send("ACL", "SETUSER", "bridge", "resetpass", ">second")
        _ = try await admin.send("CLIENT", "KILL", "USER", "bridge")
        #expect(
            await eventually {
                errors.all.contains { error in
                    error.code == .redis && error.cause?.code == .authenticationFailed
                }
            })

        // The old password is accepted again: the receiver subscribes again by itself.
        _ = try await admin.send("ACL", "SETUSER", "bridge", ">first")
        func event(_ n: Int) -> RedisArgument { foreignMessage(type: PubSubSequenced.wireName, n: n) }
        var n = 1
        let arrived = await eventually {
            _ = try? await admin.send("PUBLISH", RedisArgument(channel), event(n))
            n += 1
            return received.count > 0
        }
        #expect(arrived)
        withExtendedLifetime(listener) {}
        admin.close()
        await consumer.stop()
    }

    @Test("stop() called while start() runs waits for it, then stops what it started")
    func stopDuringStart() async throws {
        let server = try RedisServer()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "a", errors: ErrorLog()))
        try bridge.carry(Sequenced.self, mode: .stream)
        try bridge.carry(PubSubSequenced.self, mode: .pubSub)
        // With the server down, start() keeps trying to connect: a window to stop in.
        server.kill()
        async let started: Void = bridge.start()
        #expect(await eventually { bridge.isStarting }, "start() is in progress")
        try server.restart()
        await bridge.stop()
        try await started
        // Stopped: the bridge no longer listens, so a local dispatch reaches no one.
        #expect(center.listenerCount(for: Sequenced.self) == 0)
        #expect(center.dispatch(PubSubSequenced(n: 1)) == 0)
    }

    @Test("carry rejects a second type with the same wire name, and any carry after start")
    func carryRules() async throws {
        let server = try RedisServer()
        let bridge = RedisBridge(
            center: EventCenter(), configuration: bridgeConfiguration(server, source: "a", errors: ErrorLog()))
        try bridge.carry(Sequenced.self, mode: .stream)
        #expect(throws: RedisBridgeError.duplicateWireName(Sequenced.wireName)) {
            try bridge.carry(EventName(rawValue: Sequenced.wireName), mode: .pubSub)
        }
        try await bridge.start()
        #expect(throws: RedisBridgeError.alreadyStarted) { try bridge.carry(ShipmentSent.self, mode: .pubSub) }
        await bridge.stop()
    }

    @Test("start throws a typed error when Redis cannot be reached, and can be retried")
    func startFailsWhenUnreachable() async throws {
        let server = try RedisServer()
        server.kill()
        let bridge = RedisBridge(
            center: EventCenter(), configuration: bridgeConfiguration(server, source: "a", errors: ErrorLog()))
        try bridge.carry(Sequenced.self, mode: .stream)
        await #expect(throws: RedisBridgeError.self) { try await bridge.start() }
        try server.restart()
        try await bridge.start()
        await bridge.stop()
    }
}

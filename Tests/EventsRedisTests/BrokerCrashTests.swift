import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite("Broker crash", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct BrokerCrashTests {
    /// The server is killed with SIGKILL in the middle of a run of events and restarted from its
    /// append-only file. Every event sent through a stream must arrive exactly once; Pub/Sub
    /// events sent in the same run may be lost, and the test reports how many were. Run with
    /// each event a message of its own, and with events packed into batches (the events held
    /// back while Redis is down go out packed).
    @Test(
        "Killing Redis mid-stream loses no stream event and delivers none twice",
        arguments: [1, 16])
    func exactlyOnceAcrossACrash(maxEventsPerMessage: Int) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let total = 1_000

        let receivingCenter = EventCenter()
        let streamed = Log<Int>()
        let broadcast = Log<Int>()
        // The handler of one event holds until Redis is down, so that the crash lands while
        // entries are delivered but not yet acknowledged. It runs on a queue of its own: held on
        // the posting thread it would block a thread of the concurrency pool, and the two cases
        // of this test running at once would then hold both of them.
        let crashPoint = total / 10
        let heldHandler = Gate()
        let handlerQueue = DispatchQueue(label: "broker-crash.handler")
        let streamListener = receivingCenter.listen(to: Sequenced.self, on: .queue(handlerQueue)) { event in
            if event.n == crashPoint { heldHandler.pass() }
            streamed.append(event.n)
        }
        let broadcastListener = receivingCenter.listen(to: PubSubSequenced.self) { broadcast.append($0.n) }
        let receiver = RedisBridge(
            center: receivingCenter, configuration: bridgeConfiguration(server, source: "receiver", errors: errors))
        try receiver.carry(Sequenced.self, mode: .stream)
        try receiver.carry(PubSubSequenced.self, mode: .pubSub)
        try await receiver.start()

        let publishingCenter = EventCenter()
        var publisherConfiguration = bridgeConfiguration(server, source: "publisher", errors: errors)
        publisherConfiguration.maxEventsPerMessage = maxEventsPerMessage
        let publisher = RedisBridge(center: publishingCenter, configuration: publisherConfiguration)
        try publisher.carry(Sequenced.self, mode: .stream)
        try publisher.carry(PubSubSequenced.self, mode: .pubSub)
        try await publisher.start()

        // Events go out before the crash, while Redis is down, and after it comes back.
        func publish(_ numbers: ClosedRange<Int>) {
            for n in numbers {
                publishingCenter.dispatch(Sequenced(n: n))
                publishingCenter.dispatch(PubSubSequenced(n: n))
            }
        }
        publish(1...(total * 3 / 10))
        #expect(
            await eventually { heldHandler.isReached }, "the receiver reached event \(crashPoint): \(streamed.count)")
        server.kill()
        let receivedAtCrash = streamed.count
        heldHandler.open()
        publish((total * 3 / 10 + 1)...(total * 7 / 10))
        // The events just dispatched wait in the publisher's queue, whether or not it has tried
        // them yet. The receiver has met the dead server before it comes back (when its
        // connection was idle at the crash, that shows only once its reconnect attempts have
        // run out, a few seconds).
        #expect(
            await eventually { receiver.statistics.redisErrors > 0 },
            "the receiver saw the connection break: \(receiver.statistics)")
        try server.restart()
        publish((total * 7 / 10 + 1)...total)
        await publisher.flush()
        #expect(await eventually { Set(streamed.values).count == total })
        // Redeliveries of the entries left pending at the crash must be suppressed.
        await waitToShowNothingArrives(for: .milliseconds(500))

        let values = streamed.values
        var seen = Set<Int>()
        let duplicates = values.filter { !seen.insert($0).inserted }
        let lost = Set(1...total).subtracting(seen)
        #expect(lost.isEmpty, "lost stream events: \(lost.sorted())")
        #expect(duplicates.isEmpty, "delivered twice: \(duplicates)")

        let broadcastValues = broadcast.values
        let pubSubLost = total - Set(broadcastValues).count
        #expect(receivedAtCrash < total, "the crash happened mid-stream")
        #expect(receiver.statistics.redisErrors > 0, "the receiver saw the connection break")
        print(
            "\(maxEventsPerMessage) events per message at most: broker crash at \(receivedAtCrash)/\(total) received: streams delivered \(Set(values).count)/\(total) exactly once "
                + "(\(receiver.statistics.duplicatesSuppressed) redeliveries suppressed); "
                + "Pub/Sub delivered \(Set(broadcastValues).count)/\(total), lost \(pubSubLost) "
                + "(\(publisher.statistics.pubSubLost) reported lost by the publisher)")
        #expect(Set(broadcastValues).count == broadcastValues.count, "Pub/Sub never delivers twice either")
        _ = (streamListener, broadcastListener)
        await publisher.stop()
        await receiver.stop()
    }
}

extension BrokerCrashTests {
    /// Redis crashes and comes back with nothing: no streams, no consumer groups. The bridges
    /// must notice, create their groups again and say that entries may have been lost, and go
    /// on carrying events, instead of waiting for ever on a group that no longer exists.
    @Test(
        "Redis restarted with an empty dataset: the consumer group is created again, the loss reported, and events flow"
    )
    func restartWithEmptyDataset() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let receivingCenter = EventCenter()
        let streamed = Log<Int>()
        let broadcast = Log<Int>()
        let listeners = [
            receivingCenter.listen(to: Sequenced.self) { streamed.append($0.n) },
            receivingCenter.listen(to: PubSubSequenced.self) { broadcast.append($0.n) },
        ]
        let receiver = RedisBridge(
            center: receivingCenter, configuration: bridgeConfiguration(server, source: "receiver", errors: errors))
        try receiver.carry(Sequenced.self, mode: .stream)
        try receiver.carry(PubSubSequenced.self, mode: .pubSub)
        try await receiver.start()
        let publishingCenter = EventCenter()
        let publisher = RedisBridge(
            center: publishingCenter, configuration: bridgeConfiguration(server, source: "publisher", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try publisher.carry(PubSubSequenced.self, mode: .pubSub, direction: .outgoing)
        try await publisher.start()

        for n in 1...20 { publishingCenter.dispatch(Sequenced(n: n)) }
        #expect(await eventually { streamed.count == 20 })

        try server.restartEmpty()
        for n in 21...40 { publishingCenter.dispatch(Sequenced(n: n)) }
        #expect(await publisher.flush(timeout: .seconds(15)))
        #expect(await eventually { streamed.count == 40 }, "events flow again: \(streamed.count) of 40")
        #expect(streamed.values == Array(1...40))

        // The receiver says its group was gone and created again, once.
        let stream = "test:" + Sequenced.wireName
        let lost = errors.all.filter { error in
            error == .consumerGroupLost(stream: stream, group: "receiver")
        }
        #expect(lost.count == 1, "\(errors.all)")
        #expect(receiver.statistics.consumerGroupsLost == 1)
        let client = RedisClient(server.configuration)
        let groups = try await client.send("XINFO", "GROUPS", RedisArgument(stream))
        #expect(groups.array?.count == 1)

        // Pub/Sub subscribed again too.
        var n = 0
        let arrived = await eventually {
            n += 1
            publishingCenter.dispatch(PubSubSequenced(n: n))
            return broadcast.count > 0
        }
        #expect(arrived)
        withExtendedLifetime(listeners) {}
        client.close()
        await publisher.stop()
        await receiver.stop()
    }
}

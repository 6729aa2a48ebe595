import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

/// The bridge behind a TCP proxy that stalls, black-holes or resets its connections (see
/// ``FaultProxy``): the publishing and the receiving bridge each talk to Redis through a proxy
/// of their own, so that the test sees which of them noticed and reconnected.
@Suite(
    "Redis bridge: network faults", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct BridgeNetworkFaultTests {
    enum Fault: String, Sendable, CustomTestStringConvertible {
        case stall, blackHole, reset
        var testDescription: String { rawValue }
    }

    /// A configuration through `proxy`, with short timeouts so that a dead connection is
    /// noticed quickly.
    private func configuration(
        _ server: RedisServer, through proxy: FaultProxy, source: String, errors: ErrorLog
    ) -> RedisBridge.Configuration {
        var configuration = bridgeConfiguration(server, source: source, errors: errors)
        configuration.redis.port = proxy.port
        configuration.redis.connectTimeout = .milliseconds(500)
        configuration.redis.replyTimeout = .milliseconds(500)
        configuration.healthCheckInterval = .milliseconds(200)
        return configuration
    }

    private func apply(_ fault: Fault, to proxies: [FaultProxy]) {
        for proxy in proxies {
            switch fault {
            case .stall: proxy.mode = .stall
            case .blackHole: proxy.mode = .blackHole
            case .reset: proxy.resetConnections()
            }
        }
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = (ContinuousClock.now - start).components
        return Int(elapsed.seconds) * 1000 + Int(elapsed.attoseconds / 1_000_000_000_000_000)
    }

    @Test(
        "Streams: when the connections stall, go silent or are reset, both bridges notice, reconnect and lose nothing",
        arguments: [Fault.stall, .blackHole, .reset])
    func streamsLoseNothing(fault: Fault) async throws {
        let server = try RedisServer()
        let consumerProxy = try FaultProxy(upstreamPort: server.port)
        let publisherProxy = try FaultProxy(upstreamPort: server.port)
        let consumerErrors = ErrorLog()
        let publisherErrors = ErrorLog()
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(
            center: center,
            configuration: configuration(server, through: consumerProxy, source: "c", errors: consumerErrors))
        try consumer.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await consumer.start()
        let publishingCenter = EventCenter()
        let publisher = RedisBridge(
            center: publishingCenter,
            configuration: configuration(server, through: publisherProxy, source: "p", errors: publisherErrors))
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await publisher.start()
        func publish(_ numbers: ClosedRange<Int>) {
            for n in numbers { publishingCenter.dispatch(Sequenced(n: n)) }
        }

        publish(1...20)
        #expect(await eventually { received.count == 20 })
        let connections = (consumerProxy.acceptedCount, publisherProxy.acceptedCount)
        let faulted = ContinuousClock.now
        apply(fault, to: [consumerProxy, publisherProxy])
        publish(21...40)
        // Each bridge drops its connection and dials again: at once after a reset (a reset
        // connection found idle is replaced before anything is written, with nothing to
        // report), after a read or an XADD that times out when the connection goes silent.
        #expect(await eventually { consumerProxy.acceptedCount > connections.0 }, "the consumer reconnects")
        #expect(await eventually { publisherProxy.acceptedCount > connections.1 }, "the publisher reconnects")
        if fault != .reset {
            #expect(await eventually { consumer.statistics.redisErrors > 0 }, "the consumer reported it")
            #expect(await eventually { publisher.statistics.redisErrors > 0 }, "the publisher reported it")
        }
        let noticedAfter = milliseconds(since: faulted)
        consumerProxy.mode = .forward
        publisherProxy.mode = .forward
        publish(41...60)

        #expect(await publisher.flush(timeout: .seconds(15)))
        #expect(await eventually { Set(received.values) == Set(1...60) })
        let values = received.values
        #expect(values.count == 60, "delivered once each: \(values.count) deliveries")
        #expect(consumer.statistics.delivered == 60)
        #expect(publisher.statistics.published >= 60, "a retry may add an entry twice; never fewer")
        for error in consumerErrors.all + publisherErrors.all {
            guard error.code == .redis else {
                Issue.record("only connection errors are reported: \(error)")
                continue
            }
        }
        print(
            "streams, \(fault): noticed after \(noticedAfter) ms; consumer \(consumer.statistics.redisErrors) Redis "
                + "errors, \(consumer.statistics.duplicatesSuppressed) redeliveries suppressed, \(consumer.statistics.claimed) claimed; publisher "
                + "\(publisher.statistics.redisErrors) Redis errors, \(publisher.statistics.published) XADDs for 60 events"
        )
        withExtendedLifetime(listener) {}
        await publisher.stop()
        await consumer.stop()
        consumerProxy.stop()
        publisherProxy.stop()
    }

    @Test(
        "Pub/Sub: when the connections stall, go silent or are reset, the receiver notices and subscribes again, and every loss is reported",
        arguments: [Fault.stall, .blackHole, .reset])
    func pubSubReportsLosses(fault: Fault) async throws {
        let server = try RedisServer()
        let receiverProxy = try FaultProxy(upstreamPort: server.port)
        let publisherProxy = try FaultProxy(upstreamPort: server.port)
        let receiverErrors = ErrorLog()
        let publisherErrors = ErrorLog()
        let center = EventCenter()
        let received = Log<Int>()
        let listener = center.listen(to: PubSubSequenced.self) { received.append($0.n) }
        let receiver = RedisBridge(
            center: center,
            configuration: configuration(server, through: receiverProxy, source: "r", errors: receiverErrors))
        try receiver.carry(PubSubSequenced.self, mode: .pubSub, direction: .incoming)
        try await receiver.start()
        let publishingCenter = EventCenter()
        let publisher = RedisBridge(
            center: publishingCenter,
            configuration: configuration(server, through: publisherProxy, source: "p", errors: publisherErrors))
        try publisher.carry(PubSubSequenced.self, mode: .pubSub, direction: .outgoing)
        try await publisher.start()
        var sent = 0
        func publish(_ count: Int) {
            for _ in 0..<count {
                sent += 1
                publishingCenter.dispatch(PubSubSequenced(n: sent))
            }
        }

        publish(10)
        #expect(await eventually { received.count == 10 })
        let receiverConnections = receiverProxy.acceptedCount
        let faulted = ContinuousClock.now
        apply(fault, to: [receiverProxy, publisherProxy])
        publish(10)
        // The receiver drops its connection (reset at once; silent, after a health check that
        // gets no answer) and dials again.
        #expect(await eventually { receiverProxy.acceptedCount > receiverConnections }, "the receiver noticed")
        let noticedAfter = milliseconds(since: faulted)
        if fault != .reset {
            #expect(await eventually { publisher.statistics.pubSubLost > 0 }, "the publisher reported its losses")
        }
        receiverProxy.mode = .forward
        publisherProxy.mode = .forward

        // Messages sent while the receiver subscribes again are lost too: send until one arrives.
        let before = received.count
        var arrived = false
        let deadline = ContinuousClock.now + .seconds(15)
        while !arrived, ContinuousClock.now < deadline {
            publish(1)
            _ = await publisher.flush(timeout: .seconds(5))
            arrived = await eventually(timeout: .milliseconds(100)) { received.count > before }
        }
        #expect(arrived, "Pub/Sub reception resumed")
        #expect(await publisher.flush(timeout: .seconds(10)))

        // Every event the publisher did not get into Redis is reported, one by one ...
        let statistics = publisher.statistics
        #expect(statistics.published + statistics.pubSubLost == sent, "\(statistics)")
        let lostReports = publisherErrors.all.filter { $0.code == .pubSubEventLost }
        #expect(lostReports.count == statistics.pubSubLost)
        // ... and the receiver reports the gap in which it missed what was published.
        #expect(receiverErrors.all.contains { $0.code == .redis }, "\(receiverErrors.all)")
        #expect(receiver.statistics.redisErrors > 0)
        // What arrives was sent, and arrives once.
        let values = received.values
        #expect(Set(values).count == values.count, "no event arrives twice")
        #expect(Set(values).isSubset(of: Set(1...sent)))
        print(
            "Pub/Sub, \(fault): receiver noticed after \(noticedAfter) ms; \(sent) sent, \(statistics.published) "
                + "published, \(statistics.pubSubLost) reported lost by the publisher, \(values.count) received, "
                + "\(receiver.statistics.redisErrors) gaps reported by the receiver")
        withExtendedLifetime(listener) {}
        await publisher.stop()
        await receiver.stop()
        receiverProxy.stop()
        publisherProxy.stop()
    }

    @Test(
        "A Pub/Sub event lost with its connection is reported as possibly published; one Redis refused, as not published"
    )
    func pubSubLossReportsSayWhatIsKnown() {
        // The connection may fail after Redis ran the PUBLISH and before its reply came back:
        // the reset case above received events that their publisher had to report.
        let broken = RedisBridgeError.pubSubEventLost(type: "t", id: "p-1", cause: .connectionClosed)
        #expect(broken.description.contains("may not have been published"), "\(broken)")
        #expect(broken.description.contains("not retried"), "\(broken)")
        let refused = RedisBridgeError.pubSubEventLost(type: "t", id: "p-1", cause: .server("ERR no"))
        #expect(refused.description.contains("was not published"), "\(refused)")
    }
}

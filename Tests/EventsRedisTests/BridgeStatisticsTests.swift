import Events
import Foundation
import RedisTestSupport
import Testing

@testable import EventsRedis

/// The statistics snapshot: every counter and gauge, and the periodic updates for metrics.
@Suite("Redis bridge statistics")
struct BridgeStatisticsTests {
    @Test("The snapshot carries the redelivery, dead-letter, retry and pending-entry figures of the counters")
    func snapshotCarriesFailureFigures() {
        let counters = BridgeCounters()
        counters.redelivered.increment(by: 2)
        counters.deadLettered.increment(by: 3)
        counters.retriesScheduled.increment(by: 5)
        counters.pendingEntries.increment(by: 7)
        counters.delivered.increment(by: 11)
        let statistics = counters.snapshot
        #expect(statistics.redelivered == 2)
        #expect(statistics.deadLettered == 3)
        #expect(statistics.retriesScheduled == 5)
        #expect(statistics.pendingEntries == 7)
        #expect(statistics.delivered == 11)
        #expect(statistics.description.contains("redelivered 2, dead-lettered 3, retries scheduled 5"))
        #expect(statistics.description.hasSuffix("pending entries 7"), "\(statistics)")
    }

    @Test("The publish buffer gauges count the events waiting for Redis, per mode, and fall to zero at stop")
    func publishBufferGauges() async throws {
        let errors = ErrorLog()
        let center = EventCenter()
        var configuration = RedisBridge.Configuration(source: "gauges")
        configuration.errorHandler = { errors.record($0) }
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try bridge.carry(PubSubSequenced.self, mode: .pubSub, direction: .outgoing)
        // Never started: what is dispatched waits in the buffers.
        for n in 1...3 { center.dispatch(Sequenced(n: n)) }
        for n in 1...2 { center.dispatch(PubSubSequenced(n: n)) }
        let waiting = bridge.statistics
        #expect(waiting.streamPublishBufferDepth == 3)
        #expect(waiting.pubSubPublishBufferDepth == 2)
        #expect(waiting.publishBufferDepth == 5)
        #expect(waiting.description.contains("publish buffer 5 (stream 3, Pub/Sub 2)"), "\(waiting)")

        await bridge.stop()
        let stopped = bridge.statistics
        #expect(stopped.publishBufferDepth == 0)
        #expect(stopped.unpublishedAtStop == 5)
        #expect(errors.all == [.stoppedWithUnpublishedEvents(5)])
    }

    @Test(
        "statisticsUpdates gives a snapshot at once, then one per interval, and a last one once the bridge stopped",
        .timeLimit(.minutes(1)))
    func updatesUntilStopped() async throws {
        let center = EventCenter()
        var configuration = RedisBridge.Configuration(source: "updates")
        configuration.errorHandler = { _ in }
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        let snapshots = Log<RedisBridge.Statistics>()
        let updates = bridge.statisticsUpdates(every: .milliseconds(20))
        let reading = Task {
            for await statistics in updates { snapshots.append(statistics) }
        }
        #expect(await eventually { snapshots.count >= 1 })
        #expect(snapshots.values.first?.publishBufferDepth == 0)

        for n in 1...4 { center.dispatch(Sequenced(n: n)) }
        // A later snapshot shows what changed since.
        #expect(await eventually { snapshots.values.contains { $0.streamPublishBufferDepth == 4 } })

        await bridge.stop()
        await reading.value
        let last = try #require(snapshots.values.last)
        #expect(last.unpublishedAtStop == 4)
        #expect(last.publishBufferDepth == 0)
        #expect(snapshots.values.dropLast().allSatisfy { $0.unpublishedAtStop == 0 })
    }

    @Test("statisticsUpdates ends when the iterating task is cancelled", .timeLimit(.minutes(1)))
    func updatesEndOnCancellation() async throws {
        var configuration = RedisBridge.Configuration(source: "updates")
        configuration.errorHandler = { _ in }
        let bridge = RedisBridge(center: EventCenter(), configuration: configuration)
        let received = Log<RedisBridge.Statistics>()
        let updates = bridge.statisticsUpdates(every: .seconds(3600))
        let reading = Task {
            for await statistics in updates { received.append(statistics) }
        }
        #expect(await eventually { received.count == 1 })
        // Waiting an hour for the second snapshot, the sequence ends on cancellation instead.
        reading.cancel()
        await reading.value
        #expect(received.count == 1)
        withExtendedLifetime(bridge) {}
    }

    @Test("statisticsUpdates does not keep the bridge alive, and ends once it is let go", .timeLimit(.minutes(1)))
    func updatesEndWhenBridgeIsGone() async throws {
        var configuration = RedisBridge.Configuration(source: "updates")
        configuration.errorHandler = { _ in }
        weak var released: RedisBridge?
        var updates: AsyncStream<RedisBridge.Statistics>
        do {
            let bridge = RedisBridge(center: EventCenter(), configuration: configuration)
            released = bridge
            updates = bridge.statisticsUpdates(every: .milliseconds(10))
        }
        #expect(released == nil)
        var count = 0
        for await _ in updates { count += 1 }
        #expect(count == 0)
    }
}

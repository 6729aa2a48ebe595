import Events
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

/// Claims of pending entries (`XAUTOCLAIM`) and entries waiting for a retry: a live consumer
/// keeps what it waits to retry, and what a dead one left is claimed.
@Suite(
    "Retries and claims", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct RetryClaimTests {
    static let stream = "test:" + Sequenced.wireName
    /// Claims after 3 s idle, looked for every 100 ms (the test configuration's). A waiting entry
    /// is kept fresh every second: the guarantee holds while its consumer reaches Redis within
    /// two seconds, which leaves room for the pauses of a loaded machine running the whole
    /// suite in parallel (at 500 ms, a 250 ms pause let the other consumer claim it; at 2 s,
    /// kept every second, a continuous-integration run paused the holder for over a second).
    static let claimMinimumIdle = Duration.seconds(3)

    func publisher(_ server: RedisServer, errors: ErrorLog) async throws -> (EventCenter, RedisBridge) {
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await bridge.start()
        return (center, bridge)
    }

    /// A consumer named `name` of group "c" whose listener fails on an event's first delivery.
    func consumer(
        _ server: RedisServer, errors: ErrorLog, name: String, backoff: Duration,
        claimMinimumIdle: Duration = Self.claimMinimumIdle
    ) async throws -> FailingConsumer {
        try await FailingConsumer(
            server, errors: errors, policy: .retry(maxDeliveries: 3, backoff: .constant(backoff)),
            configure: { configuration in
                configuration.consumerName = name
                configuration.claimMinimumIdle = claimMinimumIdle
            }
        ) { _, count in count == 1 }
    }

    @Test("an entry waiting for a retry longer than claimMinimumIdle is retried after its backoff, by no claim before")
    func retryOutlastsClaimMinimumIdle() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let backoff = Duration.seconds(5)
        let holder = try await consumer(server, errors: errors, name: "c1", backoff: backoff)
        let (center, publisher) = try await publisher(server, errors: errors)
        center.dispatch(Sequenced(n: 1))
        #expect(await eventually { holder.deliveries.count == 1 })
        // Another live consumer of the group, claiming what has been idle for claimMinimumIdle.
        let other = try await consumer(server, errors: errors, name: "c2", backoff: backoff)

        let admin = RedisClient(server.configuration)
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        let deliveries = (holder.deliveries.values + other.deliveries.values).sorted { $0.at < $1.at }
        #expect(
            deliveries.map(\.count) == [1, 2],
            "holder \(holder.deliveries.values.map(\.count)), other \(other.deliveries.values.map(\.count))")
        if deliveries.count == 2 {
            let wait = deliveries[1].at - deliveries[0].at
            #expect(wait >= backoff, "retried \(wait) after the failed delivery")
        }
        #expect(other.deliveries.count == 0, "the live holder retries it")
        #expect(holder.bridge.statistics.claimed == 0 && other.bridge.statistics.claimed == 0)
        #expect(holder.bridge.statistics.retriesScheduled == 1)
        #expect(holder.bridge.statistics.redelivered == 1)
        await waitToShowNothingArrives()  // no third delivery
        #expect(holder.deliveries.count + other.deliveries.count == 2)
        #expect(errors.all.isEmpty)
        await publisher.stop()
        await other.bridge.stop()
        await holder.bridge.stop()
    }

    @Test("a claim pass that takes this consumer's own waiting entry leaves it waiting, its delivery count unchanged")
    func ownClaimPassLeavesWaitingEntry() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        // Every pass claims whatever is pending at all, so it takes the waiting entry each time.
        let backoff = Duration.milliseconds(600)
        let holder = try await consumer(server, errors: errors, name: "c1", backoff: backoff, claimMinimumIdle: .zero)
        let (center, publisher) = try await publisher(server, errors: errors)
        center.dispatch(Sequenced(n: 1))
        let admin = RedisClient(server.configuration)
        #expect(await eventually { holder.deliveries.count == 2 })
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        let deliveries = holder.deliveries.values
        #expect(deliveries.map(\.count) == [1, 2], "the passes' claims are not counted as deliveries")
        if deliveries.count == 2 {
            let wait = deliveries[1].at - deliveries[0].at
            #expect(wait >= backoff, "retried \(wait) after the failed delivery")
        }
        #expect(holder.bridge.statistics.claimed == 0)
        #expect(errors.all.isEmpty)
        await publisher.stop()
        await holder.bridge.stop()
    }

    @Test("an entry waiting for a retry with a consumer that died is claimed by another after claimMinimumIdle")
    func deadHolderEntryIsClaimed() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        // A retry far off: only a claim delivers it again within the test.
        let backoff = Duration.seconds(60)
        let holder = try await consumer(server, errors: errors, name: "c1", backoff: backoff)
        let (center, publisher) = try await publisher(server, errors: errors)
        center.dispatch(Sequenced(n: 1))
        #expect(await eventually { holder.deliveries.count == 1 })
        let other = try await consumer(server, errors: errors, name: "c2", backoff: backoff)
        // The holder stops reading, and so stops keeping its waiting entry: to the group it is
        // a consumer that died, the entry left pending with it.
        await holder.bridge.stop()
        let admin = RedisClient(server.configuration)
        #expect(try await pendingCount(admin, stream: Self.stream) == 1, "left pending by the stopped holder")

        #expect(await eventually { other.deliveries.count == 1 })
        #expect(try await eventually { try await pendingCount(admin, stream: Self.stream) == 0 })
        let failed = try #require(holder.deliveries.values.first)
        let claimed = try #require(other.deliveries.values.first)
        #expect(claimed.count == 2, "Redis counts the claim as the second delivery")
        #expect(claimed.at - failed.at >= Self.claimMinimumIdle)
        #expect(other.bridge.statistics.claimed == 1)
        #expect(holder.deliveries.count == 1)
        #expect(errors.all.isEmpty)
        await publisher.stop()
        await other.bridge.stop()
    }
}

import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

extension ClusterTopologyTests {
    @Suite("Dead letters on a cluster")
    struct ClusterDeadLetterTests {
        @Test("a failed event is dead-lettered on another shard and acknowledged; a replay delivers it again")
        func deadLetterAcrossShards() async throws {
            let cluster = try RedisCluster(masters: 3)
            // The stream and its dead letters on two different masters.
            let prefix = try cluster.prefixSpreading([Sequenced.wireName, Sequenced.wireName + ":dead"])
            let stream = prefix + Sequenced.wireName
            let errors = ErrorLog()
            let broken = Log<Bool>()
            broken.append(true)
            let consumerCenter = EventCenter()
            consumerCenter.errorHandler = { _ in }
            let deliveries = Log<Int>()
            let listener = consumerCenter.listen(to: Sequenced.self) { event in
                deliveries.append(event.n)
                if broken.values.last == true { throw ListenerBroke(attempt: deliveries.count) }
            }
            let (consumer, publisher, center) = try await startBridges(
                cluster, prefix: prefix, errors: errors, consumerCenter: consumerCenter,
                failurePolicy: .retry(maxDeliveries: 2, backoff: .constant(.milliseconds(20))))

            center.dispatch(Sequenced(n: 7))
            #expect(try await eventually { try await consumer.deadLetters(of: Sequenced.self).count == 1 })
            let admin = RedisClient(cluster.clientConfiguration)
            defer { admin.close() }
            #expect(try await eventually { try await pendingCount(admin, stream: stream) == 0 })
            let letter = try #require(try await consumer.deadLetters(of: Sequenced.self).first)

            broken.append(false)
            _ = try await consumer.replay(letter)
            #expect(await eventually { deliveries.values == [7, 7, 7] })
            #expect(try await consumer.deadLetters(of: Sequenced.self).isEmpty)
            #expect(errors.all.allSatisfy { $0.code != .redis }, "\(errors.all)")
            _ = listener
            await publisher.stop()
            await consumer.stop()
        }

        @Test("a dead letter written whose acknowledgement then fails is counted, reported and left pending")
        func deadLetterWrittenButNotAcknowledged() async throws {
            let cluster = try RedisCluster(masters: 3)
            let prefix = try cluster.prefixSpreading([Sequenced.wireName, Sequenced.wireName + ":dead"])
            let stream = prefix + Sequenced.wireName
            let errors = ErrorLog()
            let consumerCenter = EventCenter()
            consumerCenter.errorHandler = { _ in }
            let listener = consumerCenter.listen(to: Sequenced.self) { _ in throw ListenerBroke(attempt: 1) }
            let (consumer, publisher, center) = try await startBridges(
                cluster, prefix: prefix, errors: errors, consumerCenter: consumerCenter,
                failurePolicy: .retry(maxDeliveries: 1))
            // Every master refuses XACK from now on: the letter goes to its shard, the
            // acknowledgement on the stream's shard fails after it.
            for master in cluster.masters { try cluster.command(on: master, ["ACL", "SETUSER", "default", "-xack"]) }

            center.dispatch(Sequenced(n: 7))
            #expect(try await eventually { try await consumer.deadLetters(of: Sequenced.self).count == 1 })
            #expect(
                await eventually { errors.all.contains { $0.code == .redis } }, "the failed acknowledgement is reported"
            )
            #expect(consumer.statistics.deadLettered == 1, "the letter Redis holds is counted")
            let admin = RedisClient(cluster.clientConfiguration)
            defer { admin.close() }
            #expect(try await pendingCount(admin, stream: stream) == 1, "the entry stays pending, to be settled again")

            for master in cluster.masters { try cluster.command(on: master, ["ACL", "SETUSER", "default", "+xack"]) }
            withExtendedLifetime(listener) {}
            await publisher.stop()
            await consumer.stop()
        }

        /// A started consumer of `Sequenced` on `consumerCenter` with `failurePolicy`, and a
        /// started publisher of it with its center.
        private func startBridges(
            _ cluster: RedisCluster, prefix: String, errors: ErrorLog, consumerCenter: EventCenter,
            failurePolicy: RedisBridge.FailurePolicy
        ) async throws -> (consumer: RedisBridge, publisher: RedisBridge, center: EventCenter) {
            var configuration = cluster.bridgeConfiguration(source: "c", prefix: prefix, errors: errors)
            configuration.failurePolicy = failurePolicy
            let consumer = RedisBridge(center: consumerCenter, configuration: configuration)
            try consumer.carry(Sequenced.self, mode: .stream, direction: .incoming)
            try await consumer.start()
            let center = EventCenter()
            let publisher = RedisBridge(
                center: center, configuration: cluster.bridgeConfiguration(source: "p", prefix: prefix, errors: errors))
            try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
            try await publisher.start()
            return (consumer, publisher, center)
        }
    }
}

import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@Suite("events-redis on a Redis Cluster", .serialized, .oneClusterAtATime, needsRedis)
struct ClusterCommandTests {
    @Test("status, dead-letters and check work on a local cluster")
    func statusOnCluster() async throws {
        let cluster = try RedisCluster(masters: 3)
        let redis = cluster.clientConfiguration
        let consumer = try await Consumer(redis, group: "billing", partitions: 4, failing: [3])
        let publisher = try await Publisher(redis, partitions: 4)
        await publisher.publishAndWait(0..<12)
        #expect(await eventually { consumer.received.count == 11 })
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 1 })
        #expect(await acknowledged(redis, sequencedStreams(partitions: 4), group: "billing"))
        let arguments = ["--cluster", "127.0.0.1:\(cluster.masters[0].port)"]

        let status = try await runCommand(arguments + ["status", "--json"])
        #expect(status.status == 0, "\(status)")
        let types = try #require(try status.object()["types"] as? [[String: Any]])
        #expect(types.count == 1)
        #expect(types.first?["partitions"] as? Int == 4)
        #expect(types.first?["length"] as? Int == 12)
        #expect(types.first?["deadLetters"] as? Int == 1)
        #expect(types.first?["pending"] as? Int == 0)

        let letters = try await runCommand(arguments + ["dead-letters", "list", Sequenced.wireName, "--json"])
        #expect(letters.status == 0, "\(letters)")
        #expect((try letters.object()["deadLetters"] as? [Any])?.count == 1)

        let check = try await runCommand(arguments + ["check"])
        #expect(check.status == 0, "\(check)")
        await consumer.stop()
    }
}

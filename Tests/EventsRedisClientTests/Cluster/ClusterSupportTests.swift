import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

/// Every test of the client that starts a local cluster, one at a time, and never beside a
/// bridge test that starts one (`.oneClusterAtATime`): each runs several servers, and more than
/// one cluster at once starves the rest of the suite on a small machine.
@Suite(
    "Redis Cluster topologies (client)", .serialized, .oneClusterAtATime,
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
enum ClusterTopologyTests {}

extension ClusterTopologyTests {
    @Suite("Local Redis Cluster")
    struct ClusterSupportTests {
        @Test("three masters share every slot, and a migrated slot takes its keys to the new owner")
        func assemblesAndMigrates() throws {
            let cluster = try RedisCluster(masters: 3)
            #expect(RedisCluster.slotRanges(count: 3).map(\.count).reduce(0, +) == 16_384)
            for (master, range) in zip(cluster.masters, RedisCluster.slotRanges(count: 3)) {
                #expect(try cluster.owner(ofSlot: range.lowerBound) === master)
                #expect(try cluster.owner(ofSlot: range.upperBound) === master)
            }
            // A key sent to a node that does not own its slot is refused with MOVED.
            let key = "orders"
            let owner = try cluster.owner(ofKey: key)
            let other = try #require(cluster.masters.first { $0 !== owner })
            try cluster.command(on: owner, ["SET", RedisArgument(key), "1"])
            #expect(errorCode { try cluster.command(on: other, ["GET", RedisArgument(key)]) } == "MOVED")

            let slot = try cluster.slot(ofKey: key)
            let migration = try cluster.beginMigration(slot: slot, to: other)
            #expect(try cluster.moveKeys(migration) == 1)
            // Moved but not yet handed over: the source sends the client to the target with ASK.
            #expect(errorCode { try cluster.command(on: owner, ["GET", RedisArgument(key)]) } == "ASK")
            try cluster.finish(migration)
            #expect(try cluster.owner(ofSlot: slot) === other)
            #expect(try cluster.command(on: other, ["GET", RedisArgument(key)]).string == "1")
            #expect(errorCode { try cluster.command(on: owner, ["GET", RedisArgument(key)]) } == "MOVED")
        }

        @Test("a killed master is replaced by its replica, which serves the data written before")
        func killedMasterFailsOver() throws {
            let cluster = try RedisCluster(masters: 3, replicasPerMaster: 1)
            let key = "survives"
            let owner = try cluster.owner(ofKey: key)
            try cluster.command(on: owner, ["SET", RedisArgument(key), "1"])
            try cluster.command(on: owner, ["WAIT", 1, 2000])
            let promoted = try cluster.killAndFailOver(owner)
            #expect(cluster.replicas.contains { $0 === promoted })
            #expect(try cluster.owner(ofKey: key) === promoted)
            #expect(try cluster.command(on: promoted, ["GET", RedisArgument(key)]).string == "1")
        }
    }
}

/// The first word of the error reply `body` throws; `nil` when it succeeds or fails otherwise.
func errorCode(_ body: () throws -> Any) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return (error as? RedisError)?.serverErrorCode
    }
}

import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

/// A planned failover (`SENTINEL FAILOVER`) leaves the old master running as a replica, so no
/// connection breaks: only the sentinels' `+switch-master` tells the client to move.
@Suite(
    "Sentinel switch-master", .serialized,
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
struct SentinelSwitchTests {
    /// Asks the sentinel to fail over now, and waits until it names the replica.
    private func failOver(_ topology: SentinelTopology) async throws -> Bool {
        var asking = RedisConfiguration(host: "127.0.0.1", port: topology.sentinel.port)
        asking.reconnect = RedisReconnectPolicy(maxAttempts: 1)
        let sentinel = RedisClient(asking)
        defer { sentinel.close() }
        let reply = try await sentinel.send("SENTINEL", "FAILOVER", RedisArgument(topology.sentinel.masterName))
        guard reply.string == "OK" else { return false }
        return await eventually { topology.sentinel.masterPort() == topology.replica.port }
    }

    @Test("after +switch-master an idle client's next write goes to the new master, not refused by the old one")
    func idleClientMoves() async throws {
        let topology = try await SentinelTopology()
        let client = RedisClient(topology.configuration)
        defer { client.close() }
        #expect(try await client.send("SET", "before", "1").string == "OK")
        #expect(SentinelWatch.switches(for: topology.configuration) == 0)
        #expect(try await failOver(topology))
        #expect(await eventually { (SentinelWatch.switches(for: topology.configuration) ?? 0) >= 1 })
        // The old master is up and would refuse this write with READONLY: the first attempt
        // must already reach the new master.
        #expect(try await client.send("SET", "after", "2").string == "OK")
        let info = try await client.send("INFO", "server").string ?? ""
        #expect(info.contains("tcp_port:\(topology.replica.port)"))
    }

    @Test("after +switch-master a subscriber subscribes again at the new master")
    func subscriberMoves() async throws {
        let topology = try await SentinelTopology()
        var configuration = topology.configuration
        configuration.clientName = "switch-subscriber"
        let subscriber = RedisSubscriber(configuration)
        defer { subscriber.close() }
        let received = LockedBox<[String]>([])
        let reconnects = LockedBox(0)
        let reading = Task {
            for try await event in subscriber.events(channels: ["news"]) {
                switch event {
                case .message(let message): received.withLock { $0.append(message.string) }
                case .reconnected: reconnects.withLock { $0 += 1 }
                case .subscribed: break
                }
            }
        }
        defer { reading.cancel() }
        let newMaster = RedisClient(topology.replica.configuration)
        defer { newMaster.close() }
        /// Whether the subscriber's connection is on the server `client` talks to.
        func isSubscribed(on client: RedisClient) async -> Bool {
            let list = (try? await client.send("CLIENT", "LIST"))?.string ?? ""
            return list.contains("name=switch-subscriber")
        }
        let oldMaster = RedisClient(topology.master.configuration)
        defer { oldMaster.close() }
        #expect(await eventually { await isSubscribed(on: oldMaster) })
        #expect(try await failOver(topology))
        #expect(await eventually { await isSubscribed(on: newMaster) })
        // The server lists the new subscription as soon as SUBSCRIBE arrives, which can be before
        // the reading task has taken the `.reconnected` event from the stream.
        #expect(await eventually { reconnects.withLock { $0 } >= 1 })
        #expect(
            await eventually {
                _ = try? await newMaster.send("PUBLISH", "news", "after the switch")
                return received.withLock { $0.contains("after the switch") }
            })
    }

    @Test("the watch stops when the last client of its sentinels closes")
    func watchStops() async throws {
        let topology = try await SentinelTopology()
        let first = RedisClient(topology.configuration)
        let second = RedisClient(topology.configuration)
        _ = try await first.send("PING")
        _ = try await second.send("PING")
        #expect(SentinelWatch.switches(for: topology.configuration) != nil)
        first.close()
        #expect(SentinelWatch.switches(for: topology.configuration) != nil)
        second.close()
        #expect(SentinelWatch.switches(for: topology.configuration) == nil)
    }
}

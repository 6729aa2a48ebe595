import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite(
    "Sentinel failover", .serialized, .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
struct SentinelFailoverTests {
    @Test("a client asks the sentinels for the master, and follows it to the replica promoted after the master dies")
    func clientFollowsFailover() async throws {
        let topology = try await SentinelTopology()
        let client = RedisClient(topology.configuration)
        defer { client.close() }
        #expect(try await client.send("SET", "before", "1").string == "OK")
        let info = try await client.send("INFO", "server").string ?? ""
        #expect(info.contains("tcp_port:\(topology.master.port)"))
        #expect(await topology.killMasterAndWaitForFailover())
        #expect(await eventually { (try? await client.send("SET", "after", "2"))?.string == "OK" })
        let now = try await client.send("INFO", "server").string ?? ""
        #expect(now.contains("tcp_port:\(topology.replica.port)"))
        #expect(try await client.send("GET", "after").string == "2")
    }

    @Test("a configuration whose sentinels do not know the master fails with a clear, retryable error")
    func unknownMaster() async throws {
        let topology = try await SentinelTopology()
        var configuration = topology.configuration
        configuration.sentinel?.masterName = "nobody"
        configuration.reconnect = RedisReconnectPolicy(maxAttempts: 1)
        let client = RedisClient(configuration)
        defer { client.close() }
        await #expect {
            _ = try await client.send("PING")
        } throws: { error in
            guard let error = error as? RedisError, error.code == .connectFailed, let reason = error.reason else {
                return false
            }
            return reason.contains("does not know master \"nobody\"")
        }
    }

    /// Streams through a failover: a publisher and a consumer bridge find the master through the
    /// sentinel; the master is killed with SIGKILL mid-stream. Reports what was published,
    /// acknowledged, delivered, lost and duplicated.
    @Test(
        "streams follow a failover: with replicated publishing nothing acknowledged is lost; without, losses are counted",
        arguments: [false, true])
    func streamsThroughFailover(replicated: Bool) async throws {
        let topology = try await SentinelTopology()
        let errors = ErrorLog()
        let total = 400
        func configuration(_ source: String) -> RedisBridge.Configuration {
            var configuration = RedisBridge.Configuration(redis: topology.configuration, source: source)
            configuration.keyPrefix = "test:"
            configuration.readBlock = .milliseconds(100)
            configuration.claimInterval = .milliseconds(200)
            configuration.errorHandler = { errors.record($0) }
            if replicated { configuration.replicatedPublishing = .init(replicas: 1, timeout: .milliseconds(500)) }
            return configuration
        }
        let consumerCenter = EventCenter()
        let received = Log<Int>()
        let listener = consumerCenter.listen(to: Sequenced.self) { received.append($0.n) }
        let consumer = RedisBridge(center: consumerCenter, configuration: configuration("c"))
        try consumer.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await consumer.start()
        let center = EventCenter()
        let publisher = RedisBridge(center: center, configuration: configuration("p"))
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await publisher.start()

        for n in 1...(total / 2) { center.dispatch(Sequenced(n: n)) }
        // Some of the first half delivered, the rest in flight, when the master dies.
        #expect(await eventually { received.count >= total / 8 })
        let acknowledgedBeforeKill = publisher.statistics.published
        #expect(await topology.killMasterAndWaitForFailover())
        for n in (total / 2 + 1)...total { center.dispatch(Sequenced(n: n)) }
        if replicated {
            // The promoted replica has no replica of its own until the old master comes back
            // (the sentinel turns it into one): until then no publish is confirmed, and
            // `flush` waits.
            #expect(await !publisher.flush(timeout: .milliseconds(300)))
            try topology.master.restart()
        }
        #expect(await publisher.flush(timeout: .seconds(30)))
        let everyone = Set(1...total)
        // The stream holds what survived of the first half ahead of the second half, and one
        // consumer reads it in order: once the second half is in, nothing else can come.
        let secondHalf = Set((total / 2 + 1)...total)
        #expect(await eventually { Set(received.values).isSuperset(of: secondHalf) })

        let delivered = Set(received.values)
        let lost = everyone.subtracting(delivered)
        let duplicated = received.count - delivered.count
        print(
            "Sentinel failover, replicated publishing \(replicated ? "on" : "off"): \(total) events dispatched, "
                + "\(publisher.statistics.published) publishes acknowledged (\(acknowledgedBeforeKill) before the kill), "
                + "\(delivered.count) delivered, \(lost.count) lost, \(duplicated) duplicated")
        #expect(duplicated == 0, "no event delivered twice")
        // Everything dispatched after the failover goes to the new master.
        #expect(lost.allSatisfy { $0 <= total / 2 }, "lost only what the old master held: \(lost.sorted())")
        if replicated { #expect(lost.isEmpty, "nothing a replica confirmed is lost: \(lost.sorted())") }
        _ = listener
        await publisher.stop()
        await consumer.stop()
    }
}

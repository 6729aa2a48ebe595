import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@Suite("events-redis check", needsRedis)
struct CheckCommandTests {
    static func partition(_ index: Int) -> String { "events:{\(Sequenced.wireName):\(index)}" }

    @Test("check finds a reader on fewer partitions than the publisher, and exits 1")
    func fewerPartitions() async throws {
        let server = try RedisServer()
        let (consumer, _) = try await carry(on: server, group: "two", reading: 2, publishing: 4, events: 0..<20)

        let result = try await runCommand(urlArguments(server) + ["check", "--json"])
        #expect(result.status == 1, "\(result)")
        let mismatches = try #require(try result.object()["mismatches"] as? [[String: Any]])
        // Entries the group never reads wait on partition 2, and the group reads partition 0 but
        // not partition 3, where the publisher writes.
        let unread = mismatches.first { $0["group"] as? String == "two" }
        #expect(unread?["stream"] as? String == Self.partition(2))
        #expect((unread?["entries"] as? Int).map { $0 > 0 } == true)
        let missing = mismatches.first { $0["missingFrom"] != nil && !($0["missingFrom"] is NSNull) }
        #expect(missing?["stream"] as? String == Self.partition(0))
        #expect(missing?["missingFrom"] as? String == Self.partition(3))
        #expect(missing?["groups"] as? [String] == ["two"])

        let text = try await runCommand(urlArguments(server) + ["check", Sequenced.wireName])
        #expect(text.status == 1, "\(text)")
        #expect(text.outputLines.contains { $0.hasPrefix("mismatch: ") && $0.contains("wait unread by group two") })
        #expect(text.outputLines.last?.hasSuffix("in 1 type") == true)
        await consumer.stop()
    }

    @Test("check finds a reader on partitions of a type published on its plain stream")
    func plainPublisher() async throws {
        let server = try RedisServer()
        let (consumer, _) = try await carry(on: server, group: "four", reading: 4, publishing: 1, events: 0..<3)
        let result = try await runCommand(urlArguments(server) + ["check", "--json"])
        #expect(result.status == 1, "\(result)")
        let mismatches = try #require(try result.object()["mismatches"] as? [[String: Any]])
        let unread = mismatches.first { $0["group"] as? String == "four" }
        #expect(unread?["stream"] as? String == "events:" + Sequenced.wireName)
        #expect(unread?["entries"] as? Int == 3)
        await consumer.stop()
    }

    @Test(
        "check exits 0 when every process carries the type on the same partitions, and --partitions checks against another"
    )
    func matchingLayout() async throws {
        let server = try RedisServer()
        let (consumer, _) = try await carry(on: server, group: "four", reading: 4, publishing: 4, events: 0..<20)
        let result = try await runCommand(urlArguments(server) + ["check"])
        #expect(result.status == 0, "\(result)")
        #expect(result.outputLines == ["ok: \(Sequenced.wireName) on 4 partitions, groups four"])

        // Events the group has not read yet are no mismatch; against a layout of two partitions,
        // as after a move to fewer, those on partitions 2 and 3 are.
        await consumer.stop()
        let publisher = try await Publisher(server.configuration, partitions: 4)
        await publisher.publishAndWait(20..<40)
        let lagging = try await runCommand(urlArguments(server) + ["check"])
        #expect(lagging.status == 0, "\(lagging)")
        let expected = try await runCommand(urlArguments(server) + ["check", "--partitions", "2", "--json"])
        #expect(expected.status == 1, "\(expected)")
        let mismatches = try #require(try expected.object()["mismatches"] as? [[String: Any]])
        #expect(mismatches.map { $0["stream"] as? String } == [Self.partition(2)])
        #expect(mismatches.first?["layout"] as? Int == 2)
        #expect(mismatches.first?["group"] as? String == "four")
    }
}

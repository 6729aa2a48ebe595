import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@Suite("events-redis dead-letters", needsRedis)
struct DeadLettersCommandTests {
    static let stream = "events:" + Sequenced.wireName

    /// A server where the listener of `Sequenced` failed on 2, 4 and 6 of 1...6: three dead
    /// letters, and a consumer still running (healed, so that a replayed event is delivered).
    struct Setup {
        let server: RedisServer
        let admin: RedisClient
        let consumer: Consumer
        let publisher: Publisher
        let letters: [RedisBridge.DeadLetter]

        init() async throws {
            server = try RedisServer()
            admin = RedisClient(server.configuration)
            consumer = try await Consumer(server.configuration, group: "billing", failing: [2, 4, 6])
            publisher = try await Publisher(server.configuration)
            await publisher.publishAndWait(1...6)
            let consumer = consumer
            #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 3 })
            #expect(await eventually { consumer.received.values.sorted() == [1, 3, 5] })
            letters = try await consumer.bridge.deadLetters(of: Sequenced.self)
            consumer.heal()
        }

        var arguments: [String] { urlArguments(server) }

        func finish() async {
            await consumer.stop()
            admin.close()
        }
    }

    @Test("list prints every dead letter, oldest first, with what failed; --limit keeps the oldest")
    func list() async throws {
        let setup = try await Setup()
        let result = try await runCommand(setup.arguments + ["dead-letters", "list", Sequenced.wireName, "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        #expect(object["total"] as? Int == 3)
        let listed = try #require(object["deadLetters"] as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == setup.letters.map(\.id))
        #expect(
            listed.map { ($0["event"] as? [String: Any])?["data"] as? [String: Int] } == [["n": 2], ["n": 4], ["n": 6]])
        #expect(listed.allSatisfy { $0["stream"] as? String == Self.stream && $0["group"] as? String == "billing" })
        #expect(listed.allSatisfy { $0["deliveries"] as? Int == 1 && ($0["error"] as? String)?.isEmpty == false })

        let limited = try await runCommand(
            setup.arguments + ["dead-letters", "list", Sequenced.wireName, "--limit", "2"])
        #expect(limited.status == 0, "\(limited)")
        #expect(limited.outputLines.first == "3 dead letters of \(Sequenced.wireName), the oldest 2:")
        #expect(
            limited.outputLines.dropFirst().map { $0.split(separator: " ").first.map(String.init) }
                == setup.letters.prefix(2).map(\.id))
        await setup.finish()
    }

    @Test("show prints one dead letter with its CloudEvent as it was stored")
    func show() async throws {
        let setup = try await Setup()
        let letter = setup.letters[1]
        let result = try await runCommand(setup.arguments + ["dead-letters", "show", Sequenced.wireName, letter.id])
        #expect(result.status == 0, "\(result)")
        #expect(result.outputLines.contains("id: \(letter.id)"))
        #expect(result.outputLines.contains("entry: \(letter.entry)"))
        #expect(result.outputLines.contains("consumer: billing"))
        #expect(result.outputLines.contains("event: \(letter.eventJSON)"))
        let missing = try await runCommand(setup.arguments + ["dead-letters", "show", Sequenced.wireName, "1-1"])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.errorOutput.contains("no dead letter 1-1"))
        await setup.finish()
    }

    @Test("replay --dry-run changes nothing; replay puts the event back, and the consumer gets it")
    func replay() async throws {
        let setup = try await Setup()
        let before = try await snapshot(setup.admin)
        let dry = try await runCommand(
            setup.arguments + ["dead-letters", "replay", Sequenced.wireName, "--all", "--dry-run", "--json"])
        #expect(dry.status == 0, "\(dry)")
        #expect(try dry.object()["replayed"] as? Int == 3)
        #expect(try dry.object()["dryRun"] as? Bool == true)
        #expect(try await snapshot(setup.admin) == before)

        let letter = setup.letters[0]
        let result = try await runCommand(setup.arguments + ["dead-letters", "replay", Sequenced.wireName, letter.id])
        #expect(result.status == 0, "\(result)")
        #expect(result.outputLines.first == "replayed 1 dead letter of \(Sequenced.wireName)")
        let consumer = setup.consumer
        #expect(await eventually { consumer.received.values.contains(2) })
        #expect(
            try await setup.consumer.bridge.deadLetters(of: Sequenced.self).map(\.id)
                == setup.letters.dropFirst().map(\.id))
        #expect(try await setup.admin.send("XLEN", RedisArgument(Self.stream)).int == 7)
        await setup.finish()
    }

    @Test("purge --dry-run changes nothing; purge removes the letters named, --all the rest")
    func purge() async throws {
        let setup = try await Setup()
        let before = try await snapshot(setup.admin)
        let dry = try await runCommand(
            setup.arguments + ["dead-letters", "purge", Sequenced.wireName, "--all", "--dry-run"])
        #expect(dry.status == 0, "\(dry)")
        #expect(
            dry.outputLines.first == "would purge 3 dead letters of \(Sequenced.wireName) (dry run: nothing changed)")
        #expect(try await snapshot(setup.admin) == before)

        let one = try await runCommand(
            setup.arguments + ["dead-letters", "purge", Sequenced.wireName, setup.letters[2].id, "--json"])
        #expect(one.status == 0, "\(one)")
        #expect(try one.object()["purged"] as? Int == 1)
        #expect(
            try await setup.consumer.bridge.deadLetters(of: Sequenced.self).map(\.id)
                == setup.letters.prefix(2).map(\.id))

        let rest = try await runCommand(setup.arguments + ["dead-letters", "purge", Sequenced.wireName, "--all"])
        #expect(rest.status == 0, "\(rest)")
        #expect(rest.outputLines.first == "purged 2 dead letters of \(Sequenced.wireName)")
        #expect(try await setup.consumer.bridge.deadLetters(of: Sequenced.self).isEmpty)
        #expect(try await setup.admin.send("XLEN", RedisArgument(Self.stream)).int == 6)
        await setup.finish()
    }

    @Test("an id that is not there, among others that are, exits 1 and changes nothing")
    func unknownIDChangesNothing() async throws {
        let setup = try await Setup()
        let before = try await snapshot(setup.admin)
        for command in ["replay", "purge"] {
            let result = try await runCommand(
                setup.arguments + ["dead-letters", command, Sequenced.wireName, setup.letters[0].id, "1-1"])
            #expect(result.status == 1, "\(result)")
            #expect(result.errorOutput.contains("no dead letter 1-1 of \(Sequenced.wireName)"))
        }
        #expect(try await snapshot(setup.admin) == before)
        await setup.finish()
    }

    @Test("the letters of a partitioned type are listed and replayed across its partitions")
    func partitions() async throws {
        let server = try RedisServer()
        let consumer = try await Consumer(server.configuration, group: "billing", partitions: 3, failing: [1, 2, 3, 4])
        let publisher = try await Publisher(server.configuration, partitions: 3)
        await publisher.publishAndWait(1...4)
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 4 })
        consumer.heal()
        let listed = try await runCommand(
            urlArguments(server) + ["dead-letters", "list", Sequenced.wireName, "--json"])
        #expect(listed.status == 0, "\(listed)")
        let letters = try #require(try listed.object()["deadLetters"] as? [[String: Any]])
        #expect(letters.count == 4)
        #expect(Set(letters.compactMap { $0["partition"] as? Int }).isSubset(of: [0, 1, 2]))
        #expect(letters.allSatisfy { ($0["stream"] as? String)?.hasPrefix("events:{\(Sequenced.wireName):") == true })
        let replayed = try await runCommand(
            urlArguments(server) + ["dead-letters", "replay", Sequenced.wireName, "--all"])
        #expect(replayed.status == 0, "\(replayed)")
        #expect(await eventually { consumer.received.values.sorted() == [1, 2, 3, 4] })
        #expect(try await consumer.bridge.deadLetters(of: Sequenced.self).isEmpty)
        await consumer.stop()
    }
}

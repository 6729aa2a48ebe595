import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@Suite("events-redis arguments and help", needsRedis)
struct CommandLineTests {
    @Test("bad arguments print one line and a usage hint, exit 2, and leave Redis unchanged")
    func badArguments() async throws {
        let server = try RedisServer()
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let consumer = try await Consumer(server.configuration, group: "billing", failing: [1])
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait(1...2)
        #expect(try await eventually { try await consumer.bridge.deadLetters(of: Sequenced.self).count == 1 })
        let letter = try #require(try await consumer.bridge.deadLetters(of: Sequenced.self).first)
        await consumer.stop()
        let before = try await snapshot(admin)
        let type = Sequenced.wireName
        let cases: [([String], String)] = [
            ([], "no command given"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["status", "--bogus"], "unknown option '--bogus'"),
            (["dead-letters"], "dead-letters needs list, show, replay or purge"),
            (["dead-letters", "erase", type], "unknown dead-letters command 'erase'"),
            (["dead-letters", "purge", type], "give the IDs of the dead letters to purge, or --all"),
            (["dead-letters", "purge", type, letter.id, "--all"], "give dead-letter IDs or --all, not both"),
            (["dead-letters", "replay", type, "latest"], "bad dead-letter id 'latest'"),
            (["dead-letters", "list", type, "--limit", "0"], "--limit needs a whole number of at least 1"),
            (["dead-letters", "show", type], "dead-letters show needs TYPE and ID"),
            (["tail", type, "--count", "many"], "--count needs a whole number of at least 1"),
            (["tail", type, "--mode", "fast"], "--mode is stream or pubsub"),
            (["tail"], "TYPE is missing"),
            (["check", "--partitions", "0"], "--partitions needs a whole number of at least 1"),
            (["status", "--sentinel", "127.0.0.1:26379"], "--sentinel needs --master NAME"),
            (["status", "--cluster", "127.0.0.1:x"], "--cluster: bad port"),
            (["status", "--tls-ca", "/tmp/ca.pem"], "the --tls-* options need a rediss:// URL or --tls"),
            (["dead-letters", "list", type, "--json", "--limit"], "--limit needs a value"),
        ]
        for (arguments, message) in cases {
            let result = try await runCommand(urlArguments(server) + arguments)
            #expect(result.status == 2, "\(result)")
            #expect(result.output.isEmpty, "\(result)")
            #expect(result.errorLines.count == 2, "\(result)")
            #expect(result.errorLines.first?.hasPrefix("events-redis: \(message)") == true, "\(result)")
            #expect(result.errorLines.last?.hasPrefix("usage: events-redis") == true, "\(result)")
        }
        let badURL = try await runCommand(["status", "--url", "ftp://127.0.0.1"])
        #expect(badURL.status == 2, "\(badURL)")
        #expect(badURL.errorLines.first?.contains("unsupported scheme") == true, "\(badURL)")
        #expect(try await snapshot(admin) == before)
    }

    @Test("--help lists every command, and every command has help of its own")
    func help() async throws {
        let top = try await runCommand(["--help"])
        #expect(top.status == 0, "\(top)")
        for command in [
            "status", "dead-letters list", "dead-letters show", "dead-letters replay", "dead-letters purge", "tail",
            "check",
        ] {
            #expect(top.output.contains("  \(command) "), "\(command)")
        }
        #expect(top.output.contains("Exit status:"))
        for command in [["status"], ["dead-letters"], ["dead-letters", "replay"], ["tail"], ["check"]] {
            let result = try await runCommand(command + ["--help"])
            #expect(result.status == 0, "\(result)")
            #expect(result.outputLines.first?.hasPrefix("Usage: events-redis \(command[0])") == true, "\(result)")
            let viaHelp = try await runCommand(["help"] + command)
            #expect(viaHelp.output == result.output)
        }
    }

    @Test("a Redis that cannot be reached exits 3 with the reason")
    func cannotConnect() async throws {
        let port: Int
        do {
            // A port that a server had and no longer has.
            let server = try RedisServer()
            port = server.port
        }
        let result = try await runCommand(["status", "--url", "redis://127.0.0.1:\(port)"])
        #expect(result.status == 3, "\(result)")
        #expect(
            result.errorLines.first?.contains("Could not connect to Redis at 127.0.0.1:\(port)") == true, "\(result)")
    }

    @Test("the URL comes from EVENTS_REDIS_URL when --url is not given")
    func environmentURL() async throws {
        let server = try RedisServer()
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait([1])
        let result = try await runCommand(
            ["status", "--json"], environment: ["EVENTS_REDIS_URL": server.configuration.url])
        #expect(result.status == 0, "\(result)")
        let types = try #require(try result.object()["types"] as? [[String: Any]])
        #expect(types.first?["length"] as? Int == 1)
    }
}

import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("events-redis tail", needsRedis)
struct TailCommandTests {
    /// Starts `tail` and waits until it says on standard error that it follows the type.
    func startTail(_ server: RedisServer, _ arguments: [String]) async throws -> CommandProcess {
        let tail = try CommandProcess(urlArguments(server) + ["tail"] + arguments)
        #expect(await eventually { tail.errorOutput.contains("following") || !tail.isRunning }, "\(tail.errorOutput)")
        return tail
    }

    /// The `n` of each line's data, each line checked to be a CloudEvent of `Sequenced`.
    func numbers(_ output: String) throws -> [Int] {
        try output.split(separator: "\n").map { line in
            let event = try CloudEvent(json: Array(line.utf8))
            #expect(event.type == Sequenced.wireName)
            #expect(event.source == "publisher")
            let data = try JSONSerialization.jsonObject(with: Data(event.data ?? [])) as? [String: Int]
            return try #require(data?["n"])
        }
    }

    @Test("tail prints the stream's events published after it started, as CloudEvents JSON lines, and takes none")
    func stream() async throws {
        let server = try RedisServer()
        let admin = RedisClient(server.configuration)
        defer { admin.close() }
        let consumer = try await Consumer(server.configuration, group: "billing")
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait([1])
        let tail = try await startTail(server, [Sequenced.wireName, "--count", "3"])
        publisher.publish(2...4)
        #expect(await tail.exitStatus() == 0, "\(tail.errorOutput)")
        #expect(try numbers(tail.output) == [2, 3, 4])
        #expect(jsonLines(tail.output).count == 3)
        // Outside every group: the consumer got everything, and no group was added.
        #expect(await eventually { consumer.received.values == [1, 2, 3, 4] })
        let groups = try await admin.send("XINFO", "GROUPS", RedisArgument("events:" + Sequenced.wireName))
        #expect(groups.array?.count == 1)
        await consumer.stop()
    }

    @Test("tail follows every partition of a partitioned type")
    func partitions() async throws {
        let server = try RedisServer()
        let consumer = try await Consumer(server.configuration, group: "billing", partitions: 4)
        let publisher = try await Publisher(server.configuration, partitions: 4)
        await publisher.publishAndWait([0])
        let tail = try await startTail(server, [Sequenced.wireName, "--count", "8"])
        #expect(tail.errorOutput.contains("on 4 streams"))
        publisher.publish(1...8)
        #expect(await tail.exitStatus() == 0, "\(tail.errorOutput)")
        #expect(try numbers(tail.output).sorted() == Array(1...8))
        await consumer.stop()
    }

    @Test("tail subscribes to a Pub/Sub type")
    func pubSub() async throws {
        let server = try RedisServer()
        let publisher = try await Publisher(server.configuration, mode: .pubSub)
        let tail = try await startTail(server, [Sequenced.wireName, "--mode", "pubsub", "--count", "2"])
        #expect(tail.errorOutput.contains("on channel events:\(Sequenced.wireName)"))
        publisher.publish(1...2)
        #expect(await tail.exitStatus() == 0, "\(tail.errorOutput)")
        #expect(try numbers(tail.output) == [1, 2])
    }

    @Test("SIGINT and SIGTERM end tail with status 0")
    func signals() async throws {
        let server = try RedisServer()
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait([1])
        for signal in [SIGINT, SIGTERM] {
            let tail = try await startTail(server, [Sequenced.wireName])
            publisher.publish([2])
            #expect(await eventually { tail.output.contains("\"n\":2") }, "\(tail.errorOutput)")
            tail.send(signal)
            #expect(await tail.exitStatus() == 0, "\(tail.errorOutput)")
        }
    }

    @Test("tail ends with status 0 when its standard output closes, even while no event comes")
    func outputCloses() async throws {
        let server = try RedisServer()
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait([1])
        let pipe = Pipe()
        let tail = try CommandProcess(urlArguments(server) + ["tail", Sequenced.wireName], outputPipe: pipe)
        #expect(await eventually { tail.errorOutput.contains("following") }, "\(tail.errorOutput)")
        // The reader goes away: the write end the test holds too is closed as well, so that
        // the tail's end of the pipe is the only one left.
        try pipe.fileHandleForWriting.close()
        try pipe.fileHandleForReading.close()
        #expect(await tail.exitStatus() == 0, "\(tail.errorOutput)")
    }

    @Test("tail of a type with neither a stream nor a subscriber exits 1 unless --mode is given")
    func nothingToFollow() async throws {
        let server = try RedisServer()
        let result = try await runCommand(urlArguments(server) + ["tail", "com.example.nothing"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorOutput.contains("give --mode stream or --mode pubsub"))
        let publisher = try await Publisher(server.configuration)
        let tail = try await startTail(server, [Sequenced.wireName, "--mode", "stream", "--count", "1"])
        publisher.publish([7])
        #expect(await tail.exitStatus() == 0, "\(tail.errorOutput)")
        #expect(try numbers(tail.output) == [7])
    }
}

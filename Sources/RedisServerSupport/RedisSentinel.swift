package import EventsRedisClient
package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real Redis Sentinel process for a test (`redis-server <file> --sentinel`), watching one
/// master under the name `masterName`, with a quorum of one and short timeouts, so that a dead
/// master is replaced within a second or two.
package final class RedisSentinel {
    package let port: Int
    package let masterName: String
    package let directory: URL
    private let process: Process

    /// Starts a sentinel that watches the master at 127.0.0.1:`masterPort`, told of the
    /// replicas at `replicaPorts` up front (it would otherwise learn of them from the master's
    /// `INFO` only after several seconds).
    package init(
        masterName: String = "events", masterPort: Int, replicaPorts: [Int] = [],
        downAfter: Duration = .milliseconds(500)
    ) throws {
        guard let executable = RedisServer.executable else {
            throw RedisServer.Failure(description: "redis-server not found")
        }
        self.masterName = masterName
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("events-redis-sentinel-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Below the ports test servers take and below the kernel's ephemeral range.
        guard let free = (0..<200).lazy.map({ _ in Int.random(in: 17_000..<20_000) }).first(where: TestSocket.canListen)
        else { throw RedisServer.Failure(description: "no free port for a sentinel") }
        port = free
        let milliseconds = Int(
            downAfter.wholeMilliseconds)
        // Sentinel rewrites its file as it learns the topology: it must be its own, writable.
        let file = directory.appendingPathComponent("sentinel.conf")
        try """
        port \(port)
        bind 127.0.0.1
        dir \(directory.path)
        logfile \(directory.appendingPathComponent("sentinel.log").path)
        sentinel monitor \(masterName) 127.0.0.1 \(masterPort) 1
        sentinel down-after-milliseconds \(masterName) \(milliseconds)
        sentinel failover-timeout \(masterName) 2000
        sentinel parallel-syncs \(masterName) 1
        \(replicaPorts.map { "sentinel known-replica \(masterName) 127.0.0.1 \($0)" }.joined(separator: "\n"))

        """.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [file.path, "--sentinel"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try RedisServer.runUnmasked(process)
        try waitUntilReady()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            waitForExit(of: process)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// This sentinel's address, for ``RedisSentinelConfiguration``.
    package var address: RedisSentinelConfiguration.Address { .init(host: "127.0.0.1", port: port) }

    /// The master's port as this sentinel sees it now.
    package func masterPort() -> Int? {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
        configuration.connectTimeout = .milliseconds(300)
        configuration.replyTimeout = .seconds(1)
        guard let connection = try? RedisConnection.open(configuration) else { return nil }
        defer { connection.close() }
        let reply = try? connection.command(["SENTINEL", "GET-MASTER-ADDR-BY-NAME", RedisArgument(masterName)])
        return reply?.array?.last?.int
    }

    /// Whether the sentinel knows of at least `count` replicas of the master (it learns them
    /// from the master's `INFO` within a few seconds of their start).
    package func knowsReplicas(_ count: Int) -> Bool {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
        configuration.connectTimeout = .milliseconds(300)
        configuration.replyTimeout = .seconds(1)
        guard let connection = try? RedisConnection.open(configuration) else { return false }
        defer { connection.close() }
        let reply = try? connection.command(["SENTINEL", "REPLICAS", RedisArgument(masterName)])
        return (reply?.array?.count ?? 0) >= count
    }

    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { throw RedisServer.Failure(description: "redis-sentinel exited at start") }
            if masterPort() != nil { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw RedisServer.Failure(description: "redis-sentinel did not answer within 10 s")
    }
}

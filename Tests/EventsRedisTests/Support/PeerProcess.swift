import Foundation
import RedisServerSupport
import RedisTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of the `events-redis-peer` executable (Tests/EventsRedisPeer): a receiving bridge in
/// a process of its own, which a test can kill with SIGKILL and start again. Its lines go to a
/// file the test reads (see the peer's own comment for their format).
final class PeerProcess {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The peer executable, built beside the test executable by `swift build --build-tests`.
    static var executable: URL { executableBesideTests("events-redis-peer") }

    private let process = Process()
    private let input = Pipe()

    /// Starts the peer; `arguments` follow the peer's usage line.
    init(arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw Failure(
                description: "\(Self.executable.path) is missing: build with `swift build --build-tests` first")
        }
        process.executableURL = Self.executable
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        // The threads tests run on block most signals, which the child would inherit.
        try RedisServer.runUnmasked(process)
    }

    deinit {
        if process.isRunning { kill() }
    }

    var isRunning: Bool { process.isRunning }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Kills the peer with SIGKILL, as a crash or the kernel's OOM killer would, and waits for it.
    func kill() {
        sendSignal(SIGKILL, to: process.processIdentifier)
        waitForExit(of: process)
    }

    /// Waits for the peer to exit by itself; returns its exit status (nil when it had to be
    /// killed after `timeout`).
    func exitStatus(timeout: Duration = .seconds(20)) async -> Int32? {
        guard await eventually(timeout: timeout, { !process.isRunning }) else {
            kill()
            return nil
        }
        return process.terminationStatus
    }

    /// Asks the peer to stop its bridge cleanly and waits for it; returns its exit status (nil
    /// when it had to be killed after `timeout`).
    func stop(timeout: Duration = .seconds(20)) async -> Int32? {
        input.fileHandleForWriting.write(Data("stop\n".utf8))
        guard await eventually(timeout: timeout, { !process.isRunning }) else {
            kill()
            return nil
        }
        return process.terminationStatus
    }
}

/// The lines a peer run wrote (see Tests/EventsRedisPeer/main.swift).
struct PeerOutput {
    struct Delivery: Hashable {
        let life: Int
        let n: Int
        let entryID: String
    }

    var ready: Set<Int> = []
    var deliveries: [Delivery] = []
    var errors: [String] = []
    /// Per life: what its bridge counted delivered and suppressed.
    var stats: [Int: (delivered: Int, suppressed: Int)] = [:]

    init(file: URL) {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
            guard parts.count >= 2, let life = Int(parts[1]) else { continue }
            switch parts[0] {
            case "ready": ready.insert(life)
            case "event" where parts.count == 4:
                if let n = Int(parts[2]) { deliveries.append(Delivery(life: life, n: n, entryID: parts[3])) }
            case "error": errors.append(line.dropFirst("error ".count).description)
            case "stats" where parts.count == 4:
                func value(_ part: String) -> Int { Int(part.split(separator: "=").last ?? "") ?? -1 }
                stats[life] = (value(parts[2]), value(parts[3]))
            default: break
            }
        }
    }

    func deliveries(inLife life: Int) -> [Delivery] { deliveries.filter { $0.life == life } }
}

import EventsRedisClient
package import Foundation
import RedisServerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The publisher of a run: a process of the campaign executable in publisher mode, which the
/// nemesis kills (SIGKILL) and starts again. Each start is a new life with a log file of its
/// own; every life uses the same outbox file, so that a new one publishes again what the
/// killed one left unacknowledged, and goes on with the workload where the lives before it
/// stopped attempting.
package final class PublisherProcess: @unchecked Sendable {
    // @unchecked: the nemesis thread and the run's end, which come one after the other, are
    // the only callers; `lock` guards the process and the list of lives anyway.

    /// One start of the process, and where it took the workload up.
    struct Life {
        var name: String
        var file: URL
        var fromStep: Int
    }

    private let executable: URL
    private let spec: String
    private let seed: UInt64
    private let directory: URL
    /// When the dispatching ends, for every life: each is told how much of the window is left.
    private let deadline: ContinuousClock.Instant
    private let lock = NSLock()
    private var process: Process?
    private var input: Pipe?
    private var lives: [Life] = []

    package init(executable: URL, spec: String, seed: UInt64, directory: URL, deadline: ContinuousClock.Instant) {
        self.executable = executable
        self.spec = spec
        self.seed = seed
        self.directory = directory
        self.deadline = deadline
    }

    private var outbox: URL { directory.appendingPathComponent("publisher.outbox") }

    /// Starts a new life, which goes on from the steps the earlier ones attempted, and waits
    /// until its bridge has started (or `timeout` passed); returns what the life said when it
    /// was ready. The process itself retries its bridge's start; a process that exits before
    /// it is ready is started again, within the same life: it dispatched nothing.
    @discardableResult
    package func start(timeout: Duration = .seconds(30)) throws -> String {
        let (number, fromStep) = lock.withLock {
            (lives.count + 1, lives.reduce(0) { $0 + PublisherLog.attemptedSteps(in: Self.text(of: $1.file)) })
        }
        let name = "publisher#\(number)"
        let file = directory.appendingPathComponent("publisher-\(number).log")
        let timeLimit = ContinuousClock.now + timeout
        var lastLog = ""
        while ContinuousClock.now < timeLimit {
            try? FileManager.default.removeItem(at: file)
            let left = max(Int((deadline - ContinuousClock.now).seconds * 1000), 0)
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "publisher", "--redis", spec, "--seed", String(seed), "--outbox", outbox.path, "--file", file.path,
                "--from-step", String(fromStep), "--for-ms", String(left),
            ]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            try RedisServer.runUnmasked(process)
            while ContinuousClock.now < timeLimit, process.isRunning {
                let text = Self.text(of: file)
                if let ready = text.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }) {
                    lock.withLock {
                        lives.append(Life(name: name, file: file, fromStep: fromStep))
                        self.process = process
                        self.input = input
                    }
                    return "\(name) from step \(fromStep), \(ready.dropFirst("ready ".count))"
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            if process.isRunning { _ = sendSignal(process.processIdentifier, SIGKILL) }
            waitForExit(of: process)
            lastLog = Self.text(of: file)
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw CampaignFailure("publisher \(name) did not start: \(lastLog)")
    }

    /// Kills the process (SIGKILL), as a crash would: what it dispatched stays in the outbox.
    package func kill() {
        lock.withLock {
            guard let process, process.isRunning else { return }
            _ = sendSignal(process.processIdentifier, SIGKILL)
            waitForExit(of: process)
            self.process = nil
        }
    }

    /// Whether a life is running now.
    package var isRunning: Bool { lock.withLock { process?.isRunning == true } }

    /// Asks the running life, once its dispatch window is over, to wait until Redis has
    /// acknowledged everything it and the lives before it dispatched; returns whether Redis
    /// has, within `timeout` after the window.
    package func flush(timeout: Duration = .seconds(30)) -> Bool {
        guard let (running, file) = sendToRunning("flush") else { return false }
        let limit = max(deadline, ContinuousClock.now) + timeout + .seconds(5)
        while ContinuousClock.now < limit, running.isRunning {
            let text = Self.text(of: file)
            if text.contains("flushed ok\n") { return true }
            if text.contains("flushed timeout\n") { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Asks the running life to stop its bridge and exit; kills it if it has not within `timeout`.
    package func stop(timeout: TimeInterval = 30) {
        guard let (running, _) = sendToRunning("stop") else { return }
        waitForExit(of: running, within: timeout)
        if running.isRunning { kill() }
        lock.withLock { process = nil }
    }

    private func sendToRunning(_ command: String) -> (Process, URL)? {
        lock.withLock {
            guard let process, process.isRunning, let file = lives.last?.file else { return nil }
            input?.fileHandleForWriting.write(Data((command + "\n").utf8))
            return (process, file)
        }
    }

    /// What every life wrote, in the order they lived.
    func logs() -> [(life: Life, text: String)] {
        lock.withLock { lives }.map { ($0, Self.text(of: $0.file)) }
    }

    private static func text(of file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}

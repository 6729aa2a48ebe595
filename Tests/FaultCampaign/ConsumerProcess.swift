package import Foundation
import RedisServerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One consumer of a run: a process of the campaign executable in consumer mode, which the
/// nemesis kills (SIGKILL), pauses (SIGSTOP) and lets go on (SIGCONT). Each start is a new
/// life with a log file of its own; the name stays, so that a restarted consumer finds the
/// entries its last life left pending.
package final class ConsumerProcess: @unchecked Sendable {
    // @unchecked: the nemesis thread and the run's end, which come one after the other, are
    // the only callers; `lock` guards the process and the list of lives anyway.

    package let group: String
    package let name: String
    private let executable: URL
    private let spec: String
    private let directory: URL
    private let seed: UInt64
    private let lock = NSLock()
    private var process: Process?
    private var input: Pipe?
    private var paused = false
    /// Every life started, with its log file.
    private(set) var lives: [(life: String, file: URL)] = []

    package init(group: String, name: String, executable: URL, spec: String, directory: URL, seed: UInt64) {
        self.group = group
        self.name = name
        self.executable = executable
        self.spec = spec
        self.directory = directory
        self.seed = seed
    }

    /// Starts a new life and waits until its bridge has started (or `timeout` passed). A
    /// start that fails (Redis away, a failover under way) is tried again, as a supervisor
    /// would, within the same life: it delivered nothing.
    package func start(timeout: Duration = .seconds(30)) throws {
        let number = lock.withLock { lives.count + 1 }
        let life = "\(group)/\(name)#\(number)"
        let file = directory.appendingPathComponent("\(group)-\(name)-\(number).log")
        let deadline = ContinuousClock.now + timeout
        var lastLog = ""
        while ContinuousClock.now < deadline {
            try? FileManager.default.removeItem(at: file)
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "consumer", "--redis", spec, "--group", group, "--name", name, "--file", file.path,
                "--seed", String(seed),
            ]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            try RedisServer.runUnmasked(process)
            while ContinuousClock.now < deadline, process.isRunning {
                if let text = try? String(contentsOf: file, encoding: .utf8), text.contains("ready\n") {
                    lock.withLock {
                        lives.append((life, file))
                        self.process = process
                        self.input = input
                        paused = false
                    }
                    return
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
            waitForExit(of: process)
            lastLog = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw CampaignFailure("consumer \(life) did not start: \(lastLog)")
    }

    /// Kills the process (SIGKILL), as a crash would; its life ends without statistics.
    package func kill() {
        lock.withLock {
            guard let process, process.isRunning else { return }
            _ = sendSignal(process.processIdentifier, SIGKILL)
            if paused { _ = sendSignal(process.processIdentifier, SIGCONT) }
            waitForExit(of: process)
            self.process = nil
        }
    }

    /// Freezes the process (SIGSTOP): its connections stay open and silent, its pending
    /// entries age until another consumer claims them.
    package func pause() {
        lock.withLock {
            guard let process, process.isRunning else { return }
            _ = sendSignal(process.processIdentifier, SIGSTOP)
            paused = true
        }
    }

    /// Lets a paused process go on (SIGCONT).
    package func resume() {
        lock.withLock {
            guard let process, paused else { return }
            _ = sendSignal(process.processIdentifier, SIGCONT)
            paused = false
        }
    }

    /// Whether a life is running now.
    package var isRunning: Bool { lock.withLock { process?.isRunning == true } }

    /// Asks the process to stop its bridge, write its statistics and exit; kills it if it has
    /// not within `timeout`.
    package func stop(timeout: TimeInterval = 30) {
        resume()
        let running = lock.withLock { () -> Process? in
            guard let process, process.isRunning else { return nil }
            input?.fileHandleForWriting.write(Data("stop\n".utf8))
            return process
        }
        guard let running else { return }
        waitForExit(of: running, within: timeout)
        if running.isRunning { kill() }
        lock.withLock { process = nil }
    }

    /// What every life wrote.
    package func logs() -> [(life: String, text: String)] {
        lock.withLock { lives }.map { ($0.life, (try? String(contentsOf: $0.file, encoding: .utf8)) ?? "") }
    }
}

package struct CampaignFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

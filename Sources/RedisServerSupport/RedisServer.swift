package import EventsRedisClient
import EventsRedisTLS
package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real `redis-server` process for a test, the demo or the benchmark: its own free port on
/// 127.0.0.1 and its own temporary directory, append-only file on, so `restart()` keeps the data.
///
/// ```swift
/// @Test(.enabled(if: RedisServer.isAvailable(), RedisServer.skipReason))
/// func example() throws {
///     let server = try RedisServer()
///     let connection = try RedisConnection.open(server.configuration)
/// }
/// ```
///
/// With `tls`, the server listens with TLS only (`--tls-port`, `--port 0`), with certificates
/// from ``TLSCertificates``, and ``configuration`` connects over TLS.
///
/// The process is stopped and the directory removed when the value is dropped.
package final class RedisServer {
    /// How a TLS server is set up.
    package struct TLS {
        package var certificates: TLSCertificates
        /// Whether clients must present a certificate the authority signed
        /// (`--tls-auth-clients yes`); otherwise they may present none (`no`).
        package var requiresClientCertificates: Bool

        package init(certificates: TLSCertificates, requiresClientCertificates: Bool = false) {
            self.certificates = certificates
            self.requiresClientCertificates = requiresClientCertificates
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package static let skipReason = "redis-server not found on PATH; install the Debian package redis-server"

    /// The `redis-server` executable: `/usr/bin/redis-server`, else the first on `PATH`.
    package static let executable: String? = {
        var candidates = ["/usr/bin/redis-server"]
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/redis-server")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether tests that need a server can run; prints the reason when they cannot.
    package static func isAvailable() -> Bool {
        if executable == nil { print("skipped: \(skipReason)") }
        return executable != nil
    }

    package private(set) var port = 0
    package let directory: URL
    package let password: String?
    package let user: (name: String, password: String)?
    package let tls: TLS?
    private var process: Process?

    /// Extra `redis-server` options, such as `["--appendfsync", "everysec"]` (later ones win).
    package let extraArguments: [String]

    /// Starts a server, optionally with `requirepass`, one ACL user with every permission, TLS
    /// and extra options.
    package init(
        password: String? = nil, user: (name: String, password: String)? = nil, tls: TLS? = nil,
        extraArguments: [String] = []
    ) throws {
        guard Self.executable != nil else { throw Failure(description: "redis-server not found") }
        self.password = password
        self.user = user
        self.tls = tls
        self.extraArguments = extraArguments
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("events-redis-test-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Another process may take the port before this server binds it: try again with another.
        var lastError: any Error = Failure(description: "no attempt")
        for _ in 0..<5 {
            let candidate: Int
            do {
                candidate = try Self.reservePort()
            } catch {
                lastError = error
                break
            }
            do {
                port = candidate
                try launch(port: candidate)
                return
            } catch {
                Self.releasePort(candidate)
                port = 0
                lastError = error
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw lastError
    }

    deinit {
        kill()
        Self.releasePort(port)
        try? FileManager.default.removeItem(at: directory)
    }

    // A server keeps its port while it is down between kill() and restart(). Ports the kernel
    // hands out for bind(0) and for outgoing connections come from the ephemeral range, so a
    // port from there could be taken by another test meanwhile; these come from below it, and
    // the ones this process holds are kept out of each other's way.
    private static let heldPorts = HeldPorts()
    private static let portRange = 20_000..<32_000

    private static func reservePort() throws -> Int {
        for _ in 0..<200 {
            let candidate = Int.random(in: portRange)
            if heldPorts.hold(candidate, if: { TestSocket.canListen(on: candidate) }) { return candidate }
        }
        throw Failure(description: "no free port found in \(portRange)")
    }

    private static func releasePort(_ port: Int) {
        heldPorts.release(port)
    }

    /// A configuration for this server, with its credentials and short test timeouts; for a TLS
    /// server, the TLS transport trusting the test authority, with the client certificate.
    package var configuration: RedisConfiguration {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
        if let tls {
            configuration.tls = RedisConfiguration.TLS(
                trust: .certificateAuthorityFile(tls.certificates.authorityFile),
                clientCertificate: .files(
                    certificate: tls.certificates.clientCertificateFile, key: tls.certificates.clientKeyFile))
            configuration.transport = .tls
        }
        configuration.password = password
        configuration.connectTimeout = .seconds(1)
        configuration.replyTimeout = .seconds(3)
        configuration.reconnect = RedisReconnectPolicy(initialDelay: .milliseconds(10), maxDelay: .milliseconds(100))
        return configuration
    }

    /// Stops the server gracefully (SIGTERM) and waits for it to exit.
    package func stop() {
        terminate(signal: SIGTERM)
    }

    /// Kills the server (SIGKILL), as a crash would, and waits for it to exit.
    package func kill() {
        terminate(signal: SIGKILL)
    }

    /// Starts the server again on the same port and directory; the append-only file restores
    /// the data written before.
    package func restart() throws {
        if process?.isRunning == true { stop() }
        var lastError: any Error = Failure(description: "no attempt")
        for _ in 0..<20 {
            do {
                try launch(port: port)
                return
            } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.05)  // the port may still be held for a moment
            }
        }
        throw lastError
    }

    /// Kills the server (SIGKILL) and starts it again on the same port with an empty dataset,
    /// as a server without persistence (or one whose disk was lost) comes back after a crash.
    package func restartEmpty() throws {
        kill()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file != "redis.log" {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(file))
        }
        try restart()
    }

    private func terminate(signal: Int32) {
        guard let process, process.isRunning else { return }
        let pid = process.processIdentifier
        sendSignal(pid, signal)
        waitForExit(of: process, within: 5)
        if process.isRunning && !hasExited(pid) {
            sendSignal(pid, SIGKILL)
            waitForExit(of: process)
        }
    }

    private func launch(port: Int) throws {
        var arguments = ["--port", String(port)]
        if let tls {
            arguments = [
                "--port", "0", "--tls-port", String(port),
                "--tls-cert-file", tls.certificates.serverCertificateFile,
                "--tls-key-file", tls.certificates.serverKeyFile,
                "--tls-ca-cert-file", tls.certificates.authorityFile,
                "--tls-auth-clients", tls.requiresClientCertificates ? "yes" : "no",
            ]
        }
        arguments += [
            "--bind", "127.0.0.1", "--dir", directory.path, "--save", "",
            "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no",
            "--logfile", directory.appendingPathComponent("redis.log").path,
        ]
        if let password { arguments += ["--requirepass", password] }
        if let user { arguments += ["--user", user.name, "on", ">\(user.password)", "~*", "&*", "+@all"] }
        arguments += extraArguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable!)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try Self.runUnmasked(process)
        self.process = process
        try waitUntilReady(process: process, port: port)
    }

    /// Polls until this process answers, it exits, or 10 s pass. The answer must name this
    /// process's id: a server another test started on the port must not pass for this one.
    private func waitUntilReady(process: Process, port: Int) throws {
        var configuration = self.configuration
        configuration.port = port
        configuration.connectTimeout = .milliseconds(200)
        configuration.replyTimeout = .milliseconds(500)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else {
                throw Failure(description: "redis-server exited at start (port \(port)): \(logTail())")
            }
            if let connection = try? RedisConnection.open(configuration) {
                defer { connection.close() }
                if case .bulkString(let info)? = try? connection.command(["INFO", "server"]),
                    String(decoding: info, as: UTF8.self).contains("process_id:\(process.processIdentifier)\r\n")
                {
                    return
                }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        terminate(signal: SIGKILL)
        throw Failure(description: "redis-server did not answer INFO within 10 s: \(logTail())")
    }

    /// Runs `process` with no signal blocked. The child inherits the calling thread's signal
    /// mask, and the threads Swift concurrency and Dispatch run tests on block most signals: a
    /// server started from one would ignore SIGTERM. Everything is unblocked while spawning,
    /// then the mask is restored.
    package static func runUnmasked(_ process: Process) throws {
        var everything = sigset_t()
        var saved = sigset_t()
        sigemptyset(&everything)
        pthread_sigmask(SIG_SETMASK, &everything, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try process.run()
    }

    private func logTail() -> String {
        let log = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").suffix(3).joined(separator: " | ")
    }
}

/// Waits, at most `seconds`, until `process` has exited: Foundation saw it end, or it is gone or a
/// zombie (exited, its status not yet collected, holding no port).
///
/// Not `Process.waitUntilExit()`: that waits for Foundation to see the exit, and when another
/// waiter in the process (Swift Testing's exit-test monitor) takes the child's status first,
/// Foundation never does and the wait never ends, blocking a thread of the concurrency pool for
/// the rest of the run. A signalled process is gone within moments; the bound only keeps a stuck
/// one from hanging the run.
package func waitForExit(of process: Process, within seconds: TimeInterval = 10) {
    let pid = process.processIdentifier
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && !hasExited(pid) && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.002)
    }
}

private func hasExited(_ pid: Int32) -> Bool {
    if sendSignalZero(pid) != 0 { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    // The state follows the command name in parentheses: "1234 (redis-server) Z ...".
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

#if canImport(Glibc)
    private func sendSignal(_ pid: Int32, _ signal: Int32) { _ = Glibc.kill(pid, signal) }
    private func sendSignalZero(_ pid: Int32) -> Int32 { Glibc.kill(pid, 0) }
#else
    private func sendSignal(_ pid: Int32, _ signal: Int32) { _ = Darwin.kill(pid, signal) }
    private func sendSignalZero(_ pid: Int32) -> Int32 { Darwin.kill(pid, 0) }
#endif

/// The ports this process's servers hold, each by one server at a time.
// @unchecked Sendable: `ports` is only read or written while `lock` is held.
private final class HeldPorts: @unchecked Sendable {
    private let lock = NSLock()
    private var ports: Set<Int> = []

    /// Holds `port` if no server here holds it and `isFree()` says so.
    func hold(_ port: Int, if isFree: () -> Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !ports.contains(port), isFree() else { return false }
        ports.insert(port)
        return true
    }

    func release(_ port: Int) {
        lock.lock()
        ports.remove(port)
        lock.unlock()
    }
}

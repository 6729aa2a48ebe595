import Foundation
import RedisServerSupport
import RedisTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of the `events-redis` executable, built beside the test executable by
/// `swift build --build-tests`. Its output goes to files, which a test reads while it runs
/// (`tail`) or once it has exited, so that no pipe fills up while the test is not reading.
final class CommandProcess {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static var executable: URL { executableBesideTests("events-redis") }

    let arguments: [String]
    private let process = Process()
    private let directory: URL
    private let outputFile: URL
    private let errorFile: URL

    /// Starts `events-redis` with `arguments`; `environment` replaces its environment (by
    /// default it gets none, so that no `EVENTS_REDIS_URL` of the machine's leaks in). With
    /// `outputPipe`, standard output goes there rather than to a file.
    init(_ arguments: [String], environment: [String: String] = [:], outputPipe: Pipe? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw Failure(
                description: "\(Self.executable.path) is missing: build with `swift build --build-tests` first")
        }
        self.arguments = arguments
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("events-redis-command-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outputFile = directory.appendingPathComponent("stdout")
        errorFile = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try outputPipe ?? FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        // The threads tests run on block most signals, which the child would inherit.
        try RedisServer.runUnmasked(process)
    }

    deinit {
        if process.isRunning {
            sendSignal(SIGKILL, to: process.processIdentifier)
            waitForExit(of: process)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    var isRunning: Bool { process.isRunning }
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var errorOutput: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Sends `signal` (SIGINT, SIGTERM) to the process.
    func send(_ signal: Int32) { sendSignal(signal, to: process.processIdentifier) }

    /// Waits for the process to exit, without holding a thread; returns its status, or nil
    /// when it had to be killed after `timeout`.
    func exitStatus(timeout: Duration = .seconds(60)) async -> Int32? {
        guard await eventually(timeout: timeout, { !process.isRunning }) else {
            sendSignal(SIGKILL, to: process.processIdentifier)
            waitForExit(of: process)
            return nil
        }
        return process.terminationStatus
    }
}

/// What a finished run printed, and how it exited.
struct CommandResult: CustomStringConvertible {
    let arguments: [String]
    let status: Int32?
    let output: String
    let errorOutput: String

    /// Standard output as the one JSON document `--json` prints.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }

    /// Standard output as a JSON object.
    func object() throws -> [String: Any] {
        guard let object = try json() as? [String: Any] else { throw CommandProcess.Failure(description: "\(self)") }
        return object
    }

    var outputLines: [String] { output.split(separator: "\n").map(String.init) }
    var errorLines: [String] { errorOutput.split(separator: "\n").map(String.init) }

    var description: String {
        "events-redis \(arguments.joined(separator: " ")) exited \(status.map(String.init) ?? "never")\n"
            + "stdout: \(output)\nstderr: \(errorOutput)"
    }
}

/// Runs `events-redis` with `arguments` to the end.
func runCommand(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
    let process = try CommandProcess(arguments, environment: environment)
    let status = await process.exitStatus()
    return CommandResult(
        arguments: arguments, status: status, output: process.output, errorOutput: process.errorOutput)
}

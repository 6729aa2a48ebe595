package import Foundation

/// Throwaway certificates for TLS tests, made with the `openssl` command-line tool: a
/// certificate authority, a server certificate it signed (for `localhost` and `127.0.0.1`), a
/// client certificate it signed, and a second, unrelated authority that trusts neither.
///
/// ```swift
/// @Test(.enabled(if: TLSCertificates.isAvailable(), TLSCertificates.skipReason))
/// func example() throws {
///     let certificates = try TLSCertificates.shared()
///     let server = try RedisServer(tls: .init(certificates: certificates))
/// }
/// ```
///
/// Keys are P-256 elliptic-curve keys, unencrypted; certificates are valid for two days. The
/// files live in a temporary directory, removed when the value is dropped.
package final class TLSCertificates: Sendable {
    package static let skipReason =
        "openssl or redis-server not found on PATH; install the Debian packages openssl and redis-server"

    /// The `openssl` executable: `/usr/bin/openssl`, else the first on `PATH`.
    package static let executable: String? = {
        var candidates = ["/usr/bin/openssl"]
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/openssl")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether TLS tests can run (both `openssl` and `redis-server` are here); prints the reason
    /// when they cannot.
    package static func isAvailable() -> Bool {
        let available = executable != nil && RedisServer.executable != nil
        if !available { print("skipped: \(skipReason)") }
        return available
    }

    private static let made: Result<TLSCertificates, Failure> = Result { () throws(Failure) in try TLSCertificates() }

    /// One set of certificates for the whole test process, made on first use.
    package static func shared() throws -> TLSCertificates {
        try made.get()
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let directory: URL

    /// The authority that signed the server and client certificates (PEM).
    package var authorityFile: String { path("ca.pem") }
    /// An authority that signed nothing here: trusting only it must refuse the server.
    package var otherAuthorityFile: String { path("other-ca.pem") }
    package var serverCertificateFile: String { path("server.pem") }
    package var serverKeyFile: String { path("server.key") }
    package var clientCertificateFile: String { path("client.pem") }
    package var clientKeyFile: String { path("client.key") }
    /// A client certificate signed by the other authority, which the server does not trust.
    package var strangerCertificateFile: String { path("stranger.pem") }
    package var strangerKeyFile: String { path("stranger.key") }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private init() throws(Failure) {
        guard Self.executable != nil else { throw Failure(description: "openssl not found") }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("events-redis-tls-\(getpid())-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try makeAuthority("ca", name: "swift-events test CA")
            try makeAuthority("other-ca", name: "swift-events unrelated CA")
            try makeCertificate(
                "server", name: "localhost", signedBy: "ca",
                extensions: "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
            try makeCertificate(
                "client", name: "events-client", signedBy: "ca", extensions: "extendedKeyUsage=clientAuth\n")
            try makeCertificate(
                "stranger", name: "events-stranger", signedBy: "other-ca", extensions: "extendedKeyUsage=clientAuth\n")
        } catch let failure as Failure {
            try? FileManager.default.removeItem(at: directory)
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "cannot write the certificates: \(error)")
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private static let keyOptions = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    private func makeAuthority(_ file: String, name: String) throws {
        try run(
            ["req", "-x509"] + Self.keyOptions + [
                "-keyout", path("\(file).key"), "-out", path("\(file).pem"), "-days", "2", "-subj", "/CN=\(name)",
            ])
    }

    private func makeCertificate(_ file: String, name: String, signedBy authority: String, extensions: String) throws {
        let extensionsFile = path("\(file).ext")
        try ("basicConstraints=CA:FALSE\n" + extensions).write(
            toFile: extensionsFile, atomically: true, encoding: .utf8)
        try run(
            ["req", "-new"] + Self.keyOptions + [
                "-keyout", path("\(file).key"), "-out", path("\(file).csr"), "-subj", "/CN=\(name)",
            ])
        try run([
            "x509", "-req", "-in", path("\(file).csr"), "-CA", path("\(authority).pem"), "-CAkey",
            path("\(authority).key"), "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-days", "2",
            "-extfile", extensionsFile, "-out", path("\(file).pem"),
        ])
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable!)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "openssl \(arguments.prefix(2).joined(separator: " ")) failed: "
                    + String(decoding: output, as: UTF8.self))
        }
    }
}

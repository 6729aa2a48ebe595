import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

/// The ways an operator reaches Redis other than a plain `redis://` URL: TLS (with the
/// authority and a client certificate from files) and Sentinel (the master found by name, also
/// after a failover).
@Suite("events-redis over TLS and Sentinel", needsRedis)
struct ConnectionCommandTests {
    /// The length of `Sequenced`'s stream as `status --json` reports it, or the whole result
    /// when the command failed.
    func reportedLength(_ arguments: [String]) async throws -> (length: Int?, result: CommandResult) {
        let result = try await runCommand(arguments + ["status", Sequenced.wireName, "--json"])
        guard result.status == 0 else { return (nil, result) }
        let types = try result.object()["types"] as? [[String: Any]]
        return (types?.first?["length"] as? Int, result)
    }

    @Test(
        "a rediss:// URL with --tls-ca, --tls-cert and --tls-key reaches a server that requires client certificates",
        .enabled(if: TLSCertificates.isAvailable(), Comment(rawValue: TLSCertificates.skipReason)))
    func tlsWithClientCertificate() async throws {
        let certificates = try TLSTestSupport.certificates()
        let server = try TLSTestSupport.server(requiresClientCertificates: true)
        let publisher = try await Publisher(server.configuration)
        await publisher.publishAndWait(1...3)
        let url = "rediss://127.0.0.1:\(server.port)"
        let trusted = [
            "--url", url, "--tls-ca", certificates.authorityFile,
            "--tls-cert", certificates.clientCertificateFile, "--tls-key", certificates.clientKeyFile,
        ]

        let (length, result) = try await reportedLength(trusted)
        #expect(length == 3, "\(result)")

        // The same server through the options' other spelling: a host URL and --tls.
        let plainURL = ["--url", "redis://127.0.0.1:\(server.port)", "--tls"] + trusted.dropFirst(2)
        #expect(try await reportedLength(Array(plainURL)).length == 3)

        // Without the client certificate the server refuses the handshake; with another
        // authority, the client refuses the server. Both are Redis failures (exit 3), named.
        let withoutCertificate = try await runCommand(
            ["--url", url, "--tls-ca", certificates.authorityFile, "status", "--json"])
        #expect(withoutCertificate.status == 3, "\(withoutCertificate)")
        #expect(!withoutCertificate.errorOutput.isEmpty)
        let untrusted = try await runCommand(
            [
                "--url", url, "--tls-ca", certificates.otherAuthorityFile,
                "--tls-cert", certificates.clientCertificateFile, "--tls-key", certificates.clientKeyFile, "status",
            ])
        #expect(untrusted.status == 3, "\(untrusted)")
        #expect(!untrusted.errorOutput.isEmpty)

        // A plain connection to the TLS port gets no Redis reply: a failure, not a hang.
        let plain = try await runCommand(["--url", "redis://127.0.0.1:\(server.port)", "status"])
        #expect(plain.status == 3, "\(plain)")

        // Half of a client certificate is a usage error: nothing is sent.
        let half = try await runCommand(["--url", url, "--tls-cert", certificates.clientCertificateFile, "status"])
        #expect(half.status == 2, "\(half)")
        #expect(half.errorOutput.contains("--tls-cert and --tls-key go together"), "\(half)")
        await publisher.bridge.stop()
    }

    @Test("--sentinel and --master find the master, and find the new one after a failover")
    func sentinelFollowsFailover() async throws {
        let topology = try await SentinelTopology()
        let publisher = try await Publisher(topology.configuration)
        await publisher.publishAndWait(1...4)
        await publisher.bridge.stop()
        // Every entry on the replica before its master dies, so the new master has them all.
        let master = RedisClient(topology.master.configuration)
        let replicas = try await master.send("WAIT", "1", "5000").int
        master.close()
        #expect(replicas == 1)
        let arguments = [
            "--sentinel", "127.0.0.1:\(topology.sentinel.port)", "--master", topology.sentinel.masterName,
        ]

        let (before, first) = try await reportedLength(arguments)
        #expect(before == 4, "\(first)")

        #expect(await topology.killMasterAndWaitForFailover())
        let (after, second) = try await reportedLength(arguments)
        #expect(after == 4, "the replica, now the master: \(second)")

        // A master name the sentinel does not watch is a Redis failure that says so.
        let unknown = try await runCommand(
            ["--sentinel", "127.0.0.1:\(topology.sentinel.port)", "--master", "nobody", "status"])
        #expect(unknown.status == 3, "\(unknown)")
        #expect(unknown.errorOutput.contains("Could not connect to Redis (nobody)"), "\(unknown)")
        #expect(unknown.errorOutput.contains("does not know master \"nobody\""), "\(unknown)")
        #expect(!unknown.errorOutput.contains(":0"), "no port is made up for the master: \(unknown)")
    }
}

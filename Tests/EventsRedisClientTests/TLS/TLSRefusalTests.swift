import EventsRedisTLS
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite(
    "Redis over TLS: refused connections",
    .enabled(if: TLSCertificates.isAvailable(), Comment(rawValue: TLSCertificates.skipReason)),
    .timeLimit(.minutes(1)))
struct TLSRefusalTests {
    @Test("a server whose certificate does not chain to the trusted authority is refused, saying why")
    func wrongAuthority() throws {
        let server = try TLSTestSupport.server()
        var configuration = server.configuration
        configuration.tls?.trust = .certificateAuthorityFile(try TLSTestSupport.certificates().otherAuthorityFile)
        let reason = connectionError(configuration)?.connectFailureReason
        #expect(reason?.contains("certificate was rejected") == true, "\(String(describing: reason))")
    }

    @Test("a server whose certificate names another host is refused, saying why")
    func wrongName() throws {
        let server = try TLSTestSupport.server()
        var configuration = server.configuration
        configuration.tls?.serverName = "redis.example.com"
        let reason = connectionError(configuration)?.connectFailureReason
        #expect(reason?.contains("hostname mismatch") == true, "\(String(describing: reason))")
    }

    @Test("a server that requires client certificates refuses a client without one, and accepts mutual TLS")
    func clientCertificates() throws {
        let server = try TLSTestSupport.server(requiresClientCertificates: true)
        #expect(connectionError(server.configuration) == nil)
        var without = server.configuration
        without.tls?.clientCertificate = nil
        let reason = connectionError(without)?.connectFailureReason
        #expect(reason?.contains("client certificate") == true, "\(String(describing: reason))")
    }

    @Test("a TLS configuration with the plain transport fails with a typed error naming the product")
    func missingTransport() throws {
        let server = try TLSTestSupport.server()
        var configuration = server.configuration
        configuration.transport = .tcp
        guard let error = connectionError(configuration), error.code == .invalidConfiguration else {
            Issue.record("expected invalidConfiguration")
            return
        }
        #expect(error.detail?.contains("EventsRedisTLS") == true)
    }
}

@Suite("rediss:// URLs")
struct TLSURLTests {
    @Test("rediss:// sets the TLS defaults and keeps every other part; redis:// sets none")
    func parsesRediss() throws {
        let configuration = try RedisConfiguration(url: "REDISS://worker:pw@cache.example.com:6380/2")
        #expect(configuration.tls == RedisConfiguration.TLS())
        #expect(configuration.host == "cache.example.com" && configuration.port == 6380)
        #expect(configuration.username == "worker" && configuration.database == 2)
        #expect(configuration.url == "rediss://worker:pw@cache.example.com:6380/2")
        #expect(try RedisConfiguration(url: configuration.url).tls != nil)
        #expect(try RedisConfiguration(url: "redis://localhost").tls == nil)
    }
}

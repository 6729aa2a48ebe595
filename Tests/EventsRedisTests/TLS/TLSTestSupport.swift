import RedisServerSupport

@testable import EventsRedis
@testable import EventsRedisClient

/// The certificates every TLS test shares, and servers set up with them.
enum TLSTestSupport {
    static func certificates() throws -> TLSCertificates { try TLSCertificates.shared() }

    /// A TLS-only server; clients need a certificate when `requiresClientCertificates`.
    static func server(requiresClientCertificates: Bool = false) throws -> RedisServer {
        try RedisServer(
            tls: .init(certificates: try certificates(), requiresClientCertificates: requiresClientCertificates))
    }
}

extension RedisError {
    /// The reason of a ``connectFailed(host:port:reason:)``, or `nil`.
    var connectFailureReason: String? {
        code == .connectFailed ? reason : nil
    }
}

/// What opening a connection with `configuration` throws, or `nil` when it connects.
func connectionError(_ configuration: RedisConfiguration) -> RedisError? {
    do throws(RedisError) {
        let connection = try RedisConnection.open(configuration)
        connection.close()
        return nil
    } catch {
        return error
    }
}

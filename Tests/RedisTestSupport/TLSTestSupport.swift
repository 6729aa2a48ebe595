package import EventsRedisClient
package import RedisServerSupport

/// The certificates every TLS test shares, and servers set up with them.
package enum TLSTestSupport {
    package static func certificates() throws -> TLSCertificates { try TLSCertificates.shared() }

    /// A TLS-only server; clients need a certificate when `requiresClientCertificates`.
    package static func server(requiresClientCertificates: Bool = false) throws -> RedisServer {
        try RedisServer(
            tls: .init(certificates: try certificates(), requiresClientCertificates: requiresClientCertificates))
    }
}

extension RedisError {
    /// The reason of a ``connectFailed(host:port:reason:)``, or `nil`.
    package var connectFailureReason: String? {
        code == .connectFailed ? reason : nil
    }
}

/// What opening a connection with `configuration` throws, or `nil` when it connects.
package func connectionError(_ configuration: RedisConfiguration) -> RedisError? {
    do throws(RedisError) {
        let connection = try RedisConnection.open(configuration)
        connection.close()
        return nil
    } catch {
        return error
    }
}

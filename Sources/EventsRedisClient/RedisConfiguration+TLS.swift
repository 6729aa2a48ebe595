extension RedisConfiguration {
    /// How to reach the server over TLS: which certificates to trust, the name to verify, and
    /// the client certificate for mutual TLS.
    ///
    /// Setting ``RedisConfiguration/tls`` (or reading a `rediss://` URL) asks for TLS; a
    /// transport that provides it, such as `.tls` from the `EventsRedisTLS` product, does the
    /// rest. The defaults verify the server against the system's trusted certificates and its
    /// certificate against the configuration's host:
    ///
    /// ```swift
    /// var configuration = RedisConfiguration(host: "redis.internal", port: 6380)
    /// configuration.tls = .init(
    ///     trust: .certificateAuthorityFile("/etc/redis/ca.pem"),
    ///     clientCertificate: .files(certificate: "/etc/redis/client.pem", key: "/etc/redis/client.key"))
    /// configuration.transport = .tls    // import EventsRedisTLS
    /// ```
    ///
    /// Rules:
    /// - TLS 1.2 is the oldest version accepted.
    /// - The server's certificate must chain to ``trust`` and name ``serverName`` (or the host)
    ///   as a DNS name or IP address in its subject alternative names; otherwise connecting
    ///   throws ``RedisError/connectFailed(host:port:reason:)`` saying why.
    /// - Files are read on every new connection, so a renewed certificate is picked up at the
    ///   next reconnect.
    public struct TLS: Sendable, Hashable {
        /// Which certificate authorities the server's certificate may chain to.
        public enum Trust: Sendable, Hashable {
            /// The operating system's trusted certificates (on Debian, the `ca-certificates`
            /// package): for managed Redis services with publicly trusted certificates.
            case system
            /// The certificate authorities in a PEM file at this path: for a private CA.
            case certificateAuthorityFile(String)
            /// The certificate authorities in this PEM text (one or more
            /// `-----BEGIN CERTIFICATE-----` blocks), for a CA that comes from a secret store
            /// rather than a file.
            case certificateAuthorityPEM(String)
            /// **Dangerous**: accepts any certificate, from anyone, for any name. The traffic is
            /// encrypted but a machine in the middle can read and change it. Only for a test
            /// against a server whose certificate cannot be verified; never in production.
            case dangerouslyAcceptAnyCertificate
        }

        /// The certificate and private key the client presents, for servers that require one
        /// (`tls-auth-clients yes`, the Redis default).
        public enum ClientCertificate: Sendable, Hashable {
            /// A PEM certificate file (the client certificate first, then any intermediates)
            /// and an unencrypted PEM private key file.
            case files(certificate: String, key: String)
            /// The same as ``files(certificate:key:)``, given as PEM text.
            case pem(certificate: String, key: String)
        }

        /// Which certificate authorities to trust. Default ``Trust/system``.
        public var trust: Trust
        /// The name sent as the TLS server name (SNI) and checked against the server's
        /// certificate; `nil` uses the configuration's host. An IP address is checked against
        /// the certificate's IP addresses and not sent as SNI. Default `nil`.
        public var serverName: String?
        /// The client certificate for mutual TLS; `nil` presents none. Default `nil`.
        public var clientCertificate: ClientCertificate?

        /// TLS settings; the defaults trust the system's certificates and verify the host.
        public init(trust: Trust = .system, serverName: String? = nil, clientCertificate: ClientCertificate? = nil) {
            self.trust = trust
            self.serverName = serverName
            self.clientCertificate = clientCertificate
        }
    }
}

public import EventsRedisClient

extension RedisTransportFactory {
    /// TLS over OpenSSL (the system's libssl): the transport for `rediss://` URLs and
    /// configurations with ``EventsRedis/RedisConfiguration/tls`` set.
    ///
    /// ```swift
    /// import EventsRedis
    /// import EventsRedisTLS
    ///
    /// var configuration = try RedisConfiguration(url: "rediss://default:token@cache.example.com:6380")
    /// configuration.transport = .tls
    /// let client = RedisClient(configuration)
    /// ```
    ///
    /// Rules:
    /// - Every connection is encrypted, with the settings of ``EventsRedis/RedisConfiguration/tls``,
    ///   or its defaults when it is `nil` (the system's trusted certificates, the host's name).
    /// - TLS 1.2 is the oldest version accepted; the server's certificate is verified and must
    ///   name the server unless the trust is
    ///   ``EventsRedis/RedisConfiguration/TLS/Trust/dangerouslyAcceptAnyCertificate``.
    /// - A refused handshake (an untrusted certificate, a wrong name, a missing or rejected
    ///   client certificate) throws ``EventsRedis/RedisError/connectFailed(host:port:reason:)``
    ///   whose reason says which; unusable certificate or key files throw
    ///   ``EventsRedis/RedisError/invalidConfiguration(_:)`` before anything is sent.
    /// - The connect timeout covers the TCP connection and the handshake.
    public static let tls = RedisTransportFactory(name: "tls (OpenSSL)") { configuration throws(RedisError) in
        try RedisTLSTransport.connect(configuration)
    }
}

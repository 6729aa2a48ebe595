/// Opens the ``RedisTransport`` of each new connection: the configuration's choice of plain
/// TCP, TLS, or a transport of your own.
///
/// The default, ``tcp``, is a plain POSIX socket and needs nothing outside this package. For
/// TLS, add the `EventsRedisTLS` product and choose its transport:
///
/// ```swift
/// import EventsRedisTLS
///
/// var configuration = try RedisConfiguration(url: "rediss://cache.example.com:6380")
/// configuration.transport = .tls
/// ```
///
/// Rules:
/// - ``connect(_:)`` runs on the thread that opens the connection and must finish within the
///   configuration's ``RedisConfiguration/connectTimeout`` (TLS handshake included), throwing
///   ``RedisError/timedOut(_:)`` (`"connect"`) otherwise.
/// - A factory that cannot honour ``RedisConfiguration/tls`` must throw rather than connect
///   without it: ``tcp`` throws ``RedisError/invalidConfiguration(_:)`` for a configuration
///   that asks for TLS.
public struct RedisTransportFactory: Sendable {
    /// A name for messages and descriptions, such as `"tcp"` or `"tls (OpenSSL)"`.
    public let name: String
    private let open: @Sendable (RedisConfiguration) throws(RedisError) -> any RedisTransport

    /// A factory that opens each connection with `connect`.
    ///
    /// `connect` reads the address, ``RedisConfiguration/connectTimeout`` and
    /// ``RedisConfiguration/tls`` from the configuration it is given; it throws
    /// ``RedisError/connectFailed(host:port:reason:)`` or ``RedisError/timedOut(_:)`` when no
    /// connection is made.
    public init(
        name: String, connect: @escaping @Sendable (RedisConfiguration) throws(RedisError) -> any RedisTransport
    ) {
        self.name = name
        self.open = connect
    }

    /// Opens a transport to the server `configuration` names.
    public func connect(_ configuration: RedisConfiguration) throws(RedisError) -> any RedisTransport {
        try open(configuration)
    }

    /// Plain TCP over a POSIX socket, without TLS: the default.
    ///
    /// A configuration with ``RedisConfiguration/tls`` set (a `rediss://` URL) is refused with
    /// ``RedisError/invalidConfiguration(_:)``, which names the product to add: it never
    /// connects in plaintext to a server meant to be reached over TLS.
    public static let tcp = RedisTransportFactory(name: "tcp") { configuration throws(RedisError) in
        if configuration.tls != nil { throw .tlsTransportMissing }
        return try RedisSocket.connect(
            host: configuration.host, port: configuration.port, timeout: configuration.connectTimeout)
    }
}

extension RedisError {
    /// What a TLS configuration meets without a TLS transport.
    static let tlsTransportMissing = RedisError.invalidConfiguration(
        "TLS is requested (a rediss:// URL or the tls setting) but the transport is plain TCP; add the "
            + "EventsRedisTLS product to the target's dependencies, import EventsRedisTLS and set "
            + "configuration.transport = .tls")
}

extension RedisTransportFactory: CustomStringConvertible {
    public var description: String { "RedisTransportFactory(\(name))" }
}

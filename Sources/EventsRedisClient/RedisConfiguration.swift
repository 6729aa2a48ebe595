/// Where a Redis server is and how to talk to it: address, credentials, timeouts, reconnect
/// policy, reply limits, TLS and transport.
///
/// Start from the defaults (a local server on port 6379) or a URL, and change what differs:
///
/// ```swift
/// var configuration = try RedisConfiguration(url: "redis://:secret@cache.internal:6380/2")
/// configuration.clientName = "orders-worker"
/// configuration.replyTimeout = .seconds(2)
/// let client = RedisClient(configuration)
/// ```
///
/// Rules:
/// - ``replyTimeout`` bounds every reply. Blocking commands (`BLPOP`, `XREADGROUP ... BLOCK`)
///   must be given a longer per-call timeout, or the call times out and the connection closes.
/// - The configuration is applied on every new connection: `AUTH`, then `SELECT` when
///   ``database`` is not 0, then `CLIENT SETNAME` when ``clientName`` is set.
public struct RedisConfiguration: Sendable {
    /// The server's host name or IP address. Default `"127.0.0.1"`.
    public var host: String
    /// The server's TCP port. Default 6379.
    public var port: Int
    /// The ACL user to authenticate as; `nil` authenticates as the default user. Default `nil`.
    public var username: String?
    /// The password; `nil` sends no `AUTH` (unless ``username`` is set). Default `nil`.
    public var password: String?
    /// The logical database selected on connect. Default 0.
    public var database: Int
    /// How long opening the TCP connection may take. Default 2 s.
    public var connectTimeout: Duration
    /// How long a reply may take once its command is written. Default 5 s.
    public var replyTimeout: Duration
    /// How to wait between reconnect attempts.
    public var reconnect: RedisReconnectPolicy
    /// The largest replies accepted from the server.
    public var limits: RESPLimits
    /// A name shown by `CLIENT LIST`, set with `CLIENT SETNAME` on every connection; must not
    /// contain spaces. Default `nil`.
    public var clientName: String?
    /// The sentinels to ask for the current master, in place of ``host`` and ``port``; `nil`
    /// (the default) connects to ``host`` and ``port``. See ``RedisSentinelConfiguration``.
    public var sentinel: RedisSentinelConfiguration? = nil
    /// The nodes of a Redis Cluster to learn the slot map from, in place of ``host`` and
    /// ``port``: each command then goes to the master that owns its key; `nil` (the default)
    /// connects to ``host`` and ``port``. Excludes ``sentinel``. See ``RedisClusterConfiguration``.
    public var cluster: RedisClusterConfiguration? = nil
    /// TLS settings; `nil` connects in plaintext. A `rediss://` URL sets the defaults (the
    /// system's trusted certificates, the host's name). A transport that provides TLS must be
    /// chosen too (``transport``); the plain default refuses a configuration with TLS set.
    /// Default `nil`.
    public var tls: TLS?
    /// What opens the byte stream of each connection. Default ``RedisTransportFactory/tcp``
    /// (plain TCP, no TLS); set `.tls` from the `EventsRedisTLS` product for TLS.
    public var transport: RedisTransportFactory

    /// A configuration for the server at `host:port`, with every other setting at its default.
    public init(host: String = "127.0.0.1", port: Int = 6379) {
        self.host = host
        self.port = port
        self.username = nil
        self.password = nil
        self.database = 0
        self.connectTimeout = .seconds(2)
        self.replyTimeout = .seconds(5)
        self.reconnect = RedisReconnectPolicy()
        self.limits = RESPLimits()
        self.clientName = nil
        self.tls = nil
        self.transport = .tcp
    }
}

/// Where to find a Redis master that Redis Sentinel watches, in place of a fixed host.
///
/// ```swift
/// var redis = RedisConfiguration()
/// redis.sentinel = RedisSentinelConfiguration(
///     masterName: "orders",
///     sentinels: [.init(host: "10.0.0.11", port: 26379), .init(host: "10.0.0.12", port: 26379)])
/// let client = RedisClient(redis)   // talks to whichever server is the master now
/// ```
///
/// Rules:
/// - Every new connection asks the sentinels, in order, for the master's address
///   (`SENTINEL GET-MASTER-ADDR-BY-NAME`), connects there and checks with `ROLE` that the
///   server is a master. When none answers, or the server is not a master yet (a failover in
///   progress), the attempt fails and is retried with the configuration's reconnect policy.
/// - A failover is followed three ways. While a client or subscriber with this configuration
///   is connected, one Pub/Sub connection per process listens on a sentinel for
///   `+switch-master` (the next sentinel in the list when that one fails); at a switch, each
///   client leaves its connection before its next command, and each subscription subscribes
///   again at the new master. Besides, a connection to the old master that breaks (it died),
///   or whose replies say it is no longer a master (`READONLY`, `UNBLOCKED`), is dropped too.
///   The next command connects to the new master. After a planned failover the old master
///   accepts writes for a moment before it turns replica; the switch announcement is what
///   keeps an idle client from writing there.
/// - ``RedisConfiguration/host`` and ``RedisConfiguration/port`` are ignored while this is set;
///   credentials, database, client name, timeouts and limits apply to the master's
///   connections. The sentinels have credentials of their own (``username``, ``password``).
public struct RedisSentinelConfiguration: Sendable, Hashable {
    /// A sentinel's address.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 26379) {
            self.host = host
            self.port = port
        }

        public var description: String { "\(host):\(port)" }
    }

    /// The name the sentinels know the master by (`sentinel monitor <name> ...`).
    public var masterName: String
    /// The sentinels to ask, in order.
    public var sentinels: [Address]
    /// The ACL user the sentinels require, if any.
    public var username: String?
    /// The password the sentinels require (`requirepass` in their configuration), if any.
    public var password: String?

    public init(masterName: String, sentinels: [Address], username: String? = nil, password: String? = nil) {
        self.masterName = masterName
        self.sentinels = sentinels
        self.username = username
        self.password = password
    }
}

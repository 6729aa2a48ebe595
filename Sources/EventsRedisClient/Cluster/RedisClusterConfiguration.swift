/// Where to find a Redis Cluster, in place of a single server: a few of its nodes to ask for
/// the slot map.
///
/// Set it on ``RedisConfiguration/cluster`` and use the client as usual; it learns which node
/// owns which of the 16384 hash slots and sends every command to the master that owns its key:
///
/// ```swift
/// var redis = RedisConfiguration()
/// redis.cluster = RedisClusterConfiguration(nodes: [
///     .init(host: "10.0.0.21", port: 7000), .init(host: "10.0.0.22", port: 7000),
/// ])
/// let client = RedisClient(redis)
/// try await client.send("SET", "user:{42}:name", "Ada")      // goes to the owner of slot "42"
/// let replies = try await client.pipeline([["GET", "a"], ["GET", "b"]])   // split by owner
/// ```
///
/// Rules:
/// - The slot map is read with `CLUSTER SHARDS` (`CLUSTER SLOTS` on servers before 7.0) from
///   the first configured node that answers, then from the nodes the map names. It is read again when a
///   reply says `MOVED` (the command was not run; it is sent again to the new owner) and when
///   a node cannot be reached (a failover: the client waits with
///   ``RedisConfiguration/reconnect`` until the cluster names a new master, for at most
///   ``RedisConfiguration/connectTimeout`` plus the reply timeout).
/// - `ASK` (a slot being migrated) is followed for the one command, with `ASKING` written
///   just before it on the target's connection; the map is not changed.
/// - A command's key is found by a table of common commands (the stream, string, hash, list,
///   set and Pub/Sub commands the bridge and most applications use); for any other command it
///   is the first argument after the command name. A command with no key (`PING`, `INFO`,
///   `WAIT`, `CLUSTER ...`) goes to the node of the command before it in the same pipeline,
///   else of the one after it, else to any master. `MULTI` ... `EXEC` goes whole to the owner
///   of its first key: its keys must share one slot (use hash tags, `{...}`), as the server
///   requires of any multi-key command.
/// - One connection is kept per master, opened on first use; replicas are not read from.
/// - ``RedisConfiguration/host``, ``RedisConfiguration/port`` and ``RedisConfiguration/database``
///   are ignored (a cluster has database 0 only); credentials, TLS, transport, timeouts and
///   limits apply to every node. It cannot be combined with ``RedisConfiguration/sentinel``:
///   a cluster fails over by itself.
/// - A command whose connection breaks after it was written is not sent again (see
///   ``RedisClient``): the caller decides.
/// - ``RedisClient``'s `send` and `pipeline` follow the map.
/// - ``RedisSubscriber`` uses sharded Pub/Sub: it subscribes with `SSUBSCRIBE`, one connection
///   per slot of the channels, at the master that owns the slot now; publish with `SPUBLISH`.
///   When the slot moves (a migration, a failover) the server ends the subscription and the
///   subscriber subscribes again at the new owner, reported as
///   ``RedisPubSubEvent/reconnected(cause:)``: messages published meanwhile are lost, as at
///   any reconnection. Patterns cannot be sharded: subscribing to one fails with
///   ``RedisError/invalidConfiguration(_:)``.
/// - The `EventsRedis` bridge (`RedisBridge`) carries both modes on a cluster. Each carried
///   type's stream lives on the shard of its key and is read by a reader of its own; a dead
///   letter is written before its entry is acknowledged (the two streams hash to different
///   slots, so no transaction holds both): a crash between the two can leave a duplicate dead
///   letter, never a lost one. Pub/Sub events go out with `SPUBLISH` and arrive through
///   sharded subscriptions. The bridge's `replicatedPublishing` is refused on a cluster with
///   `RedisBridgeError.invalidConfiguration`.
public struct RedisClusterConfiguration: Sendable, Hashable {
    /// A node's address.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 6379) {
            self.host = host
            self.port = port
        }

        public var description: String { "\(host):\(port)" }
    }

    /// Nodes to ask for the slot map first, in order; any node of the cluster will do, and
    /// more than one lets the client start while one is down.
    public var nodes: [Address]
    /// How many redirections (`MOVED`, `ASK`) one command may follow before its last reply is
    /// returned as it is. Default 5.
    public var maxRedirections: Int

    public init(nodes: [Address], maxRedirections: Int = 5) {
        self.nodes = nodes
        self.maxRedirections = maxRedirections
    }
}

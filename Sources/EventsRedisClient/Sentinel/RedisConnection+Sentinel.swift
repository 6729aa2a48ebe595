extension RedisConnection {
    /// Opens a connection to the configured server: the fixed host, or the master the sentinels
    /// name now (see ``RedisSentinelConfiguration``).
    /// `publish` receives the interruption of the connection to the server (not of those to
    /// the sentinels), as `open(_:publishing:)` describes.
    static func openResolved(
        _ configuration: RedisConfiguration,
        publishing publish: (RedisTransportInterruption?) -> Bool = { _ in true }
    ) throws(RedisError) -> RedisConnection {
        // A cluster is reached through the client's router, which opens its nodes' connections
        // with `cluster` cleared; a connection of its own would go to `host`, the wrong server.
        if configuration.cluster != nil {
            throw .invalidConfiguration(
                "this connection cannot follow a Redis Cluster's slot map; on a cluster use "
                    + "RedisClient's send and pipeline, and RedisSubscriber for channels (sharded Pub/Sub)")
        }
        guard let sentinel = configuration.sentinel else { return try open(configuration, publishing: publish) }
        let master = try askSentinels(sentinel, configuration)
        var target = configuration
        target.host = master.host
        target.port = master.port
        target.sentinel = nil
        let connection = try open(target, publishing: publish)
        // The sentinels may not have noticed a failover yet, or the server they name may still
        // be turning into a master: only a master takes the connection.
        let role: RESPValue
        do throws(RedisError) {
            role = try connection.command(["ROLE"])
        } catch {
            _ = publish(nil)
            connection.close()
            throw error
        }
        guard role.array?.first?.string == "master" else {
            _ = publish(nil)
            connection.close()
            throw .connectFailed(
                host: master.host, port: master.port,
                reason: "the sentinels name it master \"\(sentinel.masterName)\", but its role is "
                    + "\(role.array?.first?.string ?? "\(role)") (a failover in progress?)")
        }
        return connection
    }

    /// The master's address, from the first sentinel that knows it.
    private static func askSentinels(
        _ sentinel: RedisSentinelConfiguration, _ configuration: RedisConfiguration
    ) throws(RedisError) -> RedisSentinelConfiguration.Address {
        var reasons: [String] = []
        for address in sentinel.sentinels {
            let asking = sentinel.configuration(of: address, from: configuration)
            do throws(RedisError) {
                let connection = try open(asking)
                defer { connection.close() }
                let reply = try connection.command([
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", RedisArgument(sentinel.masterName),
                ])
                guard let parts = reply.array, parts.count == 2, let host = parts[0].string,
                    let port = parts[1].int, (1...65_535).contains(port)
                else {
                    reasons.append("\(address) does not know master \"\(sentinel.masterName)\" (\(reply))")
                    continue
                }
                return RedisSentinelConfiguration.Address(host: host, port: port)
            } catch {
                // The reason alone: the whole description would repeat its advice for each one.
                reasons.append("\(address): \(error.reason ?? error.description)")
            }
        }
        throw .connectFailed(
            host: sentinel.masterName, port: 0,
            reason: sentinel.sentinels.isEmpty
                ? "no sentinel is configured" : "no sentinel named the master: " + reasons.joined(separator: "; "))
    }
}

extension RedisSentinelConfiguration {
    /// How to connect to the sentinel at `address`: the master's configuration (its transport,
    /// timeouts and limits) with the sentinels' credentials, and no database.
    func configuration(of address: Address, from configuration: RedisConfiguration) -> RedisConfiguration {
        var asking = configuration
        asking.host = address.host
        asking.port = address.port
        asking.sentinel = nil
        asking.username = username
        asking.password = password
        asking.database = 0
        return asking
    }
}

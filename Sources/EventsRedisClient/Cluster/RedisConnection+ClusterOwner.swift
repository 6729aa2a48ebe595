extension RedisConnection {
    /// Opens a connection to the master that owns `key`'s slot now, asking the configured nodes
    /// for the slot map: a sharded Pub/Sub subscription (`SSUBSCRIBE`) must be made there.
    /// `publish` receives the interruption of each connection it opens, as
    /// `open(_:publishing:)` describes, and `nil` before one it does not keep is closed.
    static func openOwner(
        of key: String, in cluster: RedisClusterConfiguration, _ configuration: RedisConfiguration,
        publishing publish: (RedisTransportInterruption?) -> Bool = { _ in true }
    ) throws(RedisError) -> RedisConnection {
        let slot = ClusterSlot.of(key)
        var reasons: [String] = []
        for address in cluster.nodes {
            let node = nodeConfiguration(address, configuration)
            do throws(RedisError) {
                let connection = try open(node, publishing: publish)
                let map: ClusterSlotMap?
                do throws(RedisError) {
                    do throws(RedisError) {
                        map = ClusterSlotMap.fromShards(
                            try connection.command(["CLUSTER", "SHARDS"]), asked: address,
                            useTLSPort: configuration.tls != nil)
                    } catch  where error.serverErrorCode == "ERR" {
                        // A server before 7.0 knows only CLUSTER SLOTS.
                        map = ClusterSlotMap.fromSlots(try connection.command(["CLUSTER", "SLOTS"]), asked: address)
                    }
                } catch {
                    _ = publish(nil)
                    connection.close()
                    throw error
                }
                guard let owner = map?.owner(of: slot) else {
                    _ = publish(nil)
                    connection.close()
                    reasons.append("\(address) names no master for slot \(slot)")
                    continue
                }
                if owner == address { return connection }
                _ = publish(nil)
                connection.close()
                return try open(nodeConfiguration(owner, configuration), publishing: publish)
            } catch {
                // Closed by its owner: asking the next node would only be closed too.
                if error == .clientClosed { throw error }
                reasons.append("\(address): \(error)")
            }
        }
        throw .connectFailed(
            host: cluster.nodes.first?.host ?? "cluster", port: cluster.nodes.first?.port ?? 0,
            reason: cluster.nodes.isEmpty
                ? "no cluster node is configured"
                : "no node named the owner of slot \(slot): " + reasons.joined(separator: "; "))
    }

    /// How to connect to one node of the cluster: the configuration's credentials, transport,
    /// timeouts and limits, at the node's address, database 0.
    static func nodeConfiguration(
        _ address: RedisClusterConfiguration.Address, _ configuration: RedisConfiguration
    ) -> RedisConfiguration {
        var node = configuration
        node.cluster = nil
        node.host = address.host
        node.port = address.port
        node.database = 0
        return node
    }
}

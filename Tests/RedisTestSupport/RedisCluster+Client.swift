package import EventsRedisClient
package import RedisServerSupport

extension RedisCluster {
    /// A client configuration that knows the cluster by one node, the first master.
    package var clientConfiguration: RedisConfiguration {
        var configuration = masters[0].configuration
        configuration.host = "unused.invalid"
        configuration.cluster = RedisClusterConfiguration(nodes: [.init(host: "127.0.0.1", port: masters[0].port)])
        return configuration
    }
}

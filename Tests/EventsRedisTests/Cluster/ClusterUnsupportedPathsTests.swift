import Testing

@testable import EventsRedis

@Suite("Cluster configuration where it is not routed")
struct ClusterUnsupportedPathsTests {
    private var configuration: RedisConfiguration {
        var configuration = RedisConfiguration(host: "unused.invalid", port: 1)
        configuration.cluster = RedisClusterConfiguration(seeds: [.init(host: "127.0.0.1", port: 1)])
        configuration.connectTimeout = .milliseconds(200)
        configuration.reconnect = RedisReconnectPolicy(maxAttempts: 1)
        return configuration
    }

    @Test(
        "a connection of its own (callback pipeline, subscriber) refuses a cluster configuration rather than use host")
    func directConnectionRefusesCluster() async {
        let client = RedisClient(configuration)
        defer { client.close() }
        let result = await withCheckedContinuation { continuation in
            client.pipeline([["PING"]]) { continuation.resume(returning: $0) }
        }
        guard case .failure(.invalidConfiguration(let reason)) = result else {
            Issue.record("expected invalidConfiguration, got \(result)")
            return
        }
        #expect(reason.contains("cluster"))
    }

}

import Testing

@testable import EventsRedisClient

@Suite("Cluster configuration on paths of their own")
struct ClusterUnsupportedPathsTests {
    private var configuration: RedisConfiguration {
        var configuration = RedisConfiguration(host: "unused.invalid", port: 1)
        configuration.cluster = RedisClusterConfiguration(nodes: [.init(host: "127.0.0.1", port: 1)])
        configuration.connectTimeout = .milliseconds(200)
        configuration.reconnect = RedisReconnectPolicy(maxAttempts: 1)
        return configuration
    }

    @Test(
        "a connection of its own (withConnection) refuses a cluster configuration rather than use host")
    func directConnectionRefusesCluster() async {
        let client = RedisClient(configuration)
        defer { client.close() }
        let result = Result { () throws(RedisError) in try client.withConnection { _ throws(RedisError) in () } }
        guard case .failure(let error) = result, error.code == .invalidConfiguration, let reason = error.detail else {
            Issue.record("expected invalidConfiguration, got \(result)")
            return
        }
        #expect(reason.contains("cluster"))
    }

    @Test("a pattern subscription on a cluster fails with the reason: patterns cannot be sharded")
    func patternsAreRefused() async {
        let subscriber = RedisSubscriber(configuration)
        defer { subscriber.close() }
        do {
            for try await _ in subscriber.messages(channels: [], patterns: ["news.*"]) {}
            Issue.record("the stream ended without an error")
        } catch let error as RedisError {
            guard error.code == .invalidConfiguration, let reason = error.detail else {
                Issue.record("expected invalidConfiguration, got \(error)")
                return
            }
            #expect(reason.contains("pattern"))
        } catch {
            Issue.record("expected a RedisError, got \(error)")
        }
    }

    @Test("the callback pipeline on a cluster goes through the slot map")
    func callbackPipelineIsRouted() async {
        let client = RedisClient(configuration)
        defer { client.close() }
        let result = await withCheckedContinuation { continuation in
            client.pipeline([["PING"]]) { continuation.resume(returning: $0) }
        }
        // The only node given is closed: the map cannot be read, and the error names it.
        guard case .failure(let error) = result, error.code == .connectFailed else {
            Issue.record("expected connectFailed, got \(result)")
            return
        }
        #expect(error.host == "127.0.0.1" && error.port == 1)
    }
}

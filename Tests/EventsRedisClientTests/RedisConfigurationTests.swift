import Testing

@testable import EventsRedisClient

@Suite("Redis configuration")
struct RedisConfigurationTests {
    @Test("defaults match the documentation")
    func defaults() {
        let configuration = RedisConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 6379)
        #expect(configuration.database == 0)
        #expect(configuration.connectTimeout == .seconds(2))
        #expect(configuration.replyTimeout == .seconds(5))
        #expect(configuration.limits == RESPLimits(maxBulkBytes: 64 << 20, maxArrayCount: 1_048_576, maxNesting: 32))
        #expect(configuration.reconnect.maxAttempts == nil)
    }

    @Test("reads every part of a redis:// URL")
    func parsesURL() throws {
        let full = try RedisConfiguration(url: "redis://worker:s3cr%40t@cache.internal:6380/3")
        #expect(full.username == "worker")
        #expect(full.password == "s3cr@t")
        #expect(full.host == "cache.internal")
        #expect(full.port == 6380)
        #expect(full.database == 3)

        let passwordOnly = try RedisConfiguration(url: "redis://:pa:ss@localhost")
        #expect(passwordOnly.username == nil)
        #expect(passwordOnly.password == "pa:ss")
        #expect(passwordOnly.port == 6379)

        let ipv6 = try RedisConfiguration(url: "REDIS://[::1]:7000/")
        #expect(ipv6.host == "::1")
        #expect(ipv6.port == 7000)
        #expect(ipv6.database == 0)
    }

    @Test(
        "rejects malformed URLs",
        arguments: [
            "", "localhost:6379", "http://host", "redis://", "rediss://", "redis://host:0", "redis://host:70000",
            "redis://host:abc", "redis://host/x", "redis://host/-1", "redis://user@host", "redis://host?db=1",
            "redis://[::1", "redis://:p%zz@host", "redis://host:",
        ])
    func rejectsMalformedURL(url: String) {
        #expect {
            try RedisConfiguration(url: url)
        } throws: { error in
            if (error as? RedisError)?.code == .invalidConfiguration { return true }
            return false
        }
    }

    @Test("url writes a configuration back so that init(url:) reads the same settings")
    func urlRoundTrips() throws {
        var configuration = RedisConfiguration(host: "10.0.0.5", port: 6380)
        configuration.username = "worker"
        configuration.password = "p@ss:w/rd é"
        configuration.database = 3
        let copy = try RedisConfiguration(url: configuration.url)
        #expect(copy.host == "10.0.0.5" && copy.port == 6380 && copy.database == 3)
        #expect(copy.username == "worker" && copy.password == "p@ss:w/rd é")
        #expect(RedisConfiguration(host: "127.0.0.1", port: 6379).url == "redis://127.0.0.1:6379")
        let passwordOnly = try RedisConfiguration(url: "redis://:secret@localhost/0")
        #expect(try RedisConfiguration(url: passwordOnly.url).password == "secret")
        #expect(try RedisConfiguration(url: RedisConfiguration(host: "::1", port: 7000).url).host == "::1")
    }

    @Test("reconnect delays grow, cap and stay within the jitter")
    func reconnectDelays() {
        let policy = RedisReconnectPolicy(
            initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .milliseconds(500), jitter: 0.2, maxAttempts: 3)
        for _ in 0..<100 {
            #expect((0.08...0.12).contains(policy.delay(afterFailures: 1).seconds))
            #expect((0.16...0.24).contains(policy.delay(afterFailures: 2).seconds))
            #expect((0.4...0.6).contains(policy.delay(afterFailures: 10).seconds))
        }
        #expect(policy.allowsAttempt(after: 2))
        #expect(!policy.allowsAttempt(after: 3))
        #expect(RedisReconnectPolicy().allowsAttempt(after: 1_000_000))
    }
}

import EventsRedisClient
import EventsRedisTLS

/// The options every command takes: where Redis is, the bridge's key prefix, and the output form.
struct GlobalOptions: Sendable {
    static let defaultURL = "redis://localhost:6379"
    /// The bridge's own default (`RedisBridge.Configuration.keyPrefix`).
    static let defaultKeyPrefix = "events:"

    static let specs: [OptionSpec] = [
        .value("url"), .value("sentinel"), .value("master"), .value("cluster"), .value("key-prefix"),
        .flag("json"), .flag("tls"), .value("tls-ca"), .value("tls-cert"), .value("tls-key"),
        .value("tls-server-name"), .flag("help"),
    ]

    var redis: RedisConfiguration
    var keyPrefix: String
    var json: Bool

    var scheme: KeyScheme { KeyScheme(prefix: keyPrefix) }
    var isCluster: Bool { redis.cluster != nil }

    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) {
        let url = arguments.value("url") ?? environment["EVENTS_REDIS_URL"] ?? Self.defaultURL
        do {
            redis = try RedisConfiguration(url: url)
        } catch {
            throw .usage(error.detail ?? error.description)
        }
        keyPrefix = arguments.value("key-prefix") ?? Self.defaultKeyPrefix
        json = arguments.has("json")
        redis.clientName = "events-redis"
        // An operator waiting at a terminal is told soon that Redis is not there, rather than
        // after the long patience a service needs.
        redis.reconnect = RedisReconnectPolicy(
            initialDelay: .milliseconds(50), maxDelay: .milliseconds(500), maxAttempts: 3)
        try applyTopology(arguments)
        try applyTLS(arguments)
    }

    private mutating func applyTopology(_ arguments: ParsedArguments) throws(CommandFailure) {
        let sentinel = arguments.value("sentinel")
        let master = arguments.value("master")
        let cluster = arguments.value("cluster")
        if sentinel != nil, cluster != nil { throw .usage("--sentinel and --cluster cannot be used together") }
        if let sentinel {
            guard let master, !master.isEmpty else { throw .usage("--sentinel needs --master NAME") }
            let addresses = try Self.addresses(sentinel, option: "sentinel", defaultPort: 26379)
            redis.sentinel = RedisSentinelConfiguration(
                masterName: master, sentinels: addresses.map { .init(host: $0.host, port: $0.port) })
        } else if master != nil {
            throw .usage("--master needs --sentinel host:port[,host:port]")
        }
        if let cluster {
            let addresses = try Self.addresses(cluster, option: "cluster", defaultPort: 6379)
            redis.cluster = RedisClusterConfiguration(nodes: addresses.map { .init(host: $0.host, port: $0.port) })
        }
    }

    private mutating func applyTLS(_ arguments: ParsedArguments) throws(CommandFailure) {
        let ca = arguments.value("tls-ca")
        let certificate = arguments.value("tls-cert")
        let key = arguments.value("tls-key")
        let serverName = arguments.value("tls-server-name")
        if arguments.has("tls"), redis.tls == nil { redis.tls = RedisConfiguration.TLS() }
        guard var tls = redis.tls else {
            if ca != nil || certificate != nil || key != nil || serverName != nil {
                throw .usage("the --tls-* options need a rediss:// URL or --tls")
            }
            return
        }
        if let ca { tls.trust = .certificateAuthorityFile(ca) }
        switch (certificate, key) {
        case (let certificate?, let key?): tls.clientCertificate = .files(certificate: certificate, key: key)
        case (nil, nil): break
        default: throw .usage("--tls-cert and --tls-key go together")
        }
        if let serverName { tls.serverName = serverName }
        redis.tls = tls
        redis.transport = .tls
    }

    /// `host:port[,host:port...]`; an IPv6 host in brackets (`[::1]:6379`); the port may be left
    /// out.
    static func addresses(_ text: String, option: String, defaultPort: Int) throws(CommandFailure)
        -> [(host: String, port: Int)]
    {
        var addresses: [(host: String, port: Int)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            var host = Substring(part)
            var port = defaultPort
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                let after = host[host.index(after: close)...]
                host = host[host.index(after: host.startIndex)..<close]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else {
                        throw .usage("--\(option): bad address '\(part)'; expected host:port")
                    }
                    port = number
                }
            } else if let colon = host.lastIndex(of: ":") {
                guard let number = Int(host[host.index(after: colon)...]) else {
                    throw .usage("--\(option): bad port in '\(part)'; expected host:port")
                }
                port = number
                host = host[..<colon]
            }
            guard !host.isEmpty, (1...65535).contains(port) else {
                throw .usage("--\(option): bad address '\(part)'; expected host:port")
            }
            addresses.append((String(host), port))
        }
        return addresses
    }
}

import EventsRedisClient

/// The command's way to Redis: one client that routes by key (a single server, the master a
/// Sentinel names, or a cluster), and for what has no key (`SCAN`, `PUBSUB`), every master.
final class RedisAccess: Sendable {
    let options: GlobalOptions
    let client: RedisClient

    init(_ options: GlobalOptions) {
        self.options = options
        client = RedisClient(options.redis)
    }

    func close() { client.close() }

    func send(_ arguments: [RedisArgument], timeout: Duration? = nil) async throws(CommandFailure) -> RESPValue {
        do {
            return try await client.send(arguments, timeout: timeout)
        } catch {
            throw .redis(error.description)
        }
    }

    func pipeline(_ commands: [[RedisArgument]]) async throws(CommandFailure) -> [RESPValue] {
        do throws(RedisError) {
            let replies = try await client.pipeline(commands)
            guard replies.count == commands.count else {
                throw RedisError.unexpectedReply(expected: "\(commands.count) replies", got: "\(replies.count)")
            }
            return replies
        } catch {
            throw .redis(error.description)
        }
    }

    /// Runs `body` with a client for each master: on a cluster, one per master of the slot
    /// map `CLUSTER SHARDS` gives; otherwise the one client.
    func onEveryMaster<T>(_ body: (RedisClient) async throws(RedisError) -> T) async throws(CommandFailure) -> [T] {
        guard let cluster = options.redis.cluster else {
            do {
                return [try await body(client)]
            } catch {
                throw .redis(error.description)
            }
        }
        let masters = try await masterAddresses(fallback: cluster.nodes.map { ($0.host, $0.port) })
        var results: [T] = []
        for (host, port) in masters {
            var node = options.redis
            node.cluster = nil
            node.host = host
            node.port = port
            let nodeClient = RedisClient(node)
            defer { nodeClient.close() }
            do {
                results.append(try await body(nodeClient))
            } catch {
                throw .redis(error.description)
            }
        }
        return results
    }

    /// Every key of a stream that matches one of `patterns`, from every master.
    func streamKeys(matching patterns: [String]) async throws(CommandFailure) -> Set<String> {
        let found = try await onEveryMaster { client throws(RedisError) in
            var keys: Set<String> = []
            for pattern in patterns {
                var cursor = "0"
                repeat {
                    let reply = try await client.send([
                        "SCAN", RedisArgument(cursor), "MATCH", RedisArgument(pattern), "COUNT", "1000", "TYPE",
                        "stream",
                    ])
                    guard let parts = reply.array, parts.count == 2, let next = parts[0].string,
                        let batch = parts[1].array
                    else { throw RedisError.unexpectedReply(expected: "a SCAN cursor and keys", got: "\(reply)") }
                    keys.formUnion(batch.compactMap(\.string))
                    cursor = next
                } while cursor != "0"
            }
            return keys
        }
        return found.reduce(into: []) { $0.formUnion($1) }
    }

    /// The channels matching `pattern` that have subscribers now, with how many. On a cluster
    /// the bridge uses sharded Pub/Sub, whose channels each master knows for its own slots.
    func channels(matching pattern: String) async throws(CommandFailure) -> [String: Int] {
        let sharded = options.isCluster
        let found = try await onEveryMaster { client throws(RedisError) in
            let list = try await client.send(["PUBSUB", sharded ? "SHARDCHANNELS" : "CHANNELS", RedisArgument(pattern)])
            let names = list.array?.compactMap(\.string) ?? []
            guard !names.isEmpty else { return [String: Int]() }
            let counts = try await client.send(
                ["PUBSUB", sharded ? "SHARDNUMSUB" : "NUMSUB"] + names.map { RedisArgument($0) })
            return Self.counts(counts)
        }
        return found.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
    }

    /// How many subscribers `channel` has now, on every master.
    func subscribers(of channel: String) async throws(CommandFailure) -> Int {
        let sharded = options.isCluster
        let found = try await onEveryMaster { client throws(RedisError) in
            Self.counts(try await client.send(["PUBSUB", sharded ? "SHARDNUMSUB" : "NUMSUB", RedisArgument(channel)]))
        }
        return found.reduce(0) { $0 + ($1[channel] ?? 0) }
    }

    /// The server's clock in milliseconds, so that ages of entries do not depend on this
    /// machine's clock.
    func serverMilliseconds() async throws(CommandFailure) -> Int {
        let reply = try await send(["TIME"])
        guard let parts = reply.array, parts.count == 2, let seconds = parts[0].string.flatMap({ Int($0) }),
            let micros = parts[1].string.flatMap({ Int($0) })
        else { throw .redis("Unexpected Redis reply to TIME: \(reply)") }
        return seconds * 1000 + micros / 1000
    }

    private static func counts(_ reply: RESPValue) -> [String: Int] {
        var counts: [String: Int] = [:]
        let items = reply.array ?? []
        var index = 0
        while index + 1 < items.count {
            if let name = items[index].string, let count = items[index + 1].int { counts[name] = count }
            index += 2
        }
        return counts
    }

    private func masterAddresses(fallback: [(String, Int)]) async throws(CommandFailure) -> [(String, Int)] {
        let reply: RESPValue
        do {
            reply = try await client.send(["CLUSTER", "SHARDS"])
        } catch  where error.code == .server {
            return fallback
        } catch {
            throw .redis(error.description)
        }
        let useTLSPort = options.redis.tls != nil
        var masters: [(String, Int)] = []
        for shard in reply.array ?? [] {
            guard let nodes = Fields(shard)?["nodes"]?.array else { continue }
            for node in nodes.compactMap(Fields.init) where node["role"]?.string == "master" {
                guard node["health"]?.string != "fail" else { continue }
                let port = (useTLSPort ? node["tls-port"] : node["port"])?.int ?? node["port"]?.int
                var host = node["endpoint"]?.string ?? node["ip"]?.string ?? ""
                if host.isEmpty || host == "?" { host = fallback.first?.0 ?? "127.0.0.1" }
                if let port { masters.append((host, port)) }
            }
        }
        return masters.isEmpty ? fallback : masters
    }
}

/// A Redis reply that is a flat list of field names and values (`XINFO`, `CLUSTER SHARDS`).
struct Fields {
    private var values: [String: RESPValue] = [:]

    init?(_ reply: RESPValue) {
        guard let items = reply.array, items.count.isMultiple(of: 2) else { return nil }
        for index in stride(from: 0, to: items.count, by: 2) {
            guard let name = items[index].string else { return nil }
            values[name] = items[index + 1]
        }
    }

    subscript(name: String) -> RESPValue? { values[name] }
}

package import EventsRedisClient
import Foundation
import RedisServerSupport
package import RedisTestSupport

/// The Redis processes of one run, each data node behind a ``FaultProxy`` that every client
/// connection goes through (the nodes announce the proxy's port, so that Sentinel and Cluster
/// send clients there too), with the faults the nemesis plays on them.
///
/// Its methods block while Redis processes start and stop: call them from a thread of their own.
package final class Deployment: @unchecked Sendable {
    // @unchecked: the nemesis thread alone calls the methods that change the processes, one at
    // a time; the other threads only read `spec` and the configurations, which never change.

    package let topology: Topology
    private let servers: [RedisServer]
    private let proxies: [FaultProxy]
    private let sentinel: RedisSentinel?
    private let cluster: RedisCluster?
    private static let masterName = "events"
    /// The masters when last looked at (port and replication id), and how often that changed.
    private var masters: Set<String> = []
    /// How many times the masters were seen to change: failovers the nemesis asked for, and
    /// those Sentinel or the cluster started by themselves when the network hid a master.
    package private(set) var roleChanges = 0

    package init(_ topology: Topology) async throws {
        self.topology = topology
        let quick = ["--repl-diskless-sync-delay", "0"]
        switch topology {
        case .single:
            let server = try RedisServer()
            servers = [server]
            proxies = [try FaultProxy(upstreamPort: server.port)]
            sentinel = nil
            cluster = nil
        case .sentinel:
            let master = try RedisServer(extraArguments: quick)
            let replica = try RedisServer(extraArguments: quick + ["--replicaof", "127.0.0.1", String(master.port)])
            servers = [master, replica]
            proxies = try servers.map { try FaultProxy(upstreamPort: $0.port) }
            cluster = nil
            for (server, proxy) in zip(servers, proxies) { try Self.announce(server, proxy, topology) }
            sentinel = try RedisSentinel(
                masterName: Self.masterName, masterPort: proxies[0].port, replicaPorts: [proxies[1].port])
            let replicaClient = RedisClient(replica.configuration)
            defer { replicaClient.close() }
            let synced = await eventually {
                let info = (try? await replicaClient.send("INFO", "replication"))?.string ?? ""
                return info.contains("master_link_status:up")
            }
            guard synced, await eventually({ self.sentinel?.knowsReplicas(1) == true }) else {
                throw TopologyFailure(description: "the replica or the sentinel did not come up")
            }
        case .cluster:
            let cluster = try RedisCluster(masters: 3, replicasPerMaster: 1)
            self.cluster = cluster
            servers = cluster.nodes
            proxies = try servers.map { try FaultProxy(upstreamPort: $0.port) }
            sentinel = nil
            for (server, proxy) in zip(servers, proxies) { try Self.announce(server, proxy, topology) }
            try cluster.waitUntilHealthy()
        }
    }

    /// Looks at the masters now and counts a change since the last look: another node in the
    /// role, or another replication id, which every promotion draws anew (so that a failover
    /// and one back between two looks still shows).
    package func noteRoles() {
        var now: Set<String> = []
        for server in servers {
            guard let connection = try? RedisConnection.open(server.configuration) else { continue }
            defer { connection.close() }
            guard let info = try? connection.command(["INFO", "replication"]).string, info.contains("role:master"),
                let id = info.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("master_replid:") })
            else { continue }
            now.insert("\(server.port) \(id)")
        }
        if !masters.isEmpty, !now.isEmpty, now != masters { roleChanges += 1 }
        if !now.isEmpty { masters = now }
    }

    /// Makes `server` name its proxy's port to clients and to Sentinel.
    private static func announce(_ server: RedisServer, _ proxy: FaultProxy, _ topology: Topology) throws {
        let port = RedisArgument(proxy.port)
        let option: RedisArgument = topology == .cluster ? "cluster-announce-port" : "replica-announce-port"
        let connection = try RedisConnection.open(server.configuration)
        defer { connection.close() }
        _ = try connection.command(["CONFIG", "SET", option, port])
    }

    /// How a consumer process is told where Redis is: `kind:port`.
    package var spec: String {
        switch topology {
        case .single: "single:\(proxies[0].port)"
        case .sentinel: "sentinel:\(sentinel!.port)"
        case .cluster: "cluster:" + proxies.map { String($0.port) }.joined(separator: ",")
        }
    }

    /// The client configuration for `spec`, with the short timeouts of a test.
    package static func configuration(spec: String) -> RedisConfiguration? {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        let ports = parts[1].split(separator: ",").compactMap { Int($0) }
        guard let first = ports.first else { return nil }
        var configuration = RedisConfiguration(host: "127.0.0.1", port: first)
        switch parts[0] {
        case "single": break
        case "sentinel":
            configuration.host = "unused.invalid"
            configuration.sentinel = RedisSentinelConfiguration(
                masterName: masterName, sentinels: [.init(host: "127.0.0.1", port: first)])
        case "cluster":
            configuration.host = "unused.invalid"
            configuration.cluster = RedisClusterConfiguration(nodes: ports.map { .init(host: "127.0.0.1", port: $0) })
        default: return nil
        }
        configuration.connectTimeout = .seconds(1)
        configuration.replyTimeout = .seconds(2)
        configuration.reconnect = RedisReconnectPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200))
        return configuration
    }

    // MARK: Faults

    /// Kills a master with SIGKILL and starts it again `downFor` later from its append-only
    /// file. With Sentinel or Cluster its replica is promoted meanwhile, and the restarted node
    /// comes back as a replica.
    package func killRedis(downFor: Duration, choosing index: Int) throws -> String {
        let masters = servers.indices.filter { isMaster(servers[$0]) }
        guard !masters.isEmpty else { return "kill Redis: no master answers, skipped" }
        let victim = masters[index % masters.count]
        if let cluster {
            _ = try cluster.killAndFailOver(servers[victim])
        } else {
            servers[victim].kill()
            Thread.sleep(forTimeInterval: downFor.seconds)
        }
        try servers[victim].restart()
        try Self.announce(servers[victim], proxies[victim], topology)
        if let cluster { try cluster.waitUntilHealthy(timeout: .seconds(30)) }
        return "killed Redis node \(victim) (\(topology)), restarted"
    }

    /// Hands a master's role to its replica by agreement (Sentinel or Cluster).
    package func failover(choosing index: Int) throws -> String {
        switch topology {
        case .single:
            return "failover: one server, skipped"
        case .sentinel:
            let connection = try RedisConnection.open(RedisConfiguration(host: "127.0.0.1", port: sentinel!.port))
            defer { connection.close() }
            let before = sentinel!.masterPort()
            _ = try connection.command(["SENTINEL", "FAILOVER", RedisArgument(Self.masterName)])
            // Sentinel answers at once and fails over after; it may also decide not to.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if let now = sentinel!.masterPort(), now != before { return "sentinel failover" }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return "sentinel failover asked, the master did not change within 5 s"
        case .cluster:
            let masters = servers.filter(isMaster)
            guard !masters.isEmpty else { return "failover: no master answers, skipped" }
            try cluster!.failover(masters[index % masters.count])
            return "cluster failover"
        }
    }

    /// Moves the slot of one partition stream to another master, keys and all.
    package func migrateSlot(choosing index: Int) throws -> String {
        guard let cluster else { return "migrate: not a cluster, skipped" }
        let key = CampaignRules.streamKeys[index % CampaignRules.streamKeys.count]
        let slot = try cluster.slot(ofKey: key)
        let owner = try cluster.owner(ofSlot: slot)
        guard let target = servers.filter({ $0 !== owner && isMaster($0) }).first else {
            return "migrate: no other master, skipped"
        }
        try cluster.migrate(slot: slot, to: target)
        return "migrated slot \(slot) of \(key)"
    }

    /// Every proxy in `mode` for `duration`, then forwarding again.
    package func network(_ mode: FaultProxy.Mode, for duration: Duration) -> String {
        setNetwork(mode)
        Thread.sleep(forTimeInterval: duration.seconds)
        setNetwork(.forward)
        return "network \(mode) for \(duration)"
    }

    /// Every proxy in `mode` until told otherwise.
    package func setNetwork(_ mode: FaultProxy.Mode) {
        for proxy in proxies { proxy.mode = mode }
    }

    /// Resets every open connection.
    package func resetConnections() -> String {
        for proxy in proxies { proxy.resetConnections() }
        return "connections reset"
    }

    /// Brings every node and link back: what runs after the last fault, before the checks.
    /// Returns what was still not whole after the bound (empty when everything was), for the
    /// report of a run that then does not settle.
    package func heal() throws -> String {
        setNetwork(.forward)
        if let cluster { try cluster.waitUntilHealthy(timeout: .seconds(30)) }
        var state = ""
        if topology == .sentinel {
            // A failover the network started may still be under way: wait, within a bound, until
            // the master Sentinel names answers as one and the other node follows it.
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, !sentinelAgrees() { Thread.sleep(forTimeInterval: 0.05) }
            if !sentinelAgrees() { state = "after the heal, Sentinel and the nodes disagree: \(replicationState())" }
        }
        noteRoles()
        return state
    }

    /// Which port Sentinel names master, and each node's role and link, on one line.
    package func replicationState() -> String {
        var parts = ["sentinel names \(sentinel?.masterPort().map(String.init) ?? "none")"]
        for (server, proxy) in zip(servers, proxies) {
            guard let connection = try? RedisConnection.open(server.configuration) else {
                parts.append("\(proxy.port): no answer")
                continue
            }
            defer { connection.close() }
            let info = (try? connection.command(["INFO", "replication"]).string) ?? ""
            let fields = info.split(whereSeparator: \.isNewline).filter {
                $0.hasPrefix("role:") || $0.hasPrefix("master_port:") || $0.hasPrefix("master_link_status:")
                    || $0.hasPrefix("master_sync_in_progress:")
            }
            parts.append("\(proxy.port): " + fields.joined(separator: " "))
        }
        return parts.joined(separator: ", ")
    }

    /// Whether the node Sentinel names master answers as one, and every other node is its
    /// replica with the link up.
    private func sentinelAgrees() -> Bool {
        guard let port = sentinel?.masterPort(), let master = proxies.firstIndex(where: { $0.port == port }) else {
            return false
        }
        for index in servers.indices {
            guard let connection = try? RedisConnection.open(servers[index].configuration) else { return false }
            defer { connection.close() }
            let info = (try? connection.command(["INFO", "replication"]).string) ?? ""
            let agrees = index == master ? info.contains("role:master") : info.contains("master_link_status:up")
            if !agrees { return false }
        }
        return true
    }

    /// A client straight to the data (through the proxies), for reading the streams at the end.
    package var client: RedisClient { RedisClient(Self.configuration(spec: spec)!) }

    private func isMaster(_ server: RedisServer) -> Bool {
        guard let connection = try? RedisConnection.open(server.configuration) else { return false }
        defer { connection.close() }
        return (try? connection.command(["ROLE"]).array?.first?.string) == "master"
    }
}

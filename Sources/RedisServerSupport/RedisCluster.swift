package import EventsRedisClient
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real Redis Cluster of local `redis-server` processes for a test or the benchmark:
/// `masters` masters sharing the 16384 slots in equal ranges, each with `replicasPerMaster`
/// replicas, every node in its own temporary directory (see ``RedisServer``).
///
/// ```swift
/// @Test(.enabled(if: RedisServer.isAvailable(), RedisServer.skipReason))
/// func example() throws {
///     let cluster = try RedisCluster(masters: 3)
///     let owner = try cluster.owner(ofKey: "events:{orders}")
///     try cluster.migrate(slot: try cluster.slot(ofKey: "events:{orders}"), to: cluster.masters[1])
/// }
/// ```
///
/// The cluster is assembled with `CLUSTER ADDSLOTSRANGE`, `CLUSTER MEET` and
/// `CLUSTER REPLICATE` rather than `redis-cli --cluster create`, so that the slot ranges are
/// known and nothing but `redis-server` is needed. The node timeout is short, so a dead master
/// is replaced by its replica within a second or two. Every process is killed when the value is
/// dropped, also when the initializer throws halfway.
package final class RedisCluster {
    /// The nodes started as masters, in slot order: `masters[i]` owned the i-th range at start.
    package let masters: [RedisServer]
    /// The nodes started as replicas: `replicas[i]` replicated `masters[i / replicasPerMaster]`.
    package let replicas: [RedisServer]
    /// How long a node may be silent before the others count it as failing.
    package let nodeTimeout: Duration

    /// Every node, masters first.
    package var nodes: [RedisServer] { masters + replicas }

    /// Starts and assembles the cluster, and waits until every node reports `cluster_state:ok`
    /// and agrees on who owns every slot. `extraArguments` go to every node (later ones win).
    package init(
        masters masterCount: Int = 3, replicasPerMaster: Int = 0, nodeTimeout: Duration = .milliseconds(500),
        extraArguments: [String] = []
    ) throws {
        guard masterCount >= 1, replicasPerMaster >= 0 else {
            throw RedisServer.Failure(description: "a cluster needs at least one master")
        }
        self.nodeTimeout = nodeTimeout
        var started: [RedisServer] = []
        for _ in 0..<(masterCount * (1 + replicasPerMaster)) {
            started.append(try Self.startNode(nodeTimeout: nodeTimeout, extraArguments: extraArguments))
        }
        masters = Array(started.prefix(masterCount))
        replicas = Array(started.dropFirst(masterCount))
        try assemble(replicasPerMaster: replicasPerMaster)
    }

    /// Starts one node with cluster mode on. Its cluster bus port is chosen here, below the
    /// ports ``RedisServer`` takes and below the kernel's ephemeral range, rather than left at
    /// the default port + 10000, which could fall inside that range.
    private static func startNode(nodeTimeout: Duration, extraArguments: [String]) throws -> RedisServer {
        var lastError: any Error = RedisServer.Failure(description: "no attempt")
        for _ in 0..<5 {
            guard
                let bus = (0..<200).lazy.map({ _ in Int.random(in: 12_000..<17_000) }).first(
                    where: TestSocket.canListen)
            else { throw RedisServer.Failure(description: "no free port for a cluster bus") }
            do {
                return try RedisServer(
                    extraArguments: [
                        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", String(nodeTimeout.wholeMilliseconds),
                        "--cluster-port", String(bus),
                        // A replica may always take over, however long its link was down.
                        "--cluster-replica-validity-factor", "0",
                        "--repl-diskless-sync-delay", "0",
                        // Let writes go to a shard whose master is down only after the failover,
                        // not refuse the whole cluster while one range is uncovered.
                        "--cluster-require-full-coverage", "no",
                    ] + extraArguments)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private func assemble(replicasPerMaster: Int) throws {
        let ranges = Self.slotRanges(count: masters.count)
        for (master, range) in zip(masters, ranges) {
            try command(
                on: master,
                ["CLUSTER", "ADDSLOTSRANGE", RedisArgument(range.lowerBound), RedisArgument(range.upperBound)])
        }
        let first = masters[0]
        for node in nodes.dropFirst() {
            try command(
                on: first,
                ["CLUSTER", "MEET", "127.0.0.1", RedisArgument(node.port), RedisArgument(try busPort(of: node))])
        }
        for (index, replica) in replicas.enumerated() {
            let master = masters[index / replicasPerMaster]
            let masterID = try nodeID(of: master)
            // A replica can follow only a master it has heard of through gossip.
            try waitFor("node \(replica.port) to learn of \(master.port)") {
                (try? self.command(on: replica, ["CLUSTER", "NODES"]).string)?.contains(masterID) == true
            }
            try command(on: replica, ["CLUSTER", "REPLICATE", RedisArgument(masterID)])
        }
        try waitUntilHealthy()
        for replica in replicas {
            try waitFor("replica \(replica.port) to sync") {
                (try? self.info(replica, "replication"))?.contains("master_link_status:up") == true
            }
        }
    }

    /// `count` contiguous ranges covering slots 0...16383, as equal as can be.
    package static func slotRanges(count: Int) -> [ClosedRange<Int>] {
        (0..<count).map { index in (index * 16_384 / count)...((index + 1) * 16_384 / count - 1) }
    }

    // MARK: Asking the nodes

    /// A configuration for one node, as ``RedisServer/configuration``.
    package func configuration(of node: RedisServer) -> RedisConfiguration { node.configuration }

    /// Sends one command to `node` on a connection of its own; an error reply is thrown.
    @discardableResult
    package func command(on node: RedisServer, _ arguments: [RedisArgument]) throws -> RESPValue {
        var configuration = node.configuration
        configuration.connectTimeout = .milliseconds(300)
        let connection = try RedisConnection.open(configuration)
        defer { connection.close() }
        return try connection.command(arguments)
    }

    private func info(_ node: RedisServer, _ section: String) throws -> String {
        try command(on: node, ["INFO", RedisArgument(section)]).string ?? ""
    }

    /// The node's cluster id (`CLUSTER MYID`).
    package func nodeID(of node: RedisServer) throws -> String {
        guard let id = try command(on: node, ["CLUSTER", "MYID"]).string else {
            throw RedisServer.Failure(description: "CLUSTER MYID gave no id")
        }
        return id
    }

    private func busPort(of node: RedisServer) throws -> Int {
        guard let reply = try command(on: node, ["CONFIG", "GET", "cluster-port"]).array, let port = reply.last?.int
        else { throw RedisServer.Failure(description: "CONFIG GET cluster-port gave no port") }
        return port
    }

    /// The slot a key hashes to, as the server computes it (`CLUSTER KEYSLOT`).
    package func slot(ofKey key: String) throws -> Int {
        guard let slot = try command(on: anyLiveNode(), ["CLUSTER", "KEYSLOT", RedisArgument(key)]).int else {
            throw RedisServer.Failure(description: "CLUSTER KEYSLOT gave no slot")
        }
        return slot
    }

    /// The master that owns `slot` now, as a live node sees it (`CLUSTER SLOTS`).
    package func owner(ofSlot slot: Int) throws -> RedisServer {
        guard let ranges = try command(on: anyLiveNode(), ["CLUSTER", "SLOTS"]).array else {
            throw RedisServer.Failure(description: "CLUSTER SLOTS gave no array")
        }
        for range in ranges {
            guard let parts = range.array, parts.count >= 3, let low = parts[0].int, let high = parts[1].int,
                low <= high, (low...high).contains(slot), let master = parts[2].array, master.count >= 2,
                let port = master[1].int
            else { continue }
            if let node = nodes.first(where: { $0.port == port }) { return node }
            // A node that announces another port (one behind a proxy) is known by its id.
            if master.count >= 3, let id = master[2].string,
                let node = nodes.first(where: { (try? nodeID(of: $0)) == id })
            {
                return node
            }
        }
        throw RedisServer.Failure(description: "no node owns slot \(slot)")
    }

    /// The master that owns the slot of `key` now.
    package func owner(ofKey key: String) throws -> RedisServer {
        try owner(ofSlot: slot(ofKey: key))
    }

    /// Whether `node` answers with the role master now.
    package func isMaster(_ node: RedisServer) -> Bool {
        (try? command(on: node, ["ROLE"]).array?.first?.string) == "master"
    }

    private func isAlive(_ node: RedisServer) -> Bool {
        (try? command(on: node, ["PING"]).string) == "PONG"
    }

    private func anyLiveNode() throws -> RedisServer {
        guard let node = nodes.first(where: isAlive) else { throw RedisServer.Failure(description: "no node answers") }
        return node
    }

    // MARK: Health

    /// Waits until every live node reports `cluster_state:ok` and all of them name the same
    /// owner for every slot, or `timeout` passes.
    package func waitUntilHealthy(timeout: Duration = .seconds(20)) throws {
        try waitFor("the cluster to be healthy", timeout: timeout) {
            let live = self.nodes.filter(self.isAlive)
            guard !live.isEmpty else { return false }
            var maps: Set<String> = []
            for node in live {
                guard (try? self.command(on: node, ["CLUSTER", "INFO"]).string)?.contains("cluster_state:ok") == true,
                    let map = self.slotOwners(as: node)
                else { return false }
                maps.insert(map)
            }
            return maps.count == 1
        }
    }

    /// The slot ranges and the port of their master as `node` sees them, in one comparable
    /// line; `nil` while it still counts a slot as migrating or importing.
    private func slotOwners(as node: RedisServer) -> String? {
        guard let ranges = try? command(on: node, ["CLUSTER", "SLOTS"]).array else { return nil }
        let lines = ranges.compactMap { range -> String? in
            guard let parts = range.array, parts.count >= 3, let master = parts[2].array, master.count >= 2 else {
                return nil
            }
            return "\(parts[0].int ?? -1)-\(parts[1].int ?? -1)@\(master[1].int ?? -1)"
        }
        return lines.sorted().joined(separator: ",")
    }

    private func waitFor(_ what: String, timeout: Duration = .seconds(20), _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard condition() else { throw RedisServer.Failure(description: "timed out waiting for \(what)") }
    }

    // MARK: Resharding

    /// A slot being moved between two masters: begun, keys moved in steps, finished.
    package struct SlotMigration {
        package let slot: Int
        package let source: RedisServer
        package let target: RedisServer
        let sourceID: String
        let targetID: String
    }

    /// Marks `slot` importing on `target` and migrating on its owner, the first step of a
    /// resharding. Until ``finish(_:)``, a command for a key already moved gets `ASK` from the
    /// source; one for a key not yet moved is still served there.
    package func beginMigration(slot: Int, to target: RedisServer) throws -> SlotMigration {
        let source = try owner(ofSlot: slot)
        guard source !== target else { throw RedisServer.Failure(description: "slot \(slot) is on that node already") }
        let migration = SlotMigration(
            slot: slot, source: source, target: target, sourceID: try nodeID(of: source),
            targetID: try nodeID(of: target))
        try command(
            on: target, ["CLUSTER", "SETSLOT", RedisArgument(slot), "IMPORTING", RedisArgument(migration.sourceID)])
        try command(
            on: source, ["CLUSTER", "SETSLOT", RedisArgument(slot), "MIGRATING", RedisArgument(migration.targetID)])
        return migration
    }

    /// Moves up to `limit` of the slot's keys to the target (`MIGRATE ... KEYS`); returns how
    /// many moved, 0 once the source holds none.
    @discardableResult
    package func moveKeys(_ migration: SlotMigration, limit: Int = 100) throws -> Int {
        guard
            let keys = try command(
                on: migration.source, ["CLUSTER", "GETKEYSINSLOT", RedisArgument(migration.slot), RedisArgument(limit)]
            ).array, !keys.isEmpty
        else { return 0 }
        var arguments: [RedisArgument] = [
            "MIGRATE", "127.0.0.1", RedisArgument(migration.target.port), "", 0, 5000, "KEYS",
        ]
        arguments += keys.compactMap { $0.bytes.map(RedisArgument.init) }
        try command(on: migration.source, arguments)
        return keys.count
    }

    /// Moves the remaining keys and hands the slot to the target on every master, the last
    /// step of a resharding; from then on the source answers `MOVED` for the slot.
    package func finish(_ migration: SlotMigration) throws {
        while try moveKeys(migration) > 0 {}
        let assign: [RedisArgument] = [
            "CLUSTER", "SETSLOT", RedisArgument(migration.slot), "NODE", RedisArgument(migration.targetID),
        ]
        // The target first, so that the slot is never left without an owner claiming it.
        try command(on: migration.target, assign)
        try command(on: migration.source, assign)
        for master in masters where master !== migration.source && master !== migration.target && isAlive(master) {
            _ = try? command(on: master, assign)
        }
        try waitUntilHealthy()
    }

    /// Moves `slot` with all its keys to `target`.
    package func migrate(slot: Int, to target: RedisServer) throws {
        try finish(beginMigration(slot: slot, to: target))
    }

    // MARK: Failover

    /// The replicas that follow `master` now.
    package func replicas(of master: RedisServer) throws -> [RedisServer] {
        let id = try nodeID(of: master)
        return replicas.filter { replica in
            (try? command(on: replica, ["CLUSTER", "NODES"]).string)?.split(separator: "\n").contains {
                $0.contains("myself") && $0.contains(id)
            } == true
        }
    }

    /// Makes a replica of `master` take over by agreement (`CLUSTER FAILOVER`), as an operator
    /// does for maintenance, and waits until the cluster is healthy again; returns the new master.
    @discardableResult
    package func failover(_ master: RedisServer) throws -> RedisServer {
        guard let replica = try replicas(of: master).first else {
            throw RedisServer.Failure(description: "master \(master.port) has no replica")
        }
        try command(on: replica, ["CLUSTER", "FAILOVER"])
        try waitFor("replica \(replica.port) to take over") { self.isMaster(replica) }
        try waitUntilHealthy()
        return replica
    }

    /// Kills `master` (SIGKILL), as a crash would, and waits until one of its replicas has been
    /// promoted and the cluster is healthy again; returns the new master.
    @discardableResult
    package func killAndFailOver(_ master: RedisServer) throws -> RedisServer {
        let candidates = try replicas(of: master)
        guard !candidates.isEmpty else {
            throw RedisServer.Failure(description: "master \(master.port) has no replica")
        }
        master.kill()
        var promoted: RedisServer?
        try waitFor("a replica of \(master.port) to be promoted", timeout: .seconds(30)) {
            promoted = candidates.first(where: self.isMaster)
            return promoted != nil
        }
        try waitUntilHealthy()
        return promoted!
    }
}

// A cluster is driven by one test at a time; its nodes are not shared across threads.
@available(*, unavailable)
extension RedisCluster: Sendable {}

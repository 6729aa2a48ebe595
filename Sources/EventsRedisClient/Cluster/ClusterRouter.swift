/// Sends a ``RedisClient``'s commands over a Redis Cluster: each to the master that owns its
/// key, through one ``RedisClient`` per master (which pipelines, reconnects and uses the
/// configured transport), following `MOVED` and `ASK` (see ``RedisClusterConfiguration``).
final class ClusterRouter: Sendable {
    typealias Address = RedisClusterConfiguration.Address

    let configuration: RedisConfiguration
    let cluster: RedisClusterConfiguration
    private let state = LockedBox(State())

    private struct State: Sendable {
        var map: ClusterSlotMap?
        var clients: [Address: RedisClient] = [:]
        var isClosed = false
    }

    init(configuration: RedisConfiguration, cluster: RedisClusterConfiguration) {
        self.configuration = configuration
        self.cluster = cluster
    }

    func close() {
        let clients: [RedisClient] = state.withLock { state in
            state.isClosed = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { client.close() }
    }

    /// Whether any node's client holds an open connection. The clients are asked outside this
    /// router's lock, so that no lock is taken while another is held.
    var isConnected: Bool {
        state.withLock { Array($0.clients.values) }.contains { $0.isConnected }
    }

    /// The client for one node, made on first use. Its connection attempts are not retried:
    /// a node that cannot be reached may have been replaced, so the router reads the map again
    /// before it tries anew.
    func client(for address: Address) throws(RedisError) -> RedisClient {
        try state.withLock { state throws(RedisError) in
            if state.isClosed { throw .clientClosed }
            if let client = state.clients[address] { return client }
            var node = RedisConnection.nodeConfiguration(address, configuration)
            node.reconnect.maxAttempts = 1
            let client = RedisClient(node)
            state.clients[address] = client
            return client
        }
    }

    // MARK: The slot map

    func currentMap() async throws(RedisError) -> ClusterSlotMap {
        if let map = state.withLock({ $0.map }) { return map }
        return try await refreshMap()
    }

    /// Reads the map from the first node that gives one: the masters known now, then the configured nodes.
    @discardableResult
    func refreshMap() async throws(RedisError) -> ClusterSlotMap {
        var candidates = state.withLock { $0.map?.masters ?? [] }
        for node in cluster.nodes where !candidates.contains(node) { candidates.append(node) }
        var reasons: [String] = []
        for address in candidates {
            do throws(RedisError) {
                let client = try client(for: address)
                var map: ClusterSlotMap?
                do throws(RedisError) {
                    map = ClusterSlotMap.fromShards(
                        try await client.send(["CLUSTER", "SHARDS"]), asked: address,
                        useTLSPort: configuration.tls != nil)
                } catch  where error.serverErrorCode == "ERR" {
                    // A server before 7.0 knows only CLUSTER SLOTS.
                    map = ClusterSlotMap.fromSlots(try await client.send(["CLUSTER", "SLOTS"]), asked: address)
                }
                guard let map, !map.masters.isEmpty else {
                    reasons.append("\(address) gave no slot map")
                    continue
                }
                state.withLock { $0.map = map }
                return map
            } catch {
                if error == .clientClosed { throw error }
                reasons.append("\(address): \(error)")
            }
        }
        throw .connectFailed(
            host: cluster.nodes.first?.host ?? "cluster", port: cluster.nodes.first?.port ?? 0,
            reason: candidates.isEmpty
                ? "no cluster node is configured" : "no node gave the slot map: " + reasons.joined(separator: "; "))
    }

    // MARK: Routing

    /// A command, or a `MULTI` ... `EXEC` block, that goes to one node as a whole.
    private struct Unit {
        var range: Range<Int>
        var slot: Int?
        var isTransaction: Bool
    }

    private static func units(of commands: [[RedisArgument]]) -> [Unit] {
        var units: [Unit] = []
        var index = 0
        while index < commands.count {
            if commands[index].first?.upperText == "MULTI" {
                var end = index + 1
                while end < commands.count, !["EXEC", "DISCARD"].contains(commands[end].first?.upperText ?? "") {
                    end += 1
                }
                end = min(end + 1, commands.count)
                let slot = commands[index..<end].lazy.compactMap(ClusterCommandKey.slot).first
                units.append(Unit(range: index..<end, slot: slot, isTransaction: true))
                index = end
            } else {
                units.append(
                    Unit(
                        range: index..<index + 1, slot: ClusterCommandKey.slot(of: commands[index]),
                        isTransaction: false))
                index += 1
            }
        }
        // A keyless command follows the keyed one before it, else the one after it.
        var previous: Int?
        for position in units.indices {
            if let slot = units[position].slot { previous = slot } else { units[position].slot = previous }
        }
        var following: Int?
        for position in units.indices.reversed() {
            if let slot = units[position].slot { following = slot } else { units[position].slot = following }
        }
        return units
    }

    /// Sends `commands`, each to the owner of its key, and returns their replies in order, as
    /// ``RedisClient/pipeline(_:timeout:)`` does on one server.
    nonisolated(nonsending) func pipeline(_ commands: [[RedisArgument]], timeout: Duration?)
        async throws(RedisError) -> [RESPValue]
    {
        if configuration.sentinel != nil {
            throw .invalidConfiguration("a configuration names either sentinels or a cluster, not both")
        }
        let units = Self.units(of: commands)
        var replies = [RESPValue?](repeating: nil, count: commands.count)
        var asked = [Address?](repeating: nil, count: units.count)
        var redirections = [Int](repeating: 0, count: units.count)
        var pending = Array(units.indices)
        var failures = 0
        let deadline = ContinuousClock.now + configuration.connectTimeout + (timeout ?? configuration.replyTimeout)
        var map = try await currentMap()
        while !pending.isEmpty {
            var groups: [(address: Address, units: [Int])] = []
            var unreachable: RedisError?
            for position in pending {
                let slot = units[position].slot
                guard let address = asked[position] ?? (slot.map { map.owner(of: $0) } ?? map.masters.first) else {
                    unreachable = .connectFailed(
                        host: "cluster", port: 0,
                        reason: "no master serves slot \(slot ?? -1) (a failover in progress?)")
                    continue
                }
                if let group = groups.firstIndex(where: { $0.address == address }) {
                    groups[group].units.append(position)
                } else {
                    groups.append((address, [position]))
                }
            }
            let outcomes = await send(groups, units: units, asked: asked, commands: commands, timeout: timeout)
            var next: [Int] = pending.filter { position in !groups.contains { $0.units.contains(position) } }
            var refresh = unreachable != nil
            for (group, outcome) in zip(groups, outcomes) {
                switch outcome {
                case .failure(let error):
                    // Not connected means not sent: safe to send again once the map is read anew.
                    guard error.code == .connectFailed else { throw error }
                    unreachable = error
                    refresh = true
                    next += group.units
                case .success(let groupReplies):
                    var offset = 0
                    for position in group.units {
                        let unit = units[position]
                        let asking = asked[position] != nil && !unit.isTransaction
                        if asking { offset += 1 }
                        let unitReplies = groupReplies[offset..<offset + unit.range.count]
                        offset += unit.range.count
                        let redirection = unitReplies.lazy.compactMap {
                            ClusterSlotMap.redirection(in: $0, from: group.address)
                        }.first
                        if let redirection, redirections[position] < cluster.maxRedirections {
                            redirections[position] += 1
                            if redirection.isAsk && !unit.isTransaction {
                                asked[position] = redirection.address
                            } else {
                                asked[position] = nil
                                refresh = true
                            }
                            next.append(position)
                        } else {
                            for (index, reply) in zip(unit.range, unitReplies) { replies[index] = reply }
                        }
                    }
                }
            }
            pending = next.sorted()
            guard !pending.isEmpty, refresh else { continue }
            if let unreachable {
                failures += 1
                let delay = configuration.reconnect.delay(afterFailures: failures)
                guard ContinuousClock.now + delay < deadline else { throw unreachable }
                try? await Task.sleep(for: delay)
            }
            if let fresh = try? await refreshMap() { map = fresh }
        }
        return replies.map { $0 ?? .null }
    }

    /// Sends each group's commands to its node at once, `ASKING` before each asked command.
    private nonisolated(nonsending) func send(
        _ groups: [(address: Address, units: [Int])], units: [Unit], asked: [Address?], commands: [[RedisArgument]],
        timeout: Duration?
    ) async -> [Result<[RESPValue], RedisError>] {
        var batches: [(client: RedisClient?, commands: [[RedisArgument]])] = []
        var outcomes = [Result<[RESPValue], RedisError>](repeating: .success([]), count: groups.count)
        for (index, group) in groups.enumerated() {
            do throws(RedisError) {
                var batch: [[RedisArgument]] = []
                for position in group.units {
                    if asked[position] != nil && !units[position].isTransaction { batch.append(["ASKING"]) }
                    batch += commands[units[position].range]
                }
                batches.append((try client(for: group.address), batch))
            } catch {
                outcomes[index] = .failure(error)
                batches.append((nil, []))
            }
        }
        // One node, the common case: no task to start.
        if batches.count == 1, let client = batches[0].client {
            let batch = batches[0].commands
            outcomes[0] = await Self.result { () async throws(RedisError) in
                try await client.pipeline(batch, timeout: timeout)
            }
            return outcomes
        }
        await withTaskGroup(of: (Int, Result<[RESPValue], RedisError>).self) { tasks in
            for (index, batch) in batches.enumerated() {
                guard let client = batch.client else { continue }
                let commands = batch.commands
                tasks.addTask {
                    (
                        index,
                        await Self.result { () async throws(RedisError) in
                            try await client.pipeline(commands, timeout: timeout)
                        }
                    )
                }
            }
            for await (index, outcome) in tasks { outcomes[index] = outcome }
        }
        return outcomes
    }

    private static func result(
        _ body: () async throws(RedisError) -> [RESPValue]
    ) async -> Result<[RESPValue], RedisError> {
        do throws(RedisError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}

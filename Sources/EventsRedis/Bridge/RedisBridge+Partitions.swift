extension RedisBridge {
    /// Carries the events of type `type` on `partitions` streams in place of one, so that a
    /// busy event type spreads over the shards of a Redis Cluster and over more readers.
    ///
    /// ```swift
    /// try bridge.carry(OrderPlaced.self, mode: .stream, partitions: 8, by: { $0.customerID })
    /// ```
    ///
    /// Partition `i` is the stream `<keyPrefix>{<wire name>:<i>}`: each partition is a hash
    /// tag of its own, so on a cluster the partitions land on different slots, and each
    /// partition's dead letters share its slot. (A ``Configuration/keyPrefix`` with a hash tag
    /// of its own puts every partition in that one slot.) Receivers read all partitions
    /// together; every process that carries the type must give the same number of partitions.
    /// A bridge checks this when it starts: when it finds another layout in use (entries
    /// waiting unread on streams it does not read, or consumer groups reading streams it does
    /// not publish to), it reports a ``RedisBridgeError/Code/partitionLayoutMismatch`` error for
    /// each to ``Configuration/errorHandler``, counts it in
    /// ``Statistics/partitionLayoutMismatches`` and logs it as a warning.
    ///
    /// An event goes to the partition of its partition key: `partitionKey(event)`, or without
    /// it, the `subject` that ``Configuration/subject`` gives its sender, or for an event
    /// dispatched without a sender, the bridge's ``Configuration/source``. Events with the same
    /// partition key, published by one process, are delivered in the order they were dispatched;
    /// events in different partitions may arrive in any order. The key's hash is the same in
    /// every process and across restarts.
    ///
    /// On one server, one reader reads every partition with one command. On a cluster, one
    /// command cannot read streams of different slots, so each partition has a reader and a
    /// connection of its own: a few partitions per shard spread the load, hundreds only add
    /// connections.
    ///
    /// One partition is the plain stream `<keyPrefix><wire name>`. Partitions are for streams:
    /// `partitions` above 1 with ``Mode/pubSub``, or outside `1...1024`, throws
    /// ``RedisBridgeError/invalidConfiguration(_:)``. A failure policy applies to every
    /// partition, and ``deadLetters(of:limit:)-(E.Type,_)`` and
    /// ``purgeDeadLetters(of:)-(E.Type)`` cover them all.
    public func carry<E: RemoteEvent>(
        _ type: E.Type, mode: Mode, partitions: Int, by partitionKey: (@Sendable (E) -> String)? = nil,
        direction: Direction = .both, onFailure policy: FailurePolicy? = nil
    ) throws(RedisBridgeError) {
        guard (1...StreamPartitions.maximum).contains(partitions) else {
            throw .invalidConfiguration(
                "\(E.wireName) is carried on \(partitions) partitions; give 1 to \(StreamPartitions.maximum)")
        }
        guard partitions == 1 || mode == .stream else {
            throw .invalidConfiguration(
                "\(E.wireName) is carried with Pub/Sub on \(partitions) partitions; partitions are streams")
        }
        let keys = StreamPartitions.keys(prefix: configuration.keyPrefix, wireName: E.wireName, count: partitions)
        try add(.typed(type, mode: mode, keys: keys, partitionKey: partitionKey), direction: direction)
        if let policy { setFailurePolicy(policy, forWireName: E.wireName) }
    }

    /// Looks for other partition layouts of the carried stream types (see
    /// `PartitionLayoutCheck`) and reports what it finds, on a connection of its own. When
    /// `start()` connected to Redis anyway (`connected`), it runs before `start()` returns, one
    /// round trip more; otherwise (a bridge that only publishes starts without waiting for
    /// Redis) it runs on a task, returned with its client so that stopping can end it.
    func checkPartitionLayouts(received: [CarriedEvent], published: [CarriedEvent], connected: Bool) async
        -> (task: Task<Void, Never>, client: RedisClient)?
    {
        let check = PartitionLayoutCheck(
            received: received, published: published, keyPrefix: configuration.keyPrefix,
            group: configuration.consumerGroup)
        guard !check.probes.isEmpty else { return nil }
        let client = RedisClient(configuration.redis)
        let configuration = configuration
        let counters = counters
        let run: @Sendable () async -> Void = {
            let findings = await check.run(client)
            for (error, record) in findings.mismatches {
                counters.partitionLayoutMismatches.increment()
                // Reported by hand rather than through `report`, so that the log keeps the
                // record's own fields (the entries waiting, the groups).
                configuration.errorHandler(error)
                configuration.logHandler?(record)
            }
            if let done = findings.done { configuration.logHandler?(done) }
            client.close()
        }
        guard !connected else {
            await run()
            return nil
        }
        return (Task { await run() }, client)
    }
}

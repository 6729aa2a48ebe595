import Events
import Synchronization

/// Reads the carried streams as one consumer of a consumer group, delivers each entry locally
/// and acknowledges it afterwards.
///
/// After every (re)connect, in this order: make sure the groups exist, re-read this consumer's
/// own pending entries (delivered before but never acknowledged), then claim entries that other
/// consumers of the group left pending for too long, then read new entries. Any failure starts
/// the sequence again after a backoff, so an entry is acknowledged only after its local
/// delivery, and one that was delivered but not acknowledged comes back and is suppressed as a
/// duplicate.
struct StreamConsumer: Sendable {
    struct Entry: Sendable, Equatable {
        let key: String
        let id: String
        /// The entry's `event` field; nil when the entry was deleted or has no such field.
        let message: [UInt8]?
        let deleted: Bool
        /// How many times Redis has delivered it to the group, this time included.
        var deliveryCount = 1
    }

    let client: RedisClient
    let keys: [String]
    let group: String
    let consumer: String
    let inbound: Inbound
    let configuration: RedisBridge.Configuration
    let counters: BridgeCounters
    let report: @Sendable (RedisBridgeError) -> Void
    /// Failure policies of streams carried with one of their own, by stream key.
    var failurePolicies: [String: RedisBridge.FailurePolicy] = [:]
    /// The entries whose listeners failed, waiting for another delivery.
    let schedule = RetrySchedule()

    /// Creates the consumer group of every stream (and the stream itself) if missing.
    ///
    /// On start (`fromStart` false), a new group starts at the stream's end: it receives events
    /// published from now on. Once running (`fromStart` true), a missing group means the server
    /// lost its data: every entry in the stream was published since, possibly before this
    /// consumer noticed, so the group starts at the beginning and skips none of them; and what
    /// the group had not read before the loss is gone, which is reported.
    func createGroups(fromStart: Bool = false) async throws(RedisError) {
        let position: RedisArgument = fromStart ? "0" : "$"
        for key in keys {
            do {
                _ = try await client.send(
                    ["XGROUP", "CREATE", RedisArgument(key), RedisArgument(group), position, "MKSTREAM"])
            } catch {
                guard error.serverErrorCode == "BUSYGROUP" else { throw error }
                continue
            }
            // The first setup after `start()` finds the groups it made: a group made here was
            // lost since.
            if fromStart {
                counters.consumerGroupsLost.increment()
                report(.consumerGroupLost(stream: key, group: group))
            }
        }
    }

    func run() async {
        var backoff = Backoff(configuration.redis.reconnect)
        // Setup runs first on every start too: a restarted process resumes its own pending entries.
        var needsSetup = true
        var lastClaim: ContinuousClock.Instant?
        // Acknowledgements of delivered entries ride along with the next read, saving a round
        // trip per batch. Lost with the connection, they only cause a redelivery (suppressed).
        var acknowledgements: [String: [String]] = [:]
        // While a batch is delivered, the next one is already being read: Redis serves the read
        // and the client's thread parses the reply meanwhile, instead of the reader waiting for
        // them between batches (in the benchmark's Streams throughput, the reader spent much of
        // its time waiting).
        var readAhead: ReadAhead?
        while !Task.isCancelled {
            do {
                if needsSetup {
                    try await createGroups(fromStart: true)
                    needsSetup = false
                    try await deliverOwnPending()
                }
                if let keeping = schedule.nextKeeping, keeping <= .now {
                    // The entries waiting for a retry are touched before a claim pass could
                    // find them idle; what was read ahead is delivered first, its reply
                    // before theirs on the one connection.
                    if let read = readAhead.take() {
                        acknowledgements.merge(await deliver(try await read.entries()), uniquingKeysWith: +)
                    }
                    try await keepWaitingEntries()
                }
                if lastClaim.map({ ContinuousClock.now - $0 >= configuration.claimInterval }) ?? true {
                    // Unacknowledged, the entries read and delivered so far are pending for this
                    // consumer, and a claim pass takes back those idle long enough (a slow
                    // machine) and delivers them again: deliver and acknowledge them all first.
                    if let read = readAhead.take() {
                        acknowledgements.merge(await deliver(try await read.entries()), uniquingKeysWith: +)
                    }
                    try await acknowledge(acknowledgements)
                    acknowledgements = [:]
                    try await claimStaleEntries()
                    lastClaim = .now
                }
                if let due = schedule.nextDue, due <= .now {
                    // Retries come back before new entries; what was read ahead goes first.
                    if let read = readAhead.take() {
                        acknowledgements.merge(await deliver(try await read.entries()), uniquingKeysWith: +)
                    }
                    try await acknowledge(acknowledgements)
                    acknowledgements = [:]
                    try await redeliverDue()
                }
                let entries: [Entry]
                if let read = readAhead.take() {
                    entries = try await read.entries()
                } else {
                    entries = try await readNew(acknowledging: acknowledgements, block: nextBlock())
                    acknowledgements = [:]
                }
                if !entries.isEmpty {
                    // More are likely waiting: read them while these are delivered.
                    readAhead = ReadAhead(self, acknowledging: acknowledgements, block: nextBlock())
                    acknowledgements = [:]
                }
                acknowledgements.merge(await deliver(entries), uniquingKeysWith: +)
                backoff.reset()
            } catch {
                // The acknowledgements sent with a failed read are lost: a redelivery, suppressed.
                await readAhead.take()?.abandon()
                if error == .clientClosed || Task.isCancelled { return }
                counters.redisErrors.increment()
                report(.redis(error))
                // Setting up again re-reads every pending entry of this consumer, those waiting
                // for a retry included (their events stay let through deduplication).
                _ = schedule.removeAll()
                counters.pendingEntries.store(0, ordering: .relaxed)
                needsSetup = true
                lastClaim = nil
                acknowledgements = [:]
                await backoff.wait()
            }
        }
        // Stopping: deliver the batch read ahead, as the read in progress always was, then
        // acknowledge what was delivered, so a restart does not deliver it again.
        if let read = readAhead.take(), let entries = try? await read.entries() {
            acknowledgements.merge(await deliver(entries), uniquingKeysWith: +)
        }
        if !acknowledgements.isEmpty, (try? await client.pipeline(acknowledgeCommands(acknowledgements))) != nil {
            noteAcknowledged(acknowledgements)
        }
    }

    /// How long the next read may wait for new entries: the block time, or less when a retry
    /// falls due, or an entry waiting for one must be touched, before it ends.
    private func nextBlock() -> Duration {
        let next = [schedule.nextDue, schedule.nextKeeping].compactMap { $0 }.min()
        guard let next else { return configuration.readBlock }
        return max(.milliseconds(1), min(configuration.readBlock, next - .now))
    }

    /// A read of new entries started ahead of its use, on a task of its own.
    struct ReadAhead {
        private let task: Task<Result<[Entry], RedisError>, Never>

        init(_ consumer: StreamConsumer, acknowledging acknowledgements: [String: [String]], block: Duration) {
            task = Task {
                do throws(RedisError) {
                    return .success(try await consumer.readNew(acknowledging: acknowledgements, block: block))
                } catch {
                    return .failure(error)
                }
            }
        }

        func entries() async throws(RedisError) -> [Entry] {
            try await task.value.get()
        }

        /// Waits for the read to end (its connection failed or closes) and drops its entries:
        /// they stay pending in Redis, for this consumer's next start or a claim.
        func abandon() async {
            _ = await task.value
        }
    }

    /// Delivers this consumer's pending entries, oldest first, until none is left.
    func deliverOwnPending() async throws(RedisError) {
        var after = Dictionary(uniqueKeysWithValues: keys.map { ($0, "0") })
        while true {
            let reply: RESPValue
            do {
                reply = try await client.send(
                    readCommand(ids: keys.map { after[$0]! }, block: nil), timeout: configuration.redis.replyTimeout)
            } catch let error where error.code == .frameTooLarge {
                // An entry over the client's frame limit would fail every batch read for ever.
                // (A frameTooLarge error always carries its limit.)
                try await settleOversizedPending(limit: error.limit ?? 0)
                continue
            }
            let entries = try Self.entries(fromRead: reply)
            guard !entries.isEmpty else { return }
            for entry in entries { after[entry.key] = entry.id }
            try await handle(try await withDeliveryCounts(entries))
        }
    }

    /// Goes through this consumer's pending entries one at a time: delivers those that fit in a
    /// frame, and acknowledges and reports (as an invalid message) those that do not, so that
    /// one oversized entry never stalls the stream. Only the entry ids are listed in bulk
    /// (`XPENDING`), which keeps that reply small whatever the entries hold.
    func settleOversizedPending(limit: Int) async throws(RedisError) {
        for key in keys {
            let listing = try await client.send([
                "XPENDING", RedisArgument(key), RedisArgument(group), "-", "+",
                RedisArgument(configuration.readBatchSize), RedisArgument(consumer),
            ])
            guard let rows = listing.array else {
                throw RedisError.unexpectedReply(expected: "an XPENDING listing", got: "\(listing)")
            }
            for row in rows {
                guard let id = row.array?.first?.string else {
                    throw RedisError.unexpectedReply(expected: "a pending entry", got: "\(row)")
                }
                do {
                    let reply = try await client.send([
                        "XRANGE", RedisArgument(key), RedisArgument(id), RedisArgument(id),
                    ])
                    let entries = try (reply.array ?? []).map { item throws(RedisError) in
                        try Self.entry(item, key: key)
                    }
                    if entries.isEmpty {
                        // Trimmed or deleted meanwhile: nothing to deliver.
                        _ = try await client.send(["XACK", RedisArgument(key), RedisArgument(group), RedisArgument(id)])
                    } else {
                        try await handle(try await withDeliveryCounts(entries))
                    }
                } catch let error where error.code == .frameTooLarge {
                    counters.invalidMessages.increment()
                    report(
                        .invalidMessage(
                            CloudEventError(
                                "stream entry \(id) declares \(error.declared ?? 0) bytes, over the client's frame limit of \(limit)"
                            ),
                            key: key))
                    _ = try await client.send(["XACK", RedisArgument(key), RedisArgument(group), RedisArgument(id)])
                }
            }
        }
    }

    /// Claims and delivers entries other consumers of the group left pending for longer than
    /// the configured idle time. This consumer's own entries waiting for a retry are touched
    /// well before that; any the pass takes all the same (a `claimMinimumIdle` shorter than a
    /// round trip) keep waiting, undelivered.
    func claimStaleEntries() async throws(RedisError) {
        let idleMilliseconds = configuration.claimMinimumIdle.wholeMilliseconds
        for key in keys {
            var cursor = "0-0"
            repeat {
                let reply = try await client.send([
                    "XAUTOCLAIM", RedisArgument(key), RedisArgument(group), RedisArgument(consumer),
                    RedisArgument(idleMilliseconds), RedisArgument(cursor), "COUNT",
                    RedisArgument(configuration.readBatchSize),
                ])
                guard let parts = reply.array, parts.count >= 2, let next = parts[0].string,
                    let claimed = parts[1].array
                else { throw RedisError.unexpectedReply(expected: "an XAUTOCLAIM reply", got: "\(reply)") }
                let entries = try await withoutWaiting(
                    try claimed.map { item throws(RedisError) in try Self.entry(item, key: key) })
                counters.claimed.increment(by: entries.count)
                try await handle(try await withDeliveryCounts(entries))
                cursor = next
            } while cursor != "0-0"
        }
    }

    /// Acknowledges `acknowledgements` and waits up to the block time for new entries, in one
    /// pipeline.
    func readNew(
        acknowledging acknowledgements: [String: [String]], block: Duration
    ) async throws(RedisError) -> [Entry] {
        let commands = acknowledgeCommands(acknowledgements) + [readCommand(ids: keys.map { _ in ">" }, block: block)]
        // The read's reply is walked where the client received it: copying it out first cost a
        // fresh buffer as large as the reply on every read.
        let (acknowledged, read) = try await client.pipeline(
            commands, timeout: block + configuration.redis.replyTimeout,
            parsingLastReply: { Self.entries(fromVerbatimRead: $0) })
        for reply in acknowledged {
            if case .error(let text) = reply { throw RedisError.server(text) }
        }
        noteAcknowledged(acknowledgements)
        return try read.get()
    }

    private func readCommand(ids: [String], block: Duration?) -> [RedisArgument] {
        var command: [RedisArgument] = [
            "XREADGROUP", "GROUP", RedisArgument(group), RedisArgument(consumer), "COUNT",
            RedisArgument(configuration.readBatchSize),
        ]
        if let block {
            command += ["BLOCK", RedisArgument(block.wholeMilliseconds)]
        }
        command.append("STREAMS")
        command += keys.map { RedisArgument($0) }
        command += ids.map { RedisArgument($0) }
        return command
    }

    /// Delivers each entry, then acknowledges them all (one XACK per stream, pipelined).
    func handle(_ entries: [Entry]) async throws(RedisError) {
        try await acknowledge(await deliver(entries))
    }

    /// Acknowledges `acknowledgements` (one XACK per stream, pipelined).
    private func acknowledge(_ acknowledgements: [String: [String]]) async throws(RedisError) {
        guard !acknowledgements.isEmpty else { return }
        for reply in try await client.pipeline(acknowledgeCommands(acknowledgements)) {
            if case .error(let text) = reply { throw RedisError.server(text) }
        }
        noteAcknowledged(acknowledgements)
    }

    /// Delivers the entries locally, in order, and returns once every listener has finished
    /// with all of them, with the ids to acknowledge, per stream: all of them, bad entries
    /// included, so none blocks the stream.
    private func deliver(_ entries: [Entry]) async -> [String: [String]] {
        counters.pendingEntries.add(entries.count, ordering: .relaxed)
        if entries.contains(where: { tracksFailures(on: $0.key) }) { return await deliverTracked(entries) }
        var acknowledgements: [String: [String]] = [:]
        // A read returns each stream's entries together: collect a run of ids per stream and
        // file it once, rather than hashing the stream's key for every entry.
        var run: (key: String, ids: [String])?
        let batch = DispatchBatch()
        var dispatched = 0
        for entry in entries {
            if let message = entry.message {
                dispatched += inbound.receive(
                    message, key: entry.key, streamEntryID: entry.id, deliveryCount: entry.deliveryCount, into: batch)
            } else if !entry.deleted {
                counters.invalidMessages.increment()
                report(
                    .invalidMessage(CloudEventError("stream entry \(entry.id) has no \"event\" field"), key: entry.key))
            }
            if run?.key == entry.key {
                run!.ids.append(entry.id)
            } else {
                if let run { acknowledgements[run.key, default: []] += run.ids }
                run = (entry.key, [entry.id])
            }
        }
        if let run { acknowledgements[run.key, default: []] += run.ids }
        _ = await batch.wait()
        counters.delivered.increment(by: dispatched)
        return acknowledgements
    }

    /// The acknowledged entries are no longer pending here.
    private func noteAcknowledged(_ acknowledgements: [String: [String]]) {
        counters.pendingEntries.add(-acknowledgements.values.reduce(0) { $0 + $1.count }, ordering: .relaxed)
    }

    private func acknowledgeCommands(_ acknowledgements: [String: [String]]) -> [[RedisArgument]] {
        acknowledgements.map { key, ids in
            ["XACK", RedisArgument(key), RedisArgument(group)] + ids.map { RedisArgument($0) }
        }
    }
}

extension Optional {
    /// The value, leaving nil behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}

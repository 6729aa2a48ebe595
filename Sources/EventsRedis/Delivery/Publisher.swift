import Events

/// Sends one publish queue's messages to Redis, in batches written as one pipeline.
///
/// No task sits between a local dispatch and the socket: the dispatching thread queues the
/// message and, when no batch is in flight, hands a batch straight to the client, whose I/O
/// thread writes it; when the replies are in, the completion (on that same thread) takes the
/// next batch. That is one thread handoff per batch, as for a raw client call; a publish loop
/// running as a task cost one more, which the benchmark showed in the latency.
///
/// Pub/Sub messages are sent once: a batch that fails on the connection is reported as lost.
/// Up to four Pub/Sub batches may be in flight at once (the client completes them in order, so
/// each completion settles the oldest messages of the queue); waiting for each reply before
/// sending the next would add a round trip to an event dispatched while one is out. Stream
/// batches go one at a time, so that a refused `XADD` is retried ahead of newer events, and so
/// do Pub/Sub batches on a cluster, whose router completes calls in no set order.
///
/// With `maxEventsPerMessage` above 1, consecutive messages for the same channel or stream go
/// out as one CloudEvents batch (see ``CloudEventBatch``): one command carries them, and its
/// reply settles them all. Only messages already queued are packed: nothing waits for company.
///
/// Stream messages are retried until Redis acknowledges each `XADD`; only the refused ones are
/// retried (retrying a whole batch would add the others twice), after a backoff. A retry after a
/// broken connection may still add an entry twice (the first attempt may have reached Redis
/// before the connection broke), which receivers suppress by the event's id.
final class Publisher: Sendable {
    static let batchLimit = 512
    /// The largest Redis message a batch of events grows to (a single event may be larger),
    /// far below the 64 MiB that a receiving client accepts by default. Lower when this
    /// bridge's own client accepts less (its receivers likely share its configuration).
    static let packedMessageByteLimit = 1 << 20

    private struct State {
        /// Batches sent and not completed, and how many messages they hold.
        var batchesInFlight = 0
        var messagesInFlight = 0
        var waitingToRetry = false
        var stopped = false
        var backoff: Backoff
        var touchedStreams = Set<String>()
        var lastTrim = ContinuousClock.now
        var trimming = false
    }

    let queue: PublishQueue
    let client: RedisClient
    let mode: RedisBridge.Mode
    /// Most events in one Redis message; 1 sends each event as a message of its own.
    let maxEventsPerMessage: Int
    let counters: BridgeCounters
    let report: @Sendable (RedisBridgeError) -> Void
    /// The stream length limit and how often to trim; nil for Pub/Sub or when not trimming.
    let trimming: (maxLength: Int, interval: Duration)?
    /// With replicated publishing, how many replicas must have each batch (`WAIT`) and for how
    /// long to wait for them; nil when a batch is done once the master has it.
    let replication: RedisBridge.ReplicatedPublishing?
    /// Told which messages are done, so that it does not publish them again after a restart.
    let outbox: DurableOutbox?
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive, so the run-time exclusivity
    // checks can never fail. They are off because `kick` follows every enqueue: each published
    // event would pay them, a measurable share of what a kick costs.
    @exclusivity(unchecked) nonisolated(unsafe) private var state: State

    init(
        queue: PublishQueue, client: RedisClient, mode: RedisBridge.Mode, maxEventsPerMessage: Int = 1,
        counters: BridgeCounters, report: @escaping @Sendable (RedisBridgeError) -> Void,
        trimming: (maxLength: Int, interval: Duration)?, replication: RedisBridge.ReplicatedPublishing? = nil,
        outbox: DurableOutbox? = nil
    ) {
        self.outbox = outbox
        self.replication = mode == .stream ? replication : nil
        self.queue = queue
        self.client = client
        self.mode = mode
        self.maxEventsPerMessage = max(maxEventsPerMessage, 1)
        self.counters = counters
        self.report = report
        self.trimming = trimming
        state = State(backoff: Backoff(client.configuration.reconnect))
    }

    /// Sends the next batch unless the batches in flight are at their limit or a retry is
    /// pending. Called after every enqueue and every completion, so that a queued message is
    /// always picked up by one of them: an enqueue that finds no room leaves it to the next
    /// completion.
    func kick() {
        let batch: [OutboundMessage]? = lock.withLock {
            guard state.batchesInFlight < maximumBatchesInFlight, !state.waitingToRetry, !state.stopped else {
                return nil
            }
            let batch = queue.peekBatch(skipping: state.messagesInFlight, limit: Self.batchLimit)
            guard !batch.isEmpty else { return nil }
            state.batchesInFlight += 1
            state.messagesInFlight += batch.count
            return batch
        }
        guard let batch else { return }
        let commands = Self.commands(
            for: batch, maxEventsPerMessage: maxEventsPerMessage,
            byteLimit: min(Self.packedMessageByteLimit, client.configuration.limits.maxBulkBytes))
        let replication = replication
        client.pipeline(
            .written(count: commands.count + (replication == nil ? 0 : 1)) { bytes in
                self.encode(batch, commands, into: &bytes)
                // In the same write, so on the same connection: WAIT counts the replicas that
                // have every write this connection made.
                if let replication { replication.appendWait(to: &bytes) }
            },
            verdicts: { self.complete(batch, commands, $0) })
    }

    /// Which messages of `batch` each command carries: one each, or with `maxEventsPerMessage`
    /// above 1, runs of consecutive messages for the same key, up to that many and (unless
    /// alone) up to `byteLimit` bytes together.
    static func commands(
        for batch: [OutboundMessage], maxEventsPerMessage: Int, byteLimit: Int = packedMessageByteLimit
    ) -> [Range<Int>] {
        guard maxEventsPerMessage > 1 else { return batch.indices.map { $0..<($0 + 1) } }
        var commands: [Range<Int>] = []
        var start = 0
        while start < batch.count {
            var end = start + 1
            var bytes = batch[start].payload.count + 2
            while end < batch.count, end - start < maxEventsPerMessage, batch[end].key == batch[start].key,
                bytes + batch[end].payload.count + 1 <= byteLimit
            {
                bytes += batch[end].payload.count + 1
                end += 1
            }
            commands.append(start..<end)
            start = end
        }
        return commands
    }

    /// Appends the batch's commands (`PUBLISH key payload` or `XADD key * event payload`) in
    /// RESP to `bytes` (the connection's write buffer): building each as an array of arguments
    /// cost an allocation per event, kept until the replies came back. A command carrying
    /// several messages sends them as one CloudEvents batch; one carrying a single message
    /// sends it as it is.
    private func encode(_ batch: [OutboundMessage], _ commands: [Range<Int>], into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + batch.reduce(0) { $0 + $1.payload.count + $1.key.utf8.count + 64 })
        for command in commands {
            switch mode {
            case .pubSub:
                RESPEncoder.appendCommandHeader(argumentCount: 3, to: &bytes)
                // On a cluster, sharded Pub/Sub: the message goes to the channel's shard only.
                RESPEncoder.appendArgument(client.configuration.cluster == nil ? "PUBLISH" : "SPUBLISH", to: &bytes)
            case .stream:
                RESPEncoder.appendCommandHeader(argumentCount: 5, to: &bytes)
                RESPEncoder.appendArgument("XADD", to: &bytes)
            }
            var key = batch[command.lowerBound].key
            key.withUTF8 { RESPEncoder.appendArgument(UnsafeRawBufferPointer($0), to: &bytes) }
            if mode == .stream {
                RESPEncoder.appendArgument("*", to: &bytes)
                RESPEncoder.appendArgument("event", to: &bytes)
            }
            if command.count == 1 {
                batch[command.lowerBound].payload.withUnsafeBytes { RESPEncoder.appendArgument($0, to: &bytes) }
            } else {
                let messages = batch[command]
                let length = CloudEventBatch.length(ofEventsOfLengths: messages.lazy.map(\.payload.count))
                RESPEncoder.appendArgument(length: length, to: &bytes) { output in
                    CloudEventBatch.append(messages.lazy.map(\.payload), to: &output)
                }
            }
        }
    }

    /// No batch is sent after this; one in flight completes without a successor.
    func stop() {
        lock.withLock { state.stopped = true }
    }

    /// Several Pub/Sub batches only where the client completes them in the order they were
    /// sent, as one connection does: on a cluster, batches go through the router, whose
    /// completions come in no set order, so they go one at a time there too (and so in order).
    private var maximumBatchesInFlight: Int { mode == .pubSub && client.configuration.cluster == nil ? 4 : 1 }

    /// Ends the oldest batch in flight: its messages leave the queue (but the `kept` ones) in
    /// the same critical section that stops counting them as in flight. Apart, a `kick` in
    /// between would skip the wrong number of messages, sending some twice and later removing
    /// others that were never sent.
    ///
    /// With `retryLater`, no batch goes out until the backoff has passed (see `failed()`).
    private func settle(
        _ batch: [OutboundMessage], removing count: Int, keeping kept: [Int] = [], retryLater: Bool = false
    ) {
        let wakeups = lock.withLock {
            state.batchesInFlight -= 1
            state.messagesInFlight -= batch.count
            if retryLater { state.waitingToRetry = true }
            return queue.removeFirstDeferringWakeups(count, keeping: kept)
        }
        // The outbox hears first: a flush woken here returns true, and by then the file must
        // no longer hold what Redis acknowledged (a bridge started next would publish it again).
        if let outbox, count > kept.count {
            outbox.confirm(Self.outboxSequences(of: batch.prefix(count), keeping: kept))
        }
        for continuation in wakeups { continuation.resume() }
    }

    /// The outbox entries of the messages a settle removed: the first ones of the batch, but the
    /// `kept` offsets (ascending).
    private static func outboxSequences(of removed: ArraySlice<OutboundMessage>, keeping kept: [Int]) -> [UInt64] {
        var sequences: [UInt64] = []
        sequences.reserveCapacity(removed.count)
        var nextKept = kept.startIndex
        for (offset, message) in removed.enumerated() {
            if nextKept < kept.endIndex, kept[nextKept] == offset {
                nextKept += 1
                continue
            }
            if message.outboxSequence != 0 { sequences.append(message.outboxSequence) }
        }
        return sequences
    }

    /// Settles `batch` by the replies to its `commands` (each reply settles the messages its
    /// command carried; a missing reply counts as a failure of its command).
    private func complete(
        _ batch: [OutboundMessage], _ commands: [Range<Int>], _ result: Result<[RESPVerdict], RedisError>
    ) {
        switch (mode, result) {
        case (_, .failure(let error)) where error.code == .clientClosed:
            settle(batch, removing: 0)
            return
        case (.pubSub, .success(let replies)):
            for (index, command) in commands.enumerated() {
                let failure: RedisError? =
                    switch index < replies.count ? replies[index] : nil {
                    case .refused(let text): .server(text)
                    case nil: .unexpectedReply(expected: "one reply per PUBLISH", got: "\(replies.count)")
                    case .accepted, .counted: nil
                    }
                if let failure {
                    for message in batch[command] {
                        counters.pubSubLost.increment()
                        report(.pubSubEventLost(type: message.type, id: message.id, cause: failure))
                    }
                } else {
                    counters.published.increment(by: command.count)
                }
            }
            settle(batch, removing: batch.count)
            succeeded()
        case (.pubSub, .failure(let error)):
            counters.redisErrors.increment()
            for message in batch {
                counters.pubSubLost.increment()
                report(.pubSubEventLost(type: message.type, id: message.id, cause: error))
            }
            settle(batch, removing: batch.count, retryLater: true)
            failed()
        case (.stream, .success(var replies)):
            if let replication {
                let confirmed: Int? =
                    if case .counted(let count)? = replies.last, replies.count == commands.count + 1 { count } else {
                        nil
                    }
                replies.removeLast(min(1, replies.count))
                if let confirmed, confirmed < replication.replicas, !replies.contains(where: { $0 != .accepted }) {
                    // On the master, not on enough replicas: a failover could lose it. Sent
                    // again after a backoff; receivers suppress the copies by the event's id.
                    settle(batch, removing: 0, retryLater: true)
                    counters.redisErrors.increment()
                    report(
                        .redis(
                            .server(
                                "WAIT: \(confirmed) of the \(replication.replicas) replicas required confirmed the "
                                    + "last \(batch.count) stream events; publishing them again")))
                    failed()
                    return
                }
            }
            let refusedCommands = commands.indices.filter { index in
                guard index < replies.count else { return true }
                return replies[index] != .accepted
            }
            let refused = refusedCommands.flatMap { Array(commands[$0]) }
            counters.published.increment(by: batch.count - refused.count)
            settle(batch, removing: batch.count, keeping: refused, retryLater: !refused.isEmpty)
            if let first = refusedCommands.first {
                var cause = RedisError.unexpectedReply(expected: "one reply per XADD", got: "\(replies.count)")
                if first < replies.count, case .refused(let text) = replies[first] { cause = .server(text) }
                counters.redisErrors.increment()
                report(.redis(cause))
                failed()
            } else {
                noteAppended(batch)
                succeeded()
            }
        case (.stream, .failure(let error)):
            settle(batch, removing: 0, retryLater: true)
            counters.redisErrors.increment()
            report(.redis(error))
            failed()
        }
    }

    private func succeeded() {
        lock.withLock { state.backoff.reset() }
        kick()
    }

    /// Waits out the backoff on a timer, not on the client's thread, then tries again (the
    /// batch was settled with `retryLater`, so nothing goes out meanwhile).
    private func failed() {
        let delay = lock.withLock { state.backoff.nextDelay() }
        runAfter(delay) {
            self.lock.withLock { self.state.waitingToRetry = false }
            self.kick()
        }
    }

    /// Starts a trim of the streams written since the last one once the interval has passed;
    /// one trim at a time, on a task of its own so that publishing goes on meanwhile.
    private func noteAppended(_ batch: [OutboundMessage]) {
        guard let trimming else { return }
        let keys: Set<String>? = lock.withLock {
            // One insert per run of messages for the same stream: hashing each message's key
            // cost a look-up per event.
            var previous: String?
            for message in batch where message.key != previous {
                state.touchedStreams.insert(message.key)
                previous = message.key
            }
            guard !state.trimming, ContinuousClock.now - state.lastTrim >= trimming.interval else { return nil }
            state.trimming = true
            state.lastTrim = .now
            defer { state.touchedStreams.removeAll() }
            return state.touchedStreams
        }
        guard let keys else { return }
        let trimmer = StreamTrimmer(client: client, maxLength: trimming.maxLength, report: report)
        Task {
            _ = await trimmer.trim(keys)
            self.lock.withLock { self.state.trimming = false }
        }
    }
}

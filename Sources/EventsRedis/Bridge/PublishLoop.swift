import Events

/// Drains one publish queue into Redis, in batches sent as one pipeline.
///
/// Pub/Sub messages are sent once: a batch that fails on the connection is reported as lost.
/// Stream messages are retried until Redis acknowledges each `XADD`: a refused one is retried
/// alone, ahead of newer messages. A retry after a broken connection may add an entry twice
/// (the first attempt may have reached Redis before the connection broke), which receivers
/// suppress by the event's id.
struct PublishLoop: Sendable {
    let queue: PublishQueue
    let client: RedisClient
    let mode: RedisBridge.Mode
    let counters: BridgeCounters
    let report: @Sendable (RedisBridgeError) -> Void
    let trimmer: StreamTrimmer?

    static let batchLimit = 512

    func run() async {
        var backoff = Backoff()
        while let batch = await queue.nextBatch(limit: Self.batchLimit) {
            let commands: [[RedisArgument]] = batch.map { message in
                switch mode {
                case .pubSub: ["PUBLISH", RedisArgument(message.key), RedisArgument(message.payload)]
                case .stream: ["XADD", RedisArgument(message.key), "*", "event", RedisArgument(message.payload)]
                }
            }
            do {
                let replies = try await client.pipeline(commands)
                switch mode {
                case .pubSub:
                    for (message, reply) in zip(batch, replies) {
                        if case .error(let text) = reply {
                            counters.pubSubLost.increment()
                            report(.pubSubEventLost(type: message.type, id: message.id, cause: .server(text)))
                        } else {
                            counters.published.increment()
                        }
                    }
                    queue.removeFirst(batch.count)
                case .stream:
                    // Pipelined XADDs succeed or fail one by one: only the refused ones stay
                    // queued to be retried (retrying the batch would add the others again).
                    let refused = batch.indices.filter { index in
                        guard index < replies.count else { return true }
                        if case .error = replies[index] { return true } else { return false }
                    }
                    counters.published.increment(by: batch.count - refused.count)
                    queue.removeFirst(batch.count, keeping: refused)
                    if let first = refused.first {
                        var cause = RedisError.unexpectedReply(expected: "one reply per XADD", got: "\(replies.count)")
                        if first < replies.count, case .error(let text) = replies[first] { cause = .server(text) }
                        counters.redisErrors.increment()
                        report(.redis(cause))
                        await backoff.wait()
                    } else {
                        backoff.reset()
                        await trimmer?.appended(to: batch.lazy.map(\.key))
                    }
                }
            } catch {
                if error == .clientClosed { return }
                counters.redisErrors.increment()
                switch mode {
                case .pubSub:
                    for message in batch {
                        counters.pubSubLost.increment()
                        report(.pubSubEventLost(type: message.type, id: message.id, cause: error))
                    }
                    queue.removeFirst(batch.count)
                case .stream:
                    report(.redis(error))
                }
                await backoff.wait()
            }
        }
    }
}

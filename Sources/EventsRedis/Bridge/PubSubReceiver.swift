import Events

/// Receives the carried Pub/Sub channels and hands each message to the bridge's inbound half.
struct PubSubReceiver {
    let subscriber: RedisSubscriber
    let task: Task<Void, Never>

    /// How many messages may wait for local delivery before the oldest are dropped (and counted
    /// in the statistics): Pub/Sub has no way to slow the publisher down.
    static let bufferLimit = 100_000

    /// Subscribes and returns once the server has confirmed every channel, so that messages
    /// published from then on are received.
    static func start(
        configuration: RedisConfiguration, channels: [String], inbound: Inbound, counters: BridgeCounters,
        report: @escaping @Sendable (RedisBridgeError) -> Void
    ) async throws(RedisError) -> PubSubReceiver {
        let subscriber = RedisSubscriber(configuration)
        let events = subscriber.events(channels: channels, bufferLimit: bufferLimit)
        let (confirmed, confirm) = AsyncStream.makeStream(of: Result<Void, RedisError>.self)
        let task = Task.detached {
            var pending = Set(channels)
            do {
                for try await event in events {
                    switch event {
                    case .message(let message):
                        await inbound.receive(
                            message.payload, key: message.channel, streamEntryID: nil, waitForListeners: false)
                    case .subscribed(let name, _):
                        pending.remove(name)
                        if pending.isEmpty { confirm.yield(.success(())) }
                    case .reconnected(let cause):
                        // Messages published during the gap are lost: that is Pub/Sub. Say so.
                        counters.redisErrors.increment()
                        report(.redis(cause))
                    }
                }
                confirm.yield(.failure(.clientClosed))
            } catch {
                let failure = error as? RedisError ?? .connectionClosed
                confirm.yield(.failure(failure))
                if failure != .clientClosed {
                    counters.redisErrors.increment()
                    report(.redis(failure))
                }
            }
            confirm.finish()
        }
        for await outcome in confirmed {
            if case .failure(let error) = outcome {
                subscriber.close()
                task.cancel()
                throw error
            }
            break
        }
        return PubSubReceiver(subscriber: subscriber, task: task)
    }
}

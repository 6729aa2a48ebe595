import Foundation
import Synchronization

/// One Pub/Sub connection and the thread that reads it, feeding one stream.
///
/// The thread blocks in short reads (250 ms) and checks `stop()` between them; `stop()` also
/// interrupts the connection (shuts its socket down), which wakes the read at once. The
/// interruption is published under the lock while the thread owns the connection and
/// unpublished before the connection is closed, so `stop()` never touches a reused descriptor.
final class RedisSubscription: Sendable {
    let configuration: RedisConfiguration
    let channels: [String]
    let patterns: [String]
    let healthCheckInterval: Duration
    let counters: LockedBox<RedisSubscriber.Counters>
    /// How to interrupt the connection while the thread owns it.
    private let interruption = LockedBox<RedisTransportInterruption?>(nil)
    /// Set by `stop()`, always under `interruption`'s lock (so that one is published only
    /// before a stop, which then interrupts it), and read without it: the reader checks it
    /// before every frame.
    private let stopRequested = Atomic<Bool>(false)
    private let sleeper = DispatchSemaphore(value: 0)

    private static let readSlice: Duration = .milliseconds(250)

    init(
        configuration: RedisConfiguration, channels: [String], patterns: [String], healthCheckInterval: Duration,
        counters: LockedBox<RedisSubscriber.Counters>
    ) {
        self.configuration = configuration
        self.channels = channels
        self.patterns = patterns
        self.healthCheckInterval = healthCheckInterval
        self.counters = counters
    }

    var isStopped: Bool { stopRequested.load(ordering: .acquiring) }

    /// Ends the subscription: the thread closes its connection and finishes the stream without
    /// an error. Idempotent, callable from any thread.
    func stop() {
        interruption.withLock { interruption in
            stopRequested.store(true, ordering: .releasing)
            interruption?.interrupt()
        }
        sleeper.signal()
    }

    /// Starts the reader thread. `deliver` receives every event in order; `finish` is called
    /// once at the end, with the error that ended the subscription or `nil` after `stop()`.
    func start(
        deliver: @escaping @Sendable (RedisPubSubEvent) -> Void, finish: @escaping @Sendable (RedisError?) -> Void
    ) {
        Thread.detachNewThread { [self] in
            let error = run(deliver: deliver)
            finish(isStopped ? nil : error)
        }
    }

    /// The reader loop: connect, subscribe, read; on a connection failure reconnect with the
    /// policy's backoff. Returns the error that ended it (`nil` or `.clientClosed` when stopped).
    private func run(deliver: (RedisPubSubEvent) -> Void) -> RedisError? {
        var cause: RedisError?
        var breaksInARow = 0
        while !isStopped {
            if breaksInARow > 1 {
                // A connection that keeps breaking right after it opens must not spin.
                let delay = configuration.reconnect.delay(afterFailures: breaksInARow - 1)
                _ = sleeper.wait(timeout: .now() + .nanoseconds(Int(delay.seconds * 1e9)))
                if isStopped { return nil }
            }
            let connection: RedisConnection
            do throws(RedisError) {
                connection = try RedisConnection.openRetrying(
                    configuration, shardKey: configuration.cluster == nil ? nil : channels.first, sleeper: sleeper,
                    isCancelled: { isStopped }, shouldRetry: { _, _ in true },
                    publishing: { opening in
                        // Published during the handshake too, so that stopping can end it.
                        interruption.withLock { interruption in
                            guard let opening else {
                                interruption = nil
                                return true
                            }
                            guard !isStopped else { return false }
                            interruption = opening
                            return true
                        }
                    })
            } catch {
                return error
            }
            let published: Bool = interruption.withLock { interruption in
                guard !isStopped else { return false }
                interruption = connection.interruption
                return true
            }
            guard published else {
                interruption.withLock { $0 = nil }
                connection.close()
                return nil
            }
            // At a switch announced by the sentinels the connection goes to the old master:
            // break it, and subscribe again at the new one.
            SentinelWatch.register(ObjectIdentifier(self), configuration) { [interruption] in
                interruption.withLock { $0?.interrupt() }
            }
            defer {
                SentinelWatch.unregister(ObjectIdentifier(self), configuration)
                interruption.withLock { $0 = nil }
                connection.close()
            }
            do throws(RedisError) {
                var commands: [[RedisArgument]] = []
                // On a cluster, sharded Pub/Sub: the channels (of one slot) at their shard's master.
                let subscribe: RedisArgument = configuration.cluster == nil ? "SUBSCRIBE" : "SSUBSCRIBE"
                if !channels.isEmpty { commands.append([subscribe] + channels.map { RedisArgument($0) }) }
                if !patterns.isEmpty { commands.append(["PSUBSCRIBE"] + patterns.map { RedisArgument($0) }) }
                try connection.send(commands)
                if let cause {
                    counters.withLock { $0.reconnectCount += 1 }
                    deliver(.reconnected(cause: cause))
                }
                try read(connection, deliver: deliver, confirmed: { breaksInARow = 0 })
            } catch {
                if isStopped { return nil }
                // A message over the frame limits cannot be read, but the next ones can: drop the
                // connection (and with it that message, as Pub/Sub drops messages while
                // disconnected) and subscribe again, instead of ending the subscription.
                var oversized = false
                if error.code == .frameTooLarge { oversized = true }
                guard error.isRetryable || oversized else { return error }
                cause = error
                breaksInARow += 1
            }
        }
        return nil
    }

    /// Reads frames until the connection fails or the subscription is stopped. Pings the
    /// server after `healthCheckInterval` of silence and gives up on the connection when the
    /// answer takes longer than the reply timeout.
    private func read(
        _ connection: RedisConnection, deliver: (RedisPubSubEvent) -> Void, confirmed: () -> Void
    ) throws(RedisError) {
        var lastFrame = ContinuousClock.now
        // Whether frames came since `lastFrame` was last set. Reading the clock for every frame
        // was a visible share of handing a small message over; instead, a read that finds
        // nothing for `readSlice` dates the last frame to its own start, at most that long off.
        var framesSinceLastFrame = false
        var pingSent: ContinuousClock.Instant?
        // The channel name of the last message, reused while messages keep arriving on the same
        // channel (the usual case) instead of making a String per message.
        // (The closure is written at the call, not kept in a constant: a constant closure could
        // escape, so `lastChannel` went into a box checked for exclusive access on every use.)
        var lastChannel: (bytes: [UInt8], name: String) = ([], "")
        while !isStopped {
            let frame = try connection.readFrameIfAvailable(within: Self.readSlice) { channel, payload in
                if !lastChannel.bytes.withUnsafeBufferPointer({ channel.hasSameBytes(as: $0) }) {
                    lastChannel = (Array(channel), String(decoding: channel, as: UTF8.self))
                }
                return RedisPubSubMessage(channel: lastChannel.name, payload: Array(payload))
            }
            guard let frame else {
                let now = ContinuousClock.now
                if framesSinceLastFrame {
                    lastFrame = now - Self.readSlice
                    framesSinceLastFrame = false
                }
                if let pingSent {
                    if now - pingSent > configuration.replyTimeout { throw .timedOut("reply") }
                } else if now - lastFrame > healthCheckInterval {
                    try connection.send([["PING"]])
                    pingSent = now
                }
                continue
            }
            framesSinceLastFrame = true
            pingSent = nil
            if case .message(let message) = frame {
                deliver(.message(message))
            } else if case .value(let frame) = frame, let event = try Self.event(from: frame) {
                if case .subscribed = event { confirmed() }
                deliver(event)
            }
        }
    }

    /// Decodes one frame of a subscribed connection; `nil` for frames that carry nothing for
    /// the caller (PING answers, unsubscribe confirmations).
    static func event(from frame: RESPValue) throws(RedisError) -> RedisPubSubEvent? {
        if case .error(let message) = frame { throw .server(message) }
        guard case .array(let parts) = frame, let kind = parts.first?.bytes else {
            throw .protocolViolation("unexpected Pub/Sub frame \(frame)")
        }
        switch (String(decoding: kind, as: UTF8.self), parts.count) {
        case ("message", 3), ("smessage", 3):
            if let channel = parts[1].bytes, let payload = parts[2].bytes {
                return .message(RedisPubSubMessage(channel: String(decoding: channel, as: UTF8.self), payload: payload))
            }
        case ("pmessage", 4):
            if let pattern = parts[1].bytes, let channel = parts[2].bytes, let payload = parts[3].bytes {
                return .message(
                    RedisPubSubMessage(
                        channel: String(decoding: channel, as: UTF8.self),
                        pattern: String(decoding: pattern, as: UTF8.self), payload: payload))
            }
        case ("subscribe", 3), ("psubscribe", 3), ("ssubscribe", 3):
            if let name = parts[1].bytes, case .integer(let count) = parts[2] {
                return .subscribed(name: String(decoding: name, as: UTF8.self), count: count)
            }
        case ("unsubscribe", 3), ("punsubscribe", 3), ("pong", 2):
            return nil
        case ("sunsubscribe", 3):
            // Never asked for: the server ends a sharded subscription when its slot moves to
            // another master. Connecting again subscribes at the slot's new owner.
            throw .connectionClosed
        default:
            break
        }
        throw .protocolViolation("unexpected Pub/Sub frame \(frame)")
    }
}

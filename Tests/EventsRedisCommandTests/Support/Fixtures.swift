import Events
import EventsRedis
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

struct Sequenced: RemoteEvent, Equatable {
    static let wireName = "com.example.test.sequenced"
    let n: Int
}

struct Pinged: RemoteEvent, Equatable {
    static let wireName = "com.example.test.pinged"
    let n: Int
}

/// The trait of every suite here: they need `redis-server`, and skip with the reason without it.
let needsRedis = ConditionTrait.enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))

/// The URL options for `server`, first on every command line of the tests.
func urlArguments(_ server: RedisServer) -> [String] { ["--url", server.configuration.url] }

/// A listener error.
struct ListenerBroke: Error {}

/// A bridge configuration for tests: the default key prefix (so that the command's default is
/// tested too), short block and claim times, errors ignored (some tests make them on purpose).
func bridgeConfiguration(_ redis: RedisConfiguration, source: String) -> RedisBridge.Configuration {
    var configuration = RedisBridge.Configuration(redis: redis, source: source)
    configuration.readBlock = .milliseconds(100)
    configuration.claimInterval = .milliseconds(100)
    configuration.claimMinimumIdle = .seconds(30)
    configuration.errorHandler = { _ in }
    return configuration
}

/// A started bridge that only publishes `Sequenced` (on `partitions` streams, partitioned by
/// the event's number) from its own center.
struct Publisher {
    let center = EventCenter()
    let bridge: RedisBridge

    init(_ redis: RedisConfiguration, mode: RedisBridge.Mode = .stream, partitions: Int = 1) async throws {
        bridge = RedisBridge(center: center, configuration: bridgeConfiguration(redis, source: "publisher"))
        try bridge.carry(Sequenced.self, mode: mode, partitions: partitions, by: { "\($0.n)" }, direction: .outgoing)
        try await bridge.start()
    }

    func publish(_ numbers: some Sequence<Int>) {
        for n in numbers { center.dispatch(Sequenced(n: n)) }
    }

    /// Publishes, and waits until Redis has every event.
    func publishAndWait(_ numbers: some Collection<Int>) async {
        let before = bridge.statistics.published
        publish(numbers)
        _ = await eventually { bridge.statistics.published >= before + numbers.count }
    }
}

/// A started bridge that consumes `Sequenced` in group `group`, whose listener records what
/// arrives and fails, while `failing` says so, for the numbers in it. With one delivery
/// allowed, a failed event goes straight to the dead letters.
final class Consumer: Sendable {
    let center = EventCenter()
    let bridge: RedisBridge
    let received = Log<Int>()
    private let failing: Set<Int>
    private let stopFailing = Counter()
    private let subscription: Subscription

    init(
        _ redis: RedisConfiguration, group: String, partitions: Int = 1, failing: Set<Int> = [],
        mode: RedisBridge.Mode = .stream
    ) async throws {
        var configuration = bridgeConfiguration(redis, source: group)
        configuration.failurePolicy = .retry(maxDeliveries: 1)
        bridge = RedisBridge(center: center, configuration: configuration)
        center.errorHandler = { _ in }
        self.failing = failing
        subscription = center.listen(to: Sequenced.self) { [received, stopFailing, failing] event in
            if stopFailing.value == 0, failing.contains(event.n) {
                throw ListenerBroke()
            }
            received.append(event.n)
        }
        try bridge.carry(Sequenced.self, mode: mode, partitions: partitions, direction: .incoming)
        try await bridge.start()
    }

    /// From now on every event is handled.
    func heal() { stopFailing.increment() }

    func stop() async {
        subscription.cancel()
        await bridge.stop()
    }
}

/// A consumer in `group` that reads `Sequenced` on `reading` partitions and a publisher that
/// writes it on `publishing`, once `events` were published; where the layouts match, once the
/// consumer has handled and acknowledged them all.
func carry(
    on server: RedisServer, group: String, reading: Int, publishing: Int, events: Range<Int>
) async throws -> (Consumer, Publisher) {
    let consumer = try await Consumer(server.configuration, group: group, partitions: reading)
    let publisher = try await Publisher(server.configuration, partitions: publishing)
    await publisher.publishAndWait(events)
    if reading == publishing {
        #expect(await eventually { consumer.received.count == events.count })
        #expect(await acknowledged(server.configuration, sequencedStreams(partitions: reading), group: group))
    }
    return (consumer, publisher)
}

/// The stream keys of `Sequenced` on `partitions` streams under the default prefix.
func sequencedStreams(partitions: Int = 1) -> [String] {
    let type = Sequenced.wireName
    return partitions == 1 ? ["events:" + type] : (0..<partitions).map { "events:{\(type):\($0)}" }
}

/// Waits until `group` has acknowledged every entry it read on `streams` (a consumer
/// acknowledges a batch with its next read, after its listeners have finished).
func acknowledged(_ redis: RedisConfiguration, _ streams: [String], group: String) async -> Bool {
    let client = RedisClient(redis)
    defer { client.close() }
    return await eventually {
        var pending = 0
        for stream in streams {
            let reply = try? await client.send("XPENDING", RedisArgument(stream), RedisArgument(group))
            pending += reply?.array?.first?.int ?? 1
        }
        return pending == 0
    }
}

/// What a command must not change: every key with its type and, for streams, length, last id
/// and groups (with their pending counts and last delivered ids).
func snapshot(_ client: RedisClient) async throws -> [String: String] {
    var state: [String: String] = [:]
    var cursor = "0"
    repeat {
        let reply = try await client.send("SCAN", RedisArgument(cursor), "COUNT", "1000")
        cursor = reply.array?[0].string ?? "0"
        for key in reply.array?[1].array?.compactMap(\.string) ?? [] {
            let type = try await client.send("TYPE", RedisArgument(key)).string ?? "?"
            guard type == "stream" else {
                state[key] = type
                continue
            }
            let info = try await client.send("XINFO", "STREAM", RedisArgument(key))
            let groups = try await client.send("XINFO", "GROUPS", RedisArgument(key))
            state[key] = "\(info) \(groups)"
        }
    } while cursor != "0"
    return state
}

/// The lines of `text` that are JSON objects, parsed.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

import Events
import EventsRedis
import Foundation
import RedisServerSupport
import Synchronization

// The Redis bridge beside the raw client on the same server, in the same run. Both sides send
// the very same bytes: the raw client publishes a CloudEvent encoded once up front, the bridge
// encodes one per dispatch, so the difference is what the bridge adds (encoding, the publish
// queue, decoding, deduplication, local dispatch).
//
// - Latency: one event at a time, from the call that publishes (raw `PUBLISH` / `XADD`, or the
//   local `dispatch`) until the receiving side has it (the raw subscriber or stream reader, or
//   a listener on the receiving center). Median and p99.
// - Throughput: a burst of events, pipelined in batches of the bridge's size, timed until the
//   last one is received. Reported as ns per event. Two more rows split the bridge in halves
//   (a bridge sending to a raw reader, a raw publisher sending to a bridge), to show what each
//   half adds on its own.
//
// The server: a private redis-server started for the run (append-only file on, fsync every
// second, as a production Streams setup would be) when the binary is present, else $REDIS_URL.
// Its automatic rewrites of the append-only file are off, and each measurement deletes its keys
// when it ends: a rewrite is a forked child that takes a core for a while, and with the data of
// every earlier measurement kept, rewrites fell into the Streams throughput bursts at random,
// into one row's burst or another's.

struct BenchPing: RemoteEvent {
    static let wireName = "bench.ping"
    let n: Int
    let body: String
}

struct BenchStreamPing: RemoteEvent {
    static let wireName = "bench.stream-ping"
    let n: Int
    let body: String
}

/// 128 bytes of event data: a small app event, so that the figures show the bridge's own cost per
/// event rather than the cost of moving large payloads.
private let benchBody = String(repeating: "x", count: 128 - #"{"n":0,"body":""}"#.count)

private let benchPrefix = "bench:"

/// The trace context of the traced throughput rows: one with a `tracestate`, as tracers that
/// keep vendor state send it.
private let benchTrace = try! TraceContext(
    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "rojo=00f067aa0ba902b7")

/// The batch size of the throughput rows where the bridge packs events into batches.
private let packedEvents = 64

/// Where the Redis scenarios run; nil (with the reason) when no server can be had.
@MainActor
final class BenchRedis {
    static var shared: Result<BenchRedis, BenchSkip>?
    let configuration: RedisConfiguration
    let server: RedisServer?
    var runCount = 0

    init(configuration: RedisConfiguration, server: RedisServer?) {
        self.configuration = configuration
        self.server = server
    }

    static func obtain() -> Result<BenchRedis, BenchSkip> {
        if let shared { return shared }
        let result: Result<BenchRedis, BenchSkip>
        if RedisServer.executable != nil {
            do {
                let server = try RedisServer(extraArguments: [
                    "--appendfsync", "everysec", "--auto-aof-rewrite-percentage", "0",
                ])
                result = .success(BenchRedis(configuration: server.configuration, server: server))
            } catch {
                result = .failure(BenchSkip(reason: "could not start redis-server: \(error)"))
            }
        } else if let url = ProcessInfo.processInfo.environment["REDIS_URL"],
            let configuration = try? RedisConfiguration(url: url)
        {
            result = .success(BenchRedis(configuration: configuration, server: nil))
        } else {
            result = .failure(BenchSkip(reason: "n/a: no redis-server on PATH and no REDIS_URL"))
        }
        shared = result
        return result
    }

    /// Stops the private server, if one was started: a child process outlives `exit`.
    static func shutDown() {
        if case .success(let redis) = shared { redis.server?.stop() }
        shared = nil
    }

    /// A fresh key or channel name per measurement, so runs never see each other's data.
    func uniqueName(_ base: String) -> String {
        runCount += 1
        return "\(benchPrefix)\(base):\(getpid()):\(runCount)"
    }
}

/// Closes `path`, then deletes every key this process made on the server, so that the data set
/// never holds more than the measurement running. (`SCAN`, not `KEYS`: with $REDIS_URL the
/// server may be one that others use.)
@MainActor
func finish(_ path: any RedisPath, on redis: BenchRedis) async {
    await path.close()
    let client = RedisClient(redis.configuration)
    defer { client.close() }
    var cursor = "0"
    repeat {
        guard
            let reply = try? await client.send(
                "SCAN", RedisArgument(cursor), "MATCH", RedisArgument("\(benchPrefix)*:\(getpid()):*"), "COUNT",
                "1000"),
            let parts = reply.array, parts.count == 2, let next = parts[0].string,
            let keys = parts[1].array?.compactMap(\.string)
        else { return }
        if !keys.isEmpty { _ = try? await client.send(["DEL"] + keys.map { RedisArgument($0) }) }
        cursor = next
    } while cursor != "0"
}

struct BenchSkip: Error {
    let reason: String
}

/// Counts the events a listener or reader receives and wakes the measuring task once a given
/// count is reached.
///
/// Why not an `AsyncStream`: the measuring functions run on the main actor, and an
/// `AsyncStream` iterated there costs two executor hops per element (its `next` runs off the
/// actor). On a small machine those hops cost more than the event itself and would swamp the
/// throughput rows, for the raw client and the bridge alike. A waiter resumed once per wait costs
/// one hop per wait.
final class Arrivals: Sendable {
    private struct State {
        var count = 0
        var waiter: (target: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    private let state = Mutex(State())

    /// How many events arrived so far.
    var count: Int { state.withLock { $0.count } }

    /// Records `events` arrivals.
    func arrive(_ events: Int = 1) {
        let ready: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.count += events
            guard let waiter = state.waiter, state.count >= waiter.target else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume()
    }

    /// Returns once `count` has reached `target`. One waiter at a time. Runs on the caller's
    /// actor, so the wait costs the one hop back to it and no hop away from it.
    nonisolated(nonsending) func wait(untilCount target: Int) async {
        await withCheckedContinuation { continuation in
            let reached: Bool = state.withLock { state in
                guard state.count < target else { return true }
                state.waiter = (target, continuation)
                return false
            }
            if reached { continuation.resume() }
        }
    }
}

// MARK: - The contenders

/// One side of a comparison: it publishes event `n` and exposes what arrives.
@MainActor
protocol RedisPath: AnyObject, Sendable {
    var arrivals: Arrivals { get }
    func publish(_ n: Int) async
    /// Publishes `range` as fast as the path allows.
    func publishBurst(_ range: Range<Int>) async
    func close() async
}

/// A raw-client path: event `n` is one command of pre-encoded bytes; a burst goes in pipelines
/// of 512, the bridge's batch size.
@MainActor
protocol RawPath: RedisPath {
    var client: RedisClient { get }
    func command(_ n: Int) -> [RedisArgument]
}

extension RawPath {
    func publish(_ n: Int) async {
        _ = try? await client.send(command(n))
    }

    func publishBurst(_ range: Range<Int>) async {
        for start in stride(from: range.lowerBound, to: range.upperBound, by: 512) {
            _ = try? await client.pipeline((start..<min(start + 512, range.upperBound)).map(command))
        }
    }
}

/// The raw client: pre-encoded CloudEvents, `PUBLISH` to a subscriber.
@MainActor
final class RawPubSub: RawPath {
    let arrivals = Arrivals()
    let client: RedisClient
    let subscriber: RedisSubscriber
    let channel: String
    let reader: Task<Void, Never>
    let payloads: Payloads

    /// Subscribes to `channel` (a fresh name by default).
    init(_ redis: BenchRedis, payloads: Payloads, channel: String? = nil) async throws {
        let channel = channel ?? redis.uniqueName("raw-pubsub")
        self.channel = channel
        client = RedisClient(redis.configuration)
        subscriber = RedisSubscriber(redis.configuration)
        self.payloads = payloads
        let events = subscriber.events(channels: [channel], bufferLimit: 1_000_000)
        let arrivals = arrivals
        let (subscribed, confirm) = AsyncStream.makeStream(of: Void.self)
        reader = Task.detached {
            do {
                for try await event in events {
                    switch event {
                    case .message(let message):
                        if payloads.arrived(message.payload) { arrivals.arrive() }
                    case .subscribed: confirm.yield()
                    case .reconnected: break
                    }
                }
            } catch {}
            confirm.finish()
        }
        for await _ in subscribed { break }
    }

    func command(_ n: Int) -> [RedisArgument] {
        ["PUBLISH", RedisArgument(channel), RedisArgument(payloads.payload(n))]
    }

    func close() async {
        subscriber.close()
        client.close()
        await reader.value
    }
}

/// The raw client on a stream: `XADD`, and a reader looping `XREADGROUP` + `XACK`.
@MainActor
final class RawStream: RawPath {
    let arrivals = Arrivals()
    let client: RedisClient
    let readClient: RedisClient
    let key: String
    let reader: Task<Void, Never>
    let payloads: Payloads

    /// Reads stream `key` (a fresh name by default) with a group of its own.
    init(_ redis: BenchRedis, payloads: Payloads, key: String? = nil) async throws {
        let key = key ?? redis.uniqueName("raw-stream")
        self.key = key
        client = RedisClient(redis.configuration)
        readClient = RedisClient(redis.configuration)
        self.payloads = payloads
        _ = try await client.send("XGROUP", "CREATE", RedisArgument(key), "g", "$", "MKSTREAM")
        let (readClient, arrivals, payloads) = (readClient, arrivals, payloads)
        reader = Task.detached {
            while !Task.isCancelled {
                guard
                    let reply = try? await readClient.send(
                        [
                            "XREADGROUP", "GROUP", "g", "c", "COUNT", "512", "BLOCK", "1000", "STREAMS",
                            RedisArgument(key), ">",
                        ], timeout: .seconds(5)),
                    let entries = reply.array?.first?.array?[1].array
                else { continue }
                var ids: [RedisArgument] = []
                var arrived = 0
                for entry in entries {
                    guard let parts = entry.array, let id = parts.first?.string else { continue }
                    ids.append(RedisArgument(id))
                    if let fields = parts.last?.array, fields.count == 2, let bytes = fields[1].bytes,
                        payloads.arrived(bytes)
                    {
                        arrived += 1
                    }
                }
                _ = try? await readClient.send(["XACK", RedisArgument(key), "g"] + ids)
                arrivals.arrive(arrived)
            }
        }
    }

    func command(_ n: Int) -> [RedisArgument] {
        ["XADD", RedisArgument(key), "*", "event", RedisArgument(payloads.payload(n))]
    }

    func close() async {
        reader.cancel()
        readClient.close()
        client.close()
        await reader.value
    }
}

/// Two centers joined by two bridges, one publishing and one receiving; a listener on the
/// receiving center reports arrivals.
@MainActor
final class BridgePath: RedisPath {
    let arrivals = Arrivals()
    let sending = EventCenter()
    let receiving = EventCenter()
    let sender: RedisBridge
    let receiver: RedisBridge
    let mode: RedisBridge.Mode
    /// How a trace context is current on every dispatch, if one is.
    enum Tracing {
        case none
        /// Made current once, around the whole burst: what the bridge itself costs (writing,
        /// reading and restoring it), as in an app whose request is traced as a whole.
        case aroundBurst(TraceContext)
        /// Made current around each dispatch: the bridge's cost and that of binding it.
        case perDispatch(TraceContext)
    }

    let tracing: Tracing
    var listener: Subscription?

    /// With `maxEventsPerMessage` above 1, the sender packs events queued together into
    /// CloudEvents batches; with `tracing`, each event is dispatched with a trace context current
    /// (so it goes on the wire, and is made current again for the receiving listener).
    init(
        _ redis: BenchRedis, mode: RedisBridge.Mode, maxEventsPerMessage: Int = 1, tracing: Tracing = .none,
        replication: RedisBridge.ReplicatedPublishing? = nil, outbox: RedisBridge.Outbox? = nil
    ) async throws {
        self.mode = mode
        self.tracing = tracing
        let prefix = redis.uniqueName("bridge") + ":"
        func configuration(_ source: String) -> RedisBridge.Configuration {
            var configuration = RedisBridge.Configuration(redis: redis.configuration, source: source)
            configuration.keyPrefix = prefix
            configuration.publishBufferCapacity = 1_000_000
            configuration.maxEventsPerMessage = maxEventsPerMessage
            configuration.replicatedPublishing = replication
            return configuration
        }
        var senderConfiguration = configuration("bench/sender")
        senderConfiguration.outbox = outbox
        sender = RedisBridge(center: sending, configuration: senderConfiguration)
        receiver = RedisBridge(center: receiving, configuration: configuration("bench/receiver"))
        // One way, as on the raw path (a publishing client, a reading one): the sender does not
        // subscribe to what it publishes, nor the receiver publish.
        for (bridge, direction) in [(receiver, RedisBridge.Direction.incoming), (sender, .outgoing)] {
            switch mode {
            case .pubSub: try bridge.carry(BenchPing.self, mode: .pubSub, direction: direction)
            case .stream: try bridge.carry(BenchStreamPing.self, mode: .stream, direction: direction)
            }
            try await bridge.start()
        }
        let arrivals = arrivals
        listener =
            switch mode {
            case .pubSub: receiving.listen(to: BenchPing.self) { _ in arrivals.arrive() }
            case .stream: receiving.listen(to: BenchStreamPing.self) { _ in arrivals.arrive() }
            }
    }

    func publish(_ n: Int) async {
        switch tracing {
        case .none: dispatch(n)
        case .aroundBurst(let trace), .perDispatch(let trace): TraceContext.withCurrent(trace) { dispatch(n) }
        }
    }

    private func dispatch(_ n: Int) {
        switch mode {
        case .pubSub: sending.dispatch(BenchPing(n: n, body: benchBody))
        case .stream: sending.dispatch(BenchStreamPing(n: n, body: benchBody))
        }
    }

    func publishBurst(_ range: Range<Int>) async {
        guard case .aroundBurst(let trace) = tracing else {
            for n in range { await publish(n) }
            return
        }
        TraceContext.withCurrent(trace) {
            for n in range { dispatch(n) }
        }
    }

    func close() async {
        listener?.cancel()
        await sender.stop()
        await receiver.stop()
    }
}

/// Half of the bridge against half of the raw path, to tell where the bridge's cost per event
/// lies: either a bridge publishes and the raw client reads, or the raw client publishes and a
/// bridge receives. Each half's figure beside the raw path's says what that half adds alone.
@MainActor
private final class HalfBridgePath: RedisPath {
    enum Half { case sending, receiving }

    let arrivals: Arrivals
    let center = EventCenter()
    let bridge: RedisBridge
    let mode: RedisBridge.Mode
    let half: Half
    /// The raw reader of the sending half.
    let reader: (any RedisPath)?
    /// The raw publisher of the receiving half, and its CloudEvents, each with an id of its own
    /// (the bridge suppresses a repeated id), used in turn across bursts.
    let client: RedisClient?
    let key: String
    let payloads: [[UInt8]]
    var sent = 0
    var listener: Subscription?

    /// `events`: for the receiving half, CloudEvents with ids of their own, as many as will be
    /// sent to this path.
    init(_ redis: BenchRedis, mode: RedisBridge.Mode, half: Half, events: [[UInt8]] = []) async throws {
        self.mode = mode
        self.half = half
        var configuration = RedisBridge.Configuration(
            redis: redis.configuration, source: half == .sending ? "bench/sender" : "bench/receiver")
        configuration.keyPrefix = redis.uniqueName("half") + ":"
        configuration.publishBufferCapacity = 1_000_000
        let wireName = mode == .pubSub ? BenchPing.wireName : BenchStreamPing.wireName
        key = configuration.keyPrefix + wireName
        bridge = RedisBridge(center: center, configuration: configuration)
        let direction: RedisBridge.Direction = half == .sending ? .outgoing : .incoming
        switch mode {
        case .pubSub: try bridge.carry(BenchPing.self, mode: .pubSub, direction: direction)
        case .stream: try bridge.carry(BenchStreamPing.self, mode: .stream, direction: direction)
        }
        switch half {
        case .sending:
            // The reader first, so that it hears the first event.
            let raw: any RedisPath =
                mode == .pubSub
                ? try await RawPubSub(redis, payloads: .readOnly, channel: key)
                : try await RawStream(redis, payloads: .readOnly, key: key)
            reader = raw
            arrivals = raw.arrivals
            client = nil
            payloads = []
            try await bridge.start()
        case .receiving:
            reader = nil
            let arrivals = Arrivals()
            self.arrivals = arrivals
            client = RedisClient(redis.configuration)
            payloads = events
            try await bridge.start()
            listener =
                switch mode {
                case .pubSub: center.listen(to: BenchPing.self) { _ in arrivals.arrive() }
                case .stream: center.listen(to: BenchStreamPing.self) { _ in arrivals.arrive() }
                }
        }
    }

    func publish(_ n: Int) async {
        await publishBurst(n..<(n + 1))
    }

    func publishBurst(_ range: Range<Int>) async {
        switch half {
        case .sending:
            for n in range {
                switch mode {
                case .pubSub: center.dispatch(BenchPing(n: n, body: benchBody))
                case .stream: center.dispatch(BenchStreamPing(n: n, body: benchBody))
                }
            }
        case .receiving:
            guard let client else { return }
            for start in stride(from: range.lowerBound, to: range.upperBound, by: 512) {
                let end = min(start + 512, range.upperBound)
                let commands: [[RedisArgument]] = (sent..<(sent + end - start)).map { index in
                    let payload = RedisArgument(payloads[index % payloads.count])
                    return mode == .pubSub
                        ? ["PUBLISH", RedisArgument(key), payload]
                        : ["XADD", RedisArgument(key), "*", "event", payload]
                }
                sent += end - start
                _ = try? await client.pipeline(commands)
            }
        }
    }

    func close() async {
        listener?.cancel()
        await bridge.stop()
        await reader?.close()
        client?.close()
    }
}

// MARK: - Measuring

private struct LatencyFigures {
    var median: Double
    var p99: Double
}

/// Sends `count` events one at a time and returns the latency of each, in nanoseconds.
@MainActor
private func latencies(_ path: any RedisPath, count: Int) async -> [Double] {
    var expected = path.arrivals.count
    var samples: [Double] = []
    samples.reserveCapacity(count)
    let clock = ContinuousClock()
    for n in 0..<count {
        let start = clock.now
        expected += 1
        // The publish call and the arrival race: the event may arrive before the publish call
        // returns its reply. Latency is until both happened, measured from the start.
        async let published: Void = path.publish(n)
        await path.arrivals.wait(untilCount: expected)
        await published
        samples.append(nanoseconds(clock.now - start))
    }
    return samples
}

/// What a burst cost per event: wall time, and CPU time in this process (both ends of the path
/// live here) and in the Redis server. In nanoseconds.
struct BurstCost {
    var wall: Double
    var processCPU: Double
    /// nil when the server's `INFO cpu` could not be read.
    var redisCPU: Double?
}

/// Sends `count` events in a burst and returns its cost per event.
///
/// The CPU figures say why a ratio is what it is: on a small machine the client process and
/// Redis share the cores, so what the bridge adds per event in CPU shows in the wall time.
@MainActor
func throughput(_ path: any RedisPath, count: Int, redis: RedisClient) async -> BurstCost {
    let expected = path.arrivals.count + count
    let redisBefore = await redisCPUSeconds(redis)
    let processBefore = processCPUSeconds()
    let clock = ContinuousClock()
    let start = clock.now
    async let published: Void = path.publishBurst(0..<count)
    await path.arrivals.wait(untilCount: expected)
    await published
    let wall = nanoseconds(clock.now - start)
    let processCPU = processCPUSeconds() - processBefore
    let redisAfter = await redisCPUSeconds(redis)
    let redisCPU = redisBefore.flatMap { before in redisAfter.map { $0 - before } }
    return BurstCost(
        wall: wall / Double(count), processCPU: processCPU * 1e9 / Double(count),
        redisCPU: redisCPU.map { $0 * 1e9 / Double(count) })
}

/// CPU time this process has used so far, all threads, in seconds.
private func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU time the Redis server process has used so far (`used_cpu_user` + `used_cpu_sys` of
/// `INFO cpu`; a background rewrite's child is not counted), in seconds; nil if unreadable.
private func redisCPUSeconds(_ client: RedisClient) async -> Double? {
    guard let reply = try? await client.send("INFO", "cpu"), let bytes = reply.bytes else { return nil }
    var total = 0.0
    var found = 0
    for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
        let parts = line.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, parts[0] == "used_cpu_user" || parts[0] == "used_cpu_sys",
            let seconds = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else { continue }
        total += seconds
        found += 1
    }
    return found == 2 ? total : nil
}

/// A row for half of the bridge against half of the raw path (see ``HalfBridgePath``).
private func halfRow(_ name: String, _ costs: [BurstCost], raw: Double) -> Row {
    let figure = median(costs.map(\.wall))
    return Row(
        name: name, role: .subject, value: figure, status: Row.measured,
        detail: formatFigure(1e9 / figure) + " events/s; " + formatRatio(figure / raw) + " of raw; " + cpuDetail(costs))
}

/// The spread and CPU detail of a throughput row: "median of N rounds, LOW-HIGH µs; CPU per
/// event: process …, Redis …" (the row's figure is the median wall time per event; the CPU
/// figures are medians over the rounds too), in microseconds. Every Redis row ends with it, so
/// that a reader sees how far one round can stray, and how much of the time Redis itself spent.
func cpuDetail(_ costs: [BurstCost]) -> String {
    let spread = spreadDetail(costs.map(\.wall)) + "; "
    let process = median(costs.map(\.processCPU)) / 1000
    let redis = costs.compactMap(\.redisCPU)
    let redisText = redis.count == costs.count ? String(format: "%.1f µs", median(redis) / 1000) : "n/a"
    return spread + "CPU per event: process " + String(format: "%.1f µs", process) + ", Redis " + redisText
}

/// How far the rounds of a row strayed: "median of N rounds, LOW-HIGH µs" (the figures are
/// nanoseconds; the row's value is their median), or "one round".
func spreadDetail(_ figures: [Double]) -> String {
    guard figures.count > 1, let low = figures.min(), let high = figures.max() else { return "one round" }
    return "median of \(figures.count) rounds, " + String(format: "%.2f-%.2f µs", low / 1000, high / 1000)
}

private func nanoseconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) * 1e9 + Double(parts.attoseconds) / 1e9
}

private func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
}

/// What a raw-client path sends and how it reads what arrives.
enum Payloads: Sendable {
    /// CloudEvents exactly as the bridge would write them, encoded once up front and sent in
    /// turn; nothing is read from an arrival. The transport alone: the target's baseline.
    case preEncoded([[UInt8]])
    /// Each event encoded when sent and decoded when it arrives, with Foundation's
    /// `JSONEncoder`/`JSONDecoder` and no envelope: what an app carrying its events over a raw
    /// client by hand would do.
    case foundationCodable
    /// A reader alone (the raw reader of the bridge's sending half): it never publishes, and
    /// counts every arrival.
    case readOnly

    /// The pre-encoded CloudEvents (none for Foundation's coding or a reader alone).
    var events: [[UInt8]] {
        if case .preEncoded(let payloads) = self { payloads } else { [] }
    }

    /// `count` CloudEvents, each with an id of its own.
    static func cloudEvents(type: String, count: Int = 64) -> Payloads {
        .preEncoded(
            (0..<count).map { n in
                let data = (try? JSONEncoder().encode(BenchPing(n: n, body: benchBody))).map { Array($0) }
                return CloudEvent(id: UUID().uuidString, source: "bench/raw", type: type, time: Date(), data: data)
                    .jsonBytes()
            })
    }

    func payload(_ n: Int) -> [UInt8] {
        switch self {
        case .preEncoded(let payloads): payloads[n % payloads.count]
        case .readOnly: preconditionFailure("a read-only raw path does not publish")
        case .foundationCodable: (try? JSONEncoder().encode(BenchPing(n: n, body: benchBody))).map { Array($0) } ?? []
        }
    }

    /// Whether an arrival counts: always for pre-encoded bytes and a reader alone; for Codable,
    /// when it decodes.
    func arrived(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .preEncoded, .readOnly: true
        case .foundationCodable: (try? JSONDecoder().decode(BenchPing.self, from: Data(bytes))) != nil
        }
    }
}

@MainActor
func redisLatencyScenario(mode: RedisBridge.Mode, effort: Effort) async -> ScenarioReport {
    let name = mode == .pubSub ? "Pub/Sub" : "Streams"
    let id = mode == .pubSub ? "redis-pubsub-latency" : "redis-stream-latency"
    var report = ScenarioReport(
        id: id, title: "Redis \(name) one-way latency (median; p99 beside it)", unit: .nanosecondsPerOperation,
        operation: "one 128-byte event from the publishing call to the receiving side, one at a time", rows: [])
    let rawName = mode == .pubSub ? "raw client PUBLISH -> subscriber" : "raw client XADD -> XREADGROUP + XACK"
    let bridgeName = "RedisBridge \(mode == .pubSub ? ".pubSub" : ".stream"): dispatch -> listener"
    switch BenchRedis.obtain() {
    case .failure(let skip):
        report.rows = [
            Row(name: rawName, role: .baseline, value: nil, status: skip.reason),
            Row(name: bridgeName, role: .subject, value: nil, status: skip.reason),
        ]
    case .success(let redis):
        let count = effort.isQuick ? 50 : 2_000
        let rounds = effort.isQuick ? 1 : 5
        var raw: [[Double]] = []
        var bridged: [[Double]] = []
        do {
            for _ in 0..<rounds {
                // Round-robin, fresh keys each time: a slow spell hits both alike.
                let rawPath: any RedisPath =
                    mode == .pubSub
                    ? try await RawPubSub(redis, payloads: .cloudEvents(type: BenchPing.wireName))
                    : try await RawStream(redis, payloads: .cloudEvents(type: BenchStreamPing.wireName))
                _ = await latencies(rawPath, count: count / 10)  // warm-up
                raw.append(await latencies(rawPath, count: count))
                await finish(rawPath, on: redis)
                let bridgePath = try await BridgePath(redis, mode: mode)
                _ = await latencies(bridgePath, count: count / 10)
                bridged.append(await latencies(bridgePath, count: count))
                await finish(bridgePath, on: redis)
            }
            func figures(_ runs: [[Double]]) -> LatencyFigures {
                LatencyFigures(
                    median: median(runs.map { percentile($0, 0.5) }), p99: median(runs.map { percentile($0, 0.99) }))
            }
            let rawFigures = figures(raw)
            let bridgeFigures = figures(bridged)
            report.rows = [
                Row(
                    name: rawName, role: .baseline, value: rawFigures.median, status: Row.measured,
                    detail: "p99 " + formatFigure(rawFigures.p99) + " ns; "
                        + spreadDetail(raw.map { percentile($0, 0.5) })),
                Row(
                    name: bridgeName, role: .subject, value: bridgeFigures.median, status: Row.measured,
                    detail: "p99 " + formatFigure(bridgeFigures.p99) + " ns; "
                        + formatRatio(bridgeFigures.median / rawFigures.median) + " median, "
                        + formatRatio(bridgeFigures.p99 / rawFigures.p99) + " p99 of raw; "
                        + spreadDetail(bridged.map { percentile($0, 0.5) })),
            ]
            report.target = Target(
                goal: "bridge median latency within 1.2x of the raw client",
                figure: ratio(bridgeFigures.median, rawFigures.median), kind: .ratio, limit: 1.2, atMost: true)
        } catch {
            report.rows = [Row(name: rawName, role: .baseline, value: nil, status: "failed: \(error)")]
        }
    }
    report.finish(quick: effort.isQuick)
    return report
}

@MainActor
func redisThroughputScenario(mode: RedisBridge.Mode, effort: Effort) async -> ScenarioReport {
    let name = mode == .pubSub ? "Pub/Sub" : "Streams"
    let id = mode == .pubSub ? "redis-pubsub-throughput" : "redis-stream-throughput"
    var report = ScenarioReport(
        id: id, title: "Redis \(name) throughput", unit: .nanosecondsPerOperation,
        operation: "one 128-byte event of a burst, pipelined in batches of 512, until the last arrives"
            + " (the target's baseline is the first row: the transport alone)", rows: [])
    let rawName =
        mode == .pubSub ? "raw client pipelined PUBLISH -> subscriber" : "raw client pipelined XADD -> XREADGROUP"
    let codableName = "raw client + Foundation JSON per event"
    let bridgeName = "RedisBridge \(mode == .pubSub ? ".pubSub" : ".stream"): dispatch burst -> listener"
    let packedName = "RedisBridge, up to \(packedEvents) events per message (batches)"
    let tracedName = "RedisBridge, a trace context current on every dispatch"
    let perDispatchName = "RedisBridge, a trace context made current around each dispatch"
    let sendingName =
        "half: RedisBridge sends -> raw " + (mode == .pubSub ? "subscriber" : "XREADGROUP")
    let receivingName = "half: raw " + (mode == .pubSub ? "PUBLISH" : "XADD") + " -> RedisBridge receives"
    switch BenchRedis.obtain() {
    case .failure(let skip):
        report.rows = [
            Row(name: rawName, role: .baseline, value: nil, status: skip.reason),
            Row(name: codableName, role: .baseline, value: nil, status: skip.reason),
            Row(name: bridgeName, role: .subject, value: nil, status: skip.reason),
            Row(name: packedName, role: .subject, value: nil, status: skip.reason),
            Row(name: tracedName, role: .subject, value: nil, status: skip.reason),
            Row(name: perDispatchName, role: .subject, value: nil, status: skip.reason),
            Row(name: sendingName, role: .subject, value: nil, status: skip.reason),
            Row(name: receivingName, role: .subject, value: nil, status: skip.reason),
        ]
    case .success(let redis):
        let count = effort.isQuick ? 500 : 20_000
        // Five rounds: a burst lasts a few tenths of a second, and whatever else the machine
        // does meanwhile (Redis's fsync of its append-only file, once a second, among it) falls
        // into some bursts and not others.
        let rounds = effort.isQuick ? 1 : 5
        enum Contender: CaseIterable {
            case raw, codable, bridge, traced, tracedPerDispatch, packed, sendingHalf, receivingHalf
        }
        var costs: [Contender: [BurstCost]] = [:]
        let infoClient = RedisClient(redis.configuration)
        defer { infoClient.close() }
        // For the receiving half: as many events as one path receives (warm-up and burst).
        let uniqueEvents = Payloads.cloudEvents(
            type: mode == .pubSub ? BenchPing.wireName : BenchStreamPing.wireName, count: count + count / 10
        ).events
        do {
            for round in 0..<rounds {
                // The four contenders in turn, in reverse order every other round: the server's
                // state drifts during a run (its append-only file only grows), and no contender
                // should always come last.
                let order = round.isMultiple(of: 2) ? Contender.allCases : Contender.allCases.reversed()
                for contender in order {
                    let path: any RedisPath
                    switch (contender, mode) {
                    case (.raw, .pubSub):
                        path = try await RawPubSub(redis, payloads: .cloudEvents(type: BenchPing.wireName))
                    case (.raw, .stream):
                        path = try await RawStream(redis, payloads: .cloudEvents(type: BenchStreamPing.wireName))
                    case (.codable, .pubSub): path = try await RawPubSub(redis, payloads: .foundationCodable)
                    case (.codable, .stream): path = try await RawStream(redis, payloads: .foundationCodable)
                    case (.bridge, _): path = try await BridgePath(redis, mode: mode)
                    case (.traced, _): path = try await BridgePath(redis, mode: mode, tracing: .aroundBurst(benchTrace))
                    case (.tracedPerDispatch, _):
                        path = try await BridgePath(redis, mode: mode, tracing: .perDispatch(benchTrace))
                    case (.packed, _): path = try await BridgePath(redis, mode: mode, maxEventsPerMessage: packedEvents)
                    case (.sendingHalf, _): path = try await HalfBridgePath(redis, mode: mode, half: .sending)
                    case (.receivingHalf, _):
                        path = try await HalfBridgePath(redis, mode: mode, half: .receiving, events: uniqueEvents)
                    }
                    _ = await throughput(path, count: count / 10, redis: infoClient)
                    costs[contender, default: []].append(await throughput(path, count: count, redis: infoClient))
                    await finish(path, on: redis)
                }
            }
            let (raw, codable, bridged, packed) = (costs[.raw]!, costs[.codable]!, costs[.bridge]!, costs[.packed]!)
            let (sendingHalf, receivingHalf) = (costs[.sendingHalf]!, costs[.receivingHalf]!)
            let rawFigure = median(raw.map(\.wall))
            let codableFigure = median(codable.map(\.wall))
            let bridgeFigure = median(bridged.map(\.wall))
            let packedFigure = median(packed.map(\.wall))
            let traced = costs[.traced]!
            let tracedFigure = median(traced.map(\.wall))
            let perDispatch = costs[.tracedPerDispatch]!
            let perDispatchFigure = median(perDispatch.map(\.wall))
            report.rows = [
                Row(
                    name: rawName, role: .baseline, value: rawFigure, status: Row.measured,
                    detail: formatFigure(1e9 / rawFigure) + " events/s; " + cpuDetail(raw)),
                Row(
                    name: codableName, role: .baseline, value: codableFigure, status: Row.measured,
                    detail: formatFigure(1e9 / codableFigure) + " events/s; " + cpuDetail(codable)),
                Row(
                    name: bridgeName, role: .subject, value: bridgeFigure, status: Row.measured,
                    detail: formatFigure(1e9 / bridgeFigure) + " events/s; " + formatRatio(bridgeFigure / rawFigure)
                        + " of raw, " + formatRatio(bridgeFigure / codableFigure) + " of raw + Foundation JSON; "
                        + cpuDetail(bridged)),
                Row(
                    name: tracedName, role: .subject, value: tracedFigure, status: Row.measured,
                    detail: formatFigure(1e9 / tracedFigure) + " events/s; " + formatRatio(tracedFigure / bridgeFigure)
                        + " of the untraced bridge row (goal: at most 1.05x); " + cpuDetail(traced)),
                Row(
                    name: perDispatchName, role: .subject, value: perDispatchFigure, status: Row.measured,
                    detail: formatFigure(1e9 / perDispatchFigure) + " events/s; "
                        + formatRatio(perDispatchFigure / bridgeFigure) + " of the untraced bridge row; "
                        + cpuDetail(perDispatch)),
                Row(
                    name: packedName, role: .subject, value: packedFigure, status: Row.measured,
                    detail: formatFigure(1e9 / packedFigure) + " events/s; " + formatRatio(packedFigure / rawFigure)
                        + " of raw (not the target's row: other consumers must read batches); "
                        + cpuDetail(packed)),
                halfRow(sendingName, sendingHalf, raw: rawFigure),
                halfRow(receivingName, receivingHalf, raw: rawFigure),
            ]
            report.target = Target(
                goal: "bridge time per event within 1.2x of the raw client", figure: ratio(bridgeFigure, rawFigure),
                kind: .ratio, limit: 1.2, atMost: true)
        } catch {
            report.rows = [Row(name: rawName, role: .baseline, value: nil, status: "failed: \(error)")]
        }
    }
    report.finish(quick: effort.isQuick)
    return report
}

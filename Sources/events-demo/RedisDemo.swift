import Events
import EventsRedis
import Foundation
import RedisServerSupport

// Beyond one process: a shop process and a warehouse worker process, each with its own
// EventCenter, joined by the Redis bridge. An order placed in the shop crosses to the worker
// through a Redis stream (at-least-once); the worker answers with a shipment that crosses back;
// a cache flush goes out over Pub/Sub (fire-and-forget).
//
//   swift run events-demo redis
//
// Uses the Redis at $REDIS_URL, else one answering on 127.0.0.1:6379, else starts a private
// redis-server for the run. The worker is this same executable, started as a child process.

struct OrderPlaced: RemoteEvent {
    static let wireName = "com.example.shop.order-placed"
    let orderID: String
    let items: [String]
}

struct OrderShipped: RemoteEvent {
    static let wireName = "com.example.warehouse.order-shipped"
    let orderID: String
    let packedBy: Int32
}

struct WorkerReady: RemoteEvent {
    static let wireName = "com.example.warehouse.worker-ready"
    let pid: Int32
}

struct DemoFinished: RemoteEvent {
    static let wireName = "com.example.demo.finished"
}

extension EventName {
    static let cacheCleared: EventName = "com.example.shop.cache-cleared"
}

/// The shop's checkout screen: the sender of orders, described on the wire by its type name.
final class CheckoutScreen: Sendable {}

/// Events both processes carry, and how.
func carryDemoEvents(on bridge: RedisBridge) throws {
    try bridge.carry(OrderPlaced.self, mode: .stream)
    try bridge.carry(OrderShipped.self, mode: .stream)
    try bridge.carry(WorkerReady.self, mode: .stream)
    try bridge.carry(DemoFinished.self, mode: .stream)
    try bridge.carry(.cacheCleared, data: String.self, mode: .pubSub)
}

func demoBridgeConfiguration(_ redis: RedisConfiguration, source: String) -> RedisBridge.Configuration {
    var configuration = RedisBridge.Configuration(redis: redis, source: source)
    configuration.keyPrefix = "events-demo:"
    configuration.readBlock = .milliseconds(200)
    return configuration
}

@MainActor
func runRedisDemo() async {
    let timeline = Timeline("redis: an event crossing processes through Redis")
    guard let (redis, privateServer) = await findRedis(timeline: timeline) else { return }
    defer { privateServer?.stop() }

    let center = EventFlow.center(for: "redis")
    let bridge = RedisBridge(center: center, configuration: demoBridgeConfiguration(redis, source: "demo/shop"))
    do {
        try carryDemoEvents(on: bridge)
        try await bridge.start()
    } catch {
        timeline.note("could not start the bridge: \(error)")
        return
    }

    let ready = center.events(of: WorkerReady.self)
    timeline.step("shop (pid \(getpid())) starts a warehouse worker process")
    guard let worker = startWorker(redis: redis, timeline: timeline) else {
        await bridge.stop()
        return
    }
    guard let readiness = await first(of: ready, timeout: .seconds(10)) else {
        timeline.note("the worker did not report ready in time")
        worker.terminate()
        await bridge.stop()
        return
    }
    timeline.note("worker \(readiness.pid) is listening (its WorkerReady crossed a stream)")

    let checkout = CheckoutScreen()
    for (index, items) in [["tea", "mug"], ["kettle"]].enumerated() {
        let orderID = "A-\(1001 + index)"
        timeline.step("shop dispatches OrderPlaced \(orderID) from the checkout screen")
        let shipments = center.events(of: OrderShipped.self)
        let started = ContinuousClock.now
        center.dispatch(OrderPlaced(orderID: orderID, items: items), from: checkout)
        guard let shipped = await first(of: shipments, where: { $0.orderID == orderID }, timeout: .seconds(10)) else {
            timeline.note("no shipment came back in time")
            break
        }
        let elapsed = ContinuousClock.now - started
        timeline.call(
            "shop",
            "OrderShipped \(shipped.orderID) from process \(shipped.packedBy), round trip \(milliseconds(elapsed))")
    }

    timeline.step("shop clears its cache and tells everyone over Pub/Sub (fire-and-forget)")
    center.dispatch(.cacheCleared, data: "prices")
    try? await Task.sleep(for: .milliseconds(200))

    timeline.step("shop dispatches DemoFinished; the worker stops its bridge and exits")
    center.dispatch(DemoFinished())
    await bridge.flush()
    let exitStatus = await waitForExit(worker, timeout: .seconds(10))
    timeline.note("worker exited with status \(exitStatus.map(String.init) ?? "unknown (terminated)")")
    await bridge.stop()
    timeline.note("shop bridge: \(bridge.statistics)")
}

/// The worker process: hears orders from the shop, packs them, and answers.
func runRedisWorker(url: String) async -> Int32 {
    let pid = getpid()
    // Written straight to the file descriptor, unbuffered, so lines interleave with the shop's.
    @Sendable func say(_ text: String) {
        FileHandle.standardOutput.write(Data("      ⇢ worker \(pid): \(text)\n".utf8))
    }
    let redis: RedisConfiguration
    do {
        redis = try RedisConfiguration(url: url)
    } catch {
        say("bad Redis URL: \(error)")
        return 2
    }
    let center = EventCenter()
    let bridge = RedisBridge(center: center, configuration: demoBridgeConfiguration(redis, source: "demo/warehouse"))
    let finished = center.events(of: DemoFinished.self)
    let orders = center.listen(to: Sent<OrderPlaced>.self) { sent in
        let order = sent.event
        let origin = sent.sender?.object(as: RemoteOrigin.self)
        say(
            "OrderPlaced \(order.orderID) \(order.items) from \(origin?.source ?? "?") "
                + "(subject \(origin?.subject ?? "none"), stream entry \(origin?.streamEntryID ?? "?"))")
        center.dispatch(OrderShipped(orderID: order.orderID, packedBy: pid))
    }
    let cache = center.listen(to: .cacheCleared) { event in
        say("cache cleared: \((try? event.data(as: String.self)) ?? "?") (via Pub/Sub)")
    }
    do {
        try carryDemoEvents(on: bridge)
        try await bridge.start()
    } catch {
        say("could not start the bridge: \(error)")
        return 1
    }
    center.dispatch(WorkerReady(pid: pid))
    _ = await first(of: finished, timeout: .seconds(60))
    await bridge.stop()
    say("bridge: \(bridge.statistics)")
    _ = (orders, cache)
    return 0
}

// MARK: - Processes

/// The Redis to use, and the private server started for the run if there was none.
private func findRedis(timeline: Timeline) async -> (RedisConfiguration, RedisServer?)? {
    if let url = ProcessInfo.processInfo.environment["REDIS_URL"] {
        do {
            return (try RedisConfiguration(url: url), nil)
        } catch {
            timeline.note("REDIS_URL is not a valid redis:// URL: \(error)")
            return nil
        }
    }
    var local = RedisConfiguration(host: "127.0.0.1", port: 6379)
    local.connectTimeout = .milliseconds(300)
    let client = RedisClient(local)
    defer { client.close() }
    if (try? await client.send("PING"))?.string == "PONG" {
        timeline.note("using the Redis on 127.0.0.1:6379")
        return (local, nil)
    }
    guard RedisServer.executable != nil else {
        timeline.note(
            "skipped: no Redis on 127.0.0.1:6379 and no redis-server on PATH (Debian: apt-get install redis-server)")
        return nil
    }
    do {
        let server = try RedisServer()
        timeline.note("started a private redis-server on port \(server.port)")
        return (server.configuration, server)
    } catch {
        timeline.note("could not start redis-server: \(error)")
        return nil
    }
}

private func startWorker(redis: RedisConfiguration, timeline: Timeline) -> Process? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    process.arguments = ["redis-worker", redis.url]
    // The worker's lines go through this process's own stdout, so that they keep their place
    // among the shop's lines even when the output is a pipe (and so block-buffered).
    let output = Pipe()
    process.standardOutput = output
    output.fileHandleForReading.readabilityHandler = { handle in
        let data = handle.availableData
        if data.isEmpty {
            handle.readabilityHandler = nil
        } else {
            print(String(decoding: data, as: UTF8.self), terminator: "")
        }
    }
    do {
        try process.run()
        return process
    } catch {
        timeline.note("could not start the worker: \(error)")
        return nil
    }
}

/// The first event of `stream` that matches, or nil when `timeout` passes first.
private func first<E: Event>(
    of stream: EventStream<E>, where predicate: @escaping @Sendable (E) -> Bool = { _ in true }, timeout: Duration
) async -> E? {
    await withTaskGroup(of: E?.self) { group in
        group.addTask {
            for await event in stream where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

private func waitForExit(_ process: Process, timeout: Duration) async -> Int32? {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(10))
    }
    if process.isRunning {
        process.terminate()
        return nil
    }
    return process.terminationStatus
}

private func milliseconds(_ duration: Duration) -> String {
    let parts = duration.components
    let value = Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    return String(format: "%.1f ms", value)
}

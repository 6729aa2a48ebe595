import Dispatch
import Foundation
import Synchronization

@testable import Events

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Tick: Event { let n: Int }
struct Tock: Event { let n: Int }
struct PostWritten: Event, Equatable {
    let title: String
}

/// Holds `queue` until `release()`: what is dispatched meanwhile is queued for its listener,
/// and a block put on `queue` meanwhile runs after the listener's first drain.
final class QueueGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered = DispatchSemaphore(value: 0)

    init(_ queue: DispatchQueue) {
        queue.async { [semaphore, entered] in
            entered.signal()
            _ = semaphore.wait(timeout: .now() + 30)
        }
        _ = entered.wait(timeout: .now() + 30)
    }

    func release() { semaphore.signal() }
}

/// A thread-safe integer counter for handlers.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)
    func increment(by amount: Int = 1) { storage.add(amount, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}

/// A thread-safe append-only log of values, in the order they were recorded.
final class Recorder<Value: Sendable>: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var items: [Value] = []
    func record(_ value: Value) { lock.withLock { items.append(value) } }
    var values: [Value] { lock.withLock { items } }
}

/// A Sendable object used as an owner or a sender; reports its own deinitialization.
final class Probe: Sendable {
    let name: String
    let received = Counter()
    private let onDeinit: (@Sendable () -> Void)?

    init(_ name: String = "probe", onDeinit: (@Sendable () -> Void)? = nil) {
        self.name = name
        self.onDeinit = onDeinit
    }

    deinit { onDeinit?() }
}

/// Runs `body` on `count` new threads at once and waits for all of them without holding a
/// thread of the concurrency pool (two on this machine): a test blocked in `runOnThreads` there
/// keeps other suites, the Redis ones among them, from running at all.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    await withCheckedContinuation { continuation in
        group.notify(queue: .global()) { continuation.resume() }
    }
}

/// The number of records the registry holds for `E` (live or not yet reclaimed).
func storedRecords<E: Event>(_ center: EventCenter, _ type: E.Type) -> Int {
    center.registry.snapshot(for: EventKey(type))?.count ?? 0
}

/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether
/// it held. For a step that happens on another thread or task and gives nothing to await.
///
/// The timeout only bounds how long a failing test waits: a passing one returns as soon as the
/// condition holds, so it is generous (the sanitizer runs on 2 cores are many times slower).
/// The Redis tests have the same helper: a shared home would need a target both depend on.
func eventually(
    timeout: Duration = .seconds(60), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

/// Waits `duration`, so that the checks after it can show that something did not happen: a
/// listener did not run, a wait did not finish.
///
/// A fixed wait is the only way to show an absence: what must never happen gives nothing to
/// await, and a wait for it can only end at a deadline. Use it for that alone; to wait for
/// something that must happen use `eventually`, which returns as soon as it does.
func waitToShowNothingArrives(for duration: Duration = .milliseconds(300)) async {
    try? await Task.sleep(for: duration)
}

/// Gives other threads a chance to run (to widen race windows in stress tests).
func yieldThread() {
    sched_yield()
}

/// A deterministic random source (xorshift64*), so that a failure reproduces.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 1 : seed }  // xorshift never leaves 0
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

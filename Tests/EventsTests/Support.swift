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

/// Gives other threads a chance to run (to widen race windows in stress tests).
func yieldThread() {
    sched_yield()
}

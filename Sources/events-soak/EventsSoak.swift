import Dispatch
import Events
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// The soak run: ten million dispatches on two threads while a third keeps registering and
// ending listeners in every context, sampling resident memory as it goes. It passes when, after
// a warm-up, the samples stay within a bound, the permanent listeners counted every dispatch,
// and only the permanent listeners are left at the end.
//
//   swift run -c release events-soak [--dispatches N] [--samples K] [--bound-mb M]
//
// Not part of `swift test`; `scripts/soak.sh` runs it.

struct SoakTick: Event {
    let n: Int
}

final class SoakOwner: Sendable {}

actor SoakActor {
    private(set) var received = 0
    func count() { received += 1 }
}

final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Resident memory, from `/proc/self/statm` (Linux); nil elsewhere.
func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// A small generator, so that a run's mix of churn is the same every time.
struct SoakRandom {
    var state: UInt64
    mutating func below(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

@main
struct EventsSoak {
    static func main() async {
        var dispatches = 10_000_000
        var samples = 20
        var boundMB = 12
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            guard let value = arguments.popFirst().flatMap({ Int($0.filter { $0 != "_" }) }), value > 0 else {
                fail("\(argument) needs a positive number")
            }
            switch argument {
            case "--dispatches": dispatches = value
            case "--samples": samples = value
            case "--bound-mb": boundMB = value
            default: fail("unknown argument \"\(argument)\" (--dispatches N, --samples K, --bound-mb M)")
            }
        }
        let soak = Soak(dispatches: dispatches, samples: max(samples, 4))
        let boundBytes = boundMB << 20
        // The run blocks its threads; the main actor stays free for the main-actor listeners.
        let passed = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: soak.run(boundBytes: boundBytes)) }.start()
        }
        exit(passed ? 0 : 1)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("events-soak: \(message)\n".utf8))
        exit(2)
    }
}

final class Soak: Sendable {
    static let name: EventName = "soak.tick"

    let center = EventCenter()
    let dispatches: Int
    let samples: Int
    let serialQueue = DispatchQueue(label: "soak.serial")
    let concurrentQueue = DispatchQueue(label: "soak.concurrent", attributes: .concurrent)
    let operationQueue: OperationQueue
    let done = Atomic<Bool>(false)
    let churned = Counter()
    let permanentPosting = Counter()
    let permanentOwned = Counter()
    let permanentQueued = Counter()
    let permanentNamed = Counter()
    let churnCalls = Counter()
    let owner = SoakOwner()
    private let lock = NSLock()
    // Guarded by `lock`: appended to by the first dispatching thread, read after every thread
    // has finished.
    nonisolated(unsafe) private var sampled: [(dispatched: Int, resident: Int, listeners: Int)] = []

    init(dispatches: Int, samples: Int) {
        self.dispatches = dispatches
        self.samples = samples
        operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 2
    }

    func run(boundBytes: Int) -> Bool {
        let permanent = [
            center.listen(to: SoakTick.self) { [permanentPosting] _ in permanentPosting.increment() },
            center.listen(to: SoakTick.self, on: .queue(serialQueue)) { [permanentQueued] _ in
                permanentQueued.increment()
            },
            center.listen(to: Self.name) { [permanentNamed] _ in permanentNamed.increment() },
        ]
        center.listen(to: SoakTick.self, owner: owner) { [permanentOwned] _, _ in permanentOwned.increment() }
        let baseline = center.listenerCount(for: SoakTick.self)
        let start = ContinuousClock.now
        let typed = Counter()
        let group = DispatchGroup()
        for thread in 0..<3 {
            group.enter()
            Thread {
                if thread < 2 { self.dispatch(thread, typed: typed) } else { self.churn() }
                group.leave()
            }.start()
        }
        group.wait()
        let elapsed = ContinuousClock.now - start
        // Let every queued delivery finish before counting (the queued listener's backlog is
        // bounded, so this is short).
        let total = typed.count
        let deadline = ContinuousClock.now + .seconds(60)
        while permanentQueued.count < total && ContinuousClock.now < deadline { sched_yield() }
        concurrentQueue.sync(flags: .barrier) {}
        operationQueue.waitUntilAllOperationsAreFinished()
        var passed = true
        func check(_ ok: Bool, _ message: String) {
            if !ok {
                print("FAILED: \(message)")
                passed = false
            }
        }
        check(
            permanentPosting.count == total,
            "the posting-thread listener ran \(permanentPosting.count) times, not \(total)")
        check(permanentOwned.count == total, "the owner-bound listener ran \(permanentOwned.count) times, not \(total)")
        check(permanentQueued.count == total, "the queued listener ran \(permanentQueued.count) times, not \(total)")
        check(
            permanentNamed.count == dispatches - typed.count,
            "the named listener ran \(permanentNamed.count) times, not \(dispatches - typed.count)")
        check(
            center.listenerCount(for: SoakTick.self) == baseline,
            "\(center.listenerCount(for: SoakTick.self)) typed listeners left, not the \(baseline) permanent ones")

        let series = lock.withLock { sampled }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "events-soak: \(dispatches) dispatches on 2 threads in \(String(format: "%.1f", seconds)) s "
                + "(\(Int(Double(dispatches) / seconds)) a second), \(churned.count) listeners churned, "
                + "\(churnCalls.count) calls of churned listeners")
        print("  dispatched   resident MB   listeners")
        for sample in series {
            print(
                "  \(String(sample.dispatched).leftPadded(10))   "
                    + "\(String(format: "%11.1f", Double(sample.resident) / 1_048_576))   "
                    + "\(String(sample.listeners).leftPadded(9))")
        }
        // The first samples are the warm-up: arrays, caches and the allocator's arenas growing
        // to their working size.
        let settled = series.dropFirst(max(series.count / 5, 1)).map(\.resident)
        if let low = settled.min(), let high = settled.max() {
            let spread = high - low
            print(
                "resident memory after the warm-up: \(mb(low)) to \(mb(high)) MB, spread \(mb(spread)) MB "
                    + "(bound \(mb(boundBytes)) MB)")
            check(spread <= boundBytes, "resident memory grew by \(mb(spread)) MB, more than \(mb(boundBytes)) MB")
        } else {
            print("resident memory: not available on this platform")
        }
        print(passed ? "events-soak passed" : "events-soak FAILED")
        withExtendedLifetime(permanent) {}
        return passed
    }

    private func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

    private func dispatch(_ thread: Int, typed: Counter) {
        let share = dispatches / 2 + (thread == 0 ? dispatches % 2 : 0)
        let every = max(share / samples, 1)
        var random = SoakRandom(state: UInt64(thread) &+ 17)
        for n in 0..<share {
            if random.below(10) == 0 {
                center.dispatch(Self.name, from: owner, data: n)
            } else {
                center.dispatch(SoakTick(n: n))
                typed.increment()
            }
            // The queued listener must keep up: wait for it when it falls far behind, so that
            // its backlog (which is not a leak) stays bounded.
            if n % 1_024 == 0 {
                while typed.count - permanentQueued.count > 10_000 { sched_yield() }
            }
            if thread == 0, n % every == every - 1, let resident = residentBytes() {
                let sample = (n * 2, resident, center.listenerCount(for: SoakTick.self))
                lock.withLock { sampled.append(sample) }
            }
        }
        if thread == 0 { done.store(true, ordering: .sequentiallyConsistent) }
    }

    /// Registers and ends listeners until the dispatchers are done: every context, with and
    /// without an owner, key and once, ended by cancel(), a removal or the owner's death.
    private func churn() {
        let actors = (0..<4).map { _ in SoakActor() }
        var random = SoakRandom(state: 99)
        let calls = churnCalls
        while !done.load(ordering: .sequentiallyConsistent) {
            let owner = SoakOwner()
            // What `remove` names: the owner, or the actor of an actor listener.
            var removable: AnyObject = owner
            let once = random.below(4) == 0
            let subscription: Subscription
            switch random.below(10) {
            case 0:
                subscription = center.listen(to: SoakTick.self, once: once) { _ in calls.increment() }
            case 1:
                subscription = center.listen(to: SoakTick.self, owner: owner, once: once) { _, _ in calls.increment() }
            case 2:
                subscription = center.listen(to: SoakTick.self, owner: owner, key: random.below(3)) { _, _ in
                    calls.increment()
                }
                // A repeated registration is a no-op.
                center.listen(to: SoakTick.self, owner: owner, key: 0) { _, _ in calls.increment() }
            case 3:
                subscription = center.listen(to: SoakTick.self, on: .queue(serialQueue), once: once) { _ in
                    calls.increment()
                }
            case 4:
                subscription = center.listen(to: SoakTick.self, owner: owner, on: .queue(concurrentQueue)) { _, _ in
                    calls.increment()
                }
            case 5:
                subscription = center.listen(to: SoakTick.self, on: .operationQueue(operationQueue), once: once) {
                    _ in calls.increment()
                }
            case 6:
                subscription = center.listen(to: SoakTick.self, owner: owner, on: .background, once: once) { _, _ in
                    calls.increment()
                }
            case 7:
                // The actors outlive the loop: the actor is the owner that `remove` names.
                let actor = actors[random.below(4)]
                removable = actor
                subscription = center.listen(to: SoakTick.self, isolatedTo: actor, once: once) { actor, _ in
                    actor.count()
                }
            case 8:
                subscription = center.listen(to: SoakTick.self, owner: owner, on: .mainOrdered, once: once) { _, _ in
                    calls.increment()
                }
            default:
                subscription = center.listen(to: Self.name, owner: owner, once: once) { _, _ in calls.increment() }
            }
            for _ in 0..<random.below(8) { sched_yield() }
            switch random.below(3) {
            case 0: subscription.cancel()
            case 1: center.remove(removable)
            default:
                // The owner dies here and a closure listener ends with its subscription; the
                // actors live on, so their listener is cancelled.
                if removable !== owner { subscription.cancel() }
            }
            churned.increment()
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

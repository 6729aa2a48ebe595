import Dispatch
import Foundation
import Testing

@testable import Events

/// The ways a `remove` call can name an owner-bound listener registered with the key "k" for
/// `Tick`.
enum TypedRemoval: String, CaseIterable, Sendable {
    case owner, ownerForType, ownerKey, ownerKeyForType

    func perform(_ center: EventCenter, _ owner: AnyObject) {
        switch self {
        case .owner: center.remove(owner)
        case .ownerForType: center.remove(owner, for: Tick.self)
        case .ownerKey: center.remove(owner, key: "k")
        case .ownerKeyForType: center.remove(owner, key: "k", for: Tick.self)
        }
    }
}

/// The ways a `remove` call can name an owner-bound listener of the name `refreshed` (key "k"),
/// or of every name.
enum NamedRemoval: String, CaseIterable, Sendable {
    case owner, ownerForName, ownerKeyForName, allNames, allNamesKey

    var listensToAllNames: Bool { self == .allNames || self == .allNamesKey }

    func perform(_ center: EventCenter, _ owner: AnyObject) {
        switch self {
        case .owner: center.remove(owner)
        case .ownerForName: center.remove(owner, for: .refreshed)
        case .ownerKeyForName: center.remove(owner, key: "k", for: .refreshed)
        case .allNames: center.remove(owner, for: NamedEvent.self)
        case .allNamesKey: center.remove(owner, key: "k", for: NamedEvent.self)
        }
    }
}

extension EventName {
    fileprivate static let refreshed: EventName = "refreshed"
}

/// A serial queue held by a block that waits for `release()`, so that deliveries queued behind
/// it wait too.
final class HeldQueue: Sendable {
    let queue = DispatchQueue(label: "held")
    private let gate = DispatchSemaphore(value: 0)

    init() {
        queue.async { [gate] in gate.wait() }
    }

    func release() { gate.signal() }
}

/// An actor whose jobs run on a held queue: until the queue is released, everything isolated to
/// the actor waits, without blocking a thread of the concurrency pool.
actor HeldActor {
    private let executor: QueueExecutor

    init(_ held: HeldQueue) {
        executor = QueueExecutor(queue: held.queue)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}

/// Runs an actor's jobs on a serial dispatch queue.
final class QueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}

/// Rule 7 for `remove`: once it returns, a `once` listener whose single event is still queued in
/// its context does not run, exactly as after `Subscription.cancel()`.
@Suite("Rule 7: remove stops a once listener's queued event")
struct QueuedOnceRemovalTests {
    @Test("on a dispatch queue", arguments: TypedRemoval.allCases)
    func onAQueue(_ removal: TypedRemoval) async {
        let center = EventCenter()
        let held = HeldQueue()
        let owner = Probe()
        let ran = Counter()
        center.listen(to: Tick.self, owner: owner, key: "k", on: .queue(held.queue), once: true) { _, _ in
            ran.increment()
        }
        let batch = DispatchBatch()
        batch.dispatch(Tick(n: 1), through: center)
        removal.perform(center, owner)
        held.release()
        let report = await batch.wait()
        #expect(ran.value == 0)
        #expect(report.received == 0)
        #expect(center.dispatch(Tick(n: 2)) == 0)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test("on an operation queue", arguments: TypedRemoval.allCases)
    func onAnOperationQueue(_ removal: TypedRemoval) async {
        let center = EventCenter()
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        let gate = DispatchSemaphore(value: 0)
        operations.addOperation { gate.wait() }
        let owner = Probe()
        let ran = Counter()
        center.listen(to: Tick.self, owner: owner, key: "k", on: .operationQueue(operations), once: true) { _, _ in
            ran.increment()
        }
        let batch = DispatchBatch()
        batch.dispatch(Tick(n: 1), through: center)
        removal.perform(center, owner)
        gate.signal()
        let report = await batch.wait()
        #expect(ran.value == 0)
        #expect(report.received == 0)
    }

    // Dispatched and removed within one turn of the main actor, so the delivery is still queued
    // behind this test's code when `remove` returns.
    @MainActor @Test("on the main actor, ordered", arguments: TypedRemoval.allCases)
    func onTheMainActor(_ removal: TypedRemoval) async {
        let center = EventCenter()
        let owner = Probe()
        let ran = Counter()
        center.listen(to: Tick.self, owner: owner, key: "k", on: .mainOrdered, once: true) { _, _ in
            ran.increment()
        }
        let batch = DispatchBatch()
        batch.dispatch(Tick(n: 1), through: center)
        removal.perform(center, owner)
        let report = await batch.wait()
        #expect(ran.value == 0)
        #expect(report.received == 0)
    }

    @Test("isolated to an actor", arguments: TypedRemoval.allCases)
    func onAnActor(_ removal: TypedRemoval) async {
        let center = EventCenter()
        let held = HeldQueue()
        let actor = HeldActor(held)
        let ran = Counter()
        center.listen(to: Tick.self, isolatedTo: actor, key: "k", once: true) { _, _ in ran.increment() }
        let batch = DispatchBatch()
        batch.dispatch(Tick(n: 1), through: center)
        removal.perform(center, actor)
        held.release()
        let report = await batch.wait()
        #expect(ran.value == 0)
        #expect(report.received == 0)
    }

    @Test("named listeners on a dispatch queue", arguments: NamedRemoval.allCases)
    func namedOnAQueue(_ removal: NamedRemoval) async {
        let center = EventCenter()
        let held = HeldQueue()
        let owner = Probe()
        let ran = Counter()
        if removal.listensToAllNames {
            center.listen(to: NamedEvent.self, owner: owner, key: "k", on: .queue(held.queue), once: true) { _, _ in
                ran.increment()
            }
        } else {
            center.listen(to: .refreshed, owner: owner, key: "k", on: .queue(held.queue), once: true) { _, _ in
                ran.increment()
            }
        }
        let batch = DispatchBatch()
        batch.dispatch(.refreshed, through: center)
        removal.perform(center, owner)
        held.release()
        let report = await batch.wait()
        #expect(ran.value == 0)
        #expect(report.received == 0)
        #expect(center.listenerCount(for: .refreshed) == 0)
    }

    @Test("a queued once event that is not removed still runs, exactly once")
    func notRemovedStillRuns() async {
        let center = EventCenter()
        let held = HeldQueue()
        let owner = Probe()
        let ran = Counter()
        center.listen(to: Tick.self, owner: owner, on: .queue(held.queue), once: true) { _, _ in ran.increment() }
        let batch = DispatchBatch()
        batch.dispatch(Tick(n: 1), through: center)
        batch.dispatch(Tick(n: 2), through: center)
        center.remove(Probe())
        held.release()
        let report = await batch.wait()
        #expect(ran.value == 1)
        #expect(report.received == 1)
        #expect(center.listenerCount(for: Tick.self) == 0)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test("a queued once event whose owner dies before its turn is skipped and reclaimed")
    func ownerDiesWhileQueued() async {
        let center = EventCenter()
        let held = HeldQueue()
        let ran = Counter()
        let batch = DispatchBatch()
        do {
            let owner = Probe()
            center.listen(to: Tick.self, owner: owner, on: .queue(held.queue), once: true) { _, _ in ran.increment() }
            batch.dispatch(Tick(n: 1), through: center)
        }
        held.release()
        let report = await batch.wait()
        #expect(ran.value == 0)
        #expect(report.received == 0)
        #expect(storedRecords(center, Tick.self) == 0)
    }
}
